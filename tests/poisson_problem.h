// The Poisson problem -div(a grad u) = f, u = 0 on the boundary, solved by
// CG with GPU::MultigridPreconditioner (a stored) or GPU::MatrixFreeMultigrid
// (a computed in the kernels), shared by the multigrid test and
// benchmarks/multigrid_solve: the cube with a = 1 and the exact solution
// prod sin(pi x_d), or the ball (MappingQ) with the coefficient of the
// operator benchmark and f = 1. Include from .cu files.
#ifndef dealii_gpu_tests_poisson_problem_h
#define dealii_gpu_tests_poisson_problem_h

#include <dealii-gpu/multigrid/matrix_free_multigrid.h>
#include <dealii-gpu/multigrid/multigrid_preconditioner.h>
#include <dealii-gpu/operators/laplace_operator.h>
#include <dealii-gpu/operators/matrix_free_operator.h>
#include <dealii-gpu/operators/operations.h>
#include <dealii-gpu/operators/source_cell.h>

#include <deal.II/base/function.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/numerics/vector_tools.h>

#include "meshes.h"
#include <cmath>
#include <fstream>
#include <string>

namespace Poisson
{
  using namespace dealii;

  template <int dim>
  double exact_solution(const Point<dim> &x)
  {
    double u = 1;
    for (unsigned int d = 0; d < dim; ++d)
      u *= std::sin(numbers::PI * x[d]);
    return u;
  }

  template <int dim>
  class ExactSolution : public Function<dim>
  {
  public:
    double value(const Point<dim> &x, const unsigned int = 0) const override
    {
      return exact_solution(x);
    }
  };

  struct Result
  {
    types::global_dof_index n_dofs     = 0;
    unsigned int            n_levels   = 0;
    unsigned int            iterations = 0;
    // Wall-clock seconds: deal.II's DoFs and constraints; our fine-level
    // operator; the multigrid levels, transfer and smoothers; the
    // right-hand side (host assembly); the CG solve; one V-cycle.
    double setup_dealii   = 0;
    double setup_operator = 0;
    double setup_levels   = 0;
    double setup_transfer = 0;
    double setup_smoother = 0;
    double setup_rhs      = 0;
    double solve          = 0;
    double v_cycle        = 0;
    // From solve()'s start to the end of the CG solve on the slowest rank
    // (the ranks enter together): the wall clock a user waits after the
    // mesh, without double counting waits as the steps' maxima do.
    double to_solution = 0;
    // ||f - A u|| / ||f||, and the L2 error against the exact solution
    // (cube only).
    double residual = 0;
    double l2_error = 0;
    // Device bytes of the operator, the multigrid and the solver vectors.
    std::size_t memory = 0;
    // Steps of our set-up (rank 0): the fine operator's and the
    // multigrid's (levels summed).
    GPU::SetupTimer operator_steps, multigrid_steps;
    // The transfer's build() steps (without p-coarsening), and deal.II's
    // steps of setup_dealii.
    GPU::SetupTimer transfer_steps, dealii_steps;
    // Host bytes (rank 0): deal.II's Triangulation, DoFHandler and
    // AffineConstraints; the resident set before our set-up and its peak
    // after (Linux VmRSS, VmHWM).
    std::size_t dealii_bytes = 0, rss_before_ours = 0, peak_rss = 0;
    // Device bytes in use after the solve (rank 0; all processes on the
    // device), and the geometry forms taken by the fine operator and the
    // finest multigrid level; the coarse solver taken.
    std::size_t device_in_use = 0;
    std::string operator_geometry, level_geometry, coarse_solver;
  };

  // f = dim pi^2 prod sin(pi x_d) on the cube, 1 on the ball.
  template <int dim>
  struct PoissonSource
  {
    bool ball;

    template <typename Evaluator>
    DEAL_II_GPU_HOST_DEVICE double operator()(const Evaluator   &phi,
                                              const unsigned int q) const
    {
      if (ball)
        return 1.;
      const auto x     = phi.quadrature_point(q);
      double     value = dim * numbers::PI * numbers::PI;
      for (unsigned int d = 0; d < dim; ++d)
        value *= sin(numbers::PI * x[d]);
      return value;
    }
  };

