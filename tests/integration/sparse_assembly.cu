// GPU::ElementIntegrator::assemble() into a GPU::SparseMatrix against
// deal.II's assembly of the same bilinear form (FEValues, written out
// separately) with AffineConstraints::distribute_local_to_global() into a
// TrilinosWrappers::SparseMatrix: adaptively refined ball meshes (hanging
// nodes on faces and, in 3D, edges), zero Dirichlet values, distributed over
// the ranks; the right-hand side of a load (f, v) + (h, grad v) with
// nonzero Dirichlet values (assemble() with a source: the inhomogeneity
// terms), and alone (assemble_rhs()). Then GPU::SparseMatrix itself against the
// Trilinos matrix: vmult with each SpMV kernel, Tvmult of a non-symmetric
// matrix, copy_from a Trilinos matrix, and CG with Jacobi on both (same
// iteration counts).
#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/function_lib.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/trilinos_precondition.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>
#include <deal.II/lac/trilinos_sparsity_pattern.h>
#include <deal.II/numerics/vector_tools.h>

#include "../meshes.h"
#include "../tests.h"
#include "loads.h"
#include <cmath>
#include <string>

template <int dim>
double
ball(const Point<dim> &x)
{
  return 1. / (0.05 + 2. * x.norm_square());
}

using HostVector = LinearAlgebra::distributed::Vector<double>;

// max |ours - reference| / max |reference| over our entries, and whether
// the reference has weight outside our pattern.
void
compare(const std::string                    &name,
        const GPU::SparseMatrix<double>      &ours,
        const TrilinosWrappers::SparseMatrix &reference)
{
  double max_error = 0, max_entry = 0, covered = 0, total = 0;
  for (const auto &[i, j, v] : ours.get_entries())
  {
    const double r = reference.el(i, j);
    max_error      = max_keep_nan(max_error, std::abs(v - r));
    max_entry      = max_keep_nan(max_entry, std::abs(r));
    covered += r * r;
  }
  for (const auto row : reference.locally_owned_range_indices())
    for (auto it = reference.begin(row); it != reference.end(row); ++it)
      total += it->value() * it->value();
  max_error             = max_over_ranks(max_error, MPI_COMM_WORLD);
  max_entry             = Utilities::MPI::max(max_entry, MPI_COMM_WORLD);
  covered               = Utilities::MPI::sum(covered, MPI_COMM_WORLD);
  total                 = Utilities::MPI::sum(total, MPI_COMM_WORLD);
  const double relative = max_error / max_entry;
  const double outside  = std::abs(total - covered) / total;
  // The same sparsity pattern: as many entries as deal.II's.
  const double entries =
      Utilities::MPI::sum(double(ours.n_nonzero_elements()), MPI_COMM_WORLD);
  const bool same_pattern = entries == double(reference.n_nonzero_elements());
  deallog << name << ": " << ours.m() << " rows, "
          << (relative < 1e-12 && outside < 1e-12 && same_pattern
                  ? "OK"
                  : "ERROR " + std::to_string(relative) + " outside " +
                        std::to_string(outside) + " entries " +
                        std::to_string(entries))
          << std::endl;
}

// max |ours - reference| / max |reference| over the owned entries.
void
compare_vectors(const std::string         &name,
                const GPU::Vector<double> &ours,
                const HostVector          &reference)
{
  HostVector copy(reference.get_partitioner());
  ours.copy_locally_owned_data_to(copy);
  copy -= reference;
  const double relative = max_norm(copy) / max_norm(reference);
  deallog << name << ": "
          << (relative < 1e-12 ? "OK" : "ERROR " + std::to_string(relative))
          << std::endl;
}

// GPU::SparseMatrix's products against the Trilinos matrix's.
void
products(const std::string                    &name,
         GPU::SparseMatrix<double>            &ours,
         const TrilinosWrappers::SparseMatrix &reference,
         const bool                            transpose)
{
  const auto owned = reference.locally_owned_range_indices();
  HostVector x(owned, MPI_COMM_WORLD), y(owned, MPI_COMM_WORLD),
      z(owned, MPI_COMM_WORLD);
  std::uint64_t state = 17 + owned.nth_index_in_set(0);
  for (auto &v : x)
    v = random_value(state) - 0.5;
  GPU::Vector<double> gx, gy;
  ours.initialize_dof_vector(gx);
  ours.initialize_dof_vector(gy);
  gx.copy_locally_owned_data_from(x);
  reference.vmult(y, x);
  std::string result;
  for (const auto spmv : {GPU::SparseMatrix<double>::SpMV::automatic,
                          GPU::SparseMatrix<double>::SpMV::csr,
                          GPU::SparseMatrix<double>::SpMV::ellpack_r})
  {
    ours.set_spmv(spmv);
    gy = 1.;
    ours.vmult(gy, gx);
    gy.copy_locally_owned_data_to(z);
    z -= y;
    const double error = max_norm(z) / max_norm(y);
    result += error < 1e-13 ? " OK" : " ERROR " + std::to_string(error);
    ours.vmult_add(gy, gx);
    gy.copy_locally_owned_data_to(z);
    z.add(-2., y);
    const double error_add = max_norm(z) / max_norm(y);
    result += error_add < 1e-13 ? "" : " (vmult_add ERROR)";
  }
  ours.set_spmv(GPU::SparseMatrix<double>::SpMV::automatic);
  deallog << name << " vmult automatic, csr, ellpack-r:" << result << std::endl;
  if (transpose)
  {
    reference.Tvmult(y, x);
    ours.Tvmult(gy, gx);
    gy.copy_locally_owned_data_to(z);
    z -= y;
    const double error = max_norm(z) / max_norm(y);
    deallog << name << " Tvmult: "
            << (error < 1e-13 ? "OK" : "ERROR " + std::to_string(error))
            << std::endl;
  }
}

