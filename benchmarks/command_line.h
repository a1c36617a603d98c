// The benchmarks' command lines: --help prints the usage; an unknown
// argument or a bad value prints a one-line message and the usage, and the
// program exits with status 2 instead of aborting with a stack trace.
#ifndef dealii_gpu_benchmarks_command_line_h
#define dealii_gpu_benchmarks_command_line_h

#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/utilities.h>

#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace Benchmarks
{
  /** A command line the benchmark cannot run. */
  struct UsageError : std::runtime_error
  {
    using std::runtime_error::runtime_error;
  };

  /**
   * Hands each argument but the device's (--device=name, --device name) to
   * handle(arg), which returns whether it knows the argument and may throw
   * UsageError, or std::logic_error (std::stoi and the like) or a deal.II
   * exception for a bad value. Returns -1 to go on, 0 after --help, 2
   * after a bad argument; rank 0 prints.
   */
  template <typename Handle>
  int parse_command_line(const int          argc,
                         char             **argv,
                         const std::string &usage,
                         const Handle      &handle)
  {
    const bool root =
        dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
    const auto fail = [&](const std::string &message)
    {
      if (root)
        std::cerr << argv[0] << ": " << message << "\n\n" << usage;
      return 2;
    };
    for (int i = 1; i < argc; ++i)
    {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h")
      {
        if (root)
          std::cout << usage;
        return 0;
      }
      if (arg == "--device")
      {
        ++i;
        continue;
      }
      if (arg.rfind("--device=", 0) == 0)
        continue;
      try
      {
        if (!handle(arg))
          return fail("unknown argument " + arg);
      }
      catch (const UsageError &e)
      {
        return fail(e.what());
      }
      catch (const std::logic_error &)
      {
        return fail("bad value in " + arg);
      }
      catch (const dealii::ExceptionBase &)
      {
        return fail("bad value in " + arg);
      }
    }
    return -1;
  }

  /** "--key=value" as {"--key", "value"} ({"--key", ""} without '='). */
  inline std::pair<std::string, std::string>
  split_argument(const std::string &arg)
  {
    const auto eq = arg.find('=');
    return {arg.substr(0, eq),
            eq == std::string::npos ? std::string() : arg.substr(eq + 1)};
  }

  /** Comma-separated unsigned integers ("2,3,4"). */
  inline std::vector<unsigned int> unsigned_list(const std::string &value)
  {
    std::vector<unsigned int> list;
    for (const auto &s : dealii::Utilities::split_string_list(value))
      list.push_back(std::stoi(s));
    return list;
  }

  /** The degree of the multigrid benchmarks, which compile 2 and 4. */
  inline unsigned int degree_2_or_4(const std::string &value)
  {
    const int degree = std::stoi(value);
    if (degree != 2 && degree != 4)
      throw UsageError("--degree=2 or 4");
    return degree;
  }

  /** After the command line: the device, and the set-up's progress lines
   *  on rank 0's standard output. */
  inline void start_device(int &argc, char **&argv)
  {
    dealii::GPU::Device::initialize(argc, argv);
    if (dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0)
      dealii::GPU::set_setup_progress(&std::cout);
  }
} // namespace Benchmarks

#endif
