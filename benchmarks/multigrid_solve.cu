// Time to solution of -div(a grad u) = 1 on the 3D ball (MappingQ, the
// coefficient of operator_throughput), or of the cube's problem with an
// exact solution (a = 1, --domain=cube, N^3 coarse cells), with CG and
// GPU::MultigridPreconditioner (a evaluated on the host and stored) or
// GPU::MatrixFreeMultigrid (--coefficient=kernel: a computed in the kernels)
// (V-cycle in float or double, double CG, 1e-8 residual reduction), on
// uniform meshes or adaptive ones (the globally refined mesh refined once
// more inside each radius, by default |x| < 0.5 and 0.3: hanging nodes,
// local smoothing): setup
// split into deal.II's DoFs and constraints, our fine-level operator, the
// multigrid levels, the transfer and the smoothers, then iterations, time
// per V-cycle and solve time. Prints a table and writes multigrid_solve.csv.
// Arguments: see usage below (--help).
#include <dealii-gpu/base/device.h>

#include <deal.II/base/utilities.h>

#include "../tests/poisson_problem.h"
#include "benchmark_timing.h"
#include "command_line.h"
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace dealii;

// The problem beyond the multigrid's choices.
const char usage[] =
    "usage: multigrid_solve [--degree=2|4] [--refinements=2,3,4]\n"
    "                       [--domain=ball|cube] [--subdivisions=N]\n"
    "                       [--coefficient=stored|kernel]\n"
    "                       [--mesh=uniform|adaptive] "
    "[--refine-radii=0.5,0.3]\n"
    "                       [--geometry=automatic|jacobians|points|field]\n"
    "                       [--vcycle=float|double]\n"
    "                       [--smoother=chebyshev|jacobi] "
    "[--smoothing-degree=N]\n"
    "                       [--smoothing-range=R]\n"
    "                       [--coarse=automatic|chebyshev|cg|amg|direct] "
    "[--p-coarsening]\n"
    "                       [--device=cuda|host]\n";

struct Problem
{
  bool                     ball         = true;
  unsigned int             subdivisions = 1;
  Poisson::CoefficientForm coefficient  = Poisson::CoefficientForm::stored;
  bool                     adaptive     = false;
  std::vector<double>      radii{0.5, 0.3};
  GPU::GeometryStorage     geometry = GPU::GeometryStorage::automatic;
};

