#include <dealii-gpu/dofs/locally_relevant_dofs.h>

#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_accessor.h>

#include "../base/sorted_indices.h"
#include "level_dof_indices.h"
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <int dim, int spacedim>
      IndexSet
      locally_relevant_level_dofs(const DoFHandler<dim, spacedim> &dof_handler,
                                  const unsigned int               level)
      {
        const IndexSet &owned = dof_handler.locally_owned_mg_dofs(level);
        // deal.II gives each rank one range: ownership is a comparison.
        const bool                    one_range = owned.n_intervals() <= 1;
        const types::global_dof_index first =
            owned.n_elements() > 0 ? owned.nth_index_in_set(0) : 0;
        const types::global_dof_index end = first + owned.n_elements();
        const LevelDoFIndices<dim>    level_dof_indices(dof_handler.get_fe());
        std::vector<types::global_dof_index> others, on_cell;
        for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
          if (cell->is_ghost_on_level())
          {
            level_dof_indices.get(cell, on_cell);
            for (const types::global_dof_index i : on_cell)
              if (one_range ? (i < first || i >= end) : !owned.is_element(i))
                others.push_back(i);
          }
        sort_unique(others);
        IndexSet relevant = owned;
        relevant.add_indices(others.begin(), others.end());
        relevant.compress();
        return relevant;
      }

      template IndexSet locally_relevant_level_dofs(const DoFHandler<2, 2> &,
                                                    const unsigned int);
      template IndexSet locally_relevant_level_dofs(const DoFHandler<3, 3> &,
                                                    const unsigned int);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
