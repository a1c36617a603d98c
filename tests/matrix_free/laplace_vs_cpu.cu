// GPU::MatrixFree against deal.II's CPU MatrixFree on uniformly refined
// p4est meshes (cube, and the ball with MappingQ), 2D and 3D, degrees 1-8,
// scalar and vector-valued, atomics and coloring, double and float.
#include "../meshes.h"
#include "compare_with_cpu.h"

using Geometry = GPU::GeometryStorage;

template <int dim,
          int degree,
          int n_comp,
          typename Number,
          Cell cell = Cell::laplace>
void
test(const bool             ball,
     const bool             coloring,
     const unsigned int     refinements,
     const Geometry         geometry = Geometry::jacobians,
     const bool             overlap  = true,
     const GPU::CellThreads threads  = GPU::CellThreads::automatic,
     const Renumbering      renumber = Renumbering::none)
{
  parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
  make_mesh(tria, ball, refinements);
  const unsigned int mapping_degree =
      ball ? std::max(2, std::min(degree, 4)) : 1;
  compare_with_cpu<dim, degree, n_comp, Number, cell>(tria,
                                                      ball ? "ball" : "cube",
                                                      mapping_degree,
                                                      coloring,
                                                      geometry,
                                                      overlap,
                                                      threads,
                                                      renumber);
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  test<2, 1, 1, double>(false, false, 4);
  test<2, 2, 1, double>(true, false, 3);
  FULL_TESTS_ONLY(test<2, 3, 1, double>(true, true, 3));
  FULL_TESTS_ONLY(test<2, 4, 2, double>(true, false, 2));
  FULL_TESTS_ONLY(test<2, 5, 1, float>(true, false, 2));
  test<3, 1, 1, double>(true, false, 2);
  test<3, 2, 1, double>(true, true, 1);
  FULL_TESTS_ONLY(test<3, 3, 3, double>(true, false, 1));
  FULL_TESTS_ONLY(test<3, 4, 1, double>(true, false, 1));
  test<3, 2, 1, float>(false, false, 2);
  FULL_TESTS_ONLY(test<2, 6, 1, double>(true, false, 1));
  FULL_TESTS_ONLY(test<2, 8, 1, double>(false, true, 1));
  FULL_TESTS_ONLY(test<3, 6, 1, double>(false, false, 1));
  FULL_TESTS_ONLY(test<3, 7, 1, float>(true, false, 0));
  FULL_TESTS_ONLY(test<3, 8, 1, double>(true, false, 0));
  // Geometry from the quadrature points (Jacobians computed in the
  // kernel), and cell loops without overlap of communication and
  // computation.
  test<2, 2, 1, double>(true, false, 3, Geometry::points);
  FULL_TESTS_ONLY(test<2, 3, 2, float>(true, true, 2, Geometry::points, false));
  FULL_TESTS_ONLY(test<2, 8, 1, double>(false, true, 1, Geometry::points));
  test<3, 1, 1, double>(false, false, 2, Geometry::points);
  FULL_TESTS_ONLY(test<3, 2, 1, float>(true, false, 2, Geometry::points));
  FULL_TESTS_ONLY(
      test<3, 3, 3, double>(true, true, 1, Geometry::points, false));
  FULL_TESTS_ONLY(test<3, 4, 1, double>(true, false, 1, Geometry::points));
  FULL_TESTS_ONLY(
      test<3, 6, 1, double>(false, false, 1, Geometry::jacobians, false));
  FULL_TESTS_ONLY(test<3, 7, 1, float>(true, false, 0, Geometry::points));
  // The mapping as a field at the support points, interpolated in the
  // kernel (MappingQ(p) into FE_Q(k) with p < k for Q3 and Q6).
  FULL_TESTS_ONLY(
      test<2, 2, 1, double, Cell::function>(true, false, 3, Geometry::field));
  FULL_TESTS_ONLY(test<2, 3, 2, float, Cell::function>(
      true, true, 2, Geometry::field, false));
  test<3, 1, 1, double, Cell::function>(false, false, 2, Geometry::field);
  test<3, 2, 1, double, Cell::function>(true, false, 2, Geometry::field);
  FULL_TESTS_ONLY(
      test<3, 3, 3, double, Cell::function>(true, true, 1, Geometry::field));
  FULL_TESTS_ONLY(
      test<3, 4, 1, float, Cell::function>(true, false, 1, Geometry::field));
  FULL_TESTS_ONLY(
      test<3, 6, 1, double, Cell::function>(true, false, 0, Geometry::field));
  // The merged diffusion tensor (LaplaceTensorCell) after
  // release_geometry(), against the CPU operator without the mass term.
  FULL_TESTS_ONLY(test<2, 2, 1, double, Cell::tensor>(true, false, 3));
  FULL_TESTS_ONLY(test<3, 1, 1, double, Cell::tensor>(true, false, 2));
  test<3, 2, 1, double, Cell::tensor>(true, true, 1);
  FULL_TESTS_ONLY(test<3, 3, 3, double, Cell::tensor>(
      true, false, 1, Geometry::jacobians, false));
  FULL_TESTS_ONLY(test<3, 4, 1, float, Cell::tensor>(true, false, 1));
  // CUDA thread layouts other than the automatic one (which takes one
  // thread per cell for 3D scalar cells with the mapping field at Q1 and
  // Q2 or the points at Q1). The host runs each cell in one thread
  // whatever the layout.
  using Threads = GPU::CellThreads;
  test<3, 2, 1, double>(
      true, false, 1, Geometry::jacobians, true, Threads::per_quadrature_point);
  test<3, 1, 1, double>(
      false, true, 2, Geometry::points, true, Threads::per_quadrature_point);
  FULL_TESTS_ONLY(
      test<3, 2, 1, double, Cell::tensor>(true,
                                          false,
                                          1,
                                          Geometry::jacobians,
                                          true,
                                          Threads::per_quadrature_point));
  // One thread per cell (compiled for scalar 3D cells of at most 27
  // points with the Jacobians computed in the kernel).
  FULL_TESTS_ONLY(test<3, 2, 1, float, Cell::function>(
      true, true, 2, Geometry::field, true, Threads::per_cell));
  test<3, 1, 1, double, Cell::function>(
      false, false, 2, Geometry::field, false, Threads::per_cell);
  test<3, 2, 1, double>(
      true, false, 1, Geometry::points, true, Threads::per_cell);
  // DoFs renumbered for the cell loop's reads
  // (GPU::DoFRenumbering::matrix_free_data_locality).
  const auto locality = Renumbering::data_locality;
  test<3, 2, 1, double, Cell::function>(
      true, false, 2, Geometry::field, true, Threads::per_cell, locality);
  FULL_TESTS_ONLY(test<3, 2, 1, double, Cell::tensor>(
      true, false, 1, Geometry::jacobians, true, Threads::automatic, locality));
  test<3, 1, 1, double>(
      false, true, 2, Geometry::points, false, Threads::per_cell, locality);
  FULL_TESTS_ONLY(test<2, 3, 1, double>(
      true, false, 2, Geometry::jacobians, true, Threads::automatic, locality));
  // DoFs numbered lexicographically in blocks
  // (GPU::DoFRenumbering::block_lexicographic): the cells of whole blocks
  // get their DoF indices computed (not with coloring).
  const auto coarse = Renumbering::coarse_blocks;
  FULL_TESTS_ONLY(const auto level1 = Renumbering::level_1_blocks);
  test<3, 1, 1, double, Cell::function>(
      false, false, 3, Geometry::field, true, Threads::automatic, coarse);
  FULL_TESTS_ONLY(test<3, 2, 1, double, Cell::function>(
      true, false, 2, Geometry::field, false, Threads::automatic, coarse));
  FULL_TESTS_ONLY(test<3, 3, 1, double>(
      false, false, 3, Geometry::jacobians, true, Threads::automatic, level1));
  FULL_TESTS_ONLY(test<3, 2, 1, float>(
      true, false, 2, Geometry::points, true, Threads::per_cell, coarse));
  test<2, 2, 1, double>(
      true, false, 3, Geometry::points, true, Threads::automatic, coarse);
  FULL_TESTS_ONLY(test<2, 4, 1, double>(
      false, false, 3, Geometry::jacobians, false, Threads::automatic, level1));
  test<3, 1, 1, double>(
      true, true, 2, Geometry::jacobians, true, Threads::automatic, coarse);
}
