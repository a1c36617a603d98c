// Every provided operation of GPU::MatrixFreeOperator, written once, on the
// cpu backend (deal.II's MatrixFree and FEEvaluation) and the gpu backend
// (GPU::MatrixFree: CUDA on the GPU machine, the host backend in CI): vmult,
// the diagonal and, for the non-symmetric operation, Tvmult agree to 1e-12
// (double) or 1e-5 (float), on curved ball meshes refined once more in a
// shell (hanging nodes) and on uniform ones (where the automatic geometry
// takes the mapping field), distributed over the ranks. On one rank, vmult
// is also compared with a matrix assembled by deal.II's FEValues from the
// bilinear form written out independently, and Tvmult with the transpose
// identity (v, A u) = (A^T v, u).
#include <dealii-gpu/operators/matrix_free_operator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/vector.h>

#include "../meshes.h"
#include "../tests.h"

// A symmetric positive definite tensor of x.
struct TensorOfX
{
  DEAL_II_GPU_PORTABLE_TEMPLATE
  template <typename Point>
  DEAL_II_GPU_HOST_DEVICE auto operator()(const Point &x) const
  {
    constexpr int dim = Point::dimension;
    using T = std::remove_cv_t<std::remove_reference_t<decltype(x[0])>>;
    Tensor<2, dim, T> a;
    for (unsigned int d = 0; d < dim; ++d)
    {
      a[d][d] = T(1.) + x[d] * x[d];
      if (d + 1 < dim)
        a[d][d + 1] = a[d + 1][d] = T(0.3);
    }
    return a;
  }
};

// A rotating velocity (x1, -x0[, 0.5]).
struct RotationOfX
{
  DEAL_II_GPU_PORTABLE_TEMPLATE
  template <typename Point>
  DEAL_II_GPU_HOST_DEVICE auto operator()(const Point &x) const
  {
    constexpr int dim = Point::dimension;
    using T = std::remove_cv_t<std::remove_reference_t<decltype(x[0])>>;
    Tensor<1, dim, T> b;
    b[0] = T(2.) * x[1];
    b[1] = T(-2.) * x[0];
    if (dim == 3)
      b[dim - 1] = T(0.5);
    return b;
  }
};

// The mesh and data of one comparison.
struct Case
{
  std::string         name;
  bool                ball        = true;
  unsigned int        refinements = 1;
  bool                shell       = true;
  GPU::QuadratureRule rule        = GPU::QuadratureRule::gauss;
};

// A u for the matrix deal.II's FEValues assembles from form(fe_values, i,
// j, q) (test i, trial j, without JxW), with the constraints condensed.
template <int dim, typename Form>
Vector<double>
assembled_vmult(const Mapping<dim>              &mapping,
                const DoFHandler<dim>           &dof_handler,
                const AffineConstraints<double> &constraints,
                const Quadrature<dim>           &quadrature,
                const Form                      &form,
                const Vector<double>            &src)
{
  DynamicSparsityPattern dsp(dof_handler.n_dofs());
  DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
  SparsityPattern pattern;
  pattern.copy_from(dsp);
  SparseMatrix<double> matrix(pattern);
  FEValues<dim>        fe_values(mapping,
                          dof_handler.get_fe(),
                          quadrature,
                          update_values | update_gradients | update_JxW_values |
                              update_quadrature_points);
  const unsigned int   n = dof_handler.get_fe().n_dofs_per_cell();
  FullMatrix<double>   cell_matrix(n, n);
  std::vector<types::global_dof_index> indices(n);
  for (const auto &cell : dof_handler.active_cell_iterators())
  {
    fe_values.reinit(cell);
    cell_matrix = 0;
    for (unsigned int q = 0; q < quadrature.size(); ++q)
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j)
          cell_matrix(i, j) += form(fe_values, i, j, q) * fe_values.JxW(q);
    cell->get_dof_indices(indices);
    constraints.distribute_local_to_global(cell_matrix, indices, matrix);
  }
  Vector<double> dst(src.size());
  matrix.vmult(dst, src);
  return dst;
}

template <typename Number>
void
fill_random(LinearAlgebra::distributed::Vector<Number> &v,
            const std::uint64_t                         salt)
{
  const IndexSet owned = v.locally_owned_elements();
  for (unsigned int i = 0; i < v.locally_owned_size(); ++i)
  {
    // From the global index: the same vector on any number of ranks.
    std::uint64_t state = owned.nth_index_in_set(i) * 977 + salt;
    random_value(state);
    v.local_element(i) = Number(random_value(state) - 0.5);
  }
}

