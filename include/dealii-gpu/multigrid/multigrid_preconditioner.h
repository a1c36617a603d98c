// GPU::MultigridPreconditioner: a geometric multigrid V-cycle on the
// device for (a(x) grad u, grad v) + (c(x) u, v), set up in one call, as a
// preconditioner for deal.II's SolverCG. Include from .cu files.
#ifndef dealii_gpu_multigrid_multigrid_preconditioner_h
#define dealii_gpu_multigrid_multigrid_preconditioner_h

#include <dealii-gpu/multigrid/mg_coarse_amg.h>
#include <dealii-gpu/multigrid/mg_coarse_direct.h>
#include <dealii-gpu/multigrid/mg_constrained_dofs.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>
#include <dealii-gpu/multigrid/multigrid_data.h>
#include <dealii-gpu/multigrid/multigrid_hierarchy.h>
#include <dealii-gpu/multigrid/multigrid_p_level.h>
#include <dealii-gpu/operators/laplace_operator.h>

#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>

#include <functional>
#include <memory>
#include <set>

namespace dealii
{
  namespace GPU
  {
    /**
     * Geometric multigrid for -div(a(x) grad u) + c(x) u with homogeneous
     * Dirichlet values on the given boundary ids, everything on the device:
     * GPU::LaplaceOperator on every level of the triangulation's multigrid
     * hierarchy, GPU::MGTransferMatrixFree between the levels, Chebyshev or
     * damped Jacobi smoothing around the operators' diagonals, and a coarse
     * solver (Chebyshev, CG-Jacobi, or Trilinos AMG or a direct solve on
     * the host), in
     * deal.II's Multigrid and PreconditionMG (the set-up of deal.II's
     * step-37). The V-cycle runs in float (default) or double
     * (MultigridData::precision) inside an outer solver in double.
     *
     * With MultigridData::p_coarsening (degree >= 2) the levels are
     * FE_Q(1): the V-cycle smooths FE_Q(degree) on the active cells, goes
     * to FE_Q(1) on the same cells (GPU::MGTransferP) and continues with
     * the FE_Q(1) hierarchy, so no high-degree level operators are built.
     *
     * Needs a DoFHandler with level DoFs (distribute_mg_dofs()) of
     * FE_Q(degree). On adaptively refined meshes the V-cycle smooths
     * locally, level by level on the cells of that level (deal.II's local
     * smoothing): the refinement-edge DoFs are constrained on each level
     * (GPU::MGLevelOperator) and the interface matrices
     * (GPU::MGInterfaceOperator) carry their coupling into the cycle.
     *
     * @code
     * GPU::MultigridPreconditioner<dim, degree> mg;
     * mg.initialize(mapping, dof_handler, {0}, coefficient);
     * SolverCG<GPU::Vector<double>> cg(control);
     * cg.solve(system_operator, u, f, mg);
     * @endcode
     */
    template <int dim, int degree>
    class MultigridPreconditioner : public Subscriptor
    {
    public:
      using AdditionalData = MultigridData;
      using ScalarFunction = std::function<double(const Point<dim> &)>;

      /** Wall-clock seconds of the set-up steps of the last initialize(). */
      struct SetupTimes
      {
        double level_operators = 0;
        double transfer        = 0;
        double smoothers       = 0;
      };

