// step-37's multigrid solve written once for any operator, vector and
// transfer types (Chebyshev smoothing around the inverse diagonal,
// Chebyshev as the coarse solver, level and interface matrices, deal.II's
// Multigrid and PreconditionMG, CG), and the set-up of deal.II's own CPU
// level operators for it. Used by tests/multigrid/step37_swapped_types
// (deal.II's CPU types against ours) and benchmarks/multigrid_solve_cpu.
// Plain deal.II: includable from .cc files.
#ifndef dealii_gpu_tests_step37_multigrid_h
#define dealii_gpu_tests_step37_multigrid_h

#include <deal.II/base/mg_level_object.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>
#include <deal.II/multigrid/multigrid.h>

#include <functional>
#include <memory>

namespace Step37
{
  using namespace dealii;

  /**
   * CG on @p system, preconditioned by step-37's V-cycle on the level
   * matrices (smoothers built around @p inverse_diagonals), with the
   * interface matrices where @p interfaces is not null, to @p tolerance
   * times |f|. Returns the iterations (200 at most; no exception).
   */
  template <int dim,
            typename SystemMatrix,
            typename VectorType,
            typename LevelMatrix,
            typename InterfaceMatrix,
            typename LevelVector,
            typename Transfer>
  unsigned int
  solve(const DoFHandler<dim>                &dof_handler,
        const SystemMatrix                   &system,
        VectorType                           &u,
        const VectorType                     &f,
        const MGLevelObject<LevelMatrix>     &levels,
        const MGLevelObject<InterfaceMatrix> *interfaces,
        const MGLevelObject<std::shared_ptr<DiagonalMatrix<LevelVector>>>
                       &inverse_diagonals,
        const Transfer &transfer,
        const double    tolerance)
  {
    using Smoother              = PreconditionChebyshev<LevelMatrix,
                                           LevelVector,
                                           DiagonalMatrix<LevelVector>>;
    const unsigned int n_levels = levels.max_level() + 1;
    MGLevelObject<typename Smoother::AdditionalData> smoother_data(
        0, n_levels - 1);
    for (unsigned int level = 0; level < n_levels; ++level)
    {
      auto &data = smoother_data[level];
      if (level > 0)
      {
        data.smoothing_range     = 20.;
        data.degree              = 5;
        data.eig_cg_n_iterations = 10;
      }
      else
      {
        data.smoothing_range     = 1e-3;
        data.degree              = numbers::invalid_unsigned_int;
        data.eig_cg_n_iterations = levels[0].m();
      }
      data.preconditioner = inverse_diagonals[level];
    }
    mg::SmootherRelaxation<Smoother, LevelVector> smoother;
    smoother.initialize(levels, smoother_data);
    MGCoarseGridApplySmoother<LevelVector> coarse(smoother);
    mg::Matrix<LevelVector>                level_matrices(levels);
    mg::Matrix<LevelVector>                interface_matrices;
    Multigrid<LevelVector>                 multigrid(
        level_matrices, coarse, transfer, smoother, smoother);
    if (interfaces != nullptr)
    {
      interface_matrices.initialize(*interfaces);
      multigrid.set_edge_matrices(interface_matrices, interface_matrices);
    }
    PreconditionMG<dim, LevelVector, Transfer> preconditioner(
        dof_handler, multigrid, transfer);
    SolverControl control(200, tolerance * f.l2_norm());
    control.log_result(false);
    SolverCG<VectorType> cg(control);
    try
    {
      cg.solve(system, u, f, preconditioner);
    }
    catch (const SolverControl::NoConvergence &)
    {
      // Reported through the iteration count.
    }
    return control.last_step();
  }

  /** a(x) at the quadrature points of a deal.II MatrixFree's cell batches
   *  (level or active cells). */
  template <int dim, typename Number>
  std::shared_ptr<Table<2, VectorizedArray<Number>>>
  coefficient_table(const MatrixFree<dim, Number> &matrix_free,
                    const Mapping<dim>            &mapping,
                    const unsigned int             n_q_points_1d,
                    const std::function<double(const Point<dim> &)> &a)
  {
    const QGauss<dim> quadrature(n_q_points_1d);
    auto table = std::make_shared<Table<2, VectorizedArray<Number>>>(
        matrix_free.n_cell_batches(), quadrature.size());
    FEValues<dim> fe_values(mapping,
                            matrix_free.get_dof_handler().get_fe(),
                            quadrature,
                            update_quadrature_points);
    for (unsigned int batch = 0; batch < matrix_free.n_cell_batches(); ++batch)
      for (unsigned int lane = 0;
           lane < matrix_free.n_active_entries_per_cell_batch(batch);
           ++lane)
      {
        // As a Triangulation cell: level cells need no DoF access here.
        fe_values.reinit(typename Triangulation<dim>::cell_iterator(
            matrix_free.get_cell_iterator(batch, lane)));
        for (unsigned int q = 0; q < quadrature.size(); ++q)
          (*table)(batch, q)[lane] = a(fe_values.quadrature_point(q));
      }
    return table;
  }