// max |a - b| / max |b| over all ranks.
template <typename Number>
double
relative_error(const LinearAlgebra::distributed::Vector<Number> &a,
               const LinearAlgebra::distributed::Vector<Number> &b)
{
  double difference = 0;
  for (unsigned int i = 0; i < b.locally_owned_size(); ++i)
    difference = max_keep_nan(
        difference, double(std::abs(a.local_element(i) - b.local_element(i))));
  return max_over_ranks(difference, MPI_COMM_WORLD) /
         std::max(double(max_norm(b)), 1e-300);
}

template <typename Number>
std::string
verdict(const double error)
{
  const double       tolerance = sizeof(Number) == 8 ? 1e-12 : 1e-5;
  std::ostringstream out;
  if (error <= tolerance)
    out << "within " << tolerance;
  else
    out << "ERROR " << error << " > " << tolerance;
  return out.str();
}

template <int dim,
          int degree,
          int n_comp,
          typename Number,
          int n_q,
          typename Operation,
          typename Form>
void
compare(const Case &c, const Operation &operation, const Form &form)
{
  parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
  make_mesh(tria, c.ball, c.refinements);
  if (c.shell)
    refine_shell(tria, 0.3, 0.6);
  MappingQ<dim>   mapping(c.ball ? 2 : 1);
  DoFHandler<dim> dof_handler(tria);
  if (n_comp == 1)
    dof_handler.distribute_dofs(FE_Q<dim>(degree));
  else
    dof_handler.distribute_dofs(FESystem<dim>(FE_Q<dim>(degree), n_comp));
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
  constraints.close();

  using CPU   = GPU::MatrixFreeOperator<dim,
                                      degree,
                                      n_comp,
                                      Number,
                                      Operation,
                                      GPU::MatrixFreeBackend::cpu,
                                      n_q>;
  using GPUOp = GPU::MatrixFreeOperator<dim,
                                        degree,
                                        n_comp,
                                        Number,
                                        Operation,
                                        GPU::MatrixFreeBackend::gpu,
                                        n_q>;
  typename CPU::AdditionalData   cpu_data;
  typename GPUOp::AdditionalData gpu_data;
  cpu_data.quadrature = gpu_data.quadrature = c.rule;
  CPU   cpu;
  GPUOp gpu;
  cpu.reinit(mapping, dof_handler, constraints, operation, cpu_data);
  gpu.reinit(mapping, dof_handler, constraints, operation, gpu_data);

  using HostVector = LinearAlgebra::distributed::Vector<Number>;
  HostVector src, dst, from_gpu;
  cpu.initialize_dof_vector(src);
  cpu.initialize_dof_vector(dst);
  cpu.initialize_dof_vector(from_gpu);
  fill_random(src, 1);
  GPU::Vector<Number> gpu_src, gpu_dst;
  gpu.initialize_dof_vector(gpu_src);
  gpu.initialize_dof_vector(gpu_dst);
  gpu_src.copy_locally_owned_data_from(src);

  std::ostringstream line;
  line << c.name << ", " << dim << "D Q" << degree
       << (n_comp > 1 ? "^" + std::to_string(n_comp) : std::string()) << " "
       << (sizeof(Number) == 8 ? "double" : "float") << ", " << n_q << " "
       << GPU::to_string(c.rule) << " points, " << tria.n_global_active_cells()
       << " cells, " << dof_handler.n_dofs() << " DoFs, gpu geometry "
       << GPU::to_string(gpu.get_matrix_free().get_geometry_storage());

  cpu.vmult(dst, src);
  gpu.vmult(gpu_dst, gpu_src);
  gpu_dst.copy_locally_owned_data_to(from_gpu);
  line << "; vmult " << verdict<Number>(relative_error(from_gpu, dst));

  // vmult_add on top of the result doubles it.
  gpu.vmult_add(gpu_dst, gpu_src);
  gpu_dst.copy_locally_owned_data_to(from_gpu);
  from_gpu *= Number(0.5);
  line << ", vmult_add " << verdict<Number>(relative_error(from_gpu, dst));

  HostVector          diagonal;
  GPU::Vector<Number> gpu_diagonal;
  cpu.compute_diagonal(diagonal);
  gpu.compute_diagonal(gpu_diagonal);
  gpu_diagonal.copy_locally_owned_data_to(from_gpu);
  line << ", diagonal " << verdict<Number>(relative_error(from_gpu, diagonal));

  if constexpr (!GPU::internal::is_symmetric<Operation>::value)
  {
    HostVector v, transpose_dst;
    cpu.initialize_dof_vector(v);
    cpu.initialize_dof_vector(transpose_dst);
    fill_random(v, 2);
    cpu.Tvmult(transpose_dst, v);
    gpu_src.copy_locally_owned_data_from(v);
    gpu.Tvmult(gpu_dst, gpu_src);
    gpu_dst.copy_locally_owned_data_to(from_gpu);
    line << ", Tvmult "
         << verdict<Number>(relative_error(from_gpu, transpose_dst));
    // (v, A u) = (A^T v, u): the adjoint is the transpose.
    const double vAu = v * dst, ATvu = transpose_dst * src;
    line << ", (v, A u) = (A^T v, u) "
         << verdict<Number>(std::abs(vAu - ATvu) / std::abs(vAu));
  }

  if (Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) == 1)
  {
    Vector<double> serial_src(src.size());
    for (unsigned int i = 0; i < src.size(); ++i)
      serial_src[i] = src[i];
    const Vector<double> reference =
        assembled_vmult(mapping,
                        dof_handler,
                        constraints,
                        Quadrature<dim>(GPU::make_quadrature(c.rule, n_q)),
                        form,
                        serial_src);
    double difference = 0, size = 0;
    for (unsigned int i = 0; i < src.size(); ++i)
      if (!constraints.is_constrained(i))
      {
        difference =
            max_keep_nan(difference, std::abs(double(dst[i]) - reference[i]));
        size = max_keep_nan(size, std::abs(reference[i]));
      }
    line << "; cpu vmult against FEValues "
         << verdict<Number>(difference / size);
  }
  deallog << line.str() << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  using namespace GPU;

  // The bilinear forms written out with FEValues, as references.
  const auto ball = [](const auto &fe_values, const unsigned int q)
  { return BallOfX()(fe_values.quadrature_point(q)); };

  {
    // Laplace with a coefficient of x; uniform 3D ball: the mapping field.
    const auto form = [&](const FEValues<3> &v,
                          const unsigned int i,
                          const unsigned int j,
                          const unsigned int q)
    { return ball(v, q) * (v.shape_grad(i, q) * v.shape_grad(j, q)); };
    compare<3, 2, 1, double, 3>({"Laplace a(x), uniform", true, 2, false},
                                LaplaceOperation<BallOfX>{},
                                form);
    compare<3, 2, 1, double, 3>({"Laplace a(x), shell", true, 1, true},
                                LaplaceOperation<BallOfX>{},
                                form);
  }
  {
    // Laplace with a tensor of x, Q3 in 2D.
    [[maybe_unused]] const auto form = [&](const FEValues<2> &v,
                                           const unsigned int i,
                                           const unsigned int j,
                                           const unsigned int q)
    {
      return v.shape_grad(i, q) *
             (TensorOfX()(v.quadrature_point(q)) * v.shape_grad(j, q));
    };
    FULL_TESTS_ONLY(compare<2, 3, 1, double, 4>(
        {"Laplace A(x) tensor, shell", true, 2, true},
        LaplaceOperation<TensorOfX>{},
        form));
  }
  {
    // Helmholtz, constant A, c(x): uniform Q1 (field, mass term) and a
    // shell in float.
    const auto form = [&](const FEValues<3> &v,
                          const unsigned int i,
                          const unsigned int j,
                          const unsigned int q)
    {
      return 2. * (v.shape_grad(i, q) * v.shape_grad(j, q)) +
             ball(v, q) * v.shape_value(i, q) * v.shape_value(j, q);
    };
    using H = HelmholtzOperation<Constant<double>, BallOfX>;
    compare<3, 1, 1, double, 2>(
        {"Helmholtz, uniform", false, 2, false}, H{{2.}, {}}, form);
    FULL_TESTS_ONLY(compare<3, 2, 1, float, 3>(
        {"Helmholtz, shell", true, 1, true},
        HelmholtzOperation<Constant<float>, BallOfX>{{2.f}, {}},
        form));
  }
  {
    // Mass: Gauss with k + 2 points (BP1) and Gauss-Lobatto with k + 1
    // (BP5's collocation), Laplace with Gauss-Lobatto.
    [[maybe_unused]] const auto mass = [&](const FEValues<3> &v,
                                           const unsigned int i,
                                           const unsigned int j,
                                           const unsigned int q)
    { return v.shape_value(i, q) * v.shape_value(j, q); };
    FULL_TESTS_ONLY(compare<3, 3, 1, double, 5>(
        {"mass, k+2 points", true, 1, true}, MassOperation<>{{1.}}, mass));
    FULL_TESTS_ONLY(
        compare<3, 3, 1, double, 4>({"mass, Gauss-Lobatto",
                                     true,
                                     1,
                                     true,
                                     GPU::QuadratureRule::gauss_lobatto},
                                    MassOperation<>{{1.}},
                                    mass));
    const auto laplace = [&](const FEValues<3> &v,
                             const unsigned int i,
                             const unsigned int j,
                             const unsigned int q)
    { return v.shape_grad(i, q) * v.shape_grad(j, q); };
    // The points are the nodes: the kernels skip the interpolation passes
    // (one thread a point with hanging nodes; one thread a cell, the
    // geometry field interpolated the same way, on the uniform ball).
    compare<3, 2, 1, double, 3>({"Laplace, Gauss-Lobatto",
                                 false,
                                 2,
                                 true,
                                 GPU::QuadratureRule::gauss_lobatto},
                                LaplaceOperation<>{{1.}},
                                laplace);
    compare<3, 2, 1, double, 3>({"Laplace, Gauss-Lobatto, uniform",
                                 true,
                                 2,
                                 false,
                                 GPU::QuadratureRule::gauss_lobatto},
                                LaplaceOperation<>{{1.}},
                                laplace);
  }
  {
    // Convection-diffusion-reaction: a non-symmetric constant tensor, a
    // rotating velocity, a reaction constant.
    Tensor<2, 2> a;
    a[0][0]         = 1.;
    a[0][1]         = 0.4;
    a[1][0]         = -0.2;
    a[1][1]         = 1.5;
    const auto form = [=](const FEValues<2> &v,
                          const unsigned int i,
                          const unsigned int j,
                          const unsigned int q)
    {
      const Tensor<1, 2> b = RotationOfX()(v.quadrature_point(q));
      return v.shape_grad(i, q) * (a * v.shape_grad(j, q)) +
             (b * v.shape_grad(j, q)) * v.shape_value(i, q) +
             0.5 * v.shape_value(i, q) * v.shape_value(j, q);
    };
    using CD = ConvectionDiffusionOperation<Constant<Tensor<2, 2>>,
                                            RotationOfX,
                                            Constant<double>>;
    compare<2, 2, 1, double, 3>({"convection-diffusion, shell", true, 2, true},
                                CD{{a}, {}, {0.5}},
                                form);
    using CD3 =
        ConvectionDiffusionOperation<Constant<double>, RotationOfX, BallOfX>;
    [[maybe_unused]] const auto form3 = [&](const FEValues<3> &v,
                                            const unsigned int i,
                                            const unsigned int j,
                                            const unsigned int q)
    {
      const Tensor<1, 3> b = RotationOfX()(v.quadrature_point(q));
      return 0.1 * (v.shape_grad(i, q) * v.shape_grad(j, q)) +
             (b * v.shape_grad(j, q)) * v.shape_value(i, q) +
             ball(v, q) * v.shape_value(i, q) * v.shape_value(j, q);
    };
    FULL_TESTS_ONLY(compare<3, 2, 1, double, 3>(
        {"convection-diffusion, uniform", true, 1, false},
        CD3{{0.1}, {}, {}},
        form3));
  }
  {
    // Linear elasticity with lambda(x), constant mu, and the vector
    // Laplacian and vector mass.
    const FEValuesExtractors::Vector u(0);
    [[maybe_unused]] const auto      elasticity = [&](const FEValues<3> &v,
                                                 const unsigned int i,
                                                 const unsigned int j,
                                                 const unsigned int q)
    {
      return 2. * 0.8 *
                 scalar_product(v[u].symmetric_gradient(i, q),
                                v[u].symmetric_gradient(j, q)) +
             ball(v, q) * v[u].divergence(i, q) * v[u].divergence(j, q);
    };
    FULL_TESTS_ONLY(
        compare<3, 2, 3, double, 3>({"elasticity, shell", true, 1, true},
                                    ElasticityOperation<BallOfX>{{}, {0.8}},
                                    elasticity));
    const FEValuesExtractors::Vector u2(0);
    const auto                       vector_laplace = [&](const FEValues<2> &v,
                                    const unsigned int i,
                                    const unsigned int j,
                                    const unsigned int q)
    {
      return ball(v, q) *
             scalar_product(v[u2].gradient(i, q), v[u2].gradient(j, q));
    };
    compare<2, 2, 2, double, 3>({"vector Laplace, shell", true, 2, true},
                                LaplaceOperation<BallOfX>{},
                                vector_laplace);
    const auto vector_mass = [&](const FEValues<3> &v,
                                 const unsigned int i,
                                 const unsigned int j,
                                 const unsigned int q)
    { return 3. * v[u].value(i, q) * v[u].value(j, q); };
    compare<3, 1, 3, float, 2>({"vector mass, shell", true, 1, true},
                               MassOperation<Constant<float>>{{3.f}},
                               vector_mass);
  }
}
