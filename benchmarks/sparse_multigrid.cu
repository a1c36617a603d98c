// Geveler et al.'s benchmark redone: Poisson, -div grad u = 1, u = 0 on both
// boundaries of a plate with a circular hole (GridGenerator::plate_with_a_hole,
// unstructured around the hole; in 3D extruded), Q1 and Q2, CG to a 1e-8
// residual reduction preconditioned by GPU::SparseMatrixMultigrid: level
// matrices assembled on the device, transfer matrices (the restriction
// stored or as the transposed product), damped Jacobi or Chebyshev smoothing
// around the inverse diagonal, SPAI(0) or SPAI(1), CG-Jacobi coarse solve to
// 1e-2 (001's choices) or a direct one on the host, each DoF ordering and
// SpMV kernel, the V-cycle in float (default) or double.
// The same program runs on the GPU (the default device) and on the host
// backend with one MPI rank a core (--device=host under mpirun: the same
// algorithm and kernels on the CPU, unvectorized). --matrix-free adds
// GPU::MatrixFreeMultigrid's time for the same problem (Chebyshev(5), float
// V-cycle) to each row.
//
//   Arguments: see usage below (--help).
//
// Orderings (of the active and every level's DoFs): none (deal.II's),
// cm (Cuthill-McKee), xyz (downstream along (1, 1e-3, 1e-6)), random, hie
// (by the refinement tree) and 2lv (two-level: the coarser level's DoFs
// first; GPU::DoFRenumbering, dofs/multigrid_renumbering.h); xyz and random
// on one rank only (deal.II 9.4's crash on several), hie and 2lv too.
// Columns: mesh = the mesh, DoFs and level DoFs, renumbering, constraints
// (deal.II, host); matrix = the system matrix and right-hand side
// (GPU::ElementIntegrator); mg = the multigrid (level matrices, transfer
// matrices, smoothers; the CSV also has the transfer's and the smoothers'
// seconds); setup = their sum; solve = CG; total = both. mf:
// the matrix-free multigrid's iterations, set-up (operator, multigrid,
// right-hand side; the mesh and DoFs not counted) and solve.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/multigrid/matrix_free_multigrid.h>
#include <dealii-gpu/multigrid/sparse_matrix_multigrid.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_renumbering.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/solver_cg.h>

#include "command_line.h"
#include "sparse_multigrid_problem.h"
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <type_traits>

using namespace dealii;

namespace
{
  using Operation = GPU::LaplaceOperation<>;
  using Load      = GPU::SourceOperation<>;
  using VectorD   = GPU::Vector<double>;

  struct Options
  {
    unsigned int              dim         = 2;
    std::vector<unsigned int> degrees     = {1, 2};
    std::vector<unsigned int> refinements = {4, 5, 6};
    std::vector<std::string>  orderings   = {"none"};
    std::vector<std::string>  smoothers   = {"jacobi", "spai0"};
    std::vector<std::string>  spmv        = {"automatic"};
    std::vector<std::string>  coarse      = {"cg"};
    std::vector<std::string>  restriction = {"transposed"};
    bool                      matrix_free = false;
    bool                      single      = true;
    std::string               csv         = "sparse_multigrid.csv";
  };

  struct Row
  {
    types::global_dof_index n_dofs     = 0;
    std::size_t             nnz        = 0;
    unsigned int            iterations = 0;
    double                  setup = 0, solve = 0;
    // Parts of setup: mesh, DoFs, renumbering, constraints; the system
    // matrix and right-hand side; the multigrid.
    double mesh = 0, system = 0, multigrid = 0;
    // Parts of the multigrid: the transfer (matrices included), the
    // smoothers (SPAI and eigenvalue estimates included).
    double       transfer = 0, smoothers = 0;
    unsigned int mf_iterations = 0;
    double       mf_setup = 0, mf_solve = 0;
  };

