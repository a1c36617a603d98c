// step-37 on the GPU: -div(a(x) grad u) = 1 with u = 0 on the boundary and
// a(x) = 1 / (0.05 + 2 |x|^2), on the ball (MappingQ(k)) or the cube
// (-1, 1)^dim, refined adaptively with Kelly's error estimator (on the
// device, GPU::KellyErrorEstimator, unless the backend is cpu) and solved
// in every cycle by CG preconditioned with a geometric multigrid V-cycle
// (float, local smoothing on the mesh's multigrid hierarchy). The physics
// is one quadrature-point operation, GPU::LaplaceOperation with a(x)
// evaluated at the points, run by GPU::MatrixFreeOperator and
// GPU::MatrixFreeMultigrid on deal.II's CPU MatrixFree ("cpu"), on
// GPU::MatrixFree ("gpu", CUDA or the host backend), or on both ("both":
// the same solve twice, then the difference and the speedup).
// Prints a table per cycle: cells, DoFs, levels, iterations, estimator,
// mesh, setup and solve times (on the ball also the error of max u = u(0)
// against the exact solution); writes VTU of the last cycle.
//
//   poisson [poisson.prm] [--device=cuda|host]
//   mpirun -np N poisson ...
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/multigrid/matrix_free_multigrid.h>
#include <dealii-gpu/numerics/error_estimator.h>
#include <dealii-gpu/operators/matrix_free_operator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/parameter_handler.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/table_handler.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/grid_refinement.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/numerics/data_out.h>
#include <deal.II/numerics/error_estimator.h>
#include <deal.II/numerics/vector_tools.h>

#include "../application_main.h"
#include "../backend_comparison.h"
#include <iomanip>

using namespace dealii;

namespace PoissonApplication
{
  struct Parameters : Applications::CommonParameters
  {
    unsigned int dim    = 3;
    unsigned int degree = 2;
    std::string  geometry;
    unsigned int initial_refinements = 2;
    unsigned int cycles              = 6;
    double       refine_fraction     = 0.3;
    double       max_dofs            = 1e8;
    double       tolerance           = 1e-8;
    bool         write_vtu           = true;
    double       vtu_max_dofs        = 3e6;
    std::string  output_directory;

    void declare(ParameterHandler &prm)
    {
      prm.declare_entry("Dimension", "3", Patterns::Integer(2, 3));
      prm.declare_entry(
          "Degree", "2", Patterns::Integer(1, 4), "FE_Q degree (1 to 4)");
      prm.declare_entry("Geometry",
                        "ball",
                        Patterns::Selection("ball|cube"),
                        "ball: radius 1, MappingQ(degree); cube: (-1, 1)^dim");
      prm.declare_entry("Initial refinements",
                        "2",
                        Patterns::Integer(0, 12),
                        "Global refinements before the first cycle");
      prm.declare_entry("Cycles",
                        "6",
                        Patterns::Integer(1, 30),
                        "Solves; each after the first refines adaptively");
      prm.declare_entry("Refine fraction",
                        "0.3",
                        Patterns::Double(0, 1),
                        "Share of the cells with the largest Kelly "
                        "indicators refined in each cycle");
      prm.declare_entry("Max DoFs",
                        "1e8",
                        Patterns::Double(0),
                        "Stop the cycles before the mesh exceeds this size");
      prm.declare_entry(
          "Solver tolerance",
          "1e-8",
          Patterns::Double(0),
          "CG stops at this residual relative to the right-hand side");
      prm.declare_entry("Write VTU", "true", Patterns::Bool());
      prm.declare_entry("VTU up to DoFs", "3e6", Patterns::Double(0));
      prm.declare_entry("Output directory", ".", Patterns::DirectoryName());
      declare_common(prm, "gpu");
    }

