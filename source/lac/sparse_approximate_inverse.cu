#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/sparse_approximate_inverse.h>

#include <cmath>
#include <string>

namespace dealii
{
  namespace GPU
  {
    namespace
    {

      // The rows of A as the kernels read them: owned block only (owned
      // columns are the local row numbers and come first in each sorted
      // row), identity rows masked out.
      template <typename Number>
      struct OwnedBlock
      {
        unsigned int         n_rows;
        const unsigned int  *offsets;
        const unsigned int  *columns;
        const Number        *values;
        const unsigned char *identity;

        DEAL_II_GPU_HOST_DEVICE bool in_block(const unsigned int c) const
        {
          return c < n_rows && identity[c] == 0;
        }

        // Sum over the columns of rows j and k (a sorted merge).
        DEAL_II_GPU_HOST_DEVICE double dot(const unsigned int j,
                                           const unsigned int k) const
        {
          unsigned int       a = offsets[j], b = offsets[k];
          const unsigned int a_end = offsets[j + 1], b_end = offsets[k + 1];
          double             sum = 0;
          while (a < a_end && b < b_end)
          {
            const unsigned int ca = columns[a], cb = columns[b];
            if (ca >= n_rows || cb >= n_rows)
              break;
            if (ca < cb)
              ++a;
            else if (cb < ca)
              ++b;
            else
            {
              if (identity[ca] == 0)
                sum += double(values[a]) * double(values[b]);
              ++a;
              ++b;
            }
          }
          return sum;
        }

        // Position of (j, c) in the CSR arrays, or offsets[j + 1].
        DEAL_II_GPU_HOST_DEVICE unsigned int
        position(const unsigned int j, const unsigned int c) const
        {
          unsigned int lo = offsets[j], hi = offsets[j + 1];
          while (lo < hi)
          {
            const unsigned int mid = (lo + hi) / 2;
            if (columns[mid] < c)
              lo = mid + 1;
            else
              hi = mid;
          }
          return lo < offsets[j + 1] && columns[lo] == c ? lo : offsets[j + 1];
        }

        // Entry (j, c), zero where it is not stored.
        DEAL_II_GPU_HOST_DEVICE double entry(const unsigned int j,
                                             const unsigned int c) const
        {
          const unsigned int k = position(j, c);
          return k < offsets[j + 1] ? double(values[k]) : 0.;
        }
      };

      // Row r of the unsymmetrized inverse into m (A's positions), rows of
      // at most max_length entries (the thread's arrays).
      template <unsigned int max_length, typename Number>
      void least_squares_rows(const OwnedBlock<Number> block, Number *m)
      {
        parallel_for("SparseApproximateInverse::reinit (rows)",
                     block.n_rows,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t row)
                     {
                       const unsigned int r = static_cast<unsigned int>(row);
                       const unsigned int begin = block.offsets[r];
                       const unsigned int end   = block.offsets[r + 1];
                       for (unsigned int k = begin; k < end; ++k)
                         m[k] = Number();
                       if (block.identity[r] != 0)
                       {
                         m[block.position(r, r)] = Number(1);
                         return;
                       }
                       unsigned int positions[max_length];
                       unsigned int n = 0;
                       for (unsigned int k = begin; k < end && n < max_length;
                            ++k)
                         if (block.in_block(block.columns[k]))
                           positions[n++] = k;
                       // Normal equations G x = b, G_pq = <A_p, A_q>, b_p =
                       // A_{p,r}, G packed lower triangular, then overwritten
                       // by its Cholesky factor.
                       double G[max_length * (max_length + 1) / 2];
                       double x[max_length];
                       for (unsigned int p = 0; p < n; ++p)
                       {
                         const unsigned int jp = block.columns[positions[p]];
                         for (unsigned int q = 0; q <= p; ++q)
                           G[p * (p + 1) / 2 + q] =
                               block.dot(jp, block.columns[positions[q]]);
                         x[p] = block.entry(jp, r);
                       }
                       for (unsigned int p = 0; p < n; ++p)
                       {
                         double *row_p = G + p * (p + 1) / 2;
                         for (unsigned int q = 0; q <= p; ++q)
                         {
                           const double *row_q = G + q * (q + 1) / 2;
                           double        s     = row_p[q];
                           for (unsigned int t = 0; t < q; ++t)
                             s -= row_p[t] * row_q[t];
                           if (q < p)
                             row_p[q] = s / row_q[q];
                           else
                             // A rank-deficient Gram matrix (a zero row of A):
                             // keep the factor finite; that unknown gets no
                             // weight.
                             row_p[p] = s > 1e-300 ? sqrt(s) : 1e300;
                         }
                       }
                       for (unsigned int p = 0; p < n; ++p)
                       {
                         const double *row_p = G + p * (p + 1) / 2;
                         double        s     = x[p];
                         for (unsigned int t = 0; t < p; ++t)
                           s -= row_p[t] * x[t];
                         x[p] = s / row_p[p];
                       }
                       for (unsigned int p = n; p-- > 0;)
                       {
                         double s = x[p];
                         for (unsigned int t = p + 1; t < n; ++t)
                           s -= G[t * (t + 1) / 2 + p] * x[t];
                         x[p] = s / G[p * (p + 1) / 2 + p];
                       }
                       for (unsigned int p = 0; p < n; ++p)
                         m[positions[p]] = Number(x[p]);
                     });
      }

