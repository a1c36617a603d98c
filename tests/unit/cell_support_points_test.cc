// CellSupportPoints against FEValues at the same points on curved cells:
// the mapping's own support points copied (MappingQ(p) at its Gauss-Lobatto
// points), interpolated to other nodes (MappingQ(p) at FE_Q(k)'s), and
// FEValues itself for other mappings; which mappings are continuous by
// construction; which cells are placed from their vertices (flat manifold).
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_cartesian.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/fe/mapping_q_cache.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/manifold_lib.h>
#include <deal.II/grid/tria.h>

#include "../../source/matrix_free/cell_support_points.h"
#include <gtest/gtest.h>

using namespace dealii;

namespace
{
  // Largest distance between CellSupportPoints and FEValues over the
  // cells, relative to the cell's diameter.
  template <int dim>
  double largest_difference(const Triangulation<dim>    &tria,
                            const Mapping<dim>          &mapping,
                            const std::vector<Point<1>> &nodes_1d)
  {
    const FE_Q<dim> fe(1);
    FEValues<dim>   fe_values(
        mapping,
        fe,
        Quadrature<dim>(
            Quadrature<1>(nodes_1d, std::vector<double>(nodes_1d.size(), 1.))),
        update_quadrature_points);
    GPU::internal::CellSupportPoints<dim> support(mapping, nodes_1d);
    EXPECT_EQ(support.size(), fe_values.n_quadrature_points);
    std::vector<double> x(support.size() * dim);
    double              largest = 0;
    for (const auto &cell : tria.active_cell_iterators())
    {
      fe_values.reinit(cell);
      support.get(cell, x.data());
      for (unsigned int i = 0; i < support.size(); ++i)
        for (unsigned int d = 0; d < dim; ++d)
          largest = std::max(
              largest,
              std::abs(x[i * dim + d] - fe_values.quadrature_point(i)[d]) /
                  cell->diameter());
    }
    return largest;
  }

  // How many cells CellSupportPoints places from their vertices.
  template <int dim>
  std::size_t cells_from_vertices(const Triangulation<dim>    &tria,
                                  const Mapping<dim>          &mapping,
                                  const std::vector<Point<1>> &nodes_1d)
  {
    GPU::internal::CellSupportPoints<dim> support(mapping, nodes_1d);
    std::vector<double>                   x(support.size() * dim);
    for (const auto &cell : tria.active_cell_iterators())
      support.get(cell, x.data());
    return support.n_cells_from_vertices();
  }

  template <int dim>
  void check_ball()
  {
    Triangulation<dim> tria;
    GridGenerator::hyper_ball(tria);
    tria.refine_global(1);
    for (unsigned int p = 1; p <= 4; ++p)
    {
      const MappingQ<dim> mapping(p);
      EXPECT_LT(largest_difference(
                    tria, mapping, QGaussLobatto<1>(p + 1).get_points()),
                1e-14)
          << "MappingQ(" << p << ") at its support points";
      // FE_Q(k)'s nodes, k >= p: interpolated from the support points.
      for (const unsigned int k : {p + 1, p + 3})
        EXPECT_LT(largest_difference(
                      tria, mapping, QGaussLobatto<1>(k + 1).get_points()),
                  1e-13)
            << "MappingQ(" << p << ") at FE_Q(" << k << ")'s nodes";
    }
  }
} // namespace

TEST(CellSupportPoints, MatchFEValuesOnTheBall2D)
{
  check_ball<2>();
}

TEST(CellSupportPoints, MatchFEValuesOnTheBall3D)
{
  check_ball<3>();
}

TEST(CellSupportPoints, OtherMappingsGoThroughFEValues)
{
  Triangulation<3> tria;
  GridGenerator::subdivided_hyper_rectangle(
      tria, {2, 3, 1}, Point<3>(0, 0, 0), Point<3>(1, 2, 0.5));
  const MappingCartesian<3> mapping;
  EXPECT_LT(largest_difference(tria, mapping, QGauss<1>(3).get_points()),
            1e-15);
}

