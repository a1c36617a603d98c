// The team kernel of GPU::ElementIntegrator::assemble(): element matrices
// and vectors into the CSR matrix and the vector, with constraints.
#ifndef dealii_gpu_integration_assembly_kernel_h
#define dealii_gpu_integration_assembly_kernel_h

#include <dealii-gpu/base/parallel.h>

#include <cstddef>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** Binary search for @p key in the sorted keys[begin, end). */
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
      find_sorted(const unsigned int *keys,
                  unsigned int        begin,
                  unsigned int        end,
                  const unsigned int  key)
      {
        while (begin < end)
        {
          const unsigned int middle = begin + (end - begin) / 2;
          if (keys[middle] < key)
            begin = middle + 1;
          else
            end = middle;
        }
        return begin;
      }

      /**
       * The team functor of ElementIntegrator::assemble() and
       * assemble_rhs(): adds one cell's element matrix into the matrix rows
       * (owned: the CSR; other ranks': the ghost rows) and its element
       * vector into the vector, as deal.II's
       * AffineConstraints::distribute_local_to_global() does:
       * constrained DoFs expanded into their constraint lines, a positive
       * diagonal for constrained DoFs (|A_ii|, or the cell's mean |A_jj|
       * where A_ii = 0), and with both a matrix and a vector, the vector
       * entries less A_ij g_j for constrained DoFs j of inhomogeneity g_j.
       * Either part may be absent (matrices or vectors null).
       */
      template <typename Number>
      struct AssemblyKernel
      {
        const Number       *matrices;
        const Number       *vectors;
        const unsigned int *cell_keys;
        const unsigned int *cell_lines;
        const unsigned int *line_offsets;
        const unsigned int *line_keys;
        const Number       *line_weights;
        const Number       *line_inhomogeneities;
        const unsigned int *row_offsets;
        const unsigned int *columns;
        Number             *values;
        const unsigned int *ghost_row_of_key;
        const unsigned int *ghost_offsets;
        const unsigned int *ghost_columns;
        Number             *ghost_values;
        // Vector entry of a key past the owned ones (the owned ones are
        // the key itself).
        const unsigned int *vector_index_of_key;
        Number             *vector;
        unsigned int       *missing;
        unsigned int        n_dofs, first_cell, n_owned;
        // Most column slots of a cell (each DoF's line, or the DoF itself);
        // cells whose lines have two or more entries take the condensed
        // path, with that many slots of team scratch.
        unsigned int max_slots;

        static constexpr unsigned int none = static_cast<unsigned int>(-1);

        /** Team scratch bytes: the fallback diagonal, and for the
         *  condensed path each slot's key, place, DoF, weight and the
         *  row's sums, and the slot offsets of the DoFs. */
        static constexpr std::size_t scratch_bytes(const unsigned int n_dofs,
                                                   const unsigned int max_slots)
        {
          return 16 +
                 (max_slots == 0
                      ? 0
                      : std::size_t(max_slots) * (3 * sizeof(unsigned int) +
                                                  2 * sizeof(Number)) +
                            (n_dofs + 2) * sizeof(unsigned int));
        }

        DEAL_II_GPU_HOST_DEVICE void add(const unsigned int row_key,
                                         const unsigned int column_key,
                                         const Number       value) const
        {
          const unsigned int *cols;
          Number             *vals;
          unsigned int        begin, end;
          if (row_key < n_owned)
          {
            begin = row_offsets[row_key];
            end   = row_offsets[row_key + 1];
            cols  = columns;
            vals  = values;
          }
          else
          {
            const unsigned int g = ghost_row_of_key[row_key - n_owned];
            begin                = ghost_offsets[g];
            end                  = ghost_offsets[g + 1];
            cols                 = ghost_columns;
            vals                 = ghost_values;
          }
          const unsigned int k = find_sorted(cols, begin, end, column_key);
          if (k < end && cols[k] == column_key)
            atomic_add(&vals[k], value);
          else
            atomic_add(missing, 1u);
        }

        DEAL_II_GPU_HOST_DEVICE void add_to_vector(const unsigned int key,
                                                   const Number value) const
        {
          atomic_add(
              &vector[key < n_owned ? key : vector_index_of_key[key - n_owned]],
              value);
        }

        // The element matrix A of a cell with hanging nodes: each slot s
        // (a DoF j, or an entry of j's line) adds w_s A_ij into the
        // column of its key, gathered over the distinct keys of the cell
        // in team scratch; then each row's sums go to the rows of i's
        // line (or i).
        DEAL_II_GPU_HOST_DEVICE void
        add_condensed(const TeamMember   &team,
                      const Number       *A,
                      const unsigned int *keys,
                      const unsigned int *lines) const
        {
          char         *base   = team.scratch<char>(16);
          Number       *weight = reinterpret_cast<Number *>(base);
          Number       *sums   = weight + max_slots;
          unsigned int *sorted =
              reinterpret_cast<unsigned int *>(sums + max_slots);
          unsigned int *place  = sorted + max_slots;
          unsigned int *dof    = place + max_slots;
          unsigned int *offset = dof + max_slots; // n_dofs + 2
          auto          length = [&](const unsigned int j) -> unsigned int
          {
            return lines[j] == none
                       ? 1
                       : line_offsets[lines[j] + 1] - line_offsets[lines[j]];
          };
          auto slot_key = [&](const unsigned int j, const unsigned int k) {
            return lines[j] == none ? keys[j]
                                    : line_keys[line_offsets[lines[j]] + k];
          };
          team.for_each<false>(1,
                               [&](unsigned int)
                               {
                                 offset[0] = 0;
                                 for (unsigned int j = 0; j < n_dofs; ++j)
                                   offset[j + 1] = offset[j] + length(j);
                               });
          team.barrier<false>();
          const unsigned int n_slots = offset[n_dofs];
          team.for_each<false>(
              n_dofs,
              [&](const unsigned int j)
              {
                for (unsigned int k = 0; k < length(j); ++k)
                {
                  const unsigned int s = offset[j] + k;
                  sorted[s]            = slot_key(j, k);
                  dof[s]               = j;
                  weight[s]            = lines[j] == none
                                             ? Number(1)
                                             : line_weights[line_offsets[lines[j]] + k];
                }
              });
          team.barrier<false>();
          // Sort the keys (a bitonic network whose comparators all put the
          // smaller first: entries past n_slots act as +infinity), then
          // keep the distinct ones.
          unsigned int p = 1;
          while (p < n_slots)
            p *= 2;
          for (unsigned int k = 2; k <= p; k *= 2)
            for (unsigned int h = k / 2; h > 0; h /= 2)
            {
              team.for_each<false>(
                  p / 2,
                  [&](const unsigned int t)
                  {
                    const unsigned int i = (t / h) * 2 * h + t % h;
                    const unsigned int j =
                        h == k / 2 ? (i / k) * k + k - 1 - (i % k) : i + h;
                    if (j < n_slots && sorted[j] < sorted[i])
                    {
                      const unsigned int x = sorted[i];
                      sorted[i]            = sorted[j];
                      sorted[j]            = x;
                    }
                  });
              team.barrier<false>();
            }
          team.for_each<false>(1,
                               [&](unsigned int)
                               {
                                 unsigned int m = 0;
                                 for (unsigned int s = 0; s < n_slots; ++s)
                                   if (s == 0 || sorted[s] != sorted[s - 1])
                                     sorted[m++] = sorted[s];
                                 offset[n_dofs + 1] = m;
                               });
          team.barrier<false>();
          const unsigned int n_columns = offset[n_dofs + 1];
          team.for_each<false>(n_dofs,
                               [&](const unsigned int j)
                               {
                                 for (unsigned int k = 0; k < length(j); ++k)
                                   place[offset[j] + k] = find_sorted(
                                       sorted, 0, n_columns, slot_key(j, k));
                               });
          for (unsigned int i = 0; i < n_dofs; ++i)
          {
            team.for_each<false>(n_columns,
                                 [&](const unsigned int c) { sums[c] = 0; });
            team.barrier<false>();
            team.for_each<false>(n_slots,
                                 [&](const unsigned int s) {
                                   atomic_add(&sums[place[s]],
                                              weight[s] *
                                                  A[i * n_dofs + dof[s]]);
                                 });
            team.barrier<false>();
            const unsigned int li = lines[i];
            const unsigned int r0 = li == none ? 0 : line_offsets[li];
            team.for_each<false>(
                length(i) * n_columns,
                [&](const unsigned int u)
                {
                  const unsigned int r = u / n_columns;
                  const unsigned int c = u - r * n_columns;
                  const Number       b = sums[c];
                  if (b == Number(0))
                    return;
                  if (li == none)
                    add(keys[i], sorted[c], b);
                  else
                    add(line_keys[r0 + r], sorted[c], line_weights[r0 + r] * b);
                });
            team.barrier<false>();
          }
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          const unsigned int  cell  = team.team_index();
          const std::size_t   base  = std::size_t(first_cell + cell) * n_dofs;
          const unsigned int *keys  = cell_keys + base;
          const unsigned int *lines = cell_lines + base;
          const Number       *A =
              matrices == nullptr
                        ? nullptr
                        : matrices + std::size_t(cell) * n_dofs * n_dofs;

          if (A != nullptr)
          {
            Number *diagonal = team.scratch<Number>();
            // A cell whose constraint lines have several entries (hanging
            // nodes) adds A's columns into its distinct column DoFs first,
            // row by row: L_i x (distinct columns) atomics instead of L_i x
            // L_j for every entry (up to 49 x 49 on a Q6 face). max_slots
            // is 0 (the same in every team) where condensing does not pay.
            bool expands = false;
            if (max_slots > 0)
              team.for_each<false>(
                  n_dofs,
                  [&](const unsigned int j)
                  {
                    if (lines[j] != none &&
                        line_offsets[lines[j] + 1] - line_offsets[lines[j]] > 1)
                      expands = true;
                  });
            if (max_slots > 0 && team.barrier_or<false>(expands))
              add_condensed(team, A, keys, lines);
            else
              team.for_each<false>(
                  n_dofs * n_dofs,
                  [&](const unsigned int e)
                  {
                    const unsigned int i  = e / n_dofs;
                    const unsigned int j  = e - i * n_dofs;
                    const Number       a  = A[e];
                    const unsigned int li = lines[i], lj = lines[j];
                    const unsigned int ri0 = li == none ? 0 : line_offsets[li];
                    const unsigned int ri1 =
                        li == none ? 1 : line_offsets[li + 1];
                    const unsigned int cj0 = lj == none ? 0 : line_offsets[lj];
                    const unsigned int cj1 =
                        lj == none ? 1 : line_offsets[lj + 1];
                    for (unsigned int r = ri0; r < ri1; ++r)
                    {
                      const unsigned int row =
                          li == none ? keys[i] : line_keys[r];
                      const Number wr =
                          li == none ? Number(1) : line_weights[r];
                      for (unsigned int c = cj0; c < cj1; ++c)
                      {
                        const unsigned int col =
                            lj == none ? keys[j] : line_keys[c];
                        const Number wc =
                            lj == none ? Number(1) : line_weights[c];
                        add(row, col, wr * wc * a);
                      }
                    }
                  });
            // deal.II's diagonal for constrained DoFs whose A_ii is zero:
            // the mean |A_jj|; if that is zero, the largest column sum of
            // |A| over n_dofs; if that is zero too, 1. One thread reads the
            // whole matrix for it, so only in the cells that need it.
            bool zero_diagonal = false;
            team.for_each<false>(n_dofs,
                                 [&](const unsigned int i)
                                 {
                                   if (lines[i] != none &&
                                       A[i * n_dofs + i] == Number(0))
                                     zero_diagonal = true;
                                 });
            if (team.barrier_or<false>(zero_diagonal))
              team.for_each<false>(
                  1,
                  [&](unsigned int)
                  {
                    Number sum = 0, l1 = 0;
                    for (unsigned int j = 0; j < n_dofs; ++j)
                    {
                      Number column = 0;
                      for (unsigned int i = 0; i < n_dofs; ++i)
                      {
                        const Number a = A[i * n_dofs + j];
                        column += a < 0 ? -a : a;
                      }
                      l1             = column > l1 ? column : l1;
                      const Number d = A[j * n_dofs + j];
                      sum += d < 0 ? -d : d;
                    }
                    diagonal[0] = sum != Number(0)
                                      ? sum / Number(n_dofs)
                                      : (l1 != Number(0) ? l1 / Number(n_dofs)
                                                         : Number(1));
                  });
            team.barrier<false>();
            team.for_each<false>(
                n_dofs,
                [&](const unsigned int i)
                {
                  if (lines[i] == none)
                    return;
                  const Number d = A[i * n_dofs + i];
                  const Number a = d < 0 ? -d : d;
                  add(keys[i], keys[i], a != Number(0) ? a : diagonal[0]);
                });
          }

          if (vectors != nullptr)
          {
            const Number *F = vectors + std::size_t(cell) * n_dofs;
            team.for_each<false>(
                n_dofs,
                [&](const unsigned int i)
                {
                  Number b = F[i];
                  if (A != nullptr && line_inhomogeneities != nullptr)
                    for (unsigned int k = 0; k < n_dofs; ++k)
                      if (lines[k] != none)
                        b -= A[i * n_dofs + k] * line_inhomogeneities[lines[k]];
                  const unsigned int li = lines[i];
                  if (li == none)
                    add_to_vector(keys[i], b);
                  else
                    for (unsigned int r = line_offsets[li];
                         r < line_offsets[li + 1];
                         ++r)
                      add_to_vector(line_keys[r], line_weights[r] * b);
                });
          }
        }
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
