// GPU::SparseApproximateInverse: the sparse approximate inverse of a
// GPU::SparseMatrix with the matrix's own sparsity (SPAI(1)), built on the
// device; the strong smoother of the sparse-matrix multigrid.
#ifndef dealii_gpu_lac_sparse_approximate_inverse_h
#define dealii_gpu_lac_sparse_approximate_inverse_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/lac/sparse_matrix.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/subscriptor.h>

#include <tuple>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    /**
     * M ~ A^-1 with the sparsity of A (Grote and Huckle's least-squares
     * inverse on a fixed pattern; Broeker and Grote use it as a multigrid
     * smoother): row i of M minimizes || e_i^T - m_i^T A ||_2 over the
     * columns of row i. Each row is a small least-squares problem, solved
     * through its normal equations (the Gram matrix of the rows of A in
     * the pattern, Cholesky in double): by one device thread for rows of
     * at most 64 entries, by a thread block with the Gram matrix in
     * shared memory for longer ones (FE_Q(2) in 3D). M is then
     * symmetrized, (M + M^T) / 2, so that it can precondition CG and
     * Chebyshev on a symmetric A.
     *
     * With several MPI ranks, the inverse is the one of the rank's diagonal
     * block (locally owned rows and columns): no communication to build or
     * apply it. Rows passed as identity rows (the refinement-edge DoFs of
     * local smoothing) are treated as rows and columns of the identity.
     *
     * Rows of at most max_row_length entries in the owned block (the Gram
     * matrix of the longest fits an H100's shared memory): FE_Q(1) and
     * FE_Q(2), 2D and 3D, unstructured meshes included; a longer row
     * (FE_Q(3) in 3D has 343) throws.
     */
    template <typename Number>
    class SparseApproximateInverse : public Subscriptor
    {
    public:
      using value_type = Number;
      using size_type  = types::global_dof_index;

      static constexpr unsigned int max_row_length = 216;

      /**
       * Build M from @p matrix (square, its pattern symmetric). @p
       * identity_rows: local row numbers treated as identity rows and
       * columns.
       */
      void reinit(const SparseMatrix<Number>      &matrix,
                  const std::vector<unsigned int> &identity_rows = {});

      /** dst = M src (vectors of the matrix's layout; no ghost exchange). */
      void vmult(Vector<Number> &dst, const Vector<Number> &src) const;

      /** M is symmetric. */
      void Tvmult(Vector<Number> &dst, const Vector<Number> &src) const
      {
        vmult(dst, src);
      }

      size_type m() const;
      size_type n() const { return m(); }

      /** The locally owned rows as (global row, global column, value),
       *  copied to the host (for tests). */
      std::vector<std::tuple<size_type, size_type, Number>> get_entries() const;

      /** Device bytes. */
      std::size_t memory_consumption() const;

    private:
      std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
      unsigned int                                       n_rows = 0;
      Array<unsigned int>                                offsets;
      // Columns of A; the ghost columns point at the row itself (their
      // values are zero), so vmult() reads owned entries only.
      Array<unsigned int> columns;
      Array<Number>       values;
    };
  } // namespace GPU
} // namespace dealii

#endif
