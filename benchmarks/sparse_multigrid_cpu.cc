// The CPU reference of benchmarks/sparse_multigrid, with deal.II's own
// classes only: the same problem (-div grad u = 1 on plate_with_a_hole, u =
// 0 on both boundaries, MappingQ1, Q1 or Q2), the same algorithm (CG to a
// 1e-8 reduction; a V-cycle of level matrices with damped Jacobi smoothing,
// 4 steps of PreconditionChebyshev of degree 1 around the inverse diagonal
// before and after, CG-Jacobi coarse solve to 1e-2) on
// TrilinosWrappers::SparseMatrix levels assembled with FEValues,
// MGTransferPrebuilt and deal.II's Multigrid. The V-cycle is in double
// (Trilinos' matrices). Run with one MPI rank a core.
//   mpirun -np 16 sparse_multigrid_cpu [--dim=2] [--degrees=1,2]
//     [--refinements=4,5,6] [--orderings=none,cm,hie,2lv] [--csv=file.csv]
//     [--help]
// (hie and 2lv, GPU::DoFRenumbering's, on one rank only).
// Columns as in sparse_multigrid: mesh = the mesh, DoFs and level DoFs,
// renumbering, constraints; matrix = the system matrix and right-hand
// side; mg = level matrices, transfer, smoothers; solve = CG.
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/utilities.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_renumbering.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/filtered_iterator.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/multigrid/mg_coarse.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_matrix.h>
#include <deal.II/multigrid/mg_smoother.h>
#include <deal.II/multigrid/mg_tools.h>
#include <deal.II/multigrid/mg_transfer.h>
#include <deal.II/multigrid/multigrid.h>

#include "command_line.h"
#include "sparse_multigrid_problem.h"
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace dealii;

namespace
{
  using Vector = LinearAlgebra::distributed::Vector<double>;
  using Matrix = TrilinosWrappers::SparseMatrix;

