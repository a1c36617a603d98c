// GPU::MatrixFree against deal.II's CPU MatrixFree for the operator
// (A grad u, grad v) + (u, v) with A(x) = 1 / (0.05 + 2 |x|^2) on random
// vectors, with hanging-node and zero Dirichlet constraints; with the
// merged diffusion tensor (LaplaceTensorCell) the operator has no mass term;
// with the mapping field the coefficient is evaluated in the kernel.
#ifndef dealii_gpu_tests_compare_with_cpu_h
#define dealii_gpu_tests_compare_with_cpu_h

#include <dealii-gpu/dofs/dof_renumbering.h>
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
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>

#include "../meshes.h"
#include "../tests.h"

template <int dim, typename Number>
Number
coefficient(const Point<dim> &p)
{
  return Number(1. / (0.05 + 2. * p.norm_square()));
}

// The GPU cell functor a comparison runs. A template argument, so that a
// test compiles the kernels of the functors it runs and no others.
enum class Cell
{
  // LaplaceCell, the coefficient stored at the quadrature points.
  laplace,
  // LaplaceFunctionCell, the coefficient computed in the kernel; with the
  // mapping field only.
  function,
  // LaplaceTensorCell after release_geometry(); no mass term.
  tensor
};

// The reference: deal.II's CPU MatrixFree in double, applied to a random
// @p src; both vectors are set up here. Not a template of the GPU functor,
// so that the comparisons of several functors share its instantiation.
template <int dim, int degree, int n_comp, bool mass>
void
cpu_reference(const Mapping<dim>                         &mapping,
              const DoFHandler<dim>                      &dof_handler,
              const AffineConstraints<double>            &constraints,
              const Quadrature<1>                        &quadrature,
              LinearAlgebra::distributed::Vector<double> &src,
              LinearAlgebra::distributed::Vector<double> &dst)
{
  using CPUMatrixFree = dealii::MatrixFree<dim, double>;
  using HostVector    = LinearAlgebra::distributed::Vector<double>;
  typename CPUMatrixFree::AdditionalData cpu_data;
  cpu_data.mapping_update_flags = update_values | update_gradients |
                                  update_JxW_values | update_quadrature_points;
  CPUMatrixFree cpu;
  cpu.reinit(mapping, dof_handler, constraints, quadrature, cpu_data);
  cpu.initialize_dof_vector(src);
  cpu.initialize_dof_vector(dst);
  std::uint64_t seed = 7 + Utilities::MPI::this_mpi_process(MPI_COMM_WORLD);
  for (unsigned int i = 0; i < src.locally_owned_size(); ++i)
    src.local_element(i) = random_value(seed) - 0.5;
  const std::function<void(const CPUMatrixFree &,
                           HostVector &,
                           const HostVector &,
                           const std::pair<unsigned int, unsigned int> &)>
      cell_operation = [](const CPUMatrixFree                         &data,
                          HostVector                                  &dst,
                          const HostVector                            &src,
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
        if constexpr (mass)
          phi.submit_value(phi.get_value(q), q);
      }
      phi.integrate_scatter(
          (mass ? EvaluationFlags::values : EvaluationFlags::nothing) |
              EvaluationFlags::gradients,
          dst);
    }
  };
  cpu.cell_loop(cell_operation, dst, src, true);
}

// How the DoFs are renumbered before both operators run: not, for the GPU
// cell loop's reads, or lexicographically inside the coarse cells or the
// cells of level 1 (GPU::DoFRenumbering::block_lexicographic, whose blocks'
// DoF indices GPU::MatrixFree computes instead of storing them).
enum class Renumbering
{
  none,
  data_locality,
  coarse_blocks,
  level_1_blocks
};

// Applies both operators on @p tria and logs whether they agree to 1e-12
// (double) or 1e-5 (float), relative to the largest entry.
template <int dim,
          int degree,
          int n_comp,
          typename Number,
          Cell cell = Cell::laplace>
