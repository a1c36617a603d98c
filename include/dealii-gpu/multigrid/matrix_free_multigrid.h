// GPU::MatrixFreeMultigrid: the geometric multigrid V-cycle for any
// GPU::MatrixFreeOperator, on the GPU or on deal.II's CPU MatrixFree, from
// the same quadrature-point operation. Include from .cu files.
#ifndef dealii_gpu_multigrid_matrix_free_multigrid_h
#define dealii_gpu_multigrid_matrix_free_multigrid_h

#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>
#include <dealii-gpu/multigrid/multigrid_data.h>
#include <dealii-gpu/multigrid/multigrid_hierarchy.h>
#include <dealii-gpu/operators/matrix_free_operator.h>

#include <deal.II/multigrid/mg_transfer_matrix_free.h>

#include <memory>
#include <set>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    /**
     * Geometric multigrid for the operator of MatrixFreeOperator<dim,
     * degree, n_components, Number, Operation, backend, n_q_points_1d>, with
     * zero Dirichlet values on the given boundary ids (every component):
     * the same operation on every level of the triangulation's multigrid
     * hierarchy, Chebyshev or damped Jacobi smoothing around the level
     * diagonals, a Chebyshev or CG-Jacobi coarse solver, local smoothing
     * with interface matrices on adaptive meshes, in deal.II's Multigrid and
     * PreconditionMG (step-37's set-up). On the GPU backend the levels are
     * GPU::MatrixFree and the transfer GPU::MGTransferMatrixFree; on the CPU
     * backend deal.II's MatrixFree and MGTransferMatrixFree. The V-cycle
     * runs in float (default) or double (MultigridData::precision).
     *
     * The operation's coefficients are evaluated on each level from the
     * level's own quadrature points, and its numbers are converted to the
     * level's precision (Constant values; a function of x gets the
     * evaluator's point type). Not available here: p-coarsening and the
     * AMG coarse solver (they need GPU::MultigridPreconditioner's
     * assembled Laplace form).
     *
     * @code
     * using Operation = GPU::LaplaceOperation<Coefficient>;
     * GPU::MatrixFreeOperator<dim, k, 1, double, Operation> system;
     * system.reinit(mapping, dof_handler, constraints, operation);
     * GPU::MatrixFreeMultigrid<dim, k, 1, Operation> multigrid;
     * multigrid.initialize(mapping, dof_handler, {0}, operation);
     * cg.solve(system, u, f, multigrid);
     * @endcode
     */
    template <int dim,
              int degree,
              int n_components,
              typename Operation,
              MatrixFreeBackend backend       = MatrixFreeBackend::gpu,
              int               n_q_points_1d = degree + 1>
    class MatrixFreeMultigrid : public Subscriptor
    {
    public:
      using AdditionalData = MultigridData;

      /** The operator of a level in @p Number. */
      template <typename Number>
      using LevelOperator = MatrixFreeOperator<dim,
                                               degree,
                                               n_components,
                                               Number,
                                               Operation,
                                               backend,
                                               n_q_points_1d>;

      /** The transfer between the levels in @p Number. */
      template <typename Number>
      using Transfer =
          std::conditional_t<backend == MatrixFreeBackend::gpu,
                             GPU::MGTransferMatrixFree<dim, Number>,
                             dealii::MGTransferMatrixFree<dim, Number>>;

      /**
       * Build the levels, transfer, smoothers (eigenvalues estimated here)
       * and coarse solver for @p operation. @p quadrature must be the rule
       * of the system operator.
       */
      void
      initialize(const Mapping<dim>                 &mapping,
                 const DoFHandler<dim>              &dof_handler,
                 const std::set<types::boundary_id> &dirichlet_boundary_ids,
                 const Operation                    &operation,
                 const AdditionalData &additional_data = AdditionalData(),
                 const QuadratureRule  quadrature      = QuadratureRule::gauss)
      {
        internal::check_multigrid_input(dof_handler, additional_data, true);
        AssertThrow(!additional_data.p_coarsening,
                    ExcMessage("MatrixFreeMultigrid has no p-coarsening "
                               "(GPU::MultigridPreconditioner has it for "
                               "the Laplace form)"));
        data = additional_data;
        single.reset();
        double_.reset();
        setup_timer = SetupTimer("GPU::MatrixFreeMultigrid");
        setup_timer.start("MGConstrainedDoFs");
        mg_constrained_dofs.initialize(dof_handler);
        mg_constrained_dofs.make_zero_boundary_constraints(
            dof_handler, dirichlet_boundary_ids);
        setup_timer.stop();
        if (data.precision == AdditionalData::Precision::double_precision)
          initialize_hierarchy(
              double_, mapping, dof_handler, operation, quadrature);
        else
          initialize_hierarchy(
              single, mapping, dof_handler, operation, quadrature);
      }

      /** dst = V-cycle applied to src (vectors of the system operator). */
      template <typename VectorType>
      void vmult(VectorType &dst, const VectorType &src) const
      {
        AssertThrow(single != nullptr || double_ != nullptr,
                    ExcMessage("MatrixFreeMultigrid::vmult before "
                               "initialize()"));
        if (single)
          single->vmult(dst, src);
        else
          double_->vmult(dst, src);
      }

      unsigned int n_levels() const
      {
        return single ? single->n_levels() : double_ ? double_->n_levels() : 0;
      }

      const AdditionalData &get_additional_data() const { return data; }

      /** The level operator of a V-cycle in @p Number (float if
       *  AdditionalData::precision is single_precision, else double). */
      template <typename Number>
      const LevelOperator<Number> &
      get_level_operator(const unsigned int level) const
      {
        return get_hierarchy<Number>().get_level_operator(level);
      }

      template <typename Number>
      const Transfer<Number> &get_transfer() const
      {
        return get_hierarchy<Number>().get_transfer();
      }

      /** Seconds of initialize()'s steps, the levels' steps summed. */
      const SetupTimer &get_setup_timer() const { return setup_timer; }

      /** Bytes of the level operators and the transfer (device memory on
       *  the GPU backend). */
      std::size_t memory_consumption() const
      {
        return single    ? single->memory_consumption()
               : double_ ? double_->memory_consumption()
                         : 0;
      }

    private:
      template <typename Number>
      using Hierarchy = internal::
          MultigridHierarchy<dim, LevelOperator<Number>, Transfer<Number>>;

      template <typename Number>
      void initialize_hierarchy(std::unique_ptr<Hierarchy<Number>> &hierarchy,
                                const Mapping<dim>                 &mapping,
                                const DoFHandler<dim>              &dof_handler,
                                const Operation                    &operation,
                                const QuadratureRule                quadrature)
      {
        // Kept only once complete, so that a failed set-up leaves none.
        auto       new_hierarchy = std::make_unique<Hierarchy<Number>>();
        const auto build_level =
            [&](LevelOperator<Number>           &op,
                const AffineConstraints<double> &level_constraints,
                const unsigned int               level)
        {
          typename LevelOperator<Number>::AdditionalData level_data;
          level_data.quadrature = quadrature;
          level_data.mg_level   = level;
          level_data.geometry   = data.geometry;
          op.reinit(
              mapping, dof_handler, level_constraints, operation, level_data);
        };
        new_hierarchy->initialize(dof_handler,
                                  mg_constrained_dofs,
                                  build_level,
                                  {},
                                  data,
                                  setup_timer);
        hierarchy = std::move(new_hierarchy);
      }

      template <typename Number>
      const Hierarchy<Number> &get_hierarchy() const
      {
        return internal::hierarchy_in_precision<Number>(
            single, double_, "MatrixFreeMultigrid");
      }

      AdditionalData                     data;
      MGConstrainedDoFs                  mg_constrained_dofs;
      std::unique_ptr<Hierarchy<float>>  single;
      std::unique_ptr<Hierarchy<double>> double_;
      SetupTimer                         setup_timer;
    };
  } // namespace GPU
} // namespace dealii

#endif
