// GPU::SparseMatrixMultigrid: every level operator and transfer a sparse
// matrix assembled on the device.
// - Transfer (GPU::MGTransferSparseMatrix), levels without boundary
//   constraints: P applied to the interpolant of a function of the
//   element's space on level l - 1 equals its interpolant on level l (to
//   1e-12); P agrees with the per-cell kernels of GPU::MGTransferMatrixFree
//   and the stored restriction with its transpose: (R v, u) = (v, P u),
//   and with the transposed product of P.
// - Solver: -div(a(x) grad u) = 1, u = 0 on the boundary, cube, MappingQ1,
//   the system matrix from GPU::ElementIntegrator, CG preconditioned by the
//   float V-cycle to a 1e-8 reduction, Q1 and Q2, 2D and 3D over four
//   uniform meshes: the counts may spread by at most 2; also with SPAI(0)
//   and with damped Jacobi smoothing (CG-Jacobi coarse solver to 1e-2, as
//   Geveler et al.), with each SpMV kernel; with SPAI(1) (a double V-cycle)
//   and with the direct coarse solve (3D Q2 with SPAI(1) on the GPU
//   machine only). On
//   one adaptive
//   mesh (local smoothing) and on the finest uniform 2D Q2 mesh, the
//   solution agrees with GPU::MatrixFreeMultigrid's on the same problem to
//   1e-6 (also with SPAI(1) on the adaptive mesh).
// - SPAI(1) (GPU::SparseApproximateInverse) equals a host least-squares
//   reference (2D Q1 and Q2: one thread a row; 3D Q2: a thread block a
//   row); rows too long for it are refused.
#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/multigrid/matrix_free_multigrid.h>
#include <dealii-gpu/multigrid/sparse_matrix_multigrid.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/householder.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>

#include "../dofs_and_constraints.h"
#include "../meshes.h"
#include "../tests.h"

using HostVector = LinearAlgebra::distributed::Vector<double>;
using Operation  = GPU::LaplaceOperation<BallOfX>;

// A function of Q_k: sum_d (x_d + 0.3 d)^k + prod_d x_d.
template <int dim>
double
polynomial(const Point<dim> &x, const unsigned int k)
{
  double value = 1;
  for (unsigned int d = 0; d < dim; ++d)
    value *= x[d];
  for (unsigned int d = 0; d < dim; ++d)
    value += std::pow(x[d] + 0.3 * d, double(k));
  return value;
}

// The interpolant of polynomial() on level @p level, in @p layout.
template <int dim>
void
interpolate_on_level(
    const DoFHandler<dim>                                    &dof_handler,
    const unsigned int                                        level,
    const std::shared_ptr<const Utilities::MPI::Partitioner> &layout,
    GPU::Vector<double>                                      &vector)
{
  const auto                          &fe = dof_handler.get_fe();
  const MappingQ<dim>                  mapping(1);
  HostVector                           host(layout);
  std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
  for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
    if (cell->is_locally_owned_on_level())
    {
      cell->get_mg_dof_indices(indices);
      for (unsigned int i = 0; i < indices.size(); ++i)
        if (host.in_local_range(indices[i]))
          host(indices[i]) =
              polynomial(mapping.transform_unit_to_real_cell(
                             cell, fe.get_unit_support_points()[i]),
                         fe.degree);
    }
  vector.reinit(layout);
  vector.copy_locally_owned_data_from(host);
}

void
fill_random(GPU::Vector<double> &vector, std::uint64_t seed)
{
  HostVector host(vector.get_partitioner());
  for (unsigned int i = 0; i < host.locally_owned_size(); ++i)
    host.local_element(i) = random_value(seed) - 0.5;
  vector.copy_locally_owned_data_from(host);
}

