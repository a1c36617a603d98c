// GPU::MGTransferP: prolongation and restriction between FE_Q(k) and a
// lower degree FE_Q(k_c) on the same active mesh (p-multigrid), on the
// device, with hanging-node and Dirichlet constraints on both sides.
#ifndef dealii_gpu_multigrid_mg_transfer_p_h
#define dealii_gpu_multigrid_mg_transfer_p_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/partitioner.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>

#include <memory>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <typename Number>
      struct TransferCells;
    } // namespace internal

    /**
     * Transfer between the conforming spaces of FE_Q(k) (fine) and FE_Q(k_c)
     * with k_c < k (coarse) on the same active cells: prolongate() is the
     * embedding (the coarse function interpolated at the fine support
     * points, exact since the coarse space is contained in the fine one),
     * restrict_and_add() its transpose. Per cell a sum-factorized
     * (k + 1) x (k_c + 1) interpolation in each direction, as in
     * MGTransferMatrixFree's h-transfer (same kernels).
     *
     * The constraints of both sides (hanging nodes and homogeneous
     * Dirichlet values, as the operators of each side use them, built on
     * the locally relevant DoFs): constrained fine DoFs are left zero by
     * prolongate() and ignored by restrict_and_add(); the coarse function is
     * completed through its hanging-node constraints before it is
     * interpolated (and the transpose applied after restriction).
     *
     * Vectors: any layout with the DoFHandlers' locally owned DoFs.
     */
    template <int dim, typename Number>
    class MGTransferP : public Subscriptor
    {
    public:
      using VectorType = Vector<Number>;

      /** Build the index lists, weights and constraint lists (host, once). */
      void build(const DoFHandler<dim>           &fine_dof_handler,
                 const AffineConstraints<double> &fine_constraints,
                 const DoFHandler<dim>           &coarse_dof_handler,
                 const AffineConstraints<double> &coarse_constraints);

      /** dst = P src (fine <- coarse). */
      void prolongate(VectorType &dst, const VectorType &src) const;

      /** dst += P^T src (coarse <- fine). */
      void restrict_and_add(VectorType &dst, const VectorType &src) const;

      /** Partitioners without ghosts, for vectors of each side. */
      const std::shared_ptr<const Utilities::MPI::Partitioner> &
      get_fine_partitioner() const
      {
        return fine_owned;
      }

      const std::shared_ptr<const Utilities::MPI::Partitioner> &
      get_coarse_partitioner() const
      {
        return coarse_owned;
      }

      /** Device bytes of the index lists, weights and vectors. */
      std::size_t memory_consumption() const;

    private:
      // The view of the index lists the transfer kernels get.
      internal::TransferCells<Number> cells() const;

      unsigned int n_cells         = 0;
      unsigned int fine_degree     = 0;
      unsigned int coarse_degree   = 0;
      bool         has_constraints = false;
      // Per cell: lexicographic local indices into the coarse and fine
      // transfer vectors (constrained_dof_flag on Dirichlet / constrained
      // DoFs).
      Array<unsigned int> coarse_indices;
      Array<unsigned int> fine_indices;
      // Per local entry of the fine transfer vector: 1 / (cells sharing it).
      Array<Number> weights;
      // (k + 1) x (k_c + 1): the coarse 1D basis at the fine points.
      Array<Number> interpolation_1d;
      // The coarse hanging-node constraints: line i constrains entry
      // constrained[i] = sum of weights * entries in [offsets[i],
      // offsets[i + 1]).
      Array<unsigned int>                                constrained;
      Array<unsigned int>                                offsets;
      Array<unsigned int>                                columns;
      Array<Number>                                      constraint_weights;
      std::shared_ptr<const Utilities::MPI::Partitioner> fine_partitioner;
      std::shared_ptr<const Utilities::MPI::Partitioner> coarse_partitioner;
      std::shared_ptr<const Utilities::MPI::Partitioner> fine_owned;
      std::shared_ptr<const Utilities::MPI::Partitioner> coarse_owned;
      mutable VectorType                                 fine_vector;
      mutable VectorType                                 coarse_vector;
    };
  } // namespace GPU
} // namespace dealii

#endif
