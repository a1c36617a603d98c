// The choices of GPU::MultigridData: damped Jacobi smoothing (omega from
// the estimated spectrum, and a given omega), CG-Jacobi, Trilinos AMG and
// Amesos KLU's direct solve as coarse solvers, and a reaction term (c u, v)
// on every level. Each must reach a 1e-8 reduction of the residual (checked
// with the double operator) with iteration counts that stay flat under
// refinement, on an adaptive cube (hanging nodes) in 3D and the ball in 2D.
// GPU::MGCoarseGridAMG's matrix is assembled on the host with FEValues: it
// must act like the device level operator on its level (random
// vector, diffusion and reaction, level boundary DoFs as identity rows).
#include <dealii-gpu/multigrid/mg_coarse_amg.h>

#include "../poisson_problem.h"
#include "../tests.h"
#include <random>

template <int dim>
double
reaction(const Point<dim> &x)
{
  return 10. / (0.05 + 2. * x.norm_square());
}

template <int dim, int degree>
void
check_coarse_matrix(const bool ball)
{
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, ball, 1);
  const MappingQ<dim> mapping(ball ? degree : 1);
  const FE_Q<dim>     fe(degree);
  DoFHandler<dim>     dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  dof_handler.distribute_mg_dofs();
  MGConstrainedDoFs mg_constrained_dofs;
  mg_constrained_dofs.initialize(dof_handler);
  mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, {0});
  const auto diffusion = [](const Point<dim> &x) { return 1. + x[0] * x[0]; };
  // Level 1 (the class takes any level): more interior DoFs than level 0.
  const unsigned int level = 1;

  GPU::MGCoarseGridAMG<dim, double> amg;
  amg.initialize(mapping,
                 dof_handler,
                 mg_constrained_dofs,
                 diffusion,
                 &reaction<dim>,
                 level);
  IndexSet relevant;
  DoFTools::extract_locally_relevant_level_dofs(dof_handler, level, relevant);
  AffineConstraints<double> level_constraints;
  level_constraints.reinit(relevant);
  level_constraints.add_lines(mg_constrained_dofs.get_boundary_indices(level));
  level_constraints.close();
  GPU::LaplaceOperator<dim, degree, double> level_operator;
  level_operator.reinit(mapping,
                        dof_handler,
                        level_constraints,
                        diffusion,
                        &reaction<dim>,
                        level);

  GPU::Vector<double> src, dst;
  level_operator.initialize_dof_vector(src);
  level_operator.initialize_dof_vector(dst);
  LinearAlgebra::distributed::Vector<double> host(src.get_partitioner());
  std::mt19937                               random(3);
  for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
    host.local_element(i) = std::uniform_real_distribution<>(-1, 1)(random);
  src.copy_locally_owned_data_from(host);
  level_operator.vmult(dst, src);
  LinearAlgebra::distributed::Vector<double> device_result(
      src.get_partitioner());
  dst.copy_locally_owned_data_to(device_result);

  const IndexSet owned = dof_handler.locally_owned_mg_dofs(level);
  TrilinosWrappers::MPI::Vector x(owned, MPI_COMM_WORLD), y(x);
  std::copy(host.begin(), host.begin() + host.locally_owned_size(), x.begin());
  amg.get_matrix().vmult(y, x);
  double difference = 0, norm = 0;
  for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
  {
    difference = max_keep_nan(
        difference, std::abs(y.begin()[i] - device_result.local_element(i)));
    norm = max_keep_nan(norm, std::abs(device_result.local_element(i)));
  }
  difference = max_over_ranks(difference, MPI_COMM_WORLD);
  norm       = Utilities::MPI::max(norm, MPI_COMM_WORLD);
  deallog << dim << "D Q" << degree << (ball ? " ball" : " cube")
          << ": AMG's assembled level matrix (" << amg.get_matrix().m()
          << " rows) equals the device level operator to 1e-12: "
          << (difference <= 1e-12 * norm ? "yes" : "no") << std::endl;
}

template <int dim, int degree>
void
solve(const std::string        &name,
      const GPU::MultigridData &data,
      const bool                ball,
      const bool                with_reaction,
      const unsigned int        min_ref,
      const unsigned int        max_ref)
{
  std::vector<unsigned int> iterations;
  bool                      converged = true;
  for (unsigned int r = min_ref; r <= max_ref; ++r)
  {
    parallel::distributed::Triangulation<dim> tria(
        MPI_COMM_WORLD,
        Triangulation<dim>::limit_level_difference_at_vertices,
        parallel::distributed::Triangulation<
            dim>::construct_multigrid_hierarchy);
    make_mesh(tria, ball, r);
    if (!ball)
      refine_shell(tria, 0., 0.5);
    const Poisson::Result result = Poisson::solve<dim, degree>(
        tria,
        ball,
        1e-8,
        data,
        with_reaction
            ? std::function<double(const Point<dim> &)>(&reaction<dim>)
            : std::function<double(const Point<dim> &)>());
    iterations.push_back(result.iterations);
    converged = converged && result.residual < 1e-8;
  }
  const auto [low, high] =
      std::minmax_element(iterations.begin(), iterations.end());
  deallog << dim << "D Q" << degree << (ball ? " ball" : " adaptive cube")
          << (with_reaction ? " with reaction" : "") << ", " << name << " ("
          << data.description() << "): iterations";
  for (const unsigned int i : iterations)
    deallog << ' ' << i;
  deallog << ", residual below 1e-8: " << (converged ? "yes" : "no")
          << ", within 2 of each other: " << (*high - *low <= 2 ? "yes" : "no")
          << std::endl;
}

// All choices on the 2D meshes; in 3D (slower on the host backend) Jacobi,
// coarse CG, and coarse AMG with the reaction term in double.
template <int dim, int degree>
void
run(const bool ball, const unsigned int min_ref, const unsigned int max_ref)
{
  using Data     = GPU::MultigridData;
  const bool all = dim == 2;
  Data       jacobi;
  jacobi.smoother         = Data::Smoother::jacobi;
  jacobi.smoothing_degree = 6;
  solve<dim, degree>("damped Jacobi", jacobi, ball, false, min_ref, max_ref);
  jacobi.jacobi_relaxation = 0.5;
  if (all)
    solve<dim, degree>(
        "Jacobi, omega 0.5", jacobi, ball, false, min_ref, max_ref);
  Data cg;
  cg.coarse_solver = Data::CoarseSolver::cg_jacobi;
  solve<dim, degree>("coarse CG", cg, ball, false, min_ref, max_ref);
  Data amg;
  amg.coarse_solver = Data::CoarseSolver::amg;
  if (all)
  {
    solve<dim, degree>("coarse AMG", amg, ball, false, min_ref, max_ref);
    Data direct;
    direct.coarse_solver = Data::CoarseSolver::direct;
    solve<dim, degree>("coarse direct", direct, ball, true, min_ref, max_ref);
    solve<dim, degree>("default", Data(), ball, true, min_ref, max_ref);
  }
  amg.precision = Data::Precision::double_precision;
  solve<dim, degree>("coarse AMG", amg, ball, true, min_ref, max_ref);
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  FULL_TESTS_ONLY(check_coarse_matrix<3, 2>(true));
  check_coarse_matrix<2, 3>(false);
  FULL_TESTS_ONLY(run<3, 2>(false, 3, 5));
  run<2, 3>(true, 2, 5);
}