template <int dim>
void
check_transfer(const unsigned int degree, const unsigned int refinements)
{
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, false, refinements);
  DoFHandler<dim> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<dim>(degree));
  dof_handler.distribute_mg_dofs();
  MGConstrainedDoFs mg_constrained_dofs;
  mg_constrained_dofs.initialize(dof_handler);
  GPU::MGTransferSparseMatrix<dim, double> transfer(mg_constrained_dofs);
  transfer.build(dof_handler);
  // The per-cell transfer on the same level vectors.
  std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>> layouts;
  for (unsigned int l = 0; l < tria.n_global_levels(); ++l)
    layouts.push_back(transfer.get_level_partitioner(l));
  GPU::MGTransferMatrixFree<dim, double> cells(mg_constrained_dofs);
  cells.build(dof_handler, layouts);

  double interpolation = 0, against_cells = 0, transpose = 0,
         transposed_product = 0;
  std::size_t entries       = 0;
  for (unsigned int l = 1; l < tria.n_global_levels(); ++l)
  {
    const auto         &coarse_layout = transfer.get_level_partitioner(l - 1);
    const auto         &fine_layout   = transfer.get_level_partitioner(l);
    GPU::Vector<double> coarse, fine, expected, other;
    interpolate_on_level(dof_handler, l - 1, coarse_layout, coarse);
    interpolate_on_level(dof_handler, l, fine_layout, expected);
    fine.reinit(fine_layout);
    transfer.prolongate(l, fine, coarse);
    fine -= expected;
    interpolation =
        max_keep_nan(interpolation, max_norm(fine) / max_norm(expected));

    GPU::Vector<double> u(coarse_layout), v(fine_layout), Pu(fine_layout),
        Rv(coarse_layout);
    fill_random(u, 7 + l);
    fill_random(v, 11 + l);
    transfer.prolongate(l, Pu, u);
    other.reinit(fine_layout);
    cells.prolongate(l, other, u);
    other -= Pu;
    against_cells = max_keep_nan(against_cells, other.l2_norm() / Pu.l2_norm());
    using Restriction =
        typename GPU::MGTransferSparseMatrix<dim, double>::Restriction;
    transfer.set_restriction(Restriction::stored_transpose);
    transfer.restrict_and_add(l, Rv, v);
    other.reinit(coarse_layout);
    cells.restrict_and_add(l, other, v);
    other -= Rv;
    against_cells = max_keep_nan(against_cells, other.l2_norm() / Rv.l2_norm());
    transpose     = max_keep_nan(transpose,
                             std::abs((Rv * u) - (v * Pu)) / std::abs(v * Pu));
    // The same restriction as the transposed product with P (default).
    transfer.set_restriction(Restriction::transposed_product);
    other.reinit(coarse_layout);
    transfer.restrict_and_add(l, other, v);
    other -= Rv;
    transposed_product =
        max_keep_nan(transposed_product, other.l2_norm() / Rv.l2_norm());
    entries +=
        Utilities::MPI::sum(transfer.n_nonzero_elements(l), MPI_COMM_WORLD);
  }
  deallog << "transfer " << dim << "D Q" << degree << ", "
          << tria.n_global_levels() << " levels: " << entries
          << " entries, interpolation "
          << (interpolation < 1e-12 ? "exact" : "ERROR")
          << ", against the cell kernels "
          << (against_cells < 1e-13 ? "equal" : "ERROR")
          << ", restriction = transpose "
          << (transpose < 1e-13 ? "yes" : "ERROR")
          << ", as the transposed product "
          << (transposed_product < 1e-13 ? "equal" : "ERROR") << std::endl;
  if (interpolation >= 1e-12 || against_cells >= 1e-13 || transpose >= 1e-13 ||
      transposed_product >= 1e-13)
    deallog << "  errors " << interpolation << ' ' << against_cells << ' '
            << transpose << ' ' << transposed_product << std::endl;
}

// (f, v) with f = 1, condensed.
template <int dim>
void
assemble_rhs(const DoFHandler<dim>           &dof_handler,
             const AffineConstraints<double> &constraints,
             HostVector                      &rhs)
{
  const auto       &fe = dof_handler.get_fe();
  const QGauss<dim> quadrature(fe.degree + 1);
  FEValues<dim> fe_values(fe, quadrature, update_values | update_JxW_values);
  dealii::Vector<double>               cell_rhs(fe.n_dofs_per_cell());
  std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
  for (const auto &cell : dof_handler.active_cell_iterators())
    if (cell->is_locally_owned())
    {
      fe_values.reinit(cell);
      cell_rhs = 0;
      for (unsigned int q = 0; q < quadrature.size(); ++q)
        for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
          cell_rhs(i) += fe_values.shape_value(i, q) * fe_values.JxW(q);
      cell->get_dof_indices(indices);
      constraints.distribute_local_to_global(cell_rhs, indices, rhs);
    }
  rhs.compress(VectorOperation::add);
}

