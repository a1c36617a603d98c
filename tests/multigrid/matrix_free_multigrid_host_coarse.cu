// The host coarse solvers (Trilinos ML AMG, direct) of GPU::MatrixFreeMultigrid
// on both backends, and of GPU::SparseMatrixMultigrid. First the coarse
// matrix of an operation as GPU::assemble_operation_level_matrix assembles it
// on the device against deal.II's FEValues assembly on level 0
// (GPU::assemble_level_matrix, the independent reference: Helmholtz with
// a(x), MappingQ(2), Q2, boundary rows as identity), to 1e-10. Then CG with
// the V-cycle to a 1e-8 reduction with the Chebyshev, direct and AMG coarse
// solvers on adaptive meshes: Helmholtz on the disk (Q2), elasticity on the
// cube (Q1, three components: AMG with a constant mode a component), and
// Helmholtz on a square of 16 x 16 coarse cells (Q2, 1089 coarse DoFs):
// iterations within one of the Chebyshev coarse solver's on each backend,
// solutions agreeing to 1e-6 with it. Also which solver the automatic
// choice takes: direct for these coarse levels on 3 ranks, Chebyshev on one
// rank and above 2000 coarse DoFs.
#include <dealii-gpu/multigrid/matrix_free_multigrid.h>
#include <dealii-gpu/multigrid/sparse_matrix_multigrid.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include "../ball_diffusion.h"
#include "../dofs_and_constraints.h"
#include "../meshes.h"
#include "../tests.h"

using Helmholtz = GPU::HelmholtzOperation<BallDiffusion, GPU::Constant<double>>;
using Elasticity = GPU::ElasticityOperation<>;
using Coarse     = GPU::MultigridData::CoarseSolver;

const Coarse coarse_solvers[] = {
    Coarse::chebyshev, Coarse::direct, Coarse::amg};
const char *const coarse_names[] = {"chebyshev", "direct", "amg"};

// Level 0's matrix of the Helmholtz operation on the disk against deal.II's.
void
check_coarse_matrix()
{
  constexpr int                             dim = 2;
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, true, 2);
  const MappingQ<dim> mapping(2);
  DoFHandler<dim>     dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<dim>(2));
  dof_handler.distribute_mg_dofs();
  MGConstrainedDoFs mg_constrained_dofs;
  mg_constrained_dofs.initialize(dof_handler);
  mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, {0});
  AffineConstraints<double> level_constraints;
  level_constraints.add_lines(mg_constrained_dofs.get_boundary_indices(0));
  level_constraints.close();

  TrilinosWrappers::SparseMatrix ours, reference;
  GPU::assemble_operation_level_matrix<dim, 1>(mapping,
                                               dof_handler,
                                               level_constraints,
                                               Helmholtz{{}, {1.}},
                                               QGauss<dim>(3),
                                               0,
                                               ours);
  GPU::assemble_level_matrix<dim>(
      mapping,
      dof_handler,
      mg_constrained_dofs,
      [](const Point<dim> &p) { return BallDiffusion()(p); },
      [](const Point<dim> &) { return 1.; },
      0,
      reference);
  const double norm = reference.frobenius_norm();
  ours.add(-1., reference);
  deallog << "Helmholtz 2D Q2 on the disk: coarse matrix " << reference.m()
          << " rows, equals deal.II's assembly to 1e-10: "
          << (ours.frobenius_norm() <= 1e-10 * norm ? "yes" : "no")
          << std::endl;
}

// CG with GPU::MatrixFreeMultigrid on @p backend, or with
// GPU::SparseMatrixMultigrid (@p sparse); the iterations, the solution in u.
template <int dim,
          int degree,
          int n_comp,
          typename Operation,
          GPU::MatrixFreeBackend backend,
          bool                   sparse,
          typename VectorType>
unsigned int
solve(const Mapping<dim>              &mapping,
      const DoFHandler<dim>           &dof_handler,
      const AffineConstraints<double> &constraints,
      const Operation                 &operation,
      const Coarse                     coarse,
      VectorType                      &u)
{
  GPU::MatrixFreeOperator<dim, degree, n_comp, double, Operation, backend>
      system;
  system.reinit(mapping, dof_handler, constraints, operation);
  VectorType b;
  system.initialize_dof_vector(b);
  system.initialize_dof_vector(u);
  b = 1.;
  constraints.set_zero(b);
  SolverControl        control(100, 1e-8 * b.l2_norm(), false, false);
  SolverCG<VectorType> cg(control);
  if constexpr (sparse)
  {
    GPU::SparseMatrixMultigridData data;
    data.coarse_solver = coarse;
    GPU::SparseMatrixMultigrid<dim, n_comp, Operation> multigrid;
    multigrid.initialize(mapping, dof_handler, {0}, operation, data);
    cg.solve(system, u, b, multigrid);
  }
  else
  {
    GPU::MultigridData data;
    data.coarse_solver = coarse;
    GPU::MatrixFreeMultigrid<dim, degree, n_comp, Operation, backend> multigrid;
    multigrid.initialize(mapping, dof_handler, {0}, operation, data);
    cg.solve(system, u, b, multigrid);
  }
  return control.last_step();
}

