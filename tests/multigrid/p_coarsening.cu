// p-multigrid: GPU::MGTransferP between FE_Q(k) and FE_Q(k_c) on one
// adaptively refined mesh (hanging nodes; in 3D also on edges), and
// GPU::MultigridPreconditioner with MultigridData::p_coarsening.
// - Prolongation of the FE_Q(k_c) interpolant of a polynomial of degree
//   k_c equals the FE_Q(k) interpolant (deal.II's VectorTools::interpolate)
//   at every unconstrained DoF, to 1e-12.
// - Restriction is the transpose of prolongation: (P c, f) = (c, R f) for
//   random vectors, to 1e-12, with hanging-node and Dirichlet constraints.
// - CG with the p-multigrid V-cycle reaches a 1e-8 reduction with flat
//   iteration counts (checked with the double operator), and
//   get_additional_data() names the coarse solver the FE_Q(1) hierarchy
//   took (automatic: chebyshev on one rank, direct on three).
#include "../poisson_problem.h"
#include "../tests.h"
#include <random>

// A polynomial of degree k_c in each coordinate.
template <int dim>
class Polynomial : public Function<dim>
{
public:
  explicit Polynomial(const unsigned int degree) : degree(degree) {}

  double value(const Point<dim> &x, const unsigned int = 0) const override
  {
    double v = 1;
    for (unsigned int d = 0; d < dim; ++d)
      v *= 0.5 + x[d] + std::pow(x[d], degree) * (d + 1);
    return v;
  }

private:
  const unsigned int degree;
};

template <int dim>
void
check_transfer(const unsigned int fine_degree, const unsigned int coarse_degree)
{
  parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
  make_mesh(tria, false, 2);
  refine_shell(tria, 0., 0.6);
  refine_shell(tria, 0., 0.3);
  const MappingQ<dim> mapping(1);
  const FE_Q<dim>     fine_fe(fine_degree), coarse_fe(coarse_degree);
  DoFHandler<dim>     fine(tria), coarse(tria);
  fine.distribute_dofs(fine_fe);
  coarse.distribute_dofs(coarse_fe);
  std::array<AffineConstraints<double>, 2> hanging, dirichlet;
  for (unsigned int side = 0; side < 2; ++side)
  {
    const DoFHandler<dim> &dh = side == 0 ? fine : coarse;
    IndexSet               relevant;
    DoFTools::extract_locally_relevant_dofs(dh, relevant);
    hanging[side].reinit(relevant);
    DoFTools::make_hanging_node_constraints(dh, hanging[side]);
    hanging[side].close();
    dirichlet[side].reinit(relevant);
    DoFTools::make_hanging_node_constraints(dh, dirichlet[side]);
    DoFTools::make_zero_boundary_constraints(dh, 0, dirichlet[side]);
    dirichlet[side].close();
  }
  const MPI_Comm comm = MPI_COMM_WORLD;
  using HostVector    = LinearAlgebra::distributed::Vector<double>;

  // Interpolation.
  {
    GPU::MGTransferP<dim, double> transfer;
    transfer.build(fine, hanging[0], coarse, hanging[1]);
    // interpolate() writes the DoFs of the locally owned cells: ghosted.
    IndexSet fine_relevant, coarse_relevant;
    DoFTools::extract_locally_relevant_dofs(fine, fine_relevant);
    DoFTools::extract_locally_relevant_dofs(coarse, coarse_relevant);
    HostVector f(fine.locally_owned_dofs(), fine_relevant, comm),
        c(coarse.locally_owned_dofs(), coarse_relevant, comm);
    const Polynomial<dim> polynomial(coarse_degree);
    VectorTools::interpolate(mapping, fine, polynomial, f);
    VectorTools::interpolate(mapping, coarse, polynomial, c);
    GPU::Vector<double> fine_vector(transfer.get_fine_partitioner()),
        coarse_vector(transfer.get_coarse_partitioner());
    coarse_vector.copy_locally_owned_data_from(c);
    transfer.prolongate(fine_vector, coarse_vector);
    HostVector p(fine.locally_owned_dofs(), comm);
    fine_vector.copy_locally_owned_data_to(p);
    double error = 0;
    for (const types::global_dof_index i : fine.locally_owned_dofs())
      if (!hanging[0].is_constrained(i))
        error = max_keep_nan(error, std::abs(p(i) - f(i)));
      else
        error = max_keep_nan(error, std::abs(p(i)));
    error = max_over_ranks(error, comm);
    deallog << dim << "D Q" << coarse_degree << " -> Q" << fine_degree << ", "
            << fine.n_dofs() << " / " << coarse.n_dofs()
            << " DoFs: prolongated interpolant equals the fine one: "
            << (error < 1e-12 * max_norm(f) ? "yes" : "no") << std::endl;
  }

  // Transpose, with Dirichlet constraints too.
  {
    GPU::MGTransferP<dim, double> transfer;
    transfer.build(fine, dirichlet[0], coarse, dirichlet[1]);
    std::mt19937 random(7);
    HostVector   f(fine.locally_owned_dofs(), comm),
        c(coarse.locally_owned_dofs(), comm);
    for (const types::global_dof_index i : fine.locally_owned_dofs())
      f(i) = dirichlet[0].is_constrained(i)
                 ? 0.
                 : std::uniform_real_distribution<>(-1, 1)(random);
    for (const types::global_dof_index i : coarse.locally_owned_dofs())
      c(i) = dirichlet[1].is_constrained(i)
                 ? 0.
                 : std::uniform_real_distribution<>(-1, 1)(random);
    GPU::Vector<double> fv(transfer.get_fine_partitioner()),
        cv(transfer.get_coarse_partitioner()),
        pc(transfer.get_fine_partitioner()),
        rf(transfer.get_coarse_partitioner());
    fv.copy_locally_owned_data_from(f);
    cv.copy_locally_owned_data_from(c);
    transfer.prolongate(pc, cv);
    rf = 0.;
    transfer.restrict_and_add(rf, fv);
    const double left = pc * fv, right = cv * rf;
    deallog << dim << "D Q" << coarse_degree << " -> Q" << fine_degree
            << " with Dirichlet DoFs: (P c, f) = (c, R f): "
            << (std::abs(left - right) <= 1e-12 * std::abs(left) ? "yes" : "no")
            << std::endl;
  }
}