// The matrix-free multigrid's solution of the same problem, in u.
template <int dim, int degree>
void
solve_matrix_free(const Mapping<dim>              &mapping,
                  const DoFHandler<dim>           &dof_handler,
                  const AffineConstraints<double> &constraints,
                  const HostVector                &rhs,
                  HostVector                      &u)
{
  GPU::MatrixFreeOperator<dim, degree, 1, double, Operation> system;
  system.reinit(mapping, dof_handler, constraints, Operation{});
  GPU::MatrixFreeMultigrid<dim, degree, 1, Operation> multigrid;
  multigrid.initialize(mapping, dof_handler, {0}, Operation{});
  GPU::Vector<double> x, b;
  system.initialize_dof_vector(x);
  system.initialize_dof_vector(b);
  b.copy_locally_owned_data_from(rhs);
  SolverControl                 control(100, 1e-8 * b.l2_norm(), false, false);
  SolverCG<GPU::Vector<double>> cg(control);
  cg.solve(system, x, b, multigrid);
  u.reinit(rhs, true);
  x.copy_locally_owned_data_to(u);
}

// CG with the sparse V-cycle; iterations, the solution's owned entries in u.
template <int dim>
unsigned int
solve_sparse(const Mapping<dim>                   &mapping,
             const DoFHandler<dim>                &dof_handler,
             const AffineConstraints<double>      &constraints,
             const HostVector                     &rhs,
             HostVector                           &u,
             const GPU::SparseMatrixMultigridData &data)
{
  GPU::ElementIntegrator<dim, 1, double> integrator;
  integrator.reinit(
      mapping, dof_handler, QGauss<dim>(dof_handler.get_fe().degree + 1));
  GPU::SparseMatrix<double> system;
  integrator.initialize_matrix(constraints, system);
  integrator.assemble(Operation{}, system);
  GPU::SparseMatrixMultigrid<dim, 1, Operation> multigrid;
  multigrid.initialize(mapping, dof_handler, {0}, Operation{}, data);
  GPU::Vector<double> x, b;
  system.initialize_dof_vector(x);
  system.initialize_dof_vector(b);
  b.copy_locally_owned_data_from(rhs);
  SolverControl                 control(100, 1e-8 * b.l2_norm(), false, false);
  SolverCG<GPU::Vector<double>> cg(control);
  cg.solve(system, x, b, multigrid);
  u.reinit(rhs, true);
  x.copy_locally_owned_data_to(u);
  return control.last_step();
}

// Solves on a mesh; with @p compare (degree as a template argument), also
// with the matrix-free multigrid, and prints the difference.
template <int dim, int degree = 0>
unsigned int
solve(const unsigned int                    fe_degree,
      const unsigned int                    refinements,
      const bool                            adaptive,
      const bool                            compare,
      const GPU::SparseMatrixMultigridData &data = {})
{
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, false, refinements);
  if (adaptive)
    refine_shell(tria, 0.3, 0.6);
  const MappingQ<dim>       mapping(1);
  DoFHandler<dim>           dof_handler(tria);
  AffineConstraints<double> constraints;
  distribute_dofs_and_constraints(dof_handler, fe_degree, 1, constraints);
  HostVector rhs(dof_handler.locally_owned_dofs(),
                 constraints.get_local_lines(),
                 MPI_COMM_WORLD);
  assemble_rhs(dof_handler, constraints, rhs);
  HostVector         u;
  const unsigned int n =
      solve_sparse(mapping, dof_handler, constraints, rhs, u, data);
  if constexpr (degree > 0)
    if (compare)
    {
      HostVector u_mf;
      solve_matrix_free<dim, degree>(
          mapping, dof_handler, constraints, rhs, u_mf);
      const double norm = u_mf.l2_norm();
      u_mf -= u;
      const double difference = u_mf.l2_norm() / norm;
      deallog << dim << "D Q" << fe_degree << (adaptive ? " adaptive" : "")
              << ", " << dof_handler.n_dofs() << " DoFs: " << n
              << " iterations, against the matrix-free multigrid "
              << (difference < 1e-6 ? "agrees" : "ERROR") << std::endl;
      if (difference >= 1e-6)
        deallog << "  difference " << difference << std::endl;
    }
  return n;
}

