// GPU::MatrixFree against deal.II's CPU MatrixFree on uniformly refined
// p4est meshes (cube, and the ball with MappingQ), 2D and 3D, degrees 1-8,
// scalar and vector-valued, atomics and coloring, double and float.
#include "../meshes.h"
#include "compare_with_cpu.h"

using Geometry = GPU::GeometryStorage;

template <int dim, int degree, int n_comp, typename Number, bool tensor = false>
void
test(const bool         ball,
     const bool         coloring,
     const unsigned int refinements,
     const Geometry     geometry = Geometry::jacobians,
     const bool         overlap  = true)
{
  parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
  make_mesh(tria, ball, refinements);
  const unsigned int mapping_degree =
      ball ? std::max(2, std::min(degree, 4)) : 1;
  compare_with_cpu<dim, degree, n_comp, Number, tensor>(tria,
                                                        ball ? "ball" : "cube",
                                                        mapping_degree,
                                                        coloring,
                                                        geometry,
                                                        overlap);
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  test<2, 1, 1, double>(false, false, 4);
  test<2, 2, 1, double>(true, false, 3);
  test<2, 3, 1, double>(true, true, 3);
  test<2, 4, 2, double>(true, false, 2);
  test<2, 5, 1, float>(true, false, 2);
  test<3, 1, 1, double>(true, false, 2);
  test<3, 2, 1, double>(true, true, 1);
  test<3, 3, 3, double>(true, false, 1);
  test<3, 4, 1, double>(true, false, 1);
  test<3, 2, 1, float>(false, false, 2);
  test<2, 6, 1, double>(true, false, 1);
  test<2, 8, 1, double>(false, true, 1);
  test<3, 6, 1, double>(false, false, 1);
  test<3, 7, 1, float>(true, false, 0);
  test<3, 8, 1, double>(true, false, 0);
  // Geometry from the quadrature points (Jacobians computed in the
  // kernel), and cell loops without overlap of communication and
  // computation.
  test<2, 2, 1, double>(true, false, 3, Geometry::points);
  test<2, 3, 2, float>(true, true, 2, Geometry::points, false);
  test<2, 8, 1, double>(false, true, 1, Geometry::points);
  test<3, 1, 1, double>(false, false, 2, Geometry::points);
  test<3, 2, 1, float>(true, false, 2, Geometry::points);
  test<3, 3, 3, double>(true, true, 1, Geometry::points, false);
  test<3, 4, 1, double>(true, false, 1, Geometry::points);
  test<3, 6, 1, double>(false, false, 1, Geometry::jacobians, false);
  test<3, 7, 1, float>(true, false, 0, Geometry::points);
  // The mapping as a field at the support points, interpolated in the
  // kernel (MappingQ(p) into FE_Q(k) with p < k for Q3 and Q6).
  test<2, 2, 1, double>(true, false, 3, Geometry::field);
  test<2, 3, 2, float>(true, true, 2, Geometry::field, false);
  test<3, 1, 1, double>(false, false, 2, Geometry::field);
  test<3, 2, 1, double>(true, false, 2, Geometry::field);
  test<3, 3, 3, double>(true, true, 1, Geometry::field);
  test<3, 4, 1, float>(true, false, 1, Geometry::field);
  test<3, 6, 1, double>(true, false, 0, Geometry::field);
  // The merged diffusion tensor (LaplaceTensorCell) after
  // release_geometry(), against the CPU operator without the mass term.
  test<2, 2, 1, double, true>(true, false, 3);
  test<3, 1, 1, double, true>(true, false, 2);
  test<3, 2, 1, double, true>(true, true, 1);
  test<3, 3, 3, double, true>(true, false, 1, Geometry::jacobians, false);
  test<3, 4, 1, float, true>(true, false, 1);
}
