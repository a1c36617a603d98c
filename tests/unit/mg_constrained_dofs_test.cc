// GPU::MGConstrainedDoFs against deal.II's MGConstrainedDoFs: the same
// boundary and refinement-edge sets on every level, on adaptive serial and
// distributed meshes (3 ranks in the mpirun variant), with several
// boundary ids and a component mask, on 1 and 3 set-up threads; and
// clear errors for periodic meshes and sets asked for before they exist.
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/multigrid/mg_constrained_dofs.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/grid/tria.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <gtest/gtest.h>
#include <set>
#include <string>

using namespace dealii;

namespace
{
  // Refines the cells within the radius (of the origin) twice more, so that
  // the levels end inside the domain (refinement edges).
  template <int dim>
  void refine_inside(Triangulation<dim> &tria, const double radius)
  {
    for (unsigned int step = 0; step < 2; ++step)
    {
      for (const auto &cell : tria.active_cell_iterators())
        if (cell->is_locally_owned() && cell->center().norm() < radius)
          cell->set_refine_flag();
      tria.execute_coarsening_and_refinement();
    }
  }

  template <int dim>
  void expect_same_sets(const DoFHandler<dim>              &dof_handler,
                        const std::set<types::boundary_id> &boundary_ids,
                        const ComponentMask                &mask,
                        const std::string                  &what)
  {
    dealii::MGConstrainedDoFs reference;
    reference.initialize(dof_handler);
    reference.make_zero_boundary_constraints(dof_handler, boundary_ids, mask);
    unsigned int n_edge = 0, n_boundary = 0;
    for (const unsigned int threads : {1u, 3u})
    {
      GPU::set_n_setup_threads(threads);
      GPU::MGConstrainedDoFs ours;
      ours.initialize(dof_handler);
      EXPECT_FALSE(ours.have_boundary_indices());
      ours.make_zero_boundary_constraints(dof_handler, boundary_ids, mask);
      ASSERT_TRUE(ours.have_boundary_indices());
      for (unsigned int l = 0;
           l < dof_handler.get_triangulation().n_global_levels();
           ++l)
      {
        EXPECT_TRUE(ours.get_boundary_indices(l) ==
                    reference.get_boundary_indices(l))
            << what << ", level " << l << ", " << threads << " threads";
        EXPECT_TRUE(ours.get_refinement_edge_indices(l) ==
                    reference.get_refinement_edge_indices(l))
            << what << ", level " << l << ", " << threads << " threads";
        n_edge += ours.get_refinement_edge_indices(l).n_elements();
        n_boundary += ours.get_boundary_indices(l).n_elements();
        for (const auto i : reference.get_boundary_indices(l))
          EXPECT_TRUE(ours.is_boundary_index(l, i));
      }
    }
    GPU::set_n_setup_threads(0);
    // The meshes have both kinds of DoFs (on some rank): the comparison
    // is not between empty sets.
    const MPI_Comm comm = dof_handler.get_communicator();
    EXPECT_GT(Utilities::MPI::sum(n_edge, comm), 0u) << what;
    EXPECT_GT(Utilities::MPI::sum(n_boundary, comm), 0u) << what;
  }
} // namespace

TEST(MGConstrainedDoFs, SerialAdaptive2DSameAsDealII)
{
  Triangulation<2> tria(Triangulation<2>::limit_level_difference_at_vertices);
  GridGenerator::hyper_ball(tria);
  tria.refine_global(2);
  refine_inside(tria, 0.4);
  DoFHandler<2> dof_handler(tria);
  for (const unsigned int k : {1u, 3u})
  {
    dof_handler.distribute_dofs(FE_Q<2>(k));
    dof_handler.distribute_mg_dofs();
    expect_same_sets(dof_handler, {0}, ComponentMask(), "2D FE_Q(k)");
  }
  // A system with the first component on the boundary only.
  dof_handler.distribute_dofs(FESystem<2>(FE_Q<2>(2), 2));
  dof_handler.distribute_mg_dofs();
  expect_same_sets(dof_handler,
                   {0},
                   ComponentMask(std::vector<bool>{true, false}),
                   "2D FESystem, first component");
}

TEST(MGConstrainedDoFs, DistributedAdaptive3DSameAsDealII)
{
  parallel::distributed::Triangulation<3> tria(
      MPI_COMM_WORLD,
      Triangulation<3>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
  // Six boundary ids; two of them Dirichlet.
  GridGenerator::hyper_cube(tria, -1., 1., true);
  tria.refine_global(2);
  refine_inside(tria, 0.6);
  DoFHandler<3> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<3>(2));
  dof_handler.distribute_mg_dofs();
  expect_same_sets(dof_handler, {0, 3}, ComponentMask(), "3D FE_Q(2)");
}

TEST(MGConstrainedDoFs, PeriodicMeshRefused)
{
  Triangulation<2> tria(Triangulation<2>::limit_level_difference_at_vertices);
  GridGenerator::hyper_cube(tria, 0., 1., true);
  std::vector<GridTools::PeriodicFacePair<Triangulation<2>::cell_iterator>>
      pairs;
  GridTools::collect_periodic_faces(tria, 0, 1, 0, pairs);
  tria.add_periodicity(pairs);
  tria.refine_global(2);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(1));
  dof_handler.distribute_mg_dofs();
  GPU::MGConstrainedDoFs ours;
  try
  {
    ours.initialize(dof_handler);
    FAIL() << "a periodic mesh was accepted";
  }
  catch (const ExceptionBase &e)
  {
    EXPECT_NE(std::string(e.what()).find("periodic"), std::string::npos);
  }
}

TEST(MGConstrainedDoFs, SetsBeforeInitializeRefused)
{
  GPU::MGConstrainedDoFs ours;
  EXPECT_FALSE(ours.have_boundary_indices());
  EXPECT_FALSE(ours.is_boundary_index(0, 0));
  try
  {
    ours.get_refinement_edge_indices(0);
    FAIL() << "a level of an uninitialized object was given";
  }
  catch (const ExceptionBase &e)
  {
    EXPECT_NE(std::string(e.what()).find("call initialize()"),
              std::string::npos);
  }
}
