// GPU::ElementIntegrator's element matrices against deal.II's FEValues with
// the bilinear form written out independently, cell by cell: Laplace with a
// coefficient of x, Helmholtz with a tensor coefficient, convection-
// diffusion-reaction (non-symmetric), mass on FE_DGQ, linear elasticity on
// FESystem(FE_Q, dim), on curved meshes (MappingQ(2) on the ball), on
// triangles, tetrahedra and a prism (FE_SimplexP, FE_WedgeP, MappingFE),
// double and float; element vectors of a load (f, v) + (h, grad v) on the
// same elements; and the unsupported cases as clear exceptions.
#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_nothing.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_simplex_p.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/fe_wedge_p.h>
#include <deal.II/fe/mapping_fe.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>

#include "../meshes.h"
#include "../tests.h"
#include "loads.h"

// A non-symmetric tensor of x, positive definite in its symmetric part.
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
      {
        a[d][d + 1] = T(0.3);
        a[d + 1][d] = T(-0.2);
      }
    }
    return a;
  }
};

template <int dim>
double
ball(const Point<dim> &x)
{
  return 1. / (0.05 + 2. * x.norm_square());
}

template <int dim>
Tensor<2, dim>
tensor(const Point<dim> &x)
{
  Tensor<2, dim> a;
  for (unsigned int d = 0; d < dim; ++d)
  {
    a[d][d] = 1. + x[d] * x[d];
    if (d + 1 < dim)
    {
      a[d][d + 1] = 0.3;
      a[d + 1][d] = -0.2;
    }
  }
  return a;
}

// Which strategy check() asks for.
enum class Path
{
  automatic,
  points,
  products,
  rows
};

// The reference: form(fe_values, q, i, j) summed over the points.
template <int dim,
          int n_comp,
          typename Number,
          typename Operation,
          typename Form>
void
check(const std::string     &name,
      const Mapping<dim>    &mapping,
      const DoFHandler<dim> &dof,
      const Quadrature<dim> &quadrature,
      const Operation       &operation,
      const Form            &form,
      const double           tolerance,
      const bool             keep_geometry    = true,
      const Path             path             = Path::automatic,
      const unsigned int     threads_per_cell = 0,
      const unsigned int     points_per_chunk = 0)
{
  GPU::ElementIntegrator<dim, n_comp, Number> integrator;
  using Data =
      typename GPU::ElementIntegrator<dim, n_comp, Number>::AdditionalData;
  Data data;
  data.cells_per_batch = 7; // several batches
  data.keep_geometry   = keep_geometry;
  if (path == Path::points)
    data.strategy = Data::Strategy::quadrature_points;
  else if (path == Path::products)
    data.strategy = Data::Strategy::batched_products;
  else if (path == Path::rows)
    data.strategy = Data::Strategy::rows;
  data.threads_per_cell = threads_per_cell;
  data.points_per_chunk = points_per_chunk;
  integrator.reinit(mapping, dof, quadrature, data);
  const unsigned int  n = integrator.dofs_per_cell();
  FEValues<dim>       fe_values(mapping,
                          dof.get_fe(),
                          quadrature,
                          update_values | update_gradients |
                              update_quadrature_points | update_JxW_values);
  double              max_error = 0, max_entry = 0;
  GPU::Array<Number>  matrices;
  std::vector<Number> host;
  for (unsigned int first = 0; first < integrator.n_cells();
       first += integrator.batch_size())
  {
    const unsigned int count =
        std::min(integrator.batch_size(), integrator.n_cells() - first);
    integrator.compute_element_matrices(operation, first, count, matrices);
    matrices.copy_to(host);
    for (unsigned int c = 0; c < count; ++c)
    {
      fe_values.reinit(integrator.get_cells()[first + c]);
      for (unsigned int i = 0; i < n; ++i)
        for (unsigned int j = 0; j < n; ++j)
        {
          double reference = 0;
          for (unsigned int q = 0; q < quadrature.size(); ++q)
            reference += form(fe_values, q, i, j) * fe_values.JxW(q);
          const double value = host[(std::size_t(c) * n + i) * n + j];
          max_error = max_keep_nan(max_error, std::abs(value - reference));
          max_entry = max_keep_nan(max_entry, std::abs(reference));
        }
    }
  }
  const double relative = max_error / max_entry;
  deallog << name << ": " << integrator.n_cells() << " cells, " << n
          << " DoFs a cell, "
          << (integrator.template uses_reference_tensor<Operation>()
                  ? "reference tensor, "
                  : "")
          << (integrator.template uses_batched_products<Operation>()
                  ? "batched products, "
                  : "")
          << (integrator.template uses_rows<Operation>() ? "rows, " : "")
          << (relative < tolerance ? "OK" : "ERROR " + std::to_string(relative))
          << std::endl;
}

