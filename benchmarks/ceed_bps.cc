// The CEED benchmark problems BP1-BP6 (see ceed_bps.h): CG with the
// diagonal for a fixed number of iterations on the box, from min to max
// DoFs, rate = DoFs x CG iterations / s as the CEED papers report it, each
// beside its ceiling: the copy bandwidth measured in the same run over the
// least bytes one CG iteration moves. Prints a table and writes
// ceed_bps_<backend>.csv.
//   ceed_bps [--backend=gpu|cpu] [--bps=1,2,3,4,5,6] [--degrees=1,...,8]
//            [--min-dofs=1e4] [--max-dofs=1e8] [--iterations=50]
//            [--device=...]
// The CPU rows run deal.II's MatrixFree with one MPI rank a core:
//   mpirun -np 16 --bind-to core ceed_bps --backend=cpu
#include "ceed_bps.h"

#include <dealii-gpu/base/device.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/utilities.h>
#include <deal.II/lac/la_parallel_vector.h>

#include "benchmark_timing.h"
#include <iostream>
#include <string>

using namespace dealii;

namespace
{
  std::vector<unsigned int> parse_list(const std::string &text)
  {
    std::vector<unsigned int> values;
    for (const std::string &item : Utilities::split_string_list(text, ','))
      values.push_back(Utilities::string_to_int(item));
    return values;
  }

  // Bytes per second of a copy of a vector of 1e8 doubles (summed over the
  // ranks), read and write counted once each.
  double copy_bandwidth(const GPU::MatrixFreeBackend backend)
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
} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  try
  {
    GPU::Device::initialize(argc, argv);
    CEED::Settings settings;
    settings.bps     = {1, 2, 3, 4, 5, 6};
    settings.degrees = CEED::compiled_degrees();
    for (int i = 1; i < argc; ++i)
    {
      const std::string arg = argv[i];
      const auto        eq  = arg.find('=');
      const std::string key = arg.substr(0, eq);
      const std::string value =
          eq == std::string::npos ? std::string() : arg.substr(eq + 1);
      if (key == "--backend")
        settings.backend = GPU::matrix_free_backend_from_string(value);
      else if (key == "--bps")
        settings.bps = parse_list(value);
      else if (key == "--degrees")
        settings.degrees = parse_list(value);
      else if (key == "--min-dofs")
        settings.min_dofs = std::stod(value);
      else if (key == "--max-dofs")
        settings.max_dofs = std::stod(value);
      else if (key == "--iterations")
        settings.iterations = Utilities::string_to_int(value);
      else if (key != "--device")
        AssertThrow(false, ExcMessage("unknown argument " + arg));
    }
    for (const unsigned int bp : settings.bps)
      AssertThrow(bp >= 1 && bp <= 6,
                  ExcMessage("BPs are 1 to 6, not " + std::to_string(bp)));
    for (const unsigned int k : settings.degrees)
      AssertThrow(CEED::is_compiled(k),
                  ExcMessage("degree " + std::to_string(k) +
                             " is not compiled (CMake's "
                             "DEAL_II_GPU_CEED_BPS_DEGREES)"));
    settings.bandwidth = copy_bandwidth(settings.backend);
    const bool    root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
    std::ofstream csv;
    if (root)
    {
      std::cout << "backend " << GPU::to_string(settings.backend) << " ("
                << GPU::Device::description() << "), copy bandwidth "
                << settings.bandwidth / 1e9 << " GB/s, CG with the diagonal, "
                << settings.iterations << " iterations\n"
                << " BP  k backend ranks   cells        DoFs  its  setup s"
                << "   solve s  DoFs*it/s    ceiling  of ceil. op. B/DoF\n";
      csv.open("ceed_bps_" + GPU::to_string(settings.backend) + ".csv");
      csv << "bp,degree,backend,ranks,cells,dofs,iterations,setup_s,solve_s,"
             "dofs_iterations_per_s,least_bytes_per_dof_iteration,"
             "operator_bytes_per_dof,copy_bytes_per_s,ceiling\n";
    }
    for (const unsigned int bp : settings.bps)
      if (bp <= 2)
        CEED::run_bp1_bp2(bp, settings, csv);
      else if (bp <= 4)
        CEED::run_bp3_bp4(bp, settings, csv);
      else
        CEED::run_bp5_bp6(bp, settings, csv);
  }
  catch (const std::exception &e)
  {
    std::cerr << "ceed_bps: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
