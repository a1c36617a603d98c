// GPU::MatrixFree::reinit rejects what it cannot represent, with a message
// that names it, instead of building a wrong operator.
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q_cache.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>

#include <algorithm>
#include <gtest/gtest.h>
#include <string>

using namespace dealii;

namespace
{
  // Message of the ExcNotSupportedByMatrixFree that f() throws, on one line
  // (deal.II wraps it over lines), or "".
  template <typename F>
  std::string one_line_message(const F &f)
  {
    std::string message;
    try
    {
      f();
    }
    catch (const GPU::ExcNotSupportedByMatrixFree &e)
    {
      message = e.what();
    }
    std::replace(message.begin(), message.end(), '\n', ' ');
    message.erase(std::unique(message.begin(),
                              message.end(),
                              [](char a, char b)
                              { return a == ' ' && b == ' '; }),
                  message.end());
    return message;
  }

  // Message of the ExcNotSupportedByMatrixFree that reinit throws, or "".
  std::string reinit_message(const DoFHandler<2>             &dof_handler,
                             const AffineConstraints<double> &constraints,
                             const unsigned int               n_q_points_1d)
  {
    try
    {
      GPU::MatrixFree<2, double> matrix_free;
      matrix_free.reinit(
          MappingQ<2>(1), dof_handler, constraints, QGauss<1>(n_q_points_1d));
    }
    catch (const GPU::ExcNotSupportedByMatrixFree &e)
    {
      return e.what();
    }
    return "";
  }

  // A square refined twice, then once more in one quadrant: hanging nodes.
  void make_adaptive_mesh(Triangulation<2> &tria)
  {
    GridGenerator::hyper_cube(tria, -1., 1.);
    tria.refine_global(2);
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->center()[0] < 0 && cell->center()[1] < 0)
        cell->set_refine_flag();
    tria.execute_coarsening_and_refinement();
  }
} // namespace

TEST(MatrixFreeErrors, UnsupportedElement)
{
  Triangulation<2> tria;
  GridGenerator::hyper_cube(tria);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_DGQ<2>(2));
  AffineConstraints<double> constraints;
  constraints.close();
  const std::string message = reinit_message(dof_handler, constraints, 3);
  EXPECT_NE(message.find("FE_DGQ"), std::string::npos) << message;
  EXPECT_NE(message.find("FE_Q(k)"), std::string::npos) << message;
}

TEST(MatrixFreeErrors, DegreeNotCompiled)
{
  Triangulation<2> tria;
  GridGenerator::hyper_cube(tria);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(DEAL_II_GPU_MAX_DEGREE + 1));
  AffineConstraints<double> constraints;
  constraints.close();
  const std::string message =
      reinit_message(dof_handler, constraints, DEAL_II_GPU_MAX_DEGREE + 2);
  EXPECT_NE(
      message.find("degree " + std::to_string(DEAL_II_GPU_MAX_DEGREE + 1)),
      std::string::npos)
      << message;
}

TEST(MatrixFreeErrors, TooFewQuadraturePoints)
{
  Triangulation<2> tria;
  GridGenerator::hyper_cube(tria);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(3));
  AffineConstraints<double> constraints;
  constraints.close();
  const std::string message = reinit_message(dof_handler, constraints, 3);
  EXPECT_NE(message.find("at least degree + 1"), std::string::npos) << message;
}

TEST(MatrixFreeErrors, HangingNodesWithoutConstraints)
{
  Triangulation<2> tria;
  make_adaptive_mesh(tria);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(2));
  AffineConstraints<double> constraints;
  DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
  constraints.close();
  const std::string message = reinit_message(dof_handler, constraints, 3);
  EXPECT_NE(message.find("make_hanging_node_constraints"), std::string::npos)
      << message;
}

TEST(MatrixFreeErrors, HangingNodesAreAccepted)
{
  Triangulation<2> tria;
  make_adaptive_mesh(tria);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(2));
  AffineConstraints<double> constraints;
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
  constraints.close();
  EXPECT_EQ(reinit_message(dof_handler, constraints, 3), "");
}