    void parse(ParameterHandler &prm)
    {
      dim                 = prm.get_integer("Dimension");
      degree              = prm.get_integer("Degree");
      geometry            = prm.get("Geometry");
      initial_refinements = prm.get_integer("Initial refinements");
      cycles              = prm.get_integer("Cycles");
      refine_fraction     = prm.get_double("Refine fraction");
      max_dofs            = prm.get_double("Max DoFs");
      tolerance           = prm.get_double("Solver tolerance");
      write_vtu           = prm.get_bool("Write VTU");
      vtu_max_dofs        = prm.get_double("VTU up to DoFs");
      output_directory    = prm.get("Output directory");
      parse_common(prm);
    }
  };

  // a(x) at a quadrature point: deal.II's Point<dim, VectorizedArray> on
  // the CPU, a Tensor<1, dim> on the GPU, in the operator's precision.
  struct Coefficient
  {
    DEAL_II_GPU_PORTABLE_TEMPLATE
    template <typename Point>
    DEAL_II_GPU_HOST_DEVICE auto operator()(const Point &x) const
    {
      const auto r2 = GPU::squared_norm(x);
      using T       = std::decay_t<decltype(r2)>;
      return T(1.) / (T(0.05) + T(2.) * r2);
    }
  };

  using Operation = GPU::LaplaceOperation<Coefficient>;

  using Applications::Result;

  // On the ball the solution is radial, u' = -r (0.05 + 2 r^2) / dim, with
  // its maximum at the origin.
  template <int dim>
  double exact_maximum()
  {
    return (0.05 / 2. + 2. / 4.) / dim;
  }

  template <int dim, int degree>
  class Problem
  {
  public:
    Problem(const Parameters &param)
        : param(param), comm(MPI_COMM_WORLD),
          pcout(std::cout, Utilities::MPI::this_mpi_process(comm) == 0),
          tria(comm,
               Triangulation<dim>::limit_level_difference_at_vertices,
               parallel::distributed::Triangulation<
                   dim>::construct_multigrid_hierarchy),
          mapping(param.geometry == "ball" ? degree : 1), fe(degree),
          dof_handler(tria)
    {
    }

    void run()
    {
      pcout << "poisson: -div(a(x) grad u) = 1 on the " << param.geometry
            << ", " << dim << "D, Q" << degree << ", CG with a multigrid "
            << "V-cycle (" << param.multigrid.description() << "), backend "
            << param.run_on << " (" << GPU::Device::description() << "), "
            << Utilities::MPI::n_mpi_processes(comm) << " MPI rank(s)"
            << std::endl;
      // Steps of our set-up that take half a second or more print a line.
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        GPU::set_setup_progress(&std::cout);
      for (unsigned int cycle = 0; cycle < param.cycles; ++cycle)
      {
        Timer timer;
        if (cycle == 0)
        {
          if (param.geometry == "ball")
            GridGenerator::hyper_ball(tria);
          else
            GridGenerator::hyper_cube(tria, -1., 1.);
          tria.refine_global(param.initial_refinements);
        }
        else if (!refine_grid())
          break;
        const double mesh_time = timer.wall_time();
        pcout << "cycle " << cycle << ": " << tria.n_global_active_cells()
              << " cells, " << tria.n_global_levels() << " levels" << std::endl;
        setup_and_solve(cycle, mesh_time);
      }
      if (param.print_timings)
      {
        table.set_precision("Kelly [s]", 2);
        table.set_precision("mesh [s]", 2);
        table.set_precision("deal.II setup [s]", 2);
        table.set_precision("setup [s]", 2);
        table.set_precision("solve [s]", 3);
        table.set_scientific("solve DoFs/s", true);
      }
      table.set_scientific("max u", true);
      table.set_precision("max u", 6);
      table.set_scientific("error of max u", true);
      table.set_precision("error of max u", 2);
      pcout << std::endl;
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        table.write_text(std::cout, TableHandler::org_mode_table);
    }