      /**
       * Build the hierarchy for -div(a grad u) + c u: level operators with
       * the level boundary DoFs of @p dirichlet_boundary_ids constrained,
       * transfer, smoothers (their eigenvalues estimated here), coarse
       * solver. An empty @p reaction means c = 0.
       */
      void
      initialize(const Mapping<dim>                 &mapping,
                 const DoFHandler<dim>              &dof_handler,
                 const std::set<types::boundary_id> &dirichlet_boundary_ids,
                 const ScalarFunction               &diffusion,
                 const ScalarFunction               &reaction,
                 const AdditionalData &additional_data = AdditionalData())
      {
        const bool p_coarsening = additional_data.p_coarsening && degree > 1;
        // p-coarsening builds its own FE_Q(1) level DoFs.
        internal::check_multigrid_input(
            dof_handler, additional_data, !p_coarsening);
        AssertThrow(dynamic_cast<const FE_Q<dim> *>(&dof_handler.get_fe()) !=
                            nullptr &&
                        dof_handler.get_fe().degree == degree,
                    ExcMessage("MultigridPreconditioner<dim, " +
                               std::to_string(degree) + "> needs FE_Q(" +
                               std::to_string(degree) + "), not " +
                               dof_handler.get_fe().get_name()));
        data = p_coarsening ? additional_data
                            : internal::resolve_coarse_solver(dof_handler,
                                                              additional_data);
        single.reset();
        double_.reset();
        p_single.reset();
        p_double.reset();
        linear.reset();
        setup_timer = SetupTimer("GPU::MultigridPreconditioner");
        if constexpr (degree > 1)
          if (p_coarsening)
          {
            initialize_p_coarsening(mapping,
                                    dof_handler,
                                    dirichlet_boundary_ids,
                                    diffusion,
                                    reaction);
            return;
          }
        setup_timer.start("MGConstrainedDoFs");
        mg_constrained_dofs.initialize(dof_handler);
        mg_constrained_dofs.make_zero_boundary_constraints(
            dof_handler, dirichlet_boundary_ids);
        setup_timer.stop();
        if (data.precision == AdditionalData::Precision::double_precision)
          initialize_hierarchy(
              double_, mapping, dof_handler, diffusion, reaction);
        else
          initialize_hierarchy(
              single, mapping, dof_handler, diffusion, reaction);
        times.transfer = setup_timer["transfer"];
        times.smoothers =
            setup_timer["smoothers"] + setup_timer["coarse solver"];
        times.level_operators =
            setup_timer.total() - times.transfer - times.smoothers;
      }

      /**
       * As above, for the system operator @p system (reinit()ed on
       * @p mapping and @p dof_handler with the same @p diffusion and
       * @p reaction, unchanged since): the levels whose cells are all
       * active (the finest level of a uniform mesh) take their geometry and
       * coefficients from it on the device instead of asking the mapping
       * and the functions again. Any other level is built as above.
       */
      void
      initialize(const LaplaceOperator<dim, degree, double> &system,
                 const Mapping<dim>                         &mapping,
                 const DoFHandler<dim>                      &dof_handler,
                 const std::set<types::boundary_id> &dirichlet_boundary_ids,
                 const ScalarFunction               &diffusion,
                 const ScalarFunction               &reaction,
                 const AdditionalData &additional_data = AdditionalData())
      {
        level_source = system.get_level_source();
        try
        {
          initialize(mapping,
                     dof_handler,
                     dirichlet_boundary_ids,
                     diffusion,
                     reaction,
                     additional_data);
        }
        catch (...)
        {
          level_source = {};
          throw;
        }
        level_source = {};
      }

      /** initialize() without a reaction term. */
      void
      initialize(const Mapping<dim>                 &mapping,
                 const DoFHandler<dim>              &dof_handler,
                 const std::set<types::boundary_id> &dirichlet_boundary_ids,
                 const ScalarFunction               &diffusion,
                 const AdditionalData &additional_data = AdditionalData())
      {
        initialize(mapping,
                   dof_handler,
                   dirichlet_boundary_ids,
                   diffusion,
                   ScalarFunction(),
                   additional_data);
      }

      /** dst = V-cycle applied to src (@p Number: double or float). */
      template <typename Number>
      void vmult(Vector<Number> &dst, const Vector<Number> &src) const
      {
        AssertThrow(single != nullptr || double_ != nullptr ||
                        linear != nullptr,
                    ExcMessage("MultigridPreconditioner::vmult before "
                               "initialize()"));
        if (p_single)
          p_single->vmult(dst, src, *linear);
        else if (p_double)
          p_double->vmult(dst, src, *linear);
        else if (single)
          single->vmult(dst, src);
        else
          double_->vmult(dst, src);
      }