  // Bytes of a field of /proc/self/status (0 where there is none).
  inline std::size_t host_memory(const std::string &field)
  {
    std::ifstream status("/proc/self/status");
    std::string   line;
    while (std::getline(status, line))
      if (line.rfind(field, 0) == 0)
        return std::stoull(line.substr(field.size())) * 1024;
    return 0;
  }

  // How the coefficient a(x) reaches the kernels: evaluated on the host at
  // every quadrature point and stored (GPU::LaplaceOperator and
  // GPU::MultigridPreconditioner, which take a std::function), or computed
  // in the kernels from the quadrature point (GPU::MatrixFreeOperator and
  // GPU::MatrixFreeMultigrid with GPU::LaplaceOperation): nothing stored.
  enum class CoefficientForm
  {
    stored,
    kernel
  };

  // a(x): the ball's coefficient, 1 on the cube; host and device.
  struct Diffusion
  {
    bool ball;

#ifdef __CUDACC__
#  pragma nv_exec_check_disable
#endif
    template <typename Point>
    DEAL_II_GPU_HOST_DEVICE auto operator()(const Point &x) const
    {
      const auto a = BallOfX()(x);
      using T      = std::remove_cv_t<decltype(a)>;
      return ball ? a : T(1.);
    }
  };

  // The right-hand side, the CG solve, the V-cycle and the memory, after
  // the set-up of @p system and @p preconditioner (either coefficient form).
  // Level operators that can merge a with the Jacobians
  // (GPU::LaplaceOperator::has_merged_geometry()).
  template <typename Operator, typename = void>
  struct merges_geometry : std::false_type
  {
  };

  template <typename Operator>
  struct merges_geometry<Operator,
                         std::void_t<decltype(std::declval<const Operator &>()
                                                  .has_merged_geometry())>>
      : std::true_type
  {
  };

