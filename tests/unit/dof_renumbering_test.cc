// GPU::DoFRenumbering::matrix_free_data_locality against the read order it
// is meant to give: after renumbering, the cell loop reads the owned DoFs in
// the order of their numbers; one thread per cell reads a warp's cells
// position by position, one thread per point cell by cell.
#include <dealii-gpu/dofs/dof_renumbering.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
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
