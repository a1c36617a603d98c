// Throughput of the operator (A(x) grad u, grad v) with
// A(x) = 1 / (0.05 + 2 |x|^2): one operator application per DoF and second,
// for growing meshes of the ball (MappingQ) or the cube, uniformly refined
// or refined once more on the shell 0.3 <= |x| <= 0.6 (hanging nodes).
//
//   operator_throughput [parameters.prm] [--device=cuda|host]
//   mpirun -np 16 operator_throughput cpu.prm   (Implementations = deal.II-cpu)
//
// Implementations, each on the same meshes:
//   gpu          GPU::MatrixFree on the active backend (cell_loop, with ghost
//                exchange and compress);
//   cusparse     the same operator assembled into a CSR matrix on the device
//                and applied with cuSPARSE SpMV (one rank; until the matrix
//                no longer fits; checked against the matrix-free operator);
//   deal.II-cpu  deal.II's CPU MatrixFree (the Debian build: no SIMD, no
//                threads, so one MPI rank per core), double only.
//
// Each figure is the median of the repetitions after a warm-up; a repetition
// times `Applications per sample` applications in a row without host
// synchronization (as in a solver), divided by their number. The bytes an
// application must move at least (vectors, DoF indices, the geometry:
// quadrature points, or inverse Jacobians and JxW, the coefficient; or the
// merged tensor; or the matrix) are compared with a device copy measured
// in the same run. The device memory each approach holds gives bytes per DoF
// and so the largest problem that fits.
#include "operator_throughput.h"

int
main(int argc, char **argv)
{
  try
  {
    Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
    GPU::Device::initialize(argc, argv);
    const bool root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
    ParameterHandler prm;
    Parameters       param;
    param.declare(prm);
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]).rfind("--", 0) != 0)
        prm.parse_input(argv[i]);
    param.parse(prm);

    // Copy bandwidth of this device, the ceiling for the operator.
    double     copy_rate = 0;
    const bool on_cpu    = param.runs("deal.II-cpu");
    AssertThrow(!on_cpu || param.implementations.size() == 1,
                ExcMessage("deal.II-cpu runs alone (one MPI rank per core)"));
    if (on_cpu)
    {
      // Memory bandwidth of the CPU: all ranks copy at once.
      const unsigned int p = Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
      LinearAlgebra::distributed::Vector<double> a(std::size_t(5e7) / p), b(a);
      a              = 1.;
      const double t = median_seconds(
          param.repetitions, [&] { b = a; }, param.batch);
      copy_rate = 2. * 5e7 * sizeof(double) / t;
    }
    else
    {
      GPU::Vector<double> a(std::size_t(5e7)), b(std::size_t(5e7));
      a              = 1.;
      const double t = median_seconds(
          param.repetitions,
          [&]
          {
            GPU::Memory::copy_within(a.backend(),
                                     b.get_values(),
                                     a.get_values(),
                                     a.locally_owned_size() * sizeof(double));
          },
          param.batch);
      copy_rate = 2. * 5e7 * sizeof(double) / t;
    }
    if (root)
      std::cout << "operator_throughput on "
                << (!on_cpu
                        ? GPU::Device::description()
                        : std::string("deal.II's CPU MatrixFree (unvectorized "
                                      "build, one MPI rank per core)"))
                << ", " << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD)
                << " MPI rank(s); copy bandwidth " << copy_rate / 1e9 << " GB/s"
                << std::endl;

    std::vector<Row> rows;
    for (const auto &type : param.number_types)
      for (const unsigned int degree : param.degrees)
      {
        if (param.dim == 2)
          type == "double" ? dispatch<2, double>(degree, param, rows)
                           : dispatch<2, float>(degree, param, rows);
        else
          type == "double" ? dispatch<3, double>(degree, param, rows)
                           : dispatch<3, float>(degree, param, rows);
      }

    if (root)
    {
      std::ofstream csv(param.output_file);
      csv << "implementation,backend,ranks,mesh,refinement,dim,degree,number,"
             "cells,hanging_cells,dofs,setup_seconds,vmult_seconds,"
             "dofs_per_second,bytes,GB_per_s,fraction_of_copy,device_bytes,"
             "device_bytes_per_dof,check\n";
      std::cout << "\n implementation  dim  Q  number       cells  hanging"
                   "        DoFs   vmult [ms]     DoFs/s   GB/s  of copy"
                   "  B/DoF\n";
      for (const Row &r : rows)
      {
        const double rate = r.bytes / r.seconds;
        std::cout << std::setw(15) << r.implementation << std::setw(5) << r.dim
                  << std::setw(3) << r.degree << std::setw(8) << r.number
                  << std::setw(12) << r.cells << std::setw(9) << r.hanging_cells
                  << std::setw(12) << r.dofs << std::fixed
                  << std::setprecision(3) << std::setw(13) << r.seconds * 1e3
                  << std::scientific << std::setprecision(2) << std::setw(11)
                  << r.dofs / r.seconds << std::fixed << std::setprecision(0)
                  << std::setw(7) << rate / 1e9 << std::setw(8)
                  << 100 * rate / copy_rate << "%" << std::setw(7)
                  << r.device_bytes / r.dofs << std::defaultfloat << "\n";
        csv << r.implementation << ','
            << (on_cpu ? std::string("cpu")
                       : GPU::to_string(GPU::Device::backend()))
            << ',' << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << ','
            << param.mesh << ',' << param.refinement << ',' << r.dim << ','
            << r.degree << ',' << r.number << ',' << r.cells << ','
            << r.hanging_cells << ',' << r.dofs << ',' << r.setup_seconds << ','
            << r.seconds << ',' << r.dofs / r.seconds << ',' << r.bytes << ','
            << rate / 1e9 << ',' << rate / copy_rate << ',' << r.device_bytes
            << ',' << r.device_bytes / r.dofs << ',' << r.check << '\n';
      }
      // Largest problem per approach: device memory over the bytes per DoF
      // of the largest run.
      const double device_memory = GPU::Device::memory_info().second;
      if (device_memory > 0)
      {
        std::cout << "\nLargest problem that fits in "
                  << device_memory / (1 << 30)
                  << " GiB (device memory / bytes per DoF at the largest size "
                     "run):\n";
        for (std::size_t i = 0; i < rows.size(); ++i)
        {
          const Row &r    = rows[i];
          const bool last = i + 1 == rows.size() ||
                            rows[i + 1].implementation != r.implementation ||
                            rows[i + 1].degree != r.degree ||
                            rows[i + 1].number != r.number ||
                            rows[i + 1].dofs < r.dofs;
          bool largest = true;
          for (const Row &other : rows)
            if (other.implementation == r.implementation &&
                other.degree == r.degree && other.number == r.number &&
                other.dofs > r.dofs)
              largest = false;
          if (last && largest && r.device_bytes > 0)
            std::cout << "  " << r.implementation << " Q" << r.degree << " "
                      << r.number << ": " << std::scientific
                      << std::setprecision(2)
                      << device_memory / (r.device_bytes / r.dofs) << " DoFs ("
                      << std::fixed << std::setprecision(0)
                      << r.device_bytes / r.dofs << " bytes per DoF)"
                      << std::defaultfloat << "\n";
        }
      }
      std::cout << "\nCSV written to " << param.output_file << std::endl;
    }
  }
  catch (const std::exception &e)
  {
    std::cerr << "operator_throughput failed:\n" << e.what() << std::endl;
    return 1;
  }
  return 0;
}
