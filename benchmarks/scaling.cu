// Scaling over GPUs, one MPI rank a GPU (issue 26): -Laplace u = f on the
// box [0, B] x [0, 1]^2, u = 0 on the boundary, f from the exact solution
// prod sin(pi x_d) (tests/poisson_problem.h). The box is B unit cubes of
// 3^3 coarse cells, refined globally; adaptive meshes refine once more the
// cells within each radius of their unit cube's center (hanging nodes, local
// smoothing). Weak scaling runs B = P on P GPUs, strong scaling a fixed B.
// On one set of deal.II DoFs it measures
// - the operator GPU::MatrixFreeOperator<LaplaceOperation>, with and
//   without overlap of ghost exchange and cell work: median seconds of an
//   application;
// - the ghost exchange of its vectors (update_ghost_values, compress(add)):
//   seconds and bytes sent plus received per GPU;
// - CG with GPU::MultigridPreconditioner (float V-cycle) to a 1e-8
//   residual: iterations, V-cycle, solve, set-up (tests/poisson_problem.h).
// Prints a table and appends a row to the CSV file.
// Arguments: see usage below (--help).
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/operators/matrix_free_operator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/utilities.h>
#include <deal.II/grid/grid_generator.h>

#include "../tests/poisson_problem.h"
#include "command_line.h"
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sys/stat.h>

using namespace dealii;

namespace
{
  struct Options
  {
    unsigned int        degree = 2, boxes = 1, refinements = 3;
    bool                adaptive = false;
    std::vector<double> radii{0.39, 0.26};
    unsigned int        repetitions = 20;
    std::string         csv         = "scaling.csv";
  };

  // What the operator and ghost-exchange measurements give (seconds are
  // medians of the slowest rank).
  struct OperatorTimes
  {
    std::string geometry;
    double      setup = 0, apply = 0, apply_no_overlap = 0;
    double      update_ghosts = 0, compress = 0;
    // Entries sent plus received by a rank: the mean and the largest.
    double exchanged_mean = 0, exchanged_max = 0;
  };

  // Median over ranks' maxima of @p repetitions calls of @p f.
  template <typename F>
  double median_seconds(const unsigned int repetitions, const F &f)
  {
    std::vector<double> t;
    for (unsigned int i = 0; i < repetitions; ++i)
    {
      MPI_Barrier(MPI_COMM_WORLD);
      Timer timer;
      f();
      GPU::Device::synchronize();
      t.push_back(Utilities::MPI::max(timer.wall_time(), MPI_COMM_WORLD));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }

  template <int degree>
  OperatorTimes measure_operator(const Mapping<3>                &mapping,
                                 const DoFHandler<3>             &dof_handler,
                                 const AffineConstraints<double> &constraints,
                                 const unsigned int               repetitions)
  {
    using Operation = GPU::LaplaceOperation<>;
    using Operator  = GPU::MatrixFreeOperator<3, degree, 1, double, Operation>;
    const bool parallel = Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) > 1;
    OperatorTimes times;
    for (const bool overlap : {true, false})
    {
      if (!overlap && !parallel)
        break;
      Operator                          op;
      typename Operator::AdditionalData data;
      data.overlap_communication_computation = overlap;
      Timer timer;
      op.reinit(mapping, dof_handler, constraints, Operation{{1.}}, data);
      GPU::Device::synchronize();
      GPU::Vector<double> src, dst;
      op.initialize_dof_vector(src);
      op.initialize_dof_vector(dst);
      src = 1.;
      op.vmult(dst, src);
      const double apply =
          median_seconds(repetitions, [&]() { op.vmult(dst, src); });
      if (!overlap)
      {
        times.apply_no_overlap = apply;
        break;
      }
      times.setup = Utilities::MPI::max(timer.wall_time(), MPI_COMM_WORLD);
      times.apply = apply;
      times.geometry =
          GPU::to_string(op.get_matrix_free().get_geometry_storage());
      times.update_ghosts = median_seconds(repetitions,
                                           [&]()
                                           {
                                             src.update_ghost_values();
                                             src.zero_out_ghost_values();
                                           });
      times.compress      = median_seconds(
          repetitions, [&]() { dst.compress(VectorOperation::add); });
      const auto  &partitioner = *src.get_partitioner();
      const double exchanged   = double(partitioner.n_ghost_indices() +
                                      partitioner.n_import_indices());
      times.exchanged_mean = Utilities::MPI::sum(exchanged, MPI_COMM_WORLD) /
                             Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
      times.exchanged_max = Utilities::MPI::max(exchanged, MPI_COMM_WORLD);
    }
    return times;
  }

