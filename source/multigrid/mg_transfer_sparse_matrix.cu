// GPU::MGTransferSparseMatrix: the transfer matrices from the per-cell data
// of MGTransferMatrixFree and the CSR products, on the device.
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/lac/sparse_matrix.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/multigrid/mg_transfer_sparse_matrix.h>

#include "../lac/exclusive_scan.h"
#include <algorithm>
#include <tuple>
#include <utility>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      // The prolongation of one level in CSR, on the active backend, from
      // the per-cell data of the transfer: coarse[b * nc + i] and fine[b *
      // nfc + p] are the local entries of coarse-cell block b (flagged if
      // constrained), M = cell_matrix (nfc x nc) the element's embedding,
      // weights the fine entries' weights. Entry (r, c) sums weights[r] *
      // M(p, i) over the blocks' points p at row r and coarse DoFs i at
      // column c. Rows list their columns in the order of first occurrence
      // (blocks in increasing order, then i), so both backends give the
      // same matrix.
      template <typename Number>
      void build_prolongation(const unsigned int         n_rows,
                              const unsigned int         nc,
                              const unsigned int         nfc,
                              const Array<unsigned int> &coarse_indices,
                              const Array<unsigned int> &fine_indices,
                              const Array<Number>       &weights,
                              const Array<Number>       &cell_matrix,
                              Array<unsigned int>       &offsets,
                              Array<unsigned int>       &columns,
                              Array<Number>             &values)
      {
        const std::size_t      n_entries = fine_indices.size();
        const unsigned int    *coarse    = coarse_indices.data();
        const unsigned int    *fine      = fine_indices.data();
        const Number          *weight    = weights.data();
        const Number          *M         = cell_matrix.data();
        constexpr unsigned int flag      = constrained_dof_flag;

        // Where each row occurs: positions k of fine[] (block k / nfc,
        // point k % nfc), counted, scanned, filled, then sorted per row.
        Array<unsigned int> occurrence_offsets(n_rows + 1);
        unsigned int       *occ_offsets = occurrence_offsets.data();
        parallel_for("MGTransferSparseMatrix: zero",
                     n_rows + 1,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                     { occ_offsets[r] = 0; });
        parallel_for("MGTransferSparseMatrix: count occurrences",
                     n_entries,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
                     {
                       if (!(fine[k] & flag))
                         fetch_add(&occ_offsets[fine[k]], 1u);
                     });
        const unsigned int n_occurrences =
            internal::exclusive_scan(n_rows, occ_offsets, occ_offsets);
        Array<unsigned int> fill(occurrence_offsets);
        Array<unsigned int> occurrence_list(n_occurrences);
        unsigned int       *next = fill.data();
        unsigned int       *occ  = occurrence_list.data();
        parallel_for("MGTransferSparseMatrix: list occurrences",
                     n_entries,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
                     {
                       if (!(fine[k] & flag))
                         occ[fetch_add(&next[fine[k]], 1u)] = k;
                     });
        // Insertion sort: the device's atomics fill in any order.
        parallel_for("MGTransferSparseMatrix: sort occurrences",
                     n_rows,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                     {
                       for (unsigned int a = occ_offsets[r] + 1;
                            a < occ_offsets[r + 1];
                            ++a)
                       {
                         const unsigned int key = occ[a];
                         unsigned int       b   = a;
                         for (; b > occ_offsets[r] && occ[b - 1] > key; --b)
                           occ[b] = occ[b - 1];
                         occ[b] = key;
                       }
                     });

        // Whether (occurrence o, coarse DoF i) of row r gives an entry, and
        // whether its column came earlier in the row.
        const auto column_of = [=] DEAL_II_GPU_HOST_DEVICE(const unsigned int o,
                                                           const unsigned int i)
        {
          const unsigned int c = coarse[(occ[o] / nfc) * nc + i];
          return (M[(occ[o] % nfc) * nc + i] != Number() && !(c & flag)) ? c
                                                                         : flag;
        };
        const auto seen_before =
            [=] DEAL_II_GPU_HOST_DEVICE(const unsigned int begin,
                                        const unsigned int o,
                                        const unsigned int c)
        {
          // A block's coarse DoFs are distinct: look at earlier blocks.
          for (unsigned int o2 = begin; o2 < o; ++o2)
            for (unsigned int i2 = 0; i2 < nc; ++i2)
              if (column_of(o2, i2) == c)
                return true;
          return false;
        };

        offsets.resize(n_rows + 1);
        unsigned int *row_offsets = offsets.data();
        parallel_for(
            "MGTransferSparseMatrix: row lengths",
            n_rows,
            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
            {
              unsigned int length = 0;
              for (unsigned int o = occ_offsets[r]; o < occ_offsets[r + 1]; ++o)
                for (unsigned int i = 0; i < nc; ++i)
                {
                  const unsigned int c = column_of(o, i);
                  if (c != flag && !seen_before(occ_offsets[r], o, c))
                    ++length;
                }
              row_offsets[r] = length;
            });
        const unsigned int n_nonzeros =
            internal::exclusive_scan(n_rows, row_offsets, row_offsets);
        columns.resize(n_nonzeros);
        values.resize(n_nonzeros);
        unsigned int *cols = columns.data();
        Number       *vals = values.data();
        parallel_for(
            "MGTransferSparseMatrix: entries",
            n_rows,
            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
            {
              unsigned int pos = row_offsets[r];
              for (unsigned int o = occ_offsets[r]; o < occ_offsets[r + 1]; ++o)
                for (unsigned int i = 0; i < nc; ++i)
                {
                  const unsigned int c = column_of(o, i);
                  if (c == flag || seen_before(occ_offsets[r], o, c))
                    continue;
                  // This block's term, then the later blocks' at c.
                  Number value = weight[r] * M[(occ[o] % nfc) * nc + i];
                  for (unsigned int o2 = o + 1; o2 < occ_offsets[r + 1]; ++o2)
                    for (unsigned int i2 = 0; i2 < nc; ++i2)
                      if (column_of(o2, i2) == c)
                        value += weight[r] * M[(occ[o2] % nfc) * nc + i2];
                  cols[pos] = c;
                  vals[pos] = value;
                  ++pos;
                }
            });
      }
    } // namespace

    template <int dim, typename Number>
    void MGTransferSparseMatrix<dim, Number>::build(
        const DoFHandler<dim, dim> &dof_handler,
        const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
            &external_partitioners)
    {
      MGTransferMatrixFree<dim, Number>::build(dof_handler,
                                               external_partitioners);
      const unsigned int n_levels = this->n_levels;
      prolongations.clear();
      restrictions.clear();
      prolongations.resize(n_levels);
      std::vector<Number> P1d;
      this->prolongation_1d.copy_to(P1d);
      const unsigned int n1      = this->degree + 1;
      const unsigned int nf      = 2 * this->degree + 1;
      const unsigned int nc      = Utilities::pow(n1, dim);
      const unsigned int nfc     = Utilities::pow(nf, dim);
      auto               n_local = [&](const unsigned int level)
      {
        const auto &part = *this->transfer_partitioners[level];
        return part.locally_owned_size() + part.n_ghost_indices();
      };
      // Entry (p, i) of a cell's prolongation: the 1D factors of the fine
      // point p and the coarse point i, lexicographic (x fastest).
      std::vector<Number> cell_matrix(std::size_t(nfc) * nc);
      for (unsigned int p = 0; p < nfc; ++p)
        for (unsigned int i = 0; i < nc; ++i)
        {
          Number       v  = 1;
          unsigned int pp = p, ii = i;
          for (unsigned int d = 0; d < dim; ++d, pp /= nf, ii /= n1)
            v *= P1d[(pp % nf) * n1 + ii % n1];
          cell_matrix[std::size_t(p) * nc + i] = v;
        }

      Array<Number> embedding;
      embedding.copy_from(cell_matrix);
      for (unsigned int l = 1; l < n_levels; ++l)
      {
        const auto &t = this->transfers[l];
        Csr        &p = prolongations[l];
        p.n_rows      = n_local(l);
        build_prolongation<Number>(p.n_rows,
                                   nc,
                                   nfc,
                                   t.coarse_indices,
                                   t.fine_indices,
                                   t.weights,
                                   embedding,
                                   p.offsets,
                                   p.columns,
                                   p.values);
      }
      if (restriction == Restriction::stored_transpose)
        store_restrictions();
    }

    template <int dim, typename Number>
    void MGTransferSparseMatrix<dim, Number>::store_restrictions() const
    {
      restrictions.clear();
      restrictions.resize(prolongations.size());
      for (unsigned int l = 1; l < prolongations.size(); ++l)
      {
        const Csr                &p = prolongations[l];
        std::vector<unsigned int> offsets, columns;
        std::vector<Number>       values;
        p.offsets.copy_to(offsets);
        p.columns.copy_to(columns);
        p.values.copy_to(values);
        const auto        &part = *this->transfer_partitioners[l - 1];
        const unsigned int n_coarse =
            part.locally_owned_size() + part.n_ghost_indices();
        // The transpose, rows sorted by construction.
        std::vector<unsigned int> t_offsets(n_coarse + 1, 0),
            t_columns(columns.size());
        std::vector<Number> t_values(values.size());
        for (const unsigned int c : columns)
          ++t_offsets[c + 1];
        for (unsigned int r = 0; r < n_coarse; ++r)
          t_offsets[r + 1] += t_offsets[r];
        std::vector<unsigned int> fill(t_offsets.begin(), t_offsets.end() - 1);
        for (unsigned int r = 0; r < p.n_rows; ++r)
          for (unsigned int k = offsets[r]; k < offsets[r + 1]; ++k)
          {
            const unsigned int pos = fill[columns[k]]++;
            t_columns[pos]         = r;
            t_values[pos]          = values[k];
          }
        Csr &q   = restrictions[l];
        q.n_rows = n_coarse;
        q.offsets.copy_from(t_offsets);
        q.columns.copy_from(t_columns);
        q.values.copy_from(t_values);
      }
    }

    template <int dim, typename Number>
    void MGTransferSparseMatrix<dim, Number>::set_restriction(
        const Restriction kind) const
    {
      if (kind == restriction)
        return;
      restriction = kind;
      if (kind == Restriction::stored_transpose)
        store_restrictions();
      else
        restrictions.clear();
    }

    template <int dim, typename Number>
    void MGTransferSparseMatrix<dim, Number>::prolongate_cells(
        const unsigned int to_level, const Number *coarse, Number *fine) const
    {
      const Csr &p = prolongations[to_level];
      internal::csr_product(p.n_rows,
                            p.offsets.data(),
                            p.columns.data(),
                            p.values.data(),
                            coarse,
                            fine,
                            true);
    }

    template <int dim, typename Number>
    void MGTransferSparseMatrix<dim, Number>::restrict_cells(
        const unsigned int from_level, const Number *fine, Number *coarse) const
    {
      if (restriction == Restriction::transposed_product)
      {
        const Csr &p = prolongations[from_level];
        internal::csr_transpose_product(p.n_rows,
                                        p.offsets.data(),
                                        p.columns.data(),
                                        p.values.data(),
                                        fine,
                                        coarse);
        return;
      }
      const Csr &q = restrictions[from_level];
      internal::csr_product(q.n_rows,
                            q.offsets.data(),
                            q.columns.data(),
                            q.values.data(),
                            fine,
                            coarse,
                            true);
    }

    template <int dim, typename Number>
    std::size_t MGTransferSparseMatrix<dim, Number>::n_nonzero_elements(
        const unsigned int level) const
    {
      AssertIndexRange(level, prolongations.size());
      return prolongations[level].values.size();
    }

    template <int dim, typename Number>
    std::vector<std::tuple<unsigned int, unsigned int, Number>>
    MGTransferSparseMatrix<dim, Number>::get_prolongation_entries(
        const unsigned int level) const
    {
      AssertIndexRange(level, prolongations.size());
      const Csr                &p = prolongations[level];
      std::vector<unsigned int> offsets, columns;
      std::vector<Number>       values;
      p.offsets.copy_to(offsets);
      p.columns.copy_to(columns);
      p.values.copy_to(values);
      std::vector<std::tuple<unsigned int, unsigned int, Number>> entries;
      for (unsigned int r = 0; r < p.n_rows; ++r)
        for (unsigned int k = offsets[r]; k < offsets[r + 1]; ++k)
          entries.emplace_back(r, columns[k], values[k]);
      return entries;
    }

    template <int dim, typename Number>
    std::size_t MGTransferSparseMatrix<dim, Number>::memory_consumption() const
    {
      std::size_t bytes =
          MGTransferMatrixFree<dim, Number>::memory_consumption();
      const std::vector<Csr> *lists[] = {&prolongations, &restrictions};
      for (const std::vector<Csr> *list : lists)
        for (const Csr &m : *list)
          bytes += m.offsets.memory_consumption() +
                   m.columns.memory_consumption() +
                   m.values.memory_consumption();
      return bytes;
    }

    template class MGTransferSparseMatrix<2, float>;
    template class MGTransferSparseMatrix<2, double>;
    template class MGTransferSparseMatrix<3, float>;
    template class MGTransferSparseMatrix<3, double>;
  } // namespace GPU
} // namespace dealii
