// GPU::SparseMatrix's structure: CSR from deal.II's sparsity patterns and
// matrices (deal.II, Trilinos) on the set-up threads, and back to Trilinos.
// Compiled by nvcc with the CUDA backend and as C++ without it.
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/lac/sparse_matrix.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_sparsity_pattern.h>

#include "cusparse_data.h"
#include <algorithm>
#include <limits>
#include <memory>
#include <tuple>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      using size_type = types::global_dof_index;

      // The rank's rows as a contiguous range (deal.II's DoF partitions).
      void check_rows(const IndexSet &owned_rows)
      {
        AssertThrow(owned_rows.is_contiguous(),
                    ExcMessage("GPU::SparseMatrix: the locally owned rows "
                               "must be one contiguous range."));
      }

      constexpr std::size_t row_grain = 4096;

      // The structure from the owned rows' global columns (CSR over the
      // rank's rows, any order within a row; @p values optional, in the
      // same order): the diagonal added where missing, the ghost columns,
      // the partitioner, and every row's columns as local indices in
      // increasing order with their values. On the set-up threads.
      template <typename Number>
      void structure_from_rows(
          const IndexSet                                     &owned_rows,
          const MPI_Comm                                      communicator,
          const std::vector<std::size_t>                     &offsets,
          const std::vector<size_type>                       &columns,
          const std::vector<Number>                          *values,
          std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner,
          std::vector<unsigned int>                          &local_offsets,
          std::vector<unsigned int>                          &local_columns,
          std::vector<Number>                                &local_values)
      {
        check_rows(owned_rows);
        const unsigned int n_rows = owned_rows.n_elements();
        const size_type first = n_rows > 0 ? owned_rows.nth_index_in_set(0) : 0;
        AssertDimension(offsets.size(), n_rows + 1);
        // Row lengths with the diagonal.
        std::vector<unsigned char> has_diagonal(n_rows);
        parallel_for_chunks(n_rows,
                            row_grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              for (std::size_t r = begin; r < end; ++r)
                                has_diagonal[r] =
                                    std::find(columns.begin() + offsets[r],
                                              columns.begin() + offsets[r + 1],
                                              first + r) !=
                                    columns.begin() + offsets[r + 1];
                            });
        std::vector<std::size_t> new_offsets(n_rows + 1, 0);
        for (unsigned int r = 0; r < n_rows; ++r)
          new_offsets[r + 1] = new_offsets[r] + offsets[r + 1] - offsets[r] +
                               (has_diagonal[r] ? 0 : 1);
        const std::size_t n_entries = new_offsets[n_rows];
        AssertThrow(
            n_entries < std::size_t(std::numeric_limits<int>::max()),
            ExcMessage("GPU::SparseMatrix: " + std::to_string(n_entries) +
                       " entries on one rank, more than its 32-bit "
                       "indices (2^31 - 1) hold; use more ranks."));
        // The ghost columns: per chunk, then merged.
        const std::size_t n_chunks = (n_rows + row_grain - 1) / row_grain;
        std::vector<std::vector<size_type>> chunk_ghosts(n_chunks);
        parallel_for_chunks(
            n_rows,
            row_grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              auto &ghosts = chunk_ghosts[begin / row_grain];
              for (std::size_t k = offsets[begin]; k < offsets[end]; ++k)
                if (columns[k] < first || columns[k] >= first + n_rows)
                  ghosts.push_back(columns[k]);
              std::sort(ghosts.begin(), ghosts.end());
              ghosts.erase(std::unique(ghosts.begin(), ghosts.end()),
                           ghosts.end());
            });
        std::vector<size_type> ghosts;
        for (auto &g : chunk_ghosts)
        {
          ghosts.insert(ghosts.end(), g.begin(), g.end());
          std::vector<size_type>().swap(g);
        }
        std::sort(ghosts.begin(), ghosts.end());
        ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
        IndexSet ghost_set(owned_rows.size());
        ghost_set.add_indices(ghosts.begin(), ghosts.end());
        ghost_set.compress();
        partitioner = std::make_shared<Utilities::MPI::Partitioner>(
            owned_rows, ghost_set, communicator);

        local_offsets.resize(n_rows + 1);
        for (unsigned int r = 0; r <= n_rows; ++r)
          local_offsets[r] = new_offsets[r];
        local_columns.resize(n_entries);
        local_values.assign(values != nullptr ? n_entries : 0, Number());
        const Utilities::MPI::Partitioner &part = *partitioner;
        parallel_for_chunks(
            n_rows,
            row_grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              std::vector<std::pair<unsigned int, Number>> row;
              for (std::size_t r = begin; r < end; ++r)
              {
                row.clear();
                for (std::size_t k = offsets[r]; k < offsets[r + 1]; ++k)
                  row.emplace_back(part.global_to_local(columns[k]),
                                   values != nullptr ? (*values)[k] : Number());
                if (!has_diagonal[r])
                  row.emplace_back(r, Number());
                std::sort(row.begin(),
                          row.end(),
                          [](const auto &x, const auto &y)
                          { return x.first < y.first; });
                for (std::size_t k = 0; k < row.size(); ++k)
                {
                  local_columns[new_offsets[r] + k] = row[k].first;
                  if (values != nullptr)
                    local_values[new_offsets[r] + k] = row[k].second;
                }
              }
            });
      }

    } // namespace

    template <typename Number>
    void SparseMatrix<Number>::reinit(const IndexSet               &owned_rows,
                                      const DynamicSparsityPattern &pattern,
                                      const MPI_Comm communicator)
    {
      check_rows(owned_rows);
      const unsigned int n_rows = owned_rows.n_elements();
      const size_type first = n_rows > 0 ? owned_rows.nth_index_in_set(0) : 0;
      std::vector<std::size_t> offsets(n_rows + 1, 0);
      std::vector<size_type>   columns;
      for (unsigned int r = 0; r < n_rows; ++r)
      {
        const size_type row = first + r;
        if (pattern.row_index_set().size() == 0 ||
            pattern.row_index_set().is_element(row))
          for (auto it = pattern.begin(row); it != pattern.end(row); ++it)
            columns.push_back(it->column());
        offsets[r + 1] = columns.size();
      }
      reinit(owned_rows, offsets, columns, communicator);
    }

    template <typename Number>
    void SparseMatrix<Number>::reinit(const IndexSet &owned_rows,
                                      const std::vector<std::size_t> &offsets,
                                      const std::vector<size_type>   &columns,
                                      const MPI_Comm communicator)
    {
      std::vector<unsigned int> local_offsets, local_columns;
      std::vector<Number>       no_values;
      structure_from_rows<Number>(owned_rows,
                                  communicator,
                                  offsets,
                                  columns,
                                  nullptr,
                                  partitioner,
                                  local_offsets,
                                  local_columns,
                                  no_values);
      Array<unsigned int> device_offsets, device_columns;
      device_offsets.copy_from(local_offsets);
      device_columns.copy_from(local_columns);
      reinit(std::shared_ptr<const Utilities::MPI::Partitioner>(partitioner),
             std::move(device_offsets),
             std::move(device_columns));
    }

    template <typename Number>
    void SparseMatrix<Number>::reinit(
        const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner,
        Array<unsigned int>                                     &&offsets,
        Array<unsigned int>                                     &&columns)
    {
      AssertDimension(offsets.size(), partitioner->locally_owned_size() + 1);
      AssertThrow(
          columns.size() < std::size_t(std::numeric_limits<int>::max()),
          ExcMessage("GPU::SparseMatrix: " + std::to_string(columns.size()) +
                     " entries on one rank, more than its 32-bit indices "
                     "(2^31 - 1) hold; use more ranks."));
      AssertThrow(offsets.backend() == Device::backend() &&
                      columns.backend() == Device::backend(),
                  ExcMessage("GPU::SparseMatrix::reinit: the CSR arrays must "
                             "be on the active backend."));
      this->partitioner = partitioner;
      rows              = std::move(offsets);
      this->columns     = std::move(columns);
      n_entries         = this->columns.size();
      entries.resize(n_entries);
      if (n_entries > 0)
        Memory::set_zero(
            entries.backend(), entries.data(), n_entries * sizeof(Number));
      values_changed();
      cusparse.reset();
    }

    namespace
    {
      // The structure and values of the rows @p owned of a deal.II or
      // Trilinos matrix (row iterators with column() and value()).
      template <typename Number, typename MatrixType>
      void
      read_rows(const MatrixType                                   &matrix,
                const IndexSet                                     &owned,
                const MPI_Comm                                      comm,
                std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner,
                std::vector<unsigned int>                          &offsets,
                std::vector<unsigned int> &local_columns,
                std::vector<Number>       &values)
      {
        AssertThrow(
            matrix.m() == matrix.n(),
            ExcMessage("GPU::SparseMatrix: the matrix must be square."));
        const size_type first =
            owned.n_elements() > 0 ? owned.nth_index_in_set(0) : 0;
        std::vector<std::size_t> row_offsets(owned.n_elements() + 1, 0);
        std::vector<size_type>   columns;
        std::vector<Number>      row_values;
        for (unsigned int r = 0; r < owned.n_elements(); ++r)
        {
          for (auto it = matrix.begin(first + r); it != matrix.end(first + r);
               ++it)
          {
            columns.push_back(it->column());
            row_values.push_back(static_cast<Number>(it->value()));
          }
          row_offsets[r + 1] = columns.size();
        }
        structure_from_rows<Number>(owned,
                                    comm,
                                    row_offsets,
                                    columns,
                                    &row_values,
                                    partitioner,
                                    offsets,
                                    local_columns,
                                    values);
      }
    } // namespace

    template <typename Number>
    void
    SparseMatrix<Number>::upload(const std::vector<unsigned int> &offsets,
                                 const std::vector<unsigned int> &local_columns,
                                 const std::vector<Number>       &values)
    {
      rows.copy_from(offsets);
      columns.copy_from(local_columns);
      entries.copy_from(values);
      n_entries = values.size();
      values_changed();
      cusparse.reset();
    }

    template <typename Number>
    template <typename Number2>
    void
    SparseMatrix<Number>::copy_from(const dealii::SparseMatrix<Number2> &matrix)
    {
      IndexSet all(matrix.m());
      all.add_range(0, matrix.m());
      std::vector<unsigned int> offsets, local_columns;
      std::vector<Number>       values;
      read_rows(matrix,
                all,
                MPI_COMM_SELF,
                partitioner,
                offsets,
                local_columns,
                values);
      upload(offsets, local_columns, values);
    }

    template <typename Number>
    void SparseMatrix<Number>::copy_from(
        const TrilinosWrappers::SparseMatrix &matrix)
    {
      std::vector<unsigned int> offsets, local_columns;
      std::vector<Number>       values;
      read_rows(matrix,
                matrix.locally_owned_range_indices(),
                matrix.get_mpi_communicator(),
                partitioner,
                offsets,
                local_columns,
                values);
      upload(offsets, local_columns, values);
    }

    template <typename Number>
    std::vector<
        std::tuple<types::global_dof_index, types::global_dof_index, Number>>
    SparseMatrix<Number>::get_entries() const
    {
      std::vector<unsigned int> offsets, local_columns;
      std::vector<Number>       values;
      rows.copy_to(offsets);
      columns.copy_to(local_columns);
      entries.copy_to(values);
      std::vector<std::tuple<size_type, size_type, Number>> result;
      result.reserve(values.size());
      for (unsigned int r = 0; r + 1 < offsets.size(); ++r)
        for (unsigned int k = offsets[r]; k < offsets[r + 1]; ++k)
          result.emplace_back(partitioner->local_to_global(r),
                              partitioner->local_to_global(local_columns[k]),
                              values[k]);
      return result;
    }

    template <typename Number>
    void
    SparseMatrix<Number>::copy_to(TrilinosWrappers::SparseMatrix &matrix) const
    {
      Assert(partitioner, ExcNotInitialized());
      const auto                        entries_host = get_entries();
      TrilinosWrappers::SparsityPattern pattern(
          partitioner->locally_owned_range(),
          partitioner->get_mpi_communicator());
      for (const auto &[i, j, v] : entries_host)
        pattern.add(i, j);
      pattern.compress();
      matrix.reinit(pattern);
      for (const auto &[i, j, v] : entries_host)
        matrix.set(i, j, static_cast<double>(v));
      matrix.compress(VectorOperation::insert);
    }

    template void SparseMatrix<float>::reinit(const IndexSet &,
                                              const DynamicSparsityPattern &,
                                              const MPI_Comm);
    template void SparseMatrix<float>::reinit(const IndexSet &,
                                              const std::vector<std::size_t> &,
                                              const std::vector<size_type> &,
                                              const MPI_Comm);
    template void SparseMatrix<float>::reinit(
        const std::shared_ptr<const Utilities::MPI::Partitioner> &,
        Array<unsigned int> &&,
        Array<unsigned int> &&);
    template void SparseMatrix<float>::upload(const std::vector<unsigned int> &,
                                              const std::vector<unsigned int> &,
                                              const std::vector<float> &);
    template void
    SparseMatrix<float>::copy_from(const TrilinosWrappers::SparseMatrix &);
    template std::vector<
        std::tuple<types::global_dof_index, types::global_dof_index, float>>
    SparseMatrix<float>::get_entries() const;
    template void
    SparseMatrix<float>::copy_to(TrilinosWrappers::SparseMatrix &) const;
    template void SparseMatrix<double>::reinit(const IndexSet &,
                                               const DynamicSparsityPattern &,
                                               const MPI_Comm);
    template void SparseMatrix<double>::reinit(const IndexSet &,
                                               const std::vector<std::size_t> &,
                                               const std::vector<size_type> &,
                                               const MPI_Comm);
    template void SparseMatrix<double>::reinit(
        const std::shared_ptr<const Utilities::MPI::Partitioner> &,
        Array<unsigned int> &&,
        Array<unsigned int> &&);
    template void
    SparseMatrix<double>::upload(const std::vector<unsigned int> &,
                                 const std::vector<unsigned int> &,
                                 const std::vector<double> &);
    template void
    SparseMatrix<double>::copy_from(const TrilinosWrappers::SparseMatrix &);
    template std::vector<
        std::tuple<types::global_dof_index, types::global_dof_index, double>>
    SparseMatrix<double>::get_entries() const;
    template void
    SparseMatrix<double>::copy_to(TrilinosWrappers::SparseMatrix &) const;
    template void
    SparseMatrix<float>::copy_from(const dealii::SparseMatrix<double> &);
    template void
    SparseMatrix<double>::copy_from(const dealii::SparseMatrix<double> &);
    template void
    SparseMatrix<float>::copy_from(const dealii::SparseMatrix<float> &);
    template void
    SparseMatrix<double>::copy_from(const dealii::SparseMatrix<float> &);
  } // namespace GPU
} // namespace dealii
