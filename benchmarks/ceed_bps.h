// The CEED benchmark problems BP1-BP6 with GPU::MatrixFreeOperator: mass
// (BP1, BP2) and Laplace (BP3-BP6), scalar and 3 components, Gauss with
// k + 2 points (BP1-BP4) or Gauss-Lobatto with k + 1 (BP5, BP6), on the box
// [0, 1]^3 (MappingQ1), CG with the operator's diagonal as preconditioner.
// One run per backend: deal.II's CPU MatrixFree (one MPI rank a core) or
// GPU::MatrixFree; see ceed_bps.cc.
#ifndef dealii_gpu_benchmarks_ceed_bps_h
#define dealii_gpu_benchmarks_ceed_bps_h

#include <dealii-gpu/operators/matrix_free_backend.h>

#include <deal.II/base/mpi.h>

#include <fstream>
#include <vector>

namespace CEED
{
  using namespace dealii;

  struct Settings
  {
    std::vector<unsigned int> bps;
    std::vector<unsigned int> degrees;
    GPU::MatrixFreeBackend    backend     = GPU::MatrixFreeBackend::gpu;
    double                    min_dofs    = 1e4;
    double                    max_dofs    = 1e8;
    unsigned int              iterations  = 50;
    unsigned int              repetitions = 3;
    /** Copy bandwidth of the backend in this run (bytes/s), the ceiling. */
    double bandwidth = 0;
  };

  // Whether this build compiled a degree (CMake's
  // DEAL_II_GPU_CEED_BPS_DEGREES, passed as a bit mask).
  constexpr bool is_compiled(const unsigned int degree)
  {
    return degree < 32 &&
           ((DEAL_II_GPU_CEED_BPS_DEGREE_MASK >> degree) & 1u) != 0;
  }

  inline std::vector<unsigned int> compiled_degrees()
  {
    std::vector<unsigned int> degrees;
    for (unsigned int k = 1; k <= 8; ++k)
      if (is_compiled(k))
        degrees.push_back(k);
    return degrees;
  }

  // Runs one BP for every degree of the settings; the BPs are compiled in
  // three files (mass, Laplace with Gauss, Laplace with Gauss-Lobatto).
  void run_bp1_bp2(const unsigned int bp, const Settings &, std::ostream &csv);
  void run_bp3_bp4(const unsigned int bp, const Settings &, std::ostream &csv);
  void run_bp5_bp6(const unsigned int bp, const Settings &, std::ostream &csv);
} // namespace CEED

#endif