template <int dim,
          int degree,
          int n_comp,
          typename Operation,
          GPU::MatrixFreeBackend backend,
          bool                   sparse = false>
void
compare_coarse_solvers(const std::string               &name,
                       const Mapping<dim>              &mapping,
                       const DoFHandler<dim>           &dof_handler,
                       const AffineConstraints<double> &constraints,
                       const Operation                 &operation)
{
  using VectorType =
      std::conditional_t<backend == GPU::MatrixFreeBackend::gpu,
                         GPU::Vector<double>,
                         LinearAlgebra::distributed::Vector<double>>;
  VectorType   x[3];
  unsigned int its[3];
  bool         within = true, agree = true;
  for (unsigned int k = 0; k < 3; ++k)
  {
    its[k] = solve<dim, degree, n_comp, Operation, backend, sparse>(
        mapping, dof_handler, constraints, operation, coarse_solvers[k], x[k]);
    within = within && its[k] <= its[0] + 1 && its[0] <= its[k] + 1;
    if (k > 0)
    {
      x[k] -= x[0];
      agree = agree && max_norm(x[k]) <= 1e-6 * max_norm(x[0]);
    }
  }
  deallog << name << ", " << dof_handler.n_dofs() << " DoFs, "
          << (sparse                                   ? "sparse matrices"
              : backend == GPU::MatrixFreeBackend::gpu ? "GPU::MatrixFree"
                                                       : "deal.II's MatrixFree")
          << ": iterations";
  for (unsigned int k = 0; k < 3; ++k)
    deallog << ' ' << coarse_names[k] << ' ' << its[k];
  deallog << "; within one: " << (within ? "yes" : "no")
          << ", solutions agree to 1e-6: " << (agree ? "yes" : "no")
          << std::endl;
}

template <int  dim,
          int  degree,
          int  n_comp,
          bool with_sparse = false,
          typename Operation>
void
compare(const std::string &name,
        const Operation   &operation,
        const bool         ball,
        const unsigned int refinements,
        const unsigned int subdivisions = 1)
{
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, ball, refinements, subdivisions);
  refine_shell(tria, 0.3, 0.6);
  const MappingQ<dim>       mapping(ball ? degree : 1);
  DoFHandler<dim>           dof_handler(tria);
  AffineConstraints<double> constraints;
  distribute_dofs_and_constraints(dof_handler, degree, n_comp, constraints);
  compare_coarse_solvers<dim,
                         degree,
                         n_comp,
                         Operation,
                         GPU::MatrixFreeBackend::gpu>(
      name, mapping, dof_handler, constraints, operation);
  compare_coarse_solvers<dim,
                         degree,
                         n_comp,
                         Operation,
                         GPU::MatrixFreeBackend::cpu>(
      name, mapping, dof_handler, constraints, operation);
  {
    GPU::MatrixFreeMultigrid<dim, degree, n_comp, Operation> multigrid;
    multigrid.initialize(mapping, dof_handler, {0}, operation);
    deallog << name << ": the automatic coarse solver for "
            << dof_handler.n_dofs(0) << " coarse DoFs on "
            << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << " rank(s) is "
            << GPU::to_string(multigrid.get_additional_data().coarse_solver)
            << std::endl;
  }
  if constexpr (with_sparse)
    compare_coarse_solvers<dim,
                           degree,
                           n_comp,
                           Operation,
                           GPU::MatrixFreeBackend::gpu,
                           true>(
        name, mapping, dof_handler, constraints, operation);
}

// Above MultigridData::automatic_direct_max_dofs coarse DoFs the automatic
// choice is Chebyshev on any number of ranks.
void
check_automatic_limit()
{
  constexpr int                             dim = 2;
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, false, 1, 24);
  DoFHandler<dim>           dof_handler(tria);
  AffineConstraints<double> constraints;
  distribute_dofs_and_constraints(dof_handler, 2, 1, constraints);
  const GPU::MultigridData data =
      GPU::internal::resolve_coarse_solver(dof_handler, GPU::MultigridData());
  deallog << "square of 24 x 24 coarse cells, Q2: the automatic coarse solver "
             "for "
          << dof_handler.n_dofs(0) << " coarse DoFs is "
          << GPU::to_string(data.coarse_solver) << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  check_coarse_matrix();
  compare<2, 2, 1, true>(
      "Helmholtz 2D Q2, adaptive disk", Helmholtz{{}, {1.}}, true, 2);
  compare<3, 1, 3>(
      "elasticity 3D Q1, adaptive cube", Elasticity{{2.}, {1.}}, false, 3);
  compare<2, 2, 1>("Helmholtz 2D Q2, adaptive square of 16 x 16 coarse cells",
                   Helmholtz{{}, {1.}},
                   false,
                   2,
                   16);
  check_automatic_limit();
}
