// A multigrid level whose cells are all active takes its geometry from
// the system operator's (GPU::MatrixFree::AdditionalData::geometry_source,
// as GPU::MatrixFreeMultigrid::initialize(system, ...) passes it), gathered
// on the device instead of asked from the mapping again. On the 3D ball
// (MappingQ(2), Q2, the coefficient evaluated at the points), with the
// active DoFs renumbered (Cuthill-McKee) so that the active and level
// numberings differ (which the test checks: the identity would pass
// otherwise), every level's operator, in double and float, agrees with
// deal.II's CPU MatrixFree on the same level (vmult, 1e-12 / 1e-5), and
// each level says where its geometry came from, for three systems:
// - the mapping field: on the uniform ball the finest level from the
//   system, the others (cells not active) from the mapping; on the ball
//   refined once more in a shell every level from the mapping, since the
//   system's field then has its own node numbering (hanging nodes);
// - stored Jacobians and points, gathered cell by cell: the finest level
//   from the system on both meshes (its cells are all active);
// - GPU::LaplaceOperator with a stored: a float level (merged tensor)
//   takes Jacobians and a from the system's get_level_source(), as
//   GPU::MultigridPreconditioner::initialize(system, ...) does.
// The multigrid built on the system operator (field or Jacobians) copies
// between the global vector and the levels as deal.II's
// MGTransferMatrixFree does (its transfer reads the finest level's active
// DoFs from that level's operator where the level took the system's field
// or Jacobians, and visits the cells otherwise).
#include <dealii-gpu/multigrid/matrix_free_multigrid.h>
#include <dealii-gpu/operators/laplace_operator.h>
#include <dealii-gpu/operators/matrix_free_operator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_renumbering.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>

#include "../meshes.h"
#include "../tests.h"

using Operation = GPU::LaplaceOperation<BallOfX>;
template <typename Number, GPU::MatrixFreeBackend backend>
using LevelOperator =
    GPU::MatrixFreeOperator<3, 2, 1, Number, Operation, backend>;

// Relative difference of the level operator @p gpu (reinit()ed on
// @p level) from deal.II's CPU MatrixFree with the same operation, and
// where its geometry came from: "system" (gathered from the active cells),
// "mapping" or "?".
template <typename Number, typename GPUOperator>
double
level_error(const Mapping<3>    &mapping,
            const DoFHandler<3> &dof_handler,
            const GPUOperator   &gpu,
            const unsigned int   level,
            std::string         &geometry_from)
{
  using CPU = LevelOperator<Number, GPU::MatrixFreeBackend::cpu>;
  const AffineConstraints<double> no_constraints;
  typename CPU::AdditionalData    cpu_data;
  cpu_data.mg_level = level;
  CPU cpu;
  cpu.reinit(mapping, dof_handler, no_constraints, Operation{}, cpu_data);
  bool gathered = false, computed = false;
  for (const auto &step : gpu.get_setup_timer().steps())
  {
    gathered = gathered ||
               step.first.find("from the active cells") != std::string::npos;
    computed = computed || step.first == "geometry field" ||
               step.first == "mapping support points";
  }
  geometry_from = gathered && !computed ? "system" : computed ? "mapping" : "?";

  LinearAlgebra::distributed::Vector<Number> src, dst, from_gpu;
  cpu.initialize_dof_vector(src);
  cpu.initialize_dof_vector(dst);
  cpu.initialize_dof_vector(from_gpu);
  const IndexSet owned = src.locally_owned_elements();
  for (unsigned int i = 0; i < src.locally_owned_size(); ++i)
  {
    std::uint64_t state = owned.nth_index_in_set(i) * 977 + 5;
    random_value(state);
    src.local_element(i) = Number(random_value(state) - 0.5);
  }
  GPU::Vector<Number> gpu_src, gpu_dst;
  gpu.initialize_dof_vector(gpu_src);
  gpu.initialize_dof_vector(gpu_dst);
  gpu_src.copy_locally_owned_data_from(src);
  cpu.vmult(dst, src);
  gpu.vmult(gpu_dst, gpu_src);
  gpu_dst.copy_locally_owned_data_to(from_gpu);
  from_gpu -= dst;
  return double(max_norm(from_gpu)) / double(max_norm(dst));
}

