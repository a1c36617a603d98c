// GPU::internal::MappingInfo, the geometry GPU::MatrixFree keeps, against
// deal.II's FEValues on the same cells: quadrature points, inverse
// Jacobians and JxW, computed on the device from the mapping's support
// points (MappingQ(1, 2, 4), MappingCartesian) or on the host (MappingFE,
// a mapping MappingInfo does not interpolate), on the curved ball refined
// adaptively (hanging nodes) and distributed over the ranks, active cells
// and a multigrid level; float data against double. Also: the quadrature
// points GPU::MatrixFree::evaluate_coefficient() sees, and that DoFInfo
// gives the same indices on one setup thread as on several. Meshes of
// parallelograms (and parallelepipeds) are found affine; one whose cells
// past the first batch are not affine is not.
#include <dealii-gpu/matrix_free/dof_info.h>
#include <dealii-gpu/matrix_free/mapping_info.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_cartesian.h>
#include <deal.II/fe/mapping_fe.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_tools.h>
#include <deal.II/lac/affine_constraints.h>

#include "../meshes.h"
#include "../tests.h"
#include <numeric>

template <int dim>
AffineConstraints<double>
hanging_constraints(const DoFHandler<dim> &dof_handler)
{
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  constraints.close();
  return constraints;
}

// Max relative difference of the device geometry (MappingInfo, in @p
// Number) against FEValues over the locally owned cells; entries are
// compared relative to the largest of their kind on the cell. Entry 3: the
// number of ranks whose cells MappingInfo finds all affine.
template <int dim, typename Number>
std::array<double, 4>
compare(const Mapping<dim>        &mapping,
        const DoFHandler<dim>     &dof_handler,
        const unsigned int         level,
        const unsigned int         n_q_1d,
        const GPU::GeometryStorage storage)
{
  // Levels have no hanging nodes (and other indices).
  AffineConstraints<double> constraints;
  if (level == numbers::invalid_unsigned_int)
    constraints = hanging_constraints(dof_handler);
  constraints.close();
  GPU::SetupTimer             timer;
  GPU::internal::DoFInfo<dim> dof_info;
  dof_info.reinit(dof_handler, constraints, level, timer);
  // A reversed order: the geometry follows the order it is given.
  std::vector<unsigned int> order(dof_info.cells.size());
  std::iota(order.rbegin(), order.rend(), 0u);
  const QGauss<1>                         quadrature(n_q_1d);
  GPU::internal::MappingInfo<dim, Number> info;
  info.reinit(mapping, dof_info, order, quadrature, storage, true, timer);
  // The field keeps no Jacobians: only the points are compared.
  const bool          jacobians = storage == GPU::GeometryStorage::jacobians;
  std::vector<Number> inverse, jxw;
  info.inverse_jacobian.copy_to(inverse);
  info.JxW.copy_to(jxw);
  const bool              affine = info.affine_cells;
  std::vector<Point<dim>> points(order.size() * info.n_q_points);
  // With the field: each cell's node positions from it, as GPU::MatrixFree
  // gathers them on the device (the node list, or the DoF indices where
  // the nodes are the DoFs), here on the host.
  std::vector<unsigned int> node_list;
  std::vector<double>       field;
  info.geometry_indices.copy_to(node_list);
  info.geometry_field.copy_to(field);
  const unsigned int n_nodes = dof_info.lexicographic.size();
  const auto         gather =
      [&](const unsigned int first, const unsigned int n, double *nodes)
  {
    std::vector<double> host(std::size_t(n) * n_nodes * dim);
    for (unsigned int c = 0; c < n; ++c)
      for (unsigned int i = 0; i < n_nodes; ++i)
      {
        const unsigned int node =
            node_list.empty() ? dof_info.indices[std::size_t(order[first + c]) *
                                                     dof_info.dofs_per_cell +
                                                 i] &
                                    ~GPU::constrained_dof_flag
                              : node_list[std::size_t(first + c) * n_nodes + i];
        for (unsigned int d = 0; d < dim; ++d)
          host[(std::size_t(c) * n_nodes + i) * dim + d] =
              field[std::size_t(node) * dim + d];
      }
    GPU::Memory::copy_to_backend(info.quadrature_weights.backend(),
                                 nodes,
                                 host.data(),
                                 host.size() * sizeof(double));
  };
  info.for_each_points_chunk(
      [&](const unsigned int first,
          const unsigned int n,
          const Point<dim>  *chunk,
          Number *)
      {
        std::copy(chunk,
                  chunk + std::size_t(n) * info.n_q_points,
                  points.begin() + std::size_t(first) * info.n_q_points);
      },
      nullptr,
      gather);

  const Quadrature<dim> cell_quadrature(quadrature);
  const unsigned int    n_q = cell_quadrature.size();
  FEValues<dim>         fe_values(mapping,
                          dof_handler.get_fe(),
                          cell_quadrature,
                          update_quadrature_points | update_inverse_jacobians |
                              update_JxW_values);
  std::array<double, 4> error{{0., 0., 0., affine ? 1. : 0.}};
  for (unsigned int c = 0; c < order.size(); ++c)
  {
    fe_values.reinit(
        typename Triangulation<dim>::cell_iterator(dof_info.cells[order[c]]));
    double scale_x = 0, scale_inverse = 0, scale_jxw = 0;
    for (unsigned int q = 0; q < n_q; ++q)
    {
      scale_x   = max_keep_nan(scale_x, fe_values.quadrature_point(q).norm());
      scale_jxw = max_keep_nan(scale_jxw, std::abs(fe_values.JxW(q)));
      for (unsigned int d = 0; d < dim; ++d)
        for (unsigned int e = 0; e < dim; ++e)
          scale_inverse = max_keep_nan(
              scale_inverse, std::abs(fe_values.inverse_jacobian(q)[d][e]));
    }
    for (unsigned int q = 0; q < n_q; ++q)
    {
      error[0] = max_keep_nan(
          error[0],
          (points[std::size_t(c) * n_q + q] - fe_values.quadrature_point(q))
                  .norm() /
              std::max(scale_x, 1e-3));
      for (unsigned int d = 0; d < dim && jacobians; ++d)
        for (unsigned int e = 0; e < dim; ++e)
          error[1] = max_keep_nan(
              error[1],
              std::abs(
                  double(
                      inverse[(std::size_t(c) * dim * dim + d * dim + e) * n_q +
                              q]) -
                  fe_values.inverse_jacobian(q)[d][e]) /
                  scale_inverse);
      if (jacobians)
        error[2] = max_keep_nan(
            error[2],
            std::abs(double(jxw[std::size_t(c) * n_q + q]) - fe_values.JxW(q)) /
                scale_jxw);
    }
  }
  for (unsigned int i = 0; i < 3; ++i)
    error[i] = max_over_ranks(error[i], MPI_COMM_WORLD);
  error[3] = Utilities::MPI::sum(error[3], MPI_COMM_WORLD);
  return error;
}

