// GPU::KellyErrorEstimator against deal.II's KellyErrorEstimator on the
// same solution (a smooth function interpolated): every owned cell's
// indicator agrees to 1e-5 (they are floats; 1e-9 of the largest where the
// jumps are at roundoff level) on curved (MappingQ) and flat
// meshes with hanging nodes on faces and edges, 2D and 3D, Q1-Q4, a 3D
// mesh whose faces are not in standard orientation, and 1 and 3 ranks.
// Bad input is refused with a message: an element other than FE_Q, Neumann
// data, and (3 ranks) a solution without the ghost cells' DoFs.
#include <dealii-gpu/numerics/error_estimator.h>

#include <deal.II/base/function.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/numerics/error_estimator.h>
#include <deal.II/numerics/vector_tools.h>

#include "../meshes.h"
#include "../tests.h"

template <int dim>
struct Smooth : Function<dim>
{
  double value(const Point<dim> &p, const unsigned int) const override
  {
    return std::sin(2. * p[0] + 0.3) * std::cos(1.5 * p[1]) *
           (dim == 3 ? std::exp(0.5 * p[dim - 1]) : 1.);
  }
};

using Tria3 = parallel::distributed::Triangulation<3>;

// Two unit cubes side by side, the second with its vertices rotated about
// the x axis, so that their shared face is not in standard orientation.
void
make_rotated_pair(Tria3 &tria)
{
  std::vector<Point<3>> vertices;
  for (unsigned int i = 0; i < 12; ++i)
    vertices.emplace_back(i % 3, (i / 3) % 2, i / 6);
  std::vector<CellData<3>> cells(2);
  // Vertex (x, y, z) is x + 3 y + 6 z.
  const auto v = [](unsigned x, unsigned y, unsigned z)
  { return x + 3 * y + 6 * z; };
  for (unsigned int k = 0; k < 8; ++k)
    cells[0].vertices[k] = v(k % 2, (k / 2) % 2, k / 4);
  // Local (a, b, c) of cell 1 is global (1 + a, c, 1 - b).
  for (unsigned int k = 0; k < 8; ++k)
    cells[1].vertices[k] = v(1 + k % 2, k / 4, 1 - (k / 2) % 2);
  tria.create_triangulation(vertices, cells, SubCellData());
}

template <int dim>
void
check(const std::string                         &name,
      parallel::distributed::Triangulation<dim> &tria,
      const unsigned int                         degree,
      const unsigned int                         mapping_degree)
{
  const MPI_Comm  comm = tria.get_communicator();
  FE_Q<dim>       fe(degree);
  MappingQ<dim>   mapping(mapping_degree);
  DoFHandler<dim> dof_handler(tria);
  dof_handler.distribute_dofs(fe);
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  LinearAlgebra::distributed::Vector<double> u(
      dof_handler.locally_owned_dofs(), relevant, comm);
  VectorTools::interpolate(mapping, dof_handler, Smooth<dim>(), u);
  u.update_ghost_values();

  Vector<float>         reference, ours;
  const QGauss<dim - 1> quadrature(degree + 1);
  KellyErrorEstimator<dim>::estimate(
      mapping, dof_handler, quadrature, {}, u, reference);
  GPU::KellyErrorEstimator<dim>::estimate(
      mapping, dof_handler, quadrature, {}, u, ours);

  // Where the jumps are at roundoff level (Q4 on fine cells), so are the
  // indicators: 1e-9 of the largest is the floor.
  double largest = 0;
  for (const auto &cell : tria.active_cell_iterators())
    if (cell->is_locally_owned())
      largest =
          max_keep_nan(largest, double(reference[cell->active_cell_index()]));
  largest            = Utilities::MPI::max(largest, comm);
  double       worst = 0, sum = 0;
  unsigned int refined_faces = 0, turned_faces = 0;
  for (const auto &cell : tria.active_cell_iterators())
    if (cell->is_locally_owned())
    {
      const unsigned int i = cell->active_cell_index();
      worst                = max_keep_nan(worst,
                           std::abs(double(ours[i]) - reference[i]) /
                               (reference[i] + 1e-4 * largest));
      sum += double(reference[i]) * reference[i];
      for (const unsigned int f : cell->face_indices())
      {
        refined_faces += !cell->at_boundary(f) && cell->face(f)->has_children();
        turned_faces += !cell->face_orientation(f) || cell->face_flip(f) ||
                        cell->face_rotation(f);
      }
    }
  worst         = max_over_ranks(worst, comm);
  sum           = Utilities::MPI::sum(sum, comm);
  refined_faces = Utilities::MPI::sum(refined_faces, comm);
  turned_faces  = Utilities::MPI::sum(turned_faces, comm);
  deallog << name << ", Q" << degree << ", MappingQ(" << mapping_degree
          << "): " << tria.n_global_active_cells() << " cells, "
          << refined_faces << " refined faces, " << turned_faces
          << " faces not in standard orientation, |eta| (deal.II) "
          << std::setprecision(4) << std::sqrt(sum) << std::setprecision(6)
          << ", every cell within 1e-5 of deal.II: "
          << (worst <= 1e-5 ? "yes" : "no") << std::endl;
  if (worst > 1e-5)
    std::cout << name << ": largest relative difference " << worst << std::endl;
}

