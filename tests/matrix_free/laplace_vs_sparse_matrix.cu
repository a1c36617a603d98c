// GPU::LaplaceOperator against the same bilinear form assembled into a
// deal.II SparseMatrix with FEValues: (A grad u, grad v) + (c u, v) with
// A(x) = 1 / (0.05 + 2 |x|^2) and c(x) = 10 / (0.05 + 2 |x|^2), Dirichlet
// DoFs eliminated, and hanging nodes on meshes refined once more on a
// shell. Compared on the unconstrained rows for a random vector that is zero
// on the constrained DoFs.
#include <dealii-gpu/operators/laplace_operator.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>

#include "../meshes.h"
#include "../tests.h"

template <int dim>
double
diffusion(const Point<dim> &p)
{
  return 1. / (0.05 + 2. * p.norm_square());
}

template <int dim>
double
reaction(const Point<dim> &p)
{
  return 10. / (0.05 + 2. * p.norm_square());
}

template <int dim, int degree, int n_comp>
void
test(const bool ball, const unsigned int refinements, const bool adaptive)
{
  Triangulation<dim> tria(
      Triangulation<dim>::limit_level_difference_at_vertices);
  make_mesh(tria, ball, refinements);
  if (adaptive)
    refine_shell(tria, 0.5, 10.);
  MappingQ<dim>   mapping(ball ? 3 : 1);
  const FE_Q<dim> fe_q(degree);
  FESystem<dim>   fe(fe_q, n_comp);
  DoFHandler<dim> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  AffineConstraints<double> constraints;
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
  constraints.close();

  // Assembled reference.
  DynamicSparsityPattern dsp(dof_handler.n_dofs());
  DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
  SparsityPattern sparsity;
  sparsity.copy_from(dsp);
  SparseMatrix<double> matrix(sparsity);
  FEValues<dim>        fe_values(mapping,
                          fe,
                          QGauss<dim>(degree + 1),
                          update_values | update_gradients | update_JxW_values |
                              update_quadrature_points);
  const unsigned int   dofs_per_cell = fe.n_dofs_per_cell();
  FullMatrix<double>   cell_matrix(dofs_per_cell, dofs_per_cell);
  std::vector<types::global_dof_index> indices(dofs_per_cell);
  for (const auto &cell : dof_handler.active_cell_iterators())
  {
    fe_values.reinit(cell);
    cell_matrix = 0;
    for (unsigned int q = 0; q < fe_values.n_quadrature_points; ++q)
    {
      const Point<dim> &x = fe_values.quadrature_point(q);
      for (unsigned int i = 0; i < dofs_per_cell; ++i)
        for (unsigned int j = 0; j < dofs_per_cell; ++j)
        {
          const unsigned int ci = fe.system_to_component_index(i).first;
          if (ci != fe.system_to_component_index(j).first)
            continue;
          cell_matrix(i, j) +=
              (diffusion(x) * (fe_values.shape_grad_component(i, q, ci) *
                               fe_values.shape_grad_component(j, q, ci)) +
               reaction(x) * fe_values.shape_value_component(i, q, ci) *
                   fe_values.shape_value_component(j, q, ci)) *
              fe_values.JxW(q);
        }
    }
    cell->get_dof_indices(indices);
    constraints.distribute_local_to_global(cell_matrix, indices, matrix);
  }

  dealii::Vector<double> src(dof_handler.n_dofs()), dst(dof_handler.n_dofs());
  std::uint64_t          seed = 3;
  for (unsigned int i = 0; i < src.size(); ++i)
    src(i) = constraints.is_constrained(i) ? 0. : random_value(seed) - 0.5;
  matrix.vmult(dst, src);

  GPU::LaplaceOperator<dim, degree, double, n_comp> op;
  op.reinit(mapping, dof_handler, constraints, &diffusion<dim>, &reaction<dim>);
  GPU::Vector<double> gpu_src, gpu_dst;
  op.initialize_dof_vector(gpu_src);
  op.initialize_dof_vector(gpu_dst);
  LinearAlgebra::distributed::Vector<double> host(gpu_src.get_partitioner());
  for (unsigned int i = 0; i < src.size(); ++i)
    host(i) = src(i);
  gpu_src.copy_locally_owned_data_from(host);
  op.vmult(gpu_dst, gpu_src);
  gpu_dst.copy_locally_owned_data_to(host);

  double difference = 0;
  for (unsigned int i = 0; i < dst.size(); ++i)
    if (!constraints.is_constrained(i))
      difference = std::max(difference, std::abs(host(i) - dst(i)));
  const double error = difference / dst.linfty_norm();
  deallog << dim << "D " << (ball ? "ball MappingQ3" : "cube")
          << (adaptive ? " refined outside |x| = 0.5" : "") << " Q" << degree
          << (n_comp > 1 ? "^" + std::to_string(n_comp) : "") << ", "
          << dof_handler.n_dofs() << " DoFs, " << matrix.n_nonzero_elements()
          << " matrix entries: relative error "
          << (error < 1e-12 ? "below" : "ABOVE") << " 1e-12" << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  LogInit                          log;
  test<2, 3, 1>(true, 2, false);
  test<2, 2, 2>(false, 3, false);
  test<3, 2, 1>(true, 1, false);
  test<3, 1, 3>(true, 1, false);
  test<3, 3, 1>(false, 1, false);
  test<2, 4, 1>(true, 2, true);
  test<2, 2, 2>(false, 2, true);
  test<3, 2, 1>(false, 2, true);
  test<3, 1, 3>(true, 1, true);
  test<3, 3, 1>(false, 2, true);
}