TEST(CellSupportPoints, OnlyDealIIsMappingQIsContinuousByConstruction)
{
  Triangulation<2> tria;
  GridGenerator::hyper_ball(tria);
  MappingQCache<2> cache(2);
  cache.initialize(MappingQ<2>(2), tria);
  using Support = GPU::internal::CellSupportPoints<2>;
  EXPECT_TRUE(Support::continuous(MappingQ<2>(3)));
  EXPECT_TRUE(Support::continuous(MappingQ1<2>()));
  EXPECT_FALSE(Support::continuous(cache));
  EXPECT_FALSE(Support::continuous(MappingCartesian<2>()));
  // A derived mapping still gets its own (overridden) support points.
  EXPECT_LT(largest_difference(tria, cache, QGaussLobatto<1>(3).get_points()),
            1e-14);
}

// The inner cells of the ball are on the flat manifold and placed from their
// vertices, those at the boundary through the spherical manifold; both
// match FEValues (check_ball above) and deal.II's MappingQ.
TEST(CellSupportPoints, FlatCellsFromTheirVertices)
{
  Triangulation<3> tria;
  GridGenerator::hyper_ball(tria);
  tria.refine_global(2);
  const MappingQ<3> mapping(2);
  const auto        nodes         = QGauss<1>(4).get_points();
  const std::size_t from_vertices = cells_from_vertices(tria, mapping, nodes);
  unsigned int      n_at_boundary = 0;
  for (const auto &cell : tria.active_cell_iterators())
    n_at_boundary += cell->at_boundary() ? 1 : 0;
  // A cell touching the boundary at an edge or vertex only also takes the
  // manifold's path (its lines are on the sphere).
  EXPECT_GT(from_vertices, 0u);
  EXPECT_LE(from_vertices, tria.n_active_cells() - n_at_boundary);
  EXPECT_LT(largest_difference(tria, mapping, nodes), 1e-14);
}

// One inner line on a curved manifold: the four cells around it take the
// manifold (their points move), the other four come from their vertices.
TEST(CellSupportPoints, ACurvedLineTakesTheManifold)
{
  Triangulation<3> tria;
  GridGenerator::hyper_cube(tria);
  tria.refine_global(1);
  for (const auto &cell : tria.active_cell_iterators())
    for (unsigned int l = 0; l < GeometryInfo<3>::lines_per_cell; ++l)
      if (cell->line(l)->center().distance(Point<3>(0.5, 0.5, 0.25)) < 1e-12)
        cell->line(l)->set_manifold_id(5);
  tria.set_manifold(5, SphericalManifold<3>(Point<3>(3, 0.5, 0.25)));
  for (const unsigned int p : {1u, 2u, 3u})
  {
    const MappingQ<3> mapping(p);
    const auto        nodes = QGauss<1>(p + 1).get_points();
    // MappingQ(1) places only the vertices, whatever the manifolds.
    EXPECT_EQ(cells_from_vertices(tria, mapping, nodes), p == 1 ? 8u : 4u);
    EXPECT_LT(largest_difference(tria, mapping, nodes), 1e-14);
  }
  // The curved line moved the points of MappingQ(2) away from the
  // multilinear ones: the test above sees the manifold.
  const MappingQ<3> mapping(2);
  const FE_Q<3>     fe(1);
  FEValues<3>       fe_values(mapping,
                        fe,
                        Quadrature<3>(Point<3>(0.5, 0.5, 0.5)),
                        update_quadrature_points);
  double            moved = 0;
  for (const auto &cell : tria.active_cell_iterators())
  {
    fe_values.reinit(cell);
    moved =
        std::max(moved, fe_values.quadrature_point(0).distance(cell->center()));
  }
  EXPECT_GT(moved, 1e-3);
}
