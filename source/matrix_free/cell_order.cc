#include <dealii-gpu/dofs/block_lattice.h>
#include <dealii-gpu/matrix_free/cell_order.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/graph_coloring.h>
#include <deal.II/fe/fe_tools.h>

#include <functional>
#include <numeric>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // Cells of blocks whose DoFs GPU::DoFRenumbering::block_lexicographic()
      // numbered, found in the cell list of reinit().
      struct StructuredBlocks
      {
        unsigned int refinements = 0;
        // Positions in the cell list, block after block, lexicographic.
        std::vector<unsigned int> cells;
        // Per block: the global index of the first interior DoF.
        std::vector<types::global_dof_index> interior_first;
        // Per block: the global indices of the faces' lattice points, laid
        // out as MatrixFreeData::block_surface.
        std::vector<types::global_dof_index> surface;
      };

      // Whether @p block, refined r times, is a structured block: all its
      // cells in the list without hanging nodes, its interior DoFs
      // numbered lexicographically from one first index (interior_ok for
      // each), its surface DoFs surface_ok. If so, appends it to @p result.
      // @p first_cell is the block's first active cell (child 0 r times).
      template <int dim,
                typename CellIterator,
                typename SurfaceOk,
                typename InteriorOk>
      bool add_structured_block(const CellIterator              &block,
                                const CellIterator              &first_cell,
                                const unsigned int               r,
                                const std::vector<unsigned int> &position,
                                const std::vector<unsigned int> &masks,
                                const unsigned int               degree,
                                const SurfaceOk                 &surface_ok,
                                const InteriorOk                &interior_ok,
                                StructuredBlocks                &result)
      {
        // Only blocks that save at least half of the index memory (not,
        // e.g., Q1 blocks of 2^dim cells, whose one interior DoF would fit
        // any numbering).
        const unsigned int M = degree << r;
        const unsigned int P = M + 1;
        const std::size_t  face_size =
            dim == 3 ? std::size_t(P) * P : std::size_t(P);
        const std::size_t n_block_cells = std::size_t(1) << (dim * r);
        if (2 * (1 + 2 * dim * face_size) >
            n_block_cells * Utilities::pow(degree + 1, dim))
          return false;
        std::vector<types::global_dof_index> surface(2 * dim * face_size);
        const std::vector<unsigned int>      lexicographic =
            FETools::lexicographic_to_hierarchic_numbering<dim>(degree);
        types::global_dof_index              first = 0;
        std::vector<types::global_dof_index> indices;
        // Checks the cell at lexicographic position c in the block and
        // records its surface DoFs; stops at the first DoF out of place.
        const auto check = [&](const std::size_t c, const auto &cell)
        {
          if (cell->has_children())
            return false;
          const unsigned int p = position[cell->active_cell_index()];
          if (p == numbers::invalid_unsigned_int || masks[p] != 0)
            return false;
          indices.resize(cell->get_fe().n_dofs_per_cell());
          cell->get_dof_indices(indices);
          for (unsigned int i = 0; i < lexicographic.size(); ++i)
          {
            const auto x     = lattice_point<dim>(c, i, r, degree);
            bool       inner = true;
            for (unsigned int d = 0; d < dim; ++d)
              inner = inner && x[d] > 0 && x[d] < M;
            const types::global_dof_index g = indices[lexicographic[i]];
            if (inner)
            {
              std::size_t offset = 0;
              for (int d = dim - 1; d >= 0; --d)
                offset = offset * (M - 1) + x[d] - 1;
              // Cell 0 holds lattice point (1, ..., 1) and comes first.
              if (offset == 0 && c == 0)
                first = g;
              if (!interior_ok(g) || g != first + offset)
                return false;
              continue;
            }
            if (!surface_ok(g))
              return false;
            for (unsigned int d = 0; d < dim; ++d)
              if (x[d] == 0 || x[d] == M)
              {
                const unsigned int u        = x[d == 0 ? 1 : 0];
                const unsigned int v        = dim == 3 ? x[d == 2 ? 1 : 2] : 0;
                surface[(2 * d + (x[d] == M)) * face_size + u +
                        std::size_t(P) * v] = g;
              }
          }
          return true;
        };
        // The first two cells (child 0 and its x neighbor, child 1) reject
        // almost any block not so numbered before its cells are collected:
        // reinit() tests every block of every size.
        if (!check(0, first_cell) || !check(1, first_cell->parent()->child(1)))
          return false;
        std::vector<typename DoFHandler<dim>::active_cell_iterator> cells;
        if (!block_cells<dim>(block, r, cells))
          return false;
        for (std::size_t c = 0; c < cells.size(); ++c)
          if (!check(c, cells[c]))
            return false;
        for (const auto &cell : cells)
          result.cells.push_back(position[cell->active_cell_index()]);
        result.interior_first.push_back(first);
        result.surface.insert(
            result.surface.end(), surface.begin(), surface.end());
        return true;
      }

      // The structured blocks among @p cells: all of them for the largest
      // number of refinements r for which there is one.
      template <int dim,
                typename CellIterator,
                typename SurfaceOk,
                typename InteriorOk>
      StructuredBlocks
      find_structured_blocks(const std::vector<CellIterator> &cells,
                             const std::vector<unsigned int> &masks,
                             const unsigned int               degree,
                             const SurfaceOk                 &surface_ok,
                             const InteriorOk                &interior_ok)
      {
        StructuredBlocks result;
        if (cells.empty())
          return result;
        std::vector<unsigned int> position(
            cells[0]->get_triangulation().n_active_cells(),
            numbers::invalid_unsigned_int);
        for (unsigned int c = 0; c < cells.size(); ++c)
          position[cells[c]->active_cell_index()] = c;
        // The largest r for which some block qualifies, then all blocks of
        // that r. Each block is visited once, from its first cell (child 0
        // of child 0 ... r times); most cells stop at their first parent.
        int max_level = 0;
        for (const auto &cell : cells)
          max_level = std::max(max_level, cell->level());
        // On the set-up threads, per chunk of cells; the chunks' blocks
        // then join in the cells' order (the same on any number of
        // threads).
        constexpr std::size_t grain    = 4096;
        const std::size_t     n_chunks = (cells.size() + grain - 1) / grain;
        for (unsigned int r = max_level; r > 0 && result.refinements == 0; --r)
        {
          std::vector<StructuredBlocks> found(n_chunks);
          parallel_for_chunks(
              cells.size(),
              grain,
              [&](const std::size_t begin, const std::size_t end)
              {
                StructuredBlocks &part = found[begin / grain];
                for (std::size_t c = begin; c < end; ++c)
                {
                  const CellIterator &cell = cells[c];
                  if (static_cast<unsigned int>(cell->level()) < r)
                    continue;
                  CellIterator block = cell;
                  unsigned int up    = 0;
                  for (; up < r; ++up)
                  {
                    const CellIterator parent = block->parent();
                    if (parent->child_index(0) != block->index())
                      break;
                    block = parent;
                  }
                  if (up == r && add_structured_block<dim>(block,
                                                           cell,
                                                           r,
                                                           position,
                                                           masks,
                                                           degree,
                                                           surface_ok,
                                                           interior_ok,
                                                           part))
                    part.refinements = r;
                }
              });
          for (const StructuredBlocks &part : found)
            if (part.refinements != 0)
            {
              result.refinements = r;
              result.cells.insert(
                  result.cells.end(), part.cells.begin(), part.cells.end());
              result.interior_first.insert(result.interior_first.end(),
                                           part.interior_first.begin(),
                                           part.interior_first.end());
              result.surface.insert(result.surface.end(),
                                    part.surface.begin(),
                                    part.surface.end());
            }
        }
        return result;
      }

      template <int dim>
      template <typename ConstraintNumber>
      void CellOrder<dim>::reinit(
          const DoFInfo<dim>                        &dof_info,
          const AffineConstraints<ConstraintNumber> &constraints,
          const bool                                 use_coloring,
          const bool                                 overlap,
          SetupTimer                                &timer)
      {
        const unsigned int n_cells       = dof_info.cells.size();
        const unsigned int dofs_per_cell = dof_info.dofs_per_cell;
        const IndexSet    &owned         = dof_info.owned;
        order.resize(n_cells);
        std::iota(order.begin(), order.end(), 0u);

        // Structured blocks go first, their cells lexicographic: the
        // kernels compute their DoF indices. Only for scalar fields with
        // atomics, and only blocks free of hanging nodes and, where
        // communication overlaps, of ghosts.
        timer.start("structured blocks");
        StructuredBlocks structured;
        if (!dof_info.on_level && dof_info.n_components == 1 && !use_coloring &&
            owned.is_contiguous())
          structured = find_structured_blocks<dim>(
              dof_info.cells,
              dof_info.masks,
              dof_info.degree,
              [&](const types::global_dof_index g) {
                return !overlap || owned.is_element(g) ||
                       constraints.is_constrained(g);
              },
              [&](const types::global_dof_index g) {
                return owned.is_element(g) && !constraints.is_constrained(g);
              });
        n_structured = structured.cells.size();
        if (n_structured > 0)
        {
          std::vector<char> in_block(n_cells, 0);
          for (const unsigned int c : structured.cells)
            in_block[c] = 1;
          unsigned int k = 0;
          for (const unsigned int c : structured.cells)
            order[k++] = c;
          for (unsigned int c = 0; c < n_cells; ++c)
            if (!in_block[c])
              order[k++] = c;
        }

        // deal.II's graph coloring dereferences begin even for an empty
        // range (a rank without cells on a small mesh).
        colors.clear();
        if (use_coloring && n_cells > 0)
        {
          timer.start("coloring");
          using Iterator      = std::vector<unsigned int>::const_iterator;
          const auto coloring = GraphColoring::make_graph_coloring(
              Iterator(order.begin()),
              Iterator(order.end()),
              std::function<std::vector<types::global_dof_index>(
                  const Iterator &)>(
                  [&](const Iterator &it)
                  {
                    // Local indices: the same conflicts as global ones.
                    std::vector<types::global_dof_index> result(dofs_per_cell);
                    for (unsigned int i = 0; i < dofs_per_cell; ++i)
                      result[i] =
                          dof_info
                              .indices[std::size_t(*it) * dofs_per_cell + i] &
                          ~constrained_dof_flag;
                    return result;
                  }));
          std::vector<unsigned int> ordered;
          for (const auto &color : coloring)
          {
            const unsigned int first = ordered.size();
            for (const auto &it : color)
              ordered.push_back(*it);
            colors.emplace_back(first, ordered.size());
          }
          order.swap(ordered);
        }
        else if (n_cells > 0)
          colors.emplace_back(0u, n_cells);

        // Overlap of communication and computation: within each color, the
        // cells that touch ghosts go between two halves of the others.
        timer.start("cell phases");
        cell_phases.clear();
        n_boundary = 0;
        for (const auto &color : colors)
        {
          std::vector<unsigned int> inner, boundary;
          for (unsigned int k = color.first; k < color.second; ++k)
            (dof_info.touches_ghosts[order[k]] ? boundary : inner)
                .push_back(order[k]);
          n_boundary += boundary.size();
          if (!overlap)
          {
            cell_phases.push_back(
                {{color.first, color.first, color.second, color.second}});
            continue;
          }
          // The structured cells (inner ones, first) stay in front.
          const unsigned int n_first =
              std::max<unsigned int>(inner.size() / 2, n_structured);
          unsigned int k = color.first;
          for (unsigned int i = 0; i < n_first; ++i)
            order[k++] = inner[i];
          for (const unsigned int c : boundary)
            order[k++] = c;
          for (unsigned int i = n_first; i < inner.size(); ++i)
            order[k++] = inner[i];
          cell_phases.push_back(
              {{color.first,
                color.first + n_first,
                color.first + n_first +
                    static_cast<unsigned int>(boundary.size()),
                color.second}});
        }

        // The structured cells' indices are computed (cell_dof_entry()):
        // checked here against the list.
        timer.start("structured blocks");
        const auto &partitioner = *dof_info.partitioner;
        block_refinements       = structured.refinements;
        block_interior_first.resize(structured.interior_first.size());
        for (std::size_t b = 0; b < block_interior_first.size(); ++b)
          block_interior_first[b] =
              partitioner.global_to_local(structured.interior_first[b]);
        block_surface.resize(structured.surface.size());
        for (std::size_t i = 0; i < block_surface.size(); ++i)
        {
          const types::global_dof_index g = structured.surface[i];
          block_surface[i] =
              partitioner.global_to_local(g) |
              (constraints.is_constrained(g) ? constrained_dof_flag : 0u);
        }
        MatrixFreeData<dim, double> view{};
        view.n_cells                = n_cells;
        view.dofs_per_cell          = dofs_per_cell;
        view.n_structured_cells     = n_structured;
        view.dof_indices_first_cell = n_structured;
        view.block_refinements      = block_refinements;
        view.block_interior_first   = block_interior_first.data();
        view.block_surface          = block_surface.data();
        for (unsigned int c = 0; c < n_structured; ++c)
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            AssertThrow(
                cell_dof_entry(view, c, i, dof_info.degree) ==
                    dof_info.indices[std::size_t(order[c]) * dofs_per_cell + i],
                ExcInternalError());
        timer.stop();
      }

#define DEALII_GPU_INSTANTIATE(dim)                                            \
  template class CellOrder<dim>;                                               \
  template void CellOrder<dim>::reinit(const DoFInfo<dim> &,                   \
                                       const AffineConstraints<float> &,       \
                                       const bool,                             \
                                       const bool,                             \
                                       SetupTimer &);                          \
  template void CellOrder<dim>::reinit(const DoFInfo<dim> &,                   \
                                       const AffineConstraints<double> &,      \
                                       const bool,                             \
                                       const bool,                             \
                                       SetupTimer &);
      DEALII_GPU_INSTANTIATE(2)
      DEALII_GPU_INSTANTIATE(3)
#undef DEALII_GPU_INSTANTIATE
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