template <int dim>
void
check_counts(const unsigned int                    degree,
             const unsigned int                    first,
             const GPU::SparseMatrixMultigridData &data    = {},
             const std::string                    &variant = "")
{
  std::vector<unsigned int> counts;
  for (unsigned int r = first; r < first + 4; ++r)
    counts.push_back(solve<dim>(degree, r, false, false, data));
  const auto [low, high] = std::minmax_element(counts.begin(), counts.end());
  deallog << dim << "D Q" << degree << variant << " iterations, refinements "
          << first << ".." << first + 3 << ":";
  for (const unsigned int n : counts)
    deallog << ' ' << n;
  deallog << (*high - *low <= 2 ? " (flat)" : " ERROR: spread > 2")
          << std::endl;
}

// Twice refined ball or cube with FE_Q(degree) and level DoFs.
template <int dim>
struct SmallMesh
{
  SmallMesh(const unsigned int degree, const bool ball)
      : tria(MPI_COMM_WORLD,
             Triangulation<dim>::limit_level_difference_at_vertices,
             parallel::distributed::Triangulation<
                 dim>::construct_multigrid_hierarchy),
        mapping(1), dof_handler(tria)
  {
    if (ball)
      GridGenerator::hyper_ball(tria);
    else
      GridGenerator::hyper_cube(tria);
    tria.refine_global(2);
    dof_handler.distribute_dofs(FE_Q<dim>(degree));
    dof_handler.distribute_mg_dofs();
  }

  parallel::distributed::Triangulation<dim> tria;
  const MappingQ<dim>                       mapping;
  DoFHandler<dim>                           dof_handler;
};

// SPAI(0) of a level matrix against its entries: m_i = a_ii / sum_j a_ij^2.
void
check_spai0()
{
  constexpr int                  dim = 2;
  SmallMesh<dim>                 mesh(2, true);
  const auto                    &mapping     = mesh.mapping;
  const auto                    &dof_handler = mesh.dof_handler;
  GPU::SparseMatrixMultigridData data;
  data.precision = GPU::MultigridData::Precision::double_precision;
  data.preconditioner =
      GPU::SparseMatrixMultigridData::SmootherPreconditioner::spai0;
  GPU::SparseMatrixMultigrid<dim, 1, Operation> multigrid;
  multigrid.initialize(mapping, dof_handler, {0}, Operation{}, data);
  const auto         &level = multigrid.get_level_operator<double>(2);
  GPU::Vector<double> spai;
  level.compute_inverse_diagonal(spai);
  HostVector values(spai.get_partitioner());
  spai.copy_locally_owned_data_to(values);
  const auto         &partitioner = *spai.get_partitioner();
  std::vector<double> diagonal(partitioner.locally_owned_size()),
      squares(diagonal.size());
  for (const auto &[i, j, a] : level.get_matrix().get_entries())
  {
    const unsigned int r = partitioner.global_to_local(i);
    squares[r] += a * a;
    if (i == j)
      diagonal[r] = a;
  }
  double error = 0, jacobi = 0;
  for (unsigned int r = 0; r < diagonal.size(); ++r)
  {
    error = max_keep_nan(
        error,
        std::abs(values.local_element(r) - diagonal[r] / squares[r]) *
            diagonal[r]);
    jacobi = max_keep_nan(jacobi,
                          std::abs(values.local_element(r) - 1. / diagonal[r]) *
                              diagonal[r]);
  }
  error  = max_over_ranks(error, MPI_COMM_WORLD);
  jacobi = max_over_ranks(jacobi, MPI_COMM_WORLD);
  deallog << "SPAI(0) of the level-2 matrix (2D Q2, ball): "
          << (error < 1e-12 ? "equals a_ii / sum_j a_ij^2" : "ERROR")
          << (jacobi > 1e-2 ? ", differs from Jacobi" : ", ERROR: Jacobi")
          << std::endl;
}

