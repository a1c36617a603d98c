// GeometryStorage::automatic takes the mapping field exactly where one
// thread per cell runs it (3D, one component, at most 27 points, no hanging
// nodes, MappingQ(p <= k)) and stored Jacobians elsewhere; the names parse.
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>

#include <gtest/gtest.h>

using namespace dealii;

namespace
{
  // The form reinit() takes with GeometryStorage::automatic.
  template <int dim>
  GPU::GeometryStorage automatic_choice(const FiniteElement<dim> &fe,
                                        const unsigned int mapping_degree,
                                        const bool         hanging_nodes)
  {
    Triangulation<dim> tria;
    GridGenerator::hyper_cube(tria);
    tria.refine_global(1);
    if (hanging_nodes)
    {
      tria.begin_active()->set_refine_flag();
      tria.execute_coarsening_and_refinement();
    }
    DoFHandler<dim> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    constraints.close();
    typename GPU::MatrixFree<dim, double>::AdditionalData data;
    data.geometry = GPU::GeometryStorage::automatic;
    GPU::MatrixFree<dim, double> matrix_free;
    matrix_free.reinit(MappingQ<dim>(mapping_degree),
                       dof_handler,
                       constraints,
                       QGauss<1>(fe.degree + 1),
                       data);
    return matrix_free.get_geometry_storage();
  }
  // A refined unit cube with FE_Q(degree) and no constraints.
  struct CubeDoFs
  {
    CubeDoFs(const unsigned int refinements, const unsigned int degree)
        : fe(degree), dof_handler(tria)
    {
      GridGenerator::hyper_cube(tria);
      tria.refine_global(refinements);
      dof_handler.distribute_dofs(fe);
      constraints.close();
    }

    Triangulation<3>          tria;
    FE_Q<3>                   fe;
    DoFHandler<3>             dof_handler;
    AffineConstraints<double> constraints;
  };
} // namespace

TEST(GeometryStorage, AutomaticTakesTheFieldWhereOneThreadPerCellRunsIt)
{
  using G = GPU::GeometryStorage;
  EXPECT_EQ(automatic_choice<3>(FE_Q<3>(1), 1, false), G::field);
  EXPECT_EQ(automatic_choice<3>(FE_Q<3>(2), 2, false), G::field);
  // The field cannot represent MappingQ(2) with FE_Q(1).
  EXPECT_EQ(automatic_choice<3>(FE_Q<3>(1), 2, false), G::jacobians);
  // No one-thread-per-cell kernel: hanging nodes, 64 points, 2D, systems.
  EXPECT_EQ(automatic_choice<3>(FE_Q<3>(1), 1, true), G::jacobians);
  EXPECT_EQ(automatic_choice<3>(FE_Q<3>(3), 1, false), G::jacobians);
  EXPECT_EQ(automatic_choice<2>(FE_Q<2>(1), 1, false), G::jacobians);
  EXPECT_EQ(automatic_choice<3>(FESystem<3>(FE_Q<3>(1), 3), 1, false),
            G::jacobians);
}

TEST(GeometryStorage, FieldKeepsNoDevicePointsForTheCoefficients)
{
  const CubeDoFs cube(2, 1);
  const auto    &dof_handler = cube.dof_handler;
  const auto    &constraints = cube.constraints;
  const auto     build =
      [&](GPU::MatrixFree<3, double> &matrix_free, const UpdateFlags extra)
  {
    GPU::MatrixFree<3, double>::AdditionalData data(update_gradients |
                                                    update_JxW_values | extra);
    data.geometry = GPU::GeometryStorage::field;
    matrix_free.reinit(
        MappingQ<3>(1), dof_handler, constraints, QGauss<1>(2), data);
  };
  GPU::MatrixFree<3, double> matrix_free, without_points;
  build(matrix_free, update_quadrature_points);
  build(without_points, update_default);
  // The points are interpolated from the field where they are asked for.
  EXPECT_EQ(matrix_free.memory_consumption(),
            without_points.memory_consumption());
  GPU::Array<double> values;
  matrix_free.evaluate_coefficient([](const Point<3> &p) { return p[0]; },
                                   values);
  std::vector<double> host_values;
  values.copy_to(host_values);
  ASSERT_EQ(host_values.size(), 64u * 8u);
  // x at the 512 Gauss points of the unit cube sums to 512 / 2.
  double sum = 0;
  for (const double x : host_values)
    sum += x;
  EXPECT_NEAR(sum, 256., 1e-11);
  matrix_free.release_quadrature_points();
  EXPECT_THROW(matrix_free.evaluate_coefficient(
                   [](const Point<3> &p) { return p[0]; }, values),
               ExcMessage);
}

// Where only the kernels need the points (MatrixFreeOperator), the field
// keeps no host positions at all: evaluate_coefficient() then says why it
// cannot run instead of computing anything.
TEST(GeometryStorage, FieldWithoutPointsForTheCoefficients)
{
  const CubeDoFs                             cube(1, 2);
  GPU::MatrixFree<3, double>::AdditionalData data(
      update_gradients | update_JxW_values | update_quadrature_points);
  data.geometry                     = GPU::GeometryStorage::field;
  data.keep_points_for_coefficients = false;
  GPU::MatrixFree<3, double> matrix_free;
  matrix_free.reinit(
      MappingQ<3>(2), cube.dof_handler, cube.constraints, QGauss<1>(3), data);
  EXPECT_EQ(matrix_free.get_geometry_storage(), GPU::GeometryStorage::field);
  GPU::Array<double> values;
  EXPECT_THROW(matrix_free.evaluate_coefficient(
                   [](const Point<3> &p) { return p[0]; }, values),
               ExcMessage);
}

TEST(GeometryStorage, NamesRoundTrip)
{
  for (const auto g : {GPU::GeometryStorage::jacobians,
                       GPU::GeometryStorage::points,
                       GPU::GeometryStorage::field,
                       GPU::GeometryStorage::automatic})
    EXPECT_EQ(GPU::geometry_storage_from_string(GPU::to_string(g)), g);
  EXPECT_THROW(GPU::geometry_storage_from_string("tensor"), ExcMessage);
}