  template <int dim, int degree, typename System, typename Preconditioner>
  void solve_and_measure(const System                    &system,
                         const Preconditioner            &preconditioner,
                         const GPU::MultigridData        &mg_data,
                         const Mapping<dim>              &mapping,
                         const DoFHandler<dim>           &dof_handler,
                         const AffineConstraints<double> &constraints,
                         const bool                       ball,
                         const double                     tolerance,
                         const Timer                     &since_start,
                         Result                          &result)
  {
    const MPI_Comm comm = dof_handler.get_communicator();
    Timer          timer;
    result.operator_geometry =
        GPU::to_string(system.get_matrix_free().get_geometry_storage());
    result.coarse_solver =
        GPU::to_string(preconditioner.get_additional_data().coarse_solver);
    {
      const unsigned int finest = preconditioner.n_levels() - 1;
      if (!mg_data.p_coarsening || degree == 1)
      {
        if (mg_data.precision ==
            GPU::MultigridData::Precision::double_precision)
          result.transfer_steps =
              preconditioner.template get_transfer<double>().get_setup_timer();
        else
          result.transfer_steps =
              preconditioner.template get_transfer<float>().get_setup_timer();
      }
      // "tensor": the Jacobians merged with a (GPU::LaplaceOperator).
      const auto form = [](const auto &op) -> std::string
      {
        if constexpr (merges_geometry<std::decay_t<decltype(op)>>::value)
          if (op.has_merged_geometry())
            return "tensor";
        return GPU::to_string(op.get_matrix_free().get_geometry_storage());
      };
      result.level_geometry =
          mg_data.precision == GPU::MultigridData::Precision::double_precision
              ? form(preconditioner.template get_level_operator<double>(finest))
              : form(preconditioner.template get_level_operator<float>(finest));
    }

    // Right-hand side on the device: f = dim pi^2 u on the cube, 1 on the
    // ball.
    timer.restart();
    GPU::Vector<double> u, f, r;
    system.initialize_dof_vector(u);
    system.initialize_dof_vector(f);
    system.initialize_dof_vector(r);
    system.get_matrix_free().cell_loop(
        GPU::SourceCell<dim, degree, PoissonSource<dim>>{{ball}}, f, f);
    system.get_matrix_free().set_constrained_values(0., f);
    GPU::Device::synchronize();
    result.setup_rhs = Utilities::MPI::max(timer.wall_time(), comm);

    // Solve from zero.
    const double  f_norm = f.l2_norm();
    SolverControl control(200, tolerance * f_norm);
    control.log_history(false);
    control.log_result(false);
    SolverCG<GPU::Vector<double>> cg(control);
    MPI_Barrier(comm);
    timer.restart();
    try
    {
      cg.solve(system, u, f, preconditioner);
    }
    catch (const SolverControl::NoConvergence &)
    {
      // Reported through the residual and the iteration count.
    }
    GPU::Device::synchronize();
    result.solve       = Utilities::MPI::max(timer.wall_time(), comm);
    result.to_solution = Utilities::MPI::max(since_start.wall_time(), comm);
    result.iterations  = control.last_step();

    system.vmult(r, u);
    r.sadd(-1., 1., f);
    result.residual = r.l2_norm() / f_norm;

    // One V-cycle, median of several.
    {
      std::vector<double> cycles;
      for (unsigned int i = 0; i < 5; ++i)
      {
        MPI_Barrier(comm);
        timer.restart();
        preconditioner.vmult(r, f);
        GPU::Device::synchronize();
        cycles.push_back(Utilities::MPI::max(timer.wall_time(), comm));
      }
      std::sort(cycles.begin(), cycles.end());
      result.v_cycle = cycles[cycles.size() / 2];
    }
    const auto device_memory = GPU::Device::memory_info();
    result.device_in_use     = device_memory.second - device_memory.first;
    result.memory            = system.memory_consumption() +
                    preconditioner.memory_consumption() +
                    3 * u.memory_consumption();

    if (!ball)
    {
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      LinearAlgebra::distributed::Vector<double> solution(
          dof_handler.locally_owned_dofs(), relevant, comm);
      u.copy_locally_owned_data_to(solution);
      constraints.distribute(solution);
      solution.update_ghost_values();
      Vector<float> cell_errors(
          dof_handler.get_triangulation().n_active_cells());
      VectorTools::integrate_difference(mapping,
                                        dof_handler,
                                        solution,
                                        ExactSolution<dim>(),
                                        cell_errors,
                                        QGauss<dim>(degree + 2),
                                        VectorTools::L2_norm);
      result.l2_error = VectorTools::compute_global_error(
          dof_handler.get_triangulation(), cell_errors, VectorTools::L2_norm);
    }
  }