TEST(MatrixFreeErrors, GeneralConstraint)
{
  Triangulation<2> tria;
  GridGenerator::hyper_cube(tria);
  tria.refine_global(2);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(1));
  AffineConstraints<double> constraints;
  constraints.add_line(3);
  constraints.add_entry(3, 7, 0.5);
  constraints.close();
  const std::string message = reinit_message(dof_handler, constraints, 2);
  EXPECT_NE(message.find("DoF 3"), std::string::npos) << message;
  EXPECT_NE(message.find("not a hanging node"), std::string::npos) << message;
}

TEST(MatrixFreeErrors, WrongHangingConstraint)
{
  Triangulation<2> tria;
  make_adaptive_mesh(tria);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(1));
  AffineConstraints<double> hanging;
  DoFTools::make_hanging_node_constraints(dof_handler, hanging);
  hanging.close();
  // The same DoFs constrained, with weights other than the interpolation.
  AffineConstraints<double> constraints;
  for (const auto &line : hanging.get_lines())
  {
    constraints.add_line(line.index);
    for (const auto &entry : line.entries)
      constraints.add_entry(line.index, entry.first, 0.75 * entry.second);
  }
  constraints.close();
  const std::string message = reinit_message(dof_handler, constraints, 2);
  EXPECT_NE(message.find("is not the interpolation"), std::string::npos)
      << message;
}

// Quadrature points determine the Jacobians only when the mapping's degree
// is below the number of points per direction: asking for that storage
// with MappingQ(3) and 2 points is refused; with 4 points it is taken, and
// stored Jacobians are the default.
TEST(MatrixFreeErrors, GeometryFromPointsNeedsLowDegreeMapping)
{
  Triangulation<2> tria;
  GridGenerator::hyper_ball(tria);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(1));
  AffineConstraints<double> constraints;
  constraints.close();
  using MF = GPU::MatrixFree<2, double>;
  MF::AdditionalData data;
  data.geometry = MF::GeometryStorage::points;
  MF          matrix_free;
  std::string message;
  try
  {
    matrix_free.reinit(
        MappingQ<2>(3), dof_handler, constraints, QGauss<1>(2), data);
  }
  catch (const GPU::ExcNotSupportedByMatrixFree &e)
  {
    message = e.what();
  }
  EXPECT_NE(message.find("MappingQ(3)"), std::string::npos) << message;
  EXPECT_NE(message.find("GeometryStorage::jacobians"), std::string::npos)
      << message;

  matrix_free.reinit(
      MappingQ<2>(3), dof_handler, constraints, QGauss<1>(4), data);
  EXPECT_EQ(matrix_free.get_geometry_storage(), MF::GeometryStorage::points);
  matrix_free.reinit(MappingQ<2>(3), dof_handler, constraints, QGauss<1>(4));
  EXPECT_EQ(matrix_free.get_geometry_storage(), MF::GeometryStorage::jacobians);
}

