// GPU::MGTransferMatrixFree: set-up on the host from deal.II's level DoFs,
// transfer and copy kernels on the device.
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include "transfer_kernels.h"
#include <algorithm>
#include <atomic>
#include <map>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <typename NumberDst, typename NumberSrc>
      void copy_indexed(const Array<unsigned int> &to,
                        const Array<unsigned int> &from,
                        NumberDst                 *dst,
                        const NumberSrc           *src,
                        const bool                 add)
      {
        const unsigned int *t = to.data();
        const unsigned int *f = from.data();
        if (add)
          parallel_for("MGTransferMatrixFree::copy (add)",
                       to.size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                       { dst[t[i]] += NumberDst(src[f[i]]); });
        else
          parallel_for("MGTransferMatrixFree::copy",
                       to.size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                       { dst[t[i]] = NumberDst(src[f[i]]); });
      }

      template void copy_indexed(const Array<unsigned int> &,
                                 const Array<unsigned int> &,
                                 float *,
                                 const float *,
                                 const bool);
      template void copy_indexed(const Array<unsigned int> &,
                                 const Array<unsigned int> &,
                                 float *,
                                 const double *,
                                 const bool);
      template void copy_indexed(const Array<unsigned int> &,
                                 const Array<unsigned int> &,
                                 double *,
                                 const float *,
                                 const bool);
      template void copy_indexed(const Array<unsigned int> &,
                                 const Array<unsigned int> &,
                                 double *,
                                 const double *,
                                 const bool);

      // Local index of @p global in @p partitioner (owned or ghost).
      inline unsigned int
      local_index(const Utilities::MPI::Partitioner &partitioner,
                  const types::global_dof_index      global)
      {
        AssertThrow(partitioner.in_local_range(global) ||
                        partitioner.is_ghost_entry(global),
                    ExcInternalError());
        return partitioner.global_to_local(global);
      }

      // A partitioner with the owned set and the ghosts @p needed: @p
      // external itself if its ghosts hold them all.
      inline std::shared_ptr<const Utilities::MPI::Partitioner>
      partitioner_with_ghosts(
          const IndexSet                                           &owned,
          std::vector<types::global_dof_index>                     &needed,
          const std::shared_ptr<const Utilities::MPI::Partitioner> &external,
          const MPI_Comm                                            comm)
      {
        // Most entries are owned: drop them before sorting.
        needed.erase(std::remove_if(needed.begin(),
                                    needed.end(),
                                    [&](const types::global_dof_index g)
                                    { return owned.is_element(g); }),
                     needed.end());
        std::sort(needed.begin(), needed.end());
        needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
        IndexSet ghosts(owned.size());
        ghosts.add_indices(needed.begin(), needed.end());
        ghosts.subtract_set(owned);
        // Collective: the Partitioner constructor communicates, so all
        // ranks take the same branch.
        if (external)
        {
          IndexSet missing = ghosts;
          missing.subtract_set(external->ghost_indices());
          if (Utilities::MPI::max(missing.n_elements(), comm) == 0)
            return external;
        }
        return std::make_shared<Utilities::MPI::Partitioner>(
            owned, ghosts, comm);
      }
    } // namespace internal

    template <int dim, typename Number>
    MGTransferMatrixFree<dim, Number>::MGTransferMatrixFree(
        const MGConstrainedDoFs &mg_constrained_dofs)
    {
      initialize_constraints(mg_constrained_dofs);
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::initialize_constraints(
        const MGConstrainedDoFs &constrained)
    {
      mg_constrained_dofs = &constrained;
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::clear()
    {
      n_levels = 0;
      transfers.clear();
      copies.clear();
      level_partitioners.clear();
      transfer_partitioners.clear();
      transfer_vectors.clear();
      copy_vectors.clear();
      global_copy_vector = VectorType();
      prolongation_1d.clear();
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::build(
        const DoFHandler<dim, dim> &dof_handler,
        const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
            &external_partitioners)
    {
      clear();
      const Triangulation<dim> &tria = dof_handler.get_triangulation();
      const MPI_Comm            comm = tria.get_communicator();
      const bool                distributed =
          dynamic_cast<const parallel::TriangulationBase<dim> *>(&tria) !=
          nullptr;
      const auto *parallel_tria =
          dynamic_cast<const parallel::TriangulationBase<dim> *>(&tria);
      AssertThrow(parallel_tria == nullptr ||
                      parallel_tria->is_multilevel_hierarchy_constructed(),
                  ExcNotSupportedByMGTransfer(
                      "a parallel triangulation without its multigrid "
                      "hierarchy: create it with "
                      "construct_multigrid_hierarchy"));
      AssertThrow(dof_handler.has_level_dofs(),
                  ExcNotSupportedByMGTransfer(
                      "the DoFHandler has no level DoFs: call "
                      "distribute_mg_dofs() (and, for a "
                      "parallel::distributed::Triangulation, create it with "
                      "construct_multigrid_hierarchy)"));
      const FiniteElement<dim> &fe = dof_handler.get_fe();
      const auto *fe_q = dynamic_cast<const FE_Q<dim> *>(&fe.base_element(0));
      AssertThrow(fe.n_base_elements() == 1 && fe_q != nullptr,
                  ExcNotSupportedByMGTransfer(
                      "element " + fe.get_name() +
                      " (FE_Q(k) or FESystem(FE_Q(k), n) only)"));
      degree       = fe.degree;
      n_components = fe.n_components();
      AssertThrow(degree >= 1 && degree <= 8,
                  ExcNotSupportedByMGTransfer(
                      "degree " + std::to_string(degree) + " (1 to 8)"));
      n_levels = tria.n_global_levels();
      AssertThrow(external_partitioners.empty() ||
                      external_partitioners.size() == n_levels,
                  ExcNotSupportedByMGTransfer(
                      std::to_string(external_partitioners.size()) +
                      " partitioners for " + std::to_string(n_levels) +
                      " levels"));
      for (unsigned int l = 0; l < external_partitioners.size(); ++l)
        AssertThrow(external_partitioners[l]->locally_owned_range() ==
                        dof_handler.locally_owned_mg_dofs(l),
                    ExcNotSupportedByMGTransfer(
                        "the partitioner of level " + std::to_string(l) +
                        " does not own the level's locally owned DoFs"));

      // 1D prolongation: coarse basis function i at the child points j =
      // k child + a (a = 0..k) of the parent interval.
      const std::vector<unsigned int> lexicographic =
          FETools::lexicographic_to_hierarchic_numbering<dim>(degree);
      const unsigned int n1 = degree + 1, nf = 2 * degree + 1;
      {
        std::vector<Number> P(nf * n1);
        const auto         &support = fe_q->get_unit_support_points();
        for (unsigned int j = 0; j < nf; ++j)
        {
          const unsigned int child = j < degree ? 0 : 1;
          Point<dim>         x;
          x[0] = 0.5 * (support[lexicographic[j - degree * child]][0] + child);
          for (unsigned int i = 0; i < n1; ++i)
            P[j * n1 + i] = fe_q->shape_value(lexicographic[i], x);
        }
        prolongation_1d.copy_from(P);
      }

      const unsigned int nc                          = internal::power<dim>(n1);
      const unsigned int nfc                         = internal::power<dim>(nf);
      const unsigned int dofs_per_cell               = fe.n_dofs_per_cell();
      auto               lexicographic_level_indices = [&](const auto &cell)
      {
        std::vector<types::global_dof_index> indices(dofs_per_cell),
            result(dofs_per_cell);
        cell->get_mg_dof_indices(indices);
        for (unsigned int c = 0; c < n_components; ++c)
          for (unsigned int i = 0; i < nc; ++i)
            result[c * nc + i] =
                indices[fe.component_to_system_index(c, lexicographic[i])];
        return result;
      };

      // Per level l >= 1: the coarse cells' DoFs (level l - 1) and their
      // children's lattice DoFs (level l), as global level indices.
      std::vector<std::vector<types::global_dof_index>> coarse_global(n_levels),
          fine_global(n_levels), needed(n_levels);
      transfers.resize(n_levels);
      for (unsigned int l = 1; l < n_levels; ++l)
      {
        std::vector<typename DoFHandler<dim>::level_cell_iterator> parents;
        for (const auto &cell : dof_handler.mg_cell_iterators_on_level(l - 1))
          if (cell->has_children() && cell->is_locally_owned_on_level())
            parents.push_back(cell);
        transfers[l].n_coarse_cells = parents.size();
        const unsigned int n_coarse = n_components * nc;
        const unsigned int n_fine   = n_components * nfc;
        coarse_global[l].resize(parents.size() * n_coarse);
        fine_global[l].resize(parents.size() * n_fine);
        parallel_for_chunks(
            parents.size(),
            256,
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t k = begin; k < end; ++k)
              {
                const auto &cell   = parents[k];
                const auto  coarse = lexicographic_level_indices(cell);
                std::copy(coarse.begin(),
                          coarse.end(),
                          coarse_global[l].begin() + k * n_coarse);
                auto *lattice = fine_global[l].data() + k * n_fine;
                for (unsigned int child = 0; child < cell->n_children();
                     ++child)
                {
                  const auto fine =
                      lexicographic_level_indices(cell->child(child));
                  for (unsigned int c = 0; c < n_components; ++c)
                    for (unsigned int i = 0; i < nc; ++i)
                    {
                      unsigned int p = 0, stride = 1, rest = i;
                      for (unsigned int d = 0; d < dim; ++d, stride *= nf)
                      {
                        p += (degree * ((child >> d) & 1) + rest % n1) * stride;
                        rest /= n1;
                      }
                      lattice[c * nfc + p] = fine[c * nc + i];
                    }
                }
              }
            });
        // Only other ranks' DoFs become ghosts: no copy of the owned ones.
        const auto add_needed =
            [&](const unsigned int                          level,
                const std::vector<types::global_dof_index> &indices)
        {
          const IndexSet &owned = dof_handler.locally_owned_mg_dofs(level);
          for (const auto g : indices)
            if (!owned.is_element(g))
              needed[level].push_back(g);
        };
        add_needed(l, fine_global[l]);
        add_needed(l - 1, coarse_global[l]);
      }

      level_partitioners.resize(n_levels);
      transfer_partitioners.resize(n_levels);
      transfer_vectors.resize(n_levels);
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        const IndexSet &owned = dof_handler.locally_owned_mg_dofs(l);
        const auto      external =
            external_partitioners.empty() ? nullptr : external_partitioners[l];
        transfer_partitioners[l] =
            internal::partitioner_with_ghosts(owned, needed[l], external, comm);
        if (external)
          level_partitioners[l] = external;
        else
          level_partitioners[l] = transfer_partitioners[l];
        if (transfer_partitioners[l] != level_partitioners[l])
          transfer_vectors[l].reinit(transfer_partitioners[l]);
      }

      // Local indices, Dirichlet flags and weights.
      for (unsigned int l = 1; l < n_levels; ++l)
      {
        const auto               &coarse_part = *transfer_partitioners[l - 1];
        const auto               &fine_part   = *transfer_partitioners[l];
        std::vector<unsigned int> coarse(coarse_global[l].size()),
            fine(fine_global[l].size());
        parallel_for_chunks(
            coarse.size(),
            8192,
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t i = begin; i < end; ++i)
              {
                const types::global_dof_index g = coarse_global[l][i];
                coarse[i] = internal::local_index(coarse_part, g);
                if (mg_constrained_dofs != nullptr &&
                    mg_constrained_dofs->is_boundary_index(l - 1, g))
                  coarse[i] |= constrained_dof_flag;
              }
            });
        parallel_for_chunks(fine.size(),
                            8192,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              for (std::size_t i = begin; i < end; ++i)
                                fine[i] = internal::local_index(
                                    fine_part, fine_global[l][i]);
                            });
        LinearAlgebra::distributed::Vector<double> touched(
            transfer_partitioners[l]);
        for (std::size_t i = 0; i < fine.size(); ++i)
          touched.local_element(fine[i]) += 1.;
        touched.compress(VectorOperation::add);
        touched.update_ghost_values();
        std::vector<Number> weights(fine_part.locally_owned_size() +
                                    fine_part.n_ghost_indices());
        for (std::size_t i = 0; i < weights.size(); ++i)
          weights[i] = touched.local_element(i) > 0.
                           ? Number(1. / touched.local_element(i))
                           : Number();
        transfers[l].coarse_indices.copy_from(coarse);
        transfers[l].fine_indices.copy_from(fine);
        transfers[l].weights.copy_from(weights);
      }

      // Copies between the global vector and the levels: the pairs (global,
      // level) of the active cells of each level, refinement-edge DoFs left
      // out. The owner of the global DoF copies to it; the owner of the
      // level DoF copies to that, getting the pairs it cannot see from the
      // global owners (as deal.II's MGLevelGlobalTransfer does).
      global_partitioner = std::make_shared<Utilities::MPI::Partitioner>(
          dof_handler.locally_owned_dofs(),
          IndexSet(dof_handler.n_dofs()),
          comm);
      const IndexSet &owned_global = dof_handler.locally_owned_dofs();
      std::vector<types::global_dof_index> global_ghosts;
      std::vector<std::vector<
          std::pair<types::global_dof_index, types::global_dof_index>>>
          to_level(n_levels), from_level(n_levels);
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        const IndexSet &owned_level = dof_handler.locally_owned_mg_dofs(l);
        std::vector<typename DoFHandler<dim>::active_cell_iterator> cells;
        for (const auto &cell : dof_handler.active_cell_iterators_on_level(l))
          if (!distributed ||
              (cell->level_subdomain_id() != numbers::artificial_subdomain_id &&
               cell->subdomain_id() != numbers::artificial_subdomain_id))
            cells.push_back(cell);
        // Each owned global DoF's level DoF and each owned level DoF's
        // global one, marked by the threads (a DoF shared by cells gets the
        // same partner from each); the pairs then come out in order.
        const types::global_dof_index unset = numbers::invalid_dof_index;
        std::vector<std::atomic<types::global_dof_index>> level_of_global(
            owned_global.n_elements()),
            global_of_level(owned_level.n_elements());
        for (auto &entry : level_of_global)
          entry.store(unset, std::memory_order_relaxed);
        for (auto &entry : global_of_level)
          entry.store(unset, std::memory_order_relaxed);
        std::atomic<bool> inconsistent(false);
        const auto mark = [&](std::atomic<types::global_dof_index> &entry,
                              const types::global_dof_index         value)
        {
          const auto old = entry.exchange(value, std::memory_order_relaxed);
          if (old != unset && old != value)
            inconsistent = true;
        };
        // Level DoFs owned elsewhere, per chunk of cells in the cells' order
        // (the same list on any number of threads).
        constexpr std::size_t grain    = 1024;
        const std::size_t     n_chunks = (cells.size() + grain - 1) / grain;
        std::vector<std::vector<types::global_dof_index>> chunk_send(n_chunks);
        parallel_for_chunks(
            cells.size(),
            grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              std::vector<types::global_dof_index> global_indices(
                  dofs_per_cell),
                  level_indices(dofs_per_cell);
              auto &send = chunk_send[begin / grain];
              for (std::size_t k = begin; k < end; ++k)
              {
                cells[k]->get_dof_indices(global_indices);
                cells[k]->get_mg_dof_indices(level_indices);
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                {
                  const types::global_dof_index g = global_indices[i],
                                                m = level_indices[i];
                  if (mg_constrained_dofs != nullptr &&
                      mg_constrained_dofs->at_refinement_edge(l, m))
                    continue;
                  if (!owned_global.is_element(g))
                    continue;
                  mark(level_of_global[owned_global.index_within_set(g)], m);
                  if (owned_level.is_element(m))
                    mark(global_of_level[owned_level.index_within_set(m)], g);
                  else
                  {
                    send.push_back(g);
                    send.push_back(m);
                  }
                }
              }
            });
        std::vector<types::global_dof_index> send;
        for (std::size_t c = 0; c < n_chunks; ++c)
          send.insert(send.end(), chunk_send[c].begin(), chunk_send[c].end());
        if (distributed && Utilities::MPI::n_mpi_processes(comm) > 1)
        {
          IndexSet query(owned_level.size());
          for (std::size_t i = 1; i < send.size(); i += 2)
            query.add_index(send[i]);
          const std::vector<unsigned int> owners =
              Utilities::MPI::compute_index_owner(owned_level, query, comm);
          std::map<unsigned int, std::vector<types::global_dof_index>> messages;
          for (std::size_t i = 0; i < send.size(); i += 2)
          {
            auto &message =
                messages[owners[query.index_within_set(send[i + 1])]];
            message.push_back(send[i]);
            message.push_back(send[i + 1]);
          }
          for (const auto &received :
               Utilities::MPI::some_to_some(comm, messages))
            for (std::size_t i = 0; i < received.second.size(); i += 2)
            {
              mark(global_of_level[owned_level.index_within_set(
                       received.second[i + 1])],
                   received.second[i]);
              global_ghosts.push_back(received.second[i]);
            }
        }
        AssertThrow(!inconsistent, ExcInternalError());
        for (std::size_t k = 0; k < level_of_global.size(); ++k)
          if (const auto m = level_of_global[k].load(std::memory_order_relaxed);
              m != unset)
            from_level[l].emplace_back(owned_global.nth_index_in_set(k), m);
        for (std::size_t k = 0; k < global_of_level.size(); ++k)
          if (const auto g = global_of_level[k].load(std::memory_order_relaxed);
              g != unset)
            to_level[l].emplace_back(owned_level.nth_index_in_set(k), g);
      }
      global_copy_partitioner = internal::partitioner_with_ghosts(
          owned_global, global_ghosts, nullptr, comm);
      global_copy_needs_ghosts =
          Utilities::MPI::max(global_copy_partitioner->n_ghost_indices(),
                              comm) > 0;
      if (global_copy_needs_ghosts)
        global_copy_vector.reinit(global_copy_partitioner);

      copies.resize(n_levels);
      copy_vectors.resize(n_levels);
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        LevelCopy                           &copy = copies[l];
        std::vector<types::global_dof_index> level_ghosts;
        for (const auto &pair : from_level[l])
          level_ghosts.push_back(pair.second);
        copy.partitioner = internal::partitioner_with_ghosts(
            dof_handler.locally_owned_mg_dofs(l),
            level_ghosts,
            level_partitioners[l],
            comm);
        // Ghost exchanges are collective: decided alike on all ranks.
        copy.needs_ghosts =
            Utilities::MPI::max(copy.partitioner->n_ghost_indices(), comm) > 0;
        if (copy.partitioner != level_partitioners[l])
          copy_vectors[l].reinit(copy.partitioner);
        std::vector<unsigned int> to(to_level[l].size()),
            to_source(to_level[l].size()), from(from_level[l].size()),
            from_source(from_level[l].size());
        parallel_for_chunks(
            to.size(),
            8192,
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t i = begin; i < end; ++i)
              {
                to[i]        = internal::local_index(*level_partitioners[l],
                                              to_level[l][i].first);
                to_source[i] = internal::local_index(*global_copy_partitioner,
                                                     to_level[l][i].second);
              }
            });
        parallel_for_chunks(
            from.size(),
            8192,
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t i = begin; i < end; ++i)
              {
                from[i]        = internal::local_index(*global_partitioner,
                                                from_level[l][i].first);
                from_source[i] = internal::local_index(*copy.partitioner,
                                                       from_level[l][i].second);
              }
            });
        copy.to_level.copy_from(to);
        copy.to_level_source.copy_from(to_source);
        copy.from_level.copy_from(from);
        copy.from_level_source.copy_from(from_source);
      }
    }

    template <int dim, typename Number>
    const std::shared_ptr<const Utilities::MPI::Partitioner> &
    MGTransferMatrixFree<dim, Number>::get_level_partitioner(
        const unsigned int level) const
    {
      AssertIndexRange(level, level_partitioners.size());
      return level_partitioners[level];
    }

    template <int dim, typename Number>
    const Vector<Number> &
    MGTransferMatrixFree<dim, Number>::ghosted_input(const unsigned int level,
                                                     const VectorType  &v) const
    {
      AssertThrow(v.locally_owned_size() ==
                      transfer_partitioners[level]->locally_owned_size(),
                  ExcVectorLayoutMismatch(
                      v.size(),
                      transfer_partitioners[level]->size(),
                      v.locally_owned_size(),
                      transfer_partitioners[level]->locally_owned_size()));
      const VectorType *input = &v;
      if (v.get_partitioner() != transfer_partitioners[level])
      {
        transfer_vectors[level].copy_locally_owned_data_from(v);
        input = &transfer_vectors[level];
      }
      input->update_ghost_values();
      return *input;
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::prolongate_add_internal(
        const unsigned int to_level,
        VectorType        &dst,
        const VectorType  &src,
        const bool         add) const
    {
      AssertThrow(to_level >= 1 && to_level < n_levels,
                  ExcNotSupportedByMGTransfer(
                      "prolongation to level " + std::to_string(to_level) +
                      " of 0.." + std::to_string(n_levels - 1)));
      AssertThrow(dst.locally_owned_size() ==
                      transfer_partitioners[to_level]->locally_owned_size(),
                  ExcVectorLayoutMismatch(
                      dst.size(),
                      transfer_partitioners[to_level]->size(),
                      dst.locally_owned_size(),
                      transfer_partitioners[to_level]->locally_owned_size()));
      const VectorType &coarse = ghosted_input(to_level - 1, src);
      const bool        direct =
          dst.get_partitioner() == transfer_partitioners[to_level];
      VectorType &fine = direct ? dst : transfer_vectors[to_level];
      if (!direct || !add)
        fine = Number();
      else
        fine.zero_out_ghost_values();
      prolongate_cells(to_level, coarse.get_values(), fine.get_values());
      fine.compress(VectorOperation::add);
      if (!direct)
      {
        if (add)
          dst += fine;
        else
          dst.copy_locally_owned_data_from(fine);
      }
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::prolongate_cells(
        const unsigned int to_level, const Number *coarse, Number *fine) const
    {
      const LevelTransfer                  &t = transfers[to_level];
      const internal::TransferCells<Number> data{degree + 1,
                                                 2 * degree + 1,
                                                 n_components,
                                                 t.coarse_indices.data(),
                                                 t.fine_indices.data(),
                                                 t.weights.data(),
                                                 prolongation_1d.data()};
      internal::run_transfer<dim, Number>(
          "MGTransferMatrixFree::prolongate",
          t.n_coarse_cells,
          data,
          internal::ProlongateCells<dim, Number>{data, coarse, fine});
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::restrict_cells(
        const unsigned int from_level, const Number *fine, Number *coarse) const
    {
      const LevelTransfer                  &t = transfers[from_level];
      const internal::TransferCells<Number> data{degree + 1,
                                                 2 * degree + 1,
                                                 n_components,
                                                 t.coarse_indices.data(),
                                                 t.fine_indices.data(),
                                                 t.weights.data(),
                                                 prolongation_1d.data()};
      internal::run_transfer<dim, Number>(
          "MGTransferMatrixFree::restrict_and_add",
          t.n_coarse_cells,
          data,
          internal::RestrictCells<dim, Number>{data, fine, coarse});
    }

    template <int dim, typename Number>
    void
    MGTransferMatrixFree<dim, Number>::prolongate(const unsigned int to_level,
                                                  VectorType        &dst,
                                                  const VectorType  &src) const
    {
      prolongate_add_internal(to_level, dst, src, false);
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::prolongate_and_add(
        const unsigned int to_level,
        VectorType        &dst,
        const VectorType  &src) const
    {
      prolongate_add_internal(to_level, dst, src, true);
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::restrict_and_add(
        const unsigned int from_level,
        VectorType        &dst,
        const VectorType  &src) const
    {
      AssertThrow(from_level >= 1 && from_level < n_levels,
                  ExcNotSupportedByMGTransfer(
                      "restriction from level " + std::to_string(from_level) +
                      " of 0.." + std::to_string(n_levels - 1)));
      AssertThrow(
          dst.locally_owned_size() ==
              transfer_partitioners[from_level - 1]->locally_owned_size(),
          ExcVectorLayoutMismatch(
              dst.size(),
              transfer_partitioners[from_level - 1]->size(),
              dst.locally_owned_size(),
              transfer_partitioners[from_level - 1]->locally_owned_size()));
      const VectorType &fine = ghosted_input(from_level, src);
      const bool        direct =
          dst.get_partitioner() == transfer_partitioners[from_level - 1];
      VectorType &coarse = direct ? dst : transfer_vectors[from_level - 1];
      if (direct)
        coarse.zero_out_ghost_values();
      else
        coarse = Number();
      restrict_cells(from_level, fine.get_values(), coarse.get_values());
      coarse.compress(VectorOperation::add);
      if (!direct)
        dst += coarse;
    }

    template <int dim, typename Number>
    std::size_t MGTransferMatrixFree<dim, Number>::memory_consumption() const
    {
      std::size_t bytes = prolongation_1d.memory_consumption() +
                          global_copy_vector.memory_consumption();
      for (const auto &t : transfers)
        bytes += t.coarse_indices.memory_consumption() +
                 t.fine_indices.memory_consumption() +
                 t.weights.memory_consumption();
      for (const auto &c : copies)
        bytes += c.to_level.memory_consumption() +
                 c.to_level_source.memory_consumption() +
                 c.from_level.memory_consumption() +
                 c.from_level_source.memory_consumption();
      for (const auto &v : transfer_vectors)
        bytes += v.memory_consumption();
      for (const auto &v : copy_vectors)
        bytes += v.memory_consumption();
      return bytes;
    }

    template class MGTransferMatrixFree<2, float>;
    template class MGTransferMatrixFree<2, double>;
    template class MGTransferMatrixFree<3, float>;
    template class MGTransferMatrixFree<3, double>;
  } // namespace GPU
} // namespace dealii