// SPAI(1) of a level matrix against a host reference: per row i, the
// least-squares problem min || e_i - sum_{j in J} m_j A_j ||_2 over the
// owned columns J of row i (A_j: row j of the owned block) by Householder
// QR of the dense block, then (M + M^T) / 2. Also checks that it beats
// Jacobi and SPAI(0) in || I - M A ||_F, its own measure. 3D Q2 (rows of
// up to 125 entries) takes the thread-block path.
template <int dim>
void
check_spai(const unsigned int degree, const bool ball, const unsigned int level)
{
  SmallMesh<dim>                 mesh(degree, ball);
  const auto                    &mapping     = mesh.mapping;
  const auto                    &dof_handler = mesh.dof_handler;
  GPU::SparseMatrixMultigridData data;
  data.precision = GPU::MultigridData::Precision::double_precision;
  GPU::SparseMatrixMultigrid<dim, 1, Operation> multigrid;
  multigrid.initialize(mapping, dof_handler, {0}, Operation{}, data);
  const auto &matrix =
      multigrid.template get_level_operator<double>(level).get_matrix();
  GPU::SparseApproximateInverse<double> spai;
  spai.reinit(matrix);

  // The owned block as maps of rows.
  const IndexSet owned = matrix.get_partitioner()->locally_owned_range();
  std::map<types::global_dof_index, std::map<types::global_dof_index, double>>
      rows;
  for (const auto &[i, j, a] : matrix.get_entries())
    if (owned.is_element(j))
      rows[i][j] = a;
  std::map<std::pair<types::global_dof_index, types::global_dof_index>, double>
      reference;
  for (const auto &[i, row] : rows)
  {
    std::vector<types::global_dof_index> J, columns;
    for (const auto &[j, a] : row)
      J.push_back(j);
    for (const auto j : J)
      for (const auto &[c, a] : rows[j])
        columns.push_back(c);
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    FullMatrix<double> B(columns.size(), J.size());
    ::Vector<double>   e(columns.size()), m(J.size());
    for (unsigned int c = 0; c < columns.size(); ++c)
    {
      e(c) = columns[c] == i ? 1. : 0.;
      for (unsigned int p = 0; p < J.size(); ++p)
      {
        const auto entry = rows[J[p]].find(columns[c]);
        B(c, p)          = entry != rows[J[p]].end() ? entry->second : 0.;
      }
    }
    Householder<double>(B).least_squares(m, e);
    for (unsigned int p = 0; p < J.size(); ++p)
    {
      reference[{i, J[p]}] += 0.5 * m(p);
      reference[{J[p], i}] += 0.5 * m(p);
    }
  }
  double error = 0, largest = 0;
  std::map<std::pair<types::global_dof_index, types::global_dof_index>, double>
      device;
  for (const auto &[i, j, v] : spai.get_entries())
    device[{i, j}] = v;
  for (const auto &[ij, v] : reference)
  {
    largest = max_keep_nan(largest, std::abs(v));
    error   = max_keep_nan(error, std::abs(v - device[ij]));
  }
  for (const auto &[ij, v] : device)
    if (reference.find(ij) == reference.end())
      error = max_keep_nan(error, std::abs(v));

  // || I - M A ||_F^2 for M = SPAI(1), SPAI(0) and Jacobi.
  const auto residual = [&](const auto &m_entries)
  {
    double sum = 0;
    for (const auto &[i, row] : rows)
    {
      std::map<types::global_dof_index, double> r;
      r[i] = 1.;
      for (const auto &[ij, mij] : m_entries)
        if (ij.first == i)
          for (const auto &[c, a] : rows[ij.second])
            r[c] -= mij * a;
      for (const auto &[c, v] : r)
        sum += v * v;
    }
    return sum;
  };
  std::map<std::pair<types::global_dof_index, types::global_dof_index>, double>
      jacobi, spai0;
  for (const auto &[i, row] : rows)
  {
    double squares = 0;
    for (const auto &[j, a] : row)
      squares += a * a;
    jacobi[{i, i}] = 1. / row.at(i);
    spai0[{i, i}]  = row.at(i) / squares;
  }
  const double r1 = residual(device), r0 = residual(spai0),
               rj = residual(jacobi);
  const bool better =
      Utilities::MPI::min(int(r1 < r0 && r0 < rj), MPI_COMM_WORLD) == 1;
  error   = max_over_ranks(error, MPI_COMM_WORLD);
  largest = Utilities::MPI::max(largest, MPI_COMM_WORLD);
  deallog << "SPAI of the level-" << level << " matrix (" << dim << "D Q"
          << degree << (ball ? ", ball" : ", cube")
          << "): against Householder least squares "
          << (error < 1e-10 * largest ? "equal" : "ERROR")
          << ", ||I - MA||_F below SPAI(0)'s, below Jacobi's: "
          << (better ? "yes" : "no") << std::endl;
  if (error >= 1e-10 * largest)
    deallog << "  error " << error << " of " << largest << std::endl;
}

