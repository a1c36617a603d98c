// The operator_throughput benchmark's measurements, compiled in one file
// per dimension and number type (operator_throughput_<dim>d_<number>.cu),
// so that a parallel build spreads the kernels of all degrees over its
// cores; operator_throughput.cu has main().
#ifndef dealii_gpu_benchmarks_operator_throughput_h
#define dealii_gpu_benchmarks_operator_throughput_h

#include <dealii-gpu/base/device.h>
#include <dealii-gpu/dofs/dof_renumbering.h>
#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/lac/sparse_matrix.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/operators/laplace_cell.h>
#include <dealii-gpu/operators/operations.h>

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

#include "../tests/meshes.h"
#include "benchmark_timing.h"
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <type_traits>

using namespace dealii;

struct Parameters
{
  unsigned int              dim = 3;
  std::vector<unsigned int> degrees;
  std::vector<std::string>  number_types;
  std::string               mesh, refinement;
  double       min_dofs = 1e5, max_dofs = 1e8, max_sparse_dofs = 3e7;
  double       max_pattern_work = 5e8;
  unsigned int repetitions      = 20;
  unsigned int batch            = 10;
  bool         coloring         = false;
  unsigned int cells_per_block  = 0;
  bool         overlap          = true;
  std::vector<std::string> geometries;
  std::vector<std::string> cell_threads;
  std::string              renumbering;
  std::vector<std::string> implementations;
  std::string              output_file;

  bool runs(const std::string &implementation) const
  {
    return std::find(implementations.begin(),
                     implementations.end(),
                     implementation) != implementations.end();
  }

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
    prm.declare_entry("Refinement",
                      "uniform",
                      Patterns::Selection("uniform|shell"),
                      "shell: one more level on 0.3 <= |x| <= 0.6");
    prm.declare_entry("Min DoFs", "1e5", Patterns::Double(0));
    prm.declare_entry("Max DoFs", "1e8", Patterns::Double(0));
    prm.declare_entry("Max DoFs sparse",
                      "3e7",
                      Patterns::Double(0),
                      "largest problem tried with the sparse matrix "
                      "(GPU::ElementIntegrator, GPU::SparseMatrix)");
    prm.declare_entry("Max pattern work",
                      "5e8",
                      Patterns::Double(0),
                      "skip the sparse matrix when cells x (cell DoFs)^2, "
                      "the host work of its sparsity pattern, is larger");
    prm.declare_entry("Repetitions", "20", Patterns::Integer(3));
    prm.declare_entry("Applications per sample",
                      "10",
                      Patterns::Integer(1),
                      "applications timed in a row, without host "
                      "synchronization in between, for each repetition "
                      "(every implementation and the copy); 1 times each "
                      "application with its launch and synchronization");
    prm.declare_entry("Coloring",
                      "false",
                      Patterns::Bool(),
                      "graph coloring instead of atomic additions");
    prm.declare_entry("Cells per block",
                      "0",
                      Patterns::Integer(0, 256),
                      "cells per CUDA thread block; 0: automatic");
    prm.declare_entry("Overlap communication",
                      "true",
                      Patterns::Bool(),
                      "with several ranks: overlap the ghost exchange with "
                      "the cells away from other ranks");
    prm.declare_entry(
        "Geometry",
        "jacobians",
        Patterns::List(Patterns::Selection("jacobians|points|tensor|field")),
        "GPU::MatrixFree geometry storage, one row each: stored inverse "
        "Jacobians and JxW (rows labelled gpu), quadrature points only "
        "(gpu-points), the merged diffusion tensor with the geometry "
        "released (LaplaceTensorCell, gpu-tensor), or the mapping field "
        "with A(x) computed in the kernel (LaplaceFunctionCell, gpu-field); "
        "the first, or stored Jacobians for tensor, is also used to "
        "assemble the cuSPARSE matrix");
    prm.declare_entry(
        "Cell threads",
        "automatic",
        Patterns::List(
            Patterns::Selection("automatic|per quadrature point|per cell")),
        "CUDA thread layout of GPU::MatrixFree (AdditionalData::"
        "cell_threads), one row per geometry and entry; rows of a layout "
        "other than automatic get -point or -cell appended; per cell runs "
        "only with points and field on meshes without hanging nodes (3D, "
        "not compiled for the others)");
    prm.declare_entry(
        "DoF renumbering",
        "none",
        Patterns::Selection("none|data locality|blocks"),
        "data locality: GPU::DoFRenumbering::matrix_free_data_locality() "
        "for the first entries of Geometry and Cell threads, before every "
        "row; blocks: GPU::DoFRenumbering::block_lexicographic() in the "
        "coarse cells, whose cells' DoF indices GPU::MatrixFree then "
        "computes instead of storing them");
    prm.declare_entry(
        "Implementations",
        "gpu",
        Patterns::List(Patterns::Selection("gpu|cusparse|deal.II-cpu")));
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
    number_types     = Utilities::split_string_list(prm.get("Number types"));
    mesh             = prm.get("Mesh");
    refinement       = prm.get("Refinement");
    min_dofs         = prm.get_double("Min DoFs");
    max_dofs         = prm.get_double("Max DoFs");
    max_sparse_dofs  = prm.get_double("Max DoFs sparse");
    max_pattern_work = prm.get_double("Max pattern work");
    repetitions      = prm.get_integer("Repetitions");
    batch            = prm.get_integer("Applications per sample");
    coloring         = prm.get_bool("Coloring");
    cells_per_block  = prm.get_integer("Cells per block");
    overlap          = prm.get_bool("Overlap communication");
    geometries       = Utilities::split_string_list(prm.get("Geometry"));
    cell_threads     = Utilities::split_string_list(prm.get("Cell threads"));
    renumbering      = prm.get("DoF renumbering");
    implementations  = Utilities::split_string_list(prm.get("Implementations"));
    output_file      = prm.get("Output file");
  }
};

