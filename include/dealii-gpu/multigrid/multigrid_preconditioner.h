// GPU::MultigridPreconditioner: a geometric multigrid V-cycle on the
// device for (a(x) grad u, grad v), set up in one call, as a preconditioner
// for deal.II's SolverCG. Include from .cu files.
#ifndef dealii_gpu_multigrid_multigrid_preconditioner_h
#define dealii_gpu_multigrid_multigrid_preconditioner_h

#include <dealii-gpu/multigrid/mg_level_operators.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>
#include <dealii-gpu/operators/laplace_operator.h>

#include <deal.II/base/timer.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/multigrid.h>

#include <functional>
#include <memory>
#include <set>

namespace dealii
{
  namespace GPU
  {
    /**
     * Geometric multigrid for -div(a(x) grad u) with homogeneous Dirichlet
     * values, everything on the device: GPU::LaplaceOperator on every level
     * of the triangulation's multigrid hierarchy (in LevelNumber, float by
     * default, inside an outer solver in double), GPU::MGTransferMatrixFree
     * between the levels, Chebyshev smoothing around the operators'
     * diagonals, and Chebyshev as the coarse solver, in deal.II's
     * Multigrid and PreconditionMG (the set-up of deal.II's step-37).
     *
     * Needs a DoFHandler with level DoFs (distribute_mg_dofs()). On
     * adaptively refined meshes the V-cycle smooths locally, level by level
     * on the cells of that level (deal.II's local smoothing): the
     * refinement-edge DoFs are constrained on each level
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
    template <int dim, int degree, typename LevelNumber = float>
    class MultigridPreconditioner : public Subscriptor
    {
    public:
      using LevelVector   = Vector<LevelNumber>;
      using LevelOperator = LaplaceOperator<dim, degree, LevelNumber>;

      struct AdditionalData
      {
        /** Degree of the Chebyshev smoother (pre- and post-smoothing). */
        unsigned int smoothing_degree = 5;
        /** The smoother acts on eigenvalues in [max / range, max]. */
        double smoothing_range = 20.;
        /** Coarse level: Chebyshev reducing by this factor. */
        double coarse_reduction = 1e-3;
      };

      /** Wall-clock seconds of the set-up steps of the last initialize(). */
      struct SetupTimes
      {
        double level_operators = 0;
        double transfer        = 0;
        double smoothers       = 0;
      };

      /**
       * Build the hierarchy: level operators with the level boundary DoFs
       * of @p dirichlet_boundary_ids constrained, transfer, smoothers.
       */
      void
      initialize(const Mapping<dim>                 &mapping,
                 const DoFHandler<dim>              &dof_handler,
                 const std::set<types::boundary_id> &dirichlet_boundary_ids,
                 const std::function<double(const Point<dim> &)> &diffusion,
                 const AdditionalData &additional_data = AdditionalData())
      {
        AssertThrow(dof_handler.has_level_dofs(),
                    ExcNotSupportedByMGTransfer(
                        "the DoFHandler has no level DoFs: call "
                        "distribute_mg_dofs()"));
        preconditioner.reset();
        multigrid.reset();
        const unsigned int n_levels =
            dof_handler.get_triangulation().n_global_levels();
        Timer timer;
        setup_timer = SetupTimer("GPU::MultigridPreconditioner");
        setup_timer.start("MGConstrainedDoFs");
        mg_constrained_dofs.initialize(dof_handler);
        mg_constrained_dofs.make_zero_boundary_constraints(
            dof_handler, dirichlet_boundary_ids);
        setup_timer.stop();
        // Release what refers to the old levels before replacing them.
        interface_matrices.reset();
        level_matrices.reset();
        coarse.clear();
        smoother.clear();
        interface_operators.resize(0, n_levels - 1);
        level_operators.resize(0, n_levels - 1);
        operators.resize(0, n_levels - 1);
        bool has_refinement_edge = false;
        std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
            partitioners(n_levels);
        for (unsigned int level = 0; level < n_levels; ++level)
        {
          setup_timer.start("level constraints");
          IndexSet relevant;
          DoFTools::extract_locally_relevant_level_dofs(
              dof_handler, level, relevant);
          AffineConstraints<double> level_constraints;
          level_constraints.reinit(relevant);
          level_constraints.add_lines(
              mg_constrained_dofs.get_boundary_indices(level));
          level_constraints.close();
          setup_timer.stop();
          operators[level].reinit(
              mapping, dof_handler, level_constraints, diffusion, {}, level);
          setup_timer.add(operators[level].get_setup_timer());
          setup_timer.start("edge operators");
          partitioners[level] =
              operators[level].get_matrix_free().get_vector_partitioner();
          level_operators[level].initialize(
              operators[level], mg_constrained_dofs, level);
          interface_operators[level].initialize(level_operators[level]);
          has_refinement_edge = has_refinement_edge ||
                                level_operators[level].has_refinement_edge();
        }
        setup_timer.stop();
        times.level_operators = timer.wall_time();
        timer.restart();
        setup_timer.start("transfer");
        transfer.initialize_constraints(mg_constrained_dofs);
        transfer.build(dof_handler, partitioners);
        setup_timer.stop();
        times.transfer = timer.wall_time();
        timer.restart();
        setup_timer.start("smoothers");

        MGLevelObject<typename Smoother::AdditionalData> smoother_data(
            0, n_levels - 1);
        for (unsigned int level = 0; level < n_levels; ++level)
        {
          auto &data = smoother_data[level];
          if (level > 0)
          {
            data.smoothing_range     = additional_data.smoothing_range;
            data.degree              = additional_data.smoothing_degree;
            data.eig_cg_n_iterations = 10;
          }
          else
          {
            // A solver on the coarse level: a degree that reaches the
            // reduction, eigenvalues estimated to the full spectrum.
            data.smoothing_range     = additional_data.coarse_reduction;
            data.degree              = numbers::invalid_unsigned_int;
            data.eig_cg_n_iterations = operators[0].m();
          }
          data.preconditioner = std::make_shared<DiagonalMatrix<LevelVector>>();
          level_operators[level].compute_inverse_diagonal(
              data.preconditioner->get_vector());
        }
        smoother.initialize(level_operators, smoother_data);
        coarse.initialize(smoother);
        setup_timer.stop();
        times.smoothers = timer.wall_time();

        level_matrices.initialize(level_operators);
        multigrid = std::make_unique<Multigrid<LevelVector>>(
            level_matrices, coarse, transfer, smoother, smoother);
        if (has_refinement_edge)
        {
          interface_matrices.initialize(interface_operators);
          multigrid->set_edge_matrices(interface_matrices, interface_matrices);
        }
        preconditioner = std::make_unique<
            PreconditionMG<dim,
                           LevelVector,
                           MGTransferMatrixFree<dim, LevelNumber>>>(
            dof_handler, *multigrid, transfer);
      }

