// step-37's multigrid solve, written once (tests/step37_multigrid.h: the
// Chebyshev smoothers, coarse solver, level and interface matrices,
// Multigrid, PreconditionMG and CG), run with deal.II's CPU types and with
// ours swapped in: GPU::LaplaceOperator levels in float inside
// GPU::MGLevelOperator, GPU::MGInterfaceOperator, GPU::MGTransferMatrixFree
// and GPU::Vector. On adaptively refined p4est meshes of the ball
// (MappingQ(2), a(x) = 1 / (0.05 + 2 |x|^2), hanging nodes, local
// smoothing) both must take the same number of CG iterations (within 1)
// and give the same solution.
#include <dealii-gpu/multigrid/mg_level_operators.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>
#include <dealii-gpu/operators/laplace_operator.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/numerics/vector_tools.h>

#include "../meshes.h"
#include "../step37_multigrid.h"
#include "../tests.h"

template <int dim, int degree>
void
run(const unsigned int refinements)
{
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, true, refinements);
  refine_shell(tria, 0., 0.5);
  const MappingQ<dim> mapping(degree);
  const FE_Q<dim>     fe(degree);
  DoFHandler<dim>     dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  dof_handler.distribute_mg_dofs();
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  VectorTools::interpolate_boundary_values(
      mapping, dof_handler, 0, Functions::ZeroFunction<dim>(), constraints);
  constraints.close();
  const std::function<double(const Point<dim> &)> a = [](const Point<dim> &x)
  { return 1. / (0.05 + 2. * x.norm_square()); };

  // deal.II's types.
  Step37::CPUOperators<dim, degree>          cpu;
  LinearAlgebra::distributed::Vector<double> u_cpu, f_cpu;
  cpu.reinit(mapping, dof_handler, constraints, a);
  cpu.system.initialize_dof_vector(u_cpu);
  cpu.right_hand_side(f_cpu);
  const unsigned int cpu_iterations =
      cpu.solve(dof_handler, u_cpu, f_cpu, 1e-8);

  // Ours, in the same code.
  using LevelOperator = GPU::LaplaceOperator<dim, degree, float>;
  using LevelMatrix   = GPU::MGLevelOperator<LevelOperator>;
  GPU::LaplaceOperator<dim, degree, double> system;
  system.reinit(mapping, dof_handler, constraints, a);
  MGConstrainedDoFs mg_constrained_dofs;
  mg_constrained_dofs.initialize(dof_handler);
  mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, {0});
  const unsigned int           n_levels = tria.n_global_levels();
  MGLevelObject<LevelOperator> operators(0, n_levels - 1);
  MGLevelObject<LevelMatrix>   levels(0, n_levels - 1);
  MGLevelObject<GPU::MGInterfaceOperator<LevelMatrix>> interfaces(0,
                                                                  n_levels - 1);
  MGLevelObject<std::shared_ptr<DiagonalMatrix<GPU::Vector<float>>>>
      inverse_diagonals(0, n_levels - 1);
  std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> partitioners(
      n_levels);
  for (unsigned int level = 0; level < n_levels; ++level)
  {
    IndexSet level_relevant;
    DoFTools::extract_locally_relevant_level_dofs(
        dof_handler, level, level_relevant);
    AffineConstraints<double> level_constraints(level_relevant);
    level_constraints.add_lines(
        mg_constrained_dofs.get_boundary_indices(level));
    level_constraints.close();
    operators[level].reinit(
        mapping, dof_handler, level_constraints, a, {}, level);
    levels[level].initialize(operators[level], mg_constrained_dofs, level);
    interfaces[level].initialize(levels[level]);
    inverse_diagonals[level] =
        std::make_shared<DiagonalMatrix<GPU::Vector<float>>>();
    levels[level].compute_inverse_diagonal(
        inverse_diagonals[level]->get_vector());
    partitioners[level] =
        operators[level].get_matrix_free().get_vector_partitioner();
  }
  GPU::MGTransferMatrixFree<dim, float> transfer(mg_constrained_dofs);
  transfer.build(dof_handler, partitioners);
  GPU::Vector<double> u, f;
  system.initialize_dof_vector(u);
  system.initialize_dof_vector(f);
  f.copy_locally_owned_data_from(f_cpu);
  const unsigned int iterations = Step37::solve(dof_handler,
                                                system,
                                                u,
                                                f,
                                                levels,
                                                &interfaces,
                                                inverse_diagonals,
                                                transfer,
                                                1e-8);

  LinearAlgebra::distributed::Vector<double> difference(
      u_cpu.get_partitioner());
  u.copy_locally_owned_data_to(difference);
  difference -= u_cpu;
  const double relative = max_norm(difference) / max_norm(u_cpu);
  deallog << dim << "D Q" << degree << " adaptive ball, "
          << dof_handler.n_dofs() << " DoFs, " << n_levels
          << " levels: deal.II's CG iterations " << cpu_iterations
          << ", ours within 1: "
          << (iterations + 1 >= cpu_iterations &&
                      iterations <= cpu_iterations + 1
                  ? "yes"
                  : "no")
          << ", max difference of the solutions below 1e-6 of max |u|: "
          << (relative < 1e-6 ? "yes" : "no") << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  for (unsigned int r = 2; r <= 4; ++r)
    run<2, 2>(r);
  FULL_TESTS_ONLY(for (unsigned int r = 1; r <= 2; ++r) run<3, 2>(r));
}
