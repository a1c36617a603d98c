// GeometryStorage::automatic takes the mapping field exactly where one
// thread per cell runs it (3D, one component, at most 27 points, no hanging
// nodes, MappingQ(p <= k)) and stored Jacobians elsewhere; the field gives
// the coefficients the same points; the names parse.
#include <dealii-gpu/dofs/dof_renumbering.h>
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

// The points evaluate_coefficient() sees with the field, gathered from it on
// the device chunk by chunk, against those of stored Jacobians (the
// mapping's support points interpolated per cell) on the curved ball: with
// the DoFs as nodes (numbered plainly, and in structured blocks whose
// indices the kernels compute) and with a node list (hanging nodes).
TEST(GeometryStorage, FieldPointsForTheCoefficientsMatchTheMapping)
{
  for (const unsigned int variant : {0u, 1u, 2u})
  {
    Triangulation<3> tria;
    GridGenerator::hyper_ball(tria);
    // Twice: a Q2 block of 2^3 cells would save too little to be taken.
    tria.refine_global(2);
    if (variant == 2)
    {
      tria.begin_active()->set_refine_flag();
      tria.execute_coarsening_and_refinement();
    }
    const FE_Q<3> fe(2);
    DoFHandler<3> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    if (variant == 1)
      GPU::DoFRenumbering::block_lexicographic(dof_handler, 0);
    AffineConstraints<double> constraints;
    DoFTools::make_hanging_node_constraints(dof_handler, constraints);
    constraints.close();
    const MappingQ<3> mapping(2);
    const auto        values =
        [&](const GPU::GeometryStorage geometry, unsigned int &n_structured)
    {
      GPU::MatrixFree<3, double>::AdditionalData data(
          update_gradients | update_JxW_values | update_quadrature_points);
      data.geometry = geometry;
      GPU::MatrixFree<3, double> matrix_free;
      matrix_free.reinit(mapping, dof_handler, constraints, QGauss<1>(3), data);
      n_structured = matrix_free.n_structured_cells();
      GPU::Array<double> coefficient;
      matrix_free.evaluate_coefficient(
          [](const Point<3> &p)
          { return std::sin(3. * p[0]) + p[1] * p[2] + p[2]; },
          coefficient);
      std::vector<double> host;
      coefficient.copy_to(host);
      return host;
    };
    unsigned int              n_structured = 0, unused = 0;
    const std::vector<double> field =
        values(GPU::GeometryStorage::field, n_structured);
    const std::vector<double> stored =
        values(GPU::GeometryStorage::jacobians, unused);
    ASSERT_EQ(field.size(), stored.size());
    ASSERT_EQ(field.size(), tria.n_active_cells() * 27u);
    EXPECT_EQ(n_structured > 0, variant == 1) << "variant " << variant;
    for (std::size_t i = 0; i < field.size(); ++i)
      ASSERT_NEAR(field[i], stored[i], 1e-12)
          << "variant " << variant << ", point " << i;
  }
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
