// The CEED benchmark problems BP1-BP6 with GPU::MatrixFreeOperator: mass
// (BP1, BP2) and Laplace (BP3-BP6), scalar and 3 components, Gauss with
// k + 2 points (BP1-BP4) or Gauss-Lobatto with k + 1 (BP5, BP6), on the box
// [0, 1]^3 (MappingQ1), CG with the operator's diagonal as preconditioner.
// One run per backend: deal.II's CPU MatrixFree (one MPI rank a core) or
// GPU::MatrixFree; see ceed_bps.cc. benchmarks/cpu_vs_gpu runs the other
// provided operations through the same code.
#ifndef dealii_gpu_benchmarks_ceed_bps_h
#define dealii_gpu_benchmarks_ceed_bps_h

#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/operators/matrix_free_backend.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/utilities.h>
#include <deal.II/lac/la_parallel_vector.h>

#include "benchmark_timing.h"
#include "command_line.h"
#include <fstream>
#include <functional>
#include <map>
#include <string>
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
    /** Operator applications only (rate DoFs / s), no CG. */
    bool vmult_only = false;
    /** deal.II's generic CG iteration (seven vector operations) instead
     *  of the fused one GPU::Vector gets with a DiagonalMatrix. */
    bool generic_cg = false;
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

  inline std::vector<unsigned int> parse_list(const std::string &text)
  {
    std::vector<unsigned int> values;
    for (const std::string &item : Utilities::split_string_list(text, ','))
      values.push_back(Utilities::string_to_int(item));
    return values;
  }

  // Bytes per second of a copy of a vector of 1e8 doubles (summed over the
  // ranks), read and write counted once each.
  inline double copy_bandwidth(const GPU::MatrixFreeBackend backend)
  {
    const MPI_Comm     comm  = MPI_COMM_WORLD;
    const unsigned int ranks = Utilities::MPI::n_mpi_processes(comm);
    const std::size_t  n     = 100000000 / ranks;
    double             seconds;
    if (backend == GPU::MatrixFreeBackend::gpu)
    {
      GPU::Vector<double> a(n), b(n);
      a       = 1.;
      seconds = median_seconds(10, [&]() { b = a; });
    }
    else
    {
      LinearAlgebra::distributed::Vector<double> a(n), b(n);
      a       = 1.;
      seconds = median_seconds(10, [&]() { b = a; });
    }
    return 16. * n * ranks / seconds;
  }

  /**
   * Reads the command line into @p settings: --backend, --degrees,
   * --min-dofs, --max-dofs, --iterations, and the keys of @p other
   * (key -> what to do with the value); --device is the device's. Then
   * measures the backend's copy bandwidth. Returns as
   * Benchmarks::parse_command_line(): -1 to go on, 0 after --help, 2 after
   * a bad argument (rank 0 printed @p usage).
   */
  inline int parse_arguments(
      int                argc,
      char             **argv,
      Settings          &settings,
      const std::string &usage,
      const std::map<std::string, std::function<void(const std::string &)>>
          &other)
  {
    const int status = Benchmarks::parse_command_line(
        argc,
        argv,
        usage,
        [&](const std::string &arg)
        {
          const auto [key, value] = Benchmarks::split_argument(arg);
          if (key == "--backend")
            settings.backend = GPU::matrix_free_backend_from_string(value);
          else if (key == "--degrees")
          {
            settings.degrees = parse_list(value);
            for (const unsigned int k : settings.degrees)
              if (!is_compiled(k))
                throw Benchmarks::UsageError(
                    "degree " + std::to_string(k) +
                    " is not compiled (CMake's DEAL_II_GPU_CEED_BPS_DEGREES)");
          }
          else if (key == "--min-dofs")
            settings.min_dofs = std::stod(value);
          else if (key == "--max-dofs")
            settings.max_dofs = std::stod(value);
          else if (key == "--iterations")
            settings.iterations = std::stoi(value);
          else if (other.count(key) == 1)
            other.at(key)(value);
          else
            return false;
          return true;
        });
    if (status < 0)
      settings.bandwidth = copy_bandwidth(settings.backend);
    return status;
  }

  // Runs one BP for every degree of the settings; the BPs are compiled in
  // three files (mass, Laplace with Gauss, Laplace with Gauss-Lobatto).
  void run_bp1_bp2(const unsigned int bp, const Settings &, std::ostream &csv);
  void run_bp3_bp4(const unsigned int bp, const Settings &, std::ostream &csv);
  void run_bp5_bp6(const unsigned int bp, const Settings &, std::ostream &csv);
} // namespace CEED

#endif
