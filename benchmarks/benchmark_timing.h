// Timing helper shared by the benchmarks.
#ifndef dealii_gpu_benchmarks_benchmark_timing_h
#define dealii_gpu_benchmarks_benchmark_timing_h

#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <sstream>
#include <string>
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

// "step max on r (min) s, ..." of a set-up's steps over the ranks: the
// slowest rank's seconds, which rank that is, and the fastest rank's
// (rank 0's step names; a rank without a step counts 0); on one rank the
// steps' seconds. Collective; the text is meaningful on rank 0.
inline std::string
steps_over_ranks(const dealii::GPU::SetupTimer &steps)
{
  const MPI_Comm           comm = MPI_COMM_WORLD;
  std::vector<std::string> names;
  for (const auto &step : steps.steps())
    names.push_back(step.first);
  names          = dealii::Utilities::MPI::broadcast(comm, names, 0);
  const int rank = dealii::Utilities::MPI::this_mpi_process(comm);
  struct SecondsOnRank
  {
    double seconds;
    int    rank;
  };
  std::vector<SecondsOnRank> mine, most(names.size()), least(names.size());
  for (const auto &name : names)
    mine.push_back({steps[name], rank});
  MPI_Allreduce(
      mine.data(), most.data(), mine.size(), MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  MPI_Allreduce(
      mine.data(), least.data(), mine.size(), MPI_DOUBLE_INT, MPI_MINLOC, comm);
  const bool         spread = dealii::Utilities::MPI::n_mpi_processes(comm) > 1;
  std::ostringstream out;
  out << std::setprecision(3);
  for (std::size_t i = 0; i < names.size(); ++i)
  {
    out << (i > 0 ? ", " : "") << names[i] << ' ' << most[i].seconds;
    if (spread)
      out << " on " << most[i].rank << " (" << least[i].seconds << ')';
    out << " s";
  }
  return out.str();
}

#endif
