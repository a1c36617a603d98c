// LevelDoFIndexCache: while a scope is open, DoFInfo keeps each level's
// indices, equal to deal.II's get_mg_dof_indices() in lexicographic order
// for every owned level cell, for FE_Q(2) and FESystem(FE_Q(1), 2); nothing
// is kept without a scope, for another DoFHandler, after release() or
// after the scope.
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/dofs/level_dof_index_cache.h>
#include <dealii-gpu/matrix_free/dof_info.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>

#include <gtest/gtest.h>
#include <memory>

using namespace dealii;

namespace
{
  void check_levels(const FiniteElement<3> &fe)
  {
    using Cache = GPU::internal::LevelDoFIndexCache<3>;
    Triangulation<3> tria(Triangulation<3>::limit_level_difference_at_vertices);
    GridGenerator::hyper_ball(tria);
    tria.refine_global(1);
    // One cell refined once more: levels that do not cover the domain.
    tria.begin_active()->set_refine_flag();
    tria.execute_coarsening_and_refinement();
    DoFHandler<3> dof_handler(tria), other(tria);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    other.distribute_dofs(fe);
    other.distribute_mg_dofs();
    const AffineConstraints<double> none;
    GPU::SetupTimer                 timer("test");

    // No scope: nothing kept.
    GPU::internal::DoFInfo<3> info;
    info.reinit(dof_handler, none, 1, timer);
    EXPECT_EQ(Cache::find(dof_handler, 1), nullptr);

    const unsigned int n_levels = tria.n_levels();
    {
      const Cache::Scope scope(dof_handler);
      EXPECT_TRUE(Cache::collecting(dof_handler));
      EXPECT_FALSE(Cache::collecting(other));
      std::vector<GPU::internal::DoFInfo<3>> levels(n_levels);
      for (unsigned int l = 0; l < n_levels; ++l)
        levels[l].reinit(dof_handler, none, l, timer);
      GPU::internal::DoFInfo<3> on_other;
      on_other.reinit(other, none, 0, timer);
      EXPECT_EQ(Cache::find(other, 0), nullptr);

      const unsigned int dofs_per_cell = fe.n_dofs_per_cell();
      const auto         lexicographic =
          FETools::lexicographic_to_hierarchic_numbering<3>(
              fe.base_element(0).degree);
      const unsigned int                   n_components = fe.n_components();
      const unsigned int                   n_lex        = lexicographic.size();
      std::vector<types::global_dof_index> indices(dofs_per_cell);
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        const Cache::Level *kept = Cache::find(dof_handler, l);
        ASSERT_NE(kept, nullptr) << "level " << l;
        EXPECT_EQ(kept->dofs_per_cell, dofs_per_cell);
        unsigned int n_checked = 0;
        for (const auto &cell : dof_handler.mg_cell_iterators_on_level(l))
        {
          const types::global_dof_index *cached = kept->find(cell);
          ASSERT_NE(cached, nullptr);
          cell->get_mg_dof_indices(indices);
          for (unsigned int c = 0; c < n_components; ++c)
            for (unsigned int i = 0; i < n_lex; ++i)
              EXPECT_EQ(
                  cached[c * n_lex + i],
                  indices[fe.component_to_system_index(c, lexicographic[i])]);
          ++n_checked;
        }
        EXPECT_EQ(n_checked, tria.n_cells(l));
      }
      Cache::release(dof_handler);
      EXPECT_EQ(Cache::find(dof_handler, 0), nullptr);
      EXPECT_TRUE(Cache::collecting(dof_handler));
    }
    EXPECT_FALSE(Cache::collecting(dof_handler));
    EXPECT_EQ(Cache::find(dof_handler, 0), nullptr);
  }
} // namespace

TEST(LevelDoFIndexCache, KeepsLexicographicLevelIndicesInAScope)
{
  check_levels(FE_Q<3>(2));
  check_levels(FESystem<3>(FE_Q<3>(1), 2));
}

TEST(LevelDoFIndexCache, InnerScopeLeavesTheOuter)
{
  using Cache = GPU::internal::LevelDoFIndexCache<3>;
  Triangulation<3> tria;
  GridGenerator::hyper_cube(tria);
  DoFHandler<3> dof_handler(tria);
  {
    const Cache::Scope outer(dof_handler);
    {
      const Cache::Scope inner(dof_handler);
    }
    EXPECT_TRUE(Cache::collecting(dof_handler));
  }
  EXPECT_FALSE(Cache::collecting(dof_handler));
}