template <int dim, int degree>
void
solve(const bool ball, const unsigned int min_ref, const unsigned int max_ref)
{
  GPU::MultigridData data;
  data.p_coarsening = true;
  std::vector<unsigned int> iterations;
  bool                      converged = true;
  // What get_additional_data() reports after initialize(): the FE_Q(1)
  // hierarchy's resolution of the automatic coarse solver.
  std::string coarse_taken;
  for (unsigned int r = min_ref; r <= max_ref; ++r)
  {
    parallel::distributed::Triangulation<dim> tria(
        MPI_COMM_WORLD,
        Triangulation<dim>::limit_level_difference_at_vertices,
        parallel::distributed::Triangulation<
            dim>::construct_multigrid_hierarchy);
    make_mesh(tria, ball, r);
    refine_shell(tria, 0., 0.5);
    const Poisson::Result result =
        Poisson::solve<dim, degree>(tria, ball, 1e-8, data);
    iterations.push_back(result.iterations);
    coarse_taken = result.coarse_solver;
    converged    = converged && result.residual < 1e-8;
  }
  const auto [low, high] =
      std::minmax_element(iterations.begin(), iterations.end());
  deallog << dim << "D Q" << degree << (ball ? " ball" : " cube")
          << " adaptive, p-multigrid (" << data.description()
          << "): coarse solver taken " << coarse_taken << ", iterations";
  for (const unsigned int i : iterations)
    deallog << ' ' << i;
  deallog << ", residual below 1e-8: " << (converged ? "yes" : "no")
          << ", within 2 of each other: " << (*high - *low <= 2 ? "yes" : "no")
          << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  check_transfer<2>(3, 1);
  check_transfer<2>(4, 2);
  check_transfer<3>(2, 1);
  check_transfer<3>(4, 2);
  solve<2, 4>(true, 2, 5);
  FULL_TESTS_ONLY(solve<3, 2>(false, 2, 4));
}
