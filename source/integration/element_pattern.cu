#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/integration/element_pattern.h>

#include "../lac/exclusive_scan.h"
#include "../lac/sort_unique_segments.h"
#include <algorithm>
#include <limits>
#include <map>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      namespace
      {
        using size_type = types::global_dof_index;

        constexpr std::size_t  cell_grain = 256;
        constexpr unsigned int no_line    = numbers::invalid_unsigned_int;

        // Sorted and unique. The lists here arrive as a few ascending runs
        // (one per chunk or cell): merged pairwise, a few passes over the
        // data instead of a sort; many runs are sorted.
        void sort_unique(std::vector<size_type> &v)
        {
          thread_local std::vector<std::size_t> bounds, next;
          thread_local std::vector<size_type>   merged;
          bounds.assign(1, 0);
          for (std::size_t i = 1; i < v.size(); ++i)
            if (v[i] < v[i - 1])
              bounds.push_back(i);
          bounds.push_back(v.size());
          if (bounds.size() > 34)
            std::sort(v.begin(), v.end());
          else
            while (bounds.size() > 2)
            {
              merged.resize(v.size());
              next.assign(1, 0);
              for (std::size_t r = 0; r + 1 < bounds.size(); r += 2)
              {
                const std::size_t end =
                    r + 2 < bounds.size() ? bounds[r + 2] : bounds[r + 1];
                std::merge(v.begin() + bounds[r],
                           v.begin() + bounds[r + 1],
                           v.begin() + bounds[r + 1],
                           v.begin() + end,
                           merged.begin() + bounds[r]);
                next.push_back(end);
              }
              v.swap(merged);
              bounds.swap(next);
            }
          v.erase(std::unique(v.begin(), v.end()), v.end());
        }

        // Join per-chunk lists of indices into one sorted list without
        // repeats.
        std::vector<size_type>
        join_sorted(std::vector<std::vector<size_type>> &chunks)
        {
          std::vector<size_type> result;
          for (auto &chunk : chunks)
          {
            result.insert(result.end(), chunk.begin(), chunk.end());
            std::vector<size_type>().swap(chunk);
          }
          sort_unique(result);
          return result;
        }

        // Every key's row on the active backend: the union of the lists
        // of the cells whose list holds the key, a cell's list being its
        // keys with each constrained one replaced by the keys of its line;
        // plus the diagonal of the owned keys and the constrained ones.
        // Rows sorted, without repeats.
        void build_rows(const unsigned int         n_cells,
                        const unsigned int         n,
                        const unsigned int         n_keys,
                        const unsigned int         n_owned,
                        const Array<unsigned int> &cell_keys,
                        const Array<unsigned int> &cell_lines,
                        const Array<unsigned int> &line_offsets,
                        const Array<unsigned int> &line_keys,
                        const Array<unsigned int> &constrained_keys,
                        Array<unsigned int>       &offsets,
                        Array<unsigned int>       &columns)
        {
          const unsigned int *keys  = cell_keys.data();
          const unsigned int *lines = cell_lines.data();
          const unsigned int *loff  = line_offsets.data();
          const unsigned int *lkeys = line_keys.data();

          // The cells' lists.
          Array<unsigned int> list_offsets(n_cells + 1);
          unsigned int       *lo = list_offsets.data();
          parallel_for("ElementPattern (list lengths)",
                       n_cells,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
                       {
                         unsigned int length = 0;
                         for (unsigned int i = 0; i < n; ++i)
                         {
                           const unsigned int l = lines[c * n + i];
                           length += l == no_line ? 1 : loff[l + 1] - loff[l];
                         }
                         lo[c] = length;
                       });
          Array<unsigned int> lists(exclusive_scan(n_cells, lo, lo));
          unsigned int       *ls = lists.data();
          parallel_for("ElementPattern (lists)",
                       n_cells,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
                       {
                         unsigned int p = lo[c];
                         for (unsigned int i = 0; i < n; ++i)
                         {
                           const unsigned int l = lines[c * n + i];
                           if (l == no_line)
                             ls[p++] = keys[c * n + i];
                           else
                             for (unsigned int j = loff[l]; j < loff[l + 1];
                                  ++j)
                               ls[p++] = lkeys[j];
                         }
                       });
          sort_unique_segments(n_cells, list_offsets, lists);
          lo = list_offsets.data();
          ls = lists.data();

          // Row lengths before merging: the diagonal, then the whole list
          // of each cell that names the row.
          Array<unsigned int> row_offsets(n_keys + 1);
          unsigned int       *ro = row_offsets.data();
          const unsigned int *ck = constrained_keys.data();
          parallel_for("ElementPattern (diagonals)",
                       n_keys,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                       { ro[r] = r < n_owned ? 1 : 0; });
          parallel_for("ElementPattern (constrained diagonals)",
                       constrained_keys.size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
                       { ro[ck[k]] = 1; });
          parallel_for("ElementPattern (row lengths)",
                       n_cells,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
                       {
                         const unsigned int length = lo[c + 1] - lo[c];
                         for (unsigned int e = lo[c]; e < lo[c + 1]; ++e)
                           fetch_add(&ro[ls[e]], length);
                       });
          Array<unsigned int> entries(exclusive_scan(n_keys, ro, ro));
          Array<unsigned int> fill(row_offsets);
          unsigned int       *en   = entries.data();
          unsigned int       *next = fill.data();
          parallel_for("ElementPattern (diagonal entries)",
                       n_keys,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                       {
                         if (r < n_owned)
                           en[next[r]++] = r;
                       });
          parallel_for("ElementPattern (constrained diagonal entries)",
                       constrained_keys.size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
                       {
                         if (ck[k] >= n_owned)
                           en[next[ck[k]]++] = ck[k];
                       });
          const unsigned int longest = static_cast<unsigned int>(
              parallel_max("ElementPattern (longest list)",
                           n_cells,
                           [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
                           { return double(lo[c + 1] - lo[c]); }));
          // A team a cell: a place in each of its rows, then the copies.
          parallel_for_teams(
              "ElementPattern (row entries)",
              n_cells,
              TeamShape{64, 1, 1},
              std::max(1u, longest) * sizeof(unsigned int),
              [=] DEAL_II_GPU_HOST_DEVICE(const TeamMember &team)
              {
                const unsigned int c      = team.team_index();
                const unsigned int begin  = lo[c];
                const unsigned int length = lo[c + 1] - begin;
                unsigned int      *place  = team.scratch<unsigned int>();
                team.for_each<false>(
                    length,
                    [&](const unsigned int e)
                    { place[e] = fetch_add(&next[ls[begin + e]], length); });
                team.barrier<false>();
                team.for_each<false>(length * length,
                                     [&](const unsigned int t)
                                     {
                                       const unsigned int e = t / length;
                                       const unsigned int j = t % length;
                                       en[place[e] + j]     = ls[begin + j];
                                     });
              },
              2);
          sort_unique_segments(n_keys, row_offsets, entries);
          offsets.swap(row_offsets);
          columns.swap(entries);
        }

        // a[i] = map[a[i] - n_owned] for the keys from n_owned on.
        void remap_keys(Array<unsigned int>       &a,
                        const unsigned int         n_owned,
                        const Array<unsigned int> &map)
        {
          unsigned int       *values = a.data();
          const unsigned int *m      = map.data();
          parallel_for("ElementPattern (keys)",
                       a.size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                       {
                         if (values[i] >= n_owned)
                           values[i] = m[values[i] - n_owned];
                       });
        }
      } // namespace

      unsigned int ElementPattern::line_of(const size_type g) const
      {
        const auto it =
            std::lower_bound(constrained.begin(), constrained.end(), g);
        return it != constrained.end() && *it == g
                   ? static_cast<unsigned int>(it - constrained.begin())
                   : numbers::invalid_unsigned_int;
      }

      template <int dim>
      void ElementPattern::build(
          const std::vector<typename DoFHandler<dim>::cell_iterator> &cells,
          const unsigned int                                          level,
          const unsigned int                                          n,
          const AffineConstraints<double> &constraints,
          const IndexSet                  &owned,
          const MPI_Comm                   communicator)
      {
        const std::size_t n_cells  = cells.size();
        const std::size_t n_chunks = (n_cells + cell_grain - 1) / cell_grain;
        AssertThrow(owned.is_contiguous(),
                    ExcMessage("ElementIntegrator: the locally owned DoFs "
                               "must be one contiguous range."));
        const std::size_t n_owned = owned.n_elements();
        const size_type   first   = n_owned > 0 ? owned.nth_index_in_set(0) : 0;
        auto              is_owned = [&](const size_type g)
        { return g >= first && g < first + n_owned; };

        // The cells' DoFs, the constrained ones and the other ranks' ones
        // among them.
        cell_dofs.resize(n_cells * n);
        std::vector<std::vector<size_type>> chunk_constrained(n_chunks),
            chunk_others(n_chunks);
        parallel_for_chunks(n_cells,
                            cell_grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              std::vector<types::global_dof_index> indices(n);
                              auto                                &list =
                                  chunk_constrained[begin / cell_grain];
                              auto &others = chunk_others[begin / cell_grain];
                              for (std::size_t c = begin; c < end; ++c)
                              {
                                if (level == numbers::invalid_unsigned_int)
                                  cells[c]->get_dof_indices(indices);
                                else
                                  cells[c]->get_mg_dof_indices(indices);
                                for (unsigned int i = 0; i < n; ++i)
                                {
                                  cell_dofs[c * n + i] = indices[i];
                                  if (constraints.is_constrained(indices[i]))
                                    list.push_back(indices[i]);
                                  if (!is_owned(indices[i]))
                                    others.push_back(indices[i]);
                                }
                              }
                              std::sort(list.begin(), list.end());
                              std::sort(others.begin(), others.end());
                            });
        constrained = join_sorted(chunk_constrained);
        line_offsets.assign(1, 0);
        line_dofs.clear();
        line_weights.clear();
        std::vector<size_type> line_others;
        for (const size_type g : constrained)
        {
          if (const auto *entries = constraints.get_constraint_entries(g))
            for (const auto &entry : *entries)
            {
              line_dofs.push_back(entry.first);
              line_weights.push_back(entry.second);
              if (!is_owned(entry.first))
                line_others.push_back(entry.first);
            }
          line_offsets.push_back(line_dofs.size());
        }
        // Keys while the rows are built: owned, then the others named.
        chunk_others.push_back(std::move(line_others));
        const std::vector<size_type> named = join_sorted(chunk_others);
        AssertThrow(n_owned + named.size() <
                        std::numeric_limits<unsigned int>::max(),
                    ExcMessage("ElementIntegrator: more DoFs on one rank "
                               "than 32-bit indices hold; use more ranks."));
        const unsigned int n_keys = n_owned + named.size();
        auto               key    = [&](const size_type g) -> unsigned int
        {
          if (is_owned(g))
            return g - first;
          return n_owned + (std::lower_bound(named.begin(), named.end(), g) -
                            named.begin());
        };
        {
          std::vector<unsigned int> keys(cell_dofs.size()), lines(keys.size());
          parallel_for_chunks(
              n_cells,
              cell_grain,
              [&](const std::size_t begin, const std::size_t end)
              {
                for (std::size_t k = begin * n; k < end * n; ++k)
                {
                  keys[k] = key(cell_dofs[k]);
                  lines[k] =
                      constrained.empty() ? no_line : line_of(cell_dofs[k]);
                }
              });
          cell_keys.copy_from(keys);
          cell_lines.copy_from(lines);
          keys.resize(line_dofs.size());
          for (std::size_t k = 0; k < keys.size(); ++k)
            keys[k] = key(line_dofs[k]);
          line_keys.copy_from(keys);
          keys.resize(constrained.size());
          for (std::size_t k = 0; k < keys.size(); ++k)
            keys[k] = key(constrained[k]);
          Array<unsigned int> constrained_keys, device_line_offsets;
          constrained_keys.copy_from(keys);
          device_line_offsets.copy_from(line_offsets);
          build_rows(n_cells,
                     n,
                     n_keys,
                     n_owned,
                     cell_keys,
                     cell_lines,
                     device_line_offsets,
                     line_keys,
                     constrained_keys,
                     row_offsets,
                     columns);
        }

        // The rows of the others' DoFs (ghost rows), to the host, ordered
        // by owner (then index) as the owners receive them.
        std::vector<unsigned int> all_offsets, ghost_keys;
        row_offsets.copy_to(all_offsets);
        const unsigned int n_owned_entries = all_offsets[n_owned];
        ghost_keys.resize(all_offsets[n_keys] - n_owned_entries);
        if (!ghost_keys.empty())
          Memory::copy_to_host(columns.backend(),
                               ghost_keys.data(),
                               columns.data() + n_owned_entries,
                               ghost_keys.size() * sizeof(unsigned int));
        auto global = [&](const unsigned int k) -> size_type
        { return k < n_owned ? first + k : named[k - n_owned]; };
        std::vector<unsigned int> rows;
        for (unsigned int r = n_owned; r < n_keys; ++r)
          if (all_offsets[r + 1] > all_offsets[r])
            rows.push_back(r);
        ghost_owners.assign(rows.size(), 0);
        if (Utilities::MPI::n_mpi_processes(communicator) > 1)
        {
          IndexSet ghost_set(owned.size());
          for (const unsigned int r : rows)
            ghost_set.add_index(global(r));
          ghost_owners = Utilities::MPI::compute_index_owner(
              owned, ghost_set, communicator);
        }
        std::vector<unsigned int> order(rows.size());
        for (unsigned int g = 0; g < order.size(); ++g)
          order[g] = g;
        std::stable_sort(order.begin(),
                         order.end(),
                         [&](const unsigned int a, const unsigned int b)
                         { return ghost_owners[a] < ghost_owners[b]; });
        ghost_rows.resize(rows.size());
        std::vector<unsigned int> owners_by_owner(order.size());
        ghost_offsets.assign(1, 0);
        ghost_columns.clear();
        std::map<unsigned int, std::vector<size_type>> requests;
        for (unsigned int g = 0; g < order.size(); ++g)
        {
          const unsigned int r    = rows[order[g]];
          ghost_rows[g]           = global(r);
          owners_by_owner[g]      = ghost_owners[order[g]];
          const std::size_t begin = ghost_columns.size();
          for (unsigned int k = all_offsets[r]; k < all_offsets[r + 1]; ++k)
            ghost_columns.push_back(global(ghost_keys[k - n_owned_entries]));
          std::sort(ghost_columns.begin() + begin, ghost_columns.end());
          auto &request = requests[owners_by_owner[g]];
          for (std::size_t k = begin; k < ghost_columns.size(); ++k)
          {
            request.push_back(ghost_rows[g]);
            request.push_back(ghost_columns[k]);
          }
          ghost_offsets.push_back(ghost_columns.size());
        }
        ghost_owners.swap(owners_by_owner);
        std::vector<unsigned int>().swap(ghost_keys);

        // The owned rows only.
        {
          Array<unsigned int> owned_offsets(n_owned + 1),
              owned_columns(n_owned_entries);
          Memory::copy_within(row_offsets.backend(),
                              owned_offsets.data(),
                              row_offsets.data(),
                              (n_owned + 1) * sizeof(unsigned int));
          if (n_owned_entries > 0)
            Memory::copy_within(columns.backend(),
                                owned_columns.data(),
                                columns.data(),
                                n_owned_entries * sizeof(unsigned int));
          row_offsets.swap(owned_offsets);
          columns.swap(owned_columns);
        }
        received.clear();
        if (Utilities::MPI::n_mpi_processes(communicator) > 1)
          for (auto &[source, pairs] :
               Utilities::MPI::some_to_some(communicator, requests))
          {
            for (std::size_t p = 0; p < pairs.size(); p += 2)
              AssertThrow(is_owned(pairs[p]), ExcInternalError());
            received.emplace_back(source, std::move(pairs));
          }

        // The final keys: owned, ghosts (the others' DoFs in owned rows,
        // here or in what other ranks' cells add), extras.
        std::vector<unsigned int> flags(named.size(), 0);
        {
          Array<unsigned int> device_flags(named.size());
          unsigned int       *f = device_flags.data();
          if (!named.empty())
            Memory::set_zero(
                device_flags.backend(), f, named.size() * sizeof(unsigned int));
          const unsigned int *cols = columns.data();
          parallel_for("ElementPattern (ghost columns)",
                       columns.size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
                       {
                         if (cols[k] >= n_owned)
                           f[cols[k] - n_owned] = 1;
                       });
          device_flags.copy_to(flags);
        }
        std::vector<size_type> ghost_list;
        extras.clear();
        for (std::size_t t = 0; t < named.size(); ++t)
          (flags[t] ? ghost_list : extras).push_back(named[t]);
        for (const auto &[source, pairs] : received)
          for (std::size_t p = 1; p < pairs.size(); p += 2)
            if (!is_owned(pairs[p]))
              ghost_list.push_back(pairs[p]);
        sort_unique(ghost_list);
        {
          std::vector<size_type> rest;
          std::set_difference(extras.begin(),
                              extras.end(),
                              ghost_list.begin(),
                              ghost_list.end(),
                              std::back_inserter(rest));
          extras.swap(rest);
        }
        ghosts = IndexSet(owned.size());
        ghosts.add_indices(ghost_list.begin(), ghost_list.end());
        ghosts.compress();
        auto final_key = [&](const size_type g) -> unsigned int
        {
          if (is_owned(g))
            return g - first;
          const auto it =
              std::lower_bound(ghost_list.begin(), ghost_list.end(), g);
          if (it != ghost_list.end() && *it == g)
            return n_owned + (it - ghost_list.begin());
          return n_owned + ghost_list.size() +
                 (std::lower_bound(extras.begin(), extras.end(), g) -
                  extras.begin());
        };
        {
          std::vector<unsigned int> map(named.size());
          for (std::size_t t = 0; t < named.size(); ++t)
            map[t] = final_key(named[t]);
          Array<unsigned int> device_map;
          device_map.copy_from(map);
          remap_keys(cell_keys, n_owned, device_map);
          remap_keys(line_keys, n_owned, device_map);
          remap_keys(columns, n_owned, device_map);
        }

        // What other ranks' cells add to the owned rows, merged in.
        if (!received.empty())
        {
          std::vector<unsigned int> offsets, old_columns;
          row_offsets.copy_to(offsets);
          columns.copy_to(old_columns);
          std::vector<unsigned int> counts(n_owned + 1, 0);
          for (const auto &[source, pairs] : received)
            for (std::size_t p = 0; p < pairs.size(); p += 2)
              ++counts[pairs[p] - first + 1];
          for (std::size_t r = 0; r < n_owned; ++r)
            counts[r + 1] += counts[r] + offsets[r + 1] - offsets[r];
          std::vector<unsigned int> merged(counts[n_owned]);
          std::vector<unsigned int> fill(counts.begin(), counts.end() - 1);
          for (std::size_t r = 0; r < n_owned; ++r)
            for (unsigned int k = offsets[r]; k < offsets[r + 1]; ++k)
              merged[fill[r]++] = old_columns[k];
          for (const auto &[source, pairs] : received)
            for (std::size_t p = 0; p < pairs.size(); p += 2)
              merged[fill[pairs[p] - first]++] = final_key(pairs[p + 1]);
          row_offsets.copy_from(counts);
          columns.copy_from(merged);
          sort_unique_segments(n_owned, row_offsets, columns);
        }
      }

      template void ElementPattern::build<2>(
          const std::vector<DoFHandler<2>::cell_iterator> &,
          const unsigned int,
          const unsigned int,
          const AffineConstraints<double> &,
          const IndexSet &,
          const MPI_Comm);
      template void ElementPattern::build<3>(
          const std::vector<DoFHandler<3>::cell_iterator> &,
          const unsigned int,
          const unsigned int,
          const AffineConstraints<double> &,
          const IndexSet &,
          const MPI_Comm);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
