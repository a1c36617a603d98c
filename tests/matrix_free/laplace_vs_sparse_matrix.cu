// GPU::LaplaceOperator against the same bilinear form assembled into a
// deal.II SparseMatrix with FEValues: (A grad u, grad v) + (c u, v) with
// A(x) = 1 / (0.05 + 2 |x|^2) and c(x) = 10 / (0.05 + 2 |x|^2), Dirichlet
// DoFs eliminated, and hanging nodes on meshes refined once more on a
// shell. Compared on the unconstrained rows for a random vector that is zero
// on the constrained DoFs; in some cases also the matrix itself, assembled
// on the device through FEEvaluation::dof_index() and
// for_each_local_result().
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/matrix_free/fe_evaluation.h>
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

// Column i of each cell matrix (set_unit_dof_values(i)) added into a dense
// n x n matrix at (for_each_local_result()'s row, dof_index(i)), skipping
// rows and columns reported as constrained_dof, as a sparse assembly does.
// Indices that are neither a DoF nor constrained_dof are counted.
template <int dim, int degree, int n_comp>
struct AssembleDense
{
  static constexpr unsigned int fe_degree     = degree;
  static constexpr unsigned int n_q_points_1d = degree + 1;
  static constexpr unsigned int n_components  = n_comp;

  GPU::LaplaceCoefficients<double> coefficients;
  double                          *matrix;
  unsigned int                     n;
  double                          *bad_indices;

  DEAL_II_GPU_HOST_DEVICE void
  operator()(const GPU::TeamMember                  &team,
             const unsigned int                      cell,
             const GPU::MatrixFreeData<dim, double> &data,
             const double *,
             double *) const
  {
    using FEEval = GPU::FEEvaluation<dim, degree, degree + 1, n_comp, double>;
    FEEval                                 phi(team, cell, data);
    const GPU::LaplaceCoefficients<double> k    = coefficients;
    double                                *m    = matrix;
    const unsigned int                     size = n;
    double                                *bad  = bad_indices;
    for (unsigned int i = 0; i < FEEval::dofs_per_cell; ++i)
    {
      phi.set_unit_dof_values(i);
      phi.evaluate(true, true);
      phi.apply_for_each_quad_point(
          [&](auto &p, const unsigned int q)
          { GPU::laplace_quadrature_operation(k, p, q); });
      phi.integrate(true, true);
      const unsigned int column = phi.dof_index(i);
      phi.for_each_local_result(
          [&](unsigned int, const unsigned int row, const double value)
          {
            if (row == GPU::constrained_dof || column == GPU::constrained_dof)
              return;
            if (row >= size || column >= size)
              GPU::atomic_add(bad, 1.);
            else
              GPU::atomic_add(m + std::size_t(row) * size + column, value);
          });
    }
  }
};

template <int dim, int degree, int n_comp, bool assemble = false>
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
      difference = max_keep_nan(difference, std::abs(host(i) - dst(i)));
  const double error = difference / max_norm(dst);

  // The matrix itself, against deal.II's on the unconstrained rows and
  // columns (one rank: vector indices are DoF numbers).
  std::string assembled;
  if constexpr (assemble)
  {
    const unsigned int n           = dof_handler.n_dofs();
    const auto        &matrix_free = op.get_matrix_free();
    GPU::Array<double> diffusion_values, reaction_values, dense, bad;
    matrix_free.evaluate_coefficient(&diffusion<dim>, diffusion_values);
    matrix_free.evaluate_coefficient(&reaction<dim>, reaction_values);
    dense.copy_from(std::vector<double>(std::size_t(n) * n, 0.));
    bad.copy_from(std::vector<double>(1, 0.));
    GPU::LaplaceCoefficients<double> k;
    k.diffusion = diffusion_values.data();
    k.reaction  = reaction_values.data();
    matrix_free.cell_loop(
        AssembleDense<dim, degree, n_comp>{k, dense.data(), n, bad.data()},
        gpu_src,
        gpu_dst);
    std::vector<double> entries, bad_count;
    dense.copy_to(entries);
    bad.copy_to(bad_count);
    double max_entry = 0, max_difference = 0;
    for (unsigned int i = 0; i < n; ++i)
      for (unsigned int j = 0; j < n; ++j)
        if (!constraints.is_constrained(i) && !constraints.is_constrained(j))
        {
          max_entry      = max_keep_nan(max_entry, std::abs(matrix.el(i, j)));
          max_difference = max_keep_nan(
              max_difference,
              std::abs(entries[std::size_t(i) * n + j] - matrix.el(i, j)));
        }
        else if (entries[std::size_t(i) * n + j] != 0.)
          max_difference = std::numeric_limits<double>::infinity();
    assembled =
        std::string("; matrix through dof_index(): relative error ") +
        (max_difference < 1e-12 * max_entry && bad_count[0] == 0. ? "below"
                                                                  : "ABOVE") +
        " 1e-12";
  }
  deallog << dim << "D " << (ball ? "ball MappingQ3" : "cube")
          << (adaptive ? " refined outside |x| = 0.5" : "") << " Q" << degree
          << (n_comp > 1 ? "^" + std::to_string(n_comp) : "") << ", "
          << dof_handler.n_dofs() << " DoFs, " << matrix.n_nonzero_elements()
          << " matrix entries: relative error "
          << (error < 1e-12 ? "below" : "ABOVE") << " 1e-12" << assembled
          << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  LogInit                          log;
  FULL_TESTS_ONLY(test<2, 3, 1, true>(true, 2, false));
  test<2, 2, 2>(false, 3, false);
  test<3, 2, 1>(true, 1, false);
  test<3, 1, 3>(true, 1, false);
  FULL_TESTS_ONLY(test<3, 3, 1>(false, 1, false));
  FULL_TESTS_ONLY(test<2, 4, 1>(true, 2, true));
  test<2, 2, 2, true>(false, 2, true);
  test<3, 2, 1, true>(false, 2, true);
  test<3, 1, 3, true>(true, 1, true);
  FULL_TESTS_ONLY(test<3, 3, 1>(false, 2, true));
}
