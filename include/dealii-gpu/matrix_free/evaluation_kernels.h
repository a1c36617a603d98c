// The building blocks of GPU::FEEvaluation: one pass of sum factorization,
// the device reciprocal, the cell kernels' scratch sizes.
#ifndef dealii_gpu_matrix_free_evaluation_kernels_h
#define dealii_gpu_matrix_free_evaluation_kernels_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/matrix_free/evaluation_flags.h>

#include <cstddef>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // deal.II's operator& on EvaluationFlags is a host function.
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE bool
      has_flag(const EvaluationFlags::EvaluationFlags flags,
               const EvaluationFlags::EvaluationFlags flag)
      {
        return (static_cast<unsigned int>(flags) &
                static_cast<unsigned int>(flag)) != 0;
      }

      // 1 / x without the division routine on the device. In double: the
      // hardware's estimate (relative error 2^-20), then one cubic step
      // r (1 + e + e^2) with e = 1 - x r. At most 1 ulp off (measured on
      // an H100), for x neither denormal nor infinite (a Jacobian
      // determinant), and no branch to the slow path __drcp_rn keeps.
      template <typename Number>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE Number
      reciprocal(const Number x)
      {
#ifdef __CUDA_ARCH__
        if constexpr (std::is_same_v<Number, double>)
        {
          double r;
          asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
          const double e = __fma_rn(-x, r, 1.);
          return __fma_rn(r, __fma_rn(e, e, e), r);
        }
        else
          return __frcp_rn(x);
#else
        return Number(1) / x;
#endif
      }

      constexpr unsigned int power(const unsigned int base,
                                   const unsigned int exponent)
      {
        return exponent == 0 ? 1 : base * power(base, exponent - 1);
      }

      // Bytes of team scratch a cell kernel needs: the 1D shape values and
      // collocation derivatives (rows padded to an odd length), the values and
      // gradients of all components at the quadrature points, two buffers for
      // the passes, the local results, when the Jacobians are computed in the
      // kernel, the quadrature points they are computed from and, for
      // FEEvaluation::compute_diagonal(), three products of 1D matrices.
      template <int dim, typename Number>
      constexpr std::size_t
      cell_scratch_bytes(const unsigned int fe_degree,
                         const unsigned int n_q_points_1d,
                         const unsigned int n_components,
                         const bool         points_in_scratch = true,
                         const bool         diagonal          = false)
      {
        const std::size_t n_q = power(n_q_points_1d, dim);
        return sizeof(Number) *
               (n_q_points_1d * ((fe_degree + 1) | 1u) +
                n_q_points_1d * (n_q_points_1d | 1u) +
                n_components * (1 + dim) * n_q + 2 * n_q +
                n_components * power(fe_degree + 1, dim) +
                (points_in_scratch ? dim * n_q : 0) +
                (diagonal ? 3 * n_q_points_1d * (fe_degree + 1) : 0));
      }

      // Whether cells of this kind may run one thread per cell (see
      // CellThreads::per_cell): only for them is the serial team code
      // compiled.
      template <int dim>
      constexpr bool thread_per_cell_compiled(const unsigned int n_components,
                                              const unsigned int n_q_points_1d)
      {
        return dim == 3 && n_components == 1 &&
               power(n_q_points_1d, dim) <= max_points_thread_per_cell;
      }

      // One pass of sum factorization in direction `direction`: for every
      // point of `out` (extents out0 x out1 x out2),
      //   out = sum_m M(o, m) in(.., m, ..)   (forward, M[o * ld + m]) or
      //   out = sum_m M(m, o) in(.., m, ..)   (transpose, M[m * ld + o]),
      // where `in` has the extents of `out` except n_contract in `direction`.
      // A barrier follows, so the next pass can read `out`.
      template <int  direction,
                bool transpose,
                bool add,
                bool may_be_serial,
                typename Number>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      contract(const TeamMember  &team,
               const Number      *M,
               const unsigned int ld,
               const unsigned int n_contract,
               const Number      *in,
               Number            *out,
               const unsigned int out0,
               const unsigned int out1,
               const unsigned int out2)
      {
        const unsigned int in0 = direction == 0 ? n_contract : out0;
        const unsigned int in1 = direction == 1 ? n_contract : out1;
        team.for_each<may_be_serial>(
            out0,
            out1,
            out2,
            [&](unsigned int i, unsigned int j, unsigned int k)
            {
              const unsigned int o = direction == 0   ? i
                                     : direction == 1 ? j
                                                      : k;
              // Position of m = 0 in `in` and the stride of m there.
              const unsigned int base   = direction == 0   ? in0 * (j + in1 * k)
                                          : direction == 1 ? i + in0 * in1 * k
                                                           : i + in0 * j;
              const unsigned int stride = direction == 0   ? 1
                                          : direction == 1 ? in0
                                                           : in0 * in1;
              Number             sum    = Number();
              for (unsigned int m = 0; m < n_contract; ++m)
                sum += (transpose ? M[m * ld + o] : M[o * ld + m]) *
                       in[base + m * stride];
              const unsigned int index = i + out0 * (j + out1 * k);
              out[index]               = add ? out[index] + sum : sum;
            });
        team.barrier<may_be_serial>();
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
