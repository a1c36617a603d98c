// GPU::MGCoarseGridAMG: the coarse-level solver of a multigrid V-cycle by
// Trilinos ML AMG on the host, for coarse meshes that are too large for a
// Chebyshev or CG-Jacobi solve.
#ifndef dealii_gpu_multigrid_mg_coarse_amg_h
#define dealii_gpu_multigrid_mg_coarse_amg_h

#include <dealii-gpu/multigrid/mg_coarse_host.h>
#include <dealii-gpu/multigrid/multigrid_data.h>

#include <deal.II/base/function.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <functional>
#include <memory>

namespace dealii
{
  namespace GPU
  {
    /**
     * The matrix of (a(x) grad u, grad v) + (c(x) u, v) on @p level,
     * assembled on the host with FEValues (QGauss(degree + 1)), the level's
     * boundary DoFs of @p mg_constrained_dofs (deal.II's or
     * GPU::MGConstrainedDoFs) as identity rows, like the matrix-free level
     * operators. Scalar FE_Q; rows distributed as the
     * level's locally owned DoFs. An empty @p reaction: no reaction term.
     */
    template <int dim, typename ConstrainedDoFs>
    void assemble_level_matrix(
        const Mapping<dim>                              &mapping,
        const DoFHandler<dim>                           &dof_handler,
        const ConstrainedDoFs                           &mg_constrained_dofs,
        const std::function<double(const Point<dim> &)> &diffusion,
        const std::function<double(const Point<dim> &)> &reaction,
        const unsigned int                               level,
        TrilinosWrappers::SparseMatrix                  &matrix);

    /**
     * Coarse solver for deal.II's Multigrid on GPU::Vector (or, as
     * @p VectorType, deal.II's distributed vector of the CPU backend): the
     * coarse level's matrix, given or assembled here once, solved by CG
     * preconditioned with Trilinos ML AMG to a relative reduction. Each
     * call copies the level vector to the host and back, so it pays off
     * only when the coarse level is not tiny.
     *
     * ML's settings: elliptic, higher-order elements above degree 1, two
     * smoother sweeps, aggregation threshold 0.02, and for a vector-valued
     * element one constant mode a component. MPI through the level's
     * locally owned DoFs.
     */
    template <int dim, typename Number, typename VectorType = Vector<Number>>
    class MGCoarseGridAMG : public MGCoarseGridHost<Number, VectorType>
    {
    public:
      struct AdditionalData
      {
        /** CG with AMG reduces the coarse residual by this factor. */
        double reduction = 1e-3;
        /** Iteration limit; reaching it throws SolverControl's exception. */
        unsigned int max_iterations = 200;
      };

      /**
       * Assemble the Laplace (and reaction) matrix of @p level (usually 0)
       * with assemble_level_matrix() (scalar elements) and build the AMG
       * hierarchy. An empty @p reaction means no reaction term.
       */
      template <typename ConstrainedDoFs>
      void
      initialize(const Mapping<dim>    &mapping,
                 const DoFHandler<dim> &dof_handler,
                 const ConstrainedDoFs &mg_constrained_dofs,
                 const std::function<double(const Point<dim> &)> &diffusion,
                 const std::function<double(const Point<dim> &)> &reaction,
                 const unsigned int                               level = 0,
                 const AdditionalData &additional_data = AdditionalData());

      /**
       * Build the AMG hierarchy of @p matrix, the matrix of @p level of
       * @p dof_handler (rows: the level's locally owned DoFs; as
       * assemble_operation_level_matrix() gives it, for any operation and
       * element); the element's degree and components set ML's options.
       */
      void initialize(const TrilinosWrappers::SparseMatrix &matrix,
                      const DoFHandler<dim>                &dof_handler,
                      const unsigned int                    level = 0,
                      const AdditionalData &additional_data = AdditionalData());

      /** The assembled level matrix. */
      const TrilinosWrappers::SparseMatrix &get_matrix() const
      {
        return matrix;
      }

      /** CG iterations of the last call. */
      unsigned int last_iterations() const { return iterations; }

    protected:
      void solve(TrilinosWrappers::MPI::Vector       &dst,
                 const TrilinosWrappers::MPI::Vector &src) const override;

    private:
      TrilinosWrappers::SparseMatrix    matrix;
      TrilinosWrappers::PreconditionAMG amg;
      AdditionalData                    data;
      mutable unsigned int              iterations = 0;
    };

    namespace internal
    {
      /**
       * The host coarse solver that @p data.coarse_solver names (amg:
       * MGCoarseGridAMG to data.coarse_reduction; direct:
       * MGCoarseGridDirect) for @p matrix, the matrix of @p level of
       * @p dof_handler.
       */
      template <int dim, typename Number, typename VectorType>
      std::unique_ptr<MGCoarseGridBase<VectorType>>
      make_host_coarse_solver(const TrilinosWrappers::SparseMatrix &matrix,
                              const DoFHandler<dim>                &dof_handler,
                              const unsigned int                    level,
                              const MultigridData                  &data);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
