// Accuracy of the device reciprocal FEEvaluation uses for 1 / det(J) in
// double (internal::reciprocal in matrix_free/fe_evaluation.h: the
// hardware estimate rcp.approx.ftz.f64, then one cubic step), against the
// host's correctly rounded 1 / x, for 2^24 values log-uniform in
// [1e-12, 1e12]. Standalone (CUDA only, not built by CMake):
//   nvcc -O3 -arch=sm_90 -o reciprocal_accuracy reciprocal_accuracy.cu
// Prints the largest relative error of the estimate alone and of the
// refined value, the largest distance in ulps and the share of correctly
// rounded results; exits with 1 if a result is more than 1 ulp off.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                            \
  do                                                                           \
  {                                                                            \
    const cudaError_t status = (call);                                         \
    if (status != cudaSuccess)                                                 \
    {                                                                          \
      std::fprintf(stderr,                                                     \
                   "%s failed at %s:%d: %s\n",                                 \
                   #call,                                                      \
                   __FILE__,                                                   \
                   __LINE__,                                                   \
                   cudaGetErrorString(status));                                \
      std::exit(2);                                                            \
    }                                                                          \
  } while (false)

__device__ double
estimate(const double x)
{
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}

// The same steps as internal::reciprocal<double> on the device.
__device__ double
refined(const double x)
{
  const double r = estimate(x);
  const double e = __fma_rn(-x, r, 1.);
  return __fma_rn(r, __fma_rn(e, e, e), r);
}

__global__ void
reciprocals(const double *x, double *r, double *r0, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
  {
    r[i]  = refined(x[i]);
    r0[i] = estimate(x[i]);
  }
}

int
main()
{
  const int n = 1 << 24;
  double   *x, *r, *r0;
  CHECK(cudaMallocManaged(&x, n * sizeof(double)));
  CHECK(cudaMallocManaged(&r, n * sizeof(double)));
  CHECK(cudaMallocManaged(&r0, n * sizeof(double)));
  std::uint64_t state = 88172645463325252ull; // xorshift64
  for (int i = 0; i < n; ++i)
  {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const double u = (state >> 11) * (1. / 9007199254740992.);
    x[i]           = std::pow(10., -12. + 24. * u);
  }
  reciprocals<<<(n + 255) / 256, 256>>>(x, r, r0, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  double    max_relative = 0, max_relative_estimate = 0;
  long long max_ulps = 0, n_rounded = 0;
  for (int i = 0; i < n; ++i)
  {
    const double exact = 1. / x[i];
    max_relative = std::fmax(max_relative, std::fabs(r[i] - exact) / exact);
    max_relative_estimate =
        std::fmax(max_relative_estimate, std::fabs(r0[i] - exact) / exact);
    // Positive doubles order like their bit patterns.
    std::int64_t a, b;
    std::memcpy(&a, &r[i], sizeof(a));
    std::memcpy(&b, &exact, sizeof(b));
    const long long ulps = std::llabs(a - b);
    max_ulps             = ulps > max_ulps ? ulps : max_ulps;
    n_rounded += ulps == 0;
  }
  std::printf("rcp.approx.ftz.f64 alone: max relative error %.3e (2^%.1f)\n",
              max_relative_estimate,
              std::log2(max_relative_estimate));
  std::printf("with the cubic step: max relative error %.3e, max %lld ulp, "
              "%.4f %% correctly rounded, %d samples\n",
              max_relative,
              max_ulps,
              100. * n_rounded / n,
              n);
  return max_ulps <= 1 ? 0 : 1;
}
