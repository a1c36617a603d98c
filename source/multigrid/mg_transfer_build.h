// What the two parts of GPU::MGTransferMatrixFree::build() share: the
// set-up helpers over DoF lists and the children's lattices that the copy
// pairs read a level's DoFs from.
#ifndef dealii_gpu_source_multigrid_mg_transfer_build_h
#define dealii_gpu_source_multigrid_mg_transfer_build_h

#include <dealii-gpu/base/memory.h>

#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/base/types.h>

#include "../base/parallel_selection.h"
#include "../base/sorted_indices.h"
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

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

      // Membership in a level's refinement-edge set by a flag a locally
      // owned DoF: IndexSet::is_element() searched the set's intervals
      // (tens of thousands on adaptive meshes) for every cell DoF. DoFs
      // not owned here (few) still search.
      struct EdgeFlags
      {
        EdgeFlags(const IndexSet *edges, const OwnedRange &owned)
            : edges(edges != nullptr && edges->n_elements() > 0 ? edges
                                                                : nullptr),
              owned(owned)
        {
          if (this->edges == nullptr || !owned.contiguous)
            return;
          flags.assign(owned.end - owned.first, 0);
          for (auto interval = this->edges->begin_intervals();
               interval != this->edges->end_intervals();
               ++interval)
            for (types::global_dof_index m = std::max<types::global_dof_index>(
                     *interval->begin(), owned.first);
                 m < std::min<types::global_dof_index>(interval->last() + 1,
                                                       owned.end);
                 ++m)
              flags[m - owned.first] = 1;
        }

        bool contains(const types::global_dof_index m) const
        {
          if (edges == nullptr)
            return false;
          if (!flags.empty() && m >= owned.first && m < owned.end)
            return flags[m - owned.first] != 0;
          return edges->is_element(m);
        }

        const IndexSet            *edges;
        const OwnedRange          &owned;
        std::vector<unsigned char> flags;
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

      // Which blocks of 2^12 consecutive positions of a mark array hold a
      // mark, so that append_marked() reads only those: the marks of one
      // level of an adaptive mesh cover part of the owned DoFs, in runs
      // (reading all owned DoFs for every level took up to 0.3 s a rank).
      struct MarkedBlocks
      {
        static constexpr unsigned int shift = 12;

        explicit MarkedBlocks(const std::size_t n)
            : n(n), flags(atomic_array<unsigned char>((n >> shift) + 1, 0))
        {
        }

        void mark(const std::size_t k) const
        {
          std::atomic<unsigned char> &flag = flags[k >> shift];
          if (flag.load(std::memory_order_relaxed) == 0)
            flag.store(1, std::memory_order_relaxed);
        }

        const std::size_t                             n;
        std::unique_ptr<std::atomic<unsigned char>[]> flags;
      };

      // As above, reading only the blocks @p blocks marked, and clearing
      // them.
      inline void append_marked(std::atomic<types::global_dof_index> *marks,
                                const IndexSet                       &set,
                                const types::global_dof_index         unset,
                                const MarkedBlocks                   &blocks,
                                HostVector<DoFPair>                  &out)
      {
        set.compress();
        AssertDimension(blocks.n, set.n_elements());
        std::vector<std::size_t> first;
        for (std::size_t b = 0; b <= (blocks.n >> MarkedBlocks::shift); ++b)
          if (blocks.flags[b].exchange(0, std::memory_order_relaxed) != 0)
            first.push_back(b << MarkedBlocks::shift);
        constexpr std::size_t size     = std::size_t(1) << MarkedBlocks::shift;
        const auto            position = [&](const std::size_t k)
        { return first[k / size] + k % size; };
        append_selected(
            first.size() * size,
            entry_grain,
            [&](const std::size_t k)
            {
              const std::size_t j = position(k);
              return j < blocks.n &&
                     marks[j].load(std::memory_order_relaxed) != unset;
            },
            [&](const std::size_t k)
            {
              const std::size_t j = position(k);
              const DoFPair     pair{set.nth_index_in_set(j),
                                 marks[j].load(std::memory_order_relaxed)};
              marks[j].store(unset, std::memory_order_relaxed);
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
        sort_unique(needed);
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

      // The children's lattices of build()'s first step, kept for the copy
      // pairs: they read a child's level DoFs from here instead of asking
      // deal.II again (it caches active DoF indices, not level ones).
      struct TransferLattices
      {
        static constexpr unsigned int not_in_lattice =
            numbers::invalid_unsigned_int;

        // Per level l >= 1: the coarse cells' children's DoFs, as global
        // level indices, entries_per_parent a coarse cell.
        std::vector<HostVector<types::global_dof_index>> fine;
        // Per level, by cell index: the coarse cell's place times
        // max_children plus the child's number, or not_in_lattice.
        std::vector<std::vector<unsigned int>> slot;
        // Per (child, cell DoF): its entry in the parent's lattice.
        std::vector<unsigned int> of_dof;
        unsigned int              max_children       = 0;
        unsigned int              dofs_per_cell      = 0;
        unsigned int              entries_per_parent = 0;

        // The level DoFs of the cell of index @p index on level @p level
        // in @p out, by cell DoF; false if it is in no lattice.
        bool level_dofs(const unsigned int       level,
                        const unsigned int       index,
                        types::global_dof_index *out) const
        {
          const unsigned int s =
              index < slot[level].size() ? slot[level][index] : not_in_lattice;
          if (s == not_in_lattice)
            return false;
          const types::global_dof_index *lattice =
              fine[level].data() +
              std::size_t(s / max_children) * entries_per_parent;
          const unsigned int *entry =
              of_dof.data() + (s % max_children) * dofs_per_cell;
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            out[i] = lattice[entry[i]];
          return true;
        }
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
