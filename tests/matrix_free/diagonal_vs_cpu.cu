// The diagonal GPU::LaplaceOperator computes on the device (unit vectors
// through the sum-factorization kernels) against deal.II's
// MatrixFreeTools::compute_diagonal for (grad u, grad v) + (c(x) u, v),
// c(x) = 10 / (0.05 + 2 |x|^2), on the ball with MappingQ, with the same
// constrained-row convention (1 on Dirichlet rows); uniform meshes and
// meshes refined once more outside |x| = 0.5 (hanging nodes). vmult against
// deal.II's operator: laplace_vs_cpu and hanging_nodes_vs_cpu.
#include <dealii-gpu/operators/laplace_operator.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/tools.h>

#include "../meshes.h"
#include "../tests.h"

template <int dim>
double
reaction(const Point<dim> &p)
{
  return 10. / (0.05 + 2. * p.norm_square());
}

template <int dim, int degree>
void
test(const unsigned int refinements,
     const bool         adaptive = false,
     const bool         merged   = false)
{
  parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
  make_mesh(tria, true, refinements);
  if (adaptive)
    refine_shell(tria, 0.5, 10.);
  MappingQ<dim>   mapping(3);
  FE_Q<dim>       fe(degree);
  DoFHandler<dim> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
  constraints.close();

  // merged: a(x) = 1 + |x|^2 and no reaction, the Jacobians merged with a
  // (LaplaceTensorDiagonalCell).
  const auto diffusion = [merged](const Point<dim> &x)
  { return merged ? 1. + x.norm_square() : 1.; };
  GPU::LaplaceOperator<dim, degree, double> op;
  op.reinit(mapping,
            dof_handler,
            constraints,
            diffusion,
            merged ? std::function<double(const Point<dim> &)>()
                   : std::function<double(const Point<dim> &)>(&reaction<dim>),
            numbers::invalid_unsigned_int,
            false,
            GPU::GeometryStorage::automatic,
            merged);
  GPU::Vector<double> inverse_diagonal;
  op.compute_inverse_diagonal(inverse_diagonal);

  using CPUMatrixFree = dealii::MatrixFree<dim, double>;
  typename CPUMatrixFree::AdditionalData data;
  data.mapping_update_flags = update_values | update_gradients |
                              update_JxW_values | update_quadrature_points;
  CPUMatrixFree cpu;
  cpu.reinit(mapping, dof_handler, constraints, QGauss<1>(degree + 1), data);
  LinearAlgebra::distributed::Vector<double> diagonal;
  cpu.initialize_dof_vector(diagonal);
  const std::function<void(FEEvaluation<dim, degree, degree + 1, 1, double> &)>
      local = [&](FEEvaluation<dim, degree, degree + 1, 1, double> &phi)
  {
    phi.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
    for (unsigned int q = 0; q < phi.n_q_points; ++q)
    {
      Point<dim> x;
      for (unsigned int d = 0; d < dim; ++d)
        x[d] = phi.quadrature_point(q)[d][0];
      phi.submit_gradient(diffusion(x) * phi.get_gradient(q), q);
      phi.submit_value((merged ? 0. : reaction(x)) * phi.get_value(q), q);
    }
    phi.integrate(EvaluationFlags::values | EvaluationFlags::gradients);
  };
  MatrixFreeTools::compute_diagonal(cpu, diagonal, local);
  for (const unsigned int i : cpu.get_constrained_dofs())
    diagonal.local_element(i) = 1.;

  LinearAlgebra::distributed::Vector<double> gpu_inverse(
      diagonal.get_partitioner());
  inverse_diagonal.copy_locally_owned_data_to(gpu_inverse);
  double max_error = 0;
  for (unsigned int i = 0; i < diagonal.locally_owned_size(); ++i)
    max_error = max_keep_nan(max_error,
                             std::abs(1. / gpu_inverse.local_element(i) -
                                      diagonal.local_element(i)) /
                                 diagonal.local_element(i));
  max_error = max_over_ranks(max_error, MPI_COMM_WORLD);
  deallog << dim << "D Q" << degree << (adaptive ? " adaptive" : "")
          << (op.has_merged_geometry() ? ", a merged with the geometry" : "")
          << ", " << dof_handler.n_dofs() << " DoFs: diagonal relative error "
          << (max_error < 1e-12 ? "below" : "ABOVE") << " 1e-12" << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  test<2, 2>(2);
  FULL_TESTS_ONLY(test<2, 4>(1));
  test<3, 1>(1);
  FULL_TESTS_ONLY(test<3, 3>(1));
  FULL_TESTS_ONLY(test<2, 3>(2, true));
  test<3, 2>(1, true);
  test<3, 3>(1, true, true);
  FULL_TESTS_ONLY(test<3, 4>(1, true));
}
