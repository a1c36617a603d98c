// deal.II's PreconditionChebyshev with a DiagonalMatrix on a kernel-based
// operator: its eigenvalue estimate is compared with the known spectrum of
// the 1D Laplacian, and one Chebyshev application must reduce the
// high-frequency error as the Chebyshev bound says.
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>

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
}
