// GPU::MGCoarseGridDirect: the coarse level of a multigrid V-cycle on
// GPU::Vector solved exactly by a sparse direct solver on the host, for
// coarse meshes small enough to factorize once.
#ifndef dealii_gpu_multigrid_mg_coarse_direct_h
#define dealii_gpu_multigrid_mg_coarse_direct_h

#include <dealii-gpu/multigrid/mg_coarse_host.h>

#include <deal.II/lac/solver_control.h>
#include <deal.II/lac/trilinos_solver.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

#include <functional>
#include <memory>

namespace dealii
{
  namespace GPU
  {
    /**
     * Coarse solver for deal.II's Multigrid on GPU::Vector: the coarse
     * matrix (a Trilinos matrix with the level's boundary DoFs as identity
     * rows, as GPU::SparseMatrix::copy_to() or assemble_level_matrix()
     * give it) factorized once by Trilinos' Amesos KLU
     * (TrilinosWrappers::SolverDirect), every call a forward and backward
     * substitution on the host. MPI: Amesos gathers the matrix to one rank.
     */
    /**
     * The matrix of a linear operator on GPU::Vector<Number> (the layout of
     * @p layout), by one @p vmult a column: the operator applied to each
     * unit vector, the column's nonzero entries kept. For coarse levels of
     * operators with no assembled form (GPU::MatrixFreeMultigrid); more
     * than @p max_size rows are refused. Rows distributed as the layout's
     * locally owned entries; every rank must call it.
     */
    template <typename Number>
    void probe_matrix(const Vector<Number>                              &layout,
                      const std::function<void(Vector<Number> &,
                                               const Vector<Number> &)> &vmult,
                      TrilinosWrappers::SparseMatrix                    &matrix,
                      const types::global_dof_index max_size = 20000);

    template <typename Number>
    class MGCoarseGridDirect : public MGCoarseGridHost<Number>
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