// Whether a geometry row runs with a "Cell threads" entry: one thread per
// cell needs the Jacobians computed in the kernel (points or field) and a
// mesh without hanging nodes.
inline bool
per_cell_possible(const std::string &geometry,
                  const std::string &threads,
                  const std::string &refinement)
{
  return threads != "per cell" ||
         ((geometry == "points" || geometry == "field") &&
          refinement != "shell");
}

// The "Cell threads" entry as AdditionalData::cell_threads.
inline GPU::CellThreads
cell_threads(const std::string &entry)
{
  return entry == "per cell" ? GPU::CellThreads::per_cell
         : entry == "per quadrature point"
             ? GPU::CellThreads::per_quadrature_point
             : GPU::CellThreads::automatic;
}

// A "Geometry" entry as GPU::GeometryStorage (tensor: stored Jacobians).
inline GPU::GeometryStorage
geometry_storage(const std::string &entry)
{
  return entry == "points"  ? GPU::GeometryStorage::points
         : entry == "field" ? GPU::GeometryStorage::field
                            : GPU::GeometryStorage::jacobians;
}

struct Row
{
  std::string   implementation;
  unsigned int  dim, degree;
  std::string   number;
  std::uint64_t cells, hanging_cells, dofs;
  double        setup_seconds, seconds, bytes;
  double        device_bytes; // memory the approach holds (0: not measured)
  double        check;        // relative difference to matrix-free (-1: none)
};

// The same operator with deal.II's CPU MatrixFree: seconds per vmult.
template <int dim, int degree>
double
cpu_vmult_seconds(const Mapping<dim>              &mapping,
                  const DoFHandler<dim>           &dof_handler,
                  const AffineConstraints<double> &constraints,
                  const unsigned int               repetitions,
                  const unsigned int               batch)
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
      [&] { matrix_free.cell_loop(cell_operation, dst, src, true); },
      batch);
}

