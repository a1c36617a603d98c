// Element matrices and sparse assembly: GPU::ElementIntegrator (the active
// backend, CUDA on the GPU machine) against deal.II's FEValues assembly into
// a TrilinosWrappers::SparseMatrix (--backend=cpu, one MPI rank a core), on
// the ball with MappingQ(2), hanging nodes from one shell refinement and
// zero Dirichlet values. Also SpMV of the assembled matrix with each of
// GPU::SparseMatrix's kernels.
//
//   Arguments: see usage below (--help).
//
// Forms: laplace (a(x) grad u, grad v); elasticity (2 mu(x) eps(u),
// eps(v)) + (2 div u, div v); mass (a(x) u, v); convection-diffusion
// (D grad u, grad v) + (b . grad u + r u, v) with a full constant tensor D.
// Meshes: ball (MappingQ(2), a(x) = mu(x) = 1 / (0.05 + 2 |x|^2)) or cube
// ([-1, 1]^dim sheared, MappingQ(1): affine cells, a = mu = 1, where the
// automatic strategy takes the reference tensor; --strategy forces one).
//
// Columns: setup = reinit() (with the mapping support points, kept on the
// device) + initialize_matrix(); pattern = its sparsity pattern (deal.II:
// make_sparsity_pattern and the Trilinos matrix); geom = the support
// points (in setup where kept); elem, assem = the element-matrix and
// assembly kernels of one assemble(); total = one assemble(); rhs = one
// assemble_rhs() of (f(x), v) (GPU only).
// Rates: element matrices a second (the kernel alone, from GPU::SetupTimer,
// which synchronizes the device at each step), GFLOP/s counting the
// contraction's 2 (1 + dim) n^2 n_q flops an element (reference tensor:
// 2 (1 + dim)^2 n^2); full assembly (host
// support points, element matrices, atomics into CSR, rows of other ranks)
// in DoFs a second. SpMV: DoFs a second and GB/s over the CSR bytes (12 an
// entry, 4 a row, two vectors), against the copy bandwidth.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_sparsity_pattern.h>
#include <deal.II/numerics/vector_tools.h>

#include "../tests/meshes.h"
#include "benchmark_timing.h"
#include "command_line.h"
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <type_traits>

using namespace dealii;

namespace
{
  struct Options
  {
    std::string               backend = "gpu";
    unsigned int              dim     = 3;
    std::vector<unsigned int> degrees{1, 2, 3, 4};
    std::vector<std::string>  forms{"laplace", "elasticity"};
    std::string               element          = "q";
    std::string               mesh             = "ball";
    std::string               strategy         = "automatic";
    unsigned int              cells_per_team   = 0;
    unsigned int              threads_per_cell = 0;
    unsigned int              points_per_chunk = 0;
    unsigned int              cells_per_batch  = 0;
    std::vector<unsigned int> refinements{3, 4};
    unsigned int              repeat = 3;
    std::string               csv    = "element_integration.csv";
  };

  std::vector<unsigned int> parse_list(const std::string &s)
  {
    std::vector<unsigned int> result;
    for (const auto &t : Utilities::split_string_list(s))
      result.push_back(Utilities::string_to_int(t));
    return result;
  }