  double now()
  {
    GPU::Device::synchronize();
    MPI_Barrier(MPI_COMM_WORLD);
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  GPU::SparseMatrixMultigridData multigrid_data(const std::string &smoother,
                                                const std::string &spmv,
                                                const std::string &coarse,
                                                const std::string &restriction,
                                                const bool         single)
  {
    using Data = GPU::SparseMatrixMultigridData;
    Data data;
    data.precision = single ? Data::Precision::single_precision
                            : Data::Precision::double_precision;
    AssertThrow(coarse == "cg" || coarse == "direct",
                ExcMessage("--coarse: cg, direct"));
    data.coarse_solver    = coarse == "cg" ? Data::CoarseSolver::cg_jacobi
                                           : Data::CoarseSolver::direct;
    data.coarse_reduction = 1e-2;
    AssertThrow(restriction == "stored" || restriction == "transposed",
                ExcMessage("--restriction: stored, transposed"));
    using Transfer   = GPU::MGTransferSparseMatrix<2, double>;
    data.restriction = restriction == "stored"
                           ? Transfer::Restriction::stored_transpose
                           : Transfer::Restriction::transposed_product;
    if (smoother == "chebyshev")
      data.smoother = Data::Smoother::chebyshev;
    else
    {
      data.smoother         = Data::Smoother::jacobi;
      data.smoothing_degree = 4;
      AssertThrow(smoother == "jacobi" || smoother == "spai0" ||
                      smoother == "spai",
                  ExcMessage("--smoothers: jacobi, spai0, spai, chebyshev"));
      if (smoother == "spai0")
        data.preconditioner = Data::SmootherPreconditioner::spai0;
      if (smoother == "spai")
        data.preconditioner = Data::SmootherPreconditioner::spai;
    }
    using SpMV = GPU::SparseMatrix<double>::SpMV;
    data.spmv  = spmv == "csr"       ? SpMV::csr
                 : spmv == "ellpack" ? SpMV::ellpack_r
                                     : SpMV::automatic;
    AssertThrow(spmv == "csr" || spmv == "ellpack" || spmv == "automatic",
                ExcMessage("--spmv: automatic, csr, ellpack"));
    return data;
  }

  template <int dim, int degree>
  void matrix_free_solve(const Mapping<dim>                 &mapping,
                         const DoFHandler<dim>              &dof_handler,
                         const AffineConstraints<double>    &constraints,
                         const std::set<types::boundary_id> &boundary,
                         Row                                &row)
  {
    double                                                     start = now();
    GPU::MatrixFreeOperator<dim, degree, 1, double, Operation> system;
    system.reinit(mapping, dof_handler, constraints, Operation{{1.}});
    GPU::MatrixFreeMultigrid<dim, degree, 1, Operation> multigrid;
    multigrid.initialize(mapping, dof_handler, boundary, Operation{{1.}});
    VectorD x, b, zero;
    system.initialize_dof_vector(x);
    system.initialize_dof_vector(b);
    system.initialize_dof_vector(zero);
    system.apply_operation(Load{{1.}}, b, zero);
    row.mf_setup = now() - start;
    start        = now();
    SolverControl     control(200, 1e-8 * b.l2_norm(), false, false);
    SolverCG<VectorD> cg(control);
    cg.solve(system, x, b, multigrid);
    row.mf_solve      = now() - start;
    row.mf_iterations = control.last_step();
  }

  template <int dim>
  Row run(const unsigned int degree,
          const unsigned int refinements,
          const std::string &ordering,
          const std::string &smoother,
          const std::string &spmv,
          const std::string &coarse,
          const std::string &restriction,
          const bool         with_matrix_free,
          const bool         single)
  {
    Row                                  row;
    double                               start = now();
    SparseMultigridProblem::Problem<dim> problem(degree, refinements, ordering);
    const MappingQ<dim>                  mapping(1);
    const DoFHandler<dim>               &dof_handler = problem.dof_handler;
    const AffineConstraints<double>     &constraints = problem.constraints;
    const std::set<types::boundary_id>  &boundary    = problem.boundary;
    row.mesh                                         = now() - start;
    GPU::ElementIntegrator<dim, 1, double> integrator;
    integrator.reinit(mapping, dof_handler, QGauss<dim>(degree + 1));
    GPU::SparseMatrix<double> system;
    integrator.initialize_matrix(constraints, system);
    VectorD b, x;
    integrator.assemble(Operation{{1.}}, Load{{1.}}, system, b);
    const auto data =
        multigrid_data(smoother, spmv, coarse, restriction, single);
    system.set_spmv(data.spmv);
    row.system = now() - start - row.mesh;
    GPU::SparseMatrixMultigrid<dim, 1, Operation> multigrid;
    multigrid.initialize(mapping, dof_handler, boundary, Operation{{1.}}, data);
    system.initialize_dof_vector(x);
    row.setup     = now() - start;
    row.multigrid = row.setup - row.mesh - row.system;
    row.transfer  = multigrid.get_setup_timer()["transfer"];
    row.smoothers = multigrid.get_setup_timer()["smoothers"];
    row.n_dofs    = dof_handler.n_dofs();
    row.nnz = Utilities::MPI::sum(system.n_nonzero_elements(), MPI_COMM_WORLD);

    start = now();
    SolverControl     control(200, 1e-8 * b.l2_norm(), false, false);
    SolverCG<VectorD> cg(control);
    cg.solve(system, x, b, multigrid);
    row.solve      = now() - start;
    row.iterations = control.last_step();

    if (with_matrix_free)
    {
      if (degree == 1)
        matrix_free_solve<dim, 1>(
            mapping, dof_handler, constraints, boundary, row);
      else if (degree == 2)
        matrix_free_solve<dim, 2>(
            mapping, dof_handler, constraints, boundary, row);
    }
    return row;
  }
} // namespace

const char usage[] =
    "usage: sparse_multigrid [--dim=2] [--degrees=1,2] [--refinements=4,5,6]\n"
    "         [--orderings=none,cm,xyz,random,hie,2lv]\n"
    "         [--smoothers=jacobi,spai0,spai,chebyshev]\n"
    "         [--spmv=automatic,csr,ellpack] [--coarse=cg,direct]\n"
    "         [--restriction=stored,transposed] [--precision=float|double]\n"
    "         [--matrix-free] [--csv=file.csv] [--device=cuda|host]\n";

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
        if (key == "--dim")
          options.dim = Utilities::string_to_int(value);
        else if (key == "--degrees")
          options.degrees = SparseMultigridProblem::parse_list(value);
        else if (key == "--refinements")
          options.refinements = SparseMultigridProblem::parse_list(value);
        else if (key == "--orderings")
          options.orderings = Utilities::split_string_list(value);
        else if (key == "--smoothers")
          options.smoothers = Utilities::split_string_list(value);
        else if (key == "--spmv")
          options.spmv = Utilities::split_string_list(value);
        else if (key == "--coarse")
          options.coarse = Utilities::split_string_list(value);
        else if (key == "--restriction")
          options.restriction = Utilities::split_string_list(value);
        else if (key == "--matrix-free")
          options.matrix_free = true;
        else if (key == "--precision")
        {
          if (value != "float" && value != "double")
            throw Benchmarks::UsageError("--precision=float|double");
          options.single = value == "float";
        }
        else if (key == "--csv")
          options.csv = value;
        else
          return false;
        if (options.dim != 2 && options.dim != 3)
          throw Benchmarks::UsageError("--dim=2|3");
        return true;
      });
  if (status >= 0)
    return status;
  GPU::Device::initialize(argc, argv);
  const bool root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  const std::string device =
      GPU::Device::description() + ", " +
      std::to_string(Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD)) +
      " ranks";
  std::ofstream csv;
  if (root)
  {
    csv.open(options.csv);
    csv << "device,dim,k,refinements,ordering,smoother,spmv,dofs,nnz,"
           "iterations,mesh_s,matrix_s,multigrid_s,setup_s,solve_s,total_s,"
           "mf_iterations,mf_setup_s,mf_solve_s,coarse,restriction,"
           "transfer_s,smoothers_s\n";
    std::cout << "sparse_multigrid on " << device << "\n"
              << std::setw(2) << "d" << std::setw(3) << "k" << std::setw(3)
              << "L" << std::setw(8) << "order" << std::setw(10) << "smoother"
              << std::setw(10) << "spmv" << std::setw(10) << "DoFs"
              << std::setw(11) << "nnz" << std::setw(5) << "it" << std::setw(9)
              << "mesh" << std::setw(9) << "matrix" << std::setw(9) << "mg"
              << std::setw(9) << "setup" << std::setw(9) << "solve"
              << std::setw(9) << "total" << std::setw(7) << "coarse"
              << std::setw(11) << "restrict";
    if (options.matrix_free)
      std::cout << std::setw(6) << "mf it" << std::setw(9) << "mf set"
                << std::setw(9) << "mf sol";
    std::cout << std::endl;
  }
  for (const unsigned int k : options.degrees)
    for (const unsigned int r : options.refinements)
      for (const auto &ordering : options.orderings)
        for (const auto &smoother : options.smoothers)
          for (const auto &spmv : options.spmv)
            for (const auto &coarse : options.coarse)
              for (const auto &restriction : options.restriction)
              {
                const auto run_it = [&](auto dim_tag)
                {
                  return run<decltype(dim_tag)::value>(k,
                                                       r,
                                                       ordering,
                                                       smoother,
                                                       spmv,
                                                       coarse,
                                                       restriction,
                                                       options.matrix_free,
                                                       options.single);
                };
                const Row row = options.dim == 2
                                    ? run_it(std::integral_constant<int, 2>())
                                    : run_it(std::integral_constant<int, 3>());
                if (!root)
                  continue;
                std::cout << std::setw(2) << options.dim << std::setw(3) << k
                          << std::setw(3) << r << std::setw(8) << ordering
                          << std::setw(10) << smoother << std::setw(10) << spmv
                          << std::setw(10) << row.n_dofs << std::setw(11)
                          << row.nnz << std::setw(5) << row.iterations
                          << std::fixed << std::setprecision(4) << std::setw(9)
                          << row.mesh << std::setw(9) << row.system
                          << std::setw(9) << row.multigrid << std::setw(9)
                          << row.setup << std::setw(9) << row.solve
                          << std::setw(9) << row.setup + row.solve
                          << std::setw(7) << coarse << std::setw(11)
                          << restriction;
                if (options.matrix_free)
                  std::cout << std::setw(6) << row.mf_iterations << std::setw(9)
                            << row.mf_setup << std::setw(9) << row.mf_solve;
                std::cout << std::defaultfloat << std::endl;
                csv << '"' << device << "\"," << options.dim << ',' << k << ','
                    << r << ',' << ordering << ',' << smoother << ',' << spmv
                    << ',' << row.n_dofs << ',' << row.nnz << ','
                    << row.iterations << ',' << row.mesh << ',' << row.system
                    << ',' << row.multigrid << ',' << row.setup << ','
                    << row.solve << ',' << row.setup + row.solve << ','
                    << row.mf_iterations << ',' << row.mf_setup << ','
                    << row.mf_solve << ',' << coarse << ',' << restriction
                    << ',' << row.transfer << ',' << row.smoothers << '\n';
              }
}
