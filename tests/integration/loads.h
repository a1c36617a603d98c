// A load for the right-hand side tests: (f, v) + (h, grad v) with f and h
// functions of x, as a quadrature-point operation for
// GPU::ElementIntegrator and written out for deal.II's FEValues.
#ifndef dealii_gpu_tests_integration_loads_h
#define dealii_gpu_tests_integration_loads_h

#include <dealii-gpu/base/config.h>

#include <deal.II/base/point.h>
#include <deal.II/fe/fe_values.h>

#include <type_traits>

// f_c(x) = 1 + c + x_0 x_{dim-1}, h_{c,d}(x) = 0.1 (d + 1) + 0.2 c x_d.
template <typename T, typename X>
DEAL_II_GPU_HOST_DEVICE T
load_value(const unsigned int c, const X &x)
{
  return T(1. + c) + T(x[0]) * T(x[X::dimension - 1]);
}

template <typename T, typename X>
DEAL_II_GPU_HOST_DEVICE T
load_flux(const unsigned int c, const unsigned int d, const X &x)
{
  return T(0.1 * (d + 1)) + T(0.2 * c) * T(x[d]);
}

template <int n_comp>
struct LoadOfX
{
  template <typename Evaluator>
  DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                          const unsigned int q) const
  {
    using T                             = typename Evaluator::number_type;
    const auto                        x = phi.quadrature_point(q);
    typename Evaluator::value_type    f{};
    typename Evaluator::gradient_type h{};
    constexpr int dim = std::remove_cv_t<decltype(x)>::dimension;
    if constexpr (n_comp == 1)
    {
      f = load_value<T>(0, x);
      for (unsigned int d = 0; d < dim; ++d)
        h[d] = load_flux<T>(0, d, x);
    }
    else
      for (unsigned int c = 0; c < n_comp; ++c)
      {
        f[c] = load_value<T>(c, x);
        for (unsigned int d = 0; d < dim; ++d)
          h[c][d] = load_flux<T>(c, d, x);
      }
    phi.submit_value(f, q);
    phi.submit_gradient(h, q);
  }
};

// The element vector entry i of LoadOfX at point q, times JxW.
template <int dim>
double
load_entry(const FEValues<dim> &v, const unsigned int q, const unsigned int i)
{
  const unsigned int c = v.get_fe().system_to_component_index(i).first;
  const Point<dim>  &x = v.quadrature_point(q);
  double             s = load_value<double>(c, x) * v.shape_value(i, q);
  for (unsigned int d = 0; d < dim; ++d)
    s += load_flux<double>(c, d, x) * v.shape_grad(i, q)[d];
  return s * v.JxW(q);
}

#endif
