// The CEED benchmark problems BP1-BP6 (see ceed_bps.h): CG with the
// diagonal for a fixed number of iterations on the box, from min to max
// DoFs, rate = DoFs x CG iterations / s as the CEED papers report it, each
// beside its ceiling: the copy bandwidth measured in the same run over the
// least bytes one CG iteration moves. Prints a table and writes
// ceed_bps_<backend>.csv.
//   ceed_bps [--backend=gpu|cpu] [--bps=1,2,3,4,5,6] [--degrees=1,...,8]
//            [--min-dofs=1e4] [--max-dofs=1e8] [--iterations=50]
//            [--vmult-only] [--generic-cg] [--device=...] [--help]
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
    const int status = CEED::parse_arguments(
        argc,
        argv,
        settings,
        "usage: ceed_bps [--backend=gpu|cpu] [--bps=1,2,3,4,5,6]\n"
        "                [--degrees=1,...,8] [--min-dofs=1e4] "
        "[--max-dofs=1e8]\n"
        "                [--iterations=50] [--vmult-only] [--generic-cg]\n"
        "                [--device=cuda|host]\n"
        "  CG with the inverse diagonal for a fixed number of iterations,\n"
        "  DoFs x iterations / s; --vmult-only: the operator alone;\n"
        "  --generic-cg: deal.II's iteration instead of the fused one.\n",
        {{"--bps",
          [&](const std::string &value)
          { settings.bps = CEED::parse_list(value); }},
         // The operator alone (rate DoFs / s): how much of a CG iteration
         // it takes.
         {"--vmult-only",
          [&](const std::string &) { settings.vmult_only = true; }},
         // deal.II's generic CG iteration, to compare with the fused one.
         {"--generic-cg",
          [&](const std::string &) { settings.generic_cg = true; }}});
    if (status >= 0)
      return status;
    for (const unsigned int bp : settings.bps)
      AssertThrow(bp >= 1 && bp <= 6,
                  ExcMessage("BPs are 1 to 6, not " + std::to_string(bp)));
    const bool    root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
    std::ofstream csv;
    if (root)
    {
      std::cout
          << "backend " << GPU::to_string(settings.backend) << " ("
          << GPU::Device::description() << "), copy bandwidth "
          << settings.bandwidth / 1e9 << " GB/s, "
          << (settings.vmult_only
                  ? std::string("operator alone (its = 1)")
                  : std::string(settings.generic_cg ? "deal.II's generic "
                                                    : "fused ") +
                        "CG with the diagonal, " +
                        std::to_string(settings.iterations) + " iterations")
          << "\n"
          << " BP  k backend ranks   cells        DoFs  its   mesh s  setup s"
          << "   solve s  DoFs*it/s    ceiling  of ceil. op. B/DoF\n";
      csv.open("ceed_bps_" + GPU::to_string(settings.backend) + ".csv");
      csv << "bp,degree,backend,ranks,cells,dofs,iterations,mesh_s,setup_s,"
             "solve_s,"
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