// SPAI(1) with rows longer than it takes (3D Q3) and with the Chebyshev
// smoother is refused clearly.
template <int dim>
void
check_spai_refused(const unsigned int                 degree,
                   const GPU::MultigridData::Smoother smoother,
                   const std::string                 &expected)
{
  SmallMesh<dim>                 mesh(degree, false);
  const auto                    &mapping     = mesh.mapping;
  const auto                    &dof_handler = mesh.dof_handler;
  GPU::SparseMatrixMultigridData data;
  data.preconditioner =
      GPU::SparseMatrixMultigridData::SmootherPreconditioner::spai;
  data.smoother = smoother;
  GPU::SparseMatrixMultigrid<dim, 1, Operation> multigrid;
  try
  {
    multigrid.initialize(mapping, dof_handler, {}, Operation{}, data);
    deallog << dim << "D Q" << degree << " SPAI: ERROR, not refused"
            << std::endl;
  }
  catch (const ExceptionBase &e)
  {
    const std::string what = e.what();
    const auto        at   = what.find(expected);
    deallog << dim << "D Q" << degree << " SPAI refused: "
            << (at != std::string::npos
                    ? what.substr(at, what.find('\n', at) - at)
                    : "ERROR: " + what)
            << std::endl;
  }
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  check_transfer<2>(1, 3);
  check_transfer<2>(2, 3);
  check_transfer<3>(1, 2);
  check_transfer<3>(2, 2);
  check_spai0();
  check_counts<2>(1, 3);
  check_counts<2>(2, 2);
  check_counts<3>(1, 2);
  check_counts<3>(2, 1);
  // SPAI(0) in the smoothing steps, damped Jacobi smoothing, and the
  // level products through the ELLPACK-R and CSR kernels.
  GPU::SparseMatrixMultigridData data;
  data.preconditioner =
      GPU::SparseMatrixMultigridData::SmootherPreconditioner::spai0;
  check_counts<2>(2, 2, data, " SPAI(0) Chebyshev");
  data.smoother         = GPU::MultigridData::Smoother::jacobi;
  data.coarse_solver    = GPU::MultigridData::CoarseSolver::cg_jacobi;
  data.coarse_reduction = 1e-2;
  check_counts<3>(1, 2, data, " SPAI(0) Jacobi");
  data.preconditioner =
      GPU::SparseMatrixMultigridData::SmootherPreconditioner::jacobi;
  check_counts<3>(1, 2, data, " Jacobi");
  data.spmv = GPU::SparseMatrix<double>::SpMV::ellpack_r;
  check_counts<3>(1, 2, data, " Jacobi, ELLPACK-R");
  data.spmv = GPU::SparseMatrix<double>::SpMV::csr;
  check_counts<3>(1, 2, data, " Jacobi, CSR");
  solve<2, 2>(2, 5, false, true);
  solve<2, 2>(2, 3, true, true);
  // SPAI(1) with Geveler et al.'s Jacobi-type smoothing, uniform and
  // adaptive (edge rows as identity), and the direct coarse solve.
  check_spai<2>(1, true, 2);
  check_spai<2>(2, true, 2);
  check_spai<3>(2, false, 1);
  check_spai_refused<3>(
      3, GPU::MultigridData::Smoother::jacobi, "SparseApproximateInverse: ");
  check_spai_refused<2>(
      1, GPU::MultigridData::Smoother::chebyshev, "SparseMatrixMultigrid: ");
  data               = GPU::SparseMatrixMultigridData();
  data.smoother      = GPU::MultigridData::Smoother::jacobi;
  data.coarse_solver = GPU::MultigridData::CoarseSolver::cg_jacobi;
  data.preconditioner =
      GPU::SparseMatrixMultigridData::SmootherPreconditioner::spai;
  data.coarse_reduction = 1e-2;
  // In double: with SPAI(1) the residual at the step before or after the
  // last can be within 50 % of the tolerance, and a float V-cycle on the
  // GPU varies from run to run by more than that there (float rounding of
  // the atomically assembled levels, amplified in the late steps).
  data.precision = GPU::MultigridData::Precision::double_precision;
  check_counts<2>(1, 3, data, " SPAI Jacobi");
  check_counts<2>(2, 2, data, " SPAI Jacobi");
  check_counts<3>(1, 2, data, " SPAI Jacobi");
  // SPAI(1) of 3D Q2 costs minutes on the host backend: GPU machine only.
  FULL_TESTS_ONLY(check_counts<3>(2, 1, data, " SPAI Jacobi");)
  solve<2, 2>(2, 3, true, true, data);
  data               = GPU::SparseMatrixMultigridData();
  data.coarse_solver = GPU::MultigridData::CoarseSolver::direct;
  check_counts<2>(1, 3, data, " direct coarse");
}
