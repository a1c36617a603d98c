// GPU::MGTransferMatrixFree::build(): the cells' lattices and the
// partitioners from deal.II's level DoFs on the host threads, then the
// transfer's index lists and weights in kernels; the copies between the
// global and the level vectors are in mg_transfer_matrix_free_copies.cu.
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/dofs/level_dof_index_cache.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include "../dofs/level_dof_indices.h"
#include "../lac/device_partitioner.h"
#include "mg_transfer_build.h"
#include "transfer_kernels.h"
#include <algorithm>
#include <memory>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    template <int dim, typename Number>
    MGTransferMatrixFree<dim, Number>::MGTransferMatrixFree(
        const dealii::MGConstrainedDoFs &mg_constrained_dofs)
    {
      initialize_constraints(mg_constrained_dofs);
    }

    template <int dim, typename Number>
    MGTransferMatrixFree<dim, Number>::MGTransferMatrixFree(
        const GPU::MGConstrainedDoFs &mg_constrained_dofs)
    {
      initialize_constraints(mg_constrained_dofs);
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::initialize_constraints(
        const dealii::MGConstrainedDoFs &constrained)
    {
      mg_constrained_dofs     = &constrained;
      gpu_mg_constrained_dofs = nullptr;
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::initialize_constraints(
        const GPU::MGConstrainedDoFs &constrained)
    {
      mg_constrained_dofs     = nullptr;
      gpu_mg_constrained_dofs = &constrained;
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
      setup_timer                    = SetupTimer("GPU::MGTransferMatrixFree");
      const Triangulation<dim> &tria = dof_handler.get_triangulation();
      const MPI_Comm            comm = tria.get_communicator();
      const auto               *parallel_tria =
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
      setup_timer.start("cells and lattices");
      // Each level's refinement-edge and boundary DoFs, of whichever
      // MGConstrainedDoFs was given (nullptr: none).
      std::vector<const IndexSet *> edge_dofs(n_levels, nullptr),
          boundary_dofs(n_levels, nullptr);
      const auto take_sets = [&](const auto *constrained)
      {
        for (unsigned int l = 0; l < n_levels && constrained != nullptr; ++l)
        {
          edge_dofs[l] = &constrained->get_refinement_edge_indices(l);
          if (constrained->have_boundary_indices())
            boundary_dofs[l] = &constrained->get_boundary_indices(l);
        }
      };
      take_sets(
          static_cast<const dealii::MGConstrainedDoFs *>(mg_constrained_dofs));
      take_sets(
          static_cast<const GPU::MGConstrainedDoFs *>(gpu_mg_constrained_dofs));
      // The set-up threads query these sets; a query compresses an
      // uncompressed set first, which is not thread-safe, so do it here.
      dof_handler.locally_owned_dofs().compress();
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        dof_handler.locally_owned_mg_dofs(l).compress();
        for (const IndexSet *set : {edge_dofs[l], boundary_dofs[l]})
          if (set != nullptr)
            set->compress();
      }

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

      const unsigned int nc            = internal::power<dim>(n1);
      const unsigned int nfc           = internal::power<dim>(nf);
      const unsigned int dofs_per_cell = fe.n_dofs_per_cell();
      // Tables, since component_to_system_index() searches linearly (at
      // Q4 it took most of the transfer's set-up): the cell DoF of each
      // (component, lexicographic point), and each child's point's place
      // in the parent's lattice.
      std::vector<unsigned int> system_index(dofs_per_cell);
      for (unsigned int c = 0; c < n_components; ++c)
        for (unsigned int i = 0; i < nc; ++i)
          system_index[c * nc + i] =
              fe.component_to_system_index(c, lexicographic[i]);
      std::vector<unsigned int> lattice_position(
          GeometryInfo<dim>::max_children_per_cell * nc);
      for (unsigned int child = 0;
           child < GeometryInfo<dim>::max_children_per_cell;
           ++child)
        for (unsigned int i = 0; i < nc; ++i)
        {
          unsigned int p = 0, stride = 1, rest = i;
          for (unsigned int d = 0; d < dim; ++d, stride *= nf)
          {
            p += (degree * ((child >> d) & 1) + rest % n1) * stride;
            rest /= n1;
          }
          lattice_position[child * nc + i] = p;
        }
      // What the level operators' DoFInfo kept of each level (a multigrid
      // set-up's LevelDoFIndexCache::Scope), else nullptr.
      std::vector<const typename internal::LevelDoFIndexCache<dim>::Level *>
          level_cache(tria.n_levels());
      for (unsigned int l = 0; l < tria.n_levels(); ++l)
      {
        level_cache[l] =
            internal::LevelDoFIndexCache<dim>::find(dof_handler, l);
        if (level_cache[l] != nullptr &&
            level_cache[l]->dofs_per_cell != dofs_per_cell)
          level_cache[l] = nullptr;
      }
      // The level DoFs of @p cell by (component, lexicographic point), in
      // @p result; @p indices is scratch.
      const internal::LevelDoFIndices<dim> level_dof_indices(fe);
      const auto                           lexicographic_level_indices =
          [&](const auto                           &cell,
              std::vector<types::global_dof_index> &indices,
              types::global_dof_index              *result)
      {
        const auto *kept = level_cache[cell->level()];
        if (const types::global_dof_index *cached =
                kept != nullptr ? kept->find(cell) : nullptr)
        {
          std::copy(cached, cached + dofs_per_cell, result);
          return;
        }
        level_dof_indices.get(cell, indices);
        for (unsigned int j = 0; j < dofs_per_cell; ++j)
          result[j] = indices[system_index[j]];
      };

      // Per level l >= 1: the coarse cells' DoFs (level l - 1), as global
      // level indices, and their children's lattices (level l).
      std::vector<internal::HostVector<types::global_dof_index>> coarse_global(
          n_levels);
      internal::TransferLattices lattices;
      lattices.max_children       = GeometryInfo<dim>::max_children_per_cell;
      lattices.dofs_per_cell      = dofs_per_cell;
      lattices.entries_per_parent = n_components * nfc;
      lattices.fine.resize(n_levels);
      lattices.slot.resize(n_levels);
      lattices.of_dof.resize(lattices.max_children * dofs_per_cell);
      for (unsigned int child = 0; child < lattices.max_children; ++child)
        for (unsigned int c = 0; c < n_components; ++c)
          for (unsigned int i = 0; i < nc; ++i)
            lattices.of_dof[child * dofs_per_cell + system_index[c * nc + i]] =
                c * nfc + lattice_position[child * nc + i];
      std::vector<std::vector<types::global_dof_index>> needed(n_levels);
      transfers.resize(n_levels);
      for (unsigned int l = 1; l < n_levels; ++l)
      {
        const auto parents = internal::cells_on_level<
            typename DoFHandler<dim>::level_cell_iterator>(
            dof_handler,
            l - 1,
            false,
            [](const auto &cell) {
              return cell->has_children() && cell->is_locally_owned_on_level();
            });
        transfers[l].n_coarse_cells = parents.size();
        const unsigned int n_coarse = n_components * nc;
        const unsigned int n_fine   = n_components * nfc;
        coarse_global[l].resize(parents.size() * n_coarse);
        lattices.fine[l].resize(parents.size() * n_fine);
        if (l < tria.n_levels())
          lattices.slot[l].assign(tria.n_raw_cells(l),
                                  internal::TransferLattices::not_in_lattice);
        parallel_for_chunks(
            parents.size(),
            256,
            [&](const std::size_t begin, const std::size_t end)
            {
              std::vector<types::global_dof_index> indices(dofs_per_cell),
                  fine(dofs_per_cell);
              for (std::size_t k = begin; k < end; ++k)
              {
                const auto &cell = parents[k];
                lexicographic_level_indices(
                    cell, indices, coarse_global[l].data() + k * n_coarse);
                auto *lattice = lattices.fine[l].data() + k * n_fine;
                for (unsigned int child = 0; child < cell->n_children();
                     ++child)
                {
                  lattices.slot[l][cell->child_index(child)] =
                      k * lattices.max_children + child;
                  lexicographic_level_indices(
                      cell->child(child), indices, fine.data());
                  const unsigned int *position =
                      lattice_position.data() + child * nc;
                  for (unsigned int c = 0; c < n_components; ++c)
                    for (unsigned int i = 0; i < nc; ++i)
                      lattice[c * nfc + position[i]] = fine[c * nc + i];
                }
              }
            });
        // Only other ranks' DoFs become ghosts: no copy of the owned ones.
        internal::append_not_owned(
            dof_handler.locally_owned_mg_dofs(l),
            lattices.fine[l].size(),
            [&](const std::size_t i) { return lattices.fine[l][i]; },
            needed[l]);
        internal::append_not_owned(
            dof_handler.locally_owned_mg_dofs(l - 1),
            coarse_global[l].size(),
            [&](const std::size_t i) { return coarse_global[l][i]; },
            needed[l - 1]);
      }

      // The lattices hold what the rest needs of the kept level indices:
      // free them before the next steps allocate.
      internal::LevelDoFIndexCache<dim>::release(dof_handler);
      level_cache.clear();

      setup_timer.start("partitioners");
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

      // Local indices, Dirichlet flags and weights, in kernels from the
      // uploaded global indices: on the host the conversion and the
      // counts took most of the transfer's set-up on one thread's memory
      // traffic.
      setup_timer.start("indices and weights");
      internal::DevicePartitioners device_partitioners;
      for (unsigned int l = 1; l < n_levels; ++l)
      {
        const auto &coarse_part = *transfer_partitioners[l - 1];
        // The coarse level's Dirichlet DoFs as flags by local index: one
        // pass over the set instead of a search a cell DoF.
        std::vector<unsigned char> dirichlet(coarse_part.locally_owned_size() +
                                                 coarse_part.n_ghost_indices(),
                                             0);
        if (boundary_dofs[l - 1] != nullptr)
          for (const types::global_dof_index g : *boundary_dofs[l - 1])
            if (coarse_part.in_local_range(g) || coarse_part.is_ghost_entry(g))
              dirichlet[coarse_part.global_to_local(g)] = 1;
        Array<unsigned char> dirichlet_flags;
        dirichlet_flags.copy_from(dirichlet);
        Array<types::global_dof_index> global;
        global.copy_from(coarse_global[l]);
        transfers[l].coarse_indices.resize(global.size());
        internal::to_local_indices("GPU::MGTransferMatrixFree (coarse indices)",
                                   device_partitioners.view(coarse_part),
                                   global.size(),
                                   global.data(),
                                   1,
                                   transfers[l].coarse_indices.data(),
                                   dirichlet_flags.data(),
                                   constrained_dof_flag);
        global.copy_from(lattices.fine[l]);
        transfers[l].fine_indices.resize(global.size());
        internal::to_local_indices(
            "GPU::MGTransferMatrixFree (fine indices)",
            device_partitioners.view(*transfer_partitioners[l]),
            global.size(),
            global.data(),
            1,
            transfers[l].fine_indices.data());
        global.clear();
        // Each fine entry's number of coarse cells, summed over the ranks
        // (small integers: exact in float), and 1 / count.
        VectorType touched;
        touched.reinit(transfer_partitioners[l]);
        Number             *count = touched.get_values();
        const unsigned int *fine  = transfers[l].fine_indices.data();
        parallel_for("GPU::MGTransferMatrixFree (counts)",
                     transfers[l].fine_indices.size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     { atomic_add(count + fine[i], Number(1)); });
        touched.compress(VectorOperation::add);
        touched.update_ghost_values();
        const std::size_t n_fine_local =
            transfer_partitioners[l]->locally_owned_size() +
            transfer_partitioners[l]->n_ghost_indices();
        transfers[l].weights.resize(n_fine_local);
        Number *weights = transfers[l].weights.data();
        parallel_for("GPU::MGTransferMatrixFree (weights)",
                     n_fine_local,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     {
                       weights[i] = count[i] > Number()
                                        ? Number(1. / double(count[i]))
                                        : Number();
                     });
      }

      build_copies(dof_handler, lattices, edge_dofs, device_partitioners);
    }

    template MGTransferMatrixFree<2, float>::MGTransferMatrixFree(
        const dealii::MGConstrainedDoFs &);
    template MGTransferMatrixFree<2, float>::MGTransferMatrixFree(
        const GPU::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<2, float>::initialize_constraints(
        const dealii::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<2, float>::initialize_constraints(
        const GPU::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<2, float>::clear();
    template void MGTransferMatrixFree<2, float>::build(
        const DoFHandler<2, 2> &,
        const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
            &);
    template MGTransferMatrixFree<2, double>::MGTransferMatrixFree(
        const dealii::MGConstrainedDoFs &);
    template MGTransferMatrixFree<2, double>::MGTransferMatrixFree(
        const GPU::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<2, double>::initialize_constraints(
        const dealii::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<2, double>::initialize_constraints(
        const GPU::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<2, double>::clear();
    template void MGTransferMatrixFree<2, double>::build(
        const DoFHandler<2, 2> &,
        const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
            &);
    template MGTransferMatrixFree<3, float>::MGTransferMatrixFree(
        const dealii::MGConstrainedDoFs &);
    template MGTransferMatrixFree<3, float>::MGTransferMatrixFree(
        const GPU::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<3, float>::initialize_constraints(
        const dealii::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<3, float>::initialize_constraints(
        const GPU::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<3, float>::clear();
    template void MGTransferMatrixFree<3, float>::build(
        const DoFHandler<3, 3> &,
        const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
            &);
    template MGTransferMatrixFree<3, double>::MGTransferMatrixFree(
        const dealii::MGConstrainedDoFs &);
    template MGTransferMatrixFree<3, double>::MGTransferMatrixFree(
        const GPU::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<3, double>::initialize_constraints(
        const dealii::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<3, double>::initialize_constraints(
        const GPU::MGConstrainedDoFs &);
    template void MGTransferMatrixFree<3, double>::clear();
    template void MGTransferMatrixFree<3, double>::build(
        const DoFHandler<3, 3> &,
        const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
            &);
  } // namespace GPU
} // namespace dealii
