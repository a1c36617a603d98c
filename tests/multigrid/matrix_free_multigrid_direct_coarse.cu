// GPU::MatrixFreeMultigrid's direct coarse solver (GPU backend): the coarse
// level's matrix probed from its operator (GPU::probe_matrix, one vmult a
// DoF) against the matrix deal.II's FEValues assemble on that level
// (GPU::assemble_level_matrix, the independent reference: Helmholtz with
// a(x), MappingQ(2), Q2, boundary rows as identity), to float precision;
// then CG with the V-cycle to a 1e-8 reduction with the Chebyshev coarse
// solver and with the direct one on adaptive meshes (Helmholtz on the
// disk, Q2; elasticity on the cube, Q1, whose Chebyshev coarse solve the
// applications replace by CG-Jacobi): iterations within one of each other
// and solutions agreeing to 1e-6.
#include <dealii-gpu/multigrid/matrix_free_multigrid.h>
#include <dealii-gpu/multigrid/mg_coarse_amg.h>
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
#include "../meshes.h"
#include "../tests.h"

using Helmholtz = GPU::HelmholtzOperation<BallDiffusion, GPU::Constant<double>>;
using Elasticity = GPU::ElasticityOperation<>;

template <int dim, int degree, int n_comp, typename Operation>
void
compare(const std::string &name, const Operation &operation, const bool ball)
{
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, ball, ball ? 2 : 3);
  refine_shell(tria, 0.3, 0.6);
  const MappingQ<dim> mapping(ball ? degree : 1);
  DoFHandler<dim>     dof_handler(tria);
  if (n_comp == 1)
    dof_handler.distribute_dofs(FE_Q<dim>(degree));
  else
    dof_handler.distribute_dofs(FESystem<dim>(FE_Q<dim>(degree), n_comp));
  dof_handler.distribute_mg_dofs();
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  DoFTools::make_zero_boundary_constraints(dof_handler, 0, constraints);
  constraints.close();

  GPU::MatrixFreeOperator<dim, degree, n_comp, double, Operation> system;
  system.reinit(mapping, dof_handler, constraints, operation);
  GPU::Vector<double> b, x[2];
  system.initialize_dof_vector(b);
  b = 1.;
  constraints.set_zero(b);
  unsigned int its[2];
  for (unsigned int k = 0; k < 2; ++k)
  {
    GPU::MultigridData data;
    data.coarse_solver = k == 0 ? GPU::MultigridData::CoarseSolver::chebyshev
                                : GPU::MultigridData::CoarseSolver::direct;
    GPU::MatrixFreeMultigrid<dim, degree, n_comp, Operation> multigrid;
    multigrid.initialize(mapping, dof_handler, {0}, operation, data);
    system.initialize_dof_vector(x[k]);
    SolverControl control(100, 1e-8 * b.l2_norm(), false, false);
    SolverCG<GPU::Vector<double>> cg(control);
    cg.solve(system, x[k], b, multigrid);
    its[k] = control.last_step();

    if (k == 1 && n_comp == 1)
    {
      // The probed coarse matrix against deal.II's assembly on level 0.
      TrilinosWrappers::SparseMatrix probed, assembled;
      const auto &coarse = multigrid.template get_level_operator<float>(0);
      GPU::Vector<float> layout;
      coarse.initialize_dof_vector(layout);
      GPU::probe_matrix<float>(
          layout,
          [&](GPU::Vector<float> &dst, const GPU::Vector<float> &src)
          { coarse.vmult(dst, src); },
          probed);
      MGConstrainedDoFs mg_constrained_dofs;
      mg_constrained_dofs.initialize(dof_handler);
      mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, {0});
      GPU::assemble_level_matrix<dim>(
          mapping,
          dof_handler,
          mg_constrained_dofs,
          [](const Point<dim> &p) { return BallDiffusion()(p); },
          [](const Point<dim> &) { return 1.; },
          0,
          assembled);
      const double norm = assembled.frobenius_norm();
      probed.add(-1., assembled);
      deallog << name << ": coarse matrix " << assembled.m()
              << " rows, probed equals deal.II's assembly to 1e-6: "
              << (probed.frobenius_norm() <= 1e-6 * norm ? "yes" : "no")
              << std::endl;
    }
  }
  x[1] -= x[0];
  deallog << name << ", " << dof_handler.n_dofs()
          << " DoFs: iterations chebyshev / direct coarse " << its[0] << " / "
          << its[1] << ", within one: "
          << (its[1] <= its[0] + 1 && its[0] <= its[1] + 1 ? "yes" : "no")
          << ", solutions agree to 1e-6: "
          << (x[1].linfty_norm() <= 1e-6 * x[0].linfty_norm() ? "yes" : "no")
          << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  compare<2, 2, 1>("Helmholtz 2D Q2, adaptive disk", Helmholtz{{}, {1.}}, true);
  compare<3, 1, 3>(
      "elasticity 3D Q1, adaptive cube", Elasticity{{2.}, {1.}}, false);
}
