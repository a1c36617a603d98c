// GPU::MGTransferSparseMatrix: the grid transfer of GPU::MGTransferMatrixFree
// applied as sparse matrix-vector products (prolongation P, restriction
// P^T), for the sparse-matrix multigrid.
#ifndef dealii_gpu_multigrid_mg_transfer_sparse_matrix_h
#define dealii_gpu_multigrid_mg_transfer_sparse_matrix_h

#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>

#include <vector>

namespace dealii
{
  namespace GPU
  {
    /**
     * MGTransferMatrixFree with prolongate() and restrict_and_add() as CSR
     * products: every operation of the V-cycle is then a sparse
     * matrix-vector product (Geveler et al.'s design). Interface,
     * semantics, elements and meshes are MGTransferMatrixFree's, and so are
     * copy_to_mg() and copy_from_mg().
     *
     * The matrices are built by build() on the device (each row by one
     * thread) from the same data as the per-cell kernels: the element's
     * embedding into its children (the 1D interpolation of FE_Q(k) at the
     * children's support points, one factor per direction), summed over
     * the coarse cells with the weight 1 / (coarse cells sharing a fine
     * DoF). Rows and columns
     * are the local entries (owned, then ghost) of the transfer's level
     * vectors, so the products need one ghost exchange before and one
     * compress() after, as the per-cell kernels do. The restriction is
     * the transposed product with P (atomic additions) or, on request, a
     * stored transpose (set_restriction()).
     */
    template <int dim, typename Number>
    class MGTransferSparseMatrix : public MGTransferMatrixFree<dim, Number>
    {
    public:
      using VectorType = typename MGTransferMatrixFree<dim, Number>::VectorType;

      using MGTransferMatrixFree<dim, Number>::MGTransferMatrixFree;

      /** How restrict_and_add() applies R = P^T. */
      enum class Restriction
      {
        /** The transposed product with P (one thread a fine row, atomic
         *  additions into the coarse entries): no second matrix. The
         *  default: as fast as the stored transpose on an H100
         *  (benchmarks/sparse_multigrid, --restriction). */
        transposed_product,
        /** A CSR product with P^T stored as its own matrix (one thread a
         *  coarse row, no atomics). */
        stored_transpose
      };

      /** Choose the restriction's kernel; the stored transpose is built
       *  (from P, on the host) or freed here. */
      void set_restriction(const Restriction kind) const;

      /** MGTransferMatrixFree::build(), then the matrices of every level. */
      void build(
          const DoFHandler<dim, dim> &dof_handler,
          const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
              &external_partitioners = {});

      /** Stored entries of the prolongation to @p level (a stored
       *  restriction from it has as many). */
      std::size_t n_nonzero_elements(const unsigned int level) const;

      /** The prolongation to @p level as (fine local entry, coarse local
       *  entry, value), copied to the host (for tests). */
      std::vector<std::tuple<unsigned int, unsigned int, Number>>
      get_prolongation_entries(const unsigned int level) const;

      std::size_t memory_consumption() const;

    protected:
      void prolongate_cells(const unsigned int to_level,
                            const Number      *coarse,
                            Number            *fine) const override;

      void restrict_cells(const unsigned int from_level,
                          const Number      *fine,
                          Number            *coarse) const override;

    private:
      // Local CSR over the entries of one level's transfer vector.
      struct Csr
      {
        unsigned int        n_rows = 0;
        Array<unsigned int> offsets;
        Array<unsigned int> columns;
        Array<Number>       values;
      };
      // Entry l: prolongation to level l and restriction from it.
      // P^T of every level from P (Restriction::stored_transpose).
      void store_restrictions() const;

      std::vector<Csr>         prolongations;
      mutable std::vector<Csr> restrictions;
      mutable Restriction      restriction = Restriction::transposed_product;
    };
  } // namespace GPU
} // namespace dealii

#endif
