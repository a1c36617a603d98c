// GPU::MGCoarseGridDirect: the coarse level of a multigrid V-cycle on
// GPU::Vector solved exactly by a sparse direct solver on the host, for
// coarse meshes small enough to factorize once.
#ifndef dealii_gpu_multigrid_mg_coarse_direct_h
#define dealii_gpu_multigrid_mg_coarse_direct_h

#include <dealii-gpu/multigrid/mg_coarse_host.h>

#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/trilinos_solver.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

#include <memory>

namespace dealii
{
  namespace GPU
  {
    /**
     * Coarse solver for deal.II's Multigrid on GPU::Vector (or, as
     * @p VectorType, deal.II's distributed vector): the coarse matrix (a
     * Trilinos matrix with the level's boundary DoFs as identity rows, as
     * assemble_level_matrix() or assemble_operation_level_matrix() give
     * it) factorized once by Trilinos' Amesos KLU
     * (TrilinosWrappers::SolverDirect), every call a forward and backward
     * substitution on the host. MPI: Amesos gathers the matrix to one rank.
     */
    template <typename Number, typename VectorType = Vector<Number>>
    class MGCoarseGridDirect : public MGCoarseGridHost<Number, VectorType>
    {
    public:
      /** Factorize @p matrix, the matrix of @p level (usually 0). */
      void initialize(const TrilinosWrappers::SparseMatrix &matrix,
                      const unsigned int                    level = 0);

    protected:
      void solve(TrilinosWrappers::MPI::Vector       &dst,
                 const TrilinosWrappers::MPI::Vector &src) const override;

    private:
      TrilinosWrappers::SparseMatrix matrix;
      SolverControl                  control{1, 0., false, false};
      std::unique_ptr<TrilinosWrappers::SolverDirect> solver;
    };
  } // namespace GPU
} // namespace dealii

#endif