  double now()
  {
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  // The constant coefficients of the convection-diffusion form: a full,
  // non-symmetric D (positive definite symmetric part) and b.
  template <int dim>
  Tensor<2, dim> diffusion_tensor()
  {
    Tensor<2, dim> D;
    for (unsigned int d = 0; d < dim; ++d)
      for (unsigned int e = 0; e < dim; ++e)
        D[d][e] = d == e ? 1. + 0.5 * d : (d < e ? 0.3 : -0.2);
    return D;
  }

  template <int dim>
  Tensor<1, dim> velocity()
  {
    Tensor<1, dim> b;
    for (unsigned int d = 0; d < dim; ++d)
      b[d] = 1. + d;
    return b;
  }

  struct Row
  {
    std::string  form;
    unsigned int dim, k, refinement;
    double       cells, dofs, nnz;
    double       t_setup, t_pattern, t_support, t_elements, t_assembly, t_total;
    double       t_rhs    = 0;
    std::string  strategy = "-";
    double       flops_per_element;
    double       t_spmv[3] = {0, 0, 0};
  };

  // The 3D (or 2D) ball refined globally and once more in a shell (hanging
  // nodes), MappingQ(2), FE_Q(k)^n_comp or FE_DGQ(k)^n_comp, hanging-node
  // and zero Dirichlet constraints on the locally relevant DoFs (none for
  // FE_DGQ).
  template <int dim, int n_comp>
  struct Problem
  {
    parallel::distributed::Triangulation<dim> tria;
    MappingQ<dim>                             mapping;
    FESystem<dim>                             fe;
    DoFHandler<dim>                           dof;
    AffineConstraints<double>                 constraints;

    Problem(const Options     &options,
            const unsigned int k,
            const unsigned int refinement)
        : tria(MPI_COMM_WORLD), mapping(options.mesh == "cube" ? 1 : 2),
          fe(options.element == "dgq" ? FESystem<dim>(FE_DGQ<dim>(k), n_comp)
                                      : FESystem<dim>(FE_Q<dim>(k), n_comp))
    {
      if (options.mesh == "cube")
      {
        GridGenerator::hyper_cube(tria, -1., 1.);
        // A shear: parallelepipeds, affine under MappingQ(1).
        GridTools::transform(
            [](const Point<dim> &x)
            {
              Point<dim> y = x;
              y[0] += 0.3 * x[dim - 1];
              return y;
            },
            tria);
      }
      else
        GridGenerator::hyper_ball(tria);
      tria.refine_global(refinement);
      for (const auto &cell : tria.active_cell_iterators())
        if (cell->is_locally_owned() && cell->center().norm() > 0.3 &&
            cell->center().norm() < 0.5)
          cell->set_refine_flag();
      tria.execute_coarsening_and_refinement();
      dof.reinit(tria);
      dof.distribute_dofs(fe);
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof, relevant);
      constraints.reinit(relevant);
      DoFTools::make_hanging_node_constraints(dof, constraints);
      VectorTools::interpolate_boundary_values(
          mapping, dof, 0, Functions::ZeroFunction<dim>(n_comp), constraints);
      constraints.close();
    }
  };

