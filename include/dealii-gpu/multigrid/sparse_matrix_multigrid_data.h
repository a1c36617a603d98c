// GPU::SparseMatrixMultigridData: what GPU::SparseMatrixMultigrid builds,
// with its ParameterHandler entries (includable from .cc files).
#ifndef dealii_gpu_multigrid_sparse_matrix_multigrid_data_h
#define dealii_gpu_multigrid_sparse_matrix_multigrid_data_h

#include <dealii-gpu/lac/sparse_matrix.h>
#include <dealii-gpu/multigrid/mg_transfer_sparse_matrix.h>
#include <dealii-gpu/multigrid/multigrid_data.h>

#include <deal.II/base/parameter_handler.h>

namespace dealii
{
  namespace GPU
  {
    /**
     * What GPU::SparseMatrixMultigrid builds: GPU::MultigridData's choices
     * (smoother, degree, coarse solver, precision) and three of its own.
     */
    struct SparseMatrixMultigridData : public MultigridData
    {
      /** What each smoothing step applies to the residual. */
      enum class SmootherPreconditioner
      {
        /** The inverse diagonal (Jacobi). */
        jacobi,
        /** SPAI(0): the diagonal M closest to A^-1 in the sense of
         *  min ||I - M A||_F, m_i = a_ii / sum_j a_ij^2. */
        spai0,
        /** SPAI(1): M with the sparsity of A closest to A^-1 in that
         *  sense, symmetrized (GPU::SparseApproximateInverse; rows of at
         *  most 216 entries: Q1 and Q2, 2D and 3D), on every level but
         *  the coarse one (which keeps the inverse diagonal). Symmetrized
         *  SPAI is not always positive definite on coarse levels, which
         *  the Chebyshev smoother's eigenvalue estimate needs: it goes with
         *  MultigridData::Smoother::jacobi (Richardson steps x += omega M
         *  r), omega 1 unless jacobi_relaxation says otherwise (Broeker and
         *  Grote's choice; 0.8 and 0.6 took more iterations). */
        spai
      };
      SmootherPreconditioner preconditioner = SmootherPreconditioner::jacobi;
      /** The kernel of the level matrices' products. */
      SparseMatrix<double>::SpMV spmv = SparseMatrix<double>::SpMV::automatic;
      /** The kernel of the restriction. */
      MGTransferSparseMatrix<2, double>::Restriction restriction =
          MGTransferSparseMatrix<2, double>::Restriction::transposed_product;

      /** MultigridData's entries and "Smoother preconditioner"
       *  (jacobi|spai0|spai), "SpMV kernel" (automatic|csr|ellpack),
       *  "Restriction" (transposed product|stored transpose) in the
       *  current subsection. */
      static void declare_parameters(ParameterHandler &prm);

      void parse_parameters(const ParameterHandler &prm);
    };
  } // namespace GPU
} // namespace dealii

#endif