// The level operator with the coefficient in the kernels, the geometry of
// the form @p geometry, given the system's.
template <typename Number>
double
operation_level_error(const Mapping<3>                 &mapping,
                      const DoFHandler<3>              &dof_handler,
                      const GPU::MatrixFree<3, double> &system,
                      const GPU::GeometryStorage        geometry,
                      const unsigned int                level,
                      std::string                      &geometry_from)
{
  using GPUOp = LevelOperator<Number, GPU::MatrixFreeBackend::gpu>;
  const AffineConstraints<double> no_constraints;
  typename GPUOp::AdditionalData  gpu_data;
  gpu_data.mg_level        = level;
  gpu_data.geometry        = geometry;
  gpu_data.geometry_source = system.get_geometry_field_source();
  GPUOp gpu;
  gpu.reinit(mapping, dof_handler, no_constraints, Operation{}, gpu_data);
  return level_error<Number>(mapping, dof_handler, gpu, level, geometry_from);
}

// GPU::LaplaceOperator's level (a stored, merged with the Jacobians),
// given the system LaplaceOperator's geometry and coefficient.
double
laplace_level_error(const Mapping<3>                         &mapping,
                    const DoFHandler<3>                      &dof_handler,
                    const GPU::LaplaceOperator<3, 2, double> &system,
                    const unsigned int                        level,
                    std::string                              &geometry_from)
{
  const AffineConstraints<double>   no_constraints;
  GPU::LaplaceOperator<3, 2, float> gpu;
  gpu.reinit(
      mapping,
      dof_handler,
      no_constraints,
      [](const Point<3> &x) { return BallOfX{}(x); },
      {},
      level,
      false,
      GPU::GeometryStorage::jacobians,
      true,
      system.get_level_source());
  return level_error<float>(mapping, dof_handler, gpu, level, geometry_from);
}

// Largest difference of copy_to_mg() and copy_from_mg() of the multigrid's
// float transfer from deal.II's on pseudo-random vectors (copies: exact).
template <typename System>
double
copy_error(const Mapping<3>          &mapping,
           const DoFHandler<3>       &dof_handler,
           const System              &system,
           const GPU::GeometryStorage geometry)
{
  GPU::MatrixFreeMultigrid<3, 2, 1, Operation> multigrid;
  GPU::MultigridData                           data;
  data.geometry = geometry;
  multigrid.initialize(system, mapping, dof_handler, {0}, Operation{}, data);
  const auto               &transfer = multigrid.get_transfer<float>();
  dealii::MGConstrainedDoFs constrained;
  constrained.initialize(dof_handler);
  constrained.make_zero_boundary_constraints(dof_handler, {0});
  dealii::MGTransferMatrixFree<3, float> reference(constrained);
  reference.build(dof_handler);

  const MPI_Comm  comm     = MPI_COMM_WORLD;
  const IndexSet &owned    = dof_handler.locally_owned_dofs();
  const auto      n_levels = dof_handler.get_triangulation().n_global_levels();
  const auto      fill     = [](auto &v, const std::uint64_t seed)
  {
    const IndexSet set = v.locally_owned_elements();
    for (unsigned int i = 0; i < v.locally_owned_size(); ++i)
    {
      std::uint64_t state = set.nth_index_in_set(i) * 977 + seed;
      random_value(state);
      v.local_element(i) = random_value(state) - 0.5;
    }
  };
  LinearAlgebra::distributed::Vector<double> global(owned, comm);
  fill(global, 11);
  GPU::Vector<double> gpu_global(
      std::make_shared<Utilities::MPI::Partitioner>(owned, comm));
  gpu_global.copy_locally_owned_data_from(global);
  MGLevelObject<LinearAlgebra::distributed::Vector<float>> levels(0,
                                                                  n_levels - 1);
  MGLevelObject<GPU::Vector<float>> gpu_levels(0, n_levels - 1);
  reference.copy_to_mg(dof_handler, levels, global);
  transfer.copy_to_mg(dof_handler, gpu_levels, gpu_global);
  double error = 0;
  for (unsigned int l = 0; l < n_levels; ++l)
  {
    LinearAlgebra::distributed::Vector<float> from_gpu(
        dof_handler.locally_owned_mg_dofs(l), comm),
        expected(dof_handler.locally_owned_mg_dofs(l), comm);
    expected.copy_locally_owned_data_from(levels[l]);
    gpu_levels[l].copy_locally_owned_data_to(from_gpu);
    from_gpu -= expected;
    error = max_keep_nan(error, double(max_norm(from_gpu)));
    // New values on the levels for copy_from_mg.
    fill(expected, 100 + l);
    levels[l].reinit(expected);
    levels[l] = expected;
    gpu_levels[l].copy_locally_owned_data_from(expected);
  }
  LinearAlgebra::distributed::Vector<double> from_gpu(owned, comm);
  reference.copy_from_mg(dof_handler, global, levels);
  transfer.copy_from_mg(dof_handler, gpu_global, gpu_levels);
  gpu_global.copy_locally_owned_data_to(from_gpu);
  from_gpu -= global;
  return max_keep_nan(error, max_norm(from_gpu));
}

