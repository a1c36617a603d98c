// GPU::MGTransferSparseMatrix: the transfer matrices from the per-cell data
// of MGTransferMatrixFree, on the set-up threads; CSR products on the
// device.
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/lac/sparse_matrix.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/multigrid/mg_transfer_sparse_matrix.h>

#include <algorithm>
#include <tuple>
#include <utility>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      constexpr std::size_t row_grain = 2048;

      // Rows of the matrix with entries (row, column, value) given as the
      // occurrences of each row: CSR with equal columns summed, in
      // increasing column order, on the set-up threads. @p row_entries(r,
      // out) appends the (column, value) pairs of row r.
      template <typename Number, typename RowEntries>
      void build_rows(const unsigned int         n_rows,
                      const RowEntries          &row_entries,
                      std::vector<unsigned int> &offsets,
                      std::vector<unsigned int> &columns,
                      std::vector<Number>       &values)
      {
        const std::size_t n_chunks = (n_rows + row_grain - 1) / row_grain;
        std::vector<std::vector<std::pair<unsigned int, Number>>> chunk_entries(
            n_chunks);
        std::vector<unsigned int> lengths(n_rows);
        parallel_for_chunks(n_rows,
                            row_grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              auto &out = chunk_entries[begin / row_grain];
                              std::vector<std::pair<unsigned int, Number>> row;
                              for (std::size_t r = begin; r < end; ++r)
                              {
                                row.clear();
                                row_entries(r, row);
                                std::sort(row.begin(),
                                          row.end(),
                                          [](const auto &a, const auto &b)
                                          { return a.first < b.first; });
                                const std::size_t start = out.size();
                                for (const auto &e : row)
                                  if (out.size() > start &&
                                      out.back().first == e.first)
                                    out.back().second += e.second;
                                  else
                                    out.push_back(e);
                                lengths[r] = out.size() - start;
                              }
                            });
        offsets.assign(n_rows + 1, 0);
        for (unsigned int r = 0; r < n_rows; ++r)
          offsets[r + 1] = offsets[r] + lengths[r];
        columns.resize(offsets[n_rows]);
        values.resize(offsets[n_rows]);
        std::size_t k = 0;
        for (const auto &chunk : chunk_entries)
          for (const auto &e : chunk)
          {
            columns[k] = e.first;
            values[k]  = e.second;
            ++k;
          }
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

      for (unsigned int l = 1; l < n_levels; ++l)
      {
        const auto               &t = this->transfers[l];
        std::vector<unsigned int> coarse, fine;
        std::vector<Number>       weights;
        t.coarse_indices.copy_to(coarse);
        t.fine_indices.copy_to(fine);
        t.weights.copy_to(weights);
        const unsigned int n_fine = n_local(l);

        // Where each fine entry occurs: (cell and component block, point).
        std::vector<unsigned int> occurrence_offsets(n_fine + 1, 0);
        for (const unsigned int f : fine)
          if (!(f & constrained_dof_flag))
            ++occurrence_offsets[f + 1];
        for (unsigned int r = 0; r < n_fine; ++r)
          occurrence_offsets[r + 1] += occurrence_offsets[r];
        std::vector<unsigned int> occurrences(occurrence_offsets[n_fine]);
        {
          std::vector<unsigned int> fill(occurrence_offsets.begin(),
                                         occurrence_offsets.end() - 1);
          for (std::size_t k = 0; k < fine.size(); ++k)
            if (!(fine[k] & constrained_dof_flag))
              occurrences[fill[fine[k]]++] = k;
        }

        std::vector<unsigned int> offsets, columns;
        std::vector<Number>       values;
        build_rows<Number>(
            n_fine,
            [&](const unsigned int                            r,
                std::vector<std::pair<unsigned int, Number>> &row)
            {
              for (unsigned int o = occurrence_offsets[r];
                   o < occurrence_offsets[r + 1];
                   ++o)
              {
                const unsigned int block = occurrences[o] / nfc;
                const unsigned int p     = occurrences[o] % nfc;
                for (unsigned int i = 0; i < nc; ++i)
                {
                  const unsigned int c = coarse[std::size_t(block) * nc + i];
                  const Number       v = cell_matrix[std::size_t(p) * nc + i];
                  if (!(c & constrained_dof_flag) && v != Number())
                    row.emplace_back(c, weights[r] * v);
                }
              }
            },
            offsets,
            columns,
            values);

        Csr &p   = prolongations[l];
        p.n_rows = n_fine;
        p.offsets.copy_from(offsets);
        p.columns.copy_from(columns);
        p.values.copy_from(values);
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
