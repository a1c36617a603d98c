// deal.II's own set-up steps of multigrid_solve (3D ball, FE_Q(k) and
// MappingQ(k), r global refinements), one by one, twice, with the slowest
// rank's seconds: each refinement round of the p4est mesh, distribute_dofs,
// distribute_mg_dofs, the relevant DoFs, hanging-node constraints, u = 0 by
// interpolate_boundary_values (MappingQ) against
// make_zero_boundary_constraints, MGConstrainedDoFs. Measured on the GPU
// machine's host to split the part of time to solution both sides share
// (doc/benchmarks.md, Time to solution). Built outside CMake against
// Debian's deal.II:
//   g++ -O2 -std=c++17 -DNDEBUG $(deal.II and MPI include flags)
//       dealii_setup_steps.cc -Wl,--copy-dt-needed-entries -ldeal.ii -ltbb
//       -lmpi -o dealii_setup_steps
//   mpirun -np 16 --bind-to core ./dealii_setup_steps 4 6
#include <deal.II/base/mpi.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/numerics/vector_tools.h>

#include <iostream>
using namespace dealii;
int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  const unsigned int degree = std::atoi(argv[1]), r = std::atoi(argv[2]);
  const MPI_Comm     comm   = MPI_COMM_WORLD;
  const bool         root   = Utilities::MPI::this_mpi_process(comm) == 0;
  auto               report = [&](const char *what, Timer &t)
  {
    const double s = Utilities::MPI::max(t.wall_time(), comm);
    if (root)
      std::cout << "  " << what << " " << s << " s" << std::endl;
    MPI_Barrier(comm);
    t.restart();
  };
  for (int rep = 0; rep < 2; ++rep)
  {
    MPI_Barrier(comm);
    Timer                                   t;
    parallel::distributed::Triangulation<3> tria(
        comm,
        Triangulation<3>::limit_level_difference_at_vertices,
        parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
    GridGenerator::hyper_ball(tria);
    report("hyper_ball", t);
    for (unsigned int i = 0; i < r; ++i)
    {
      tria.refine_global(1);
      if (root)
        std::cout << "  round " << i << " cells "
                  << tria.n_global_active_cells();
      report("", t);
    }
    const MappingQ<3> mapping(degree);
    const FE_Q<3>     fe(degree);
    DoFHandler<3>     dof(tria);
    dof.distribute_dofs(fe);
    report("distribute_dofs", t);
    dof.distribute_mg_dofs();
    report("distribute_mg_dofs", t);
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof, relevant);
    report("extract_locally_relevant_dofs", t);
    AffineConstraints<double> c(relevant);
    DoFTools::make_hanging_node_constraints(dof, c);
    report("make_hanging_node_constraints", t);
    VectorTools::interpolate_boundary_values(
        mapping, dof, 0, Functions::ZeroFunction<3>(), c);
    report("interpolate_boundary_values(MappingQ)", t);
    c.close();
    report("close", t);
    AffineConstraints<double> z(relevant);
    DoFTools::make_hanging_node_constraints(dof, z);
    t.restart();
    DoFTools::make_zero_boundary_constraints(dof, 0, z);
    report("make_zero_boundary_constraints", t);
    z.close();
    const bool same =
        Utilities::MPI::min(int(c.n_constraints() == z.n_constraints()), comm);
    if (root)
      std::cout << "  same number of constraints: " << same << " ("
                << c.n_constraints() << ")" << std::endl;
    t.restart();
    MGConstrainedDoFs mg;
    mg.initialize(dof);
    mg.make_zero_boundary_constraints(dof, {0});
    report("MGConstrainedDoFs", t);
    if (root)
      std::cout << "  DoFs " << dof.n_dofs() << std::endl;
  }
}