template <int dim, int degree, typename Number>
void
run(const Parameters &param, std::vector<Row> &rows, bool &sparse_failed)
{
  const bool root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  const std::string number = sizeof(Number) == 8 ? "double" : "float";
  auto              print  = [&](const Row &r)
  {
    if (root)
      std::cout << "  Q" << degree << " " << r.implementation << " " << number
                << " " << r.cells << " cells (" << r.hanging_cells
                << " hanging) " << r.dofs << " DoFs: " << std::scientific
                << std::setprecision(3) << r.dofs / r.seconds
                << " DoFs/s (setup " << std::fixed << std::setprecision(1)
                << r.setup_seconds << " s)" << std::defaultfloat << std::endl;
  };
  for (unsigned int refinements = 0;; ++refinements)
  {
    // Estimate the size before building: (degree * 2^r * c)^dim DoFs.
    // The ball has 7 (3D) or 5 (2D) coarse cells, the cube one; the shell
    // adds about 1.3 (3D) and 0.8 (2D) times the cells.
    const double coarse = param.mesh == "ball" ? (dim == 3 ? 7. : 5.) : 1.;
    const double cells_1d =
        std::pow(coarse, 1. / dim) * std::pow(2., refinements);
    const double estimate =
        std::pow(degree * cells_1d + 1, dim) *
        (param.refinement == "shell" ? (dim == 3 ? 2.3 : 1.8) : 1.);
    if (estimate > 1.3 * param.max_dofs)
      break;
    if (estimate < 0.5 * param.min_dofs)
      continue;
    const auto start = std::chrono::steady_clock::now();
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    make_mesh(tria, param.mesh == "ball", refinements);
    if (param.refinement == "shell")
      refine_shell(tria, 0.3, 0.6);
    MappingQ<dim>   mapping(param.mesh == "ball" ? std::min(degree, 4) : 1);
    FE_Q<dim>       fe(degree);
    DoFHandler<dim> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    if (dof_handler.n_dofs() > param.max_dofs)
      break;
    if (dof_handler.n_dofs() < param.min_dofs)
      continue;
    AffineConstraints<double> constraints;
    const auto                make_constraints = [&]
    {
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      constraints.clear();
      constraints.reinit(relevant);
      DoFTools::make_hanging_node_constraints(dof_handler, constraints);
      DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
      constraints.close();
    };
    make_constraints();
    if (param.renumbering == "data locality")
    {
      // Number the DoFs in the order the first GPU row's cell loop reads
      // them, then build the constraints again.
      typename GPU::MatrixFree<dim, Number>::AdditionalData additional_data;
      additional_data.use_coloring                      = param.coloring;
      additional_data.overlap_communication_computation = param.overlap;
      additional_data.cells_per_block                   = param.cells_per_block;
      // The first GPU row's geometry, as its thread layout depends on it
      // (automatic: one thread per cell for the field at Q1-Q2); one
      // thread per cell is compiled for the Jacobians from the points.
      std::string geometry =
          param.geometries[0] == "tensor" ? "jacobians" : param.geometries[0];
      std::string threads = param.cell_threads[0];
      if (threads == "per cell" && geometry == "jacobians")
        geometry = "points";
      if (!per_cell_possible(geometry, threads, param.refinement))
        threads = "automatic";
      additional_data.cell_threads = cell_threads(threads);
      additional_data.geometry     = geometry_storage(geometry);
      GPU::MatrixFree<dim, Number> layout;
      layout.reinit(mapping,
                    dof_handler,
                    constraints,
                    QGauss<1>(degree + 1),
                    additional_data);
      GPU::DoFRenumbering::matrix_free_data_locality(dof_handler, layout);
      make_constraints();
    }
    else if (param.renumbering == "blocks")
    {
      GPU::DoFRenumbering::block_lexicographic(dof_handler, 0);
      make_constraints();
    }

    const std::uint64_t n_cells = tria.n_global_active_cells();
    const std::uint64_t n_dofs  = dof_handler.n_dofs();
    const double        n_q     = std::pow(degree + 1, dim);
    // Least bytes: src read, dst zeroed, read and written, per-cell data.
    const double bytes = sizeof(Number) * 4. * n_dofs +
                         n_cells * (4. * std::pow(degree + 1, dim) +
                                    sizeof(Number) * n_q * (dim * dim + 2));
    if (param.runs("deal.II-cpu"))
    {
      AssertThrow(
          sizeof(Number) == 8,
          ExcMessage("the deal.II-cpu implementation runs double only"));
      // Compiled for double only (the float files would repeat it).
      if constexpr (std::is_same_v<Number, double>)
      {
        const double seconds = cpu_vmult_seconds<dim, degree>(
            mapping, dof_handler, constraints, param.repetitions, param.batch);
        const double setup = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
        rows.push_back({"deal.II-cpu",
                        dim,
                        degree,
                        "double",
                        n_cells,
                        0,
                        n_dofs,
                        setup,
                        seconds,
                        bytes,
                        0.,
                        -1.});
        print(rows.back());
      }
    }
    if (!param.runs("gpu") && !param.runs("cusparse"))
      continue;

    // The coefficient per point is needed unless only gpu-field rows run
    // (they compute it in the kernel), which then hold the least memory.
    const bool needs_coefficients =
        param.runs("cusparse") ||
        std::any_of(param.geometries.begin(),
                    param.geometries.end(),
                    [](const std::string &g) { return g != "field"; });
    auto make_matrix_free = [&](GPU::MatrixFree<dim, Number> &mf,
                                const std::string            &geometry,
                                const std::string            &threads)
    {
      typename GPU::MatrixFree<dim, Number>::AdditionalData additional_data(
          update_gradients | update_JxW_values |
              (needs_coefficients ? update_quadrature_points : update_default),
          param.coloring,
          numbers::invalid_unsigned_int,
          param.cells_per_block,
          param.overlap,
          geometry_storage(geometry));
      additional_data.cell_threads = cell_threads(threads);
      mf.reinit(mapping,
                dof_handler,
                constraints,
                QGauss<1>(degree + 1),
                additional_data);
    };
    // GPU rows: every geometry with every thread layout, except one
    // thread per cell with stored Jacobians (not compiled).
    std::vector<std::pair<std::string, std::string>> variants;
    for (const auto &geometry : param.geometries)
      for (const auto &threads : param.cell_threads)
        if (per_cell_possible(geometry, threads, param.refinement))
          variants.emplace_back(geometry, threads);
    GPU::MatrixFree<dim, Number> matrix_free;
    const std::string            first_geometry =
        param.geometries[0] == "tensor" ? "jacobians" : param.geometries[0];
    make_matrix_free(matrix_free,
                     first_geometry,
                     per_cell_possible(first_geometry,
                                       param.cell_threads[0],
                                       param.refinement)
                         ? param.cell_threads[0]
                         : "automatic");
    GPU::Array<Number> coefficients;
    if (needs_coefficients)
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
    const std::uint64_t hanging = Utilities::MPI::sum(
        matrix_free.n_cells_with_hanging_nodes(), MPI_COMM_WORLD);

    GPU::LaplaceCoefficients<Number> k;
    k.diffusion = coefficients.data();
    const GPU::LaplaceCell<dim, degree, 1, Number> cell{k};
    const GPU::LaplaceFunctionCell<dim,
                                   degree,
                                   1,
                                   Number,
                                   BallCoefficient<dim, Number>>
        function_cell{};
    // Result of the first GPU row, to check the others against.
    GPU::Vector<Number> first_result;
    for (unsigned int g = 0; g < variants.size() && param.runs("gpu"); ++g)
    {
      const std::string &threads = variants[g].second;
      // Further geometry storages: their own data, same cells and vectors.
      // The tensor row always builds its own data, since it frees the
      // geometry that the cuSPARSE assembly needs.
      const bool                   tensor = variants[g].first == "tensor";
      const bool                   field  = variants[g].first == "field";
      GPU::MatrixFree<dim, Number> other;
      GPU::Array<Number>           diffusion_tensor;
      if (g > 0 || tensor)
        make_matrix_free(
            other, tensor ? "jacobians" : variants[g].first, threads);
      if (tensor)
      {
        other.evaluate_diffusion_tensor(coefficients, diffusion_tensor);
        other.release_geometry();
      }
      const GPU::MatrixFree<dim, Number> &mf =
          g > 0 || tensor ? other : matrix_free;
      const bool from_points =
          mf.get_geometry_storage() == GPU::GeometryStorage::points;
      // The field rows hold no coefficient array.
      const std::size_t coefficient_bytes =
          tensor  ? diffusion_tensor.memory_consumption()
          : field ? 0
                  : coefficients.memory_consumption();
      const GPU::LaplaceTensorCell<dim, degree, 1, Number> tensor_cell{
          diffusion_tensor.data()};
      auto apply = [&]
      {
        dst = Number();
        if (tensor)
          mf.cell_loop(tensor_cell, src, dst);
        else if (field)
          mf.cell_loop(function_cell, src, dst);
        else
          mf.cell_loop(cell, src, dst);
      };
      const double seconds =
          median_seconds(param.repetitions, apply, param.batch);
      // Same operator in every row: compare with the first row's result.
      apply();
      double check = -1.;
      if (g == 0)
        first_result = dst;
      else
      {
        GPU::Vector<Number> difference(dst);
        difference.add(Number(-1), first_result);
        check = difference.linfty_norm() / first_result.linfty_norm();
      }
      const double device_bytes = Utilities::MPI::sum(
          double(mf.memory_consumption() + coefficient_bytes +
                 2 * sizeof(Number) * src.size()),
          MPI_COMM_WORLD);
      // Geometry the kernel reads: points (dim per point) and (in float)
      // centers, or
      // inverse Jacobians and JxW, with the coefficient; or the tensor; or
      // the field (dim doubles per DoF and centers; an index per cell node
      // where cells have hanging nodes, else read through the DoF indices).
      // DoF indices are read for the cells outside structured blocks.
      const double structured =
          Utilities::MPI::sum(double(mf.n_structured_cells()), MPI_COMM_WORLD);
      if (param.renumbering == "blocks")
        std::cout << "  " << std::uint64_t(structured) << " of " << n_cells
                  << " cells in structured blocks" << std::endl;
      const double centers =
          GPU::points_relative_to_cell_centers<Number>() ? dim : 0;
      const double per_cell_numbers = tensor        ? n_q * dim * (dim + 1) / 2.
                                      : field       ? centers
                                      : from_points ? n_q * (dim + 1) + centers
                                                    : n_q * (dim * dim + 2);
      const double gpu_bytes =
          sizeof(Number) * 4. * n_dofs +
          (n_cells - structured) * 4. * std::pow(degree + 1, dim) +
          n_cells * sizeof(Number) * per_cell_numbers +
          (field ? 8. * dim * n_dofs +
                       (hanging > 0 ? n_cells * 4. * std::pow(degree + 1, dim)
                                    : 0.)
                 : 0.);
      rows.push_back({std::string(tensor        ? "gpu-tensor"
                                  : field       ? "gpu-field"
                                  : from_points ? "gpu-points"
                                                : "gpu") +
                          (threads == "per cell"               ? "-cell"
                           : threads == "per quadrature point" ? "-point"
                                                               : ""),
                      dim,
                      degree,
                      number,
                      n_cells,
                      hanging,
                      n_dofs,
                      setup,
                      seconds,
                      gpu_bytes,
                      device_bytes,
                      check});
      print(rows.back());
      if (root && check >= 0)
        std::cout << "    |result - first row's| / |first row's| = " << check
                  << std::endl;
    }

    // The host-side sparsity pattern costs about cells x (cell DoFs)^2.
    const double pattern_work =
        double(n_cells) * std::pow(std::pow(degree + 1., dim), 2);
    if (param.runs("cusparse") && !sparse_failed &&
        GPU::Device::backend() == GPU::Backend::cuda &&
        n_dofs <= param.max_sparse_dofs &&
        pattern_work <= param.max_pattern_work)
    {
      AssertThrow(Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) == 1,
                  ExcMessage("the sparse matrix rows run on one rank"));
      try
      {
        // The same operator assembled on the device: pattern, element
        // matrices and assembly (setup), then cuSPARSE SpMV (vmult).
        const auto sparse_start = std::chrono::steady_clock::now();
        GPU::ElementIntegrator<dim, 1, Number> integrator;
        integrator.reinit(mapping, dof_handler, QGauss<dim>(degree + 1));
        GPU::SparseMatrix<Number> matrix;
        integrator.initialize_matrix(constraints, matrix);
        integrator.assemble(GPU::LaplaceOperation<BallOfX>{BallOfX{}}, matrix);
        GPU::Device::synchronize();
        const double sparse_setup =
            std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                          sparse_start)
                .count();
        // Against the matrix-free operator on a vector that is zero on the
        // constrained DoFs (there the matrix has a positive diagonal and
        // the matrix-free operator copies the entry).
        GPU::Vector<Number> x, y_free, y_sparse, x_sparse, y_sparse_dst;
        matrix_free.initialize_dof_vector(x);
        matrix_free.initialize_dof_vector(y_free);
        matrix.initialize_dof_vector(x_sparse);
        matrix.initialize_dof_vector(y_sparse);
        matrix.initialize_dof_vector(y_sparse_dst);
        {
          LinearAlgebra::distributed::Vector<Number> host(x.get_partitioner());
          std::uint64_t                              state = 17;
          for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
          {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            host.local_element(i) =
                constraints.is_constrained(
                    host.get_partitioner()->local_to_global(i))
                    ? Number(0)
                    : Number((state >> 11) * 0x1.0p-53 - 0.5);
          }
          x.copy_locally_owned_data_from(host);
          x_sparse.copy_locally_owned_data_from(host);
        }
        matrix_free.cell_loop(cell, x, y_free);
        matrix_free.copy_constrained_values(x, y_free);
        matrix.vmult(y_sparse, x_sparse);
        double check = 0;
        {
          LinearAlgebra::distributed::Vector<Number> a(x.get_partitioner()),
              b(x.get_partitioner());
          y_free.copy_locally_owned_data_to(a);
          y_sparse.copy_locally_owned_data_to(b);
          b -= a;
          check = b.linfty_norm() / a.linfty_norm();
        }
        x_sparse             = Number(1);
        const double seconds = median_seconds(
            param.repetitions,
            [&] { matrix.vmult(y_sparse_dst, x_sparse); },
            param.batch);
        const double matrix_bytes =
            matrix.n_nonzero_elements() * (sizeof(Number) + 4.) +
            4. * (n_dofs + 1) + 2. * sizeof(Number) * n_dofs;
        rows.push_back(
            {"cusparse",
             dim,
             degree,
             number,
             n_cells,
             hanging,
             n_dofs,
             sparse_setup,
             seconds,
             matrix_bytes,
             double(matrix.memory_consumption() + 2 * sizeof(Number) * n_dofs),
             check});
        print(rows.back());
        if (root)
          std::cout
              << "    " << matrix.n_nonzero_elements()
              << " matrix entries, |A x - matrix-free(x)| / |matrix-free(x)| = "
              << check << std::endl;
      }
      catch (const std::exception &e)
      {
        sparse_failed = true;
        if (root)
          std::cout << "  Q" << degree << " cusparse " << n_dofs
                    << " DoFs: stopped, larger sizes skipped: "
                    << std::string(e.what()).substr(0, 400) << std::endl;
      }
    }
  }
}

