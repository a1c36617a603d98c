// deal.II's SolverCG with a DiagonalMatrix on GPU::Vector runs the fused
// iteration of dealii-gpu/lac/solver_cg.h. Reference: deal.II's generic
// iteration on the same vectors, reached through a preconditioner type the
// fused one does not take (a wrapper of the same DiagonalMatrix). After 1,
// 2, 3, 8 and 25 iterations the solutions, the residual norms and the
// eigenvalue estimates (from alpha and beta, as PreconditionChebyshev uses
// them) must agree. The diagonal is not the operator's: random positive
// scalings of it, so that each entry's own value counts.
#include <dealii-gpu/lac/solver_cg.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/solver_control.h>

#include "../stencil_operator.h"
#include "../tests.h"

// The same preconditioner under another type: deal.II's generic iteration.
template <typename Number>
struct Wrapped
{
  const DiagonalMatrix<GPU::Vector<Number>> &diagonal;
  void vmult(GPU::Vector<Number> &dst, const GPU::Vector<Number> &src) const
  {
    diagonal.vmult(dst, src);
  }
};

template <typename Number, typename Preconditioner>
double
solve(const Stencil::LaplaceOperator<Number> &A,
      const Preconditioner                   &preconditioner,
      const GPU::Vector<Number>              &f,
      const unsigned int                      iterations,
      GPU::Vector<Number>                    &u,
      double                                 &largest_eigenvalue)
{
  A.initialize_dof_vector(u);
  IterationNumberControl control(iterations, 1e-300);
  control.log_history(false);
  control.log_result(false);
  SolverCG<GPU::Vector<Number>> cg(control);
  largest_eigenvalue = 0;
  cg.connect_eigenvalues_slot(
      [&](const std::vector<double> &eigenvalues)
      {
        if (!eigenvalues.empty())
          largest_eigenvalue = eigenvalues.back();
      });
  cg.solve(A, u, f, preconditioner);
  return control.last_value();
}

template <typename Number>
void
run(const unsigned int n, const double tolerance)
{
  Stencil::LaplaceOperator<Number> A(n);
  GPU::Vector<Number>              f, u_fused, u_generic;
  A.initialize_dof_vector(f);
  DiagonalMatrix<GPU::Vector<Number>> jacobi;
  A.initialize_dof_vector(jacobi.get_vector());
  {
    // Host values by global index, so that any rank split gives one
    // problem.
    LinearAlgebra::distributed::Vector<Number> host_f(f.get_partitioner()),
        host_d(f.get_partitioner());
    std::uint64_t state = 7;
    for (unsigned int i = 0; i < n; ++i)
    {
      const double fi = random_value(state) - 0.3;
      const double di = (0.5 + random_value(state)) / A.diagonal_entry();
      if (host_f.in_local_range(i))
      {
        host_f(i) = fi;
        host_d(i) = di;
      }
    }
    f.copy_locally_owned_data_from(host_f);
    jacobi.get_vector().copy_locally_owned_data_from(host_d);
  }
  const Wrapped<Number> generic{jacobi};
  for (const unsigned int iterations : {1u, 2u, 3u, 8u, 25u})
  {
    double       lambda_fused, lambda_generic;
    const double r_fused =
        solve(A, jacobi, f, iterations, u_fused, lambda_fused);
    const double r_generic =
        solve(A, generic, f, iterations, u_generic, lambda_generic);
    const double size = max_norm(u_generic);
    u_fused -= u_generic;
    const double u_error = max_norm(u_fused) / size;
    const double r_error = std::abs(r_fused - r_generic) / r_generic;
    const double lambda_error =
        iterations > 1
            ? std::abs(lambda_fused - lambda_generic) / lambda_generic
            : 0.;
    deallog << (sizeof(Number) == 8 ? "double" : "float") << " n=" << n << ", "
            << iterations << " iterations: solution "
            << (u_error <= tolerance ? "agrees" : "DIFFERS") << ", |r| "
            << (r_error <= tolerance ? "agrees" : "DIFFERS")
            << ", largest eigenvalue "
            << (lambda_error <= tolerance ? "agrees" : "DIFFERS") << std::endl;
    if (u_error > tolerance || r_error > tolerance || lambda_error > tolerance)
      deallog << "  errors " << u_error << ' ' << r_error << ' ' << lambda_error
              << std::endl;
  }
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  run<double>(1000, 1e-10);
  run<float>(200, 2e-4);
  // Half the solves above took the fused iteration.
  deallog << "fused iterations: " << GPU::internal::n_fused_cg_iterations()
          << " (expected " << 2 * (1 + 2 + 3 + 8 + 25) << ")" << std::endl;
}
