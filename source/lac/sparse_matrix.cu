#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/lac/sparse_matrix.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/trilinos_sparsity_pattern.h>

#ifdef DEAL_II_GPU_COMPILING_CUDA
#  include <cusparse.h>
#endif

#include "../base/library_check.h"
#include "cusparse_data.h"
#include <algorithm>
#include <functional>
#include <limits>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
#ifdef DEAL_II_GPU_COMPILING_CUDA
#  define DEAL_II_GPU_CUSPARSE_CHECK(call)                                     \
    DEAL_II_GPU_LIBRARY_CHECK(                                                 \
        call, CUSPARSE_STATUS_SUCCESS, "cuSPARSE", cusparseGetErrorString)

      // One handle for the process: creating it costs milliseconds.
      cusparseHandle_t cusparse_handle()
      {
        static cusparseHandle_t handle = []
        {
          cusparseHandle_t h;
          DEAL_II_GPU_CUSPARSE_CHECK(cusparseCreate(&h));
          return h;
        }();
        return handle;
      }

      template <typename Number>
      constexpr cudaDataType cuda_type()
      {
        return std::is_same_v<Number, double> ? CUDA_R_64F : CUDA_R_32F;
      }
#endif

      template <typename Number>
      void csr_transpose_product(const unsigned int  n_rows,
                                 const unsigned int *offs,
                                 const unsigned int *cols,
                                 const Number       *vals,
                                 const Number       *x,
                                 Number             *y)
      {
        parallel_for("SparseMatrix::Tvmult",
                     n_rows,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                     {
                       const Number xr = x[r];
                       for (unsigned int k = offs[r]; k < offs[r + 1]; ++k)
                         atomic_add(&y[cols[k]], vals[k] * xr);
                     });
      }

      template void csr_transpose_product(const unsigned int,
                                          const unsigned int *,
                                          const unsigned int *,
                                          const float *,
                                          const float *,
                                          float *);
      template void csr_transpose_product(const unsigned int,
                                          const unsigned int *,
                                          const unsigned int *,
                                          const double *,
                                          const double *,
                                          double *);
    } // namespace internal

    template <typename Number>
    SparseMatrix<Number>::SparseMatrix() = default;

    template <typename Number>
    SparseMatrix<Number>::~SparseMatrix() = default;

    namespace internal
    {
      template <typename Number>
      void csr_product(const unsigned int  n_rows,
                       const unsigned int *offs,
                       const unsigned int *cols,
                       const Number       *vals,
                       const Number       *x,
                       Number             *y,
                       const bool          add)
      {
        parallel_for("SparseMatrix::vmult (CSR)",
                     n_rows,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                     {
                       Number sum = 0;
                       for (unsigned int k = offs[r]; k < offs[r + 1]; ++k)
                         sum += vals[k] * x[cols[k]];
                       y[r] = add ? y[r] + sum : sum;
                     });
      }

      template void csr_product(const unsigned int,
                                const unsigned int *,
                                const unsigned int *,
                                const float *,
                                const float *,
                                float *,
                                const bool);
      template void csr_product(const unsigned int,
                                const unsigned int *,
                                const unsigned int *,
                                const double *,
                                const double *,
                                double *,
                                const bool);
    } // namespace internal

    namespace
    {
      // The kernels of SparseMatrix, outside the class (nvcc: an extended
      // lambda's enclosing function must not be a private member).
      template <typename Number>
      void ellpack_product(const unsigned int  n_rows,
                           const unsigned int *lengths,
                           const unsigned int *cols,
                           const Number       *vals,
                           const Number       *x,
                           Number             *y,
                           const bool          add)
      {
        parallel_for("SparseMatrix::vmult (ELLPACK-R)",
                     n_rows,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                     {
                       Number             sum = 0;
                       const unsigned int len = lengths[r];
                       for (unsigned int k = 0; k < len; ++k)
                       {
                         const std::size_t pos = std::size_t(k) * n_rows + r;
                         sum += vals[pos] * x[cols[pos]];
                       }
                       y[r] = add ? y[r] + sum : sum;
                     });
      }

      unsigned int longest_row(const unsigned int  n_rows,
                               const unsigned int *offs)
      {
        return static_cast<unsigned int>(
            parallel_max("SparseMatrix (ELLPACK-R width)",
                         n_rows,
                         [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                         { return double(offs[r + 1] - offs[r]); }));
      }

      template <typename Number>
      void ellpack_copy(const unsigned int  n_rows,
                        const unsigned int  width,
                        const unsigned int *offs,
                        const unsigned int *src_col,
                        const Number       *src_val,
                        unsigned int       *cols,
                        unsigned int       *lengths,
                        Number             *vals)
      {
        parallel_for("SparseMatrix (ELLPACK-R copy)",
                     n_rows,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                     {
                       const unsigned int begin = offs[r], end = offs[r + 1];
                       lengths[r] = end - begin;
                       for (unsigned int k = 0; k < width; ++k)
                       {
                         const bool        in  = begin + k < end;
                         const std::size_t pos = std::size_t(k) * n_rows + r;
                         cols[pos]             = in ? src_col[begin + k] : 0u;
                         vals[pos] = in ? src_val[begin + k] : Number();
                       }
                     });
      }
    } // namespace

    template <typename Number>
    SparseMatrix<Number> &SparseMatrix<Number>::operator=(const double zero)
    {
      AssertThrow(zero == 0.,
                  ExcMessage("GPU::SparseMatrix: only = 0 is allowed."));
      if (n_entries > 0)
        Memory::set_zero(
            entries.backend(), entries.data(), n_entries * sizeof(Number));
      values_changed();
      return *this;
    }

    template <typename Number>
    SparseMatrix<Number> &SparseMatrix<Number>::operator*=(const Number factor)
    {
      Number *v = entries.data();
      parallel_for("SparseMatrix::operator*=",
                   n_entries,
                   [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
                   { v[k] *= factor; });
      values_changed();
      return *this;
    }

    template <typename Number>
    void SparseMatrix<Number>::values_changed()
    {
      ellpack_valid = false;
    }

    template <typename Number>
    void SparseMatrix<Number>::check_vector(const Vector<Number> &v,
                                            const char           *name) const
    {
      Assert(partitioner, ExcNotInitialized());
      AssertThrow(
          v.get_partitioner() &&
              (v.get_partitioner() == partitioner ||
               v.get_partitioner()->is_compatible(*partitioner)),
          ExcMessage(std::string("GPU::SparseMatrix: the vector ") + name +
                     " does not have the matrix's layout (locally owned rows "
                     "and ghost columns); use initialize_dof_vector()."));
    }

    template <typename Number>
    void SparseMatrix<Number>::build_ellpack() const
    {
      const unsigned int n_rows = local_size();
      ellpack_width             = longest_row(n_rows, rows.data());
      const std::size_t size    = std::size_t(ellpack_width) * n_rows;
      ellpack_columns.resize(size);
      ellpack_values.resize(size);
      ellpack_lengths.resize(n_rows);
      ellpack_copy(n_rows,
                   ellpack_width,
                   rows.data(),
                   columns.data(),
                   entries.data(),
                   ellpack_columns.data(),
                   ellpack_lengths.data(),
                   ellpack_values.data());
      ellpack_valid = true;
    }

    template <typename Number>
    void SparseMatrix<Number>::apply(Vector<Number>       &dst,
                                     const Vector<Number> &src,
                                     const bool            add) const
    {
      check_vector(src, "src");
      check_vector(dst, "dst");
      Assert(&dst != &src, ExcMessage("vmult: dst and src must differ"));
      src.update_ghost_values();
      const unsigned int n_rows = local_size();
      Number            *y      = dst.get_values();
      const Number      *x      = src.get_values();
#ifdef DEAL_II_GPU_COMPILING_CUDA
      if (spmv == SpMV::automatic && Device::backend() == Backend::cuda &&
          n_rows > 0)
      {
        if (!cusparse)
          cusparse = std::make_unique<internal::CusparseData>();
        auto &cs = *cusparse;
        if (cs.matrix == nullptr)
          DEAL_II_GPU_CUSPARSE_CHECK(
              cusparseCreateCsr(&cs.matrix,
                                n_rows,
                                partitioner->locally_owned_size() +
                                    partitioner->n_ghost_indices(),
                                n_entries,
                                const_cast<unsigned int *>(rows.data()),
                                const_cast<unsigned int *>(columns.data()),
                                const_cast<Number *>(entries.data()),
                                CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO,
                                internal::cuda_type<Number>()));
        cusparseDnVecDescr_t x_desc, y_desc;
        DEAL_II_GPU_CUSPARSE_CHECK(cusparseCreateDnVec(
            &x_desc,
            partitioner->locally_owned_size() + partitioner->n_ghost_indices(),
            const_cast<Number *>(x),
            internal::cuda_type<Number>()));
        DEAL_II_GPU_CUSPARSE_CHECK(cusparseCreateDnVec(
            &y_desc, n_rows, y, internal::cuda_type<Number>()));
        const Number alpha = 1, beta = add ? 1 : 0;
        const auto   handle = internal::cusparse_handle();
        if (!cs.analysed)
        {
          std::size_t bytes = 0;
          DEAL_II_GPU_CUSPARSE_CHECK(
              cusparseSpMV_bufferSize(handle,
                                      CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      &alpha,
                                      cs.matrix,
                                      x_desc,
                                      &beta,
                                      y_desc,
                                      internal::cuda_type<Number>(),
                                      CUSPARSE_SPMV_CSR_ALG1,
                                      &bytes));
          cs.buffer.resize(std::max<std::size_t>(bytes, 1));
          cs.analysed = true;
        }
        DEAL_II_GPU_CUSPARSE_CHECK(
            cusparseSpMV(handle,
                         CUSPARSE_OPERATION_NON_TRANSPOSE,
                         &alpha,
                         cs.matrix,
                         x_desc,
                         &beta,
                         y_desc,
                         internal::cuda_type<Number>(),
                         CUSPARSE_SPMV_CSR_ALG1,
                         cs.buffer.data()));
        cusparseDestroyDnVec(x_desc);
        cusparseDestroyDnVec(y_desc);
        return;
      }
#endif
      if (spmv == SpMV::ellpack_r)
      {
        if (!ellpack_valid)
          build_ellpack();
        ellpack_product(n_rows,
                        ellpack_lengths.data(),
                        ellpack_columns.data(),
                        ellpack_values.data(),
                        x,
                        y,
                        add);
        return;
      }
      internal::csr_product(
          n_rows, rows.data(), columns.data(), entries.data(), x, y, add);
    }

    template <typename Number>
    void SparseMatrix<Number>::apply_transpose(Vector<Number>       &dst,
                                               const Vector<Number> &src,
                                               const bool            add) const
    {
      check_vector(src, "src");
      check_vector(dst, "dst");
      Assert(&dst != &src, ExcMessage("Tvmult: dst and src must differ"));
      // Contributions go to owned and ghost columns; the ghosts are then
      // added into their owners.
      Vector<Number> result;
      result.reinit(dst, false);
      internal::csr_transpose_product(local_size(),
                                      rows.data(),
                                      columns.data(),
                                      entries.data(),
                                      src.get_values(),
                                      result.get_values());
      result.compress(VectorOperation::add);
      if (add)
        dst += result;
      else
        dst.swap(result);
    }

    template <typename Number>
    void SparseMatrix<Number>::vmult(Vector<Number>       &dst,
                                     const Vector<Number> &src) const
    {
      apply(dst, src, false);
    }

    template <typename Number>
    void SparseMatrix<Number>::vmult_add(Vector<Number>       &dst,
                                         const Vector<Number> &src) const
    {
      apply(dst, src, true);
    }

    template <typename Number>
    void SparseMatrix<Number>::Tvmult(Vector<Number>       &dst,
                                      const Vector<Number> &src) const
    {
      apply_transpose(dst, src, false);
    }

    template <typename Number>
    void SparseMatrix<Number>::Tvmult_add(Vector<Number>       &dst,
                                          const Vector<Number> &src) const
    {
      apply_transpose(dst, src, true);
    }

    template <typename Number>
    void SparseMatrix<Number>::compute_diagonal(Vector<Number> &diagonal) const
    {
      initialize_dof_vector(diagonal);
      const unsigned int  n_rows = local_size();
      Number             *d      = diagonal.get_values();
      const unsigned int *offs   = rows.data();
      const unsigned int *cols   = columns.data();
      const Number       *vals   = entries.data();
      parallel_for("SparseMatrix::compute_diagonal",
                   n_rows,
                   [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                   {
                     Number value = 0;
                     for (unsigned int k = offs[r]; k < offs[r + 1]; ++k)
                       if (cols[k] == r)
                         value = vals[k];
                     d[r] = value;
                   });
    }

    template <typename Number>
    unsigned int
    SparseMatrix<Number>::local_column(const size_type global_column) const
    {
      return partitioner->global_to_local(global_column);
    }

    template <typename Number>
    Number SparseMatrix<Number>::el(const size_type i, const size_type j) const
    {
      Assert(partitioner, ExcNotInitialized());
      AssertThrow(partitioner->in_local_range(i),
                  ExcMessage("GPU::SparseMatrix::el: row " + std::to_string(i) +
                             " is not locally owned."));
      if (!partitioner->in_local_range(j) && !partitioner->is_ghost_entry(j))
        return Number();
      const unsigned int r = partitioner->global_to_local(i);
      const unsigned int c = partitioner->global_to_local(j);
      unsigned int       range[2];
      Memory::copy_to_host(
          rows.backend(), range, rows.data() + r, sizeof(range));
      std::vector<unsigned int> cols(range[1] - range[0]);
      std::vector<Number>       vals(cols.size());
      Memory::copy_to_host(columns.backend(),
                           cols.data(),
                           columns.data() + range[0],
                           cols.size() * sizeof(unsigned int));
      Memory::copy_to_host(entries.backend(),
                           vals.data(),
                           entries.data() + range[0],
                           vals.size() * sizeof(Number));
      for (std::size_t k = 0; k < cols.size(); ++k)
        if (cols[k] == c)
          return vals[k];
      return Number();
    }

    template <typename Number>
    void
    SparseMatrix<Number>::initialize_dof_vector(Vector<Number> &vector) const
    {
      Assert(partitioner, ExcNotInitialized());
      vector.reinit(partitioner);
    }

    template <typename Number>
    types::global_dof_index SparseMatrix<Number>::m() const
    {
      return partitioner ? partitioner->size() : 0;
    }

    template <typename Number>
    types::global_dof_index SparseMatrix<Number>::n() const
    {
      return m();
    }

    template <typename Number>
    std::size_t SparseMatrix<Number>::n_nonzero_elements() const
    {
      return n_entries;
    }

    template <typename Number>
    unsigned int SparseMatrix<Number>::local_size() const
    {
      return partitioner ? partitioner->locally_owned_size() : 0;
    }

    template <typename Number>
    void SparseMatrix<Number>::set_spmv(const SpMV new_spmv)
    {
      spmv = new_spmv;
      if (spmv != SpMV::ellpack_r)
      {
        ellpack_columns.clear();
        ellpack_lengths.clear();
        ellpack_values.clear();
        ellpack_valid = false;
      }
    }

    template <typename Number>
    typename SparseMatrix<Number>::SpMV SparseMatrix<Number>::get_spmv() const
    {
      return spmv;
    }

    template <typename Number>
    const std::shared_ptr<const Utilities::MPI::Partitioner> &
    SparseMatrix<Number>::get_partitioner() const
    {
      return partitioner;
    }

    template <typename Number>
    std::size_t SparseMatrix<Number>::memory_consumption() const
    {
      std::size_t bytes =
          rows.memory_consumption() + columns.memory_consumption() +
          entries.memory_consumption() + ellpack_columns.memory_consumption() +
          ellpack_lengths.memory_consumption() +
          ellpack_values.memory_consumption();
#ifdef DEAL_II_GPU_COMPILING_CUDA
      if (cusparse)
        bytes += cusparse->buffer.memory_consumption();
#endif
      return bytes;
    }

    template class SparseMatrix<float>;
    template class SparseMatrix<double>;
  } // namespace GPU
} // namespace dealii