  /**
   * step-37's operators on deal.II's CPU MatrixFree: the system operator in
   * double on the active cells, float level operators with the level
   * boundary DoFs of boundary id 0 constrained, their interface matrices
   * and inverse diagonals, and deal.II's MGTransferMatrixFree.
   */
  template <int dim, int degree>
  struct CPUOperators
  {
    using VectorType   = LinearAlgebra::distributed::Vector<double>;
    using LevelVector  = LinearAlgebra::distributed::Vector<float>;
    using SystemMatrix = MatrixFreeOperators::
        LaplaceOperator<dim, degree, degree + 1, 1, VectorType>;
    using LevelMatrix = MatrixFreeOperators::
        LaplaceOperator<dim, degree, degree + 1, 1, LevelVector>;
    using InterfaceMatrix =
        MatrixFreeOperators::MGInterfaceOperator<LevelMatrix>;

    void reinit(const Mapping<dim>                              &mapping,
                const DoFHandler<dim>                           &dof_handler,
                const AffineConstraints<double>                 &constraints,
                const std::function<double(const Point<dim> &)> &a)
    {
      const UpdateFlags flags =
          update_gradients | update_JxW_values | update_quadrature_points;
      {
        typename MatrixFree<dim, double>::AdditionalData data;
        data.tasks_parallel_scheme =
            MatrixFree<dim, double>::AdditionalData::none;
        data.mapping_update_flags = flags;
        auto matrix_free          = std::make_shared<MatrixFree<dim, double>>();
        matrix_free->reinit(
            mapping, dof_handler, constraints, QGauss<1>(degree + 1), data);
        system.initialize(matrix_free);
        system.set_coefficient(
            coefficient_table(*matrix_free, mapping, degree + 1, a));
      }
      mg_constrained_dofs.initialize(dof_handler);
      mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, {0});
      const unsigned int n_levels =
          dof_handler.get_triangulation().n_global_levels();
      interfaces.resize(0, n_levels - 1);
      levels.resize(0, n_levels - 1);
      inverse_diagonals.resize(0, n_levels - 1);
      for (unsigned int level = 0; level < n_levels; ++level)
      {
        IndexSet relevant;
        DoFTools::extract_locally_relevant_level_dofs(
            dof_handler, level, relevant);
        AffineConstraints<double> level_constraints(relevant);
        level_constraints.add_lines(
            mg_constrained_dofs.get_boundary_indices(level));
        level_constraints.close();
        typename MatrixFree<dim, float>::AdditionalData data;
        data.tasks_parallel_scheme =
            MatrixFree<dim, float>::AdditionalData::none;
        data.mapping_update_flags = flags;
        data.mg_level             = level;
        auto matrix_free          = std::make_shared<MatrixFree<dim, float>>();
        matrix_free->reinit(mapping,
                            dof_handler,
                            level_constraints,
                            QGauss<1>(degree + 1),
                            data);
        levels[level].initialize(matrix_free, mg_constrained_dofs, level);
        levels[level].set_coefficient(
            coefficient_table(*matrix_free, mapping, degree + 1, a));
        levels[level].compute_diagonal();
        inverse_diagonals[level] = levels[level].get_matrix_diagonal_inverse();
        interfaces[level].initialize(levels[level]);
      }
      transfer.initialize_constraints(mg_constrained_dofs);
      transfer.build(dof_handler);
    }

    /** (1, v) over the active cells (constrained entries zero). */
    void right_hand_side(VectorType &f) const
    {
      system.initialize_dof_vector(f);
      FEEvaluation<dim, degree, degree + 1, 1, double> phi(
          *system.get_matrix_free());
      for (unsigned int batch = 0;
           batch < system.get_matrix_free()->n_cell_batches();
           ++batch)
      {
        phi.reinit(batch);
        for (unsigned int q = 0; q < phi.n_q_points; ++q)
          phi.submit_value(make_vectorized_array(1.), q);
        phi.integrate(EvaluationFlags::values);
        phi.distribute_local_to_global(f);
      }
      f.compress(VectorOperation::add);
    }

    unsigned int solve(const DoFHandler<dim> &dof_handler,
                       VectorType            &u,
                       const VectorType      &f,
                       const double           tolerance) const
    {
      return Step37::solve(dof_handler,
                           system,
                           u,
                           f,
                           levels,
                           &interfaces,
                           inverse_diagonals,
                           transfer,
                           tolerance);
    }

    SystemMatrix                   system;
    MGConstrainedDoFs              mg_constrained_dofs;
    MGLevelObject<LevelMatrix>     levels;
    MGLevelObject<InterfaceMatrix> interfaces;
    MGLevelObject<std::shared_ptr<DiagonalMatrix<LevelVector>>>
                                     inverse_diagonals;
    MGTransferMatrixFree<dim, float> transfer;
  };
} // namespace Step37

#endif
