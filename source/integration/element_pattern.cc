#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/integration/element_pattern.h>

#include <algorithm>
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

        constexpr std::size_t cell_grain = 256;
        constexpr std::size_t row_grain  = 2048;

        // Sorted and unique. A row's columns arrive as the sorted lists of
        // its cells: a few ascending runs, merged pairwise (a few passes
        // over the data instead of a sort); many runs are sorted.
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

        // A CSR from a function filling row r's entries (any order,
        // repeats allowed): rows on the set-up threads in chunks, each
        // chunk's rows sorted and made unique, then joined in order.
        template <typename RowFunction>
        void make_rows(const std::size_t         n_rows,
                       const RowFunction        &row,
                       std::vector<std::size_t> &offsets,
                       std::vector<size_type>   &columns)
        {
          const std::size_t n_chunks = (n_rows + row_grain - 1) / row_grain;
          std::vector<std::vector<size_type>>   chunk_columns(n_chunks);
          std::vector<std::vector<std::size_t>> chunk_lengths(n_chunks);
          parallel_for_chunks(
              n_rows,
              row_grain,
              [&](const std::size_t begin, const std::size_t end)
              {
                auto &cols    = chunk_columns[begin / row_grain];
                auto &lengths = chunk_lengths[begin / row_grain];
                std::vector<size_type> buffer;
                for (std::size_t r = begin; r < end; ++r)
                {
                  buffer.clear();
                  row(r, buffer);
                  sort_unique(buffer);
                  cols.insert(cols.end(), buffer.begin(), buffer.end());
                  lengths.push_back(buffer.size());
                }
              });
          offsets.assign(n_rows + 1, 0);
          std::vector<std::size_t> chunk_start(n_chunks + 1, 0);
          for (std::size_t c = 0; c < n_chunks; ++c)
          {
            chunk_start[c + 1] = chunk_start[c] + chunk_columns[c].size();
            for (std::size_t k = 0; k < chunk_lengths[c].size(); ++k)
            {
              const std::size_t r = c * row_grain + k;
              offsets[r + 1]      = offsets[r] + chunk_lengths[c][k];
            }
          }
          columns.resize(chunk_start[n_chunks]);
          parallel_for_chunks(
              n_chunks,
              1,
              [&](const std::size_t begin, const std::size_t end)
              {
                for (std::size_t c = begin; c < end; ++c)
                {
                  std::copy(chunk_columns[c].begin(),
                            chunk_columns[c].end(),
                            columns.begin() + chunk_start[c]);
                  std::vector<size_type>().swap(chunk_columns[c]);
                }
              });
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

        // The cells' DoFs and the constrained ones among them.
        cell_dofs.resize(n_cells * n);
        std::vector<std::vector<size_type>> chunk_lists(n_chunks);
        parallel_for_chunks(n_cells,
                            cell_grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              std::vector<types::global_dof_index> indices(n);
                              auto &list = chunk_lists[begin / cell_grain];
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
                                }
                              }
                              sort_unique(list);
                            });
        constrained = join_sorted(chunk_lists);
        line_offsets.assign(1, 0);
        line_dofs.clear();
        line_weights.clear();
        for (const size_type g : constrained)
        {
          if (const auto *entries = constraints.get_constraint_entries(g))
            for (const auto &entry : *entries)
            {
              line_dofs.push_back(entry.first);
              line_weights.push_back(entry.second);
            }
          line_offsets.push_back(line_dofs.size());
        }

        // Each cell's DoFs with constrained ones replaced by their lines,
        // sorted and without repeats: the rows and columns it writes.
        auto expand = [&](const std::size_t c, std::vector<size_type> &out)
        {
          out.clear();
          for (unsigned int i = 0; i < n; ++i)
          {
            const size_type    g    = cell_dofs[c * n + i];
            const unsigned int line = constrained.empty()
                                          ? numbers::invalid_unsigned_int
                                          : line_of(g);
            if (line == numbers::invalid_unsigned_int)
              out.push_back(g);
            else
              out.insert(out.end(),
                         line_dofs.begin() + line_offsets[line],
                         line_dofs.begin() + line_offsets[line + 1]);
          }
          sort_unique(out);
        };
        std::vector<std::size_t> expanded_offsets;
        std::vector<size_type>   expanded;
        make_rows(n_cells, expand, expanded_offsets, expanded);

        // Rows: the owned ones, then the others these cells write (ghost
        // rows), which are the constrained DoFs' diagonals too.
        std::fill(
            chunk_lists.begin(), chunk_lists.end(), std::vector<size_type>());
        parallel_for_chunks(n_cells,
                            cell_grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              auto &list = chunk_lists[begin / cell_grain];
                              for (std::size_t k = expanded_offsets[begin];
                                   k < expanded_offsets[end];
                                   ++k)
                                if (!is_owned(expanded[k]))
                                  list.push_back(expanded[k]);
                              sort_unique(list);
                            });
        {
          std::vector<size_type> others = join_sorted(chunk_lists);
          for (const size_type g : constrained)
            if (!is_owned(g))
              others.push_back(g);
          sort_unique(others);
          ghost_rows.swap(others);
        }
        const std::size_t n_rows = n_owned + ghost_rows.size();
        auto              row_of = [&](const size_type g) -> std::size_t
        {
          if (is_owned(g))
            return g - first;
          return n_owned +
                 (std::lower_bound(ghost_rows.begin(), ghost_rows.end(), g) -
                  ghost_rows.begin());
        };
        // Which cells write each row (counting sort over the cells).
        std::vector<std::size_t> cells_of_row_offsets(n_rows + 1, 0);
        for (const size_type g : expanded)
          ++cells_of_row_offsets[row_of(g) + 1];
        for (std::size_t r = 0; r < n_rows; ++r)
          cells_of_row_offsets[r + 1] += cells_of_row_offsets[r];
        std::vector<unsigned int> cells_of_row(cells_of_row_offsets[n_rows]);
        {
          std::vector<std::size_t> fill(cells_of_row_offsets.begin(),
                                        cells_of_row_offsets.end() - 1);
          for (std::size_t c = 0; c < n_cells; ++c)
            for (std::size_t k = expanded_offsets[c];
                 k < expanded_offsets[c + 1];
                 ++k)
              cells_of_row[fill[row_of(expanded[k])]++] = c;
        }
        std::vector<unsigned char> has_constrained_diagonal(n_rows, 0);
        for (const size_type g : constrained)
          has_constrained_diagonal[row_of(g)] = 1;
        auto row_columns = [&](const std::size_t r, std::vector<size_type> &out)
        {
          for (std::size_t k = cells_of_row_offsets[r];
               k < cells_of_row_offsets[r + 1];
               ++k)
          {
            const unsigned int c = cells_of_row[k];
            out.insert(out.end(),
                       expanded.begin() + expanded_offsets[c],
                       expanded.begin() + expanded_offsets[c + 1]);
          }
          if (has_constrained_diagonal[r])
            out.push_back(r < n_owned ? first + r : ghost_rows[r - n_owned]);
        };
        std::vector<std::size_t> all_offsets;
        std::vector<size_type>   all_columns;
        make_rows(n_rows, row_columns, all_offsets, all_columns);
        std::vector<unsigned int>().swap(cells_of_row);
        std::vector<size_type>().swap(expanded);

        // Ghost rows ordered by owner (then index), as the owners receive
        // them.
        ghost_owners.assign(ghost_rows.size(), 0);
        if (Utilities::MPI::n_mpi_processes(communicator) > 1)
        {
          IndexSet ghost_set(owned.size());
          ghost_set.add_indices(ghost_rows.begin(), ghost_rows.end());
          ghost_owners = Utilities::MPI::compute_index_owner(
              owned, ghost_set, communicator);
        }
        std::vector<unsigned int> order(ghost_rows.size());
        for (unsigned int g = 0; g < order.size(); ++g)
          order[g] = g;
        std::stable_sort(order.begin(),
                         order.end(),
                         [&](const unsigned int a, const unsigned int b)
                         { return ghost_owners[a] < ghost_owners[b]; });
        std::vector<size_type>    rows_by_owner(order.size());
        std::vector<unsigned int> owners_by_owner(order.size());
        ghost_offsets.assign(1, 0);
        ghost_columns.clear();
        std::map<unsigned int, std::vector<size_type>> requests;
        for (unsigned int g = 0; g < order.size(); ++g)
        {
          const std::size_t r = n_owned + order[g];
          rows_by_owner[g]    = ghost_rows[order[g]];
          owners_by_owner[g]  = ghost_owners[order[g]];
          auto &request       = requests[owners_by_owner[g]];
          for (std::size_t k = all_offsets[r]; k < all_offsets[r + 1]; ++k)
          {
            ghost_columns.push_back(all_columns[k]);
            request.push_back(rows_by_owner[g]);
            request.push_back(all_columns[k]);
          }
          ghost_offsets.push_back(ghost_columns.size());
        }
        ghost_rows.swap(rows_by_owner);
        ghost_owners.swap(owners_by_owner);

        // The owned rows, with what other ranks' cells add to them.
        received.clear();
        std::vector<std::size_t> extra_offsets(n_owned + 1, 0);
        std::vector<size_type>   extra_columns;
        if (Utilities::MPI::n_mpi_processes(communicator) > 1)
        {
          for (auto &[source, pairs] :
               Utilities::MPI::some_to_some(communicator, requests))
          {
            for (std::size_t p = 0; p < pairs.size(); p += 2)
            {
              AssertThrow(is_owned(pairs[p]), ExcInternalError());
              ++extra_offsets[pairs[p] - first + 1];
            }
            received.emplace_back(source, std::move(pairs));
          }
          for (std::size_t r = 0; r < n_owned; ++r)
            extra_offsets[r + 1] += extra_offsets[r];
          extra_columns.resize(extra_offsets[n_owned]);
          std::vector<std::size_t> fill(extra_offsets.begin(),
                                        extra_offsets.end() - 1);
          for (const auto &[source, pairs] : received)
            for (std::size_t p = 0; p < pairs.size(); p += 2)
              extra_columns[fill[pairs[p] - first]++] = pairs[p + 1];
        }
        make_rows(
            n_owned,
            [&](const std::size_t r, std::vector<size_type> &out)
            {
              out.insert(out.end(),
                         all_columns.begin() + all_offsets[r],
                         all_columns.begin() + all_offsets[r + 1]);
              out.insert(out.end(),
                         extra_columns.begin() + extra_offsets[r],
                         extra_columns.begin() + extra_offsets[r + 1]);
            },
            owned_offsets,
            owned_columns);
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