  private:
    // Kelly refinement of the last solution; false where the refined mesh
    // would exceed Max DoFs.
    bool refine_grid()
    {
      const double growth =
          1. + param.refine_fraction *
                   (GeometryInfo<dim>::max_children_per_cell - 1);
      if (dof_handler.n_dofs() * growth > param.max_dofs)
      {
        pcout << "stop: the next mesh would exceed " << param.max_dofs
              << " DoFs" << std::endl;
        return false;
      }
      // Kelly's estimator on the device when the solve ran there.
      Timer         timer;
      Vector<float> indicators(tria.n_active_cells());
      if (param.run_on == "cpu")
        KellyErrorEstimator<dim>::estimate(mapping,
                                           dof_handler,
                                           QGauss<dim - 1>(degree + 1),
                                           {},
                                           solution,
                                           indicators);
      else
        GPU::KellyErrorEstimator<dim>::estimate(mapping,
                                                dof_handler,
                                                QGauss<dim - 1>(degree + 1),
                                                {},
                                                solution,
                                                indicators);
      estimate_time = Utilities::MPI::max(timer.wall_time(), comm);
      parallel::distributed::GridRefinement::refine_and_coarsen_fixed_number(
          tria, indicators, param.refine_fraction, 0.);
      tria.execute_coarsening_and_refinement();
      return true;
    }

    void setup_and_solve(const unsigned int cycle, const double mesh_time)
    {
      Timer timer;
      dof_handler.distribute_dofs(fe);
      dof_handler.distribute_mg_dofs();
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      AffineConstraints<double> constraints(relevant);
      DoFTools::make_hanging_node_constraints(dof_handler, constraints);
      // u = 0: every DoF on the boundary, without interpolate_boundary_values'
      // evaluation of the mapping (0.2 of deal.II's 2.6 s at 1.2e8 Q4 DoFs).
      DoFTools::make_zero_boundary_constraints(dof_handler, 0, constraints);
      constraints.close();
      const double dealii_time = Utilities::MPI::max(timer.wall_time(), comm);
      pcout << "  " << dof_handler.n_dofs() << " DoFs" << std::endl;

      std::vector<Result> results;
      if (param.run_on != "gpu")
        results.push_back(
            solve<GPU::MatrixFreeBackend::cpu>(constraints, relevant));
      if (param.run_on != "cpu")
        results.push_back(
            solve<GPU::MatrixFreeBackend::gpu>(constraints, relevant));
      solution = results.back().u;
      if (results.size() == 2)
        Applications::compare_backends(results[0], results[1], 1e-6, pcout);

      const double max_u = solution.linfty_norm();
      for (const Result &result : results)
      {
        table.add_value("cycle", cycle);
        table.add_value("cells", tria.n_global_active_cells());
        table.add_value("DoFs", dof_handler.n_dofs());
        table.add_value("levels", tria.n_global_levels());
        table.add_value("backend", result.name);
        table.add_value("CG iterations", result.iterations);
        if (param.print_timings)
        {
          table.add_value("Kelly [s]", estimate_time);
          table.add_value("mesh [s]", mesh_time);
          table.add_value("deal.II setup [s]", dealii_time);
          table.add_value("setup [s]", result.setup);
          table.add_value("solve [s]", result.solve);
          table.add_value("solve DoFs/s", dof_handler.n_dofs() / result.solve);
        }
        table.add_value("max u", max_u);
        if (param.geometry == "ball")
          table.add_value("error of max u",
                          std::abs(max_u - exact_maximum<dim>()));
      }

      if (param.write_vtu && cycle + 1 == param.cycles &&
          dof_handler.n_dofs() <= param.vtu_max_dofs)
        write_vtu(cycle);
    }

