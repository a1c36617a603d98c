// internal::sort_unique against std::sort and std::unique (32- and 64-bit
// keys, spans from one value to the whole type, sizes on both sides of the
// radix sort's threshold) and internal::SortedPosition against
// std::lower_bound on the same lists; on every level of adaptive distributed
// balls (3 ranks in the mpirun variant), internal::locally_relevant_level_dofs
// against deal.II's extract_locally_relevant_level_dofs and
// internal::LevelDoFIndices against get_mg_dof_indices (both of its paths).
#include <dealii-gpu/dofs/locally_relevant_dofs.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>

#include "../../source/base/sorted_indices.h"
#include "../../source/dofs/level_dof_indices.h"
#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

using namespace dealii;

namespace
{
  template <typename T>
  void check_sort_unique(const std::size_t n,
                         const T           low,
                         const T           high,
                         const unsigned    seed)
  {
    std::mt19937_64                  gen(seed);
    std::uniform_int_distribution<T> value(low, high);
    std::vector<T>                   values(n);
    for (auto &v : values)
      v = value(gen);
    std::vector<T> expected = values;
    std::sort(expected.begin(), expected.end());
    expected.erase(std::unique(expected.begin(), expected.end()),
                   expected.end());
    GPU::internal::sort_unique(values);
    EXPECT_EQ(values, expected) << n << " values in [" << low << ", " << high
                                << "], " << 8 * sizeof(T) << " bits";
    const GPU::internal::SortedPosition<T> position(expected);
    std::size_t                            wrong = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
      wrong += position(expected[i]) != i ? 1 : 0;
    EXPECT_EQ(wrong, 0u) << n << " values in [" << low << ", " << high << "], "
                         << 8 * sizeof(T) << " bits";
  }

  // On every level of an adaptive distributed ball (refinement edges,
  // levels that end inside the domain): the relevant level DoFs against
  // deal.II's set, and LevelDoFIndices against get_mg_dof_indices() on
  // every cell that is not artificial.
  template <int dim>
  void check_level_dofs(const FiniteElement<dim> &fe)
  {
    parallel::distributed::Triangulation<dim> tria(
        MPI_COMM_WORLD,
        Triangulation<dim>::limit_level_difference_at_vertices,
        parallel::distributed::Triangulation<
            dim>::construct_multigrid_hierarchy);
    GridGenerator::hyper_ball(tria);
    tria.refine_global(dim == 2 ? 3 : 2);
    for (unsigned int step = 0; step < 2; ++step)
    {
      for (const auto &cell : tria.active_cell_iterators())
        if (cell->is_locally_owned() && cell->center()[0] > 0.1)
          cell->set_refine_flag();
      tria.execute_coarsening_and_refinement();
    }
    DoFHandler<dim> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
    const MPI_Comm comm     = MPI_COMM_WORLD;
    std::size_t    n_ghosts = 0;
    for (unsigned int l = 0; l < tria.n_global_levels(); ++l)
    {
      IndexSet expected;
      DoFTools::extract_locally_relevant_level_dofs(dof_handler, l, expected);
      const IndexSet ours =
          GPU::internal::locally_relevant_level_dofs(dof_handler, l);
      EXPECT_TRUE(ours == expected)
          << fe.get_name() << ", level " << l << ": " << ours.n_elements()
          << " DoFs against " << expected.n_elements();
      n_ghosts += expected.n_elements() -
                  dof_handler.locally_owned_mg_dofs(l).n_elements();
    }
    // On several ranks the sets hold other ranks' DoFs: the comparison is
    // not of the owned sets alone.
    if (Utilities::MPI::n_mpi_processes(comm) > 1)
    {
      EXPECT_GT(Utilities::MPI::sum(n_ghosts, comm), 0u);
    }

    const GPU::internal::LevelDoFIndices<dim> level_dof_indices(fe);
    std::vector<types::global_dof_index> ours, expected(fe.n_dofs_per_cell());
    std::size_t n_standard = 0, n_other = 0, n_wrong = 0;
    for (const auto &cell : dof_handler.mg_cell_iterators())
      if (cell->level_subdomain_id() != numbers::artificial_subdomain_id)
      {
        level_dof_indices.get(cell, ours);
        cell->get_mg_dof_indices(expected);
        n_wrong += ours != expected ? 1 : 0;
        bool standard = true;
        for (const unsigned int f : cell->face_indices())
          standard = standard && cell->face_orientation(f) &&
                     !cell->face_flip(f) && !cell->face_rotation(f);
        for (const unsigned int l : cell->line_indices())
          standard = standard && cell->line_orientation(l);
        ++(standard ? n_standard : n_other);
      }
    EXPECT_EQ(n_wrong, 0u) << fe.get_name();
    // The ball's cells take both paths in 3D.
    if (dim == 3)
    {
      EXPECT_GT(Utilities::MPI::sum(n_standard, comm), 0u) << fe.get_name();
      EXPECT_GT(Utilities::MPI::sum(n_other, comm), 0u) << fe.get_name();
    }
  }
} // namespace

TEST(SortedIndices, MatchStdSortAndLowerBound)
{
  for (const std::size_t n : {0, 1, 2, 1000, 16383, 16384, 100000, 300000})
  {
    check_sort_unique<unsigned int>(n, 0, 9, 1);
    check_sort_unique<unsigned int>(n, 1000000, 1000255, 2);
    check_sort_unique<unsigned int>(n, 5, 118000000, 3);
    check_sort_unique<unsigned int>(
        n, 0, std::numeric_limits<unsigned int>::max(), 4);
    check_sort_unique<std::uint64_t>(n, 7, 7, 5);
    check_sort_unique<std::uint64_t>(n, 1ull << 40, (1ull << 40) + 70000, 6);
    check_sort_unique<std::uint64_t>(
        n, 0, std::numeric_limits<std::uint64_t>::max(), 7);
  }
}

TEST(LevelDoFs, DistributedMatchDealII)
{
  check_level_dofs<2>(FE_Q<2>(3));
  for (const unsigned int degree : {1u, 2u, 4u})
    check_level_dofs<3>(FE_Q<3>(degree));
  check_level_dofs<3>(FESystem<3>(FE_Q<3>(2), 3));
}
