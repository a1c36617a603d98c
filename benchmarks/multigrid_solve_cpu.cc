// The CPU rows of benchmarks/multigrid_solve: the same problem (3D ball,
// MappingQ(k), a(x) = 1 / (0.05 + 2 |x|^2), f = 1, u = 0 on the boundary,
// 1e-8 residual reduction, uniform or adaptive meshes), solved on deal.II's
// CPU with one MPI rank per core by
//   gmg: CG with step-37's geometric multigrid on deal.II's MatrixFree
//        (float V-cycle, Chebyshev(5) around the diagonal, Chebyshev coarse
//        solve, MGTransferMatrixFree, local smoothing with interface
//        matrices): the set-up GPU::MultigridPreconditioner mirrors;
//   amg: CG with Trilinos ML AMG on the assembled matrix.
// Prints a table and writes multigrid_solve_cpu.csv. The deal.II build is
// unvectorized (Debian's), so these rows are per core without SIMD.
// Arguments: see usage below (--help).
#include <deal.II/base/timer.h>
#include <deal.II/base/utilities.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_sparsity_pattern.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/operators.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>
#include <deal.II/multigrid/multigrid.h>
#include <deal.II/numerics/vector_tools.h>

#include "../tests/meshes.h"
#include "../tests/step37_multigrid.h"
#include "command_line.h"
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace dealii;

namespace
{
  constexpr int dim = 3;

  double coefficient(const Point<dim> &x)
  {
    return 1. / (0.05 + 2. * x.norm_square());
  }

  struct Result
  {
    types::global_dof_index n_dofs       = 0;
    unsigned int            n_levels     = 0;
    unsigned int            iterations   = 0;
    double                  setup_dealii = 0; // DoFs and constraints
    double                  setup_solver = 0; // operators/matrix, MG/AMG
    double                  solve        = 0;
    double                  residual     = 0;
    // From the solver's start to the end of its solve on the slowest rank
    // (the ranks enter together; see multigrid_solve).
    double to_solution = 0;
  };

  template <int degree>
  Result solve_gmg(const parallel::distributed::Triangulation<dim> &tria)
  {
    using VectorD       = LinearAlgebra::distributed::Vector<double>;
    const MPI_Comm comm = tria.get_communicator();
    MPI_Barrier(comm);
    const Timer         since_start;
    Result              result;
    Timer               timer;
    const MappingQ<dim> mapping(degree);
    const FE_Q<dim>     fe(degree);
    DoFHandler<dim>     dof_handler(tria);
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
    result.n_dofs       = dof_handler.n_dofs();
    result.n_levels     = tria.n_global_levels();
    result.setup_dealii = Utilities::MPI::max(timer.wall_time(), comm);

    timer.restart();
    Step37::CPUOperators<dim, degree> operators;
    operators.reinit(mapping, dof_handler, constraints, &coefficient);
    VectorD u, f, r;
    operators.system.initialize_dof_vector(u);
    operators.system.initialize_dof_vector(r);
    operators.right_hand_side(f);
    result.setup_solver = Utilities::MPI::max(timer.wall_time(), comm);

    MPI_Barrier(comm);
    timer.restart();
    result.iterations  = operators.solve(dof_handler, u, f, 1e-8);
    result.solve       = Utilities::MPI::max(timer.wall_time(), comm);
    result.to_solution = Utilities::MPI::max(since_start.wall_time(), comm);
    operators.system.vmult(r, u);
    r.sadd(-1., 1., f);
    result.residual = r.l2_norm() / f.l2_norm();
    return result;
  }

