// Timing helper shared by the benchmarks.
#ifndef dealii_gpu_benchmarks_benchmark_timing_h
#define dealii_gpu_benchmarks_benchmark_timing_h

#include <dealii-gpu/base/device.h>

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <chrono>
#include <vector>

// Median wall time of f() over the repetitions, after one warm-up call; each
// repetition runs f() `batch` times in a row (as a solver applies an
// operator: no host synchronization in between), starts after a barrier,
// ends after a device synchronize, counts the slowest rank and is divided
// by `batch`.
template <typename F>
double
median_seconds(const unsigned int repetitions,
               const F           &f,
               const unsigned int batch = 1)
{
  const MPI_Comm comm = MPI_COMM_WORLD;
  f();
  dealii::GPU::Device::synchronize();
  std::vector<double> times;
  for (unsigned int r = 0; r < repetitions; ++r)
  {
    MPI_Barrier(comm);
    const auto start = std::chrono::steady_clock::now();
    for (unsigned int b = 0; b < batch; ++b)
      f();
    dealii::GPU::Device::synchronize();
    times.push_back(dealii::Utilities::MPI::max(
                        std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count(),
                        comm) /
                    batch);
  }
  std::nth_element(
      times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

#endif
