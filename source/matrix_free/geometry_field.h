// GeometryStorage::field on the host threads: the mapped positions of the
// support points of the DoFs of the first component, one node each, or a
// level's gather list from the active cells' field.
#ifndef dealii_gpu_source_matrix_free_geometry_field_h
#define dealii_gpu_source_matrix_free_geometry_field_h

#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/dofs/level_dof_index_cache.h>
#include <dealii-gpu/matrix_free/dof_info.h>
#include <dealii-gpu/matrix_free/mapping_info.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping.h>

#include "cell_support_points.h"
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // Host threads' chunks of cells in the geometry set-up.
      constexpr std::size_t cell_grain = 256;

      // GeometryStorage::field: the mapped positions of the support points
      // of FE_Q(degree), one node per DoF of the first component. With
      // nodes_are_dofs the node of a DoF is its local vector index, so the
      // kernel reads the field through the DoF indices (no node list; the
      // field then follows the DoF numbering, see
      // DoFRenumbering::matrix_free_data_locality); else the nodes are
      // numbered in the order the cells first touch them and `nodes` lists
      // each cell's. Each cell's nodes are its own DoFs (also on hanging
      // faces and Dirichlet boundaries), so the field reproduces every
      // cell's mapping. The first cell (lowest index) at a node places it,
      // as one pass over the cells in order would, so that the threads
      // give the same field as one. A node that another cell places
      // differently means a mapping that is not continuous, which is
      // refused; deal.II's MappingQ is continuous by construction, so only
      // other mappings are checked, which needs every cell's positions
      // (held only for the check: at 1e8 DoFs they take 10 GB; the points
      // for coefficients are interpolated from the device's field). Large
      // arrays are left uninitialized until the set-up threads fill them:
      // zeroing gigabytes on one thread first would cost seconds.
      template <int dim, typename Number>
      void build_geometry_field(const Mapping<dim>              &mapping,
                                const DoFInfo<dim>              &dof_info,
                                const std::vector<unsigned int> &order,
                                const bool                       nodes_are_dofs,
                                std::unique_ptr<double[]>       &field,
                                std::size_t                     &field_size,
                                std::vector<unsigned int>       &nodes,
                                std::vector<Number>             &centers)
      {
        const auto        &cells = dof_info.cells;
        const auto        &fe = cells.empty() ? nullptr : &cells[0]->get_fe();
        const unsigned int n  = dof_info.lexicographic.size();
        const unsigned int n_cells     = order.size();
        const auto        &partitioner = *dof_info.partitioner;
        constexpr bool with_centers = points_relative_to_cell_centers<Number>();
        centers.resize(with_centers ? std::size_t(n_cells) * dim : 0);
        const unsigned int n_local =
            partitioner.locally_owned_size() + partitioner.n_ghost_indices();
        field_size = nodes_are_dofs ? std::size_t(n_local) * dim : 0;
        nodes.resize(nodes_are_dofs ? 0 : std::size_t(n_cells) * n);
        if (n_cells == 0)
        {
          field.reset(new double[field_size]());
          return;
        }
        // The placing cells write every entry a cell reads.
        field.reset(new double[field_size]);
        const FE_Q<dim> &fe_q =
            dynamic_cast<const FE_Q<dim> &>(fe->base_element(0));
        std::vector<Point<1>> support_1d(fe_q.degree + 1);
        for (unsigned int i = 0; i <= fe_q.degree; ++i)
          support_1d[i][0] =
              fe_q.get_unit_support_points()[dof_info.lexicographic[i]][0];
        // The cell DoF of each node (component 0): a table, since
        // component_to_system_index() searches linearly.
        std::vector<unsigned int> system_index(n);
        for (unsigned int i = 0; i < n; ++i)
          system_index[i] =
              fe->component_to_system_index(0, dof_info.lexicographic[i]);
        const bool check = !CellSupportPoints<dim>::continuous(mapping);
        const std::unique_ptr<double[]> positions(
            check ? new double[std::size_t(n_cells) * n * dim] : nullptr);

        // f(begin, end) on chunks of cells on the set-up threads.
        const auto for_cells = [&](const auto &f)
        { parallel_for_chunks(n_cells, cell_grain, f); };

        // The local index of each cell's nodes, and the first cell at
        // each node. Without hanging cells, DoFInfo's lists hold them
        // (component 0 first; flags masked): no second pass over deal.II's
        // DoF indices. A hanging cell's list holds the coarse DoFs.
        constexpr unsigned int none      = numbers::invalid_unsigned_int;
        const bool             own_lists = dof_info.n_hanging_cells > 0;
        const std::unique_ptr<unsigned int[]> local(
            own_lists ? new unsigned int[std::size_t(n_cells) * n] : nullptr);
        const unsigned int dofs_per_cell = dof_info.dofs_per_cell;
        const auto         local_of      = [&](const std::size_t  c,
                                  const unsigned int i) -> unsigned int
        {
          return own_lists
                     ? local[c * n + i]
                     : dof_info.indices[std::size_t(order[c]) * dofs_per_cell +
                                        i] &
                           ~constrained_dof_flag;
        };
        const std::unique_ptr<std::atomic<unsigned int>[]> first_cell(
            new std::atomic<unsigned int>[n_local]);
        parallel_for_chunks(n_local,
                            1u << 16,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              for (std::size_t l = begin; l < end; ++l)
                                first_cell[l].store(none,
                                                    std::memory_order_relaxed);
                            });
        for_cells(
            [&](const std::size_t begin, const std::size_t end)
            {
              std::vector<types::global_dof_index> indices(
                  own_lists ? fe->n_dofs_per_cell() : 0);
              for (std::size_t c = begin; c < end; ++c)
              {
                if (own_lists)
                {
                  const auto &cell = cells[order[c]];
                  if (dof_info.on_level)
                    cell->get_mg_dof_indices(indices);
                  else
                    cell->get_active_or_mg_dof_indices(indices);
                  for (unsigned int i = 0; i < n; ++i)
                  {
                    const types::global_dof_index g = indices[system_index[i]];
                    AssertThrow(partitioner.in_local_range(g) ||
                                    partitioner.is_ghost_entry(g),
                                ExcInternalError());
                    local[c * n + i] = partitioner.global_to_local(g);
                  }
                }
                for (unsigned int i = 0; i < n; ++i)
                {
                  auto        &first = first_cell[local_of(c, i)];
                  unsigned int seen  = first.load(std::memory_order_relaxed);
                  while (c < seen && !first.compare_exchange_weak(
                                         seen,
                                         static_cast<unsigned int>(c),
                                         std::memory_order_relaxed))
                  {
                  }
                }
              }
            });
        const auto places = [&](const std::size_t c, const unsigned int i) {
          return first_cell[local_of(c, i)].load(std::memory_order_relaxed) ==
                 c;
        };

        // Node numbers: the local index, or the count of nodes placed by
        // earlier cells plus the position among this cell's.
        std::vector<unsigned int> node_offset(nodes_are_dofs ? 0 : n_cells);
        std::vector<unsigned int> node_of_local(nodes_are_dofs ? 0 : n_local);
        if (!nodes_are_dofs)
        {
          for_cells(
              [&](const std::size_t begin, const std::size_t end)
              {
                for (std::size_t c = begin; c < end; ++c)
                {
                  node_offset[c] = 0;
                  for (unsigned int i = 0; i < n; ++i)
                    node_offset[c] += places(c, i) ? 1 : 0;
                }
              });
          unsigned int n_nodes = 0;
          for (std::size_t c = 0; c < n_cells; ++c)
            n_nodes += std::exchange(node_offset[c], n_nodes);
          field_size = std::size_t(n_nodes) * dim;
          field.reset(new double[field_size]);
        }

        // The positions, each node's written by the cell that places it.
        std::vector<double> tolerance(check ? n_cells : 0);
        for_cells(
            [&](const std::size_t begin, const std::size_t end)
            {
              CellSupportPoints<dim> support(mapping, support_1d);
              AssertDimension(support.size(), n);
              std::vector<double> x(std::size_t(n) * dim);
              for (std::size_t c = begin; c < end; ++c)
              {
                const typename Triangulation<dim>::cell_iterator cell(
                    cells[order[c]]);
                support.get(cell, x.data());
                if (check)
                  tolerance[c] = 1e-10 * cell->diameter();
                if (positions)
                  std::copy(x.begin(), x.end(), positions.get() + c * n * dim);
                Point<dim>   center;
                unsigned int next = nodes_are_dofs ? 0 : node_offset[c];
                for (unsigned int i = 0; i < n; ++i)
                {
                  for (unsigned int d = 0; d < dim; ++d)
                    center[d] += x[i * dim + d];
                  if (!places(c, i))
                    continue;
                  const unsigned int l    = local_of(c, i);
                  const unsigned int node = nodes_are_dofs ? l : next++;
                  if (!nodes_are_dofs)
                    node_of_local[l] = node;
                  for (unsigned int d = 0; d < dim; ++d)
                    field[std::size_t(node) * dim + d] = x[i * dim + d];
                }
                for (unsigned int d = 0; d < dim && with_centers; ++d)
                  centers[c * dim + d] = center[d] / n;
              }
            });
        if (nodes_are_dofs && !check)
          return;

        // Each cell's node list, and where other mappings are checked:
        // every other cell at a node must place it at the same point.
        for_cells(
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t c = begin; c < end; ++c)
                for (unsigned int i = 0; i < n; ++i)
                {
                  const unsigned int l = local_of(c, i);
                  const unsigned int node =
                      nodes_are_dofs ? l : node_of_local[l];
                  if (!nodes_are_dofs)
                    nodes[c * n + i] = node;
                  if (!check)
                    continue;
                  const double *x = &positions[(c * n + i) * dim];
                  for (unsigned int d = 0; d < dim; ++d)
                    if (std::abs(field[std::size_t(node) * dim + d] - x[d]) >
                        tolerance[c])
                    {
                      Point<dim> point;
                      for (unsigned int e = 0; e < dim; ++e)
                        point[e] = x[e];
                      std::ostringstream message;
                      message
                          << "GeometryStorage::field with a mapping that is "
                             "not continuous between cells: the cells next "
                             "to the support point "
                          << point
                          << " map it to different places; use "
                             "GeometryStorage::points or jacobians";
                      AssertThrow(false,
                                  ExcNotSupportedByMatrixFree(message.str()));
                    }
                }
            });
      }

      /**
       * A level's field from the active cells' one (see
       * GeometryFieldSource): for each local level index, the local index
       * in @p source's field that holds its position (invalid where no cell
       * has it), and the cells' centers where Number takes them (the mean
       * of the vertices: any point of the cell serves as the origin of the
       * float offsets). false, with nothing computed, where the field's
       * nodes are not the level's DoFs, a cell is not active, or an active
       * DoF is not in the source's vector layout (the source was built for
       * another state of the DoFHandler): the caller builds the field.
       */
      template <int dim, typename Number>
      bool
      gather_geometry_field_indices(const GeometryFieldSource<dim>  &source,
                                    const DoFInfo<dim>              &dof_info,
                                    const std::vector<unsigned int> &order,
                                    std::unique_ptr<unsigned int[]> &source_of,
                                    std::vector<Number>             &centers)
      {
        const auto        &cells   = dof_info.cells;
        const unsigned int n_cells = order.size();
        if (source.field == nullptr || !dof_info.on_level || n_cells == 0 ||
            dof_info.n_components != 1 || dof_info.n_hanging_cells > 0 ||
            source.degree != dof_info.degree ||
            &cells[0]->get_dof_handler() != source.dof_handler ||
            source.partitioner->size() != source.dof_handler->n_dofs())
          return false;
        std::atomic<bool> usable(true);
        parallel_for_chunks(n_cells,
                            1u << 14,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              for (std::size_t c = begin; c < end; ++c)
                                if (!cells[order[c]]->is_active())
                                {
                                  usable.store(false);
                                  return;
                                }
                            });
        if (!usable.load())
          return false;

        constexpr unsigned int none = numbers::invalid_unsigned_int;
        const auto            &from = *source.partitioner;
        const unsigned int     n    = dof_info.dofs_per_cell;
        const unsigned int     n_local =
            dof_info.partitioner->locally_owned_size() +
            dof_info.partitioner->n_ghost_indices();
        constexpr bool with_centers = points_relative_to_cell_centers<Number>();
        centers.resize(with_centers ? std::size_t(n_cells) * dim : 0);
        // Cells sharing a DoF write the same entry: atomics, relaxed.
        const std::unique_ptr<std::atomic<unsigned int>[]> of(
            new std::atomic<unsigned int>[n_local]);
        const auto for_locals = [&](const auto &f)
        { parallel_for_chunks(n_local, 1u << 16, f); };
        for_locals(
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t l = begin; l < end; ++l)
                of[l].store(none, std::memory_order_relaxed);
            });
        parallel_for_chunks(
            n_cells,
            cell_grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              std::vector<types::global_dof_index> indices(n);
              for (std::size_t c = begin; c < end && usable.load(); ++c)
              {
                const auto &cell = cells[order[c]];
                cell->get_dof_indices(indices);
                for (unsigned int i = 0; i < n; ++i)
                {
                  const types::global_dof_index g =
                      indices[dof_info.lexicographic[i]];
                  if (!from.in_local_range(g) && !from.is_ghost_entry(g))
                  {
                    usable.store(false);
                    return;
                  }
                  const unsigned int l =
                      dof_info.indices[std::size_t(order[c]) * n + i] &
                      ~constrained_dof_flag;
                  of[l].store(from.global_to_local(g),
                              std::memory_order_relaxed);
                }
                if constexpr (with_centers)
                {
                  Point<dim> center;
                  for (const unsigned int v :
                       GeometryInfo<dim>::vertex_indices())
                    center += cell->vertex(v);
                  for (unsigned int d = 0; d < dim; ++d)
                    centers[c * dim + d] = Number(
                        center[d] / GeometryInfo<dim>::vertices_per_cell);
                }
              }
            });
        if (!usable.load())
        {
          centers.clear();
          return false;
        }
        source_of.reset(new unsigned int[n_local]);
        for_locals(
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t l = begin; l < end; ++l)
                source_of[l] = of[l].load(std::memory_order_relaxed);
            });
        return true;
      }

      /**
       * Keep, while a multigrid set-up collects (LevelDoFIndexCache), the
       * active DoF of each local level index that
       * gather_geometry_field_indices() found in @p source_of, for the
       * transfer's copies between the global and the level vectors.
       */
      template <int dim>
      void keep_active_dofs(const GeometryFieldSource<dim> &source,
                            const DoFInfo<dim>             &dof_info,
                            const unsigned int             *source_of)
      {
        const DoFHandler<dim> &dof_handler = *source.dof_handler;
        if (!LevelDoFIndexCache<dim>::collecting(dof_handler) ||
            dof_info.cells.empty())
          return;
        const auto       &from    = *source.partitioner;
        const std::size_t n_local = dof_info.partitioner->locally_owned_size() +
                                    dof_info.partitioner->n_ghost_indices();
        std::unique_ptr<types::global_dof_index[]> of_local(
            new types::global_dof_index[n_local]);
        parallel_for_chunks(
            n_local,
            1u << 16,
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t l = begin; l < end; ++l)
                of_local[l] = source_of[l] == numbers::invalid_unsigned_int
                                  ? numbers::invalid_dof_index
                                  : from.local_to_global(source_of[l]);
            });
        LevelDoFIndexCache<dim>::keep_active_dofs(dof_handler,
                                                  dof_info.cells[0]->level(),
                                                  dof_info.partitioner,
                                                  std::move(of_local));
      }

      /**
       * As keep_active_dofs(), for a level of active cells whose geometry
       * is gathered from the source's cells rather than its field: each
       * local level index's active DoF read from the cells' active DoF
       * indices (deal.II keeps those; the level ones it computes per call).
       * Scalar elements only: the transfer's copies then run on the device
       * where the ranks' ownership allows (mg_transfer_matrix_free_copies).
       */
      template <int dim>
      void keep_active_dofs_of_cells(const DoFInfo<dim> &dof_info)
      {
        if (dof_info.cells.empty() || !dof_info.on_level ||
            dof_info.n_components != 1)
          return;
        const DoFHandler<dim> &dof_handler =
            dof_info.cells[0]->get_dof_handler();
        const unsigned int level = dof_info.cells[0]->level();
        if (!LevelDoFIndexCache<dim>::collecting(dof_handler) ||
            LevelDoFIndexCache<dim>::find_active_dofs(dof_handler, level) !=
                nullptr)
          return;
        const std::size_t n_local = dof_info.partitioner->locally_owned_size() +
                                    dof_info.partitioner->n_ghost_indices();
        std::unique_ptr<types::global_dof_index[]> of_local(
            new types::global_dof_index[n_local]);
        types::global_dof_index *const out = of_local.get();
        parallel_for_chunks(
            n_local,
            1u << 16,
            [&](const std::size_t begin, const std::size_t end)
            { std::fill(out + begin, out + end, numbers::invalid_dof_index); });
        const unsigned int dofs_per_cell = dof_info.dofs_per_cell;
        const auto        &tria          = dof_handler.get_triangulation();
        parallel_for_chunks(
            dof_info.cells.size(),
            256,
            [&](const std::size_t begin, const std::size_t end)
            {
              std::vector<types::global_dof_index> active(dofs_per_cell);
              for (std::size_t c = begin; c < end; ++c)
              {
                const typename DoFHandler<dim>::active_cell_iterator cell(
                    &tria, level, dof_info.cells[c]->index(), &dof_handler);
                cell->get_dof_indices(active);
                const unsigned int *local =
                    dof_info.indices.data() + c * dofs_per_cell;
                // Cells sharing a DoF store the same value.
                for (unsigned int i = 0; i < dofs_per_cell; ++i)
                  __atomic_store_n(out + (local[i] & ~constrained_dof_flag),
                                   active[dof_info.lexicographic[i]],
                                   __ATOMIC_RELAXED);
              }
            });
        LevelDoFIndexCache<dim>::keep_active_dofs(
            dof_handler, level, dof_info.partitioner, std::move(of_local));
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