      // Longest rows the per-thread arrays take.
      constexpr unsigned int max_thread_row_length = 64;

      // Row (p, q) of the packed lower triangle with t = p (p + 1) / 2 + q.
      DEAL_II_GPU_HOST_DEVICE inline unsigned int
      packed_row(const unsigned int t)
      {
        unsigned int p =
            static_cast<unsigned int>((sqrt(8. * double(t) + 1.) - 1.) / 2.);
        while (p * (p + 1) / 2 > t)
          --p;
        while ((p + 1) * (p + 2) / 2 <= t)
          ++p;
        return p;
      }

      // As least_squares_rows(), one thread block a row, for rows longer
      // than the thread arrays: the packed Gram matrix in the team's
      // scratch (shared memory), its Cholesky factorization and the two
      // triangular solves a column at a time, each column's updates spread
      // over the team.
      template <typename Number>
      void least_squares_rows_team(const OwnedBlock<Number> block,
                                   const unsigned int       longest,
                                   Number                  *m)
      {
        const std::size_t packed = std::size_t(longest) * (longest + 1) / 2;
        const std::size_t bytes  = (packed + longest) * sizeof(double) +
                                  (longest + 1) * sizeof(unsigned int);
        parallel_for_teams<TeamKernels::one_per_block>(
            "SparseApproximateInverse::reinit (long rows)",
            block.n_rows,
            TeamShape{128, 1, 1},
            bytes,
            [=] DEAL_II_GPU_HOST_DEVICE(const TeamMember &team)
            {
              // One team a block: r, and every branch on it, is uniform.
              const unsigned int r     = team.team_index();
              const unsigned int begin = block.offsets[r];
              const unsigned int end   = block.offsets[r + 1];
              const bool         unit  = block.identity[r] != 0;
              team.for_each(end - begin,
                            [&](const unsigned int k)
                            {
                              m[begin + k] =
                                  unit && block.columns[begin + k] == r
                                      ? Number(1)
                                      : Number();
                            });
              if (unit)
                return;
              double       *G         = team.scratch<double>();
              double       *x         = G + packed;
              unsigned int *positions = team.scratch<unsigned int>(
                  (packed + longest) * sizeof(double));
              unsigned int *n_used = positions + longest;
              team.for_each(1,
                            [&](unsigned int)
                            {
                              unsigned int n = 0;
                              for (unsigned int k = begin; k < end; ++k)
                                if (block.in_block(block.columns[k]))
                                  positions[n++] = k;
                              *n_used = n;
                            });
              team.barrier();
              const unsigned int n = *n_used;
              team.for_each(n * (n + 1) / 2,
                            [&](const unsigned int t)
                            {
                              const unsigned int p = packed_row(t);
                              const unsigned int q = t - p * (p + 1) / 2;
                              G[t] = block.dot(block.columns[positions[p]],
                                               block.columns[positions[q]]);
                            });
              team.for_each(n,
                            [&](const unsigned int p) {
                              x[p] =
                                  block.entry(block.columns[positions[p]], r);
                            });
              team.barrier();
              // Right-looking Cholesky; the pivot rule of
              // least_squares_rows().
              for (unsigned int k = 0; k < n; ++k)
              {
                const unsigned int kk = k * (k + 1) / 2 + k;
                const double       d  = G[kk] > 1e-300 ? sqrt(G[kk]) : 1e300;
                team.for_each(n - k - 1,
                              [&](const unsigned int a)
                              {
                                const unsigned int i = k + 1 + a;
                                G[i * (i + 1) / 2 + k] /= d;
                              });
                team.barrier();
                const unsigned int rest = n - k - 1;
                team.for_each(
                    rest * (rest + 1) / 2,
                    [&](const unsigned int t)
                    {
                      const unsigned int a = packed_row(t);
                      const unsigned int i = k + 1 + a;
                      const unsigned int j = k + 1 + t - a * (a + 1) / 2;
                      G[i * (i + 1) / 2 + j] -=
                          G[i * (i + 1) / 2 + k] * G[j * (j + 1) / 2 + k];
                    });
                team.for_each(1, [&](unsigned int) { G[kk] = d; });
                team.barrier();
              }
              // L y = x, then L^T z = y, a column at a time.
              for (unsigned int k = 0; k < n; ++k)
              {
                const double xk = x[k] / G[k * (k + 1) / 2 + k];
                team.barrier();
                team.for_each(n - k,
                              [&](const unsigned int a)
                              {
                                const unsigned int i = k + a;
                                x[i]                 = a == 0
                                                           ? xk
                                                           : x[i] - G[i * (i + 1) / 2 + k] * xk;
                              });
                team.barrier();
              }
              for (unsigned int k = n; k-- > 0;)
              {
                const double xk = x[k] / G[k * (k + 1) / 2 + k];
                team.barrier();
                team.for_each(k + 1,
                              [&](const unsigned int i) {
                                x[i] = i == k
                                           ? xk
                                           : x[i] - G[k * (k + 1) / 2 + i] * xk;
                              });
                team.barrier();
              }
              team.for_each(n,
                            [&](const unsigned int p)
                            { m[positions[p]] = Number(x[p]); });
            });
      }

