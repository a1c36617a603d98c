#include <dealii-gpu/dofs/level_dof_index_cache.h>
#include <dealii-gpu/matrix_free/dof_info.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>

#include "../base/parallel_selection.h"
#include "../base/sorted_indices.h"
#include "../dofs/level_dof_indices.h"
#include "hanging_node_setup.h"
#include <algorithm>
#include <memory>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <int dim>
      template <typename ConstraintNumber>
      void DoFInfo<dim>::reinit(
          const DoFHandler<dim>                     &dof_handler,
          const AffineConstraints<ConstraintNumber> &constraints,
          const unsigned int                         mg_level,
          SetupTimer                                &timer)
      {
        const FiniteElement<dim> &fe = dof_handler.get_fe();
        const auto &fe_q = dynamic_cast<const FE_Q<dim> &>(fe.base_element(0));
        degree           = fe_q.degree;
        n_components     = fe.element_multiplicity(0);
        dofs_per_cell    = fe.n_dofs_per_cell();
        on_level         = mg_level != numbers::invalid_unsigned_int;
        lexicographic =
            FETools::lexicographic_to_hierarchic_numbering<dim>(degree);
        const unsigned int n_lex = lexicographic.size();

        timer.start("cells");
        // By level and index on the set-up threads, in the order of
        // deal.II's (active or level) cell iterators.
        cells.clear();
        if (on_level)
          cells = cells_on_level<CellIterator>(
              dof_handler,
              mg_level,
              false,
              [](const CellIterator &cell)
              { return cell->is_locally_owned_on_level(); });
        else
          for (unsigned int l = 0;
               l < dof_handler.get_triangulation().n_levels();
               ++l)
          {
            const auto on_l =
                cells_on_level<CellIterator>(dof_handler,
                                             l,
                                             true,
                                             [](const CellIterator &cell) {
                                               return cell->is_locally_owned();
                                             });
            cells.insert(cells.end(), on_l.begin(), on_l.end());
          }
        const std::size_t n_cells = cells.size();

        // DoF indices in lexicographic order per component.
        std::vector<unsigned int> system_index(dofs_per_cell);
        for (unsigned int comp = 0; comp < n_components; ++comp)
          for (unsigned int i = 0; i < n_lex; ++i)
            system_index[comp * n_lex + i] =
                fe.component_to_system_index(comp, lexicographic[i]);
        // Into out; hierarchic is scratch (no allocation a cell: at 1e7
        // cells the allocations took about as long as deal.II's cached
        // indices).
        const LevelDoFIndices<dim> level_dof_indices(fe);
        const auto                 fill_lexicographic =
            [&](const CellIterator                   &cell,
                std::vector<types::global_dof_index> &hierarchic,
                types::global_dof_index              *out)
        {
          hierarchic.resize(dofs_per_cell);
          if (on_level)
            level_dof_indices.get(cell, hierarchic);
          else
            cell->get_active_or_mg_dof_indices(hierarchic);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            out[i] = hierarchic[system_index[i]];
        };
        const auto lexicographic_indices = [&](const CellIterator &cell)
        {
          std::vector<types::global_dof_index> hierarchic,
              result(dofs_per_cell);
          fill_lexicographic(cell, hierarchic, result.data());
          return result;
        };

        // Global indices, the hanging ones replaced by the coarse DoFs.
        timer.start("dof indices");
        resolve_hanging =
            !on_level && dof_handler.get_triangulation().has_hanging_nodes();
        masks.assign(n_cells, 0u);
        hanging_interpolation.assign(2 * (degree + 1) * (degree + 1), 0.);
        // Left uninitialized for the threads to fill: zeroing it on one
        // thread first costs as much as filling it on all.
        std::unique_ptr<types::global_dof_index[]> global(
            new types::global_dof_index[std::size_t(n_cells) * dofs_per_cell]);
        std::unique_ptr<HangingNodeSetup<dim>> hanging;
        if (resolve_hanging)
        {
          hanging = std::make_unique<HangingNodeSetup<dim>>(
              dof_handler, degree, lexicographic);
          hanging_interpolation = hanging->interpolation_matrices();
        }
        owned = on_level ? dof_handler.locally_owned_mg_dofs(mg_level)
                         : dof_handler.locally_owned_dofs();
        // deal.II gives each rank one range of DoFs: then ownership is a
        // comparison, not IndexSet's search.
        const bool                    one_range = owned.n_intervals() <= 1;
        const types::global_dof_index first_owned =
            owned.n_elements() > 0 ? owned.nth_index_in_set(0) : 0;
        const types::global_dof_index end_owned =
            first_owned + owned.n_elements();
        const auto is_owned = [&](const types::global_dof_index g)
        {
          return one_range ? (g >= first_owned && g < end_owned)
                           : owned.is_element(g);
        };
        // Per chunk of cells, the DoFs of other ranks its cells touch: their
        // own and, on hanging faces and edges, the coarse ones.
        constexpr std::size_t                             grain = 512;
        std::vector<std::vector<types::global_dof_index>> ghosts_of_chunk(
            (n_cells + grain - 1) / grain);
        parallel_for_chunks(
            n_cells,
            grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              std::vector<types::global_dof_index> fine, substituted,
                  hierarchic;
              auto      &ghosts = ghosts_of_chunk[begin / grain];
              const auto add_ghosts =
                  [&](const types::global_dof_index *g, const std::size_t n)
              {
                for (std::size_t i = 0; i < n; ++i)
                  if (!is_owned(g[i]))
                    ghosts.push_back(g[i]);
              };
              for (std::size_t c = begin; c < end; ++c)
              {
                types::global_dof_index *out = global.get() + c * dofs_per_cell;
                unsigned int             mask = 0;
                if (hanging)
                  mask = hanging->substitute(
                      cells[c], lexicographic_indices, fine, substituted);
                if (mask != 0)
                {
                  hanging->check_constraints(
                      mask, fine, substituted, constraints);
                  add_ghosts(fine.data(), fine.size());
                  masks[c] = mask;
                  std::copy(substituted.begin(), substituted.end(), out);
                }
                else
                  fill_lexicographic(cells[c], hierarchic, out);
                add_ghosts(out, dofs_per_cell);
              }
            });
        n_hanging_cells =
            std::count_if(masks.begin(),
                          masks.end(),
                          [](const unsigned int m) { return m != 0; });
        // Vector layout: owned DoFs, then the other DoFs the cells touch.
        timer.start("partitioner");
        std::vector<types::global_dof_index> ghost_dofs;
        for (const auto &ghosts : ghosts_of_chunk)
          ghost_dofs.insert(ghost_dofs.end(), ghosts.begin(), ghosts.end());
        ghosts_of_chunk.clear();
        sort_unique(ghost_dofs);
        IndexSet active(owned.size());
        active.add_indices(ghost_dofs.begin(), ghost_dofs.end());
        partitioner = std::make_shared<Utilities::MPI::Partitioner>(
            owned, active, dof_handler.get_triangulation().get_communicator());
        AssertThrow(partitioner->locally_owned_size() +
                            partitioner->n_ghost_indices() <
                        constrained_dof_flag,
                    ExcNotSupportedByMatrixFree(
                        "more than 2^31 - 1 DoFs on one MPI rank"));

        // Local indices; Dirichlet-constrained DoFs keep theirs, flagged.
        // The constrained DoFs come from the constraint lines into a flag a
        // local index (1: no entries, 2: entries), instead of a look-up in
        // the constraints per entry and per owned DoF.
        timer.start("local indices");
        const unsigned int n_owned = partitioner->locally_owned_size();
        const unsigned int n_local = n_owned + partitioner->n_ghost_indices();
        std::vector<unsigned char> constraint_kind(n_local, 0);
        constrained_owned.clear();
        for (const auto &line : constraints.get_lines())
          if (partitioner->in_local_range(line.index) ||
              partitioner->is_ghost_entry(line.index))
          {
            const unsigned int local = partitioner->global_to_local(line.index);
            constraint_kind[local]   = line.entries.empty() ? 1 : 2;
            if (local < n_owned)
              constrained_owned.push_back(local);
          }
        std::sort(constrained_owned.begin(), constrained_owned.end());
        // The partitioner numbers its ghosts in the order of ghost_dofs;
        // its global_to_local() takes two binary searches in an IndexSet a
        // ghost entry.
        const SortedPosition<types::global_dof_index> ghost_position(
            ghost_dofs);
        const auto to_local = [&](const types::global_dof_index g)
        {
          if (!one_range)
            return partitioner->global_to_local(g);
          const unsigned int local =
              is_owned(g)
                  ? static_cast<unsigned int>(g - first_owned)
                  : n_owned + static_cast<unsigned int>(ghost_position(g));
          Assert(local == partitioner->global_to_local(g), ExcInternalError());
          return local;
        };
        indices.resize(std::size_t(n_cells) * dofs_per_cell);
        touches_ghosts.assign(n_cells, 0);
        parallel_for_chunks(
            n_cells,
            grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t c = begin; c < end; ++c)
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                {
                  const std::size_t             k     = c * dofs_per_cell + i;
                  const types::global_dof_index g     = global[k];
                  unsigned int                  local = to_local(g);
                  if (constraint_kind[local] != 0)
                  {
                    AssertThrow(
                        constraint_kind[local] == 1,
                        ExcNotSupportedByMatrixFree(
                            "the constraint on DoF " + std::to_string(g) +
                            " couples it to other DoFs but is not a hanging "
                            "node of a face or edge next to a cell one level "
                            "coarser (periodicity, a general constraint, or "
                            "a mesh whose level difference at vertices is "
                            "not limited); supported are Dirichlet rows and "
                            "such hanging nodes"));
                    local |= constrained_dof_flag;
                  }
                  else if (local >= n_owned)
                    touches_ghosts[c] = 1;
                  indices[k] = local;
                }
            });
        // A multigrid set-up's transfer reads a level's indices from here.
        if (on_level)
          LevelDoFIndexCache<dim>::keep(
              dof_handler, mg_level, cells, dofs_per_cell, std::move(global));
        global.reset();
        timer.stop();
      }

#define DEALII_GPU_INSTANTIATE(dim)                                            \
  template class DoFInfo<dim>;                                                 \
  template void DoFInfo<dim>::reinit(const DoFHandler<dim> &,                  \
                                     const AffineConstraints<float> &,         \
                                     const unsigned int,                       \
                                     SetupTimer &);                            \
  template void DoFInfo<dim>::reinit(const DoFHandler<dim> &,                  \
                                     const AffineConstraints<double> &,        \
                                     const unsigned int,                       \
                                     SetupTimer &);
      DEALII_GPU_INSTANTIATE(2)
      DEALII_GPU_INSTANTIATE(3)
#undef DEALII_GPU_INSTANTIATE
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
