// GPU::internal::MultigridHierarchy: the levels, transfer, smoothers and
// coarse solver of a V-cycle in one number type, for any level operator
// (GPU::LaplaceOperator in GPU::MultigridPreconditioner,
// GPU::MatrixFreeOperator on either backend in GPU::MatrixFreeMultigrid).
// Include from .cu files.
#ifndef dealii_gpu_multigrid_multigrid_hierarchy_h
#define dealii_gpu_multigrid_multigrid_hierarchy_h

#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/dofs/level_dof_index_cache.h>
#include <dealii-gpu/dofs/locally_relevant_dofs.h>
#include <dealii-gpu/multigrid/mg_constrained_dofs.h>
#include <dealii-gpu/multigrid/mg_level_operators.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>
#include <dealii-gpu/multigrid/multigrid_data.h>

#include <deal.II/base/subscriptor.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>
#include <deal.II/multigrid/multigrid.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The checks of a multigrid set-up: a parallel triangulation with
       * its multigrid hierarchy (first: without it deal.II cannot
       * distribute level DoFs), level DoFs (if @p needs_level_dofs), the
       * settings of @p data in range.
       */
      template <int dim>
      void check_multigrid_input(const DoFHandler<dim> &dof_handler,
                                 const MultigridData   &data,
                                 const bool             needs_level_dofs)
      {
        const auto *parallel_tria =
            dynamic_cast<const parallel::TriangulationBase<dim> *>(
                &dof_handler.get_triangulation());
        AssertThrow(parallel_tria == nullptr ||
                        parallel_tria->is_multilevel_hierarchy_constructed(),
                    ExcNotSupportedByMGTransfer(
                        "a parallel triangulation without its multigrid "
                        "hierarchy: create it with "
                        "construct_multigrid_hierarchy"));
        AssertThrow(!needs_level_dofs || dof_handler.has_level_dofs(),
                    ExcNotSupportedByMGTransfer(
                        "the DoFHandler has no level DoFs: call "
                        "distribute_mg_dofs()"));
        AssertThrow(data.smoothing_degree >= 1 && data.coarse_reduction > 0 &&
                        data.coarse_reduction < 1 && data.smoothing_range > 1,
                    ExcMessage("Multigrid: coarse reduction in (0, 1), "
                               "smoothing degree >= 1, smoothing range > 1"));
      }

      /**
       * @p data with MultigridData::CoarseSolver::automatic replaced by the
       * solver it stands for on @p dof_handler's coarse level (see there);
       * the level DoFs must exist.
       */
      template <int dim>
      MultigridData resolve_coarse_solver(const DoFHandler<dim> &dof_handler,
                                          MultigridData          data)
      {
        if (data.coarse_solver == MultigridData::CoarseSolver::automatic)
          data.coarse_solver =
              Utilities::MPI::n_mpi_processes(dof_handler.get_communicator()) >
                          1 &&
                      dof_handler.n_dofs(0) <=
                          MultigridData::automatic_direct_max_dofs
                  ? MultigridData::CoarseSolver::direct
                  : MultigridData::CoarseSolver::chebyshev;
        return data;
      }

      /**
       * The V-cycle in @p Number of the two a class may hold (only the one
       * of MultigridData::precision is built); @p owner names the class in
       * the exception for the other.
       */
      template <typename Number, typename Single, typename Double>
      const auto &hierarchy_in_precision(const std::unique_ptr<Single> &single,
                                         const std::unique_ptr<Double> &double_,
                                         const std::string             &owner)
      {
        const bool built = std::is_same_v<Number, float> ? single != nullptr
                                                         : double_ != nullptr;
        AssertThrow(built,
                    ExcMessage(owner + ": no V-cycle in this precision (see "
                                       "AdditionalData::precision)"));
        if constexpr (std::is_same_v<Number, float>)
          return *single;
        else
          return *double_;
      }

      /**
       * The preconditioner inside the smoothing steps and the coarse CG of
       * a level operator: its inverse diagonal (1 on refinement-edge DoFs),
       * or, where the operator names a type SmootherPreconditioner, the one
       * it makes from the edge DoFs (make_smoother_preconditioner()).
       */
      template <typename LevelOperator, typename = void>
      struct SmootherPreconditionerOf
      {
        using type = DiagonalMatrix<typename LevelOperator::VectorType>;

        template <typename EdgeOperator>
        static std::shared_ptr<type> make(const LevelOperator &,
                                          const EdgeOperator &edge_operator)
        {
          auto preconditioner = std::make_shared<type>();
          edge_operator.compute_inverse_diagonal(preconditioner->get_vector());
          return preconditioner;
        }
      };

      template <typename LevelOperator>
      struct SmootherPreconditionerOf<
          LevelOperator,
          std::void_t<typename LevelOperator::SmootherPreconditioner>>
      {
        using type = typename LevelOperator::SmootherPreconditioner;

        template <typename EdgeOperator>
        static std::shared_ptr<type> make(const LevelOperator &op,
                                          const EdgeOperator  &edge_operator)
        {
          return op.make_smoother_preconditioner(
              edge_operator.get_edge_indices());
        }
      };

      /**
       * @p LevelOperatorType: vmult, initialize_dof_vector (whose layout
       * the transfer takes), compute_inverse_diagonal (or a smoother
       * preconditioner, see SmootherPreconditionerOf), m and
       * get_setup_timer; @p TransferType: build(dof_handler,
       * partitioners) and initialize_constraints() (ours or deal.II's
       * MGTransferMatrixFree).
       */
      template <int dim, typename LevelOperatorType, typename TransferType>
      class MultigridHierarchy
      {
      public:
        using LevelOperator = LevelOperatorType;
        using LevelVector   = typename LevelOperator::VectorType;
        using LevelNumber   = typename LevelVector::value_type;
        using Transfer      = TransferType;
        /** Builds the operator of a level with its level constraints. */
        using LevelBuilder =
            std::function<void(LevelOperator &,
                               const AffineConstraints<double> &,
                               const unsigned int)>;
        /** Makes the host coarse solver (MultigridData::CoarseSolver amg
         *  or direct) from the coarse level operator; empty: none. */
        using CoarseFactory =
            std::function<std::unique_ptr<MGCoarseGridBase<LevelVector>>(
                const LevelOperator &)>;

        // Build on the level DoFs of dof_handler; mg_constrained_dofs
        // (deal.II's or GPU::MGConstrainedDoFs) is initialized with the
        // boundary DoFs and must outlive this. @p lines_only: the level
        // operators read only the lines of their constraints (GPU::MatrixFree
        // on levels), which then store no other DoFs; otherwise each level's
        // constraints cover its locally relevant DoFs, as deal.II's operators
        // need.
        template <typename ConstrainedDoFs>
        void initialize(const DoFHandler<dim> &dof_handler,
                        const ConstrainedDoFs &mg_constrained_dofs,
                        const LevelBuilder    &build_level,
                        const CoarseFactory   &make_host_coarse,
                        const MultigridData   &data,
                        SetupTimer            &setup_timer,
                        const bool             lines_only = false)
        {
          Assert(data.coarse_solver != MultigridData::CoarseSolver::automatic,
                 ExcMessage("resolve_coarse_solver() first"));
          const bool on_host =
              data.coarse_solver == MultigridData::CoarseSolver::amg ||
              data.coarse_solver == MultigridData::CoarseSolver::direct;
          AssertThrow(!on_host || make_host_coarse,
                      ExcMessage("The amg and direct coarse solvers need an "
                                 "assembled coarse matrix, which this "
                                 "multigrid does not build: choose chebyshev "
                                 "or cg_jacobi"));
          const unsigned int n_levels =
              dof_handler.get_triangulation().n_global_levels();
          operators.resize(0, n_levels - 1);
          level_operators.resize(0, n_levels - 1);
          interface_operators.resize(0, n_levels - 1);
          bool has_refinement_edge = false;
          std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
              partitioners(n_levels);
          // The level operators' level DoF indices, for the transfer.
          auto keep_level_indices =
              std::make_unique<typename LevelDoFIndexCache<dim>::Scope>(
                  dof_handler);
          for (unsigned int level = 0; level < n_levels; ++level)
          {
            setup_timer.start("level constraints");
            // The relevant DoFs take a pass over the ghost cells (0.1-0.2 s
            // a rank at Q4 1.2e8 on 16 ranks). On one rank every level DoF
            // is relevant; deal.II would still visit every level cell, on
            // one thread, to find none more.
            const IndexSet &boundary =
                mg_constrained_dofs.get_boundary_indices(level);
            const bool one_rank =
                Utilities::MPI::n_mpi_processes(
                    dof_handler.get_triangulation().get_communicator()) == 1;
            AffineConstraints<double> level_constraints;
            if (lines_only)
              level_constraints.reinit(boundary);
            else if (one_rank)
              level_constraints.reinit(
                  dof_handler.locally_owned_mg_dofs(level));
            else
              level_constraints.reinit(
                  internal::locally_relevant_level_dofs(dof_handler, level));
            // One add_line() a DoF through the IndexSet's iterator:
            // add_lines() looks each DoF up by its position in the set
            // (about 1.6 times the time on 2e5 boundary DoFs).
            for (const types::global_dof_index i : boundary)
              level_constraints.add_line(i);
            level_constraints.close();
            setup_timer.stop();
            build_level(operators[level], level_constraints, level);
            setup_timer.add(operators[level].get_setup_timer());
            setup_timer.start("edge operators");
            {
              LevelVector vector;
              operators[level].initialize_dof_vector(vector);
              partitioners[level] = vector.get_partitioner();
            }
            level_operators[level].initialize(
                operators[level], mg_constrained_dofs, level);
            interface_operators[level].initialize(level_operators[level]);
            has_refinement_edge = has_refinement_edge ||
                                  level_operators[level].has_refinement_edge();
            setup_timer.stop();
          }

          setup_timer.start("transfer");
          transfer.initialize_constraints(mg_constrained_dofs);
          transfer.build(dof_handler, partitioners);
          keep_level_indices.reset();
          setup_timer.stop();

          setup_timer.start("smoothers");
          initialize_smoothers(data);
          setup_timer.stop();
          setup_timer.start("coarse solver");
          initialize_coarse_solver(make_host_coarse, data);
          setup_timer.stop();

          level_matrices.initialize(level_operators);
          multigrid = std::make_unique<Multigrid<LevelVector>>(
              level_matrices, *coarse, transfer, smoother, smoother);
          if (has_refinement_edge)
          {
            interface_matrices.initialize(interface_operators);
            multigrid->set_edge_matrices(interface_matrices,
                                         interface_matrices);
          }
          preconditioner = std::make_unique<Preconditioner>(
              dof_handler, *multigrid, transfer);
        }

        template <typename VectorType>
        void vmult(VectorType &dst, const VectorType &src) const
        {
          preconditioner->vmult(dst, src);
        }

        unsigned int n_levels() const { return operators.n_levels(); }

        const LevelOperator &get_level_operator(const unsigned int level) const
        {
          return operators[level];
        }

        const Transfer &get_transfer() const { return transfer; }

        std::size_t memory_consumption() const
        {
          std::size_t bytes = transfer.memory_consumption();
          for (unsigned int l = operators.min_level();
               l <= operators.max_level();
               ++l)
            bytes += operators[l].memory_consumption() +
                     level_operators[l].memory_consumption();
          return bytes;
        }

      private:
        using EdgeOperator           = MGLevelOperator<LevelOperator>;
        using InterfaceOperator      = MGInterfaceOperator<EdgeOperator>;
        using Preconditioning        = SmootherPreconditionerOf<LevelOperator>;
        using SmootherPreconditioner = typename Preconditioning::type;
        using Smoother               = PreconditionChebyshev<EdgeOperator,
                                               LevelVector,
                                               SmootherPreconditioner>;
        using Preconditioner = PreconditionMG<dim, LevelVector, Transfer>;

        // Chebyshev on every level (degree 1 is a damped Jacobi step), the
        // eigenvalues estimated here rather than in the first V-cycle.
        void initialize_smoothers(const MultigridData &data)
        {
          const unsigned int max_level = operators.max_level();
          unsigned int       n_steps   = 1;
          const bool         coarse_chebyshev =
              data.coarse_solver == MultigridData::CoarseSolver::chebyshev;
          MGLevelObject<typename Smoother::AdditionalData> smoother_data(
              0, max_level);
          for (unsigned int level = 0; level <= max_level; ++level)
          {
            auto &level_data = smoother_data[level];
            level_data.preconditioner =
                Preconditioning::make(operators[level], level_operators[level]);
            if (level == 0)
            {
              coarse_preconditioner = level_data.preconditioner;
              // A solver on the coarse level: a degree that reaches the
              // reduction, eigenvalues estimated over the full spectrum.
              level_data.smoothing_range     = data.coarse_reduction;
              level_data.degree              = numbers::invalid_unsigned_int;
              level_data.eig_cg_n_iterations = operators[0].m();
            }
            else
              n_steps = data.set_smoother_data(level_data);
          }
          smoother.initialize(level_operators, smoother_data);
          smoother.set_steps(n_steps);
          LevelVector vector;
          for (unsigned int level = (coarse_chebyshev ? 0 : 1);
               level <= max_level;
               ++level)
          {
            level_operators[level].initialize_dof_vector(vector);
            smoother[level].estimate_eigenvalues(vector);
          }
        }

        void initialize_coarse_solver(const CoarseFactory &make_host_coarse,
                                      const MultigridData &data)
        {
          switch (data.coarse_solver)
          {
          // Resolved before (initialize() asserts it).
          case MultigridData::CoarseSolver::automatic:
          case MultigridData::CoarseSolver::chebyshev:
            coarse = std::make_unique<MGCoarseGridApplySmoother<LevelVector>>(
                smoother);
            break;
          case MultigridData::CoarseSolver::cg_jacobi:
            coarse_control = std::make_unique<ReductionControl>(
                1000, 1e-300, data.coarse_reduction, false, false);
            coarse_cg =
                std::make_unique<SolverCG<LevelVector>>(*coarse_control);
            coarse = std::make_unique<
                MGCoarseGridIterativeSolver<LevelVector,
                                            SolverCG<LevelVector>,
                                            EdgeOperator,
                                            SmootherPreconditioner>>(
                *coarse_cg, level_operators[0], *coarse_preconditioner);
            break;
          case MultigridData::CoarseSolver::amg:
          case MultigridData::CoarseSolver::direct:
            coarse = make_host_coarse(operators[0]);
            break;
          }
        }

        // Declared in the order they refer to each other (destroyed in
        // reverse).
        MGLevelObject<LevelOperator>                   operators;
        MGLevelObject<EdgeOperator>                    level_operators;
        MGLevelObject<InterfaceOperator>               interface_operators;
        Transfer                                       transfer;
        mg::SmootherRelaxation<Smoother, LevelVector>  smoother;
        std::shared_ptr<SmootherPreconditioner>        coarse_preconditioner;
        std::unique_ptr<ReductionControl>              coarse_control;
        std::unique_ptr<SolverCG<LevelVector>>         coarse_cg;
        std::unique_ptr<MGCoarseGridBase<LevelVector>> coarse;
        mg::Matrix<LevelVector>                        level_matrices;
        mg::Matrix<LevelVector>                        interface_matrices;
        std::unique_ptr<Multigrid<LevelVector>>        multigrid;
        std::unique_ptr<Preconditioner>                preconditioner;
      };

      /**
       * What MatrixFreeMultigrid and SparseMatrixMultigrid share: the
       * MGConstrainedDoFs of the Dirichlet boundary, the V-cycle in float
       * or double (MultigridData::precision; only that one is built), its
       * vmult and the accessors. @p LevelOperatorOf and @p TransferOf map a
       * number type to the level operator and transfer.
       */
      template <int dim,
                template <typename>
                class LevelOperatorOf,
                template <typename>
                class TransferOf>
      class MultigridFrontEnd : public Subscriptor
      {
      public:
        /** dst = V-cycle applied to src (vectors of the system operator). */
        template <typename VectorType>
        void vmult(VectorType &dst, const VectorType &src) const
        {
          AssertThrow(single != nullptr || double_ != nullptr,
                      ExcMessage(name + "::vmult before initialize()"));
          if (single)
            single->vmult(dst, src);
          else
            double_->vmult(dst, src);
        }

        unsigned int n_levels() const
        {
          return single    ? single->n_levels()
                 : double_ ? double_->n_levels()
                           : 0;
        }

        /** The level operator of the V-cycle in @p Number (float if
         *  MultigridData::precision is single_precision, else double). */
        template <typename Number>
        const LevelOperatorOf<Number> &
        get_level_operator(const unsigned int level) const
        {
          return get_hierarchy<Number>().get_level_operator(level);
        }

        template <typename Number>
        const TransferOf<Number> &get_transfer() const
        {
          return get_hierarchy<Number>().get_transfer();
        }

        /** Seconds of initialize()'s steps, the levels' steps summed. */
        const SetupTimer &get_setup_timer() const { return setup_timer; }

        /** Bytes of the level operators and the transfer (device memory
         *  on the GPU backend). */
        std::size_t memory_consumption() const
        {
          return single    ? single->memory_consumption()
                 : double_ ? double_->memory_consumption()
                           : 0;
        }

      protected:
        template <typename Number>
        using Hierarchy = MultigridHierarchy<dim,
                                             LevelOperatorOf<Number>,
                                             TransferOf<Number>>;

        explicit MultigridFrontEnd(const std::string &name) : name(name) {}

        /**
         * The boundary DoFs, then the hierarchy in @p data's precision.
         * @p build_level(op, level_constraints, level), generic in the
         * operator type, builds a level operator; @p make_host_coarse(op),
         * generic too, the amg or direct coarse solver from the coarse
         * operator (nullptr: none). A failed set-up leaves no hierarchy.
         */
        template <typename BuildLevel, typename MakeHostCoarse = std::nullptr_t>
        void initialize_hierarchy(
            const DoFHandler<dim>              &dof_handler,
            const std::set<types::boundary_id> &dirichlet_boundary_ids,
            const MultigridData                &data,
            const BuildLevel                   &build_level,
            const MakeHostCoarse               &make_host_coarse = nullptr,
            const bool                          lines_only       = false)
        {
          single.reset();
          double_.reset();
          setup_timer = SetupTimer("GPU::" + name);
          setup_timer.start("MGConstrainedDoFs");
          mg_constrained_dofs.initialize(dof_handler);
          mg_constrained_dofs.make_zero_boundary_constraints(
              dof_handler, dirichlet_boundary_ids);
          setup_timer.stop();
          if (data.precision == MultigridData::Precision::double_precision)
            build(double_,
                  dof_handler,
                  data,
                  build_level,
                  make_host_coarse,
                  lines_only);
          else
            build(single,
                  dof_handler,
                  data,
                  build_level,
                  make_host_coarse,
                  lines_only);
        }

        template <typename Number>
        const Hierarchy<Number> &get_hierarchy() const
        {
          return hierarchy_in_precision<Number>(single, double_, name);
        }

      private:
        template <typename Number, typename BuildLevel, typename MakeHostCoarse>
        void build(std::unique_ptr<Hierarchy<Number>> &hierarchy,
                   const DoFHandler<dim>              &dof_handler,
                   const MultigridData                &data,
                   const BuildLevel                   &build_level,
                   const MakeHostCoarse               &make_host_coarse,
                   const bool                          lines_only)
        {
          typename Hierarchy<Number>::CoarseFactory factory;
          if constexpr (!std::is_same_v<MakeHostCoarse, std::nullptr_t>)
            factory = [&](const LevelOperatorOf<Number> &op)
            { return make_host_coarse(op); };
          auto new_hierarchy = std::make_unique<Hierarchy<Number>>();
          new_hierarchy->initialize(dof_handler,
                                    mg_constrained_dofs,
                                    build_level,
                                    factory,
                                    data,
                                    setup_timer,
                                    lines_only);
          hierarchy = std::move(new_hierarchy);
        }

        std::string name;
        // deal.II's where the transfer is deal.II's (CPU backend), which
        // takes only that; else ours, found on the set-up threads.
        std::conditional_t<
            std::is_same_v<TransferOf<float>,
                           dealii::MGTransferMatrixFree<dim, float>>,
            dealii::MGConstrainedDoFs,
            GPU::MGConstrainedDoFs>
                                           mg_constrained_dofs;
        std::unique_ptr<Hierarchy<float>>  single;
        std::unique_ptr<Hierarchy<double>> double_;
        SetupTimer                         setup_timer;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