template <int dim, typename Number>
void
report(const std::string         &name,
       const Mapping<dim>        &mapping,
       const DoFHandler<dim>     &dof_handler,
       const unsigned int         level,
       const unsigned int         n_q_1d,
       const GPU::GeometryStorage storage = GPU::GeometryStorage::jacobians)
{
  const auto error =
      compare<dim, Number>(mapping, dof_handler, level, n_q_1d, storage);
  const double tolerance = sizeof(Number) == 8 ? 1e-13 : 2e-6;
  deallog << dim << "D " << name << (sizeof(Number) == 8 ? " double" : " float")
          << (level == numbers::invalid_unsigned_int
                  ? std::string(" active")
                  : " level " + std::to_string(level))
          << ": points " << (error[0] <= tolerance ? "ok" : "WRONG");
  if (storage == GPU::GeometryStorage::jacobians)
    deallog << ", inverse Jacobians "
            << (error[1] <= tolerance ? "ok" : "WRONG") << ", JxW "
            << (error[2] <= tolerance ? "ok" : "WRONG") << ", "
            << (error[3] == 0. ? std::string("not affine")
                : error[3] == Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD)
                    ? std::string("affine")
                    : "affine on " + std::to_string(int(error[3])) + " ranks");
  deallog << std::endl;
  if (!(max_keep_nan(max_keep_nan(error[0], error[1]), error[2]) <= tolerance))
    deallog << "  errors " << error[0] << ' ' << error[1] << ' ' << error[2]
            << " (tolerance " << tolerance << ")" << std::endl;
}

