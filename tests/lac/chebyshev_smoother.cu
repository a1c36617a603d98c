// deal.II's PreconditionChebyshev with a DiagonalMatrix on a kernel-based
// operator: its eigenvalue estimate is compared with the known spectrum of
// the 1D Laplacian, and one Chebyshev application must reduce the
// high-frequency error as the Chebyshev bound says. With the 10 Lanczos
// steps of a multigrid smoother, the estimate on GPU::Vector must equal
// deal.II's on its own Vector (the same start vector: deal.II's generic
// one, a constant, misses the top of the spectrum on large meshes).
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/sparse_matrix.h>
#include <deal.II/lac/sparsity_pattern.h>
#include <deal.II/lac/vector.h>

#include "../stencil_operator.h"
#include "../tests.h"

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;

  using VectorType                   = GPU::Vector<double>;
  const unsigned int               n = 200;
  Stencil::LaplaceOperator<double> A(n);
  using Chebyshev = PreconditionChebyshev<Stencil::LaplaceOperator<double>,
                                          VectorType,
                                          DiagonalMatrix<VectorType>>;
  Chebyshev::AdditionalData data;
  data.degree              = 4;
  data.smoothing_range     = 20.;
  data.eig_cg_n_iterations = n;
  data.preconditioner      = std::make_shared<DiagonalMatrix<VectorType>>();
  A.compute_inverse_diagonal(data.preconditioner->get_vector());

  Chebyshev chebyshev;
  chebyshev.initialize(A, data);

  VectorType rhs, u;
  A.initialize_dof_vector(rhs);
  A.initialize_dof_vector(u);
  rhs             = 0.;
  const auto info = chebyshev.estimate_eigenvalues(rhs);

  // Jacobi-preconditioned spectrum: 1 - cos(k pi / (n + 1)), k = 1..n.
  // deal.II reports the estimate times its safety factor 1.2.
  const double lambda_max = 1. - std::cos(n * numbers::PI / (n + 1));
  deallog << "largest eigenvalue estimate / 1.2: "
          << info.max_eigenvalue_estimate / 1.2 << " exact " << lambda_max
          << " rel. difference below 1e-3: "
          << (relative_difference(info.max_eigenvalue_estimate / 1.2,
                                  lambda_max) < 1e-3
                  ? "yes"
                  : "no")
          << std::endl;

  // Error e = highest mode; Chebyshev smoothing of A u = 0 from u = e must
  // damp it at least by the Chebyshev bound 2 s^k / (1 + s^2k) with
  // s = (sqrt(20) - 1) / (sqrt(20) + 1), k = 4: about 0.32.
  std::vector<double>                        mode(n);
  LinearAlgebra::distributed::Vector<double> host(A.partitioner);
  for (const auto i : host.locally_owned_elements())
    host(i) =
        std::sin(i * numbers::PI * n / (n + 1) + numbers::PI * n / (n + 1));
  u.copy_locally_owned_data_from(host);
  const double before = u.l2_norm();
  VectorType   smoothed;
  smoothed.reinit(u);
  VectorType residual;
  residual.reinit(u);
  A.vmult(residual, u);
  residual *= -1.;
  chebyshev.vmult(smoothed, residual);
  u += smoothed;
  const double reduction = u.l2_norm() / before;
  const double sigma     = (std::sqrt(20.) - 1) / (std::sqrt(20.) + 1);
  const double bound     = 2 * std::pow(sigma, 4) / (1 + std::pow(sigma, 8));
  deallog << "high-frequency error reduced within the Chebyshev bound " << bound
          << ": " << (reduction <= bound ? "yes" : "no") << std::endl;
  deallog << "reduction factor (rounded) " << std::setprecision(1) << reduction
          << std::endl;

  // Ten Lanczos steps on a longer line, against deal.II's Vector and
  // SparseMatrix of the same tridiagonal matrix.
  {
    const unsigned int               n_long = 5000;
    Stencil::LaplaceOperator<double> B(n_long);
    Chebyshev::AdditionalData        short_data = data;
    short_data.eig_cg_n_iterations              = 10;
    short_data.preconditioner = std::make_shared<DiagonalMatrix<VectorType>>();
    B.compute_inverse_diagonal(short_data.preconditioner->get_vector());
    Chebyshev short_chebyshev;
    short_chebyshev.initialize(B, short_data);
    VectorType zero;
    B.initialize_dof_vector(zero);
    const double gpu_estimate =
        short_chebyshev.estimate_eigenvalues(zero).max_eigenvalue_estimate;

    DynamicSparsityPattern dsp(n_long, n_long);
    for (unsigned int i = 0; i < n_long; ++i)
      for (unsigned int j = (i > 0 ? i - 1 : 0); j < std::min(i + 2, n_long);
           ++j)
        dsp.add(i, j);
    SparsityPattern pattern;
    pattern.copy_from(dsp);
    SparseMatrix<double> matrix(pattern);
    for (unsigned int i = 0; i < n_long; ++i)
    {
      matrix.set(i, i, 2.);
      if (i > 0)
        matrix.set(i, i - 1, -1.);
      if (i + 1 < n_long)
        matrix.set(i, i + 1, -1.);
    }
    using HostChebyshev =
        PreconditionChebyshev<SparseMatrix<double>,
                              dealii::Vector<double>,
                              DiagonalMatrix<dealii::Vector<double>>>;
    HostChebyshev::AdditionalData host_data;
    host_data.degree              = 4;
    host_data.smoothing_range     = 20.;
    host_data.eig_cg_n_iterations = 10;
    host_data.preconditioner =
        std::make_shared<DiagonalMatrix<dealii::Vector<double>>>();
    host_data.preconditioner->get_vector().reinit(n_long);
    host_data.preconditioner->get_vector() = 0.5;
    HostChebyshev host_chebyshev;
    host_chebyshev.initialize(matrix, host_data);
    dealii::Vector<double> host_zero(n_long);
    const double           host_estimate =
        host_chebyshev.estimate_eigenvalues(host_zero).max_eigenvalue_estimate;
    deallog << std::setprecision(6)
            << "10-step estimate equals deal.II's on its Vector (1e-6): "
            << (relative_difference(gpu_estimate, host_estimate) < 1e-6 ? "yes"
                                                                        : "no")
            << ", at least 0.95 of the exact "
            << (host_estimate / 1.2 >=
                        0.95 *
                            (1. - std::cos(n_long * numbers::PI / (n_long + 1)))
                    ? "yes"
                    : "no")
            << std::endl;
  }
}
