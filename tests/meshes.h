// Meshes shared by the tests and benchmarks: the adaptively refined meshes
// of the correctness matrix, and the coefficient of the ball problem.
#ifndef dealii_gpu_tests_meshes_h
#define dealii_gpu_tests_meshes_h

#include <dealii-gpu/base/config.h>

#include <deal.II/base/tensor.h>
#include <deal.II/grid/grid_generator.h>

#include <type_traits>

using namespace dealii;

// A(x) = 1 / (0.05 + 2 |x|^2), callable in cell kernels
// (GPU::LaplaceFunctionCell).
template <int dim, typename Number>
struct BallCoefficient
{
  DEAL_II_GPU_HOST_DEVICE Number
  operator()(const Tensor<1, dim, Number> &p) const
  {
    Number r2 = 0;
    for (unsigned int d = 0; d < dim; ++d)
      r2 += p[d] * p[d];
    return Number(1) / (Number(0.05) + Number(2) * r2);
  }
};

// The same coefficient for quadrature-point operations, which call it with
// their evaluator's point type (deal.II's VectorizedArray points on the CPU,
// Tensor<1, dim, Number> on the GPU and in element integration).
struct BallOfX
{
#ifdef __CUDACC__
#  pragma nv_exec_check_disable
#endif
  template <typename Point>
  DEAL_II_GPU_HOST_DEVICE auto operator()(const Point &x) const
  {
    auto r2 = x[0] * x[0];
    for (unsigned int d = 1; d < Point::dimension; ++d)
      r2 += x[d] * x[d];
    using T = std::remove_cv_t<decltype(r2)>;
    return T(1.) / (T(0.05) + T(2.) * r2);
  }
};

// hyper_cube [-1, 1]^dim (@p subdivisions coarse cells a direction) or
// hyper_ball (radius 1), refined globally.
template <typename Triangulation>
void
make_mesh(Triangulation     &tria,
          const bool         ball,
          const unsigned int refinements,
          const unsigned int subdivisions = 1)
{
  if (ball)
    GridGenerator::hyper_ball(tria);
  else
    GridGenerator::subdivided_hyper_cube(tria, subdivisions, -1., 1.);
  tria.refine_global(refinements);
}

// Refines once the active cells whose center lies in the spherical shell
// inner <= |x| <= outer: hanging nodes on faces and, in 3D, also on edges
// only (where a refined and an unrefined cell share just an edge).
template <typename Triangulation>
void
refine_shell(Triangulation &tria, const double inner, const double outer)
{
  for (const auto &cell : tria.active_cell_iterators())
    if (cell->is_locally_owned())
    {
      const double r = cell->center().norm();
      if (r >= inner && r <= outer)
        cell->set_refine_flag();
    }
  tria.execute_coarsening_and_refinement();
}

#endif
