// A distributed sparse matrix in the memory of the active backend.
#ifndef dealii_gpu_lac_sparse_matrix_h
#define dealii_gpu_lac_sparse_matrix_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/index_set.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/base/subscriptor.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** cuSPARSE's handle, descriptors and work buffer of one matrix. */
      struct CusparseData;

      /** y (+)= A x for a CSR matrix in local indices (offsets: n_rows +
       *  1 positions), one thread a row, on the active backend. */
      template <typename Number>
      void csr_product(const unsigned int  n_rows,
                       const unsigned int *offsets,
                       const unsigned int *columns,
                       const Number       *values,
                       const Number       *x,
                       Number             *y,
                       const bool          add);

      /** y += A^T x for such a matrix (atomic additions into y). */
      template <typename Number>
      void csr_transpose_product(const unsigned int  n_rows,
                                 const unsigned int *offsets,
                                 const unsigned int *columns,
                                 const Number       *values,
                                 const Number       *x,
                                 Number             *y);
    } // namespace internal

    /**
     * A square sparse matrix distributed over MPI ranks by rows, each rank
     * holding its locally owned rows, in device memory under the CUDA
     * backend and in host memory under the host backend.
     *
     * The rows are numbered like the entries of a GPU::Vector: a
     * Utilities::MPI::Partitioner whose locally owned range is the rank's
     * rows and whose ghost indices are the columns of those rows that other
     * ranks own. Columns are stored as indices into that vector layout
     * (owned entries first, then ghosts), so vmult() reads the source
     * vector's ghost entries directly after one ghost exchange. Vectors for
     * vmult() and Tvmult() come from initialize_dof_vector().
     *
     * Storage is CSR (32-bit row offsets and columns: at most 2^31 - 1
     * entries on one rank, a clear exception beyond). vmult() on CUDA goes
     * through cuSPARSE by default; SpMV::csr runs this library's own CSR
     * kernel (one thread a row; the host backend always runs it) and
     * SpMV::ellpack_r an ELLPACK-R copy of the matrix (Vazquez et al.:
     * column-major rows padded to the longest, with each row's length),
     * built on first use.
     *
     * Usable with deal.II's SolverCG, SolverGMRES, PreconditionChebyshev,
     * DiagonalMatrix and as a multigrid level matrix (vmult, Tvmult,
     * vmult_add, Tvmult_add, m, n, el).
     */
    template <typename Number>
    class SparseMatrix : public Subscriptor
    {
    public:
      using value_type = Number;
      using size_type  = types::global_dof_index;

      /** Which kernel vmult() runs. */
      enum class SpMV
      {
        /** cuSPARSE's CSR SpMV on CUDA, the CSR kernel on the host. */
        automatic,
        /** This library's CSR kernel, one thread a row. */
        csr,
        /** This library's ELLPACK-R kernel, one thread a row. */
        ellpack_r
      };

      SparseMatrix();
      ~SparseMatrix() override;

      SparseMatrix(const SparseMatrix &)            = delete;
      SparseMatrix &operator=(const SparseMatrix &) = delete;

      /**
       * Set up the structure: the rank's rows are @p owned_rows (a
       * contiguous range, as deal.II's DoF partitions are), their columns
       * the entries of @p pattern in those rows (global indices; rows of
       * @p pattern outside @p owned_rows are ignored). The diagonal is
       * always stored. Values are zero.
       */
      void reinit(const IndexSet               &owned_rows,
                  const DynamicSparsityPattern &pattern,
                  const MPI_Comm                communicator);

      /**
       * The same from arrays: the global columns of the rank's rows in
       * CSR (@p offsets: rows + 1 positions into @p columns), any order
       * within a row. Built on the set-up threads.
       */
      void reinit(const IndexSet                 &owned_rows,
                  const std::vector<std::size_t> &offsets,
                  const std::vector<size_type>   &columns,
                  const MPI_Comm                  communicator);

      /**
       * The same from CSR arrays already in the backend's memory (built
       * there, as ElementIntegrator does), taken over: @p offsets (owned
       * rows + 1) and @p columns, local indices of @p partitioner, sorted
       * in each row, every row holding its diagonal.
       */
      void reinit(
          const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner,
          Array<unsigned int>                                     &&offsets,
          Array<unsigned int>                                     &&columns);

      /** Structure and values of a serial deal.II matrix (one rank). */
      template <typename Number2>
      void copy_from(const dealii::SparseMatrix<Number2> &matrix);

      /** Structure and values of the locally owned rows of a Trilinos
       *  matrix (rows distributed as the matrix's row map). */
      void copy_from(const TrilinosWrappers::SparseMatrix &matrix);

      /** A Trilinos matrix with this matrix's structure and values (for
       *  Trilinos' AMG, direct solvers, output). */
      void copy_to(TrilinosWrappers::SparseMatrix &matrix) const;

      /** Set every stored value to zero (before assembly). */
      SparseMatrix &operator=(const double zero);

      /** Scale every stored value. */
      SparseMatrix &operator*=(const Number factor);

      /** dst = A src. */
      void vmult(Vector<Number> &dst, const Vector<Number> &src) const;
      /** dst += A src. */
      void vmult_add(Vector<Number> &dst, const Vector<Number> &src) const;
      /** dst = A^T src. */
      void Tvmult(Vector<Number> &dst, const Vector<Number> &src) const;
      /** dst += A^T src. */
      void Tvmult_add(Vector<Number> &dst, const Vector<Number> &src) const;

      /** The diagonal, in a vector of this matrix's layout. */
      void compute_diagonal(Vector<Number> &diagonal) const;

      /** The entry (i, j) of a locally owned row i, 0 where none is
       *  stored; copies from the device (slow: for tests). */
      Number el(const size_type i, const size_type j) const;

      /** Every stored entry of the locally owned rows as (global row,
       *  global column, value), copied to the host (for tests, output). */
      std::vector<std::tuple<size_type, size_type, Number>> get_entries() const;

      /** A vector with this matrix's layout (owned rows, ghost columns). */
      void initialize_dof_vector(Vector<Number> &vector) const;

      size_type m() const;
      size_type n() const;
      /** Entries stored on this rank. */
      std::size_t n_nonzero_elements() const;
      /** Locally owned rows. */
      unsigned int local_size() const;

      /** The kernel of vmult(); the ELLPACK-R copy is built on first use
       *  and dropped when another is chosen. */
      void set_spmv(const SpMV spmv);
      SpMV get_spmv() const;

      const std::shared_ptr<const Utilities::MPI::Partitioner> &
      get_partitioner() const;

      /** Device bytes (CSR, ELLPACK-R, cuSPARSE buffer). */
      std::size_t memory_consumption() const;

      /**
       * The CSR arrays for kernels that fill the matrix (assembly): row
       * offsets (local rows + 1), local column indices (sorted in each
       * row; owned columns are the local row numbers, ghosts follow) and
       * values.
       */
      const unsigned int *row_offsets() const { return rows.data(); }
      const unsigned int *column_indices() const { return columns.data(); }
      Number             *values() { return entries.data(); }
      const Number       *values() const { return entries.data(); }

      /** Local column index of a global one (owned or ghost column). */
      unsigned int local_column(const size_type global_column) const;

      /** Call after writing values() directly: refreshes derived copies
       *  (ELLPACK-R). */
      void values_changed();

    private:
      void check_vector(const Vector<Number> &v, const char *name) const;
      // The CSR arrays to the backend (a new structure).
      void upload(const std::vector<unsigned int> &offsets,
                  const std::vector<unsigned int> &local_columns,
                  const std::vector<Number>       &values);
      void build_ellpack() const;
      void apply(Vector<Number>       &dst,
                 const Vector<Number> &src,
                 const bool            add) const;
      void apply_transpose(Vector<Number>       &dst,
                           const Vector<Number> &src,
                           const bool            add) const;

      std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
      Array<unsigned int>                                rows;
      Array<unsigned int>                                columns;
      Array<Number>                                      entries;
      std::size_t                                        n_entries = 0;

      SpMV                        spmv          = SpMV::automatic;
      mutable bool                ellpack_valid = false;
      mutable unsigned int        ellpack_width = 0;
      mutable Array<unsigned int> ellpack_columns;
      mutable Array<unsigned int> ellpack_lengths;
      mutable Array<Number>       ellpack_values;

      mutable std::unique_ptr<internal::CusparseData> cusparse;
    };
  } // namespace GPU
} // namespace dealii

#endif
