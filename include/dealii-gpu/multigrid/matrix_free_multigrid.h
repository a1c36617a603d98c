// GPU::MatrixFreeMultigrid: the geometric multigrid V-cycle for any
// GPU::MatrixFreeOperator, on the GPU or on deal.II's CPU MatrixFree, from
// the same quadrature-point operation. Include from .cu files.
#ifndef dealii_gpu_multigrid_matrix_free_multigrid_h
#define dealii_gpu_multigrid_matrix_free_multigrid_h

#include <dealii-gpu/multigrid/mg_coarse_amg.h>
#include <dealii-gpu/multigrid/mg_level_matrix.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>
#include <dealii-gpu/multigrid/multigrid_data.h>
#include <dealii-gpu/multigrid/multigrid_hierarchy.h>
#include <dealii-gpu/operators/matrix_free_operator.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>

#include <memory>
#include <set>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** The level operator and transfer of MatrixFreeMultigrid by number
       *  type. */
      template <int dim,
                int degree,
                int n_components,
                typename Operation,
                MatrixFreeBackend backend,
                int               n_q_points_1d>
      struct MatrixFreeMultigridTypes
      {
        template <typename Number>
        using LevelOperator = MatrixFreeOperator<dim,
                                                 degree,
                                                 n_components,
                                                 Number,
                                                 Operation,
                                                 backend,
                                                 n_q_points_1d>;
        template <typename Number>
        using Transfer =
            std::conditional_t<backend == MatrixFreeBackend::gpu,
                               GPU::MGTransferMatrixFree<dim, Number>,
                               dealii::MGTransferMatrixFree<dim, Number>>;
      };
    } // namespace internal

    /**
     * Geometric multigrid for the operator of MatrixFreeOperator<dim,
     * degree, n_components, Number, Operation, backend, n_q_points_1d>, with
     * zero Dirichlet values on the given boundary ids (every component):
     * the same operation on every level of the triangulation's multigrid
     * hierarchy, Chebyshev or damped Jacobi smoothing around the level
     * diagonals, a Chebyshev or CG-Jacobi coarse solver on the levels'
     * device, or CG with Trilinos ML AMG or a direct solve on the host of
     * the coarse level's matrix (the same operation's element matrices,
     * assembled on the device once: assemble_operation_level_matrix()),
     * local smoothing with interface matrices on adaptive meshes, in
     * deal.II's Multigrid and PreconditionMG (step-37's set-up). On the GPU
     * backend the levels are GPU::MatrixFree and the transfer
     * GPU::MGTransferMatrixFree; on the CPU backend deal.II's MatrixFree
     * and MGTransferMatrixFree. The V-cycle runs in float (default) or
     * double (MultigridData::precision).
     *
     * The operation's coefficients are evaluated on each level from the
     * level's own quadrature points, and its numbers are converted to the
     * level's precision (Constant values; a function of x gets the
     * evaluator's point type). Not available here: p-coarsening (it needs
     * GPU::MultigridPreconditioner's Laplace form).
     *
     * @code
     * using Operation = GPU::LaplaceOperation<Coefficient>;
     * GPU::MatrixFreeOperator<dim, k, 1, double, Operation> system;
     * system.reinit(mapping, dof_handler, constraints, operation);
     * GPU::MatrixFreeMultigrid<dim, k, 1, Operation> multigrid;
     * multigrid.initialize(system, mapping, dof_handler, {0}, operation);
     * cg.solve(system, u, f, multigrid);
     * @endcode
     */

    template <int dim,
              int degree,
              int n_components,
              typename Operation,
              MatrixFreeBackend backend       = MatrixFreeBackend::gpu,
              int               n_q_points_1d = degree + 1>
    class MatrixFreeMultigrid : public internal::MultigridFrontEnd<
                                    dim,
                                    internal::MatrixFreeMultigridTypes<
                                        dim,
                                        degree,
                                        n_components,
                                        Operation,
                                        backend,
                                        n_q_points_1d>::template LevelOperator,
                                    internal::MatrixFreeMultigridTypes<
                                        dim,
                                        degree,
                                        n_components,
                                        Operation,
                                        backend,
                                        n_q_points_1d>::template Transfer>
    {
      using Types = internal::MatrixFreeMultigridTypes<dim,
                                                       degree,
                                                       n_components,
                                                       Operation,
                                                       backend,
                                                       n_q_points_1d>;

    public:
      using AdditionalData = MultigridData;

      /** The operator of a level in @p Number. */
      template <typename Number>
      using LevelOperator = typename Types::template LevelOperator<Number>;

      /** The transfer between the levels in @p Number (GPU or deal.II's
       *  MGTransferMatrixFree). */
      template <typename Number>
      using Transfer = typename Types::template Transfer<Number>;

      MatrixFreeMultigrid()
          : internal::MultigridFrontEnd<dim,
                                        Types::template LevelOperator,
                                        Types::template Transfer>(
                "MatrixFreeMultigrid")
      {
      }

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
        initialize_levels(mapping,
                          dof_handler,
                          dirichlet_boundary_ids,
                          operation,
                          additional_data,
                          quadrature,
                          {});
      }

      /**
       * As above, for the system operator @p system (a MatrixFreeOperator
       * reinit()ed on @p mapping and @p dof_handler, unchanged since): the
       * levels whose cells are all active (the finest level) take their
       * mapping field from the system's on the device instead of asking the
       * mapping again (GPU backend, GeometryStorage::field: 0.3 instead
       * of 1.3-1.5 s at Q2 with 1.2e8 DoFs on an H200). Any other level, form
       * or backend is built as above.
       */
      template <typename SystemOperator>
      void
      initialize(const SystemOperator               &system,
                 const Mapping<dim>                 &mapping,
                 const DoFHandler<dim>              &dof_handler,
                 const std::set<types::boundary_id> &dirichlet_boundary_ids,
                 const Operation                    &operation,
                 const AdditionalData &additional_data = AdditionalData(),
                 const QuadratureRule  quadrature      = QuadratureRule::gauss)
      {
        internal::GeometryFieldSource<dim> source;
        if constexpr (backend == MatrixFreeBackend::gpu)
          source = system.get_matrix_free().get_geometry_field_source();
        initialize_levels(mapping,
                          dof_handler,
                          dirichlet_boundary_ids,
                          operation,
                          additional_data,
                          quadrature,
                          source);
      }

      /** The data of initialize(), the automatic coarse solver replaced by
       *  the one taken (GPU::to_string() names it). */
      const AdditionalData &get_additional_data() const { return data; }

    private:
      void initialize_levels(
          const Mapping<dim>                       &mapping,
          const DoFHandler<dim>                    &dof_handler,
          const std::set<types::boundary_id>       &dirichlet_boundary_ids,
          const Operation                          &operation,
          const AdditionalData                     &additional_data,
          const QuadratureRule                      quadrature,
          const internal::GeometryFieldSource<dim> &source)
      {
        internal::check_multigrid_input(dof_handler, additional_data, true);
        AssertThrow(!additional_data.p_coarsening,
                    ExcMessage("MatrixFreeMultigrid has no p-coarsening "
                               "(GPU::MultigridPreconditioner has it for "
                               "the Laplace form)"));
        data = internal::resolve_coarse_solver(dof_handler, additional_data);
        const Quadrature<dim> rule =
            quadrature == QuadratureRule::gauss
                ? Quadrature<dim>(QGauss<dim>(n_q_points_1d))
                : Quadrature<dim>(QGaussLobatto<dim>(n_q_points_1d));
        // Level 0's constraints, for the amg and direct coarse matrix.
        AffineConstraints<double> coarse_constraints;
        this->initialize_hierarchy(
            dof_handler,
            dirichlet_boundary_ids,
            data,
            [&](auto                            &op,
                const AffineConstraints<double> &level_constraints,
                const unsigned int               level)
            {
              typename std::decay_t<decltype(op)>::AdditionalData level_data;
              level_data.quadrature      = quadrature;
              level_data.mg_level        = level;
              level_data.geometry        = data.geometry;
              level_data.geometry_source = source;
              op.reinit(mapping,
                        dof_handler,
                        level_constraints,
                        operation,
                        level_data);
              if (level == 0)
                coarse_constraints.copy_from(level_constraints);
            },
            [&](const auto &coarse_operator)
            {
              using VectorType =
                  typename std::decay_t<decltype(coarse_operator)>::VectorType;
              // GPU::ElementIntegrator is compiled for one and dim
              // components.
              AssertThrow(n_components == 1 || n_components == dim,
                          ExcMessage("MatrixFreeMultigrid: the amg and direct "
                                     "coarse solvers need 1 or dim "
                                     "components"));
              TrilinosWrappers::SparseMatrix matrix;
              if constexpr (n_components == 1 || n_components == dim)
                assemble_operation_level_matrix<dim, n_components>(
                    mapping,
                    dof_handler,
                    coarse_constraints,
                    operation,
                    rule,
                    0,
                    matrix);
              return internal::make_host_coarse_solver<
                  dim,
                  typename VectorType::value_type,
                  VectorType>(matrix, dof_handler, 0, data);
            },
            // GPU::MatrixFree reads only the constraint lines; deal.II's
            // MatrixFree asks about every DoF its cells touch.
            backend == MatrixFreeBackend::gpu);
      }

      AdditionalData data;
    };
  } // namespace GPU
} // namespace dealii

#endif
