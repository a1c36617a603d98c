// The operations of benchmarks/cpu_vs_gpu as problems of the CEED runner
// (ceed_bps_problem.h): each provided operation of operations.h in 3D on
// the unit cube, Gauss with k + 1 points, applied on deal.II's CPU
// MatrixFree or on GPU::MatrixFree. The vector Laplacian and vector mass
// are BP4 and BP2 of ceed_bps. Included by the cpu_vs_gpu_<n>.cu files.
#ifndef dealii_gpu_benchmarks_cpu_vs_gpu_problems_h
#define dealii_gpu_benchmarks_cpu_vs_gpu_problems_h

#include "../tests/ball_diffusion.h"
#include "ceed_bps_problem.h"

namespace CEED
{
  // What the problems share: Gauss with k + 1 points, zero boundary values.
  template <typename OperationType, unsigned int components>
  struct OperationProblem
  {
    using Operation                            = OperationType;
    static constexpr unsigned int n_components = components;
    static constexpr bool         lobatto      = false;
    static constexpr bool         dirichlet    = true;
    template <int degree>
    static constexpr int n_q_points_1d = degree + 1;
  };

  /** -div(a(x) grad u), a(x) evaluated at the points. */
  struct LaplaceProblem
      : OperationProblem<GPU::LaplaceOperation<BallDiffusion>, 1>
  {
    static std::string name() { return "laplace"; }
    static Operation   operation() { return {}; }
  };

  /** (u, v). */
  struct MassProblem : OperationProblem<GPU::MassOperation<>, 1>
  {
    static std::string name() { return "mass"; }
    static Operation   operation() { return {{1.}}; }
  };

  /** -div(a(x) grad u) + u. */
  struct HelmholtzProblem
      : OperationProblem<GPU::HelmholtzOperation<BallDiffusion>, 1>
  {
    static std::string name() { return "helmholtz"; }
    static Operation   operation() { return {{}, {1.}}; }
  };

  /** -div(A grad u) + b . grad u + u with a full, constant A. */
  struct ConvectionDiffusionProblem
      : OperationProblem<
            GPU::ConvectionDiffusionOperation<GPU::Constant<Tensor<2, 3>>,
                                              GPU::Constant<Tensor<1, 3>>,
                                              GPU::Constant<double>>,
            1>
  {
    static std::string name() { return "conv-diff"; }
    static Operation   operation()
    {
      Tensor<2, 3> A;
      Tensor<1, 3> b;
      for (unsigned int d = 0; d < 3; ++d)
      {
        A[d][d]           = 1.;
        A[d][(d + 1) % 3] = 0.1;
        b[d]              = 1. / (d + 1);
      }
      return {{A}, {b}, {1.}};
    }
  };

  /** Linear elasticity, lambda = 2, mu = 1, 3 components. */
  struct ElasticityProblem : OperationProblem<GPU::ElasticityOperation<>, 3>
  {
    static std::string name() { return "elasticity"; }
    static Operation   operation() { return {{2.}, {1.}}; }
  };

  // One operation each, in files compiled side by side.
  void run_laplace(const Settings &, std::ostream &csv);
  void run_mass(const Settings &, std::ostream &csv);
  void run_helmholtz(const Settings &, std::ostream &csv);
  void run_convection_diffusion(const Settings &, std::ostream &csv);
  void run_elasticity(const Settings &, std::ostream &csv);
} // namespace CEED

#endif