  template <int degree>
  Result solve_amg(const parallel::distributed::Triangulation<dim> &tria)
  {
    const MPI_Comm comm = tria.get_communicator();
    MPI_Barrier(comm);
    const Timer         since_start;
    Result              result;
    Timer               timer;
    const MappingQ<dim> mapping(degree);
    const FE_Q<dim>     fe(degree);
    DoFHandler<dim>     dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    const IndexSet owned = dof_handler.locally_owned_dofs();
    IndexSet       relevant;
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    AffineConstraints<double> constraints(relevant);
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    // u = 0: every DoF on the boundary, without interpolate_boundary_values'
    // evaluation of the mapping (0.2 of deal.II's 2.6 s at 1.2e8 Q4 DoFs).
    DoFTools::make_zero_boundary_constraints(dof_handler, 0, constraints);
    constraints.close();
    result.n_dofs       = dof_handler.n_dofs();
    result.n_levels     = tria.n_global_levels();
    result.setup_dealii = Utilities::MPI::max(timer.wall_time(), comm);

    timer.restart();
    TrilinosWrappers::SparsityPattern pattern(owned, owned, relevant, comm);
    DoFTools::make_sparsity_pattern(dof_handler,
                                    pattern,
                                    constraints,
                                    false,
                                    Utilities::MPI::this_mpi_process(comm));
    pattern.compress();
    TrilinosWrappers::SparseMatrix matrix;
    matrix.reinit(pattern);
    TrilinosWrappers::MPI::Vector f(owned, comm), u(owned, comm),
        r(owned, comm);
    {
      const QGauss<dim>                    quadrature(degree + 1);
      FEValues<dim>                        fe_values(mapping,
                              fe,
                              quadrature,
                              update_values | update_gradients |
                                  update_quadrature_points | update_JxW_values);
      const unsigned int                   n = fe.n_dofs_per_cell();
      FullMatrix<double>                   cell_matrix(n, n);
      dealii::Vector<double>               cell_rhs(n);
      std::vector<types::global_dof_index> indices(n);
      for (const auto &cell : dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
        {
          fe_values.reinit(cell);
          cell_matrix = 0;
          cell_rhs    = 0;
          for (const unsigned int q : fe_values.quadrature_point_indices())
          {
            const double a  = coefficient(fe_values.quadrature_point(q));
            const double dx = fe_values.JxW(q);
            for (unsigned int i = 0; i < n; ++i)
            {
              for (unsigned int j = 0; j < n; ++j)
                cell_matrix(i, j) +=
                    a *
                    (fe_values.shape_grad(i, q) * fe_values.shape_grad(j, q)) *
                    dx;
              cell_rhs(i) += fe_values.shape_value(i, q) * dx;
            }
          }
          cell->get_dof_indices(indices);
          constraints.distribute_local_to_global(
              cell_matrix, cell_rhs, indices, matrix, f);
        }
      matrix.compress(VectorOperation::add);
      f.compress(VectorOperation::add);
    }
    TrilinosWrappers::PreconditionAMG                 amg;
    TrilinosWrappers::PreconditionAMG::AdditionalData data;
    data.elliptic              = true;
    data.higher_order_elements = degree > 1;
    data.smoother_sweeps       = 2;
    data.aggregation_threshold = 0.02;
    amg.initialize(matrix, data);
    result.setup_solver = Utilities::MPI::max(timer.wall_time(), comm);

    const double  f_norm = f.l2_norm();
    SolverControl control(1000, 1e-8 * f_norm);
    control.log_result(false);
    SolverCG<TrilinosWrappers::MPI::Vector> cg(control);
    MPI_Barrier(comm);
    timer.restart();
    try
    {
      cg.solve(matrix, u, f, amg);
    }
    catch (const SolverControl::NoConvergence &)
    {
    }
    result.solve       = Utilities::MPI::max(timer.wall_time(), comm);
    result.to_solution = Utilities::MPI::max(since_start.wall_time(), comm);
    result.iterations  = control.last_step();
    matrix.residual(r, u, f);
    result.residual = r.l2_norm() / f_norm;
    return result;
  }

  template <int degree>
  void run(const std::vector<unsigned int> &refinements,
           const bool                       adaptive,
           const bool                       amg,
           std::ofstream                   &csv)
  {
    const MPI_Comm comm = MPI_COMM_WORLD;
    const bool     root = Utilities::MPI::this_mpi_process(comm) == 0;
    for (const unsigned int r : refinements)
    {
      MPI_Barrier(comm);
      Timer                                     timer;
      parallel::distributed::Triangulation<dim> tria(
          comm,
          Triangulation<dim>::limit_level_difference_at_vertices,
          parallel::distributed::Triangulation<
              dim>::construct_multigrid_hierarchy);
      make_mesh(tria, true, r);
      if (adaptive)
      {
        refine_shell(tria, 0., 0.5);
        refine_shell(tria, 0., 0.3);
      }
      const double mesh = Utilities::MPI::max(timer.wall_time(), comm);
      const Result x = amg ? solve_amg<degree>(tria) : solve_gmg<degree>(tria);
      const char  *kind  = adaptive ? "adaptive" : "uniform";
      const char  *name  = amg ? "amg" : "gmg";
      const double total = mesh + x.setup_dealii + x.setup_solver + x.solve;
      if (root)
      {
        std::cout << "Q" << degree << std::setw(9) << kind << std::setw(5)
                  << name << std::setw(11) << x.n_dofs << std::setw(4)
                  << x.n_levels << std::setw(9) << std::setprecision(3) << mesh
                  << std::setw(10) << x.setup_dealii << std::setw(10)
                  << x.setup_solver << std::setw(6) << x.iterations
                  << std::setw(10) << x.solve << std::setw(11)
                  << x.n_dofs / x.solve << std::setw(11) << x.n_dofs / total
                  << std::setw(10) << x.residual << std::endl;
        std::cout << "    wall clock from the mesh to the solution "
                  << mesh + x.to_solution << " s (the steps' maxima add to "
                  << total << " s)" << std::endl;
        csv << degree << ',' << kind << ',' << name << ','
            << Utilities::MPI::n_mpi_processes(comm) << ',' << x.n_dofs << ','
            << x.n_levels << ',' << mesh << ',' << x.setup_dealii << ','
            << x.setup_solver << ',' << x.iterations << ',' << x.solve << ','
            << x.residual << ',' << mesh + x.to_solution << '\n';
      }
    }
  }
} // namespace

const char usage[] = "usage: mpirun -np 16 multigrid_solve_cpu [--degree=2|4] "
                     "[--refinements=2,3]\n"
                     "         [--mesh=uniform|adaptive] [--solver=gmg|amg]\n";

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  unsigned int                     degree = 2;
  std::vector<unsigned int>        refinements{2, 3};
  bool                             adaptive = false, amg = false;
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
          adaptive = arg == "--mesh=adaptive";
        else if (arg == "--solver=amg" || arg == "--solver=gmg")
          amg = arg == "--solver=amg";
        else
          return false;
        return true;
      });
  if (status >= 0)
    return status;
  const bool    root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  std::ofstream csv;
  if (root)
  {
    std::cout << "multigrid_solve_cpu: 3D ball, MappingQ(k), 1e-8, deal.II "
              << DEAL_II_PACKAGE_VERSION << " on the CPU (unvectorized), "
              << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " rank(s)\n"
              << "   mesh  solver     DoFs lev  mesh[s] dealII[s] solver[s]"
                 "    it  solve[s] DoFs/solve DoFs/total  residual"
              << std::endl;
    csv.open("multigrid_solve_cpu.csv");
    csv << "degree,mesh,solver,ranks,dofs,levels,mesh_s,dealii_s,"
           "solver_setup_s,iterations,solve_s,residual,wall_s\n";
  }
  if (degree == 2)
    run<2>(refinements, adaptive, amg, csv);
  else
    run<4>(refinements, adaptive, amg, csv);
}
