// The batched products of ElementIntegrator's batched-product strategy:
// cuBLAS on CUDA, a team kernel on the host backend.
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/integration/element_product_kernel.h>

#ifdef DEAL_II_GPU_COMPILING_CUDA
#  include <cublas_v2.h>
#endif

#include "../base/library_check.h"
#include <string>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
#ifdef DEAL_II_GPU_COMPILING_CUDA
      namespace
      {
#  define DEAL_II_GPU_CUBLAS_CHECK(call)                                       \
    DEAL_II_GPU_LIBRARY_CHECK(                                                 \
        call, CUBLAS_STATUS_SUCCESS, "cuBLAS", cublasGetStatusString)

        // One handle for the process: creating it costs milliseconds.
        cublasHandle_t cublas_handle()
        {
          static cublasHandle_t handle = []
          {
            cublasHandle_t h;
            DEAL_II_GPU_CUBLAS_CHECK(cublasCreate(&h));
            return h;
          }();
          return handle;
        }
      } // namespace
#endif

      // The host backend's products: a team a cell, a thread an entry.
      template <typename Number>
      struct HostElementProducts
      {
        const Number *operands;
        const Number *reference;
        unsigned int  n, K;
        Number       *matrices;

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          const std::size_t cell = team.team_index();
          const Number     *W    = operands + cell * K * n;
          Number           *A    = matrices + cell * n * n;
          team.for_each<false>(n * n,
                               [&](const unsigned int e)
                               {
                                 const unsigned int i = e / n, j = e - i * n;
                                 const Number      *wj = W + std::size_t(j) * K;
                                 const Number      *ui =
                                     reference + std::size_t(i) * K;
                                 Number sum = 0;
                                 for (unsigned int k = 0; k < K; ++k)
                                   sum += wj[k] * ui[k];
                                 A[e] = sum;
                               });
        }
      };

      template <typename Number>
      void element_matrix_products(const Number      *operands,
                                   const Number      *reference,
                                   const unsigned int n,
                                   const unsigned int K,
                                   const unsigned int n_cells,
                                   Number            *matrices)
      {
        if (n_cells == 0)
          return;
#ifdef DEAL_II_GPU_COMPILING_CUDA
        if (Device::backend() == Backend::cuda)
        {
          // Column-major: C_c (n x n) = W_c^T U, so C_c(j, i) = A(i, j) and
          // C_c is A row-major; U is shared (stride 0).
          const Number   one = 1, zero = 0;
          constexpr bool is_double = std::is_same_v<Number, double>;
          const auto     type      = is_double ? CUDA_R_64F : CUDA_R_32F;
          DEAL_II_GPU_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
              cublas_handle(),
              CUBLAS_OP_T,
              CUBLAS_OP_N,
              n,
              n,
              K,
              &one,
              operands,
              type,
              K,
              (long long)K * n,
              reference,
              type,
              K,
              0,
              &zero,
              matrices,
              type,
              n,
              (long long)n * n,
              n_cells,
              is_double ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F,
              CUBLAS_GEMM_DEFAULT));
          return;
        }
#endif
        parallel_for_teams<TeamKernels::one_per_block>(
            "ElementIntegrator (products)",
            n_cells,
            TeamShape{128, 1, 1},
            0,
            HostElementProducts<Number>{operands, reference, n, K, matrices});
      }

      template void element_matrix_products(const double *,
                                            const double *,
                                            unsigned int,
                                            unsigned int,
                                            unsigned int,
                                            double *);
      template void element_matrix_products(const float *,
                                            const float *,
                                            unsigned int,
                                            unsigned int,
                                            unsigned int,
                                            float *);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