// Element vectors of LoadOfX against FEValues.
template <int dim, int n_comp>
void
check_loads(const std::string     &name,
            const Mapping<dim>    &mapping,
            const DoFHandler<dim> &dof,
            const Quadrature<dim> &quadrature)
{
  GPU::ElementIntegrator<dim, n_comp>                          integrator;
  typename GPU::ElementIntegrator<dim, n_comp>::AdditionalData data;
  data.cells_per_batch = 5;
  integrator.reinit(mapping, dof, quadrature, data);
  const unsigned int  n = integrator.dofs_per_cell();
  FEValues<dim>       fe_values(mapping,
                          dof.get_fe(),
                          quadrature,
                          update_values | update_gradients |
                              update_quadrature_points | update_JxW_values);
  double              max_error = 0, max_entry = 0;
  GPU::Array<double>  vectors;
  std::vector<double> host;
  for (unsigned int first = 0; first < integrator.n_cells();
       first += integrator.batch_size())
  {
    const unsigned int count =
        std::min(integrator.batch_size(), integrator.n_cells() - first);
    integrator.compute_element_vectors(
        LoadOfX<n_comp>{}, first, count, vectors);
    vectors.copy_to(host);
    for (unsigned int c = 0; c < count; ++c)
    {
      fe_values.reinit(integrator.get_cells()[first + c]);
      for (unsigned int i = 0; i < n; ++i)
      {
        double reference = 0;
        for (unsigned int q = 0; q < quadrature.size(); ++q)
          reference += load_entry(fe_values, q, i);
        max_error =
            max_keep_nan(max_error, std::abs(host[c * n + i] - reference));
        max_entry = max_keep_nan(max_entry, std::abs(reference));
      }
    }
  }
  const double relative = max_error / max_entry;
  deallog << name << " element vectors: " << integrator.n_cells() << " cells, "
          << (relative < 1e-12 ? "OK" : "ERROR " + std::to_string(relative))
          << std::endl;
}

