// a(x) = 1 / (0.05 + 2 |x|^2) as a coefficient of GPU::MatrixFreeOperator's
// operations (tests and benchmarks): called with either evaluator's point,
// in its number type. Include from .cu files.
#ifndef dealii_gpu_tests_ball_diffusion_h
#define dealii_gpu_tests_ball_diffusion_h

#include <dealii-gpu/operators/operations.h>

#include <type_traits>

struct BallDiffusion
{
  DEAL_II_GPU_PORTABLE_TEMPLATE
  template <typename Point>
  DEAL_II_GPU_HOST_DEVICE auto operator()(const Point &x) const
  {
    const auto r2 = dealii::GPU::squared_norm(x);
    using T       = std::decay_t<decltype(r2)>;
    return T(1.) / (T(0.05) + T(2.) * r2);
  }
};

#endif