    // The operator, the multigrid and CG on one backend: the same
    // operation on deal.II's MatrixFree or on GPU::MatrixFree.
    template <GPU::MatrixFreeBackend backend>
    Result solve(const AffineConstraints<double> &constraints,
                 const IndexSet                  &relevant) const
    {
      const std::string name = GPU::to_string(backend);
      pcout << "  " << name << ": operator and multigrid ..." << std::endl;
      Result result;
      result.name = name;
      Timer timer;
      GPU::MatrixFreeOperator<dim, degree, 1, double, Operation, backend>
          system;
      system.reinit(mapping, dof_handler, constraints, Operation());
      GPU::MatrixFreeMultigrid<dim, degree, 1, Operation, backend> multigrid;
      multigrid.initialize(
          system, mapping, dof_handler, {0}, Operation(), param.multigrid);
      using VectorType = typename decltype(system)::VectorType;
      VectorType u, f;
      system.initialize_dof_vector(u);
      system.initialize_dof_vector(f);
      system.apply_operation(GPU::SourceOperation<>{{1.}}, f, u);
      GPU::Device::synchronize();
      result.setup = Utilities::MPI::max(timer.wall_time(), comm);
      pcout << "  " << name << " setup " << result.setup << " s: operator (";
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        system.get_setup_timer().print(std::cout);
      pcout << "), multigrid (coarse "
            << GPU::to_string(multigrid.get_additional_data().coarse_solver)
            << "; ";
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        multigrid.get_setup_timer().print(std::cout);
      pcout << ")" << std::endl;

      SolverControl control(200, param.tolerance * f.l2_norm());
      control.log_result(false);
      SolverCG<VectorType> cg(control);
      MPI_Barrier(comm);
      timer.restart();
      cg.solve(system, u, f, multigrid);
      GPU::Device::synchronize();
      result.solve      = Utilities::MPI::max(timer.wall_time(), comm);
      result.iterations = control.last_step();
      pcout << "  " << name << ": " << result.iterations << " CG iterations, "
            << result.solve << " s" << std::endl;

      Applications::copy_solution(u, dof_handler, relevant, result.u);
      constraints.distribute(result.u);
      result.u.update_ghost_values();
      return result;
    }

    void write_vtu(const unsigned int cycle) const
    {
      DataOut<dim> data_out;
      data_out.attach_dof_handler(dof_handler);
      data_out.add_data_vector(solution, "u");
      Vector<float> subdomain(tria.n_active_cells());
      for (auto &s : subdomain)
        s = tria.locally_owned_subdomain();
      data_out.add_data_vector(subdomain, "subdomain");
      Vector<float> level(tria.n_active_cells());
      for (const auto &cell : tria.active_cell_iterators())
        if (cell->is_locally_owned())
          level[cell->active_cell_index()] = cell->level();
      data_out.add_data_vector(level, "level");
      data_out.build_patches(mapping, degree, DataOut<dim>::curved_inner_cells);
      const std::string name = data_out.write_vtu_with_pvtu_record(
          param.output_directory + "/", "poisson_solution", cycle, comm, 3);
      pcout << "  wrote " << name << std::endl;
    }

    const Parameters                          &param;
    const MPI_Comm                             comm;
    ConditionalOStream                         pcout;
    parallel::distributed::Triangulation<dim>  tria;
    const MappingQ<dim>                        mapping;
    const FE_Q<dim>                            fe;
    DoFHandler<dim>                            dof_handler;
    LinearAlgebra::distributed::Vector<double> solution;
    TableHandler                               table;
    double                                     estimate_time = 0;
  };
} // namespace PoissonApplication

int
main(int argc, char **argv)
{
  return Applications::main<PoissonApplication::Parameters>(
      argc,
      argv,
      "poisson",
      [](const PoissonApplication::Parameters &param,
         auto                                  dim_constant,
         auto                                  degree_constant)
      {
        constexpr int dim    = decltype(dim_constant)::value;
        constexpr int degree = decltype(degree_constant)::value;
        PoissonApplication::Problem<dim, degree>(param).run();
      });
}
