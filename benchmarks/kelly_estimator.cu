// Kelly's error estimator: deal.II's KellyErrorEstimator against
// GPU::KellyErrorEstimator on the same solution, in one run. The problem of
// applications/poisson's meshes: the ball (MappingQ(k)) refined globally,
// then once more inside |x| < 0.5 and 0.3 (hanging nodes), FE_Q(k), a
// smooth function interpolated. Prints a table
// (seconds, slowest rank; ours split into the face list, the cells' data
// and the device's integrals; the largest difference of a cell's indicator
// relative to it, floored at 1e-4 of the largest) and writes
// kelly_estimator.csv.
//   kelly_estimator [--degree=k] [--refinements=2,3,4] [--device=cuda|host]
//   mpirun -np N kelly_estimator ...
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/numerics/error_estimator.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/error_estimator.h>
#include <deal.II/numerics/vector_tools.h>

#include "../tests/meshes.h"
#include "command_line.h"
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace dealii;

const char usage[] =
    "usage: kelly_estimator [--degree=1..8] [--refinements=2,3,4]\n"
    "                       [--device=cuda|host]\n";

// A smooth function outside every FE_Q space (poisson's exact solution is
// a polynomial of degree 4, which Q4 holds on affine cells: its jumps
// there are roundoff).
struct Smooth : Function<3>
{
  double value(const Point<3> &p, const unsigned int) const override
  {
    return std::sin(2. * p[0] + 0.3) * std::cos(1.5 * p[1]) *
           std::exp(0.5 * p[2]);
  }
};

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  unsigned int                     degree = 2;
  std::vector<unsigned int>        refinements{2, 3, 4};
  const int                        status = Benchmarks::parse_command_line(
      argc,
      argv,
      usage,
      [&](const std::string &arg)
      {
        if (arg.rfind("--degree=", 0) == 0)
        {
          degree = std::stoi(arg.substr(9));
          if (degree < 1 || degree > 8)
            throw Benchmarks::UsageError("--degree=1..8");
        }
        else if (arg.rfind("--refinements=", 0) == 0)
          refinements = Benchmarks::unsigned_list(arg.substr(14));
        else
          return false;
        return true;
      });
  if (status >= 0)
    return status;
  Benchmarks::start_device(argc, argv);
  const MPI_Comm comm = MPI_COMM_WORLD;
  const bool     root = Utilities::MPI::this_mpi_process(comm) == 0;
  const auto     max  = [comm](const double t)
  { return Utilities::MPI::max(t, comm); };
  std::ofstream csv;
  if (root)
  {
    std::cout << "kelly_estimator: 3D ball, Q" << degree << ", MappingQ("
              << degree << "), backend " << GPU::Device::description() << ", "
              << Utilities::MPI::n_mpi_processes(comm) << " rank(s)\n"
              << "      DoFs     cells  deal.II[s]  ours[s]  faces[s] "
                 "cells[s] device[s]  speedup  max rel. diff"
              << std::endl;
    csv.open("kelly_estimator.csv");
    csv << "degree,ranks,dofs,cells,dealii_s,ours_s,faces_s,cell_data_s,"
           "integrals_s,max_relative_difference\n";
  }
  for (const unsigned int r : refinements)
  {
    parallel::distributed::Triangulation<3> tria(comm);
    make_mesh(tria, true, r);
    refine_shell(tria, 0., 0.5);
    refine_shell(tria, 0., 0.3);
    const FE_Q<3>     fe(degree);
    const MappingQ<3> mapping(degree);
    DoFHandler<3>     dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    LinearAlgebra::distributed::Vector<double> u(
        dof_handler.locally_owned_dofs(), relevant, comm);
    VectorTools::interpolate(mapping, dof_handler, Smooth(), u);
    u.update_ghost_values();
    const QGauss<2> quadrature(degree + 1);

    Vector<float> reference, ours;
    MPI_Barrier(comm);
    Timer timer;
    KellyErrorEstimator<3>::estimate(
        mapping, dof_handler, quadrature, {}, u, reference);
    const double dealii_time = max(timer.wall_time());
    // The first call pays the kernels' first launch; the best of three.
    GPU::KellyErrorEstimator<3>::estimate(
        mapping, dof_handler, quadrature, {}, u, ours);
    double          best = 1e300;
    GPU::SetupTimer best_steps;
    for (unsigned int i = 0; i < 3; ++i)
    {
      GPU::SetupTimer steps;
      MPI_Barrier(comm);
      timer.restart();
      GPU::KellyErrorEstimator<3>::estimate(
          mapping, dof_handler, quadrature, {}, u, ours, &steps);
      const double t = max(timer.wall_time());
      if (t < best)
      {
        best       = t;
        best_steps = steps;
      }
    }
    // Relative to each cell's indicator, floored at 1e-4 of the largest
    // (where the jumps are at roundoff level, so are the indicators).
    double largest = 0, worst = 0;
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned())
        largest =
            std::max(largest, double(reference[cell->active_cell_index()]));
    largest = max(largest);
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned())
      {
        const unsigned int i = cell->active_cell_index();
        worst                = std::max(worst,
                         std::abs(double(ours[i]) - reference[i]) /
                             (reference[i] + 1e-4 * largest));
      }
    worst               = max(worst);
    const double faces  = max(best_steps["faces"]);
    const double data   = max(best_steps["cell data"]);
    const double device = max(best_steps["integrals"]);
    if (root)
    {
      std::cout << std::setw(10) << dof_handler.n_dofs() << std::setw(10)
                << tria.n_global_active_cells() << std::setprecision(3)
                << std::setw(12) << dealii_time << std::setw(9) << best
                << std::setw(10) << faces << std::setw(9) << data
                << std::setw(10) << device << std::setw(9) << dealii_time / best
                << std::setw(15) << worst << std::endl;
      csv << degree << ',' << Utilities::MPI::n_mpi_processes(comm) << ','
          << dof_handler.n_dofs() << ',' << tria.n_global_active_cells() << ','
          << dealii_time << ',' << best << ',' << faces << ',' << data << ','
          << device << ',' << worst << '\n';
    }
  }
}
