// A multigrid level whose cells are all active takes their stored
// Jacobians, JxW, points and point data from the active cells' GPU::MatrixFree
// cell by cell on the device (GeometryFieldSource), instead of asking the
// mapping (and the user's coefficient) again.
#ifndef dealii_gpu_source_matrix_free_geometry_from_active_cells_h
#define dealii_gpu_source_matrix_free_geometry_from_active_cells_h

#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/matrix_free/dof_info.h>
#include <dealii-gpu/matrix_free/mapping_info.h>

#include <deal.II/base/quadrature.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** The cell of each position c of data in the cell order @p order:
       *  (level << 32) | index of dof_info.cells[order[c]]. */
      template <int dim>
      std::shared_ptr<const std::vector<std::uint64_t>>
      cell_ids_of(const DoFInfo<dim>              &dof_info,
                  const std::vector<unsigned int> &order)
      {
        auto ids = std::make_shared<std::vector<std::uint64_t>>(order.size());
        parallel_for_chunks(order.size(),
                            1u << 14,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              for (std::size_t c = begin; c < end; ++c)
                              {
                                const auto &cell = dof_info.cells[order[c]];
                                (*ids)[c] =
                                    (std::uint64_t(cell->level()) << 32) |
                                    std::uint64_t(cell->index());
                              }
                            });
        return ids;
      }

      /**
       * Each level cell's position in @p source (cells of dof_info in the
       * order @p order): true where the source holds every one of them, on
       * the same DoFHandler, mapping and quadrature.
       */
      template <int dim>
      bool find_source_cells(const GeometryFieldSource<dim>  &source,
                             const Mapping<dim>              &mapping,
                             const DoFInfo<dim>              &dof_info,
                             const std::vector<unsigned int> &order,
                             const Quadrature<1>             &quadrature,
                             std::vector<unsigned int>       &source_cells)
      {
        source_cells.clear();
        if (source.cell_ids == nullptr || !dof_info.on_level || order.empty() ||
            source.mapping != &mapping ||
            source.dof_handler != &dof_info.cells[0]->get_dof_handler() ||
            source.quadrature_1d.size() != quadrature.size())
          return false;
        for (unsigned int q = 0; q < quadrature.size(); ++q)
          if (std::abs(source.quadrature_1d[q] - quadrature.point(q)[0]) >
              1e-14)
            return false;
        const std::vector<std::uint64_t> &ids   = *source.cell_ids;
        const unsigned int                level = dof_info.cells[0]->level();
        constexpr unsigned int            none  = numbers::invalid_unsigned_int;
        const auto &tria = source.dof_handler->get_triangulation();
        std::vector<unsigned int> position(tria.n_raw_cells(level), none);
        parallel_for_chunks(ids.size(),
                            1u << 14,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              for (std::size_t i = begin; i < end; ++i)
                                if ((ids[i] >> 32) == level)
                                  position[ids[i] & 0xffffffffu] = i;
                            });
        source_cells.resize(order.size());
        std::atomic<bool> found(true);
        parallel_for_chunks(order.size(),
                            1u << 14,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              for (std::size_t c = begin; c < end; ++c)
                              {
                                source_cells[c] =
                                    position[dof_info.cells[order[c]]->index()];
                                if (source_cells[c] == none)
                                  found.store(false, std::memory_order_relaxed);
                              }
                            });
        if (!found.load())
          source_cells.clear();
        return found.load();
      }

      /** to[(c n_per + i) n_q + q] = from[(source_cells[c] n_per + i) n_q
       *  + q]: n_per numbers a point, converted to Number. */
      template <typename Number>
      void gather_cells(const char         *name,
                        const double       *from,
                        const unsigned int *source_cells,
                        const unsigned int  n_cells,
                        const unsigned int  n_per,
                        const unsigned int  n_q,
                        Number             *to)
      {
        parallel_for(
            name,
            std::size_t(n_cells) * n_per * n_q,
            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
            {
              const std::size_t c    = k / (std::size_t(n_per) * n_q);
              const std::size_t rest = k % (std::size_t(n_per) * n_q);
              to[k]                  = Number(
                  from[std::size_t(source_cells[c]) * n_per * n_q + rest]);
            });
      }

      /** Whether the source's cells at @p source_cells are all affine:
       *  their inverse Jacobians (n_per numbers a point) the same at every
       *  point, to 1e-12 relative (for a MappingQ(p) of p < n_q_1d that
       *  makes the mapping affine, as a check of the support points
       *  would). */
      inline bool gathered_cells_affine(const double       *inverse_jacobian,
                                        const unsigned int *source_cells,
                                        const unsigned int  n_cells,
                                        const unsigned int  n_per,
                                        const unsigned int  n_q)
      {
        if (n_cells == 0)
          return true;
        Array<unsigned int> flags;
        flags.resize(n_cells);
        unsigned int *affine = flags.data();
        parallel_for("MappingInfo::gathered_cells_affine",
                     n_cells,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
                     {
                       const double *J =
                           inverse_jacobian +
                           std::size_t(source_cells[c]) * n_per * n_q;
                       double scale = 0;
                       for (unsigned int i = 0; i < n_per; ++i)
                         scale = J[i * n_q] > scale    ? J[i * n_q]
                                 : -J[i * n_q] > scale ? -J[i * n_q]
                                                       : scale;
                       unsigned int same = 1;
                       for (unsigned int i = 0; i < n_per; ++i)
                         for (unsigned int q = 1; q < n_q; ++q)
                         {
                           const double d = J[i * n_q + q] - J[i * n_q];
                           if (d > 1e-12 * scale || -d > 1e-12 * scale)
                             same = 0;
                         }
                       affine[c] = same;
                     });
        std::vector<unsigned int> host(n_cells);
        Memory::copy_to_host(flags.backend(),
                             host.data(),
                             flags.data(),
                             n_cells * sizeof(unsigned int));
        for (const unsigned int a : host)
          if (a == 0)
            return false;
        return true;
      }

      /** The source's absolute points of each cell, as offsets from the
       *  cell's center (the mean of its points) where @p centers is given. */
      template <int dim, typename Number>
      void gather_cell_points(const double       *from,
                              const unsigned int *source_cells,
                              const unsigned int  n_cells,
                              const unsigned int  n_q,
                              Number             *centers,
                              Number             *points)
      {
        if (centers == nullptr)
        {
          gather_cells("MappingInfo::gather_cell_points",
                       from,
                       source_cells,
                       n_cells,
                       dim,
                       n_q,
                       points);
          return;
        }
        parallel_for("MappingInfo::gather_cell_centers",
                     n_cells,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
                     {
                       const double *x =
                           from + std::size_t(source_cells[c]) * dim * n_q;
                       for (unsigned int d = 0; d < dim; ++d)
                       {
                         double sum = 0;
                         for (unsigned int q = 0; q < n_q; ++q)
                           sum += x[d * n_q + q];
                         centers[c * dim + d] = Number(sum / n_q);
                       }
                     });
        parallel_for("MappingInfo::gather_cell_points",
                     std::size_t(n_cells) * dim * n_q,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
                     {
                       const std::size_t  c = k / (std::size_t(dim) * n_q);
                       const unsigned int d = (k / n_q) % dim;
                       points[k]            = Number(
                           from[std::size_t(source_cells[c]) * dim * n_q +
                                k % (std::size_t(dim) * n_q)] -
                           double(centers[c * dim + d]));
                     });
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
