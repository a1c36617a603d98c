// Bandwidth of GPU::Vector's updates, reductions and ghost exchange against
// a plain copy of the same memory, measured in the same run.
//
//   vector_operations [parameters.prm] [--device=cuda|host]
//   mpirun -np 2 vector_operations ...   (adds the ghost exchange rows)
//
// Each figure is the median of the repetitions; bytes count every vector
// entry read and written once. Prints a table and writes a CSV.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/parameter_handler.h>
#include <deal.II/base/utilities.h>

#include "benchmark_timing.h"
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

using namespace dealii;

struct Parameters
{
  std::vector<double>      sizes;
  std::vector<std::string> number_types;
  unsigned int             repetitions    = 20;
  double                   ghost_fraction = 0.01;
  std::string              output_file;

  void declare(ParameterHandler &prm)
  {
    prm.declare_entry("Sizes",
                      "1e6, 1e7, 1e8, 4e8",
                      Patterns::List(Patterns::Double(1)),
                      "Global vector sizes");
    prm.declare_entry("Number types",
                      "double, float",
                      Patterns::List(Patterns::Selection("double|float")));
    prm.declare_entry("Repetitions", "20", Patterns::Integer(3));
    prm.declare_entry("Ghost fraction",
                      "0.01",
                      Patterns::Double(0, 1),
                      "Ghost entries per rank as a fraction of the owned ones "
                      "(exchange rows need more than one rank)");
    prm.declare_entry("Output file",
                      "vector_operations.csv",
                      Patterns::FileName(Patterns::FileName::output));
  }

  void parse(ParameterHandler &prm)
  {
    sizes.clear();
    for (const auto &s : Utilities::split_string_list(prm.get("Sizes")))
      sizes.push_back(Utilities::string_to_double(s));
    number_types   = Utilities::split_string_list(prm.get("Number types"));
    repetitions    = prm.get_integer("Repetitions");
    ghost_fraction = prm.get_double("Ghost fraction");
    output_file    = prm.get("Output file");
  }
};

struct Row
{
  std::string   number;
  std::string   operation;
  std::uint64_t size;
  double        seconds;
  double        bytes;
};

template <typename Number>
void
run(const std::uint64_t n, const Parameters &param, std::vector<Row> &rows)
{
  const MPI_Comm      comm  = MPI_COMM_WORLD;
  const unsigned int  rank  = Utilities::MPI::this_mpi_process(comm);
  const unsigned int  p     = Utilities::MPI::n_mpi_processes(comm);
  const std::uint64_t begin = n * rank / p, end = n * (rank + 1) / p;
  IndexSet            owned(n), ghosts(n);
  owned.add_range(begin, end);
  if (p > 1)
  {
    // Ghosts: a contiguous block of the next rank's entries.
    const std::uint64_t next_begin = n * ((rank + 1) % p) / p;
    const std::uint64_t n_ghost    = param.ghost_fraction * (end - begin);
    ghosts.add_range(next_begin, next_begin + n_ghost);
    ghosts.subtract_set(owned);
  }
  const auto partitioner =
      std::make_shared<Utilities::MPI::Partitioner>(owned, ghosts, comm);
  GPU::Vector<Number> x(partitioner), y(partitioner), z(partitioner);
  x                      = Number(1);
  y                      = Number(0.5);
  z                      = Number(0.25);
  const double      s    = sizeof(Number);
  const double      dn   = static_cast<double>(n);
  const std::string type = sizeof(Number) == 8 ? "double" : "float";
  const unsigned    reps = param.repetitions;
  volatile double   sink = 0;

  auto add_row =
      [&](const std::string &op, const double seconds, const double bytes) {
        rows.push_back({type, op, n, seconds, bytes});
      };
  add_row("copy",
          median_seconds(reps,
                         [&]
                         {
                           GPU::Memory::copy_within(x.backend(),
                                                    x.get_values(),
                                                    y.get_values(),
                                                    x.locally_owned_size() *
                                                        sizeof(Number));
                         }),
          2 * dn * s);
  add_row(
      "add", median_seconds(reps, [&] { x.add(Number(1e-3), y); }), 3 * dn * s);
  add_row("sadd",
          median_seconds(reps, [&] { x.sadd(Number(0.5), Number(1e-3), y); }),
          3 * dn * s);
  add_row(
      "dot", median_seconds(reps, [&] { sink = sink + (x * y); }), 2 * dn * s);
  add_row("add_and_dot",
          median_seconds(
              reps, [&] { sink = sink + x.add_and_dot(Number(1e-3), y, z); }),
          4 * dn * s);
  if (p > 1)
  {
    const double ghost_bytes =
        Utilities::MPI::sum(static_cast<double>(partitioner->n_ghost_indices()),
                            comm) *
        s;
    add_row("update_ghost_values",
            median_seconds(reps, [&] { x.update_ghost_values(); }),
            ghost_bytes);
  }
}

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

    const unsigned int p = Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
    if (root)
      std::cout << "vector_operations on " << GPU::Device::description() << ", "
                << p << " MPI rank(s)" << std::endl;
    std::vector<Row> rows;
    for (const std::string &type : param.number_types)
      for (const double size : param.sizes)
      {
        const auto n = static_cast<std::uint64_t>(size);
        if (root)
          std::cout << "  running " << type << " n=" << n << " ..."
                    << std::endl;
        if (type == "double")
          run<double>(n, param, rows);
        else
          run<float>(n, param, rows);
      }

    if (root)
    {
      std::ofstream csv(param.output_file);
      csv << "backend,ranks,number,operation,size,seconds,bytes,GB_per_s,"
             "fraction_of_copy\n";
      std::cout << "\n"
                << std::setw(7) << "number" << std::setw(21) << "operation"
                << std::setw(12) << "size" << std::setw(12) << "time [us]"
                << std::setw(10) << "GB/s" << std::setw(10) << "of copy"
                << "\n";
      double copy_rate = 0;
      for (const Row &r : rows)
      {
        const double rate = r.bytes / r.seconds / 1e9;
        if (r.operation == "copy")
          copy_rate = rate;
        const double fraction = rate / copy_rate;
        std::cout << std::setw(7) << r.number << std::setw(21) << r.operation
                  << std::setw(12) << r.size << std::setw(12) << std::fixed
                  << std::setprecision(1) << r.seconds * 1e6 << std::setw(10)
                  << std::setprecision(1) << rate << std::setw(9)
                  << std::setprecision(0) << fraction * 100 << "%"
                  << std::defaultfloat << "\n";
        csv << GPU::to_string(GPU::Device::backend()) << ',' << p << ','
            << r.number << ',' << r.operation << ',' << r.size << ','
            << r.seconds << ',' << r.bytes << ',' << rate << ',' << fraction
            << '\n';
      }
      std::cout << "\nCSV written to " << param.output_file << std::endl;
    }
  }
  catch (const std::exception &e)
  {
    std::cerr << "vector_operations failed:\n" << e.what() << std::endl;
    return 1;
  }
  return 0;
}