template <int dim>
void
hypercube_cases()
{
  Triangulation<dim> tria;
  GridGenerator::hyper_ball(tria);
  tria.refine_global(1);
  MappingQ<dim> mapping(2);
  deallog.push(std::to_string(dim) + "d");

  for (const unsigned int k : {1u, 3u})
  {
    FE_Q<dim>       fe(k);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    const QGauss<dim> quad(k + 1);
    const auto        form =
        [](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
    {
      return ball(v.quadrature_point(q)) * v.shape_grad(i, q) *
             v.shape_grad(j, q);
    };
    check<dim, 1, double>("Laplace a(x) Q" + std::to_string(k),
                          mapping,
                          dof,
                          quad,
                          GPU::LaplaceOperation<BallOfX>{BallOfX{}},
                          form,
                          1e-12);
    // The automatic strategy takes rows up to 16 DoFs a cell: the
    // quadrature-point kernel on a small element too.
    if (k == 1)
      check<dim, 1, double>("Laplace a(x) Q1, per point",
                            mapping,
                            dof,
                            quad,
                            GPU::LaplaceOperation<BallOfX>{BallOfX{}},
                            form,
                            1e-12,
                            true,
                            Path::points);
    // One warp for the blocks of the matrix (a region of one block a pass
    // on the GPU) and chunks that do not divide the points; in 3D two
    // warps for its four blocks (the whole matrix in two passes).
    if (k == 3 && dim == 3)
      check<dim, 1, double>("Laplace a(x) Q3, two warps",
                            mapping,
                            dof,
                            quad,
                            GPU::LaplaceOperation<BallOfX>{BallOfX{}},
                            form,
                            1e-12,
                            true,
                            Path::points,
                            64);
    // Batched products (cuBLAS on the GPU), automatic from 300 DoFs a
    // cell: forced here.
    if (k == 3)
      check<dim, 1, double>("Laplace a(x) Q3, batched products",
                            mapping,
                            dof,
                            quad,
                            GPU::LaplaceOperation<BallOfX>{BallOfX{}},
                            form,
                            1e-12,
                            false,
                            Path::products);
    if (k == 3)
      check<dim, 1, double>("Laplace a(x) Q3, one warp, 5 points a chunk",
                            mapping,
                            dof,
                            quad,
                            GPU::LaplaceOperation<BallOfX>{BallOfX{}},
                            form,
                            1e-12,
                            true,
                            Path::points,
                            32,
                            5);
  }
  {
    FE_Q<dim>       fe(2);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    const QGauss<dim> quad(4);
    check<dim, 1, double>(
        "Helmholtz A(x), c = 3, Q2, Gauss 4",
        mapping,
        dof,
        quad,
        GPU::HelmholtzOperation<TensorOfX, GPU::Constant<double>>{TensorOfX{},
                                                                  {3.}},
        [](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
        {
          return (tensor(v.quadrature_point(q)) * v.shape_grad(j, q)) *
                     v.shape_grad(i, q) +
                 3. * v.shape_value(i, q) * v.shape_value(j, q);
        },
        1e-12);
    Tensor<1, dim> b;
    for (unsigned int d = 0; d < dim; ++d)
      b[d] = 1. + d;
    using CD = GPU::ConvectionDiffusionOperation<TensorOfX,
                                                 GPU::Constant<Tensor<1, dim>>,
                                                 GPU::Constant<double>>;
    // Not symmetric: the products give A, not its transpose.
    for (const Path path : {Path::automatic, Path::products})
      check<dim, 1, double>(
          std::string("convection-diffusion-reaction Q2") +
              (path == Path::products ? ", products" : ""),
          mapping,
          dof,
          quad,
          CD{TensorOfX{}, {b}, {0.5}},
          [b](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
          {
            return (tensor(v.quadrature_point(q)) * v.shape_grad(j, q)) *
                       v.shape_grad(i, q) +
                   (b * v.shape_grad(j, q) + 0.5 * v.shape_value(j, q)) *
                       v.shape_value(i, q);
          },
          1e-12,
          true,
          path);
    for (const Path path : {Path::automatic, Path::points, Path::products})
      check<dim, 1, float>(
          std::string("Laplace a(x) Q2 float, geometry per batch") +
              (path == Path::products ? ", products"
               : path == Path::points ? ", per point"
                                      : ""),
          mapping,
          dof,
          quad,
          GPU::LaplaceOperation<BallOfX>{BallOfX{}},
          [](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
          {
            return ball(v.quadrature_point(q)) * v.shape_grad(i, q) *
                   v.shape_grad(j, q);
          },
          1e-5,
          false,
          path);
  }
  {
    FE_DGQ<dim>     fe(2);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    check<dim, 1, double>(
        "mass c(x) DGQ2",
        mapping,
        dof,
        QGauss<dim>(3),
        GPU::MassOperation<BallOfX>{BallOfX{}},
        [](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
        {
          return ball(v.quadrature_point(q)) * v.shape_value(i, q) *
                 v.shape_value(j, q);
        },
        1e-12);
  }
  // Q2^dim (the quadrature-point kernel), its loads, and Q1^dim (rows,
  // automatic, and per point).
  for (const unsigned int k : {2u, 1u})
  {
    FESystem<dim>   fe(FE_Q<dim>(k), dim);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    const FEValuesExtractors::Vector u(0);
    for (const Path path : {Path::automatic, Path::points})
      if (k == 1 || path == Path::automatic)
        check<dim, dim, double>(
            "elasticity lambda = 2, mu(x) Q" + std::to_string(k) + "^dim" +
                (path == Path::points ? ", per point" : ""),
            mapping,
            dof,
            QGauss<dim>(k + 1),
            GPU::ElasticityOperation<GPU::Constant<double>, BallOfX>{{2.}, {}},
            [u](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
            {
              const double mu = ball(v.quadrature_point(q));
              return 2. * mu *
                         scalar_product(v[u].symmetric_gradient(j, q),
                                        v[u].symmetric_gradient(i, q)) +
                     2. * v[u].divergence(j, q) * v[u].divergence(i, q);
            },
            1e-12,
            true,
            path);
    if (k == 2)
      check_loads<dim, dim>("load Q2^dim", mapping, dof, QGauss<dim>(3));
  }
  deallog.pop();
}

// Affine cells (sheared cubes, MappingQ(1)) and constant coefficients:
// the reference-tensor strategy (automatic) and the per-point one.
template <int dim>
void
affine_cases()
{
  Triangulation<dim> tria;
  GridGenerator::hyper_cube(tria, -1., 1.);
  tria.refine_global(dim == 2 ? 2 : 1);
  GridTools::transform(
      [](const Point<dim> &x)
      {
        Point<dim> y = x;
        y[0] += 0.3 * x[dim - 1];
        y[1] += 0.2 * x[0] - 0.1 * x[1];
        return y;
      },
      tria);
  MappingQ<dim> mapping(1);
  deallog.push(std::to_string(dim) + "d affine");
  Tensor<2, dim> D;
  Tensor<1, dim> b;
  for (unsigned int d = 0; d < dim; ++d)
  {
    b[d] = 1. - d;
    for (unsigned int e = 0; e < dim; ++e)
      D[d][e] = d == e ? 1.5 + d : (d < e ? 0.3 : -0.2);
  }
  using CD = GPU::ConvectionDiffusionOperation<GPU::Constant<Tensor<2, dim>>,
                                               GPU::Constant<Tensor<1, dim>>,
                                               GPU::Constant<double>>;
  auto cd_form =
      [D, b](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
  {
    return (D * v.shape_grad(j, q)) * v.shape_grad(i, q) +
           (b * v.shape_grad(j, q) + 0.5 * v.shape_value(j, q)) *
               v.shape_value(i, q);
  };
  for (const unsigned int k : {1u, 2u, 3u})
  {
    FE_Q<dim>       fe(k);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    for (const Path path :
         {Path::automatic, Path::points, Path::products, Path::rows})
      if (path != Path::rows || fe.n_dofs_per_cell() <= 16)
        check<dim, 1, double>("convection-diffusion-reaction Q" +
                                  std::to_string(k) +
                                  (path == Path::points     ? ", per point"
                                   : path == Path::products ? ", products"
                                   : path == Path::rows     ? ", rows"
                                                            : ""),
                              mapping,
                              dof,
                              QGauss<dim>(k + 1),
                              CD{{D}, {b}, {0.5}},
                              cd_form,
                              1e-12,
                              true,
                              path);
  }
  {
    FE_Q<dim>       fe(1);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    check<dim, 1, float>("convection-diffusion-reaction Q1 float",
                         mapping,
                         dof,
                         QGauss<dim>(2),
                         CD{{D}, {b}, {0.5}},
                         cd_form,
                         1e-5);
  }
  {
    FESystem<dim>   fe(FE_Q<dim>(2), dim);
    DoFHandler<dim> dof(tria);
    dof.distribute_dofs(fe);
    const FEValuesExtractors::Vector u(0);
    check<dim, dim, double>(
        "elasticity lambda = 2, mu = 1.5, Q2^dim",
        mapping,
        dof,
        QGauss<dim>(3),
        GPU::ElasticityOperation<>{{2.}, {1.5}},
        [u](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
        {
          return 3. * scalar_product(v[u].symmetric_gradient(j, q),
                                     v[u].symmetric_gradient(i, q)) +
                 2. * v[u].divergence(j, q) * v[u].divergence(i, q);
        },
        1e-12);
  }
  {
    // Simplices under MappingFE(P1) are affine too.
    Triangulation<dim> simplices;
    GridGenerator::subdivided_hyper_cube_with_simplices(simplices, 2);
    GridTools::distort_random(0.2, simplices, false, 5);
    MappingFE<dim>   mapping_fe(FE_SimplexP<dim>(1));
    FE_SimplexP<dim> fe(2);
    DoFHandler<dim>  dof(simplices);
    dof.distribute_dofs(fe);
    check<dim, 1, double>("convection-diffusion-reaction P2",
                          mapping_fe,
                          dof,
                          QGaussSimplex<dim>(3),
                          CD{{D}, {b}, {0.5}},
                          cd_form,
                          1e-12);
  }
  deallog.pop();
}

template <int dim>
void
simplex_cases()
{
  Triangulation<dim> tria;
  GridGenerator::subdivided_hyper_cube_with_simplices(tria, 2);
  GridTools::distort_random(0.2, tria, false, 7);
  MappingFE<dim> mapping(FE_SimplexP<dim>(1));
  deallog.push(std::to_string(dim) + "d simplex");
  for (const unsigned int k : {1u, 2u})
  {
    FE_SimplexP<dim> fe(k);
    DoFHandler<dim>  dof(tria);
    dof.distribute_dofs(fe);
    check<dim, 1, double>(
        "Helmholtz a(x), c = 2, P" + std::to_string(k),
        mapping,
        dof,
        QGaussSimplex<dim>(k + 1),
        GPU::HelmholtzOperation<BallOfX, GPU::Constant<double>>{BallOfX{},
                                                                {2.}},
        [](const FEValues<dim> &v, unsigned q, unsigned i, unsigned j)
        {
          return ball(v.quadrature_point(q)) * v.shape_grad(i, q) *
                     v.shape_grad(j, q) +
                 2. * v.shape_value(i, q) * v.shape_value(j, q);
        },
        1e-12);
    check_loads<dim, 1>(
        "load P" + std::to_string(k), mapping, dof, QGaussSimplex<dim>(k + 1));
  }
  deallog.pop();
}

// One prism (deal.II 9.4 does not refine them), its vertices moved.
void
wedge_cases()
{
  Triangulation<3> tria;
  GridGenerator::reference_cell(tria, ReferenceCells::Wedge);
  GridTools::distort_random(0.1, tria, false, 3);
  MappingFE<3> mapping(FE_WedgeP<3>(1));
  deallog.push("3d wedge");
  for (const unsigned int k : {1u, 2u})
  {
    FE_WedgeP<3>  fe(k);
    DoFHandler<3> dof(tria);
    dof.distribute_dofs(fe);
    check<3, 1, double>(
        "Helmholtz a(x), c = 2, wedge P" + std::to_string(k),
        mapping,
        dof,
        QGaussWedge<3>(k + 1),
        GPU::HelmholtzOperation<BallOfX, GPU::Constant<double>>{BallOfX{},
                                                                {2.}},
        [](const FEValues<3> &v, unsigned q, unsigned i, unsigned j)
        {
          return ball(v.quadrature_point(q)) * v.shape_grad(i, q) *
                     v.shape_grad(j, q) +
                 2. * v.shape_value(i, q) * v.shape_value(j, q);
        },
        1e-12);
    check_loads<3, 1>("load wedge P" + std::to_string(k),
                      mapping,
                      dof,
                      QGaussWedge<3>(k + 1));
  }
  deallog.pop();
}

void
errors()
{
  Triangulation<2> tria;
  GridGenerator::hyper_cube(tria);
  MappingQ<2> mapping(1);
  {
    FESystem<2>   fe(FE_Q<2>(1), 2);
    DoFHandler<2> dof(tria);
    dof.distribute_dofs(fe);
    expect_error("two components, ElementIntegrator<2, 1>",
                 "FESystem<2>[FE_Q<2>(1)^2] has 2",
                 [&]
                 {
                   GPU::ElementIntegrator<2, 1> integrator;
                   integrator.reinit(mapping, dof, QGauss<2>(2));
                 });
  }
  {
    FE_Q<2>       fe(1);
    DoFHandler<2> dof(tria);
    dof.distribute_dofs(fe);
    MappingFE<2> mapping_fe(FE_Q<2>(1));
    expect_error("MappingFE on quadrilaterals",
                 "MappingCartesian",
                 [&]
                 {
                   GPU::ElementIntegrator<2, 1> integrator;
                   integrator.reinit(mapping_fe, dof, QGauss<2>(2));
                 });
    GPU::ElementIntegrator<2, 1> integrator;
    integrator.reinit(mapping, dof, QGauss<2>(2));
    GPU::SparseMatrix<double> matrix;
    expect_error("assemble before initialize_matrix",
                 "initialize_matrix",
                 [&]
                 { integrator.assemble(GPU::MassOperation<>{{1.}}, matrix); });
    using Data = GPU::ElementIntegrator<2, 1>::AdditionalData;
    Data data;
    data.strategy = Data::Strategy::reference_tensor;
    expect_error(
        "reference tensor for an operation of x",
        "uses_quadrature_points = false",
        [&]
        {
          GPU::ElementIntegrator<2, 1> forced;
          forced.reinit(mapping, dof, QGauss<2>(2), data);
          GPU::Array<double> matrices;
          forced.compute_element_matrices(
              GPU::LaplaceOperation<BallOfX>{BallOfX{}}, 0, 1, matrices);
        });
    {
      using Data2 = GPU::ElementIntegrator<2, 2>::AdditionalData;
      Data2 data2;
      data2.strategy = Data2::Strategy::batched_products;
      FESystem<2>   fe2(FE_Q<2>(1), 2);
      DoFHandler<2> dof2(tria);
      dof2.distribute_dofs(fe2);
      expect_error(
          "batched products of two components",
          "needs one component",
          [&]
          {
            GPU::ElementIntegrator<2, 2> forced;
            forced.reinit(mapping, dof2, QGauss<2>(2), data2);
            GPU::Array<double> matrices;
            forced.compute_element_matrices(
                GPU::ElasticityOperation<>{{2.}, {1.5}}, 0, 1, matrices);
          });
    }
    {
      data.strategy = Data::Strategy::rows;
      FE_Q<2>       fe6(6);
      DoFHandler<2> dof6(tria);
      dof6.distribute_dofs(fe6);
      expect_error(
          "rows for 49 DoFs a cell",
          "at most 16 functions",
          [&]
          {
            GPU::ElementIntegrator<2, 1> forced;
            forced.reinit(mapping, dof6, QGauss<2>(7), data);
            GPU::Array<double> matrices;
            forced.compute_element_matrices(
                GPU::LaplaceOperation<BallOfX>{BallOfX{}}, 0, 1, matrices);
          });
    }
    GPU::Vector<double> rhs;
    expect_error("assemble_rhs before initialize_matrix",
                 "initialize_matrix",
                 [&] { integrator.assemble_rhs(LoadOfX<1>{}, rhs); });
  }
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  LogInit                          log;
  hypercube_cases<2>();
  hypercube_cases<3>();
  affine_cases<2>();
  affine_cases<3>();
  simplex_cases<2>();
  simplex_cases<3>();
  wedge_cases();
  errors();
}