void
compare_with_cpu(
    const parallel::distributed::Triangulation<dim> &tria,
    const std::string                               &mesh_name,
    const unsigned int                               mapping_degree,
    const bool                                       coloring,
    const GPU::GeometryStorage geometry = GPU::GeometryStorage::jacobians,
    const bool                 overlap  = true,
    const GPU::CellThreads     threads  = GPU::CellThreads::automatic,
    const Renumbering          renumber = Renumbering::none)
{
  MappingQ<dim>   mapping(mapping_degree);
  const FE_Q<dim> fe_q(degree);
  FESystem<dim>   fe(fe_q, n_comp);
  DoFHandler<dim> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  AffineConstraints<double> constraints;
  const auto                make_constraints = [&]
  {
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    constraints.clear();
    constraints.reinit(relevant);
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
    constraints.close();
  };
  make_constraints();
  const QGauss<1>                                       quadrature(degree + 1);
  typename GPU::MatrixFree<dim, Number>::AdditionalData gpu_data(
      update_gradients | update_JxW_values | update_quadrature_points,
      coloring,
      numbers::invalid_unsigned_int,
      0,
      overlap,
      geometry);
  gpu_data.cell_threads = threads;

  // Renumbered for the GPU cell loop's reads: both operators then run on
  // the new numbering, which must be a permutation of each rank's range.
  std::string renumbered;
  if (renumber != Renumbering::none)
  {
    std::vector<types::global_dof_index> new_numbers;
    if (renumber == Renumbering::data_locality)
    {
      GPU::MatrixFree<dim, Number> layout;
      layout.reinit(mapping, dof_handler, constraints, quadrature, gpu_data);
      new_numbers = GPU::DoFRenumbering::compute_matrix_free_data_locality(
          dof_handler, layout);
    }
    else
      new_numbers = GPU::DoFRenumbering::compute_block_lexicographic(
          dof_handler, renumber == Renumbering::coarse_blocks ? 0 : 1);
    std::vector<types::global_dof_index> sorted(new_numbers);
    std::sort(sorted.begin(), sorted.end());
    const IndexSet &owned       = dof_handler.locally_owned_dofs();
    bool            permutation = sorted.size() == owned.n_elements();
    for (unsigned int i = 0; permutation && i < sorted.size(); ++i)
      permutation = sorted[i] == owned.nth_index_in_set(i);
    permutation = Utilities::MPI::min(permutation ? 1 : 0, MPI_COMM_WORLD);
    dof_handler.renumber_dofs(new_numbers);
    make_constraints();
    renumbered =
        std::string(renumber == Renumbering::data_locality ? ", renumbered"
                    : renumber == Renumbering::coarse_blocks
                        ? ", coarse cells numbered as blocks"
                        : ", level-1 cells numbered as blocks") +
        (permutation ? " (a permutation of the owned DoFs)"
                     : ", NOT a permutation");
  }

  constexpr bool tensor = cell == Cell::tensor;
  AssertThrow((geometry == GPU::GeometryStorage::field) ==
                  (cell == Cell::function),
              ExcMessage("the mapping field runs LaplaceFunctionCell, and "
                         "only it"));
  LinearAlgebra::distributed::Vector<double> src, dst_cpu;
  cpu_reference<dim, degree, n_comp, !tensor>(
      mapping, dof_handler, constraints, quadrature, src, dst_cpu);

  // GPU::MatrixFree with the same input.
  GPU::MatrixFree<dim, Number> gpu;
  gpu.reinit(mapping, dof_handler, constraints, quadrature, gpu_data);
  GPU::Array<Number> coefficients;
  gpu.evaluate_coefficient([](const Point<dim> &x)
                           { return coefficient<dim, Number>(x); },
                           coefficients);
  GPU::Vector<Number> gpu_src, gpu_dst;
  gpu.initialize_dof_vector(gpu_src);
  gpu.initialize_dof_vector(gpu_dst);
  LinearAlgebra::distributed::Vector<Number> host(gpu_src.get_partitioner());
  for (unsigned int i = 0; i < src.locally_owned_size(); ++i)
    host.local_element(i) = src.local_element(i);
  gpu_src.copy_locally_owned_data_from(host);
  GPU::LaplaceCoefficients<Number> k;
  k.diffusion         = coefficients.data();
  k.reaction_constant = Number(1);
  std::string refused;
  if constexpr (tensor)
  {
    GPU::Array<Number> diffusion_tensor;
    gpu.evaluate_diffusion_tensor(coefficients, diffusion_tensor);
    gpu.release_geometry();
    // A functor that reads the Jacobians must now be refused.
    try
    {
      gpu.cell_loop(
          GPU::LaplaceCell<dim, degree, n_comp, Number>{k}, gpu_src, gpu_dst);
      refused = ", LaplaceCell NOT refused without geometry";
    }
    catch (const GPU::ExcNotSupportedByMatrixFree &)
    {
      refused = ", LaplaceCell refused without geometry";
    }
    gpu.cell_loop(
        GPU::LaplaceTensorCell<dim, degree, n_comp, Number>{
            {diffusion_tensor.data()}},
        gpu_src,
        gpu_dst);
  }
  else if constexpr (cell == Cell::function)
    // The coefficient from the points interpolated in the kernel.
    gpu.cell_loop(
        GPU::LaplaceFunctionCell<dim,
                                 degree,
                                 n_comp,
                                 Number,
                                 BallCoefficient<dim, Number>>{{}, Number(1)},
        gpu_src,
        gpu_dst);
  else
    gpu.cell_loop(
        GPU::LaplaceCell<dim, degree, n_comp, Number>{k}, gpu_src, gpu_dst);
  gpu_dst.copy_locally_owned_data_to(host);

  // Both vectors have the owned DoFs in the same order.
  double max_difference = 0;
  for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
    max_difference = max_keep_nan(
        max_difference,
        std::abs(host.local_element(i) - dst_cpu.local_element(i)));
  const double error =
      max_over_ranks(max_difference, MPI_COMM_WORLD) / max_norm(dst_cpu);
  const double       tolerance = sizeof(Number) == 8 ? 1e-12 : 1e-5;
  const unsigned int hanging_cells =
      Utilities::MPI::sum(gpu.n_cells_with_hanging_nodes(), MPI_COMM_WORLD);
  deallog << dim << "D " << mesh_name
          << (mapping_degree > 1 ? " MappingQ" + std::to_string(mapping_degree)
                                 : std::string())
          << " Q" << degree << (n_comp > 1 ? "^" + std::to_string(n_comp) : "")
          << (coloring ? " coloring" : " atomics")
          << (sizeof(Number) == 8 ? " double" : " float")
          << (tensor ? " tensor"
              : gpu.get_geometry_storage() == GPU::GeometryStorage::points
                  ? " points"
              : gpu.get_geometry_storage() == GPU::GeometryStorage::field
                  ? " field (coefficient in the kernel)"
                  : " jacobians")
          << (overlap ? "" : " no-overlap")
          << (threads == GPU::CellThreads::per_cell ? " thread per cell"
              : threads == GPU::CellThreads::per_quadrature_point
                  ? " thread per point"
                  : "")
          << ", " << tria.n_global_active_cells() << " cells (" << hanging_cells
          << " with hanging nodes), " << dof_handler.n_dofs()
          << " DoFs: relative error "
          << (error <= tolerance ? "within " : "ABOVE ") << tolerance << refused
          << renumbered;
  // The cells whose DoF indices the kernels computed.
  if (renumber == Renumbering::coarse_blocks ||
      renumber == Renumbering::level_1_blocks)
    deallog << ", "
            << Utilities::MPI::sum(gpu.n_structured_cells(), MPI_COMM_WORLD)
            << " cells in structured blocks";
  deallog << std::endl;
}

#endif
