// GPU::DoFRenumbering::hierarchical_levels() and two_level(): on the plate
// with a hole (2D, Q1 and Q2, refined without its manifolds) and the cube (3D,
// Q2), every level's numbers are a permutation, the active DoFs carry the
// finest level's numbers, the first cell of the refinement tree holds the first
// numbers, and (two level) each fine DoF numbered below the coarser level's
// count sits at the support point of the coarse DoF of the same number, found
// from the mapped support points of the cells. A non-uniform mesh throws.
#include <dealii-gpu/dofs/multigrid_renumbering.h>

#include <deal.II/base/quadrature.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>

#include "../tests.h"
#include <algorithm>

// The mapped support point of each DoF of @p level.
template <int dim>
std::vector<Point<dim>>
level_points(const DoFHandler<dim> &dof_handler, const unsigned int level)
{
  const FiniteElement<dim>            &fe = dof_handler.get_fe();
  const MappingQ<dim>                  mapping(1);
  FEValues<dim>                        fe_values(mapping,
                          fe,
                          Quadrature<dim>(fe.get_unit_support_points()),
                          update_quadrature_points);
  std::vector<Point<dim>>              points(dof_handler.n_dofs(level));
  std::vector<types::global_dof_index> dofs(fe.n_dofs_per_cell());
  for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
  {
    fe_values.reinit(cell);
    cell->get_mg_dof_indices(dofs);
    for (unsigned int i = 0; i < dofs.size(); ++i)
      points[dofs[i]] = fe_values.quadrature_point(i);
  }
  return points;
}

template <int dim>
void
test(const unsigned int degree, const bool two_level)
{
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  // Straight refinement (no manifolds), so that MappingQ1 puts a coarse
  // DoF's support point where the fine level has its DoF.
  if (dim == 2)
  {
    GridGenerator::plate_with_a_hole(tria);
    tria.reset_all_manifolds();
  }
  else
    GridGenerator::hyper_cube(tria, -1., 1.);
  tria.refine_global(dim == 2 ? 2 : 1);
  DoFHandler<dim> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<dim>(degree));
  dof_handler.distribute_mg_dofs();
  if (two_level)
    GPU::DoFRenumbering::two_level(dof_handler);
  else
    GPU::DoFRenumbering::hierarchical_levels(dof_handler);

  const unsigned int n_levels = tria.n_levels();
  const unsigned int n        = dof_handler.get_fe().n_dofs_per_cell();
  bool permutation = true, first_cell = true, active = true, nested = true;
  std::vector<types::global_dof_index> dofs(n), level_dofs(n);
  std::vector<Point<dim>>              coarse_points;
  for (unsigned int level = 0; level < n_levels; ++level)
  {
    std::vector<bool> seen(dof_handler.n_dofs(level), false);
    for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
    {
      cell->get_mg_dof_indices(dofs);
      for (const auto i : dofs)
        if (i < seen.size())
          seen[i] = true;
        else
          permutation = false;
    }
    permutation =
        permutation &&
        std::all_of(seen.begin(), seen.end(), [](bool b) { return b; });
    // The tree's first cell on this level: the first child of the first
    // children of coarse cell 0.
    auto cell = dof_handler.begin_mg(0);
    while (cell->level() < int(level))
      cell = cell->child(0);
    cell->get_mg_dof_indices(dofs);
    // Hierarchical: its DoFs are 0..n-1; two-level from level 1 on: those
    // not at a coarse point follow the coarse count.
    if (!two_level || level == 0)
      first_cell =
          first_cell && *std::max_element(dofs.begin(), dofs.end()) == n - 1;
    const std::vector<Point<dim>> points = level_points(dof_handler, level);
    if (two_level && level > 0)
      for (types::global_dof_index i = 0; i < coarse_points.size(); ++i)
        nested = nested && points[i].distance(coarse_points[i]) < 1e-12;
    coarse_points = points;
  }
  for (const auto &cell : dof_handler.active_cell_iterators())
  {
    cell->get_dof_indices(dofs);
    cell->get_mg_dof_indices(level_dofs);
    active = active && dofs == level_dofs;
  }
  deallog << dim << "D Q" << degree << ' '
          << (two_level ? "two_level" : "hierarchical_levels") << ": "
          << n_levels << " levels, " << dof_handler.n_dofs()
          << " DoFs; permutation " << (permutation ? "yes" : "NO")
          << ", active = finest " << (active ? "yes" : "NO");
  if (two_level)
    deallog << ", coarse DoFs first at their points "
            << (nested ? "yes" : "NO");
  else
    deallog << ", first cell first " << (first_cell ? "yes" : "NO");
  deallog << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  LogInit                          log;
  for (const bool two_level : {false, true})
  {
    test<2>(1, two_level);
    test<2>(2, two_level);
    test<3>(2, two_level);
  }
  // A mesh with an active cell below the finest level throws.
  parallel::distributed::Triangulation<2> tria(
      MPI_COMM_WORLD,
      Triangulation<2>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<2>::construct_multigrid_hierarchy);
  GridGenerator::hyper_cube(tria);
  tria.refine_global(1);
  tria.begin_active()->set_refine_flag();
  tria.execute_coarsening_and_refinement();
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(1));
  dof_handler.distribute_mg_dofs();
  expect_error("two_level() on an adaptive mesh",
               "needs a uniformly refined mesh",
               [&]() { GPU::DoFRenumbering::two_level(dof_handler); });
  expect_error("hierarchical_levels() without level DoFs",
               "needs distribute_mg_dofs()",
               [&]()
               {
                 DoFHandler<2> plain(tria);
                 plain.distribute_dofs(FE_Q<2>(1));
                 GPU::DoFRenumbering::hierarchical_levels(plain);
               });
}
