// GPU::MGTransferMatrixFree::build(): the cells' lattices, the copies
// between the global and the level vectors and the partitioners, from
// deal.II's level DoFs on the host threads, then uploaded.
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

#include "../base/parallel_selection.h"
#include "../lac/device_partitioner.h"
#include "transfer_kernels.h"
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <numeric>
#include <type_traits>
#include <utility>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // An owned IndexSet by subtraction where it is one range, as
      // deal.II's DoF distribution gives each rank: IndexSet's own
      // is_element() and index_within_set() took 4.5 ns a pair, 10 times
      // the subtraction, for each DoF of each cell in the copy pairs.
      struct OwnedRange
      {
        explicit OwnedRange(const IndexSet &set)
            : set(set), contiguous(set.is_contiguous()),
              first(set.n_elements() > 0 ? set.nth_index_in_set(0) : 0),
              end(first + set.n_elements())
        {
        }

        bool contains(const types::global_dof_index g) const
        {
          return contiguous ? (g >= first && g < end) : set.is_element(g);
        }

        types::global_dof_index position(const types::global_dof_index g) const
        {
          return contiguous ? g - first : set.index_within_set(g);
        }

        const IndexSet               &set;
        const bool                    contiguous;
        const types::global_dof_index first, end;
      };

      // A (global, level) or (level, global) DoF pair; trivial, unlike
      // std::pair, so that a HostVector of them is not zeroed.
      struct DoFPair
      {
        types::global_dof_index first;
        types::global_dof_index second;
      };

      // Grain of the set-up loops over DoFs and lattice entries.
      constexpr std::size_t entry_grain = 1 << 15;

      // @p n atomics set to @p value by the threads (std::vector would zero
      // them on one thread first).
      template <typename T>
      std::unique_ptr<std::atomic<T>[]> atomic_array(const std::size_t n,
                                                     const T           value)
      {
        std::unique_ptr<std::atomic<T>[]> a(new std::atomic<T>[n]);
        parallel_for_chunks(n,
                            entry_grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              for (std::size_t i = begin; i < end; ++i)
                                a[i].store(value, std::memory_order_relaxed);
                            });
        return a;
      }

      // Append the n entries get(i) that @p owned lacks to @p out, in the
      // order of i.
      template <typename Get>
      void append_not_owned(const IndexSet                       &owned,
                            const std::size_t                     n,
                            const Get                            &get,
                            std::vector<types::global_dof_index> &out)
      {
        // is_element() compresses an uncompressed set: not on the threads.
        owned.compress();
        append_selected(
            n,
            entry_grain,
            [&](const std::size_t i) { return !owned.is_element(get(i)); },
            get,
            out);
      }

      // Append (set.nth_index_in_set(k), marks[k]) for the marks[k] !=
      // @p unset, in the order of k, and reset those marks to @p unset.
      inline void append_marked(std::atomic<types::global_dof_index> *marks,
                                const IndexSet                       &set,
                                const types::global_dof_index         unset,
                                HostVector<DoFPair>                  &out)
      {
        set.compress();
        append_selected(
            set.n_elements(),
            entry_grain,
            [&](const std::size_t k)
            { return marks[k].load(std::memory_order_relaxed) != unset; },
            [&](const std::size_t k)
            {
              const DoFPair pair{set.nth_index_in_set(k),
                                 marks[k].load(std::memory_order_relaxed)};
              marks[k].store(unset, std::memory_order_relaxed);
              return pair;
            },
            out);
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
      const auto lexicographic_level_indices =
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
        cell->get_mg_dof_indices(indices);
        for (unsigned int j = 0; j < dofs_per_cell; ++j)
          result[j] = indices[system_index[j]];
      };

      // Per level l >= 1: the coarse cells' DoFs (level l - 1) and their
      // children's lattice DoFs (level l), as global level indices.
      std::vector<internal::HostVector<types::global_dof_index>> coarse_global(
          n_levels),
          fine_global(n_levels);
      // Where each child of those coarse cells sits: by its index on level
      // l, the coarse cell's place times max_children, plus the child's
      // number; and each child's cell DoF in the lattice. The copy pairs
      // read a child's level DoFs from the lattice instead of asking
      // deal.II again (it caches active DoF indices, not level ones).
      constexpr unsigned int max_children =
          GeometryInfo<dim>::max_children_per_cell;
      constexpr unsigned int not_in_lattice = numbers::invalid_unsigned_int;
      std::vector<std::vector<unsigned int>> lattice_slot(n_levels);
      std::vector<unsigned int> lattice_of_dof(max_children * dofs_per_cell);
      for (unsigned int child = 0; child < max_children; ++child)
        for (unsigned int c = 0; c < n_components; ++c)
          for (unsigned int i = 0; i < nc; ++i)
            lattice_of_dof[child * dofs_per_cell + system_index[c * nc + i]] =
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
        fine_global[l].resize(parents.size() * n_fine);
        if (l < tria.n_levels())
          lattice_slot[l].assign(tria.n_raw_cells(l), not_in_lattice);
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
                auto *lattice = fine_global[l].data() + k * n_fine;
                for (unsigned int child = 0; child < cell->n_children();
                     ++child)
                {
                  lattice_slot[l][cell->child_index(child)] =
                      k * max_children + child;
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
            fine_global[l].size(),
            [&](const std::size_t i) { return fine_global[l][i]; },
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
        global.copy_from(fine_global[l]);
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

      // Copies between the global vector and the levels: the pairs (global,
      // level) of the active cells of each level, refinement-edge DoFs left
      // out. The owner of the global DoF copies to it; the owner of the
      // level DoF copies to that, getting the pairs it cannot see from the
      // global owners (as deal.II's MGLevelGlobalTransfer does).
      setup_timer.start("copy pairs");
      global_partitioner = std::make_shared<Utilities::MPI::Partitioner>(
          dof_handler.locally_owned_dofs(),
          IndexSet(dof_handler.n_dofs()),
          comm);
      const IndexSet &owned_global = dof_handler.locally_owned_dofs();
      const internal::OwnedRange           global_range(owned_global);
      std::vector<types::global_dof_index> global_ghosts;
      std::vector<internal::HostVector<internal::DoFPair>> to_level(n_levels);
      copies.resize(n_levels);
      copy_vectors.resize(n_levels);
      // The pairs as they are, converted in kernels.
      const auto convert =
          [&](const internal::HostVector<internal::DoFPair> &pairs,
              const Utilities::MPI::Partitioner             &first,
              const Utilities::MPI::Partitioner             &second,
              Array<unsigned int>                           &first_local,
              Array<unsigned int>                           &second_local)
      {
        static_assert(sizeof(internal::DoFPair) ==
                          2 * sizeof(types::global_dof_index),
                      "DoFPair is two indices");
        first_local.resize(pairs.size());
        second_local.resize(pairs.size());
        if (pairs.empty())
          return;
        Array<types::global_dof_index> global(2 * pairs.size());
        Memory::copy_to_backend(Device::backend(),
                                global.data(),
                                pairs.data(),
                                global.size() *
                                    sizeof(types::global_dof_index));
        internal::to_local_indices("GPU::MGTransferMatrixFree (copies)",
                                   device_partitioners.view(first),
                                   pairs.size(),
                                   global.data(),
                                   2,
                                   first_local.data());
        internal::to_local_indices("GPU::MGTransferMatrixFree (copies)",
                                   device_partitioners.view(second),
                                   pairs.size(),
                                   global.data() + 1,
                                   2,
                                   second_local.data());
      };
      // Each owned global DoF's level DoF and each owned level DoF's
      // global one, marked by the threads (a DoF shared by cells gets the
      // same partner from each); the pairs then come out in order.
      // level_of_global serves all levels: reading a level's pairs out
      // resets its marks.
      const types::global_dof_index unset = numbers::invalid_dof_index;
      const auto                    level_of_global =
          internal::atomic_array(owned_global.n_elements(), unset);
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        const IndexSet &owned_level = dof_handler.locally_owned_mg_dofs(l);
        const internal::OwnedRange level_range(owned_level);
        const auto                 global_of_level =
            internal::atomic_array(owned_level.n_elements(), unset);

        std::atomic<bool> inconsistent(false);
        const auto mark = [&](std::atomic<types::global_dof_index> &entry,
                              const types::global_dof_index         value)
        {
          // Most DoFs are met by several cells: a load spares the locked
          // exchange of those already marked.
          if (entry.load(std::memory_order_relaxed) == value)
            return;
          const auto old = entry.exchange(value, std::memory_order_relaxed);
          if (old != unset && old != value)
            inconsistent = true;
        };
        // The pair of global DoF g and level DoF m; level DoFs owned
        // elsewhere go to @p send.
        const auto pair = [&](const types::global_dof_index         g,
                              const types::global_dof_index         m,
                              std::vector<types::global_dof_index> &send)
        {
          if (edge_dofs[l] != nullptr && edge_dofs[l]->is_element(m))
            return;
          if (!global_range.contains(g))
            return;
          mark(level_of_global[global_range.position(g)], m);
          if (level_range.contains(m))
            mark(global_of_level[level_range.position(m)], g);
          else
          {
            send.push_back(g);
            send.push_back(m);
          }
        };
        // The sends per chunk, in the order of the chunks (the same list
        // on any number of threads).
        std::vector<std::vector<types::global_dof_index>> chunk_send;
        const auto                                       *active =
            internal::LevelDoFIndexCache<dim>::find_active_dofs(dof_handler, l);
        if (active != nullptr && active->layout == level_partitioners[l])
        {
          // A level of active cells whose level operator found each level
          // DoF's active DoF: one visit a DoF instead of one a cell DoF.
          // The level operator's owned cells hold every pair whose global
          // or level DoF is owned here.
          const Utilities::MPI::Partitioner &layout = *active->layout;
          const std::size_t                  n_local =
              layout.locally_owned_size() + layout.n_ghost_indices();
          constexpr std::size_t grain = internal::entry_grain;
          chunk_send.resize((n_local + grain - 1) / grain);
          parallel_for_chunks(
              n_local,
              grain,
              [&](const std::size_t begin, const std::size_t end)
              {
                auto &send = chunk_send[begin / grain];
                for (std::size_t i = begin; i < end; ++i)
                  if (active->of_local[i] != numbers::invalid_dof_index)
                    pair(active->of_local[i], layout.local_to_global(i), send);
              });
        }
        else
        {
          const auto cells = internal::cells_on_level<
              typename DoFHandler<dim>::active_cell_iterator>(
              dof_handler,
              l,
              true,
              [&](const auto &cell)
              {
                return !distributed || (cell->level_subdomain_id() !=
                                            numbers::artificial_subdomain_id &&
                                        cell->subdomain_id() !=
                                            numbers::artificial_subdomain_id);
              });
          constexpr std::size_t grain = 1024;
          chunk_send.resize((cells.size() + grain - 1) / grain);
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
                  const unsigned int index = cells[k]->index();
                  const unsigned int slot  = index < lattice_slot[l].size()
                                                 ? lattice_slot[l][index]
                                                 : not_in_lattice;
                  if (slot == not_in_lattice)
                    cells[k]->get_mg_dof_indices(level_indices);
                  else
                  {
                    const types::global_dof_index *lattice =
                        fine_global[l].data() +
                        std::size_t(slot / max_children) * n_components * nfc;
                    const unsigned int *of_dof =
                        lattice_of_dof.data() +
                        (slot % max_children) * dofs_per_cell;
                    for (unsigned int i = 0; i < dofs_per_cell; ++i)
                      level_indices[i] = lattice[of_dof[i]];
                  }
                  for (unsigned int i = 0; i < dofs_per_cell; ++i)
                    pair(global_indices[i], level_indices[i], send);
                }
              });
        }
        std::vector<types::global_dof_index> send;
        for (const auto &chunk : chunk_send)
          send.insert(send.end(), chunk.begin(), chunk.end());
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
        // The copies from the global vector to this level at once (their
        // partitioners are known by now), so that the host holds one
        // level's list of them, not all levels': 0.9 GB at 1.2e8 DoFs.
        {
          internal::HostVector<internal::DoFPair> from_level;
          internal::append_marked(
              level_of_global.get(), owned_global, unset, from_level);
          LevelCopy &copy = copies[l];
          // Only the level DoFs owned elsewhere (partitioner_with_ghosts
          // would drop the others, on one thread).
          std::vector<types::global_dof_index> level_ghosts;
          internal::append_not_owned(
              owned_level,
              from_level.size(),
              [&](const std::size_t i) { return from_level[i].second; },
              level_ghosts);
          copy.partitioner = internal::partitioner_with_ghosts(
              owned_level, level_ghosts, level_partitioners[l], comm);
          // Ghost exchanges are collective: decided alike on all ranks.
          copy.needs_ghosts =
              Utilities::MPI::max(copy.partitioner->n_ghost_indices(), comm) >
              0;
          if (copy.partitioner != level_partitioners[l])
            copy_vectors[l].reinit(copy.partitioner);
          convert(from_level,
                  *global_partitioner,
                  *copy.partitioner,
                  copy.from_level,
                  copy.from_level_source);
        }
        internal::append_marked(
            global_of_level.get(), owned_level, unset, to_level[l]);
      }
      global_copy_partitioner = internal::partitioner_with_ghosts(
          owned_global, global_ghosts, nullptr, comm);
      global_copy_needs_ghosts =
          Utilities::MPI::max(global_copy_partitioner->n_ghost_indices(),
                              comm) > 0;
      if (global_copy_needs_ghosts)
        global_copy_vector.reinit(global_copy_partitioner);

      setup_timer.start("copy indices");
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        convert(to_level[l],
                *level_partitioners[l],
                *global_copy_partitioner,
                copies[l].to_level,
                copies[l].to_level_source);
        to_level[l] = {};
      }
      setup_timer.stop();
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