// One thread per cell: picked automatically for scalar 3D cells with the
// mapping field (Q1, Q2) or the points (Q1) only, refused for cells with
// more than 27 quadrature points, with the number in the message.
TEST(MatrixFreeErrors, ThreadPerCellOnlyForSmallCells)
{
  Triangulation<3> tria;
  GridGenerator::hyper_cube(tria);
  DoFHandler<3>             dof_handler(tria);
  AffineConstraints<double> constraints;
  constraints.close();
  using MF = GPU::MatrixFree<3, double>;
  MF                 matrix_free;
  MF::AdditionalData data;
  for (const auto geometry : {MF::GeometryStorage::jacobians,
                              MF::GeometryStorage::points,
                              MF::GeometryStorage::field})
    for (const unsigned int degree : {1u, 2u, 3u})
    {
      data.geometry = geometry;
      dof_handler.distribute_dofs(FE_Q<3>(degree));
      matrix_free.reinit(MappingQ<3>(1),
                         dof_handler,
                         constraints,
                         QGauss<1>(degree + 1),
                         data);
      const bool expected =
          (geometry == MF::GeometryStorage::field && degree <= 2) ||
          (geometry == MF::GeometryStorage::points && degree == 1);
      EXPECT_EQ(matrix_free.runs_thread_per_cell(), expected)
          << degree << " " << int(geometry);
      if (expected)
      {
        EXPECT_EQ(matrix_free.get_cells_per_block(), 128u);
      }
    }
  data.geometry     = MF::GeometryStorage::points;
  data.cell_threads = MF::CellThreads::per_cell;
  dof_handler.distribute_dofs(FE_Q<3>(2));
  matrix_free.reinit(
      MappingQ<3>(1), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_TRUE(matrix_free.runs_thread_per_cell());
  // Not compiled for stored Jacobians.
  data.geometry = MF::GeometryStorage::jacobians;
  EXPECT_THROW(
      matrix_free.reinit(
          MappingQ<3>(1), dof_handler, constraints, QGauss<1>(3), data),
      GPU::ExcNotSupportedByMatrixFree);
  data.cell_threads = MF::CellThreads::per_quadrature_point;
  data.geometry     = MF::GeometryStorage::field;
  matrix_free.reinit(
      MappingQ<3>(1), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_FALSE(matrix_free.runs_thread_per_cell());
  data.cell_threads         = MF::CellThreads::per_cell;
  const std::string message = one_line_message(
      [&]
      {
        matrix_free.reinit(
            MappingQ<3>(1), dof_handler, constraints, QGauss<1>(4), data);
      });
  EXPECT_NE(message.find("64 quadrature points"), std::string::npos) << message;
  EXPECT_NE(message.find("at most 27"), std::string::npos) << message;
}

// Nor for 2D or vector-valued cells, which it did not make faster.
// The cell loop compiles one launch form per cell size: cells of at most
// 32 points run in whole warps, larger cells one a block.
TEST(MatrixFreeErrors, CellsPerBlockFollowTheLaunchForm)
{
  Triangulation<2> tria;
  GridGenerator::hyper_cube(tria);
  DoFHandler<2>             dof_handler(tria);
  AffineConstraints<double> constraints;
  constraints.close();
  GPU::MatrixFree<2, double>                 matrix_free;
  GPU::MatrixFree<2, double>::AdditionalData data;
  dof_handler.distribute_dofs(FE_Q<2>(1));
  const auto reinit = [&](const unsigned int n_q_points_1d)
  {
    matrix_free.reinit(MappingQ<2>(1),
                       dof_handler,
                       constraints,
                       QGauss<1>(n_q_points_1d),
                       data);
  };
  // 4 points a cell, 8 a warp: one cell per block becomes a warp of them.
  data.cells_per_block = 1;
  reinit(2);
  EXPECT_EQ(matrix_free.get_cells_per_block(), 8u);
  data.cells_per_block = 9;
  reinit(2);
  EXPECT_EQ(matrix_free.get_cells_per_block(), 16u);
  // 36 points a cell: one a block, more are refused.
  data.cells_per_block = 0;
  reinit(6);
  EXPECT_EQ(matrix_free.get_cells_per_block(), 1u);
  data.cells_per_block      = 2;
  const std::string message = one_line_message([&] { reinit(6); });
  EXPECT_NE(message.find("2 cells per block of 36 threads"), std::string::npos)
      << message;
}

TEST(MatrixFreeErrors, ThreadPerCellOnlyForScalar3D)
{
  Triangulation<2> tria_2d;
  GridGenerator::hyper_cube(tria_2d);
  DoFHandler<2> dof_handler_2d(tria_2d);
  dof_handler_2d.distribute_dofs(FE_Q<2>(2));
  AffineConstraints<double> constraints;
  constraints.close();
  GPU::MatrixFree<2, double>                 matrix_free_2d;
  GPU::MatrixFree<2, double>::AdditionalData data_2d;
  data_2d.geometry     = GPU::GeometryStorage::field;
  data_2d.cell_threads = GPU::CellThreads::per_cell;
  EXPECT_THROW(
      matrix_free_2d.reinit(
          MappingQ<2>(1), dof_handler_2d, constraints, QGauss<1>(3), data_2d),
      GPU::ExcNotSupportedByMatrixFree);

  Triangulation<3> tria;
  GridGenerator::hyper_cube(tria);
  DoFHandler<3> dof_handler(tria);
  dof_handler.distribute_dofs(FESystem<3>(FE_Q<3>(1), 3));
  GPU::MatrixFree<3, double>                 matrix_free;
  GPU::MatrixFree<3, double>::AdditionalData data;
  data.geometry             = GPU::GeometryStorage::field;
  data.cell_threads         = GPU::CellThreads::per_cell;
  const std::string message = one_line_message(
      [&]
      {
        matrix_free.reinit(
            MappingQ<3>(1), dof_handler, constraints, QGauss<1>(2), data);
      });
  EXPECT_NE(message.find("3 component(s)"), std::string::npos) << message;
  // The automatic choice takes one thread per point there.
  data.cell_threads = GPU::CellThreads::automatic;
  matrix_free.reinit(
      MappingQ<3>(1), dof_handler, constraints, QGauss<1>(2), data);
  EXPECT_FALSE(matrix_free.runs_thread_per_cell());
}

// One thread per cell is not compiled for meshes with hanging nodes: an
// explicit request is refused, the automatic choice takes one per point.
TEST(MatrixFreeErrors, ThreadPerCellNotWithHangingNodes)
{
  Triangulation<3> tria;
  GridGenerator::hyper_cube(tria);
  tria.refine_global(1);
  tria.begin_active()->set_refine_flag();
  tria.execute_coarsening_and_refinement();
  ASSERT_TRUE(tria.has_hanging_nodes());
  DoFHandler<3> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<3>(1));
  AffineConstraints<double> constraints;
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  constraints.close();
  GPU::MatrixFree<3, double>                 matrix_free;
  GPU::MatrixFree<3, double>::AdditionalData data;
  data.geometry             = GPU::GeometryStorage::field;
  data.cell_threads         = GPU::CellThreads::per_cell;
  const std::string message = one_line_message(
      [&]
      {
        matrix_free.reinit(
            MappingQ<3>(1), dof_handler, constraints, QGauss<1>(2), data);
      });
  EXPECT_NE(message.find("no hanging nodes)"), std::string::npos) << message;
  data.cell_threads = GPU::CellThreads::automatic;
  matrix_free.reinit(
      MappingQ<3>(1), dof_handler, constraints, QGauss<1>(2), data);
  EXPECT_FALSE(matrix_free.runs_thread_per_cell());
  // Without the hanging cell, the automatic choice is one thread per cell.
  Triangulation<3> uniform;
  GridGenerator::hyper_cube(uniform);
  uniform.refine_global(1);
  DoFHandler<3> uniform_dofs(uniform);
  uniform_dofs.distribute_dofs(FE_Q<3>(1));
  AffineConstraints<double> none;
  none.close();
  matrix_free.reinit(MappingQ<3>(1), uniform_dofs, none, QGauss<1>(2), data);
  EXPECT_TRUE(matrix_free.runs_thread_per_cell());
}

// The merged diffusion tensor needs stored Jacobians: refused with points
// and after release_geometry(), which also frees the memory; a coefficient
// array of the wrong size is refused.
TEST(MatrixFreeErrors, DiffusionTensorNeedsStoredJacobians)
{
  Triangulation<2> tria;
  GridGenerator::hyper_ball(tria);
  tria.refine_global(2);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(2));
  AffineConstraints<double> constraints;
  constraints.close();
  using MF = GPU::MatrixFree<2, double>;
  MF::AdditionalData data(update_gradients | update_JxW_values |
                          update_quadrature_points);
  const auto         one = [](const Point<2> &) { return 1.; };
  MF                 matrix_free;
  GPU::Array<double> tensor;

  data.geometry = MF::GeometryStorage::points;
  matrix_free.reinit(
      MappingQ<2>(2), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_THROW(matrix_free.evaluate_diffusion_tensor(one, tensor),
               GPU::ExcNotSupportedByMatrixFree);

  data.geometry = MF::GeometryStorage::jacobians;
  matrix_free.reinit(
      MappingQ<2>(2), dof_handler, constraints, QGauss<1>(3), data);
  GPU::Array<double> wrong_size(3);
  EXPECT_ANY_THROW(matrix_free.evaluate_diffusion_tensor(wrong_size, tensor));
  matrix_free.evaluate_diffusion_tensor(one, tensor);
  EXPECT_EQ(tensor.size(), std::size_t(tria.n_active_cells()) * 9 * 3);
  const std::size_t with_geometry = matrix_free.memory_consumption();
  EXPECT_TRUE(matrix_free.has_geometry());
  matrix_free.release_geometry();
  EXPECT_FALSE(matrix_free.has_geometry());
  EXPECT_LT(matrix_free.memory_consumption(), with_geometry / 2);
  EXPECT_THROW(matrix_free.evaluate_diffusion_tensor(one, tensor),
               GPU::ExcNotSupportedByMatrixFree);
  // reinit() builds the geometry again.
  matrix_free.reinit(
      MappingQ<2>(2), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_TRUE(matrix_free.has_geometry());
}

TEST(MatrixFreeErrors, MappingFieldNeedsRepresentableContinuousMapping)
{
  Triangulation<2> tria;
  GridGenerator::hyper_ball(tria);
  tria.refine_global(2);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(2));
  AffineConstraints<double> constraints;
  constraints.close();
  using MF = GPU::MatrixFree<2, double>;
  MF::AdditionalData data(update_gradients | update_JxW_values);
  MF                 matrix_free;

  // FE_Q(2) cannot represent MappingQ(3).
  data.geometry = MF::GeometryStorage::field;
  EXPECT_THROW(
      matrix_free.reinit(
          MappingQ<2>(3), dof_handler, constraints, QGauss<1>(4), data),
      GPU::ExcNotSupportedByMatrixFree);

  // A mapping that moves each cell by its own amount is not continuous.
  MappingQCache<2> broken(2);
  broken.initialize(
      MappingQ<2>(2),
      tria,
      [](const Triangulation<2>::cell_iterator &cell, const Point<2> &)
      { return Point<2>(1e-3 * cell->index(), 0.); },
      true);
  EXPECT_THROW(
      matrix_free.reinit(broken, dof_handler, constraints, QGauss<1>(3), data),
      GPU::ExcNotSupportedByMatrixFree);

  matrix_free.reinit(
      MappingQ<2>(2), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_EQ(matrix_free.get_geometry_storage(), MF::GeometryStorage::field);
  EXPECT_TRUE(matrix_free.get_data().jacobians_from_points);
  EXPECT_EQ(matrix_free.get_data().quadrature_points, nullptr);
  // Double needs no cell centers (points_relative_to_cell_centers()).
  EXPECT_EQ(matrix_free.get_data().cell_centers, nullptr);
  const std::size_t  field_bytes = matrix_free.memory_consumption();
  GPU::Array<double> tensor,
      coefficient(std::size_t(tria.n_active_cells()) * 9);
  EXPECT_THROW(matrix_free.evaluate_diffusion_tensor(coefficient, tensor),
               GPU::ExcNotSupportedByMatrixFree);

  data.geometry = MF::GeometryStorage::points;
  matrix_free.reinit(
      MappingQ<2>(2), dof_handler, constraints, QGauss<1>(3), data);
  EXPECT_LT(field_bytes, matrix_free.memory_consumption());
}
