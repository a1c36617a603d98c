// CG with GPU::MultigridPreconditioner (GPU::LaplaceOperator on every
// level, GPU::MGTransferMatrixFree, Chebyshev smoothing) on p4est meshes,
// uniformly refined and adaptively refined (two nested regions refined
// once more: hanging nodes on faces and, in 3D, on edges; local smoothing
// with refinement-edge DoFs and interface matrices): iteration counts for
// a 1e-8 residual reduction must stay flat as the mesh is refined, in the
// float V-cycle and the double one; the residual is checked with the
// double operator and, on the cube, the L2 error against the exact
// solution must fall at the rate h^(k+1) (uniform) or at least fall
// (adaptive).
#include "../poisson_problem.h"
#include "../tests.h"
#include <iomanip>
#include <sstream>

template <int dim, int degree, typename LevelNumber>
void
run(const bool         ball,
    const unsigned int min_ref,
    const unsigned int max_ref,
    const bool         adaptive = false)
{
  GPU::MultigridData data;
  if (std::is_same_v<LevelNumber, double>)
    data.precision = GPU::MultigridData::Precision::double_precision;
  std::vector<unsigned int> iterations;
  double                    last_error = 0;
  for (unsigned int r = min_ref; r <= max_ref; ++r)
  {
    parallel::distributed::Triangulation<dim> tria(
        MPI_COMM_WORLD,
        Triangulation<dim>::limit_level_difference_at_vertices,
        parallel::distributed::Triangulation<
            dim>::construct_multigrid_hierarchy);
    make_mesh(tria, ball, r);
    if (adaptive)
    {
      refine_shell(tria, 0., 0.5);
      refine_shell(tria, 0., 0.3);
    }
    const Poisson::Result result =
        Poisson::solve<dim, degree>(tria, ball, 1e-8, data);
    iterations.push_back(result.iterations);
    deallog << dim << "D Q" << degree << (ball ? " ball" : " cube")
            << (adaptive ? " adaptive" : "") << " V-cycle in "
            << (sizeof(LevelNumber) == 4 ? "float" : "double") << ": "
            << result.n_dofs << " DoFs, " << result.n_levels << " levels, "
            << (tria.has_hanging_nodes() ? "hanging nodes, " : "")
            << (result.level_geometry == "tensor"
                    ? "a merged with the level geometry, "
                    : "")
            << result.iterations << " CG iterations, residual below 1e-8: "
            << (result.residual < 1e-8 ? "yes" : "no");
    if (!ball)
    {
      // Rate of the L2 error from the previous mesh (h halved).
      // Four digits: the last ones depend on the order of the sums.
      std::ostringstream error;
      error << std::setprecision(4) << result.l2_error;
      deallog << ", L2 error " << error.str();
      if (last_error > 0 && adaptive)
        deallog << ", falls: " << (result.l2_error < last_error ? "yes" : "no");
      else if (last_error > 0)
        deallog << ", rate at least " << degree + 0.5 << ": "
                << (std::log2(last_error / result.l2_error) >= degree + 0.5
                        ? "yes"
                        : "no");
      last_error = result.l2_error;
    }
    deallog << std::endl;
  }
  const auto [low, high] =
      std::minmax_element(iterations.begin(), iterations.end());
  deallog << "iterations within 2 of each other: "
          << (*high - *low <= 2 ? "yes" : "no") << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  run<3, 2, float>(false, 2, 4);
  FULL_TESTS_ONLY(run<3, 2, double>(false, 2, 4));
  run<3, 2, float>(true, 1, 3);
  FULL_TESTS_ONLY(run<2, 3, float>(false, 2, 5));
  run<2, 3, float>(true, 2, 5);
  run<3, 2, float>(false, 2, 4, true);
  FULL_TESTS_ONLY(run<3, 2, double>(false, 2, 4, true));
  run<3, 2, float>(true, 1, 3, true);
  FULL_TESTS_ONLY(run<2, 3, float>(false, 2, 5, true));
  FULL_TESTS_ONLY(run<2, 3, float>(true, 2, 5, true));
}