      /** dst = V-cycle applied to src (@p Number: double or float). */
      template <typename Number>
      void vmult(Vector<Number> &dst, const Vector<Number> &src) const
      {
        AssertThrow(preconditioner != nullptr,
                    ExcMessage("MultigridPreconditioner::vmult before "
                               "initialize()"));
        preconditioner->vmult(dst, src);
      }

      unsigned int n_levels() const { return operators.n_levels(); }

      const LevelOperator &get_level_operator(const unsigned int level) const
      {
        return operators[level];
      }

      const MGTransferMatrixFree<dim, LevelNumber> &get_transfer() const
      {
        return transfer;
      }

      const SetupTimes &get_setup_times() const { return times; }

      /** Seconds of initialize()'s steps, the levels' GPU::MatrixFree
       *  steps summed over the levels. */
      const SetupTimer &get_setup_timer() const { return setup_timer; }

      /** Device bytes of the level operators and the transfer. */
      std::size_t memory_consumption() const
      {
        std::size_t bytes = transfer.memory_consumption();
        for (unsigned int l = operators.min_level(); l <= operators.max_level();
             ++l)
          bytes += operators[l].memory_consumption() +
                   level_operators[l].memory_consumption();
        return bytes;
      }

    private:
      using EdgeOperator      = MGLevelOperator<LevelOperator>;
      using InterfaceOperator = MGInterfaceOperator<EdgeOperator>;
      using Smoother          = PreconditionChebyshev<EdgeOperator,
                                             LevelVector,
                                             DiagonalMatrix<LevelVector>>;

      // Declared in the order they refer to each other (destroyed in
      // reverse).
      MGConstrainedDoFs                             mg_constrained_dofs;
      MGLevelObject<LevelOperator>                  operators;
      MGLevelObject<EdgeOperator>                   level_operators;
      MGLevelObject<InterfaceOperator>              interface_operators;
      MGTransferMatrixFree<dim, LevelNumber>        transfer;
      mg::SmootherRelaxation<Smoother, LevelVector> smoother;
      MGCoarseGridApplySmoother<LevelVector>        coarse;
      mg::Matrix<LevelVector>                       level_matrices;
      mg::Matrix<LevelVector>                       interface_matrices;
      std::unique_ptr<Multigrid<LevelVector>>       multigrid;
      std::unique_ptr<PreconditionMG<dim,
                                     LevelVector,
                                     MGTransferMatrixFree<dim, LevelNumber>>>
                 preconditioner;
      SetupTimes times;
      SetupTimer setup_timer;
    };
  } // namespace GPU
} // namespace dealii

#endif