template <int dim>
void
ball_and_cube(const unsigned int degree, const unsigned int mapping_degree)
{
  for (const bool ball : {true, false})
  {
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    make_mesh(tria, ball, dim == 2 ? 2 : 1, ball ? 1 : 2);
    refine_shell(tria, 0., 0.5);
    refine_shell(tria, 0., 0.3);
    check<dim>(std::to_string(dim) + "D " + (ball ? "ball" : "cube"),
               tria,
               degree,
               ball ? mapping_degree : 1);
  }
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;

  ball_and_cube<2>(1, 1);
  ball_and_cube<2>(2, 2);
  ball_and_cube<2>(4, 4);
  ball_and_cube<3>(2, 2);
  ball_and_cube<3>(3, 3);
  ball_and_cube<3>(4, 4);
  {
    Tria3 tria(MPI_COMM_WORLD);
    make_rotated_pair(tria);
    tria.refine_global(1);
    for (const auto &cell : tria.active_cell_iterators())
      if (cell->is_locally_owned() && cell->center()[0] < 1. &&
          cell->center()[1] < 0.5)
        cell->set_refine_flag();
    tria.execute_coarsening_and_refinement();
    check<3>("3D rotated pair", tria, 2, 2);
  }

  // Bad input.
  {
    parallel::distributed::Triangulation<2> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(3);
    MappingQ<2>   mapping(1);
    Vector<float> error;
    DoFHandler<2> dg(tria);
    dg.distribute_dofs(FE_DGQ<2>(1));
    LinearAlgebra::distributed::Vector<double> w(dg.locally_owned_dofs(),
                                                 MPI_COMM_WORLD);
    expect_error("FE_DGQ(1)",
                 "not FE_DGQ",
                 [&]
                 {
                   GPU::KellyErrorEstimator<2>::estimate(
                       mapping, dg, QGauss<1>(2), {}, w, error);
                 });
    DoFHandler<2> dof_handler(tria);
    dof_handler.distribute_dofs(FE_Q<2>(1));
    LinearAlgebra::distributed::Vector<double> u(
        dof_handler.locally_owned_dofs(), MPI_COMM_WORLD);
    Functions::ConstantFunction<2> g(1.);
    expect_error("Neumann data",
                 "Neumann",
                 [&]
                 {
                   GPU::KellyErrorEstimator<2>::estimate(
                       mapping, dof_handler, QGauss<1>(2), {{0, &g}}, u, error);
                 });
    if (Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) > 1)
      expect_error("a solution without ghosts",
                   "ghost it on the locally relevant DoFs",
                   [&]
                   {
                     GPU::KellyErrorEstimator<2>::estimate(
                         mapping, dof_handler, QGauss<1>(2), {}, u, error);
                   });
  }
}
