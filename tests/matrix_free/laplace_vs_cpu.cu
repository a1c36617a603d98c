// GPU::MatrixFree against deal.II's CPU MatrixFree: the operator
// (A grad u, grad v) + (u, v) with A(x) = 1 / (0.05 + 2 |x|^2), zero
// Dirichlet rows, on random vectors; p4est meshes (cube, and the ball with
// MappingQ), 2D and 3D, scalar and vector-valued, atomics and coloring,
// double and float.
#include <dealii-gpu/matrix_free/fe_evaluation.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/operators/laplace_cell.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>

#include "../tests.h"

template <int dim, typename Number>
Number
coefficient(const Point<dim> &p)
{
  return Number(1. / (0.05 + 2. * p.norm_square()));
}

template <int dim, int degree, int n_comp, typename Number>
void
test(const bool ball, const bool coloring, const unsigned int refinements)
{
  parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
  if (ball)
    GridGenerator::hyper_ball(tria);
  else
    GridGenerator::hyper_cube(tria, -1., 1.);
  tria.refine_global(refinements);
  const unsigned int mapping_degree =
      ball ? std::max(2, std::min(degree, 4)) : 1;
  MappingQ<dim>   mapping(mapping_degree);
  const FE_Q<dim> fe_q(degree);
  FESystem<dim>   fe(fe_q, n_comp);
  DoFHandler<dim> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
  constraints.close();
  const QGauss<1> quadrature(degree + 1);

  // CPU reference: deal.II's MatrixFree in double.
  using CPUMatrixFree = dealii::MatrixFree<dim, double>;
  typename CPUMatrixFree::AdditionalData cpu_data;
  cpu_data.mapping_update_flags = update_values | update_gradients |
                                  update_JxW_values | update_quadrature_points;
  CPUMatrixFree cpu;
  cpu.reinit(mapping, dof_handler, constraints, quadrature, cpu_data);
  LinearAlgebra::distributed::Vector<double> src, dst_cpu;
  cpu.initialize_dof_vector(src);
  cpu.initialize_dof_vector(dst_cpu);
  std::uint64_t seed = 7 + Utilities::MPI::this_mpi_process(MPI_COMM_WORLD);
  for (unsigned int i = 0; i < src.locally_owned_size(); ++i)
    src.local_element(i) = random_value(seed) - 0.5;
  using HostVector = LinearAlgebra::distributed::Vector<double>;
  const std::function<void(const CPUMatrixFree &,
                           HostVector &,
                           const HostVector &,
                           const std::pair<unsigned int, unsigned int> &)>
      cell_operation = [](const CPUMatrixFree                        &data,
                          LinearAlgebra::distributed::Vector<double> &dst,
                          const LinearAlgebra::distributed::Vector<double> &src,
                          const std::pair<unsigned int, unsigned int> &range)
  {
    dealii::FEEvaluation<dim, degree, degree + 1, n_comp, double> phi(data);
    for (unsigned int cell = range.first; cell < range.second; ++cell)
    {
      phi.reinit(cell);
      phi.gather_evaluate(src,
                          EvaluationFlags::values | EvaluationFlags::gradients);
      for (unsigned int q = 0; q < phi.n_q_points; ++q)
      {
        const auto p = phi.quadrature_point(q);
        Point<dim> x;
        for (unsigned int d = 0; d < dim; ++d)
          x[d] = p[d][0];
        phi.submit_gradient(coefficient<dim, double>(x) * phi.get_gradient(q),
                            q);
        phi.submit_value(phi.get_value(q), q);
      }
      phi.integrate_scatter(
          EvaluationFlags::values | EvaluationFlags::gradients, dst);
    }
  };
  cpu.cell_loop(cell_operation, dst_cpu, src, true);

  // GPU::MatrixFree with the same input.
  GPU::MatrixFree<dim, Number>                          gpu;
  typename GPU::MatrixFree<dim, Number>::AdditionalData gpu_data(
      update_gradients | update_JxW_values | update_quadrature_points,
      coloring);
  gpu.reinit(mapping, dof_handler, constraints, quadrature, gpu_data);
  GPU::Array<Number> coefficients;
  gpu.evaluate_coefficient([](const Point<dim> &x)
                           { return coefficient<dim, Number>(x); },
                           coefficients);
  GPU::Vector<Number> gpu_src, gpu_dst;
  gpu.initialize_dof_vector(gpu_src);
  gpu.initialize_dof_vector(gpu_dst);
  LinearAlgebra::distributed::Vector<Number> host(src.get_partitioner());
  for (unsigned int i = 0; i < src.locally_owned_size(); ++i)
    host.local_element(i) = src.local_element(i);
  gpu_src.copy_locally_owned_data_from(host);
  GPU::LaplaceCoefficients<Number> k;
  k.diffusion         = coefficients.data();
  k.reaction_constant = Number(1);
  gpu.cell_loop(
      GPU::LaplaceCell<dim, degree, n_comp, Number>{k}, gpu_src, gpu_dst);
  gpu_dst.copy_locally_owned_data_to(host);

  double max_difference = 0;
  for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
    max_difference =
        std::max(max_difference,
                 std::abs(host.local_element(i) - dst_cpu.local_element(i)));
  const double error = Utilities::MPI::max(max_difference, MPI_COMM_WORLD) /
                       dst_cpu.linfty_norm();
  const double tolerance = sizeof(Number) == 8 ? 1e-12 : 1e-5;
  deallog << dim << "D "
          << (ball ? "ball MappingQ" + std::to_string(mapping_degree) : "cube")
          << " Q" << degree << (n_comp > 1 ? "^" + std::to_string(n_comp) : "")
          << (coloring ? " coloring" : " atomics")
          << (sizeof(Number) == 8 ? " double" : " float") << ", "
          << tria.n_global_active_cells() << " cells, " << dof_handler.n_dofs()
          << " DoFs: relative error "
          << (error <= tolerance ? "within " : "ABOVE ") << tolerance
          << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  test<2, 1, 1, double>(false, false, 4);
  test<2, 2, 1, double>(true, false, 3);
  test<2, 3, 1, double>(true, true, 3);
  test<2, 4, 2, double>(true, false, 2);
  test<2, 5, 1, float>(true, false, 2);
  test<3, 1, 1, double>(true, false, 2);
  test<3, 2, 1, double>(true, true, 1);
  test<3, 3, 3, double>(true, false, 1);
  test<3, 4, 1, double>(true, false, 1);
  test<3, 2, 1, float>(false, false, 2);
  test<2, 6, 1, double>(true, false, 1);
  test<2, 8, 1, double>(false, true, 1);
  test<3, 6, 1, double>(false, false, 1);
  test<3, 7, 1, float>(true, false, 0);
  test<3, 8, 1, double>(true, false, 0);
}