      // symmetric = (M + M^T) / 2 on the owned block; ghost columns get
      // the row as column and a zero value.
      template <typename Number>
      void symmetrize(const OwnedBlock<Number> block,
                      const Number            *m,
                      Number                  *symmetric,
                      unsigned int            *columns)
      {
        parallel_for("SparseApproximateInverse::reinit (symmetrize)",
                     block.n_rows,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t row)
                     {
                       const unsigned int r = static_cast<unsigned int>(row);
                       for (unsigned int k = block.offsets[r];
                            k < block.offsets[r + 1];
                            ++k)
                       {
                         const unsigned int c = block.columns[k];
                         if (c >= block.n_rows)
                         {
                           columns[k]   = r;
                           symmetric[k] = Number();
                           continue;
                         }
                         columns[k]               = c;
                         const unsigned int other = block.position(c, r);
                         const Number       mt =
                             other < block.offsets[c + 1] ? m[other] : Number();
                         symmetric[k] = Number(0.5) * (m[k] + mt);
                       }
                     });
      }
    } // namespace

    template <typename Number>
    void SparseApproximateInverse<Number>::reinit(
        const SparseMatrix<Number>      &matrix,
        const std::vector<unsigned int> &identity_rows)
    {
      AssertThrow(matrix.m() == matrix.n(),
                  ExcMessage("SparseApproximateInverse: a square matrix"));
      partitioner                 = matrix.get_partitioner();
      n_rows                      = matrix.local_size();
      const std::size_t n_entries = matrix.n_nonzero_elements();

      std::vector<unsigned char> mask(n_rows, 0);
      for (const unsigned int r : identity_rows)
      {
        AssertIndexRange(r, n_rows);
        mask[r] = 1;
      }
      Array<unsigned char> identity;
      identity.copy_from(mask);

      const unsigned int *a_offsets    = matrix.row_offsets();
      const unsigned int *a_columns    = matrix.column_indices();
      const unsigned int  rows         = n_rows;
      const unsigned int  longest_here = static_cast<unsigned int>(parallel_max(
          "SparseApproximateInverse::reinit (row length)",
          n_rows,
          [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
          {
            unsigned int n = 0;
            for (unsigned int k = a_offsets[r]; k < a_offsets[r + 1]; ++k)
              n += a_columns[k] < rows;
            return double(n);
          }));
      // Every rank throws, or none does.
      const unsigned int longest = Utilities::MPI::max(
          longest_here, partitioner->get_mpi_communicator());
      AssertThrow(
          longest <= max_row_length,
          ExcMessage("SparseApproximateInverse: a row has " +
                     std::to_string(longest) +
                     " entries in the owned block, "
                     "more than the " +
                     std::to_string(max_row_length) +
                     " it solves for (FE_Q(1) and FE_Q(2)); use the SPAI(0) "
                     "or Jacobi smoother"));

      const OwnedBlock<Number> block{
          n_rows, a_offsets, a_columns, matrix.values(), identity.data()};
      Array<Number> unsymmetric(n_entries);
      // Short rows (structured meshes) in smaller per-thread arrays.
      if (longest <= 32)
        least_squares_rows<32>(block, unsymmetric.data());
      else if (longest <= max_thread_row_length)
        least_squares_rows<max_thread_row_length>(block, unsymmetric.data());
      else
        least_squares_rows_team(block, longest, unsymmetric.data());
      offsets.resize(n_rows + 1);
      Memory::copy_within(offsets.backend(),
                          offsets.data(),
                          a_offsets,
                          (n_rows + 1) * sizeof(unsigned int));
      columns.resize(n_entries);
      values.resize(n_entries);
      symmetrize(block, unsymmetric.data(), values.data(), columns.data());
    }

    template <typename Number>
    void
    SparseApproximateInverse<Number>::vmult(Vector<Number>       &dst,
                                            const Vector<Number> &src) const
    {
      AssertThrow(src.locally_owned_size() == n_rows &&
                      dst.locally_owned_size() == n_rows,
                  ExcMessage("SparseApproximateInverse::vmult: vectors of " +
                             std::to_string(n_rows) + " owned entries, not " +
                             std::to_string(src.locally_owned_size()) +
                             " and " +
                             std::to_string(dst.locally_owned_size())));
      internal::csr_product(n_rows,
                            offsets.data(),
                            columns.data(),
                            values.data(),
                            src.get_values(),
                            dst.get_values(),
                            false);
    }

    template <typename Number>
    typename SparseApproximateInverse<Number>::size_type
    SparseApproximateInverse<Number>::m() const
    {
      return partitioner ? partitioner->size() : 0;
    }

    template <typename Number>
    std::vector<
        std::tuple<types::global_dof_index, types::global_dof_index, Number>>
    SparseApproximateInverse<Number>::get_entries() const
    {
      std::vector<unsigned int> o, c;
      std::vector<Number>       v;
      offsets.copy_to(o);
      columns.copy_to(c);
      values.copy_to(v);
      std::vector<std::tuple<size_type, size_type, Number>> result;
      for (unsigned int r = 0; r < n_rows; ++r)
        for (unsigned int k = o[r]; k < o[r + 1]; ++k)
          if (v[k] != Number())
            result.emplace_back(partitioner->local_to_global(r),
                                partitioner->local_to_global(c[k]),
                                v[k]);
      return result;
    }

    template <typename Number>
    std::size_t SparseApproximateInverse<Number>::memory_consumption() const
    {
      return offsets.memory_consumption() + columns.memory_consumption() +
             values.memory_consumption();
    }

    template class SparseApproximateInverse<float>;
    template class SparseApproximateInverse<double>;
  } // namespace GPU
} // namespace dealii
