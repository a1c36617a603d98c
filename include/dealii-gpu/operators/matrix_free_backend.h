// Run-time choices of GPU::MatrixFreeOperator: where it runs (deal.II's
// CPU MatrixFree or GPU::MatrixFree) and its 1D quadrature rule.
#ifndef dealii_gpu_operators_matrix_free_backend_h
#define dealii_gpu_operators_matrix_free_backend_h

#include <deal.II/base/quadrature.h>

#include <string>

namespace dealii
{
  namespace GPU
  {
    /**
     * Where a GPU::MatrixFreeOperator runs: deal.II's MatrixFree and
     * FEEvaluation on the host (cpu), or GPU::MatrixFree and
     * GPU::FEEvaluation (gpu: CUDA, or the same kernels on the host backend
     * where no device is used).
     */
    enum class MatrixFreeBackend
    {
      cpu,
      gpu
    };

    /** "cpu" or "gpu". */
    std::string to_string(const MatrixFreeBackend backend);

    /** From "cpu" or "gpu"; anything else throws. */
    MatrixFreeBackend matrix_free_backend_from_string(const std::string &name);

    /** The 1D rule of GPU::MatrixFreeOperator's tensor-product quadrature. */
    enum class QuadratureRule
    {
      /** QGauss(n_q_points_1d). */
      gauss,
      /** QGaussLobatto(n_q_points_1d); with n_q_points_1d = degree + 1 the
       *  points are the nodes (collocation, CEED's BP5 and BP6). */
      gauss_lobatto
    };

    /** "gauss" or "gauss-lobatto". */
    std::string to_string(const QuadratureRule rule);

    /** From "gauss" or "gauss-lobatto"; anything else throws. */
    QuadratureRule quadrature_rule_from_string(const std::string &name);

    /** The 1D rule @p rule with @p n_points points (Gauss-Lobatto: at
     *  least 2). */
    Quadrature<1> make_quadrature(const QuadratureRule rule,
                                  const unsigned int   n_points);
  } // namespace GPU
} // namespace dealii

#endif
