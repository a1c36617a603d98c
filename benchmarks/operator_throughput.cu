// Throughput of the matrix-free operator (A(x) grad u, grad v) with
// A(x) = 1 / (0.05 + 2 |x|^2) on GPU::MatrixFree: one operator application
// (cell_loop, including ghost exchange and compress) per DoF and second, for
// growing meshes of the ball (MappingQ) or the cube.
//
//   operator_throughput [parameters.prm] [--device=cuda|host]
//   mpirun -np 16 operator_throughput cpu.prm   (Implementation = deal.II-cpu)
//
// Implementation "gpu" runs GPU::MatrixFree on the active backend;
// "deal.II-cpu" runs the same operator with deal.II's CPU MatrixFree (the
// Debian build: no SIMD, no threads, so one MPI rank per core), double only.
//
// Each figure is the median of the repetitions after a warm-up. The bytes a
// vmult must move at least (vectors, DoF indices, inverse Jacobians, JxW,
// coefficient) are compared with a device copy measured in the same run.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/operators/laplace_cell.h>

#include <deal.II/base/parameter_handler.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>

#include "benchmark_timing.h"
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace dealii;

struct Parameters
{
  unsigned int              dim = 3;
  std::vector<unsigned int> degrees;
  std::vector<std::string>  number_types;
  std::string               mesh;
  double                    min_dofs = 1e5, max_dofs = 1e8;
  unsigned int              repetitions = 20;
  bool                      coloring    = false;
  std::string               implementation;
  std::string               output_file;

  void declare(ParameterHandler &prm)
  {
    prm.declare_entry("Dimension", "3", Patterns::Integer(2, 3));
    prm.declare_entry("Degrees",
                      "1, 2, 3, 4, 5, 6, 7, 8",
                      Patterns::List(Patterns::Integer(1, 8)));
    prm.declare_entry("Number types",
                      "double",
                      Patterns::List(Patterns::Selection("double|float")));
    prm.declare_entry(
        "Mesh",
        "ball",
        Patterns::Selection("ball|cube"),
        "ball: hyper ball with MappingQ(min(degree, 4)); cube: affine");
    prm.declare_entry("Min DoFs", "1e5", Patterns::Double(0));
    prm.declare_entry("Max DoFs", "1e8", Patterns::Double(0));
    prm.declare_entry("Repetitions", "20", Patterns::Integer(3));
    prm.declare_entry("Coloring",
                      "false",
                      Patterns::Bool(),
                      "graph coloring instead of atomic additions");
    prm.declare_entry(
        "Implementation",
        "gpu",
        Patterns::Selection("gpu|deal.II-cpu"),
        "gpu: GPU::MatrixFree; deal.II-cpu: deal.II's MatrixFree");
    prm.declare_entry("Output file",
                      "operator_throughput.csv",
                      Patterns::FileName(Patterns::FileName::output));
  }

  void parse(ParameterHandler &prm)
  {
    dim = prm.get_integer("Dimension");
    degrees.clear();
    for (const auto &s : Utilities::split_string_list(prm.get("Degrees")))
      degrees.push_back(Utilities::string_to_int(s));
    number_types   = Utilities::split_string_list(prm.get("Number types"));
    mesh           = prm.get("Mesh");
    min_dofs       = prm.get_double("Min DoFs");
    max_dofs       = prm.get_double("Max DoFs");
    repetitions    = prm.get_integer("Repetitions");
    coloring       = prm.get_bool("Coloring");
    implementation = prm.get("Implementation");
    output_file    = prm.get("Output file");
  }
};

struct Row
{
  unsigned int  dim, degree;
  std::string   number;
  std::uint64_t cells, dofs;
  double        setup_seconds, seconds, bytes;
};

