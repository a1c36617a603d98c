// GPU::MGTransferMatrixFree against deal.II's CPU MGTransferMatrixFree on
// the same p4est meshes (uniform, and adaptive with local smoothing), 2D
// and 3D, FE_Q(1..4) and FESystem: prolongation, restriction, copy_to_mg
// and copy_from_mg of pseudo-random vectors; restriction as the transpose
// of prolongation; prolongation exact for polynomials of the element's
// degree.
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>
#include <deal.II/multigrid/mg_transfer_matrix_free.h>

#include "../tests.h"

using HostVector = LinearAlgebra::distributed::Vector<double>;

// A value for each global index, the same for any number of ranks.
double
value_of(const types::global_dof_index index, const unsigned int seed)
{
  std::uint64_t state = index * 2654435761ULL + seed * 97ULL + 1;
  random_value(state);
  return random_value(state) - 0.5;
}

void
fill(HostVector &v, const unsigned int seed)
{
  for (const auto i : v.locally_owned_elements())
    v(i) = value_of(i, seed);
}

// max |a - b| over the owned entries of all ranks, relative to max |b|.
double
difference(const GPU::Vector<double> &gpu, const HostVector &reference)
{
  HostVector copy(reference.locally_owned_elements(),
                  reference.get_mpi_communicator());
  gpu.copy_locally_owned_data_to(copy);
  copy -= reference;
  const double scale = std::max(max_norm(reference), 1e-300);
  return max_norm(copy) / scale;
}

std::string
verdict(const double relative_error)
{
  return relative_error <= 1e-12 ? "ok" : Utilities::to_string(relative_error);
}

