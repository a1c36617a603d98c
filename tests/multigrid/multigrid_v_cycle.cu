// deal.II's Multigrid and PreconditionMG on GPU::Vector with kernel-based
// level operators, transfers and Chebyshev smoothers: CG iterations must
// stay bounded as the grid is refined (mesh-independent convergence), and
// the solution must match u(x) = x (1 - x).
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/mg_level_object.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/multigrid.h>

#include "../stencil_operator.h"
#include "../tests.h"

using VectorType = GPU::Vector<double>;
using Operator   = Stencil::LaplaceOperator<double>;

void
run(const unsigned int n_levels)
{
  const unsigned int      max_level = n_levels - 1;
  MGLevelObject<Operator> operators(0, max_level);
  for (unsigned int l = 0; l <= max_level; ++l)
    operators[l].reinit((2u << l) - 1, MPI_COMM_SELF);

  using Smoother =
      PreconditionChebyshev<Operator, VectorType, DiagonalMatrix<VectorType>>;
  mg::SmootherRelaxation<Smoother, VectorType> smoother;
  MGLevelObject<Smoother::AdditionalData>      smoother_data(0, max_level);
  for (unsigned int l = 0; l <= max_level; ++l)
  {
    smoother_data[l].degree          = 3;
    smoother_data[l].smoothing_range = 15.;
    smoother_data[l].preconditioner =
        std::make_shared<DiagonalMatrix<VectorType>>();
    operators[l].compute_inverse_diagonal(
        smoother_data[l].preconditioner->get_vector());
  }
  smoother.initialize(operators, smoother_data);

  SolverControl coarse_control(100, 1e-14);
  coarse_control.log_result(false);
  SolverCG<VectorType> coarse_solver(coarse_control);
  PreconditionIdentity identity;
  MGCoarseGridIterativeSolver<VectorType,
                              SolverCG<VectorType>,
                              Operator,
                              PreconditionIdentity>
      coarse(coarse_solver, operators[0], identity);

  mg::Matrix<VectorType>    mg_matrix(operators);
  Stencil::Transfer<double> transfer(operators);
  Multigrid<VectorType>     mg(mg_matrix, coarse, transfer, smoother, smoother);

  // PreconditionMG asks for a DoFHandler; this transfer does not use it.
  Triangulation<1> tria;
  GridGenerator::hyper_cube(tria);
  FE_Q<1>       fe(1);
  DoFHandler<1> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  PreconditionMG<1, VectorType, Stencil::Transfer<double>> preconditioner(
      dof_handler, mg, transfer);

  const Operator &A = operators[max_level];
  VectorType      u, f;
  A.initialize_dof_vector(u);
  A.initialize_dof_vector(f);
  f = 2.;
  SolverControl control(100, 1e-10 * f.l2_norm());
  control.log_result(false);
  SolverCG<VectorType> solver(control);
  solver.solve(A, u, f, preconditioner);

  LinearAlgebra::distributed::Vector<double> host(A.partitioner);
  u.copy_locally_owned_data_to(host);
  double             error = 0;
  const unsigned int n     = A.n_points();
  for (unsigned int i = 0; i < n; ++i)
  {
    const double x = double(i + 1) / (n + 1);
    error          = max_keep_nan(error, std::abs(host(i) - x * (1 - x)));
  }
  deallog << "levels " << n_levels << " unknowns " << n
          << " CG iterations at most 10: "
          << (control.last_step() <= 10 ? "yes" : "no")
          << " error below 1e-9: " << (error < 1e-9 ? "yes" : "no")
          << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  LogInit                          log;
  for (unsigned int levels = 3; levels <= 12; levels += 3)
    run(levels);
}
