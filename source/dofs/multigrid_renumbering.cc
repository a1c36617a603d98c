#include <dealii-gpu/dofs/multigrid_renumbering.h>

#include <deal.II/base/geometry_info.h>
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe.h>

#include <functional>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace DoFRenumbering
    {
      namespace
      {
        template <int dim>
        using LevelCell = typename DoFHandler<dim, dim>::level_cell_iterator;

        template <int dim>
        void check_requirements(const DoFHandler<dim, dim> &dof_handler,
                                const char                 *name)
        {
          const auto &tria = dof_handler.get_triangulation();
          AssertThrow(
              Utilities::MPI::n_mpi_processes(tria.get_communicator()) == 1,
              ExcMessage(std::string(name) + " needs one MPI rank"));
          AssertThrow(
              dof_handler.has_level_dofs(),
              ExcMessage(std::string(name) + " needs distribute_mg_dofs()"));
          for (const auto &cell : dof_handler.active_cell_iterators())
            AssertThrow(cell->level() + 1 == int(tria.n_levels()),
                        ExcMessage(std::string(name) +
                                   " needs a uniformly refined mesh"));
        }

        // The cells of @p level, depth first through the refinement tree.
        template <int dim>
        std::vector<LevelCell<dim>>
        tree_order(const DoFHandler<dim, dim> &dof_handler,
                   const unsigned int          level)
        {
          std::vector<LevelCell<dim>>                 cells;
          std::function<void(const LevelCell<dim> &)> descend =
              [&](const LevelCell<dim> &cell)
          {
            if (cell->level() == int(level))
              cells.push_back(cell);
            else if (cell->has_children())
              for (unsigned int c = 0; c < cell->n_children(); ++c)
                descend(cell->child(c));
          };
          for (const auto &cell : dof_handler.mg_cell_iterators_on_level(0))
            descend(cell);
          return cells;
        }

        // Unnumbered DoFs of @p cells get next, next + 1, ... in the order
        // they first appear; returns the next free number.
        template <int dim>
        types::global_dof_index
        number_by_appearance(const std::vector<LevelCell<dim>>    &cells,
                             std::vector<types::global_dof_index> &numbers,
                             types::global_dof_index               next)
        {
          std::vector<types::global_dof_index> dofs(
              cells.empty() ? 0 : cells[0]->get_fe().n_dofs_per_cell());
          for (const auto &cell : cells)
          {
            cell->get_mg_dof_indices(dofs);
            for (const auto i : dofs)
              if (numbers[i] == numbers::invalid_dof_index)
                numbers[i] = next++;
          }
          return next;
        }

        // The active DoFs numbered as the same cells' finest-level DoFs.
        template <int dim>
        void active_from_finest_level(DoFHandler<dim, dim> &dof_handler)
        {
          std::vector<types::global_dof_index> numbers(
              dof_handler.n_dofs(), numbers::invalid_dof_index);
          const unsigned int n = dof_handler.get_fe().n_dofs_per_cell();
          std::vector<types::global_dof_index> active(n), level(n);
          for (const auto &cell : dof_handler.active_cell_iterators())
          {
            cell->get_dof_indices(active);
            cell->get_mg_dof_indices(level);
            for (unsigned int i = 0; i < n; ++i)
              numbers[active[i]] = level[i];
          }
          dof_handler.renumber_dofs(numbers);
        }
      } // namespace

      template <int dim>
      void hierarchical_levels(DoFHandler<dim, dim> &dof_handler)
      {
        check_requirements(dof_handler, "hierarchical_levels()");
        const unsigned int n_levels =
            dof_handler.get_triangulation().n_levels();
        for (unsigned int level = 0; level < n_levels; ++level)
        {
          std::vector<types::global_dof_index> numbers(
              dof_handler.n_dofs(level), numbers::invalid_dof_index);
          number_by_appearance<dim>(tree_order(dof_handler, level), numbers, 0);
          dof_handler.renumber_dofs(level, numbers);
        }
        active_from_finest_level(dof_handler);
      }

      template <int dim>
      void two_level(DoFHandler<dim, dim> &dof_handler)
      {
        check_requirements(dof_handler, "two_level()");
        const FiniteElement<dim> &fe = dof_handler.get_fe();
        AssertThrow(fe.has_support_points(),
                    ExcMessage("two_level() needs an element with support "
                               "points, " +
                               fe.get_name() + " has none"));
        // Parent DoF i sits at child child_of[i]'s DoF dof_of[i] (the
        // first child holding its support point).
        const auto               &points = fe.get_unit_support_points();
        const unsigned int        n      = fe.n_dofs_per_cell();
        std::vector<unsigned int> child_of(n), dof_of(n);
        for (unsigned int i = 0; i < n; ++i)
        {
          bool found = false;
          for (unsigned int c = 0;
               c < GeometryInfo<dim>::max_children_per_cell && !found;
               ++c)
          {
            const Point<dim> q =
                GeometryInfo<dim>::cell_to_child_coordinates(points[i], c);
            if (!GeometryInfo<dim>::is_inside_unit_cell(q, 1e-12))
              continue;
            for (unsigned int j = 0; j < n && !found; ++j)
              if (q.distance(points[j]) < 1e-10)
              {
                child_of[i] = c;
                dof_of[i]   = j;
                found       = true;
              }
          }
          AssertThrow(found,
                      ExcMessage("two_level(): the support points of " +
                                 fe.get_name() + " are not nested"));
        }

        const unsigned int n_levels =
            dof_handler.get_triangulation().n_levels();
        std::vector<types::global_dof_index> coarse(n), fine(n);
        for (unsigned int level = 0; level < n_levels; ++level)
        {
          std::vector<types::global_dof_index> numbers(
              dof_handler.n_dofs(level), numbers::invalid_dof_index);
          types::global_dof_index next = 0;
          if (level > 0)
          {
            for (const auto &cell :
                 dof_handler.mg_cell_iterators_on_level(level - 1))
            {
              cell->get_mg_dof_indices(coarse);
              for (unsigned int i = 0; i < n; ++i)
              {
                cell->child(child_of[i])->get_mg_dof_indices(fine);
                numbers[fine[dof_of[i]]] = coarse[i];
              }
            }
            next = dof_handler.n_dofs(level - 1);
          }
          next = number_by_appearance<dim>(
              tree_order(dof_handler, level), numbers, next);
          AssertThrow(next == dof_handler.n_dofs(level), ExcInternalError());
          dof_handler.renumber_dofs(level, numbers);
        }
        active_from_finest_level(dof_handler);
      }

      template void hierarchical_levels(DoFHandler<2, 2> &);
      template void hierarchical_levels(DoFHandler<3, 3> &);
      template void two_level(DoFHandler<2, 2> &);
      template void two_level(DoFHandler<3, 3> &);
    } // namespace DoFRenumbering
  }   // namespace GPU
} // namespace dealii