template <int dim, typename Number, int degree>
void
dispatch_degree(const unsigned int wanted,
                const Parameters  &param,
                std::vector<Row>  &rows,
                bool              &sparse_failed)
{
  if constexpr (degree <= 8)
  {
    if (wanted == degree)
    {
      if constexpr (degree >= DEAL_II_GPU_MIN_DEGREE &&
                    degree <= DEAL_II_GPU_MAX_DEGREE)
        run<dim, degree, Number>(param, rows, sparse_failed);
      else
        AssertThrow(false,
                    ExcMessage("degree " + std::to_string(degree) +
                               " is not compiled in this build"));
    }
    else
      dispatch_degree<dim, Number, degree + 1>(
          wanted, param, rows, sparse_failed);
  }
}

template <int dim, typename Number>
void
dispatch(const unsigned int wanted,
         const Parameters  &param,
         std::vector<Row>  &rows)
{
  bool sparse_failed = false;
  dispatch_degree<dim, Number, 1>(wanted, param, rows, sparse_failed);
}

// One file each (operator_throughput_<dim>d_<number>.cu).
extern template void
dispatch<2, double>(const unsigned int, const Parameters &, std::vector<Row> &);
extern template void
dispatch<2, float>(const unsigned int, const Parameters &, std::vector<Row> &);
extern template void
dispatch<3, double>(const unsigned int, const Parameters &, std::vector<Row> &);
extern template void
dispatch<3, float>(const unsigned int, const Parameters &, std::vector<Row> &);

#endif