// The same operator with deal.II's CPU MatrixFree: seconds per vmult.
template <int dim, int degree>
double
cpu_vmult_seconds(const Mapping<dim>              &mapping,
                  const DoFHandler<dim>           &dof_handler,
                  const AffineConstraints<double> &constraints,
                  const unsigned int               repetitions)
{
  using CPUMatrixFree = dealii::MatrixFree<dim, double>;
  using VectorType    = LinearAlgebra::distributed::Vector<double>;
  using FEEval        = FEEvaluation<dim, degree, degree + 1, 1, double>;
  typename CPUMatrixFree::AdditionalData data;
  data.mapping_update_flags =
      update_gradients | update_JxW_values | update_quadrature_points;
  CPUMatrixFree matrix_free;
  matrix_free.reinit(
      mapping, dof_handler, constraints, QGauss<1>(degree + 1), data);
  FEEval                            phi(matrix_free);
  Table<2, VectorizedArray<double>> coefficient(matrix_free.n_cell_batches(),
                                                phi.n_q_points);
  for (unsigned int cell = 0; cell < matrix_free.n_cell_batches(); ++cell)
  {
    phi.reinit(cell);
    for (unsigned int q = 0; q < phi.n_q_points; ++q)
    {
      const auto p = phi.quadrature_point(q);
      for (unsigned int v = 0; v < VectorizedArray<double>::size(); ++v)
      {
        Point<dim> x;
        for (unsigned int d = 0; d < dim; ++d)
          x[d] = p[d][v];
        coefficient(cell, q)[v] = 1. / (0.05 + 2. * x.norm_square());
      }
    }
  }
  VectorType src, dst;
  matrix_free.initialize_dof_vector(src);
  matrix_free.initialize_dof_vector(dst);
  src = 1.;
  const std::function<void(const CPUMatrixFree &,
                           VectorType &,
                           const VectorType &,
                           const std::pair<unsigned int, unsigned int> &)>
      cell_operation = [&](const CPUMatrixFree                         &data,
                           VectorType                                  &dst,
                           const VectorType                            &src,
                           const std::pair<unsigned int, unsigned int> &range)
  {
    FEEval phi(data);
    for (unsigned int cell = range.first; cell < range.second; ++cell)
    {
      phi.reinit(cell);
      phi.gather_evaluate(src, EvaluationFlags::gradients);
      for (unsigned int q = 0; q < phi.n_q_points; ++q)
        phi.submit_gradient(coefficient(cell, q) * phi.get_gradient(q), q);
      phi.integrate_scatter(EvaluationFlags::gradients, dst);
    }
  };
  return median_seconds(
      repetitions,
      [&] { matrix_free.cell_loop(cell_operation, dst, src, true); });
}

template <int dim, int degree, typename Number>
void
run(const Parameters &param, std::vector<Row> &rows)
{
  const bool root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  for (unsigned int refinements = 0;; ++refinements)
  {
    // Estimate the size before building: (degree * 2^r * c)^dim DoFs.
    // The ball has 7 (3D) or 5 (2D) coarse cells, the cube one.
    const double coarse = param.mesh == "ball" ? (dim == 3 ? 7. : 5.) : 1.;
    const double cells_1d =
        std::pow(coarse, 1. / dim) * std::pow(2., refinements);
    const double estimate = std::pow(degree * cells_1d + 1, dim);
    if (estimate > 1.5 * param.max_dofs)
      break;
    if (estimate < 0.5 * param.min_dofs)
      continue;
    const auto start = std::chrono::steady_clock::now();
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    if (param.mesh == "ball")
      GridGenerator::hyper_ball(tria);
    else
      GridGenerator::hyper_cube(tria, -1., 1.);
    tria.refine_global(refinements);
    MappingQ<dim>   mapping(param.mesh == "ball" ? std::min(degree, 4) : 1);
    FE_Q<dim>       fe(degree);
    DoFHandler<dim> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    if (dof_handler.n_dofs() > param.max_dofs)
      break;
    if (dof_handler.n_dofs() < param.min_dofs)
      continue;
    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    AffineConstraints<double> constraints(relevant);
    DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
    constraints.close();

    const std::uint64_t n_cells = tria.n_global_active_cells();
    const double        n_q     = std::pow(degree + 1, dim);
    // Least bytes: src read, dst zeroed, read and written, per-cell data.
    const double bytes = sizeof(Number) * 4. * dof_handler.n_dofs() +
                         n_cells * (4. * std::pow(degree + 1, dim) +
                                    sizeof(Number) * n_q * (dim * dim + 2));
    if (param.implementation == "deal.II-cpu")
    {
      AssertThrow(
          sizeof(Number) == 8,
          ExcMessage("the deal.II-cpu implementation runs double only"));
      const double seconds = cpu_vmult_seconds<dim, degree>(
          mapping, dof_handler, constraints, param.repetitions);
      const double setup = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count();
      rows.push_back({dim,
                      degree,
                      "double",
                      n_cells,
                      dof_handler.n_dofs(),
                      setup,
                      seconds,
                      bytes});
      if (root)
        std::cout << "  Q" << degree << " deal.II-cpu " << n_cells << " cells "
                  << dof_handler.n_dofs() << " DoFs: " << std::scientific
                  << std::setprecision(3) << dof_handler.n_dofs() / seconds
                  << " DoFs/s" << std::defaultfloat << std::endl;
      continue;
    }

    GPU::MatrixFree<dim, Number> matrix_free;
    matrix_free.reinit(
        mapping,
        dof_handler,
        constraints,
        QGauss<1>(degree + 1),
        typename GPU::MatrixFree<dim, Number>::AdditionalData(
            update_gradients | update_JxW_values | update_quadrature_points,
            param.coloring));
    GPU::Array<Number> coefficients;
    matrix_free.evaluate_coefficient(
        [](const Point<dim> &x)
        { return Number(1. / (0.05 + 2. * x.norm_square())); },
        coefficients);
    GPU::Vector<Number> src, dst;
    matrix_free.initialize_dof_vector(src);
    matrix_free.initialize_dof_vector(dst);
    src = Number(1);
    GPU::Device::synchronize();
    const double setup =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();

    GPU::LaplaceCoefficients<Number> k;
    k.diffusion = coefficients.data();
    const GPU::LaplaceCell<dim, degree, 1, Number> cell{k};
    const double                                   seconds =
        median_seconds(param.repetitions,
                       [&]
                       {
                         dst = Number();
                         matrix_free.cell_loop(cell, src, dst);
                       });
    const std::uint64_t cells = n_cells;
    rows.push_back({dim,
                    degree,
                    sizeof(Number) == 8 ? "double" : "float",
                    cells,
                    dof_handler.n_dofs(),
                    setup,
                    seconds,
                    bytes});
    if (root)
      std::cout << "  Q" << degree << " " << rows.back().number << " " << cells
                << " cells " << dof_handler.n_dofs()
                << " DoFs: " << std::scientific << std::setprecision(3)
                << dof_handler.n_dofs() / seconds << " DoFs/s (setup "
                << std::fixed << std::setprecision(1) << setup << " s)"
                << std::defaultfloat << std::endl;
  }
}