  // f(x) for the right-hand side.
  struct Load
  {
    template <typename Evaluator>
    DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                            const unsigned int q) const
    {
      using value_type = typename Evaluator::value_type;
      using T          = typename Evaluator::number_type;
      const T    v     = T(1.) + phi.quadrature_point(q)[0];
      value_type f{};
      if constexpr (std::is_arithmetic_v<value_type>)
        f = v;
      else
        for (unsigned int c = 0; c < value_type::dimension; ++c)
          f[c] = v;
      phi.submit_value(f, q);
    }
  };

  template <int dim, int n_comp, typename Operation>
  Row run_gpu(const std::string &form,
              const Options     &options,
              const unsigned int k,
              const unsigned int refinement,
              const Operation   &operation)
  {
    const unsigned int   repeat = options.repeat;
    Problem<dim, n_comp> problem(options, k, refinement);
    const auto          &tria        = problem.tria;
    const auto          &mapping     = problem.mapping;
    const auto          &fe          = problem.fe;
    const auto          &dof         = problem.dof;
    const auto          &constraints = problem.constraints;

    Row                                 row{form, dim, k, refinement};
    const QGauss<dim>                   quadrature(k + 1);
    GPU::ElementIntegrator<dim, n_comp> integrator;
    using Data = typename GPU::ElementIntegrator<dim, n_comp>::AdditionalData;
    Data data;
    if (options.strategy == "points")
      data.strategy = Data::Strategy::quadrature_points;
    else if (options.strategy == "tensor")
      data.strategy = Data::Strategy::reference_tensor;
    else if (options.strategy == "products")
      data.strategy = Data::Strategy::batched_products;
    else if (options.strategy == "rows")
      data.strategy = Data::Strategy::rows;
    data.cells_per_team   = options.cells_per_team;
    data.threads_per_cell = options.threads_per_cell;
    data.points_per_chunk = options.points_per_chunk;
    data.cells_per_batch  = options.cells_per_batch;
    double t0             = now();
    integrator.reinit(mapping, dof, quadrature, data);
    row.strategy =
        integrator.template uses_reference_tensor<Operation>()   ? "tensor"
        : integrator.template uses_batched_products<Operation>() ? "products"
        : integrator.template uses_rows<Operation>()             ? "rows"
                                                                 : "points";
    // The kept mapping support points are computed in reinit().
    const double t_geometry = Utilities::MPI::max(
        integrator.get_timer()["mapping support points"], MPI_COMM_WORLD);
    GPU::SparseMatrix<double> matrix;
    integrator.initialize_matrix(constraints, matrix);
    row.t_setup   = Utilities::MPI::max(now() - t0, MPI_COMM_WORLD);
    row.t_pattern = Utilities::MPI::max(
        integrator.get_timer()["sparsity pattern"], MPI_COMM_WORLD);
    row.t_total = 1e300;
    for (unsigned int r = 0; r < repeat; ++r)
    {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = now();
      integrator.assemble(operation, matrix);
      GPU::Device::synchronize();
      const double t = Utilities::MPI::max(now() - t0, MPI_COMM_WORLD);
      if (t < row.t_total)
      {
        row.t_total       = t;
        const auto &timer = integrator.get_timer();
        row.t_support =
            integrator.geometry_kept()
                ? t_geometry
                : Utilities::MPI::max(timer["mapping support points"],
                                      MPI_COMM_WORLD);
        row.t_elements =
            Utilities::MPI::max(timer["element matrices"], MPI_COMM_WORLD);
        row.t_assembly = Utilities::MPI::max(
            timer["assembly"] + timer["ghost rows"], MPI_COMM_WORLD);
      }
    }
    GPU::Vector<double> rhs;
    row.t_rhs = 1e300;
    for (unsigned int r = 0; r < repeat; ++r)
    {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = now();
      integrator.assemble_rhs(Load{}, rhs);
      GPU::Device::synchronize();
      row.t_rhs =
          std::min(row.t_rhs, Utilities::MPI::max(now() - t0, MPI_COMM_WORLD));
    }
    row.cells      = tria.n_global_active_cells();
    row.dofs       = dof.n_dofs();
    row.nnz        = Utilities::MPI::sum(double(matrix.n_nonzero_elements()),
                                  MPI_COMM_WORLD);
    const double n = fe.n_dofs_per_cell();
    // The reference tensor: (1 + dim)^2 products an entry, no points.
    row.flops_per_element = row.strategy == "tensor"
                                ? 2. * (1 + dim) * (1 + dim) * n * n
                                : 2. * (1 + dim) * n * n * quadrature.size();

    GPU::Vector<double> x, y;
    matrix.initialize_dof_vector(x);
    matrix.initialize_dof_vector(y);
    x                                              = 1.;
    const GPU::SparseMatrix<double>::SpMV kinds[3] = {
        GPU::SparseMatrix<double>::SpMV::automatic,
        GPU::SparseMatrix<double>::SpMV::csr,
        GPU::SparseMatrix<double>::SpMV::ellpack_r};
    for (unsigned int s = 0; s < 3; ++s)
      try
      {
        matrix.set_spmv(kinds[s]);
        row.t_spmv[s] = median_seconds(
            5, [&] { matrix.vmult(y, x); }, 10);
      }
      catch (const std::exception &e)
      {
        // ELLPACK-R pads every row to the longest: it may not fit.
        row.t_spmv[s] = std::numeric_limits<double>::quiet_NaN();
        matrix.set_spmv(GPU::SparseMatrix<double>::SpMV::automatic);
      }
    return row;
  }

  // deal.II: FEValues cell matrices and distribute_local_to_global into a
  // Trilinos matrix; t_elements: the cell matrices alone.
  template <int dim, int n_comp>
  Row run_cpu(const std::string &form,
              const Options     &options,
              const unsigned int k,
              const unsigned int refinement)
  {
    const unsigned int   repeat = options.repeat;
    const bool           cube   = options.mesh == "cube";
    Problem<dim, n_comp> problem(options, k, refinement);
    const auto          &tria        = problem.tria;
    const auto          &mapping     = problem.mapping;
    const auto          &fe          = problem.fe;
    const auto          &dof         = problem.dof;
    const auto          &constraints = problem.constraints;

    Row                               row{form, dim, k, refinement};
    double                            t0 = now();
    TrilinosWrappers::SparsityPattern pattern(dof.locally_owned_dofs(),
                                              MPI_COMM_WORLD);
    DoFTools::make_sparsity_pattern(
        dof,
        pattern,
        constraints,
        false,
        Utilities::MPI::this_mpi_process(MPI_COMM_WORLD));
    pattern.compress();
    TrilinosWrappers::SparseMatrix matrix(pattern);
    row.t_setup   = Utilities::MPI::max(now() - t0, MPI_COMM_WORLD);
    row.t_pattern = row.t_setup;

    const QGauss<dim>                    quadrature(k + 1);
    FEValues<dim>                        fe_values(mapping,
                            fe,
                            quadrature,
                            update_values | update_gradients |
                                update_quadrature_points | update_JxW_values);
    const unsigned int                   n = fe.n_dofs_per_cell();
    FullMatrix<double>                   cell_matrix(n, n);
    std::vector<types::global_dof_index> indices(n);
    const FEValuesExtractors::Vector     u(0);
    std::vector<double>                  a(quadrature.size());
    const Tensor<2, dim>                 D = diffusion_tensor<dim>();
    const Tensor<1, dim>                 b = velocity<dim>();
    // 0: laplace, 1: mass, 2: convection-diffusion (scalar forms).
    const int kind      = form == "laplace" ? 0 : (form == "mass" ? 1 : 2);
    auto      cell_loop = [&](const bool distribute)
    {
      for (const auto &cell : dof.active_cell_iterators())
        if (cell->is_locally_owned())
        {
          fe_values.reinit(cell);
          cell_matrix = 0;
          for (unsigned int q = 0; q < quadrature.size(); ++q)
          {
            const Point<dim> &x = fe_values.quadrature_point(q);
            a[q] = (cube ? 1. : 1. / (0.05 + 2. * x.norm_square())) *
                   fe_values.JxW(q);
          }
          for (unsigned int q = 0; q < quadrature.size(); ++q)
            for (unsigned int i = 0; i < n; ++i)
              for (unsigned int j = 0; j < n; ++j)
                if constexpr (n_comp == 1)
                {
                  if (kind == 0)
                    cell_matrix(i, j) += a[q] * (fe_values.shape_grad(i, q) *
                                                 fe_values.shape_grad(j, q));
                  else if (kind == 1)
                    cell_matrix(i, j) += a[q] * fe_values.shape_value(i, q) *
                                         fe_values.shape_value(j, q);
                  else
                    cell_matrix(i, j) += ((D * fe_values.shape_grad(j, q)) *
                                              fe_values.shape_grad(i, q) +
                                          (b * fe_values.shape_grad(j, q) +
                                           0.5 * fe_values.shape_value(j, q)) *
                                              fe_values.shape_value(i, q)) *
                                         fe_values.JxW(q);
                }
                else
                  cell_matrix(i, j) +=
                      (2. * a[q] *
                           scalar_product(
                               fe_values[u].symmetric_gradient(i, q),
                               fe_values[u].symmetric_gradient(j, q)) +
                       2. * fe_values.JxW(q) * fe_values[u].divergence(i, q) *
                           fe_values[u].divergence(j, q));
          if (distribute)
          {
            cell->get_dof_indices(indices);
            constraints.distribute_local_to_global(
                cell_matrix, indices, matrix);
          }
        }
      if (distribute)
        matrix.compress(VectorOperation::add);
    };
    row.t_elements = row.t_total = 1e300;
    for (unsigned int r = 0; r < repeat; ++r)
    {
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = now();
      cell_loop(false);
      row.t_elements = std::min(
          row.t_elements, Utilities::MPI::max(now() - t0, MPI_COMM_WORLD));
      matrix = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = now();
      cell_loop(true);
      row.t_total = std::min(row.t_total,
                             Utilities::MPI::max(now() - t0, MPI_COMM_WORLD));
    }
    row.t_support         = 0;
    row.t_assembly        = row.t_total - row.t_elements;
    row.cells             = tria.n_global_active_cells();
    row.dofs              = dof.n_dofs();
    row.nnz               = matrix.n_nonzero_elements();
    row.flops_per_element = 2. * (1 + dim) * double(n) * n * quadrature.size();
    return row;
  }

  template <int dim>
  Row run(const Options     &options,
          const std::string &form,
          const unsigned int k,
          const unsigned int r)
  {
    const bool gpu  = options.backend == "gpu";
    const bool cube = options.mesh == "cube";
    using C         = GPU::Constant<double>;
    if (form == "laplace")
      return !gpu ? run_cpu<dim, 1>(form, options, k, r)
             : cube
                 ? run_gpu<dim, 1>(
                       form, options, k, r, GPU::LaplaceOperation<C>{{1.}})
                 : run_gpu<dim, 1>(form,
                                   options,
                                   k,
                                   r,
                                   GPU::LaplaceOperation<BallOfX>{BallOfX{}});
    if (form == "mass")
      return !gpu   ? run_cpu<dim, 1>(form, options, k, r)
             : cube ? run_gpu<dim, 1>(
                          form, options, k, r, GPU::MassOperation<C>{{1.}})
                    : run_gpu<dim, 1>(form,
                                      options,
                                      k,
                                      r,
                                      GPU::MassOperation<BallOfX>{BallOfX{}});
    if (form == "convection-diffusion")
    {
      using CD =
          GPU::ConvectionDiffusionOperation<GPU::Constant<Tensor<2, dim>>,
                                            GPU::Constant<Tensor<1, dim>>,
                                            C>;
      return !gpu
                 ? run_cpu<dim, 1>(form, options, k, r)
                 : run_gpu<dim, 1>(
                       form,
                       options,
                       k,
                       r,
                       CD{{diffusion_tensor<dim>()}, {velocity<dim>()}, {0.5}});
    }
    AssertThrow(form == "elasticity",
                ExcMessage("unknown form " + form +
                           " (laplace, elasticity, mass, "
                           "convection-diffusion)"));
    return !gpu ? run_cpu<dim, dim>(form, options, k, r)
           : cube
               ? run_gpu<dim, dim>(form,
                                   options,
                                   k,
                                   r,
                                   GPU::ElasticityOperation<C, C>{{2.}, {1.}})
               : run_gpu<dim, dim>(
                     form,
                     options,
                     k,
                     r,
                     GPU::ElasticityOperation<C, BallOfX>{{2.}, BallOfX{}});
  }
} // namespace

