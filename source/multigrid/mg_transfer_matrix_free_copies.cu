// GPU::MGTransferMatrixFree::build()'s copies between the global vector
// and the levels: the (global, level) pairs of each level's active cells
// found on the host threads, exchanged between the ranks and converted to
// local indices in kernels.
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/dofs/level_dof_index_cache.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_handler.h>

#include "../dofs/level_dof_indices.h"
#include "../lac/device_partitioner.h"
#include "../lac/exclusive_scan.h"
#include "mg_transfer_build.h"
#include <atomic>
#include <map>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      // The copies of a level of active cells in kernels, where the level
      // operator found each level DoF's active DoF (@p of_local, local
      // level index -> global index; @p n_owned_level of @p n_local owned;
      // @p edge: 1 at refinement-edge DoFs, which get no pair, or nullptr)
      // and each rank owns the active partners of exactly its owned level
      // DoFs (but the edges), as p4est gives the finest level of a mesh:
      // no marks, no exchange, no host lists (at 7.4e6 DoFs a rank on 16
      // ranks the host's marks alone took 0.3-0.4 s). The arrays equal the
      // host path's. Collective: false on all ranks unless true on each.
      bool local_copies_on_device(const bool                     candidate,
                                  const types::global_dof_index *of_local,
                                  const unsigned char           *edge,
                                  const std::size_t              n_local,
                                  const std::size_t              n_owned_level,
                                  const types::global_dof_index  first_global,
                                  const std::size_t              n_owned_global,
                                  const bool                     distributed,
                                  const MPI_Comm                 comm,
                                  Array<unsigned int>           &from_level,
                                  Array<unsigned int> &from_level_source,
                                  Array<unsigned int> &to_level,
                                  Array<unsigned int> &to_level_source)
      {
        bool                           local = candidate;
        Array<types::global_dof_index> global;
        Array<unsigned int> level_of_global, from_offsets, to_offsets;
        unsigned int        n_from = 0, n_to = 0;
        const unsigned int  unset = numbers::invalid_unsigned_int;
        if (local && n_local > 0)
        {
          global.resize(n_local);
          Memory::copy_to_backend(Device::backend(),
                                  global.data(),
                                  of_local,
                                  n_local * sizeof(types::global_dof_index));
          level_of_global.resize(n_owned_global);
          const types::global_dof_index *g_of  = global.data();
          unsigned int                  *level = level_of_global.data();
          if (n_owned_global > 0)
            parallel_for("GPU::MGTransferMatrixFree (copies)",
                         n_owned_global,
                         [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                         { level[j] = unset; });
          const types::global_dof_index first = first_global;
          const std::size_t n_g = n_owned_global, n_o = n_owned_level;
          // Pairs another rank would have to send or receive.
          const double foreign = parallel_reduce<SumOp>(
              "GPU::MGTransferMatrixFree (copies)",
              n_local,
              [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i) -> double
              {
                if (edge != nullptr && edge[i] != 0)
                  return 0.;
                const types::global_dof_index g = g_of[i];
                const bool owned                = g >= first && g - first < n_g;
                if (i >= n_o)
                  return owned ? 1. : 0.;
                if (!owned)
                  return 1.;
                level[g - first] = i;
                return 0.;
              });
          // The pairs in the order of the global DoFs (from the level) and
          // of the level DoFs (to it); as many of each, or a global DoF
          // was met twice.
          from_offsets.resize(n_owned_global + 1);
          to_offsets.resize(n_owned_level + 1);
          unsigned int *from = from_offsets.data(), *to = to_offsets.data();
          if (n_owned_global > 0)
            parallel_for("GPU::MGTransferMatrixFree (copies)",
                         n_owned_global,
                         [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                         { from[j] = level[j] != unset ? 1 : 0; });
          if (n_owned_level > 0)
            parallel_for("GPU::MGTransferMatrixFree (copies)",
                         n_owned_level,
                         [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                         { to[i] = edge != nullptr && edge[i] != 0 ? 0 : 1; });
          n_from = internal::exclusive_scan(n_owned_global, from, from);
          n_to   = internal::exclusive_scan(n_owned_level, to, to);
          local  = foreign == 0. && n_from == n_to;
        }
        if (distributed && Utilities::MPI::min(local ? 1u : 0u, comm) == 0)
          return false;
        if (!local)
          return false;
        from_level.resize(n_from);
        from_level_source.resize(n_from);
        to_level.resize(n_to);
        to_level_source.resize(n_to);
        if (n_from == 0)
          return true;
        unsigned int *from        = from_level.data(),
                     *from_source = from_level_source.data();
        unsigned int *to = to_level.data(), *to_source = to_level_source.data();
        const unsigned int *from_at          = from_offsets.data(),
                           *to_at            = to_offsets.data(),
                           *level            = level_of_global.data();
        const types::global_dof_index *g_of  = global.data();
        const types::global_dof_index  first = first_global;
        parallel_for("GPU::MGTransferMatrixFree (copies)",
                     n_owned_global,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                     {
                       if (from_at[j + 1] != from_at[j])
                       {
                         from[from_at[j]]        = j;
                         from_source[from_at[j]] = level[j];
                       }
                     });
        parallel_for("GPU::MGTransferMatrixFree (copies)",
                     n_owned_level,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     {
                       if (to_at[i + 1] != to_at[i])
                       {
                         to[to_at[i]]        = i;
                         to_source[to_at[i]] = g_of[i] - first;
                       }
                     });
        return true;
      }
    } // namespace

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::build_copies(
        const DoFHandler<dim, dim>          &dof_handler,
        const internal::TransferLattices    &lattices,
        const std::vector<const IndexSet *> &edge_dofs,
        internal::DevicePartitioners        &device_partitioners)
    {
      const Triangulation<dim> &tria = dof_handler.get_triangulation();
      const MPI_Comm            comm = tria.get_communicator();
      const bool                distributed =
          dynamic_cast<const parallel::TriangulationBase<dim> *>(&tria) !=
          nullptr;
      const unsigned int dofs_per_cell = lattices.dofs_per_cell;
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
      // Levels whose copies local_copies_on_device() made.
      std::vector<bool> to_level_on_device(n_levels, false);
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
      const internal::MarkedBlocks global_blocks(owned_global.n_elements());
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        const IndexSet &owned_level = dof_handler.locally_owned_mg_dofs(l);
        const internal::OwnedRange level_range(owned_level);
        const internal::EdgeFlags  edges(edge_dofs[l], level_range);
        {
          const auto *active =
              internal::LevelDoFIndexCache<dim>::find_active_dofs(dof_handler,
                                                                  l);
          const bool candidate =
              active != nullptr && active->layout == level_partitioners[l] &&
              level_range.contiguous && global_range.contiguous;
          const std::size_t n_local =
              candidate ? active->layout->locally_owned_size() +
                              active->layout->n_ghost_indices()
                        : 0;
          // The refinement-edge DoFs (few: at the coarser cells).
          Array<unsigned char> edge;
          if (candidate && edge_dofs[l] != nullptr &&
              edge_dofs[l]->n_elements() > 0)
          {
            std::vector<unsigned char>         flags(n_local, 0);
            const Utilities::MPI::Partitioner &layout = *active->layout;
            for (const types::global_dof_index m : *edge_dofs[l])
              if (layout.in_local_range(m) || layout.is_ghost_entry(m))
                flags[layout.global_to_local(m)] = 1;
            edge.copy_from(flags);
          }
          LevelCopy &copy = copies[l];
          if (local_copies_on_device(
                  candidate,
                  candidate ? active->of_local.get() : nullptr,
                  edge.size() > 0 ? edge.data() : nullptr,
                  n_local,
                  owned_level.n_elements(),
                  global_range.first,
                  owned_global.n_elements(),
                  distributed && Utilities::MPI::n_mpi_processes(comm) > 1,
                  comm,
                  copy.from_level,
                  copy.from_level_source,
                  copy.to_level,
                  copy.to_level_source))
          {
            std::vector<types::global_dof_index> no_ghosts;
            copy.partitioner = internal::partitioner_with_ghosts(
                owned_level, no_ghosts, level_partitioners[l], comm);
            copy.needs_ghosts =
                Utilities::MPI::max(copy.partitioner->n_ghost_indices(), comm) >
                0;
            if (copy.partitioner != level_partitioners[l])
              copy_vectors[l].reinit(copy.partitioner);
            to_level_on_device[l] = true;
            continue;
          }
        }
        const auto global_of_level =
            internal::atomic_array(owned_level.n_elements(), unset);

        std::atomic<bool> inconsistent(false);
        // Whether this level marked any global DoF: levels without active
        // cells here (the coarse ones of a uniform mesh) skip the scan of
        // all owned global DoFs below.
        std::atomic<bool> marked_global(false);
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
          if (!global_range.contains(g) || edges.contains(m))
            return;
          const types::global_dof_index k = global_range.position(g);
          mark(level_of_global[k], m);
          global_blocks.mark(k);
          if (!marked_global.load(std::memory_order_relaxed))
            marked_global.store(true, std::memory_order_relaxed);
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
          // Each DoF is met once here: plain stores, and no conflict to
          // look for (the atomic exchanges took a quarter of this loop).
          const std::size_t n_owned = layout.locally_owned_size();
          parallel_for_chunks(
              n_local,
              grain,
              [&](const std::size_t begin, const std::size_t end)
              {
                auto &send   = chunk_send[begin / grain];
                bool  marked = false;
                for (std::size_t i = begin; i < end; ++i)
                {
                  const types::global_dof_index g = active->of_local[i];
                  if (g == numbers::invalid_dof_index ||
                      !global_range.contains(g))
                    continue;
                  const types::global_dof_index m = layout.local_to_global(i);
                  if (edges.contains(m))
                    continue;
                  const types::global_dof_index k = global_range.position(g);
                  level_of_global[k].store(m, std::memory_order_relaxed);
                  global_blocks.mark(k);
                  marked = true;
                  if (i < n_owned)
                    global_of_level[level_range.position(m)].store(
                        g, std::memory_order_relaxed);
                  else
                  {
                    send.push_back(g);
                    send.push_back(m);
                  }
                }
                if (marked)
                  marked_global.store(true, std::memory_order_relaxed);
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
          const internal::LevelDoFIndices<dim> level_dof_indices(
              dof_handler.get_fe());
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
                  if (!lattices.level_dofs(
                          l, cells[k]->index(), level_indices.data()))
                    level_dof_indices.get(cells[k], level_indices);
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
          if (marked_global.load())
            internal::append_marked(level_of_global.get(),
                                    owned_global,
                                    unset,
                                    global_blocks,
                                    from_level);
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
        if (to_level_on_device[l])
          continue;
        convert(to_level[l],
                *level_partitioners[l],
                *global_copy_partitioner,
                copies[l].to_level,
                copies[l].to_level_source);
        to_level[l] = {};
      }
      setup_timer.stop();
    }

    template void MGTransferMatrixFree<2, float>::build_copies(
        const DoFHandler<2, 2> &,
        const internal::TransferLattices &,
        const std::vector<const IndexSet *> &,
        internal::DevicePartitioners &);
    template void MGTransferMatrixFree<2, double>::build_copies(
        const DoFHandler<2, 2> &,
        const internal::TransferLattices &,
        const std::vector<const IndexSet *> &,
        internal::DevicePartitioners &);
    template void MGTransferMatrixFree<3, float>::build_copies(
        const DoFHandler<3, 3> &,
        const internal::TransferLattices &,
        const std::vector<const IndexSet *> &,
        internal::DevicePartitioners &);
    template void MGTransferMatrixFree<3, double>::build_copies(
        const DoFHandler<3, 3> &,
        const internal::TransferLattices &,
        const std::vector<const IndexSet *> &,
        internal::DevicePartitioners &);
  } // namespace GPU
} // namespace dealii