  double now()
  {
    MPI_Barrier(MPI_COMM_WORLD);
    return std::chrono::duration<double>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  struct Row
  {
    types::global_dof_index n_dofs     = 0;
    std::size_t             nnz        = 0;
    unsigned int            iterations = 0;
    double                  mesh = 0, system = 0, multigrid = 0, solve = 0;
  };

  // Laplace matrix (and with @p rhs the load f = 1) of the cells @p cells
  // (active or one level's), their DoF indices from @p indices, into
  // @p matrix with @p constraints.
  template <int dim, typename Cells, typename Indices>
  void assemble(const Mapping<dim>              &mapping,
                const FiniteElement<dim>        &fe,
                const Cells                     &cells,
                const Indices                   &indices,
                const AffineConstraints<double> &constraints,
                Matrix                          &matrix,
                Vector                          *rhs)
  {
    FEValues<dim>                        fe_values(mapping,
                            fe,
                            QGauss<dim>(fe.degree + 1),
                            update_gradients | update_values |
                                update_JxW_values);
    const unsigned int                   n = fe.n_dofs_per_cell();
    FullMatrix<double>                   cell_matrix(n, n);
    dealii::Vector<double>               cell_rhs(n);
    std::vector<types::global_dof_index> dofs(n);
    for (const auto &cell : cells)
    {
      fe_values.reinit(cell);
      cell_matrix = 0;
      cell_rhs    = 0;
      for (const unsigned int q : fe_values.quadrature_point_indices())
        for (unsigned int i = 0; i < n; ++i)
        {
          for (unsigned int j = 0; j < n; ++j)
            cell_matrix(i, j) += fe_values.shape_grad(i, q) *
                                 fe_values.shape_grad(j, q) * fe_values.JxW(q);
          cell_rhs(i) += fe_values.shape_value(i, q) * fe_values.JxW(q);
        }
      indices(cell, dofs);
      if (rhs)
        constraints.distribute_local_to_global(
            cell_matrix, cell_rhs, dofs, matrix, *rhs);
      else
        constraints.distribute_local_to_global(cell_matrix, dofs, matrix);
    }
    matrix.compress(VectorOperation::add);
    if (rhs)
      rhs->compress(VectorOperation::add);
  }

  template <int dim>
  Row run(const unsigned int degree,
          const unsigned int refinements,
          const std::string &ordering)
  {
    const MPI_Comm                       comm = MPI_COMM_WORLD;
    Row                                  row;
    double                               start = now();
    SparseMultigridProblem::Problem<dim> problem(degree, refinements, ordering);
    const auto                          &tria = problem.tria;
    const MappingQ<dim>                  mapping(1);
    const auto                          &fe = problem.dof_handler.get_fe();
    const DoFHandler<dim>               &dof_handler = problem.dof_handler;
    const AffineConstraints<double>     &constraints = problem.constraints;
    const std::set<types::boundary_id>  &boundary    = problem.boundary;
    const IndexSet                      &relevant    = problem.relevant;
    row.mesh                                         = now() - start;

    // The system matrix and right-hand side.
    const IndexSet &owned = dof_handler.locally_owned_dofs();
    Matrix          system;
    {
      DynamicSparsityPattern dsp(relevant);
      DoFTools::make_sparsity_pattern(dof_handler, dsp, constraints, false);
      SparsityTools::distribute_sparsity_pattern(dsp, owned, comm, relevant);
      system.reinit(owned, owned, dsp, comm);
    }
    Vector b(owned, relevant, comm), x(owned, relevant, comm);
    assemble(
        mapping,
        fe,
        dof_handler.active_cell_iterators() |
            IteratorFilters::LocallyOwnedCell(),
        [](const auto &cell, auto &dofs) { cell->get_dof_indices(dofs); },
        constraints,
        system,
        &b);
    row.system = now() - start - row.mesh;

    // The multigrid: level matrices with the level constraints (boundary
    // DoFs; the uniform mesh has no refinement edges), transfer, smoothers.
    MGConstrainedDoFs mg_constrained_dofs;
    mg_constrained_dofs.initialize(dof_handler);
    mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, boundary);
    const unsigned int    max_level = tria.n_global_levels() - 1;
    MGLevelObject<Matrix> level_matrices(0, max_level);
    for (unsigned int level = 0; level <= max_level; ++level)
    {
      const IndexSet &level_owned = dof_handler.locally_owned_mg_dofs(level);
      IndexSet        level_relevant;
      DoFTools::extract_locally_relevant_level_dofs(
          dof_handler, level, level_relevant);
      AffineConstraints<double> level_constraints(level_relevant);
      level_constraints.add_lines(
          mg_constrained_dofs.get_boundary_indices(level));
      level_constraints.close();
      DynamicSparsityPattern dsp(level_relevant);
      MGTools::make_sparsity_pattern(dof_handler, dsp, level);
      SparsityTools::distribute_sparsity_pattern(
          dsp, level_owned, comm, level_relevant);
      level_matrices[level].reinit(level_owned, level_owned, dsp, comm);
      assemble(
          mapping,
          fe,
          dof_handler.mg_cell_iterators_on_level(level) |
              IteratorFilters::LocallyOwnedLevelCell(),
          [](const auto &cell, auto &dofs) { cell->get_mg_dof_indices(dofs); },
          level_constraints,
          level_matrices[level],
          nullptr);
    }
    MGTransferPrebuilt<Vector> transfer(mg_constrained_dofs);
    transfer.build(dof_handler);

    // Damped Jacobi, 4 steps: degree-1 Chebyshev around the inverse
    // diagonal, as GPU::MultigridData sets it (range 2, eigenvalues from 10
    // CG steps).
    using Diagonal = DiagonalMatrix<Vector>;
    using Smoother = PreconditionChebyshev<Matrix, Vector, Diagonal>;
    MGLevelObject<typename Smoother::AdditionalData> smoother_data(0,
                                                                   max_level);
    for (unsigned int level = 0; level <= max_level; ++level)
    {
      auto &data          = smoother_data[level];
      data.preconditioner = std::make_shared<Diagonal>();
      Vector &d           = data.preconditioner->get_vector();
      d.reinit(level_matrices[level].locally_owned_range_indices(), comm);
      for (const auto i : d.locally_owned_elements())
      {
        const double a = level_matrices[level].diag_element(i);
        d(i)           = a != 0. ? 1. / a : 1.;
      }
      data.degree              = 1;
      data.smoothing_range     = 2.;
      data.eig_cg_n_iterations = 10;
    }
    mg::SmootherRelaxation<Smoother, Vector> smoother;
    smoother.initialize(level_matrices, smoother_data);
    smoother.set_steps(4);
    for (unsigned int level = 1; level <= max_level; ++level)
    {
      Vector v(level_matrices[level].locally_owned_range_indices(), comm);
      smoother[level].estimate_eigenvalues(v);
    }
    ReductionControl coarse_control(1000, 1e-300, 1e-2, false, false);
    SolverCG<Vector> coarse_cg(coarse_control);
    TrilinosWrappers::PreconditionJacobi coarse_jacobi;
    coarse_jacobi.initialize(level_matrices[0]);
    MGCoarseGridIterativeSolver<Vector,
                                SolverCG<Vector>,
                                Matrix,
                                TrilinosWrappers::PreconditionJacobi>
                       coarse(coarse_cg, level_matrices[0], coarse_jacobi);
    mg::Matrix<Vector> mg_matrix(level_matrices);
    Multigrid<Vector>  mg(mg_matrix, coarse, transfer, smoother, smoother);
    PreconditionMG<dim, Vector, MGTransferPrebuilt<Vector>> preconditioner(
        dof_handler, mg, transfer);
    row.multigrid = now() - start - row.mesh - row.system;
    row.n_dofs    = dof_handler.n_dofs();
    row.nnz       = system.n_nonzero_elements();

    start = now();
    SolverControl    control(200, 1e-8 * b.l2_norm(), false, false);
    SolverCG<Vector> cg(control);
    cg.solve(system, x, b, preconditioner);
    row.solve      = now() - start;
    row.iterations = control.last_step();
    return row;
  }

} // namespace

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  unsigned int                     dim         = 2;
  std::vector<unsigned int>        degrees     = {1, 2};
  std::vector<unsigned int>        refinements = {4, 5, 6};
  std::vector<std::string>         orderings   = {"none"};
  std::string                      csv_name    = "sparse_multigrid_cpu.csv";
  const int                        status      = Benchmarks::parse_command_line(
      argc,
      argv,
      "usage: mpirun -np N sparse_multigrid_cpu [--dim=2|3] "
                                  "[--degrees=1,2]\n"
                                  "         [--refinements=4,5,6] [--orderings=none,cm,hie,2lv] "
                                  "[--csv=file.csv]\n",
      [&](const std::string &arg)
      {
        const auto [key, value] = Benchmarks::split_argument(arg);
        if (key == "--dim")
        {
          dim = Utilities::string_to_int(value);
          if (dim != 2 && dim != 3)
            throw Benchmarks::UsageError("--dim=2 or 3");
        }
        else if (key == "--degrees")
          degrees = SparseMultigridProblem::parse_list(value);
        else if (key == "--refinements")
          refinements = SparseMultigridProblem::parse_list(value);
        else if (key == "--orderings")
          orderings = Utilities::split_string_list(value);
        else if (key == "--csv")
          csv_name = value;
        else
          return false;
        return true;
      });
  if (status >= 0)
    return status;
  const bool root = Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  const std::string device =
      "deal.II + Trilinos, " +
      std::to_string(Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD)) +
      " ranks";
  std::ofstream csv;
  if (root)
  {
    csv.open(csv_name);
    csv << "device,dim,k,refinements,ordering,smoother,spmv,dofs,nnz,"
           "iterations,mesh_s,matrix_s,multigrid_s,setup_s,solve_s,total_s\n";
    std::cout << "sparse_multigrid_cpu on " << device << "\n"
              << " d  k  L   order      DoFs        nnz   it     mesh   "
                 "matrix       mg    setup    solve    total"
              << std::endl;
  }
  for (const unsigned int k : degrees)
    for (const unsigned int r : refinements)
      for (const auto &ordering : orderings)
      {
        const Row row =
            dim == 2 ? run<2>(k, r, ordering) : run<3>(k, r, ordering);
        if (!root)
          continue;
        const double setup = row.mesh + row.system + row.multigrid;
        std::cout << std::setw(2) << dim << std::setw(3) << k << std::setw(3)
                  << r << std::setw(8) << ordering << std::setw(10)
                  << row.n_dofs << std::setw(11) << row.nnz << std::setw(5)
                  << row.iterations << std::fixed << std::setprecision(4)
                  << std::setw(9) << row.mesh << std::setw(9) << row.system
                  << std::setw(9) << row.multigrid << std::setw(9) << setup
                  << std::setw(9) << row.solve << std::setw(9)
                  << setup + row.solve << std::defaultfloat << std::endl;
        csv << '"' << device << "\"," << dim << ',' << k << ',' << r << ','
            << ordering << ",jacobi,trilinos," << row.n_dofs << ',' << row.nnz
            << ',' << row.iterations << ',' << row.mesh << ',' << row.system
            << ',' << row.multigrid << ',' << setup << ',' << row.solve << ','
            << setup + row.solve << '\n';
      }
}