const char usage[] =
    "usage: element_integration [--backend=gpu|cpu] [--dim=3] "
    "[--degrees=1,2,3,4]\n"
    "         [--element=q|dgq] [--refinements=3,4] [--repeat=3] "
    "[--csv=file.csv]\n"
    "         [--mesh=ball|cube] "
    "[--strategy=automatic|points|tensor|products|rows]\n"
    "         [--cells-per-team=0] [--threads-per-cell=0] "
    "[--points-per-chunk=0]\n"
    "         [--cells-per-batch=0]\n"
    "         [--forms=laplace,elasticity,mass,convection-diffusion]\n"
    "         [--device=cuda|host]\n";

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  Options                          options;
  const int                        status = Benchmarks::parse_command_line(
      argc,
      argv,
      usage,
      [&](const std::string &arg)
      {
        const auto [key, value] = Benchmarks::split_argument(arg);
        if (key == "--backend")
          options.backend = value;
        else if (key == "--dim")
          options.dim = Utilities::string_to_int(value);
        else if (key == "--degrees")
          options.degrees = parse_list(value);
        else if (key == "--forms")
          options.forms = Utilities::split_string_list(value);
        else if (key == "--element")
          options.element = value;
        else if (key == "--mesh")
          options.mesh = value;
        else if (key == "--strategy")
          options.strategy = value;
        else if (key == "--cells-per-team")
          options.cells_per_team = Utilities::string_to_int(value);
        else if (key == "--threads-per-cell")
          options.threads_per_cell = Utilities::string_to_int(value);
        else if (key == "--points-per-chunk")
          options.points_per_chunk = Utilities::string_to_int(value);
        else if (key == "--cells-per-batch")
          options.cells_per_batch = Utilities::string_to_int(value);
        else if (key == "--refinements")
          options.refinements = parse_list(value);
        else if (key == "--repeat")
          options.repeat = Utilities::string_to_int(value);
        else if (key == "--csv")
          options.csv = value;
        else
          return false;
        if (options.backend != "gpu" && options.backend != "cpu")
          throw Benchmarks::UsageError("--backend=gpu|cpu");
        if (options.dim != 2 && options.dim != 3)
          throw Benchmarks::UsageError("--dim=2|3");
        return true;
      });
  if (status >= 0)
    return status;
  GPU::Device::initialize(argc, argv);
  AssertThrow(options.element == "q" || options.element == "dgq",
              ExcMessage("--element=q|dgq"));
  AssertThrow(options.mesh == "ball" || options.mesh == "cube",
              ExcMessage("--mesh=ball|cube"));
  AssertThrow(options.strategy == "automatic" || options.strategy == "points" ||
                  options.strategy == "tensor" ||
                  options.strategy == "products" || options.strategy == "rows",
              ExcMessage("--strategy=automatic|points|tensor|products|rows"));
  const bool root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  const unsigned int n_ranks = Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD);
  const std::string  device  = options.backend == "gpu"
                                   ? GPU::Device::description()
                                   : "deal.II FEValues + Trilinos, " +
                                       std::to_string(n_ranks) + " ranks";
  std::ofstream      csv;
  if (root)
  {
    csv.open(options.csv);
    csv << "backend,mesh,element,strategy,dim,form,k,refinement,cells,dofs,"
           "nnz,setup_s,pattern_s,"
           "support_s,elements_s,assembly_s,total_s,rhs_s,elements_per_s,"
           "gflops,assembly_dofs_per_s,spmv_cusparse_s,spmv_csr_s,"
           "spmv_ellpack_s\n";
    std::cout << "element_integration on " << device << "\n"
              << std::setw(10) << "form" << std::setw(3) << "d" << std::setw(3)
              << "k" << std::setw(7) << "strat" << std::setw(10) << "cells"
              << std::setw(10) << "DoFs" << std::setw(10) << "nnz"
              << std::setw(9) << "setup" << std::setw(9) << "pattern"
              << std::setw(9) << "geom" << std::setw(9) << "elem"
              << std::setw(9) << "assem" << std::setw(9) << "total"
              << std::setw(9) << "rhs" << std::setw(10) << "elem/s"
              << std::setw(8) << "GFLOP/s" << std::setw(10) << "DoFs/s"
              << std::setw(24) << "SpMV GB/s cuSP/CSR/ELL" << std::endl;
  }
  for (const auto &form : options.forms)
    for (const unsigned int k : options.degrees)
      for (const unsigned int r : options.refinements)
      {
        const Row    row = options.dim == 2 ? run<2>(options, form, k, r)
                                            : run<3>(options, form, k, r);
        const double elements_per_s = row.cells / row.t_elements;
        const double gflops     = elements_per_s * row.flops_per_element * 1e-9;
        const double spmv_bytes = row.nnz * 12. + row.dofs * 20.;
        if (!root)
          continue;
        std::cout << std::setw(10) << row.form << std::setw(3) << row.dim
                  << std::setw(3) << row.k << std::setw(7) << row.strategy
                  << std::setw(10) << std::setprecision(3) << row.cells
                  << std::setw(10) << row.dofs << std::setw(10) << row.nnz
                  << std::setw(9) << row.t_setup << std::setw(9)
                  << row.t_pattern << std::setw(9) << row.t_support
                  << std::setw(9) << row.t_elements << std::setw(9)
                  << row.t_assembly << std::setw(9) << row.t_total
                  << std::setw(9) << row.t_rhs << std::setw(10)
                  << elements_per_s << std::setw(8) << gflops << std::setw(10)
                  << row.dofs / row.t_total;
        if (options.backend == "gpu")
          for (unsigned int s = 0; s < 3; ++s)
            std::cout << std::setw(8) << spmv_bytes / row.t_spmv[s] * 1e-9;
        std::cout << std::endl;
        csv << options.backend << ',' << options.mesh << ',' << options.element
            << ',' << row.strategy << ',' << row.dim << ',' << row.form << ','
            << row.k << ',' << row.refinement << ',' << row.cells << ','
            << row.dofs << ',' << row.nnz << ',' << row.t_setup << ','
            << row.t_pattern << ',' << row.t_support << ',' << row.t_elements
            << ',' << row.t_assembly << ',' << row.t_total << ',' << row.t_rhs
            << ',' << elements_per_s << ',' << gflops << ','
            << row.dofs / row.t_total << ',' << row.t_spmv[0] << ','
            << row.t_spmv[1] << ',' << row.t_spmv[2] << '\n';
      }
}