template <int dim, typename Number, int degree = 1>
void
dispatch(const unsigned int wanted,
         const Parameters  &param,
         std::vector<Row>  &rows)
{
  if constexpr (degree <= 8)
  {
    if (wanted == degree)
    {
      if constexpr (degree >= DEAL_II_GPU_MIN_DEGREE &&
                    degree <= DEAL_II_GPU_MAX_DEGREE)
        run<dim, degree, Number>(param, rows);
      else
        AssertThrow(false,
                    ExcMessage("degree " + std::to_string(degree) +
                               " is not compiled in this build"));
    }
    else
      dispatch<dim, Number, degree + 1>(wanted, param, rows);
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

    // Copy bandwidth of this device, the ceiling for the operator.
    double copy_rate = 0;
    if (param.implementation == "deal.II-cpu")
    {
      // Memory bandwidth of the CPU: all ranks copy at once.
      const unsigned int p = Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
      LinearAlgebra::distributed::Vector<double> a(std::size_t(5e7) / p), b(a);
      a              = 1.;
      const double t = median_seconds(param.repetitions, [&] { b = a; });
      copy_rate      = 2. * 5e7 * sizeof(double) / t;
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
          });
      copy_rate = 2. * 5e7 * sizeof(double) / t;
    }
    if (root)
      std::cout << "operator_throughput on "
                << (param.implementation == "gpu"
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
      csv << "backend,ranks,mesh,dim,degree,number,cells,dofs,setup_seconds,"
             "vmult_seconds,dofs_per_second,bytes,GB_per_s,fraction_of_copy\n";
      std::cout
          << "\n dim  Q  number       cells        DoFs   vmult [ms]     DoFs/s"
             "   GB/s  of copy\n";
      for (const Row &r : rows)
      {
        const double rate = r.bytes / r.seconds;
        std::cout << std::setw(4) << r.dim << std::setw(3) << r.degree
                  << std::setw(8) << r.number << std::setw(12) << r.cells
                  << std::setw(12) << r.dofs << std::fixed
                  << std::setprecision(3) << std::setw(13) << r.seconds * 1e3
                  << std::scientific << std::setprecision(2) << std::setw(11)
                  << r.dofs / r.seconds << std::fixed << std::setprecision(0)
                  << std::setw(7) << rate / 1e9 << std::setw(8)
                  << 100 * rate / copy_rate << "%" << std::defaultfloat << "\n";
        csv << (param.implementation == "gpu"
                    ? GPU::to_string(GPU::Device::backend())
                    : param.implementation)
            << ',' << Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) << ','
            << param.mesh << ',' << r.dim << ',' << r.degree << ',' << r.number
            << ',' << r.cells << ',' << r.dofs << ',' << r.setup_seconds << ','
            << r.seconds << ',' << r.dofs / r.seconds << ',' << r.bytes << ','
            << rate / 1e9 << ',' << rate / copy_rate << '\n';
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