  // Solve on the (refined) triangulation @p tria, with MappingQ(degree) on
  // the ball, to a relative residual of @p tolerance; a non-empty
  // @p reaction adds (c u, v) to the operator and every level (stored
  // coefficients only); @p geometry is the fine operator's (the levels take
  // mg_data.geometry); @p before_ours runs after deal.II's set-up, before
  // ours (the scaling benchmark measures its operators there, on the same
  // DoFs).
  template <int dim, int degree>
  Result
  solve(const parallel::distributed::Triangulation<dim> &tria,
        const bool                                       ball,
        const double                                     tolerance,
        const GPU::MultigridData &mg_data = GPU::MultigridData(),
        const std::function<double(const Point<dim> &)> &reaction = {},
        const GPU::GeometryStorage geometry = GPU::GeometryStorage::automatic,
        const std::function<void(const Mapping<dim> &,
                                 const DoFHandler<dim> &,
                                 const AffineConstraints<double> &)>
                             &before_ours = {},
        const CoefficientForm form        = CoefficientForm::stored)
  {
    AssertThrow(form == CoefficientForm::stored || !reaction,
                ExcMessage("a reaction term needs stored coefficients"));
    const MPI_Comm comm = tria.get_communicator();
    MPI_Barrier(comm);
    const Timer         since_start;
    Result              result;
    Timer               timer;
    const MappingQ<dim> mapping(ball ? degree : 1);
    const FE_Q<dim>     fe(degree);
    DoFHandler<dim>     dof_handler(tria);
    GPU::SetupTimer    &dealii_steps = result.dealii_steps;
    dealii_steps.start("distribute_dofs");
    dof_handler.distribute_dofs(fe);
    // p-coarsening builds its own FE_Q(1) level DoFs.
    dealii_steps.start("distribute_mg_dofs");
    if (!mg_data.p_coarsening || degree == 1)
      dof_handler.distribute_mg_dofs();
    dealii_steps.start("relevant DoFs");
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    dealii_steps.start("hanging nodes");
    AffineConstraints<double> constraints(relevant);
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    dealii_steps.start("boundary values");
    // u = 0: every DoF on the boundary, without interpolate_boundary_values'
    // evaluation of the mapping (0.2 of deal.II's 2.6 s at 1.2e8 Q4 DoFs).
    DoFTools::make_zero_boundary_constraints(dof_handler, 0, constraints);
    dealii_steps.start("close");
    constraints.close();
    dealii_steps.stop();
    result.n_dofs       = dof_handler.n_dofs();
    result.n_levels     = tria.n_global_levels();
    result.setup_dealii = Utilities::MPI::max(timer.wall_time(), comm);
    result.dealii_bytes = tria.memory_consumption() +
                          dof_handler.memory_consumption() +
                          constraints.memory_consumption();
    if (before_ours)
      before_ours(mapping, dof_handler, constraints);
    result.rss_before_ours = host_memory("VmRSS:");

    // Both forms: the fine operator, then the multigrid.
    const auto set_up = [&](auto &system, auto &preconditioner, auto &&reinit)
    {
      // reinit() sets result.setup_operator between the two.
      timer.restart();
      reinit();
      GPU::Device::synchronize();
      const GPU::SetupTimer &steps = preconditioner.get_setup_timer();
      result.peak_rss              = host_memory("VmHWM:");
      result.operator_steps        = system.get_setup_timer();
      result.multigrid_steps       = steps;
      const double transfer        = steps["transfer"];
      const double smoothers = steps["smoothers"] + steps["coarse solver"];
      result.setup_levels =
          Utilities::MPI::max(steps.total() - transfer - smoothers, comm);
      result.setup_transfer = Utilities::MPI::max(transfer, comm);
      result.setup_smoother = Utilities::MPI::max(smoothers, comm);
      solve_and_measure<dim, degree>(system,
                                     preconditioner,
                                     mg_data,
                                     mapping,
                                     dof_handler,
                                     constraints,
                                     ball,
                                     tolerance,
                                     since_start,
                                     result);
    };

    if (form == CoefficientForm::stored)
    {
      const std::function<double(const Point<dim> &)> coefficient =
          [ball](const Point<dim> &x)
      {
        Tensor<1, dim, double> t;
        for (unsigned int d = 0; d < dim; ++d)
          t[d] = x[d];
        return Diffusion{ball}(t);
      };
      GPU::LaplaceOperator<dim, degree, double> system;
      GPU::MultigridPreconditioner<dim, degree> preconditioner;
      set_up(system,
             preconditioner,
             [&]
             {
               system.reinit(mapping,
                             dof_handler,
                             constraints,
                             coefficient,
                             reaction,
                             numbers::invalid_unsigned_int,
                             false,
                             geometry);
               GPU::Device::synchronize();
               result.setup_operator =
                   Utilities::MPI::max(timer.wall_time(), comm);
               preconditioner.initialize(system,
                                         mapping,
                                         dof_handler,
                                         {0},
                                         coefficient,
                                         reaction,
                                         mg_data);
             });
    }
    else
    {
      using Operation = GPU::LaplaceOperation<Diffusion>;
      const Operation operation{Diffusion{ball}};
      GPU::MatrixFreeOperator<dim, degree, 1, double, Operation> system;
      GPU::MatrixFreeMultigrid<dim, degree, 1, Operation>        preconditioner;
      set_up(system,
             preconditioner,
             [&]
             {
               typename decltype(system)::AdditionalData data;
               data.geometry = geometry;
               system.reinit(
                   mapping, dof_handler, constraints, operation, data);
               GPU::Device::synchronize();
               result.setup_operator =
                   Utilities::MPI::max(timer.wall_time(), comm);
               preconditioner.initialize(
                   system, mapping, dof_handler, {0}, operation, mg_data);
             });
    }
    return result;
  }

} // namespace Poisson

#endif
