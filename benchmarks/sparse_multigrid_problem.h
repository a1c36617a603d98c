// The problem of benchmarks/sparse_multigrid and sparse_multigrid_cpu
// (Geveler et al.'s): plate_with_a_hole refined globally, FE_Q(k) with
// active and level DoFs in one of the orderings, zero Dirichlet values on
// both boundaries. Host code only.
#ifndef dealii_gpu_benchmarks_sparse_multigrid_problem_h
#define dealii_gpu_benchmarks_sparse_multigrid_problem_h

#include <dealii-gpu/dofs/multigrid_renumbering.h>

#include <deal.II/base/utilities.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_renumbering.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace SparseMultigridProblem
{
  using namespace dealii;

  inline std::vector<unsigned int> parse_list(const std::string &s)
  {
    std::vector<unsigned int> result;
    for (const auto &t : Utilities::split_string_list(s))
      result.push_back(Utilities::string_to_int(t));
    return result;
  }

  // Orderings of the active and every level's DoFs: none (deal.II's), cm
  // (Cuthill-McKee), xyz (downstream along (1, 1e-3, 1e-6)), random, hie
  // (by the refinement tree), 2lv (two-level). xyz and random on one rank
  // only (deal.II 9.4 crashes on several); hie and 2lv check theirs.
  template <int dim>
  void renumber(DoFHandler<dim> &dof_handler, const std::string &ordering)
  {
    const unsigned int n_levels =
        dof_handler.get_triangulation().n_global_levels();
    Tensor<1, dim> direction;
    for (unsigned int d = 0; d < dim; ++d)
      direction[d] = std::pow(1e-3, double(d));
    AssertThrow((ordering != "xyz" && ordering != "random") ||
                    Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) == 1,
                ExcMessage("--orderings: xyz and random need one rank"));
    if (ordering == "cm")
    {
      DoFRenumbering::Cuthill_McKee(dof_handler);
      for (unsigned int l = 0; l < n_levels; ++l)
        DoFRenumbering::Cuthill_McKee(dof_handler, l);
    }
    else if (ordering == "xyz")
    {
      DoFRenumbering::downstream(dof_handler, direction);
      for (unsigned int l = 0; l < n_levels; ++l)
        DoFRenumbering::downstream(dof_handler, l, direction);
    }
    else if (ordering == "random")
    {
      DoFRenumbering::random(dof_handler);
      for (unsigned int l = 0; l < n_levels; ++l)
        DoFRenumbering::random(dof_handler, l);
    }
    else if (ordering == "hie")
      GPU::DoFRenumbering::hierarchical_levels(dof_handler);
    else if (ordering == "2lv")
      GPU::DoFRenumbering::two_level(dof_handler);
    else
      AssertThrow(ordering == "none",
                  ExcMessage("--orderings: none, cm, xyz, random, hie, 2lv"));
  }

  // The mesh, the DoFs (active and level, renumbered) and the constraints.
  template <int dim>
  struct Problem
  {
    parallel::distributed::Triangulation<dim> tria;
    DoFHandler<dim>                           dof_handler;
    std::set<types::boundary_id>              boundary;
    IndexSet                                  relevant;
    AffineConstraints<double>                 constraints;

    Problem(const unsigned int degree,
            const unsigned int refinements,
            const std::string &ordering)
        : tria(MPI_COMM_WORLD,
               Triangulation<dim>::limit_level_difference_at_vertices,
               parallel::distributed::Triangulation<
                   dim>::construct_multigrid_hierarchy),
          dof_handler(tria)
    {
      GridGenerator::plate_with_a_hole(tria);
      tria.refine_global(refinements);
      dof_handler.distribute_dofs(FE_Q<dim>(degree));
      dof_handler.distribute_mg_dofs();
      renumber(dof_handler, ordering);
      for (const auto id : tria.get_boundary_ids())
        boundary.insert(id);
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      constraints.reinit(relevant);
      for (const auto id : boundary)
        DoFTools::make_zero_boundary_constraints(dof_handler, id, constraints);
      constraints.close();
    }
  };
} // namespace SparseMultigridProblem

#endif
