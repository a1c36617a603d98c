// Meshes shared by the tests: the adaptively refined meshes of the
// correctness matrix.
#ifndef dealii_gpu_tests_meshes_h
#define dealii_gpu_tests_meshes_h

#include <deal.II/grid/grid_generator.h>

using namespace dealii;

// hyper_cube [-1, 1]^dim or hyper_ball (radius 1), refined globally.
template <typename Triangulation>
void
make_mesh(Triangulation &tria, const bool ball, const unsigned int refinements)
{
  if (ball)
    GridGenerator::hyper_ball(tria);
  else
    GridGenerator::hyper_cube(tria, -1., 1.);
  tria.refine_global(refinements);
}

// Refines once the active cells whose center lies in the spherical shell
// inner <= |x| <= outer: hanging nodes on faces and, in 3D, also on edges
// only (where a refined and an unrefined cell share just an edge).
template <typename Triangulation>
void
refine_shell(Triangulation &tria, const double inner, const double outer)
{
  for (const auto &cell : tria.active_cell_iterators())
    if (cell->is_locally_owned())
    {
      const double r = cell->center().norm();
      if (r >= inner && r <= outer)
        cell->set_refine_flag();
    }
  tria.execute_coarsening_and_refinement();
}

#endif