template <int dim>
void
test(const unsigned int degree,
     const unsigned int n_components,
     const bool         adaptive,
     const bool         dirichlet)
{
  const MPI_Comm                            comm = MPI_COMM_WORLD;
  parallel::distributed::Triangulation<dim> tria(
      comm,
      Triangulation<dim>::limit_level_difference_at_vertices,
      parallel::distributed::Triangulation<dim>::construct_multigrid_hierarchy);
  GridGenerator::hyper_cube(tria, -1., 1.);
  tria.refine_global(dim == 2 ? 2 : 1);
  for (unsigned int step = 0; step < 2; ++step)
  {
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned() &&
          (!adaptive || (cell->center()[0] < 0 && cell->center()[1] < 0.3)))
        cell->set_refine_flag();
    tria.execute_coarsening_and_refinement();
  }
  const FESystem<dim> fe(FE_Q<dim>(degree), n_components);
  DoFHandler<dim>     dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  dof_handler.distribute_mg_dofs();
  MGConstrainedDoFs mg_constrained_dofs;
  mg_constrained_dofs.initialize(dof_handler);
  if (dirichlet)
    mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, {0});

  GPU::MGTransferMatrixFree<dim, double> gpu(mg_constrained_dofs);
  gpu.build(dof_handler);
  MGTransferMatrixFree<dim, double> cpu(mg_constrained_dofs);
  cpu.build(dof_handler);

  const unsigned int n_levels   = tria.n_global_levels();
  auto               host_level = [&](const unsigned int l)
  { return HostVector(dof_handler.locally_owned_mg_dofs(l), comm); };
  auto gpu_level = [&](const unsigned int l, const HostVector &values)
  {
    GPU::Vector<double> v(gpu.get_level_partitioner(l));
    v.copy_locally_owned_data_from(values);
    return v;
  };

  double prolongation = 0, restriction = 0, transpose = 0;
  for (unsigned int l = 1; l < n_levels; ++l)
  {
    HostVector coarse = host_level(l - 1), fine = host_level(l);
    fill(coarse, l);
    fill(fine, l + 100);
    HostVector cpu_fine = host_level(l), cpu_coarse = host_level(l - 1);
    cpu.prolongate(l, cpu_fine, coarse);
    GPU::Vector<double> gpu_fine = gpu_level(l, fine);
    gpu.prolongate(l, gpu_fine, gpu_level(l - 1, coarse));
    prolongation = max_keep_nan(prolongation, difference(gpu_fine, cpu_fine));

    // restrict_and_add onto a nonzero vector.
    fill(cpu_coarse, l + 200);
    GPU::Vector<double> gpu_coarse = gpu_level(l - 1, cpu_coarse);
    cpu.restrict_and_add(l, cpu_coarse, fine);
    gpu.restrict_and_add(l, gpu_coarse, gpu_level(l, fine));
    restriction = max_keep_nan(restriction, difference(gpu_coarse, cpu_coarse));

    // (P x, y) = (x, P^T y) on the device alone.
    GPU::Vector<double> x = gpu_level(l - 1, coarse), y = gpu_level(l, fine);
    GPU::Vector<double> Px(gpu.get_level_partitioner(l)),
        Ry(gpu.get_level_partitioner(l - 1));
    gpu.prolongate(l, Px, x);
    gpu.restrict_and_add(l, Ry, y);
    // Both are zero where every coarse DoF is constrained (Dirichlet).
    const double a = Px * y, b = x * Ry;
    transpose = max_keep_nan(transpose, relative_difference(b, a));
  }

  // copy_to_mg and copy_from_mg.
  const IndexSet     &owned = dof_handler.locally_owned_dofs();
  HostVector          global(owned, comm);
  GPU::Vector<double> gpu_global(
      std::make_shared<Utilities::MPI::Partitioner>(owned, comm));
  fill(global, 7);
  gpu_global.copy_locally_owned_data_from(global);
  MGLevelObject<HostVector>          cpu_levels(0, n_levels - 1);
  MGLevelObject<GPU::Vector<double>> gpu_levels(0, n_levels - 1);
  cpu.copy_to_mg(dof_handler, cpu_levels, global);
  gpu.copy_to_mg(dof_handler, gpu_levels, gpu_global);
  double to_mg = 0;
  for (unsigned int l = 0; l < n_levels; ++l)
  {
    HostVector owned_part = host_level(l);
    owned_part.copy_locally_owned_data_from(cpu_levels[l]);
    if (max_norm(owned_part) > 0)
      to_mg = max_keep_nan(to_mg, difference(gpu_levels[l], owned_part));
    else
      to_mg = max_keep_nan(to_mg, max_norm(gpu_levels[l]));
  }
  for (unsigned int l = 0; l < n_levels; ++l)
  {
    HostVector values = host_level(l);
    fill(values, 300 + l);
    cpu_levels[l].reinit(values);
    cpu_levels[l] = values;
    gpu_levels[l].copy_locally_owned_data_from(values);
  }
  cpu.copy_from_mg(dof_handler, global, cpu_levels);
  gpu.copy_from_mg(dof_handler, gpu_global, gpu_levels);
  const double from_mg = difference(gpu_global, global);

  // Prolongation of the level interpolant of a polynomial of degree k in
  // each variable gives its interpolant on the finer level (no Dirichlet
  // DoFs, which the transfer reads as zero). The cells are Cartesian.
  double polynomial = 0;
  if (!dirichlet)
  {
    auto f = [&](const Point<dim> &x, const unsigned int c)
    {
      double v = 1. + c;
      for (unsigned int d = 0; d < dim; ++d)
        v *= std::pow(x[d], degree) + 0.5 * x[d] + 0.25 * (d + 1);
      return v;
    };
    auto interpolate = [&](const unsigned int l)
    {
      HostVector                           v = host_level(l);
      std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
      for (const auto &cell : dof_handler.mg_cell_iterators_on_level(l))
        if (cell->is_locally_owned_on_level())
        {
          cell->get_mg_dof_indices(indices);
          const Point<dim> low  = cell->vertex(0),
                           high = cell->vertex((1 << dim) - 1);
          for (unsigned int i = 0; i < fe.n_dofs_per_cell(); ++i)
            if (v.locally_owned_elements().is_element(indices[i]))
            {
              Point<dim> x;
              for (unsigned int d = 0; d < dim; ++d)
                x[d] = low[d] +
                       (high[d] - low[d]) * fe.get_unit_support_points()[i][d];
              v(indices[i]) = f(x, fe.system_to_component_index(i).first);
            }
        }
      return v;
    };
    for (unsigned int l = 1; l < n_levels; ++l)
    {
      GPU::Vector<double> fine(gpu.get_level_partitioner(l));
      gpu.prolongate(l, fine, gpu_level(l - 1, interpolate(l - 1)));
      polynomial = max_keep_nan(polynomial, difference(fine, interpolate(l)));
    }
  }

  std::ostringstream sizes;
  for (unsigned int l = 0; l < n_levels; ++l)
    sizes << (l ? "," : "") << dof_handler.n_dofs(l);
  deallog << dim << "D Q" << degree << "^" << n_components
          << (adaptive ? " adaptive" : " uniform")
          << (dirichlet ? " Dirichlet" : "") << " level DoFs " << sizes.str()
          << " active " << dof_handler.n_dofs() << ": prolongate "
          << verdict(prolongation) << ", restrict " << verdict(restriction)
          << ", copy_to_mg " << verdict(to_mg) << ", copy_from_mg "
          << verdict(from_mg) << ", transpose " << verdict(transpose)
          << (dirichlet ? "" : ", polynomial " + verdict(polynomial))
          << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  test<2>(1, 1, false, true);
  test<2>(2, 1, true, true);
  test<2>(3, 1, true, false);
  test<2>(4, 2, true, true);
  test<2>(2, 1, false, false);
  test<3>(1, 1, true, true);
  test<3>(2, 1, false, true);
  test<3>(2, 3, true, false);
  test<3>(3, 1, true, true);
  test<3>(4, 1, false, false);
}