      /** Levels of the h-hierarchy (plus one for the FE_Q(degree) level
       *  of p-coarsening). */
      unsigned int n_levels() const
      {
        return linear    ? linear->n_levels() + 1
               : single  ? single->n_levels()
               : double_ ? double_->n_levels()
                         : 0;
      }

      /** The data of initialize(), the automatic coarse solver replaced by
       *  the one taken (GPU::to_string() names it). */
      const AdditionalData &get_additional_data() const { return data; }

      /** The level operator of a V-cycle in @p LevelNumber (float if
       *  AdditionalData::precision is single_precision, else double). With
       *  p-coarsening only the finest level, n_levels() - 1, is
       *  FE_Q(degree); the levels below it are FE_Q(1) and not served. */
      template <typename LevelNumber>
      const LaplaceOperator<dim, degree, LevelNumber> &
      get_level_operator(const unsigned int level) const
      {
        if (linear == nullptr)
          return get_hierarchy<LevelNumber>().get_level_operator(level);
        AssertThrow(level + 1 == n_levels(),
                    ExcMessage("MultigridPreconditioner::get_level_operator(" +
                               std::to_string(level) +
                               "): with p-coarsening only the finest level (" +
                               std::to_string(n_levels() - 1) +
                               ") is FE_Q(degree)"));
        return internal::hierarchy_in_precision<LevelNumber>(
                   p_single, p_double, "MultigridPreconditioner")
            .get_operator();
      }

      template <typename LevelNumber>
      const MGTransferMatrixFree<dim, LevelNumber> &get_transfer() const
      {
        return get_hierarchy<LevelNumber>().get_transfer();
      }

      const SetupTimes &get_setup_times() const { return times; }

      /** Seconds of initialize()'s steps, the levels' GPU::MatrixFree
       *  steps summed over the levels. */
      const SetupTimer &get_setup_timer() const { return setup_timer; }

      /** Device bytes of the level operators and the transfer. */
      std::size_t memory_consumption() const
      {
        if (linear)
          return linear->memory_consumption() +
                 (p_single ? p_single->memory_consumption()
                           : p_double->memory_consumption());
        return single    ? single->memory_consumption()
               : double_ ? double_->memory_consumption()
                         : 0;
      }

    private:
      template <typename LevelNumber>
      using Hierarchy = internal::MultigridHierarchy<
          dim,
          LaplaceOperator<dim, degree, LevelNumber>,
          MGTransferMatrixFree<dim, LevelNumber>>;

      template <typename LevelNumber>
      void
      initialize_hierarchy(std::unique_ptr<Hierarchy<LevelNumber>> &hierarchy,
                           const Mapping<dim>                      &mapping,
                           const DoFHandler<dim>                   &dof_handler,
                           const ScalarFunction                    &diffusion,
                           const ScalarFunction                    &reaction)
      {
        hierarchy = std::make_unique<Hierarchy<LevelNumber>>();
        const auto build_level =
            [&](LaplaceOperator<dim, degree, LevelNumber> &op,
                const AffineConstraints<double>           &level_constraints,
                const unsigned int                         level)
        {
          op.reinit(mapping,
                    dof_handler,
                    level_constraints,
                    diffusion,
                    reaction,
                    level,
                    false,
                    data.geometry,
                    data.geometry == GeometryStorage::automatic,
                    level_source);
        };
        const auto make_host_coarse = [&](const auto &)
            -> std::unique_ptr<MGCoarseGridBase<Vector<LevelNumber>>>
        {
          TrilinosWrappers::SparseMatrix matrix;
          assemble_level_matrix(mapping,
                                dof_handler,
                                mg_constrained_dofs,
                                diffusion,
                                reaction,
                                0,
                                matrix);
          return internal::
              make_host_coarse_solver<dim, LevelNumber, Vector<LevelNumber>>(
                  matrix, dof_handler, 0, data);
        };
        // The level operators are GPU::MatrixFree: constraint lines only.
        hierarchy->initialize(dof_handler,
                              mg_constrained_dofs,
                              build_level,
                              make_host_coarse,
                              data,
                              setup_timer,
                              true);
      }

