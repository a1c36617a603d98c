// The matrix-based baseline of operator_throughput: the operator assembled
// into a CSR matrix on the device (cell matrices from the same cell
// operation, one unit vector at a time, added with atomics) and applied with
// cuSPARSE SpMV. One MPI rank (local and global DoF numbers agree).
#ifndef dealii_gpu_benchmarks_sparse_matrix_baseline_h
#define dealii_gpu_benchmarks_sparse_matrix_baseline_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/operators/laplace_cell.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>

#include <algorithm>
#include <limits>
#include <vector>

#ifdef DEAL_II_GPU_COMPILING_CUDA
#  include <cusparse.h>

#  define BENCHMARK_CUSPARSE_CHECK(call)                                       \
    do                                                                         \
    {                                                                          \
      const cusparseStatus_t status_ = (call);                                 \
      AssertThrow(status_ == CUSPARSE_STATUS_SUCCESS,                          \
                  dealii::ExcMessage(std::string(#call) + " failed at " +      \
                                     __FILE__ + ":" +                          \
                                     std::to_string(__LINE__) + ": " +         \
                                     cusparseGetErrorString(status_)));        \
    } while (false)
#endif

namespace benchmark
{
  using namespace dealii;

  // Adds every cell matrix of (A grad u, grad v) + (c u, v) into the CSR
  // values: column i of the cell matrix is the cell operation on the unit
  // vector e_i; rows and columns of skipped (constrained) DoFs are left out.
  template <int dim, int degree, typename Number>
  struct AssembleLaplaceCell
  {
    static constexpr unsigned int fe_degree     = degree;
    static constexpr unsigned int n_q_points_1d = degree + 1;
    static constexpr unsigned int n_components  = 1;

    GPU::LaplaceCoefficients<Number> coefficients;
    const int                       *row_starts;
    const int                       *columns;
    Number                          *values;

    DEAL_II_GPU_HOST_DEVICE void
    operator()(const GPU::TeamMember                  &team,
               const unsigned int                      cell,
               const GPU::MatrixFreeData<dim, Number> &data,
               const Number *,
               Number *) const
    {
      using FEEval = GPU::FEEvaluation<dim, degree, degree + 1, 1, Number>;
      FEEval     phi(team, cell, data);
      const bool reaction                      = coefficients.has_reaction();
      const GPU::LaplaceCoefficients<Number> k = coefficients;
      const int                             *starts = row_starts;
      const int                             *cols   = columns;
      Number                                *vals   = values;
      for (unsigned int i = 0; i < FEEval::dofs_per_cell; ++i)
      {
        phi.set_unit_dof_values(i);
        phi.evaluate(reaction, true);
        phi.apply_for_each_quad_point(
            [&](auto &p, const unsigned int q)
            { GPU::laplace_quadrature_operation(k, p, q); });
        phi.integrate(reaction, true);
        const unsigned int column = phi.dof_index(i);
        phi.for_each_local_result(
            [&](unsigned int, const unsigned int row, const Number value)
            {
              if (row == GPU::constrained_dof || column == GPU::constrained_dof)
                return;
              // Columns of a row are sorted.
              int low = starts[row], high = starts[row + 1] - 1;
              while (low < high)
              {
                const int middle = (low + high) / 2;
                if (cols[middle] < int(column))
                  low = middle + 1;
                else
                  high = middle;
              }
              GPU::atomic_add(vals + low, value);
            });
      }
    }
  };

  // CSR matrix on the device with cuSPARSE SpMV.
  template <typename Number>
  class SparseMatrixBaseline
  {
  public:
    // Sparsity from deal.II (host), values assembled on the device.
    template <int dim, int degree>
    void reinit(const DoFHandler<dim>                  &dof_handler,
                const AffineConstraints<double>        &constraints,
                const GPU::MatrixFree<dim, Number>     &matrix_free,
                const GPU::LaplaceCoefficients<Number> &coefficients)
    {
      n = dof_handler.n_dofs();
      DynamicSparsityPattern dsp(n);
      DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
      std::size_t total = 0;
      for (types::global_dof_index row = 0; row < n; ++row)
        total += dsp.row_length(row);
      AssertThrow(total < std::size_t(std::numeric_limits<int>::max()),
                  ExcMessage("more than 2^31 matrix entries (" +
                             std::to_string(total) +
                             ") for 32-bit CSR indices"));
      nnz = total;
      std::vector<int>    starts(n + 1);
      std::vector<int>    cols;
      std::vector<Number> vals(nnz, Number());
      cols.reserve(nnz);
      for (types::global_dof_index row = 0; row < n; ++row)
      {
        starts[row] = cols.size();
        for (auto it = dsp.begin(row); it != dsp.end(row); ++it)
        {
          // Constrained rows hold their diagonal only: identity, as the
          // matrix-free operator does.
          if (constraints.is_constrained(row) && it->column() == row)
            vals[cols.size()] = Number(1);
          cols.push_back(it->column());
        }
      }
      starts[n] = cols.size();
      dsp.reinit(0, 0);
      row_starts.copy_from(starts);
      columns.copy_from(cols);
      values.copy_from(vals);
      AssembleLaplaceCell<dim, degree, Number> assemble{
          coefficients, row_starts.data(), columns.data(), values.data()};
      GPU::Vector<Number> unused_src, unused_dst;
      matrix_free.initialize_dof_vector(unused_src);
      matrix_free.initialize_dof_vector(unused_dst);
      matrix_free.cell_loop(assemble, unused_src, unused_dst);
      setup_spmv();
    }

    std::size_t n_nonzero_elements() const { return nnz; }

    // Device bytes of the matrix and the SpMV work buffer.
    std::size_t memory_consumption() const
    {
      return row_starts.memory_consumption() + columns.memory_consumption() +
             values.memory_consumption() + buffer.memory_consumption();
    }

    // dst = A src.
    void vmult(GPU::Vector<Number> &dst, const GPU::Vector<Number> &src) const
    {
#ifdef DEAL_II_GPU_COMPILING_CUDA
      BENCHMARK_CUSPARSE_CHECK(
          cusparseDnVecSetValues(x, const_cast<Number *>(src.get_values())));
      BENCHMARK_CUSPARSE_CHECK(cusparseDnVecSetValues(y, dst.get_values()));
      const Number one = 1, zero = 0;
      BENCHMARK_CUSPARSE_CHECK(cusparseSpMV(handle,
                                            CUSPARSE_OPERATION_NON_TRANSPOSE,
                                            &one,
                                            matrix,
                                            x,
                                            &zero,
                                            y,
                                            value_type(),
                                            CUSPARSE_SPMV_ALG_DEFAULT,
                                            buffer.data()));
#else
      (void)dst;
      (void)src;
#endif
    }

    ~SparseMatrixBaseline()
    {
#ifdef DEAL_II_GPU_COMPILING_CUDA
      if (x != nullptr)
        cusparseDestroyDnVec(x);
      if (y != nullptr)
        cusparseDestroyDnVec(y);
      if (matrix != nullptr)
        cusparseDestroySpMat(matrix);
      if (handle != nullptr)
        cusparseDestroy(handle);
#endif
    }

  private:
    void setup_spmv()
    {
#ifdef DEAL_II_GPU_COMPILING_CUDA
      BENCHMARK_CUSPARSE_CHECK(cusparseCreate(&handle));
      BENCHMARK_CUSPARSE_CHECK(cusparseCreateCsr(&matrix,
                                                 n,
                                                 n,
                                                 nnz,
                                                 row_starts.data(),
                                                 columns.data(),
                                                 values.data(),
                                                 CUSPARSE_INDEX_32I,
                                                 CUSPARSE_INDEX_32I,
                                                 CUSPARSE_INDEX_BASE_ZERO,
                                                 value_type()));
      work_x.reinit(n);
      work_y.reinit(n);
      BENCHMARK_CUSPARSE_CHECK(
          cusparseCreateDnVec(&x, n, work_x.get_values(), value_type()));
      BENCHMARK_CUSPARSE_CHECK(
          cusparseCreateDnVec(&y, n, work_y.get_values(), value_type()));
      const Number one = 1, zero = 0;
      std::size_t  bytes = 0;
      BENCHMARK_CUSPARSE_CHECK(
          cusparseSpMV_bufferSize(handle,
                                  CUSPARSE_OPERATION_NON_TRANSPOSE,
                                  &one,
                                  matrix,
                                  x,
                                  &zero,
                                  y,
                                  value_type(),
                                  CUSPARSE_SPMV_ALG_DEFAULT,
                                  &bytes));
      buffer.resize(std::max<std::size_t>(bytes, 1));
#else
      AssertThrow(false,
                  ExcMessage("the cuSPARSE baseline needs the CUDA backend"));
#endif
    }

#ifdef DEAL_II_GPU_COMPILING_CUDA
    static cudaDataType value_type()
    {
      return sizeof(Number) == 8 ? CUDA_R_64F : CUDA_R_32F;
    }

    cusparseHandle_t     handle = nullptr;
    cusparseSpMatDescr_t matrix = nullptr;
    cusparseDnVecDescr_t x = nullptr, y = nullptr;
#endif
    std::size_t                       n = 0, nnz = 0;
    GPU::Array<int>                   row_starts, columns;
    GPU::Array<Number>                values;
    mutable GPU::Array<unsigned char> buffer;
    GPU::Vector<Number>               work_x, work_y;
  };
} // namespace benchmark

#endif