void
check(const bool shell)
{
  parallel::distributed::Triangulation<3> tria(
      MPI_COMM_WORLD,
      Triangulation<3>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<3>::construct_multigrid_hierarchy);
  make_mesh(tria, true, 2);
  if (shell)
    refine_shell(tria, 0.3, 0.6);
  const MappingQ<3> mapping(2);
  DoFHandler<3>     dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<3>(2));
  dof_handler.distribute_mg_dofs();
  const std::vector<types::global_dof_index> before = [&]
  {
    std::vector<types::global_dof_index> indices;
    std::vector<types::global_dof_index> cell_indices(27);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
      {
        cell->get_dof_indices(cell_indices);
        indices.insert(indices.end(), cell_indices.begin(), cell_indices.end());
      }
    return indices;
  }();
  DoFRenumbering::Cuthill_McKee(dof_handler);
  bool renumbered = false;
  {
    std::size_t                          k = 0;
    std::vector<types::global_dof_index> cell_indices(27);
    for (const auto &cell : dof_handler.active_cell_iterators())
      if (cell->is_locally_owned())
      {
        cell->get_dof_indices(cell_indices);
        for (const auto index : cell_indices)
          renumbered = renumbered || index != before[k++];
      }
  }
  renumbered = Utilities::MPI::max(renumbered ? 1u : 0u, MPI_COMM_WORLD) == 1u;

  // The system operator with the field (the automatic choice for 3D Q2
  // without hanging nodes; with them its nodes are not the DoFs, so the
  // levels cannot take it).
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  AffineConstraints<double> constraints(relevant);
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  constraints.close();
  GPU::MatrixFreeOperator<3, 2, 1, double, Operation> system;
  typename decltype(system)::AdditionalData           data;
  data.geometry = GPU::GeometryStorage::field;
  system.reinit(mapping, dof_handler, constraints, Operation{}, data);
  // With stored Jacobians (and points, for the coefficient): the levels
  // gather them cell by cell, hanging nodes or not.
  GPU::MatrixFreeOperator<3, 2, 1, double, Operation> jacobian_system;
  data.geometry = GPU::GeometryStorage::jacobians;
  jacobian_system.reinit(mapping, dof_handler, constraints, Operation{}, data);
  GPU::LaplaceOperator<3, 2, double> laplace_system;
  laplace_system.reinit(
      mapping,
      dof_handler,
      constraints,
      [](const Point<3> &x) { return BallOfX{}(x); },
      {},
      numbers::invalid_unsigned_int,
      false,
      GPU::GeometryStorage::jacobians);

  std::ostringstream line;
  line << (shell ? "ball refined in a shell" : "uniform ball") << ", "
       << tria.n_global_levels()
       << " levels, active DoFs renumbered: " << (renumbered ? "yes" : "no");
  deallog << line.str() << std::endl;
  // A rank without cells on a level has no geometry of either kind.
  const auto all = [](const std::string &from)
  {
    const unsigned int system_here  = from == "system" ? 1 : 0;
    const unsigned int mapping_here = from == "mapping" ? 1 : 0;
    const bool         any_system =
        Utilities::MPI::max(system_here, MPI_COMM_WORLD) == 1;
    const bool any_mapping =
        Utilities::MPI::max(mapping_here, MPI_COMM_WORLD) == 1;
    return any_system && !any_mapping   ? std::string("system")
           : any_mapping && !any_system ? std::string("mapping")
                                        : std::string("mixed");
  };
  const auto within = [](const double error, const double tolerance)
  {
    const double       e = max_over_ranks(error, MPI_COMM_WORLD);
    std::ostringstream out;
    if (e <= tolerance)
      out << "within " << tolerance;
    else
      out << "ERROR " << e;
    return out.str();
  };
  for (unsigned int level = 0; level < tria.n_global_levels(); ++level)
  {
    const auto  field     = GPU::GeometryStorage::field;
    const auto  jacobians = GPU::GeometryStorage::jacobians;
    std::string from_double, from_float, jacobians_double, jacobians_float,
        laplace;
    const double e_double =
        operation_level_error<double>(mapping,
                                      dof_handler,
                                      system.get_matrix_free(),
                                      field,
                                      level,
                                      from_double);
    const double e_float =
        operation_level_error<float>(mapping,
                                     dof_handler,
                                     system.get_matrix_free(),
                                     field,
                                     level,
                                     from_float);
    const double j_double =
        operation_level_error<double>(mapping,
                                      dof_handler,
                                      jacobian_system.get_matrix_free(),
                                      jacobians,
                                      level,
                                      jacobians_double);
    const double j_float =
        operation_level_error<float>(mapping,
                                     dof_handler,
                                     jacobian_system.get_matrix_free(),
                                     jacobians,
                                     level,
                                     jacobians_float);
    const double l_float = laplace_level_error(
        mapping, dof_handler, laplace_system, level, laplace);
    deallog << "  level " << level << ": field from the " << all(from_double)
            << " (double), " << all(from_float)
            << " (float); vmult against deal.II: double "
            << within(e_double, 1e-12) << ", float " << within(e_float, 1e-5)
            << std::endl;
    deallog << "    Jacobians and points from the " << all(jacobians_double)
            << " (double), " << all(jacobians_float)
            << " (float); vmult: double " << within(j_double, 1e-12)
            << ", float " << within(j_float, 1e-5) << std::endl;
    deallog << "    LaplaceOperator<float> (a stored, merged): geometry from "
               "the "
            << all(laplace) << "; vmult: " << within(l_float, 1e-5)
            << std::endl;
  }
  // The finest level's active DoFs come from the level operator's field
  // gather (field) or from its cells (Jacobians); the transfer then makes
  // the copies in kernels, the shell's refinement edges left out (its
  // field multigrid visits the cells: hanging nodes).
  const auto copies = [&](const auto &from, const char *geometry)
  {
    const double error = max_over_ranks(
        copy_error(mapping,
                   dof_handler,
                   from,
                   from.get_matrix_free().get_geometry_storage()),
        MPI_COMM_WORLD);
    deallog << "  multigrid transfer's copy_to_mg and copy_from_mg against "
               "deal.II's (levels with the system's "
            << geometry << "): "
            << (error == 0. ? "equal" : "ERROR " + std::to_string(error))
            << std::endl;
  };
  copies(system, "field");
  copies(jacobian_system, "Jacobians");
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  check(false);
  check(true);
}