      template <typename LevelNumber>
      using PLevel = internal::MultigridPLevel<dim, degree, LevelNumber>;

      // FE_Q(1) on the same mesh with its own multigrid, and the
      // FE_Q(degree) level on top.
      void initialize_p_coarsening(
          const Mapping<dim>                 &mapping,
          const DoFHandler<dim>              &dof_handler,
          const std::set<types::boundary_id> &dirichlet_boundary_ids,
          const ScalarFunction               &diffusion,
          const ScalarFunction               &reaction)
      {
        setup_timer.start("FE_Q(1) DoFs");
        linear_dof_handler.reinit(dof_handler.get_triangulation());
        linear_dof_handler.distribute_dofs(linear_fe);
        linear_dof_handler.distribute_mg_dofs();
        auto make_constraints = [&](const DoFHandler<dim>     &dh,
                                    AffineConstraints<double> &constraints)
        {
          IndexSet relevant;
          DoFTools::extract_locally_relevant_dofs(dh, relevant);
          constraints.clear();
          constraints.reinit(relevant);
          DoFTools::make_hanging_node_constraints(dh, constraints);
          for (const types::boundary_id id : dirichlet_boundary_ids)
            DoFTools::make_zero_boundary_constraints(dh, id, constraints);
          constraints.close();
        };
        make_constraints(dof_handler, constraints);
        make_constraints(linear_dof_handler, linear_constraints);
        setup_timer.stop();
        AdditionalData linear_data = data;
        linear_data.p_coarsening   = false;
        linear = std::make_unique<MultigridPreconditioner<dim, 1>>();
        linear->initialize(mapping,
                           linear_dof_handler,
                           dirichlet_boundary_ids,
                           diffusion,
                           reaction,
                           linear_data);
        setup_timer.add(linear->get_setup_timer());
        auto build = [&](auto &p_level)
        {
          p_level = std::make_unique<typename std::remove_reference_t<
              decltype(p_level)>::element_type>();
          p_level->initialize(mapping,
                              dof_handler,
                              constraints,
                              linear_dof_handler,
                              linear_constraints,
                              diffusion,
                              reaction,
                              data,
                              setup_timer);
        };
        if (data.precision == AdditionalData::Precision::double_precision)
          build(p_double);
        else
          build(p_single);
        // What the FE_Q(1) hierarchy took (get_additional_data()).
        data.coarse_solver = linear->get_additional_data().coarse_solver;
        times.transfer = setup_timer["transfer"] + setup_timer["p-transfer"];
        times.smoothers =
            setup_timer["smoothers"] + setup_timer["coarse solver"];
        times.level_operators =
            setup_timer.total() - times.transfer - times.smoothers;
      }

      template <typename LevelNumber>
      const Hierarchy<LevelNumber> &get_hierarchy() const
      {
        return internal::hierarchy_in_precision<LevelNumber>(
            single, double_, "MultigridPreconditioner");
      }

      AdditionalData data;
      // The system operator's data during initialize(system, ...).
      internal::LaplaceLevelSource<dim>  level_source;
      GPU::MGConstrainedDoFs             mg_constrained_dofs;
      std::unique_ptr<Hierarchy<float>>  single;
      std::unique_ptr<Hierarchy<double>> double_;
      // p-coarsening: FE_Q(1) on the same mesh, its multigrid, the top.
      FE_Q<dim>                                        linear_fe{1};
      DoFHandler<dim>                                  linear_dof_handler;
      AffineConstraints<double>                        constraints;
      AffineConstraints<double>                        linear_constraints;
      std::unique_ptr<MultigridPreconditioner<dim, 1>> linear;
      std::unique_ptr<PLevel<float>>                   p_single;
      std::unique_ptr<PLevel<double>>                  p_double;
      SetupTimes                                       times;
      SetupTimer                                       setup_timer;
    };
  } // namespace GPU
} // namespace dealii

#endif