template <int degree>
void
run(const std::vector<unsigned int> &refinements,
    const Problem                   &problem,
    const GPU::MultigridData        &data,
    std::ofstream                   &csv)
{
  const bool    adaptive = problem.adaptive;
  constexpr int dim      = 3;
  const bool    root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  for (const unsigned int r : refinements)
  {
    MPI_Barrier(MPI_COMM_WORLD);
    Timer                                     timer;
    parallel::distributed::Triangulation<dim> tria(
        MPI_COMM_WORLD,
        Triangulation<dim>::limit_level_difference_at_vertices,
        parallel::distributed::Triangulation<
            dim>::construct_multigrid_hierarchy);
    make_mesh(tria, problem.ball, r, problem.subdivisions);
    if (adaptive)
      for (const double radius : problem.radii)
        refine_shell(tria, 0., radius);
    const double mesh = Utilities::MPI::max(timer.wall_time(), MPI_COMM_WORLD);
    const Poisson::Result x = Poisson::solve<dim, degree>(tria,
                                                          problem.ball,
                                                          1e-8,
                                                          data,
                                                          {},
                                                          problem.geometry,
                                                          {},
                                                          problem.coefficient);
    const char           *precision =
        data.precision == GPU::MultigridData::Precision::double_precision
                      ? "double"
                      : "float";
    const char  *kind = adaptive ? "adaptive" : "uniform";
    const double setup_ours =
        x.setup_operator + x.setup_levels + x.setup_transfer + x.setup_smoother;
    const std::string dealii_steps    = steps_over_ranks(x.dealii_steps);
    const std::string operator_steps  = steps_over_ranks(x.operator_steps);
    const std::string multigrid_steps = steps_over_ranks(x.multigrid_steps);
    const std::string transfer_steps  = steps_over_ranks(x.transfer_steps);
    if (root)
    {
      std::cout << "Q" << degree << std::setw(9) << kind << std::setw(7)
                << precision << std::setw(11) << x.n_dofs << std::setw(4)
                << x.n_levels << std::setw(9) << std::setprecision(3) << mesh
                << std::setw(9) << x.setup_dealii << std::setw(9)
                << x.setup_operator << std::setw(9) << x.setup_levels
                << std::setw(9) << x.setup_transfer << std::setw(9)
                << x.setup_smoother << std::setw(5) << x.iterations
                << std::setw(10) << x.v_cycle * 1e3 << std::setw(9) << x.solve
                << std::setw(11) << x.n_dofs / x.solve << std::setw(11)
                << x.n_dofs / (x.solve + setup_ours + x.setup_dealii + mesh)
                << std::setw(8) << x.memory / 1e9 << std::setw(10) << x.residual
                << std::endl;
      std::cout << "    geometry: operator " << x.operator_geometry
                << ", finest level " << x.level_geometry << "; coarse solver "
                << x.coarse_solver << "; device GB in use after the solve "
                << x.device_in_use / 1e9;
      if (!problem.ball)
        std::cout << "; L2 error " << x.l2_error;
      std::cout << '\n';
      std::cout << "    steps, slowest on rank (fastest): deal.II: "
                << dealii_steps << "\n    operator: " << operator_steps
                << "\n    multigrid: " << multigrid_steps
                << "\n    transfer: " << transfer_steps;
      std::cout << "\n    host GB: deal.II objects " << x.dealii_bytes / 1e9
                << ", resident before our setup " << x.rss_before_ours / 1e9
                << ", peak " << x.peak_rss / 1e9 << std::endl;
      std::cout << "    wall clock from the mesh to the solution "
                << mesh + x.to_solution << " s (the steps' maxima add to "
                << mesh + x.setup_dealii + setup_ours + x.setup_rhs + x.solve
                << " s)" << std::endl;
      csv << degree << ',' << kind << ',' << precision << ',' << x.n_dofs << ','
          << x.n_levels << ',' << mesh << ',' << x.setup_dealii << ','
          << x.setup_operator << ',' << x.setup_levels << ','
          << x.setup_transfer << ',' << x.setup_smoother << ',' << x.setup_rhs
          << ',' << x.iterations << ',' << x.v_cycle << ',' << x.solve << ','
          << x.memory << ',' << x.residual << ',' << x.operator_geometry << ','
          << x.level_geometry << ',' << (problem.ball ? "ball" : "cube") << ','
          << (problem.coefficient == Poisson::CoefficientForm::kernel
                  ? "kernel"
                  : "stored")
          << ',' << x.device_in_use << ',' << x.l2_error << ','
          << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << ','
          << mesh + x.to_solution << '\n';
    }
  }
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  unsigned int                     degree = 2;
  std::vector<unsigned int>        refinements{2, 3, 4};
  Problem                          problem;
  GPU::MultigridData               data;
  const int                        status = Benchmarks::parse_command_line(
      argc,
      argv,
      usage,
      [&](const std::string &arg)
      {
        if (arg.rfind("--degree=", 0) == 0)
          degree = Benchmarks::degree_2_or_4(arg.substr(9));
        else if (arg.rfind("--refinements=", 0) == 0)
          refinements = Benchmarks::unsigned_list(arg.substr(14));
        else if (arg == "--mesh=adaptive" || arg == "--mesh=uniform")
          problem.adaptive = arg == "--mesh=adaptive";
        else if (arg.rfind("--refine-radii=", 0) == 0)
          problem.radii = Utilities::string_to_double(
              Utilities::split_string_list(arg.substr(15)));
        else if (arg == "--domain=ball" || arg == "--domain=cube")
          problem.ball = arg == "--domain=ball";
        else if (arg.rfind("--subdivisions=", 0) == 0)
          problem.subdivisions = std::stoi(arg.substr(15));
        else if (arg == "--coefficient=stored" || arg == "--coefficient=kernel")
          problem.coefficient = arg == "--coefficient=kernel"
                                                           ? Poisson::CoefficientForm::kernel
                                                           : Poisson::CoefficientForm::stored;
        else if (arg.rfind("--geometry=", 0) == 0)
          problem.geometry = GPU::geometry_storage_from_string(arg.substr(11));
        else if (arg == "--vcycle=double" || arg == "--vcycle=float")
          data.precision =
              arg == "--vcycle=double"
                                         ? GPU::MultigridData::Precision::double_precision
                                         : GPU::MultigridData::Precision::single_precision;
        else if (arg == "--smoother=jacobi" || arg == "--smoother=chebyshev")
          data.smoother = arg == "--smoother=jacobi"
                                                     ? GPU::MultigridData::Smoother::jacobi
                                                     : GPU::MultigridData::Smoother::chebyshev;
        else if (arg.rfind("--smoothing-degree=", 0) == 0)
          data.smoothing_degree = std::stoi(arg.substr(19));
        else if (arg.rfind("--smoothing-range=", 0) == 0)
          data.smoothing_range = std::stod(arg.substr(18));
        else if (arg == "--coarse=automatic")
          data.coarse_solver = GPU::MultigridData::CoarseSolver::automatic;
        else if (arg == "--coarse=chebyshev")
          data.coarse_solver = GPU::MultigridData::CoarseSolver::chebyshev;
        else if (arg == "--coarse=cg")
          data.coarse_solver = GPU::MultigridData::CoarseSolver::cg_jacobi;
        else if (arg == "--coarse=amg")
          data.coarse_solver = GPU::MultigridData::CoarseSolver::amg;
        else if (arg == "--coarse=direct")
          data.coarse_solver = GPU::MultigridData::CoarseSolver::direct;
        else if (arg == "--p-coarsening")
          data.p_coarsening = true;
        else
          return false;
        return true;
      });
  if (status >= 0)
    return status;
  Benchmarks::start_device(argc, argv);
  // --geometry sets the fine operator's and the levels'.
  data.geometry      = problem.geometry;
  const bool    root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  std::ofstream csv;
  if (root)
  {
    std::cout
        << "multigrid_solve: 3D "
        << (problem.ball ? "ball, MappingQ(k)"
                         : "cube of " + std::to_string(problem.subdivisions) +
                               "^3 coarse cells, MappingQ(1)")
        << ", coefficient "
        << (problem.coefficient == Poisson::CoefficientForm::kernel
                ? "in the kernels (GPU::MatrixFreeMultigrid)"
                : "stored (GPU::MultigridPreconditioner)")
        << ", CG + GMG (" << data.description() << "), 1e-8; backend "
        << GPU::Device::description() << ", "
        << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " rank(s)\n"
        << "   mesh   V-cycle     DoFs lev  mesh[s] dealII[s]  op[s] levels[s] "
           "trans[s] smooth[s]  it  Vcyc[ms] solve[s] DoFs/solve "
           "DoFs/total  GB  residual"
        << std::endl;
    csv.open("multigrid_solve.csv");
    csv << "degree,mesh,vcycle,dofs,levels,mesh_s,dealii_s,operator_s,levels_s,"
           "transfer_s,smoothers_s,rhs_s,iterations,v_cycle_s,solve_s,"
           "device_bytes,residual,operator_geometry,level_geometry,domain,"
           "coefficient,device_in_use,l2_error,ranks,wall_s\n";
  }
  if (degree == 2)
    run<2>(refinements, problem, data, csv);
  else
    run<4>(refinements, problem, data, csv);
}
