// GPU::MatrixFree with hanging nodes resolved in the cell kernel against
// deal.II's CPU MatrixFree: p4est meshes refined once more on a spherical
// shell, 0.3 <= |x| <= 0.6 (hanging faces), or outside |x| = 0.5 (the
// unrefined core leaves, in 3D, fine cells that touch it at an edge only),
// cube and ball with MappingQ, 2D and 3D, degrees 1-8, scalar and
// vector-valued, atomics and coloring, double and float, geometry stored as
// Jacobians, as quadrature points or as the mapping field.
#include "../meshes.h"
#include "compare_with_cpu.h"

using Geometry = GPU::GeometryStorage;

template <int dim,
          int degree,
          int n_comp,
          typename Number,
          Cell cell = Cell::laplace>
void
test(const bool                 ball,
     const bool                 coloring,
     const unsigned int         refinements,
     const bool                 outside  = false,
     const GPU::GeometryStorage geometry = GPU::GeometryStorage::jacobians,
     const GPU::CellThreads     threads  = GPU::CellThreads::automatic,
     const Renumbering          renumber = Renumbering::none)
{
  parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
  make_mesh(tria, ball, refinements);
  if (outside)
    refine_shell(tria, 0.5, 10.);
  else
    refine_shell(tria, 0.3, 0.6);
  const unsigned int mapping_degree =
      ball ? std::max(2, std::min(degree, 4)) : 1;
  compare_with_cpu<dim, degree, n_comp, Number, cell>(
      tria,
      std::string(ball ? "ball" : "cube") + (outside ? " outside" : " shell"),
      mapping_degree,
      coloring,
      geometry,
      true,
      threads,
      renumber);
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  test<2, 1, 1, double>(false, false, 3);
  test<2, 2, 1, double>(true, true, 2, false, Geometry::points);
  FULL_TESTS_ONLY(test<2, 3, 2, double>(true, false, 2, true));
  FULL_TESTS_ONLY(test<2, 4, 1, float>(false, false, 2));
  FULL_TESTS_ONLY(test<2, 5, 1, double>(true, true, 1, true, Geometry::points));
  FULL_TESTS_ONLY(
      test<2, 6, 2, double>(false, false, 2, false, Geometry::points));
  FULL_TESTS_ONLY(test<2, 7, 1, float>(true, false, 1));
  FULL_TESTS_ONLY(test<2, 8, 1, double>(true, false, 1, true));
  test<3, 1, 1, double>(true, false, 2, true);
  test<3, 1, 3, double>(false, true, 2, true, Geometry::points);
  test<3, 2, 1, double>(false, true, 2);
  FULL_TESTS_ONLY(
      test<3, 3, 3, double>(true, false, 1, true, Geometry::points));
  FULL_TESTS_ONLY(
      test<3, 4, 1, float>(true, false, 1, false, Geometry::points));
  FULL_TESTS_ONLY(test<3, 5, 1, double>(false, false, 2, true));
  FULL_TESTS_ONLY(test<3, 6, 1, double>(true, true, 1, true, Geometry::points));
  FULL_TESTS_ONLY(test<3, 7, 1, float>(false, false, 2, true));
  FULL_TESTS_ONLY(
      test<3, 8, 1, double>(true, false, 0, false, Geometry::points));
  // The mapping field: each fine cell gathers its own nodes (not the
  // coarse DoFs its values are interpolated from).
  FULL_TESTS_ONLY(test<2, 2, 1, double, Cell::function>(
      true, false, 2, true, Geometry::field));
  test<3, 2, 1, double, Cell::function>(true, true, 1, false, Geometry::field);
  FULL_TESTS_ONLY(test<3, 3, 1, float, Cell::function>(
      true, false, 1, true, Geometry::field));
  // The merged diffusion tensor (LaplaceTensorCell).
  FULL_TESTS_ONLY(test<2, 3, 1, double, Cell::tensor>(true, true, 2, true));
  test<3, 2, 1, double, Cell::tensor>(true, false, 1);
  // Where a uniform mesh would run one thread per cell, the automatic
  // layout takes one thread per point here (not compiled with hanging
  // nodes), also with the DoFs renumbered for the cell loop's reads.
  test<3, 2, 1, double, Cell::function>(true,
                                        false,
                                        1,
                                        false,
                                        Geometry::field,
                                        GPU::CellThreads::automatic,
                                        Renumbering::data_locality);
  // DoFs numbered in blocks: only the blocks without hanging nodes have
  // their DoF indices computed.
  test<3, 1, 1, double>(true,
                        false,
                        3,
                        false,
                        Geometry::jacobians,
                        GPU::CellThreads::automatic,
                        Renumbering::level_1_blocks);
  FULL_TESTS_ONLY(test<2, 3, 1, double>(true,
                                        false,
                                        4,
                                        false,
                                        Geometry::jacobians,
                                        GPU::CellThreads::automatic,
                                        Renumbering::level_1_blocks));
  test<3, 1, 1, double>(
      false, true, 2, true, Geometry::points, GPU::CellThreads::automatic);
}