template <int dim, int n_comp, typename Operation, typename Form>
void
run(const std::string &name,
    const unsigned int degree,
    const Operation   &operation,
    const Form        &form,
    const bool         symmetric)
{
  parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
  make_mesh(tria, true, dim == 2 ? 2 : 1);
  refine_shell(tria, 0.3, 0.6);
  MappingQ<dim>   mapping(2);
  FESystem<dim>   fe(FE_Q<dim>(degree), n_comp);
  DoFHandler<dim> dof(tria);
  dof.distribute_dofs(fe);
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof, relevant);
  AffineConstraints<double> constraints(relevant);
  DoFTools::make_hanging_node_constraints(dof, constraints);
  VectorTools::interpolate_boundary_values(
      mapping, dof, 0, Functions::CosineFunction<dim>(n_comp), constraints);
  constraints.close();
  const QGauss<dim> quadrature(degree + 1);

  // deal.II's assembly.
  TrilinosWrappers::SparsityPattern pattern(dof.locally_owned_dofs(),
                                            MPI_COMM_WORLD);
  DoFTools::make_sparsity_pattern(
      dof,
      pattern,
      constraints,
      false,
      Utilities::MPI::this_mpi_process(MPI_COMM_WORLD));
  pattern.compress();
  TrilinosWrappers::SparseMatrix reference(pattern);
  const auto                     owned = dof.locally_owned_dofs();
  HostVector                     rhs_reference(owned, relevant, MPI_COMM_WORLD),
      load_reference(owned, relevant, MPI_COMM_WORLD);
  Vector<double>                       cell_rhs(fe.n_dofs_per_cell());
  FEValues<dim>                        fe_values(mapping,
                          fe,
                          quadrature,
                          update_values | update_gradients |
                              update_quadrature_points | update_JxW_values);
  const unsigned int                   n = fe.n_dofs_per_cell();
  FullMatrix<double>                   cell_matrix(n, n);
  std::vector<types::global_dof_index> indices(n);
  for (const auto &cell : dof.active_cell_iterators())
    if (cell->is_locally_owned())
    {
      fe_values.reinit(cell);
      cell_matrix = 0;
      cell_rhs    = 0;
      for (unsigned int q = 0; q < quadrature.size(); ++q)
        for (unsigned int i = 0; i < n; ++i)
        {
          cell_rhs(i) += load_entry(fe_values, q, i);
          for (unsigned int j = 0; j < n; ++j)
            cell_matrix(i, j) += form(fe_values, q, i, j) * fe_values.JxW(q);
        }
      cell->get_dof_indices(indices);
      constraints.distribute_local_to_global(
          cell_matrix, cell_rhs, indices, reference, rhs_reference);
      constraints.distribute_local_to_global(cell_rhs, indices, load_reference);
    }
  reference.compress(VectorOperation::add);
  rhs_reference.compress(VectorOperation::add);
  load_reference.compress(VectorOperation::add);

  // Ours.
  GPU::ElementIntegrator<dim, n_comp>                          integrator;
  typename GPU::ElementIntegrator<dim, n_comp>::AdditionalData data;
  data.cells_per_batch = 11;
  integrator.reinit(mapping, dof, quadrature, data);
  GPU::SparseMatrix<double> matrix;
  integrator.initialize_matrix(constraints, matrix);
  integrator.assemble(operation, matrix);
  compare(name + " assembled", matrix, reference);
  // Assembling again gives the same matrix (it is zeroed first).
  integrator.assemble(operation, matrix);
  compare(name + " assembled twice", matrix, reference);
  {
    // The system: the matrix again and the right-hand side with the
    // inhomogeneity terms; then the load alone.
    GPU::Vector<double> rhs;
    integrator.assemble(operation, LoadOfX<n_comp>{}, matrix, rhs);
    compare(name + " assembled with the right-hand side", matrix, reference);
    compare_vectors(
        name + " right-hand side (Dirichlet values)", rhs, rhs_reference);
    integrator.assemble_rhs(LoadOfX<n_comp>{}, rhs);
    compare_vectors(name + " assemble_rhs", rhs, load_reference);
  }
  products(name, matrix, reference, !symmetric);

  GPU::SparseMatrix<double> copy;
  copy.copy_from(reference);
  compare(name + " copy_from(Trilinos)", copy, reference);

  TrilinosWrappers::SparseMatrix back;
  matrix.copy_to(back);
  GPU::SparseMatrix<double> round_trip;
  round_trip.copy_from(back);
  compare(name + " copy_to(Trilinos)", round_trip, reference);

  if (symmetric)
  {
    // CG with Jacobi on both: the same iterations.
    HostVector b(owned, MPI_COMM_WORLD), x(owned, MPI_COMM_WORLD);
    for (const auto i : owned)
      b(i) = constraints.is_constrained(i) ? 0. : 1.;
    SolverControl                        control_ref(500, 1e-10 * b.l2_norm());
    SolverCG<HostVector>                 cg_ref(control_ref);
    TrilinosWrappers::PreconditionJacobi jacobi_ref;
    jacobi_ref.initialize(reference);
    // The solvers' residuals differ in the last digits: not logged.
    const unsigned int depth = deallog.depth_file(1);
    cg_ref.solve(reference, x, b, jacobi_ref);

    GPU::Vector<double> gb, gx;
    matrix.initialize_dof_vector(gb);
    matrix.initialize_dof_vector(gx);
    gb.copy_locally_owned_data_from(b);
    DiagonalMatrix<GPU::Vector<double>> jacobi;
    matrix.compute_diagonal(jacobi.get_vector());
    {
      HostVector diagonal(owned, MPI_COMM_WORLD);
      jacobi.get_vector().copy_locally_owned_data_to(diagonal);
      for (auto &v : diagonal)
        v = 1. / v;
      jacobi.get_vector().copy_locally_owned_data_from(diagonal);
    }
    SolverControl                 control(500, 1e-10 * b.l2_norm());
    SolverCG<GPU::Vector<double>> cg(control);
    cg.solve(matrix, gx, gb, jacobi);
    deallog.depth_file(depth);
    HostVector solution(owned, MPI_COMM_WORLD);
    gx.copy_locally_owned_data_to(solution);
    solution -= x;
    // Within one: the counts can flip with the order of the roundings in
    // the element matrices (host loops, tensor cores, FEValues).
    const int difference =
        int(control.last_step()) - int(control_ref.last_step());
    deallog << name << " CG + Jacobi: iterations "
            << (std::abs(difference) <= 1
                    ? std::string("as deal.II's on Trilinos (within one)")
                    : std::to_string(control.last_step()) +
                          ", deal.II's on Trilinos " +
                          std::to_string(control_ref.last_step()))
            << ", solutions "
            << (max_norm(solution) < 1e-8 * max_norm(x) ? "agree" : "DIFFER")
            << std::endl;
  }
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  run<2, 1>(
      "2d Q2 Laplace a(x)",
      2,
      GPU::LaplaceOperation<BallOfX>{BallOfX{}},
      [](const FEValues<2> &v, unsigned q, unsigned i, unsigned j)
      {
        return ball(v.quadrature_point(q)) * v.shape_grad(i, q) *
               v.shape_grad(j, q);
      },
      true);
  // More DoFs a cell than a warp: hanging-node cells are condensed.
  run<2, 1>(
      "2d Q5 Laplace a(x)",
      5,
      GPU::LaplaceOperation<BallOfX>{BallOfX{}},
      [](const FEValues<2> &v, unsigned q, unsigned i, unsigned j)
      {
        return ball(v.quadrature_point(q)) * v.shape_grad(i, q) *
               v.shape_grad(j, q);
      },
      true);
  {
    Tensor<1, 2> b;
    b[0]     = 3.;
    b[1]     = -1.;
    using CD = GPU::ConvectionDiffusionOperation<GPU::Constant<double>,
                                                 GPU::Constant<Tensor<1, 2>>,
                                                 GPU::Constant<double>>;
    run<2, 1>(
        "2d Q1 convection-diffusion",
        1,
        CD{{1.}, {b}, {0.}},
        [b](const FEValues<2> &v, unsigned q, unsigned i, unsigned j)
        {
          return v.shape_grad(i, q) * v.shape_grad(j, q) +
                 (b * v.shape_grad(j, q)) * v.shape_value(i, q);
        },
        false);
  }
  run<3, 1>(
      "3d Q2 Helmholtz a(x), c = 1",
      2,
      GPU::HelmholtzOperation<BallOfX, GPU::Constant<double>>{BallOfX{}, {1.}},
      [](const FEValues<3> &v, unsigned q, unsigned i, unsigned j)
      {
        return ball(v.quadrature_point(q)) * v.shape_grad(i, q) *
                   v.shape_grad(j, q) +
               v.shape_value(i, q) * v.shape_value(j, q);
      },
      true);
  {
    const FEValuesExtractors::Vector u(0);
    run<3, 3>(
        "3d Q1^3 elasticity",
        1,
        GPU::ElasticityOperation<>{{2.}, {1.}},
        [u](const FEValues<3> &v, unsigned q, unsigned i, unsigned j)
        {
          return 2. * scalar_product(v[u].symmetric_gradient(j, q),
                                     v[u].symmetric_gradient(i, q)) +
                 2. * v[u].divergence(j, q) * v[u].divergence(i, q);
        },
        true);
  }
}
