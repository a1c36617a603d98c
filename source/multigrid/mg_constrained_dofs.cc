#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/multigrid/mg_constrained_dofs.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/fe/fe.h>
#include <deal.II/grid/tria.h>

#include "../base/parallel_selection.h"
#include "../base/sorted_indices.h"
#include <algorithm>
#include <string>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      // The level DoFs that found(cell, list) appends for the level's cells
      // that deal.II's MGConstrainedDoFs visits (on a distributed mesh,
      // those that are not artificial on the level), as a set: each chunk
      // of cells sorts its own list on its thread, the merge is one sort of
      // lists that are already sorted in pieces.
      template <int dim, typename Found>
      IndexSet collect_on_level(const DoFHandler<dim> &dof_handler,
                                const unsigned int     level,
                                const Found           &found)
      {
        const bool distributed =
            dof_handler.get_triangulation().locally_owned_subdomain() !=
            numbers::invalid_subdomain_id;
        using Iterator   = typename DoFHandler<dim>::level_cell_iterator;
        const auto cells = internal::cells_on_level<Iterator>(
            dof_handler,
            level,
            false,
            [&](const Iterator &cell)
            {
              return !distributed || cell->level_subdomain_id() !=
                                         numbers::artificial_subdomain_id;
            });
        constexpr std::size_t                             grain = 1024;
        std::vector<std::vector<types::global_dof_index>> lists(
            (cells.size() + grain - 1) / grain);
        parallel_for_chunks(cells.size(),
                            grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              auto &list = lists[begin / grain];
                              for (std::size_t c = begin; c < end; ++c)
                                found(cells[c], list);
                              std::sort(list.begin(), list.end());
                              list.erase(std::unique(list.begin(), list.end()),
                                         list.end());
                            });
        std::vector<types::global_dof_index> all;
        for (auto &list : lists)
        {
          all.insert(all.end(), list.begin(), list.end());
          list = std::vector<types::global_dof_index>();
        }
        internal::sort_unique(all);
        IndexSet set(dof_handler.n_dofs(level));
        set.add_indices(all.begin(), all.end());
        set.compress();
        return set;
      }
    } // namespace

    template <int dim, int spacedim>
    void
    MGConstrainedDoFs::initialize(const DoFHandler<dim, spacedim> &dof_handler)
    {
      static_assert(dim == spacedim,
                    "GPU::MGConstrainedDoFs: dim == spacedim only");
      const Triangulation<dim> &tria = dof_handler.get_triangulation();
      AssertThrow(dof_handler.has_level_dofs(),
                  ExcMessage("GPU::MGConstrainedDoFs::initialize() needs the "
                             "level DoFs: call distribute_mg_dofs()"));
      AssertThrow(tria.get_periodic_face_map().empty(),
                  ExcMessage("GPU::MGConstrainedDoFs: meshes with periodic "
                             "faces are not supported (deal.II's "
                             "MGConstrainedDoFs keeps their level "
                             "constraints)"));
      clear();
      const bool distributed =
          tria.locally_owned_subdomain() != numbers::invalid_subdomain_id;
      const FiniteElement<dim> &fe            = dof_handler.get_fe();
      const unsigned int        dofs_per_cell = fe.n_dofs_per_cell();
      // Per cell DoF: the faces it lies on, as bits.
      std::vector<unsigned int> on_faces(dofs_per_cell, 0u);
      for (const unsigned int f : GeometryInfo<dim>::face_indices())
        for (unsigned int j = 0; j < fe.n_dofs_per_face(f); ++j)
          on_faces[fe.face_to_cell_index(j, f)] |= 1u << f;

      const unsigned int n_levels = tria.n_global_levels();
      refinement_edge_indices.resize(n_levels);
      // A level cell meets a coarser one only where a coarser cell is
      // active. Where every active cell this rank knows (owned, ghost,
      // artificial) is on its finest level, as on uniformly refined
      // meshes, no level has a refinement edge here: no pass over the cells.
      if (tria.n_levels() > 0 &&
          tria.n_active_cells() == tria.n_active_cells(tria.n_levels() - 1))
      {
        for (unsigned int level = 0; level < n_levels; ++level)
          refinement_edge_indices[level] = IndexSet(dof_handler.n_dofs(level));
        return;
      }
      for (unsigned int level = 0; level < n_levels; ++level)
        refinement_edge_indices[level] = collect_on_level(
            dof_handler,
            level,
            [&](const auto &cell, std::vector<types::global_dof_index> &list)
            {
              // The faces to a coarser neighbor (not artificial).
              unsigned int faces = 0;
              for (const unsigned int f : GeometryInfo<dim>::face_indices())
                if (!cell->at_boundary(f))
                {
                  const auto neighbor = cell->neighbor(f);
                  if (distributed && neighbor->level_subdomain_id() ==
                                         numbers::artificial_subdomain_id)
                    continue;
                  if (neighbor->level() < cell->level())
                    faces |= 1u << f;
                }
              if (faces == 0)
                return;
              std::vector<types::global_dof_index> indices(dofs_per_cell);
              cell->get_mg_dof_indices(indices);
              for (unsigned int i = 0; i < dofs_per_cell; ++i)
                if ((on_faces[i] & faces) != 0)
                  list.push_back(indices[i]);
            });
    }

    template <int dim, int spacedim>
    void MGConstrainedDoFs::make_zero_boundary_constraints(
        const DoFHandler<dim, spacedim>    &dof_handler,
        const std::set<types::boundary_id> &boundary_ids,
        const ComponentMask                &component_mask)
    {
      static_assert(dim == spacedim,
                    "GPU::MGConstrainedDoFs: dim == spacedim only");
      AssertThrow(dof_handler.has_level_dofs(),
                  ExcMessage("GPU::MGConstrainedDoFs::"
                             "make_zero_boundary_constraints() needs the "
                             "level DoFs: call distribute_mg_dofs()"));
      const FiniteElement<dim> &fe           = dof_handler.get_fe();
      const unsigned int        n_components = fe.n_components();
      AssertThrow(
          component_mask.size() == 0 || component_mask.size() == n_components,
          ExcMessage("component mask of " +
                     std::to_string(component_mask.size()) + " entries for " +
                     std::to_string(n_components) + " components"));
      const bool all_components =
          component_mask.n_selected_components(n_components) == n_components;
      AssertThrow(all_components || fe.is_primitive(),
                  ExcMessage("a component mask needs a primitive element, "
                             "not " +
                             fe.get_name()));
      // Per face: which of its DoFs the mask selects.
      std::vector<std::vector<bool>> selected(
          GeometryInfo<dim>::faces_per_cell);
      for (const unsigned int f : GeometryInfo<dim>::face_indices())
        for (unsigned int j = 0; j < fe.n_dofs_per_face(f); ++j)
          selected[f].push_back(
              all_components ||
              component_mask[fe.face_system_to_component_index(j, f).first]);

      const unsigned int n_levels =
          dof_handler.get_triangulation().n_global_levels();
      if (boundary_indices.empty())
      {
        boundary_indices.resize(n_levels);
        for (unsigned int level = 0; level < n_levels; ++level)
          boundary_indices[level] = IndexSet(dof_handler.n_dofs(level));
      }
      AssertDimension(boundary_indices.size(), n_levels);
      for (unsigned int level = 0; level < n_levels; ++level)
      {
        const IndexSet found = collect_on_level(
            dof_handler,
            level,
            [&](const auto &cell, std::vector<types::global_dof_index> &list)
            {
              if (!cell->at_boundary())
                return;
              std::vector<types::global_dof_index> indices;
              for (const unsigned int f : GeometryInfo<dim>::face_indices())
                if (cell->at_boundary(f) &&
                    boundary_ids.count(cell->face(f)->boundary_id()) == 1)
                {
                  indices.resize(fe.n_dofs_per_face(f));
                  cell->face(f)->get_mg_dof_indices(cell->level(), indices);
                  for (unsigned int j = 0; j < indices.size(); ++j)
                    if (selected[f][j])
                      list.push_back(indices[j]);
                }
            });
        boundary_indices[level].add_indices(found);
        boundary_indices[level].compress();
      }
    }

    void MGConstrainedDoFs::clear()
    {
      boundary_indices.clear();
      refinement_edge_indices.clear();
    }

    bool MGConstrainedDoFs::have_boundary_indices() const
    {
      return !boundary_indices.empty();
    }

    namespace
    {
      // Checked in release builds too: a level beyond the sets (one not
      // initialized) is a usage error, not an internal one.
      const IndexSet &level_set(const std::vector<IndexSet> &sets,
                                const unsigned int           level,
                                const char                  *what)
      {
        AssertThrow(level < sets.size(),
                    ExcMessage("GPU::MGConstrainedDoFs: the " +
                               std::string(what) + " of level " +
                               std::to_string(level) + " asked for, but " +
                               std::to_string(sets.size()) +
                               " levels are known: call initialize() and "
                               "make_zero_boundary_constraints() first"));
        return sets[level];
      }
    } // namespace

    const IndexSet &
    MGConstrainedDoFs::get_boundary_indices(const unsigned int level) const
    {
      return level_set(boundary_indices, level, "boundary DoFs");
    }

    const IndexSet &MGConstrainedDoFs::get_refinement_edge_indices(
        const unsigned int level) const
    {
      return level_set(refinement_edge_indices, level, "refinement-edge DoFs");
    }

    bool MGConstrainedDoFs::is_boundary_index(
        const unsigned int level, const types::global_dof_index index) const
    {
      if (boundary_indices.empty())
        return false;
      return get_boundary_indices(level).is_element(index);
    }

    bool MGConstrainedDoFs::at_refinement_edge(
        const unsigned int level, const types::global_dof_index index) const
    {
      return get_refinement_edge_indices(level).is_element(index);
    }

    template void MGConstrainedDoFs::initialize(const DoFHandler<2> &);
    template void MGConstrainedDoFs::initialize(const DoFHandler<3> &);
    template void MGConstrainedDoFs::make_zero_boundary_constraints(
        const DoFHandler<2> &,
        const std::set<types::boundary_id> &,
        const ComponentMask &);
    template void MGConstrainedDoFs::make_zero_boundary_constraints(
        const DoFHandler<3> &,
        const std::set<types::boundary_id> &,
        const ComponentMask &);
  } // namespace GPU
} // namespace dealii
