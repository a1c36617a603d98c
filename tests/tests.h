// Small harness for dealii-gpu's deal.II-style tests: output goes through
// deallog into the file "output", which deal.II's test macros compare with
// <name>.output using numdiff. The backend is chosen by DEALII_GPU_DEVICE
// (default: CUDA when a device is visible), so one .output file checks both.
#ifndef dealii_gpu_tests_h
#define dealii_gpu_tests_h

#include <dealii-gpu/base/device.h>

#include <deal.II/base/logstream.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/utilities.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

using namespace dealii;

// The heaviest tests have a CI subset: where no GPU runs them (CI), CMake's
// DEAL_II_GPU_FULL_TESTS=OFF compiles only the cases outside
// FULL_TESTS_ONLY(...), which cover every feature at low degrees, and
// compares with <name>.with_gpu_full_tests=off.output. The GPU machine
// compiles and runs every case (=on).
#ifndef DEAL_II_GPU_FULL_TESTS
#  define DEAL_II_GPU_FULL_TESTS 1
#endif
#if DEAL_II_GPU_FULL_TESTS
#  define FULL_TESTS_ONLY(...) __VA_ARGS__
#else
#  define FULL_TESTS_ONLY(...)
#endif

// Reproducible pseudo-random numbers in [0, 1), the same on every machine.
inline double
random_value(std::uint64_t &state)
{
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) / 9007199254740992.;
}

// Prints the backend on the console (not into "output", which must be the
// same on both backends).
inline void
announce_backend()
{
  std::cout << "dealii-gpu backend: " << GPU::Device::description()
            << std::endl;
}

// Serial tests: deallog writes into "output".
struct LogInit
{
  std::ofstream logfile;
  LogInit() : logfile("output")
  {
    deallog.attach(logfile);
    deallog.depth_console(0);
    deallog << std::setprecision(6);
    GPU::Device::initialize("auto");
    announce_backend();
  }
  ~LogInit() { deallog.detach(); }
};

// MPI tests: every rank logs into its own file; at the end rank 0 collects
// them into "output" in rank order, so all ranks' lines are compared.
struct MPILogInitAll
{
  std::ofstream logfile;
  unsigned int  rank;
  unsigned int  n_ranks;
  MPILogInitAll()
      : rank(Utilities::MPI::this_mpi_process(MPI_COMM_WORLD)),
        n_ranks(Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD))
  {
    logfile.open(rank == 0 ? "output" : "output.proc" + std::to_string(rank));
    deallog.attach(logfile);
    deallog.depth_console(0);
    deallog << std::setprecision(6);
    deallog.push(Utilities::int_to_string(rank));
    GPU::Device::initialize("auto");
    if (rank == 0)
      announce_backend();
  }
  ~MPILogInitAll()
  {
    deallog.pop();
    deallog.detach();
    logfile.close();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
    {
      std::ofstream out("output", std::ios::app);
      for (unsigned int r = 1; r < n_ranks; ++r)
      {
        const std::string name = "output.proc" + std::to_string(r);
        std::ifstream     in(name);
        out << "\n" << in.rdbuf();
        in.close();
        std::remove(name.c_str());
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
};

// The larger of an error measure and a new value, NaN if either is NaN:
// std::max(error, NaN) returns error, and a check `error < tolerance` must
// fail on a NaN result.
inline double
max_keep_nan(const double error, const double value)
{
  return std::isnan(error) || std::isnan(value)
             ? std::numeric_limits<double>::quiet_NaN()
             : std::max(error, value);
}

// max |v_i|, NaN where an entry is not finite: deal.II's linfty_norm()
// skips a NaN entry, the l2 norm keeps it.
template <typename VectorType>
double
max_norm(const VectorType &v)
{
  const double l2 = v.l2_norm();
  return std::isfinite(l2) ? double(v.linfty_norm())
                           : std::numeric_limits<double>::quiet_NaN();
}

// Utilities::MPI::max() that is NaN where any rank's value is (MPI_MAX
// need not keep a NaN).
inline double
max_over_ranks(const double value, const MPI_Comm comm)
{
  const double any_nan =
      dealii::Utilities::MPI::max(std::isnan(value) ? 1. : 0., comm);
  return any_nan > 0. ? std::numeric_limits<double>::quiet_NaN()
                      : dealii::Utilities::MPI::max(value, comm);
}

// Relative difference, safe for a zero reference.
inline double
relative_difference(const double value, const double reference)
{
  return std::abs(value - reference) / std::max(std::abs(reference), 1e-300);
}

// Logs whether @p f throws an exception whose text contains @p expected.
template <typename F>
void
expect_error(const std::string &what, const std::string &expected, F f)
{
  std::string message = "(nothing thrown)";
  try
  {
    f();
  }
  catch (const std::exception &e)
  {
    message = e.what();
  }
  // deal.II breaks the additional information into indented lines: search
  // the text with each run of white space made one space.
  std::string flat;
  for (const char c : message)
    if (!std::isspace(static_cast<unsigned char>(c)))
      flat += c;
    else if (!flat.empty() && flat.back() != ' ')
      flat += ' ';
  const bool named = flat.find(expected) != std::string::npos;
  if (!named)
    std::cout << what << ": " << message << std::endl;
  deallog << what << ": refused, naming \"" << expected
          << "\": " << (named ? "yes" : "no") << std::endl;
}

#endif