template <int dim>
void
test()
{
  parallel::distributed::Triangulation<dim> tria(
      MPI_COMM_WORLD,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  make_mesh(tria, true, dim == 2 ? 3 : 1);
  refine_shell(tria, 0.3, 0.7);
  const FE_Q<dim> fe(2);
  DoFHandler<dim> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  dof_handler.distribute_mg_dofs();
  const unsigned int active = numbers::invalid_unsigned_int;
  for (const unsigned int p : {1u, 2u, 4u})
  {
    const MappingQ<dim> mapping(p);
    const std::string   name = "MappingQ(" + std::to_string(p) + ")";
    report<dim, double>(name, mapping, dof_handler, active, 3);
    report<dim, float>(name, mapping, dof_handler, active, 3);
    report<dim, double>(name, mapping, dof_handler, 1, 5);
  }
  // The mapping field (FE_Q(2) represents MappingQ(2)): the quadrature
  // points kept beside it, relative to the field's cell centers.
  const MappingQ<dim> mapping_2(2);
  report<dim, double>("field MappingQ(2)",
                      mapping_2,
                      dof_handler,
                      active,
                      3,
                      GPU::GeometryStorage::field);
  report<dim, float>("field MappingQ(2)",
                     mapping_2,
                     dof_handler,
                     active,
                     3,
                     GPU::GeometryStorage::field);
  // A mapping MappingInfo does not interpolate: FEValues on the host.
  const FE_Q<dim>      fe_mapping(2);
  const MappingFE<dim> mapping_fe(fe_mapping);
  report<dim, double>("MappingFE(FE_Q(2))", mapping_fe, dof_handler, active, 3);

  // MappingCartesian on the cube.
  parallel::distributed::Triangulation<dim> cube(MPI_COMM_WORLD);
  make_mesh(cube, false, 2);
  refine_shell(cube, 0., 0.8);
  DoFHandler<dim> cube_dofs(cube);
  cube_dofs.distribute_dofs(fe);
  report<dim, double>(
      "MappingCartesian", MappingCartesian<dim>(), cube_dofs, active, 3);
  report<dim, float>(
      "cube MappingQ(1)", MappingQ<dim>(1), cube_dofs, active, 3);
  report<dim, double>(
      "cube MappingQ(2)", MappingQ<dim>(2), cube_dofs, active, 4);

  // More cells than a batch of support points (2^15), the cells of the
  // last batch (quadrant x, y < 0, last in the reversed order) moved off
  // the affine: found after a first batch of affine cells.
  if (dim == 2)
  {
    parallel::distributed::Triangulation<dim> bent(MPI_COMM_WORLD);
    make_mesh(bent, false, 8);
    GridTools::transform(
        [](const Point<dim> &p)
        {
          Point<dim> q = p;
          if (p[0] < 0. && p[1] < 0.)
            for (unsigned int d = 0; d < dim; ++d)
              q[d] += 0.02 * std::sin(numbers::PI * p[0]) *
                      std::sin(numbers::PI * p[1]);
          return q;
        },
        bent);
    DoFHandler<dim> bent_dofs(bent);
    bent_dofs.distribute_dofs(fe);
    report<dim, double>(
        "bent quadrant MappingQ(1)", MappingQ<dim>(1), bent_dofs, active, 3);
  }

  // DoFInfo: the same local indices and masks on one setup thread and on
  // several (chunks of 512 cells: a mesh of many chunks).
  parallel::distributed::Triangulation<dim> fine(
      MPI_COMM_WORLD, Triangulation<dim>::limit_level_difference_at_vertices);
  make_mesh(fine, true, dim == 2 ? 5 : 3);
  refine_shell(fine, 0.3, 0.7);
  DoFHandler<dim> fine_dofs(fine);
  fine_dofs.distribute_dofs(fe);
  const AffineConstraints<double> constraints = hanging_constraints(fine_dofs);
  GPU::SetupTimer                 timer;
  GPU::internal::DoFInfo<dim>     threaded, serial;
  GPU::set_n_setup_threads(4);
  threaded.reinit(fine_dofs, constraints, active, timer);
  GPU::set_n_setup_threads(1);
  serial.reinit(fine_dofs, constraints, active, timer);
  GPU::set_n_setup_threads(0);
  deallog << dim << "D DoFInfo on 1 and 4 threads: "
          << (threaded.indices == serial.indices &&
                      threaded.masks == serial.masks &&
                      threaded.touches_ghosts == serial.touches_ghosts
                  ? "identical"
                  : "DIFFERENT")
          << " (" << (threaded.n_hanging_cells > 0 ? "with" : "without")
          << " hanging nodes)" << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  test<2>();
  test<3>();
}