  template <int degree>
  void run(const Options &options)
  {
    const MPI_Comm     comm   = MPI_COMM_WORLD;
    const unsigned int n_gpus = Utilities::MPI::n_mpi_processes(comm);
    const bool         root   = Utilities::MPI::this_mpi_process(comm) == 0;
    Timer              timer;
    parallel::distributed::Triangulation<3> tria(
        comm,
        Triangulation<3>::limit_level_difference_at_vertices,
        parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    GridGenerator::subdivided_hyper_rectangle(tria,
                                              {3 * options.boxes, 3u, 3u},
                                              Point<3>(),
                                              Point<3>(options.boxes, 1., 1.));
    tria.refine_global(options.refinements);
    if (options.adaptive)
      for (const double radius : options.radii)
      {
        for (const auto &cell : tria.active_cell_iterators())
          if (cell->is_locally_owned())
          {
            const Point<3> x = cell->center();
            const Point<3> center(std::floor(x[0]) + 0.5, 0.5, 0.5);
            if (x.distance(center) <= radius)
              cell->set_refine_flag();
          }
        tria.execute_coarsening_and_refinement();
      }
    const double mesh = Utilities::MPI::max(timer.wall_time(), comm);

    OperatorTimes op;
    const auto    measure = [&](const Mapping<3>                &mapping,
                             const DoFHandler<3>             &dof_handler,
                             const AffineConstraints<double> &constraints)
    {
      op = measure_operator<degree>(
          mapping, dof_handler, constraints, options.repetitions);
    };
    GPU::MultigridData    data;
    const Poisson::Result x = Poisson::solve<3, degree>(
        tria, false, 1e-8, data, {}, GPU::GeometryStorage::automatic, measure);
    const double setup_ours =
        x.setup_operator + x.setup_levels + x.setup_transfer + x.setup_smoother;
    const double rate = 8. * (op.exchanged_mean) / op.update_ghosts / 1e9;
    if (!root)
      return;
    const char *kind = options.adaptive ? "adaptive" : "uniform";
    std::cout << std::setw(4) << n_gpus << "  Q" << degree << std::setw(9)
              << kind << std::setw(3) << options.boxes << std::setw(11)
              << std::setprecision(3) << double(x.n_dofs) << std::setw(10)
              << double(x.n_dofs) / n_gpus << std::setw(9) << op.apply * 1e3
              << std::setw(9) << op.apply_no_overlap * 1e3 << std::setw(10)
              << double(x.n_dofs) / op.apply << std::setw(9)
              << op.update_ghosts * 1e3 << std::setw(9) << op.compress * 1e3
              << std::setw(8) << (n_gpus > 1 ? rate : 0.) << std::setw(4)
              << x.iterations << std::setw(9) << x.v_cycle * 1e3 << std::setw(8)
              << x.solve << std::setw(8) << mesh << std::setw(8)
              << x.setup_dealii << std::setw(8) << setup_ours << std::setw(9)
              << x.residual << std::setw(9) << x.l2_error << std::endl;
    std::cout << "    operator geometry " << op.geometry << ", set-up "
              << op.setup << " s; ghost entries a rank: mean "
              << op.exchanged_mean << ", max " << op.exchanged_max
              << "; multigrid levels " << x.n_levels
              << ", device GB in use (rank 0) " << x.device_in_use / 1e9
              << std::endl;
    struct stat   info;
    const bool    fresh = stat(options.csv.c_str(), &info) != 0;
    std::ofstream csv(options.csv, std::ios::app);
    if (fresh)
      csv << "gpus,degree,mesh,boxes,dofs,cells,levels,operator_geometry,"
             "operator_setup_s,apply_s,apply_no_overlap_s,update_ghosts_s,"
             "compress_s,exchanged_entries_mean,exchanged_entries_max,"
             "iterations,v_cycle_s,solve_s,mesh_s,dealii_s,ours_s,residual,"
             "l2_error,device_bytes_in_use\n";
    csv << n_gpus << ',' << degree << ',' << kind << ',' << options.boxes << ','
        << x.n_dofs << ',' << tria.n_global_active_cells() << ',' << x.n_levels
        << ',' << op.geometry << ',' << op.setup << ',' << op.apply << ','
        << op.apply_no_overlap << ',' << op.update_ghosts << ',' << op.compress
        << ',' << op.exchanged_mean << ',' << op.exchanged_max << ','
        << x.iterations << ',' << x.v_cycle << ',' << x.solve << ',' << mesh
        << ',' << x.setup_dealii << ',' << setup_ours << ',' << x.residual
        << ',' << x.l2_error << ',' << x.device_in_use << '\n';
  }
} // namespace

const char usage[] =
    "usage: mpirun -np P scaling --degree=2|4 --boxes=B --refinements=r\n"
    "         [--mesh=uniform|adaptive] [--radii=0.39,0.26] "
    "[--repetitions=20]\n"
    "         [--csv=scaling.csv] [--device=cuda|host]\n";

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  Options                          options;
  const int                        status = Benchmarks::parse_command_line(
      argc,
      argv,
      usage,
      [&](const std::string &arg)
      {
        const auto value = [&](const std::string &key)
        { return arg.substr(key.size()); };
        if (arg.rfind("--degree=", 0) == 0)
          options.degree = std::stoi(value("--degree="));
        else if (arg.rfind("--boxes=", 0) == 0)
          options.boxes = std::stoi(value("--boxes="));
        else if (arg.rfind("--refinements=", 0) == 0)
          options.refinements = std::stoi(value("--refinements="));
        else if (arg == "--mesh=adaptive" || arg == "--mesh=uniform")
          options.adaptive = arg == "--mesh=adaptive";
        else if (arg.rfind("--radii=", 0) == 0)
          options.radii = Utilities::string_to_double(
              Utilities::split_string_list(value("--radii=")));
        else if (arg.rfind("--repetitions=", 0) == 0)
          options.repetitions = std::stoi(value("--repetitions="));
        else if (arg.rfind("--csv=", 0) == 0)
          options.csv = value("--csv=");
        else
          return false;
        if (options.degree != 2 && options.degree != 4)
          throw Benchmarks::UsageError("--degree=2 or 4");
        if (options.boxes <= 0 || options.repetitions <= 0)
          throw Benchmarks::UsageError(
              "--boxes and --repetitions must be positive");
        return true;
      });
  if (status >= 0)
    return status;
  Benchmarks::start_device(argc, argv);
  if (Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
  {
    std::cout << "scaling: box [0," << options.boxes
              << "]x[0,1]^2, MappingQ1, CG + GMG (float V-cycle), 1e-8; "
              << GPU::Device::description() << ", "
              << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD)
              << " rank(s)\n"
                 "gpus   k     mesh  B       DoFs  DoFs/GPU  A[ms] "
                 "A-noov[ms]  DoFs/s A ghost[ms] cmpr[ms] GB/s/GPU  it "
                 "Vcyc[ms] solve[s] mesh[s] dealII[s] ours[s] residual "
                 "L2error"
              << std::endl;
  }
  if (options.degree == 2)
    run<2>(options);
  else
    run<4>(options);
}
