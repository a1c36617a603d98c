// GPU::DoFRenumbering::matrix_free_data_locality against the read order it
// is meant to give: after renumbering, the cell loop reads the owned DoFs in
// the order of their numbers; one thread per cell reads a warp's cells
// position by position, one thread per point cell by cell. And
// GPU::DoFRenumbering::block_lexicographic against the positions of the
// support points, with the cells GPU::MatrixFree then finds structured.
#include <dealii-gpu/dofs/dof_renumbering.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <vector>

using namespace dealii;

namespace
{
  using MF = GPU::MatrixFree<3, double>;

  std::vector<unsigned int> read_order(const DoFHandler<3>  &dof_handler,
                                       const MF::CellThreads threads,
                                       MF                   &matrix_free)
  {
    AffineConstraints<double> constraints;
    constraints.close();
    MF::AdditionalData data;
    // One thread per cell needs the Jacobians computed in the kernel.
    data.geometry     = MF::GeometryStorage::points;
    data.cell_threads = threads;
    matrix_free.reinit(
        MappingQ<3>(1), dof_handler, constraints, QGauss<1>(3), data);
    return matrix_free.get_dof_read_order();
  }
} // namespace

TEST(DoFRenumbering, NumbersFollowTheReadOrder)
{
  Triangulation<3> tria;
  GridGenerator::hyper_cube(tria);
  tria.refine_global(3); // 512 cells: 16 warps of cells
  DoFHandler<3> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<3>(2));
  const unsigned int n = dof_handler.n_dofs();

  for (const auto threads :
       {MF::CellThreads::per_cell, MF::CellThreads::per_quadrature_point})
  {
    dof_handler.distribute_dofs(FE_Q<3>(2));
    MF                        matrix_free;
    std::vector<unsigned int> order =
        read_order(dof_handler, threads, matrix_free);
    // A permutation of the DoFs, not yet the identity.
    std::vector<unsigned int> sorted(order);
    std::sort(sorted.begin(), sorted.end());
    std::vector<unsigned int> identity(n);
    std::iota(identity.begin(), identity.end(), 0u);
    EXPECT_EQ(sorted, identity);
    EXPECT_NE(order, identity);

    GPU::DoFRenumbering::matrix_free_data_locality(dof_handler, matrix_free);
    EXPECT_EQ(read_order(dof_handler, threads, matrix_free), identity)
        << int(threads);
  }

  // The two layouts read in different orders: position by position over
  // 32 cells, or cell by cell.
  dof_handler.distribute_dofs(FE_Q<3>(2));
  MF a, b;
  EXPECT_NE(read_order(dof_handler, MF::CellThreads::per_cell, a),
            read_order(dof_handler, MF::CellThreads::per_quadrature_point, b));
}

TEST(DoFRenumbering, RefusesAnotherDoFHandler)
{
  Triangulation<3> tria;
  GridGenerator::hyper_cube(tria);
  tria.refine_global(1);
  DoFHandler<3> q1(tria), q2(tria);
  q1.distribute_dofs(FE_Q<3>(1));
  q2.distribute_dofs(FE_Q<3>(2));
  MF matrix_free;
  read_order(q2, MF::CellThreads::automatic, matrix_free);
  EXPECT_THROW(
      GPU::DoFRenumbering::compute_matrix_free_data_locality(q1, matrix_free),
      ExceptionBase);
}

TEST(DoFRenumbering, BlockLexicographicFollowsTheLattice)
{
  Triangulation<3> tria;
  GridGenerator::hyper_cube(tria); // [0, 1]^3, one coarse cell
  tria.refine_global(3);
  DoFHandler<3> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<3>(2));
  GPU::DoFRenumbering::block_lexicographic(dof_handler, 0);

  // The interior DoFs come first, x fastest, on the lattice of step 1/16.
  const unsigned int    M = 2 * 8;
  std::vector<Point<3>> points(dof_handler.n_dofs());
  DoFTools::map_dofs_to_support_points(MappingQ1<3>(), dof_handler, points);
  const unsigned int n_interior = (M - 1) * (M - 1) * (M - 1);
  for (unsigned int k = 0; k < n_interior; ++k)
  {
    const Point<3> expected((k % (M - 1) + 1.) / M,
                            ((k / (M - 1)) % (M - 1) + 1.) / M,
                            (k / ((M - 1) * (M - 1)) + 1.) / M);
    ASSERT_LT(points[k].distance(expected), 1e-12) << k;
  }
  for (unsigned int k = n_interior; k < points.size(); ++k)
  {
    bool on_boundary = false;
    for (unsigned int d = 0; d < 3; ++d)
      on_boundary = on_boundary || std::abs(points[k][d]) < 1e-12 ||
                    std::abs(points[k][d] - 1) < 1e-12;
    ASSERT_TRUE(on_boundary) << k;
  }

  // All cells lie in the one block; the kernels compute their indices.
  AffineConstraints<double> constraints;
  DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
  constraints.close();
  MF                 matrix_free;
  MF::AdditionalData data;
  matrix_free.reinit(
      MappingQ<3>(1), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_EQ(matrix_free.n_structured_cells(), 512u);
  // Not with coloring.
  data.use_coloring = true;
  matrix_free.reinit(
      MappingQ<3>(1), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_EQ(matrix_free.n_structured_cells(), 0u);

  // Blocks of level 1: eight of 64 cells each.
  GPU::DoFRenumbering::block_lexicographic(dof_handler, 1);
  constraints.clear();
  DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
  constraints.close();
  data.use_coloring = false;
  matrix_free.reinit(
      MappingQ<3>(1), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_EQ(matrix_free.n_structured_cells(), 512u);
  EXPECT_EQ(points.size(), dof_handler.n_dofs());

  // Without that numbering no block is structured.
  dof_handler.distribute_dofs(FE_Q<3>(2));
  constraints.clear();
  constraints.close();
  matrix_free.reinit(
      MappingQ<3>(1), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_EQ(matrix_free.n_structured_cells(), 0u);
}
