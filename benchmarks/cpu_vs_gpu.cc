// CPU against GPU for each provided operation (operations.h): operator
// applications u -> A u in 3D on the unit cube, degrees 1-8, on deal.II's
// CPU MatrixFree (one MPI rank a core) or on GPU::MatrixFree, rate = DoFs
// / s of one application beside its ceiling (the copy bandwidth measured in
// the same run over src, dst and the operator's own data per DoF). Prints a
// table and writes cpu_vs_gpu_<backend>.csv; contrib/gpu/run_benchmarks.sh
// (step cpu-vs-gpu) runs both backends and joins them into the speedups.
// The vector Laplacian and vector mass are ceed_bps's BP4 and BP2.
//   cpu_vs_gpu [--backend=gpu|cpu] [--degrees=1,...,8]
//              [--operations=laplace,mass,helmholtz,conv-diff,elasticity]
//              [--min-dofs=5e6] [--max-dofs=2e7] [--device=...] [--help]
//   mpirun -np 16 --bind-to core cpu_vs_gpu --backend=cpu
#include <dealii-gpu/base/device.h>

#include "ceed_bps.h"
#include "cpu_vs_gpu_problems.h"
#include <iostream>
#include <map>
#include <string>

using namespace dealii;

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  try
  {
    GPU::Device::initialize(argc, argv);
    const std::map<std::string,
                   void (*)(const CEED::Settings &, std::ostream &)>
                             runs       = {{"laplace", &CEED::run_laplace},
                                           {"mass", &CEED::run_mass},
                                           {"helmholtz", &CEED::run_helmholtz},
                                           {"conv-diff", &CEED::run_convection_diffusion},
                                           {"elasticity", &CEED::run_elasticity}};
    std::vector<std::string> operations = {
        "laplace", "mass", "helmholtz", "conv-diff", "elasticity"};
    CEED::Settings settings;
    settings.vmult_only  = true;
    settings.degrees     = CEED::compiled_degrees();
    settings.min_dofs    = 5e6;
    settings.max_dofs    = 2e7;
    settings.repetitions = 5;
    const int status     = CEED::parse_arguments(
        argc,
        argv,
        settings,
        "usage: cpu_vs_gpu [--backend=gpu|cpu] [--degrees=1,...,8]\n"
            "                  "
            "[--operations=laplace,mass,helmholtz,conv-diff,elasticity]\n"
            "                  [--min-dofs=5e6] [--max-dofs=2e7] "
            "[--device=cuda|host]\n",
        {{"--operations", [&](const std::string &value) {
            operations = Utilities::split_string_list(value, ',');
          }}});
    if (status >= 0)
      return status;
    for (const std::string &name : operations)
      AssertThrow(runs.count(name) == 1,
                  ExcMessage("unknown operation " + name +
                             " (laplace, mass, helmholtz, conv-diff, "
                             "elasticity)"));
    const bool    root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
    std::ofstream csv;
    if (root)
    {
      std::cout << "backend " << GPU::to_string(settings.backend) << " ("
                << GPU::Device::description() << "), copy bandwidth "
                << settings.bandwidth / 1e9 << " GB/s, operator applications\n"
                << "problem   k backend ranks   cells        DoFs    setup s"
                << "   vmult s     DoFs/s    ceiling  of ceil. op. B/DoF\n";
      csv.open("cpu_vs_gpu_" + GPU::to_string(settings.backend) + ".csv");
      csv << "operation,degree,backend,ranks,cells,dofs,applications,setup_s,"
             "vmult_s,dofs_per_s,least_bytes_per_dof,operator_bytes_per_dof,"
             "copy_bytes_per_s,ceiling\n";
    }
    for (const std::string &name : operations)
      runs.at(name)(settings, csv);
  }
  catch (const std::exception &e)
  {
    std::cerr << "cpu_vs_gpu: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
