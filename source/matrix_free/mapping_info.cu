#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/matrix_free/mapping_info.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_cartesian.h>
#include <deal.II/fe/mapping_q.h>

#include "../base/pinned_buffer.h"
#include "cell_support_points.h"
#include "geometry_field.h"
#include "geometry_from_active_cells.h"
#include "mapping_q_geometry.h"
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <sstream>
#include <type_traits>
#include <utility>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <int dim>
      unsigned int polynomial_mapping_degree(const Mapping<dim> &mapping)
      {
        if (const auto *mapping_q =
                dynamic_cast<const MappingQ<dim, dim> *>(&mapping))
          return mapping_q->get_degree();
        if (dynamic_cast<const MappingCartesian<dim, dim> *>(&mapping) !=
            nullptr)
          return 1;
        return numbers::invalid_unsigned_int;
      }

      namespace
      {
        // Cells per batch of the host's mapping support points.
        constexpr unsigned int cells_per_batch = 1u << 15;

        // field[l dim + d] = from[source_of[l] dim + d]; 0 where no cell
        // has l.
        template <int dim>
        void gather_field(const double       *from,
                          const unsigned int *source_of,
                          const std::size_t   n_local,
                          double             *field)
        {
          parallel_for("MappingInfo::gather_field",
                       n_local,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t l)
                       {
                         constexpr unsigned int none = ~0u;
                         const unsigned int     s    = source_of[l];
                         for (unsigned int d = 0; d < dim; ++d)
                           field[l * dim + d] =
                               s == none ? 0. : from[std::size_t(s) * dim + d];
                       });
        }
      } // namespace

      template <int dim, typename Number>
      void
      MappingInfo<dim, Number>::reinit(const Mapping<dim> &mapping,
                                       const DoFInfo<dim> &dof_info,
                                       const std::vector<unsigned int> &order,
                                       const Quadrature<1>  &quadrature,
                                       const GeometryStorage storage,
                                       const bool            store_points,
                                       SetupTimer           &timer,
                                       const GeometryFieldSource<dim> &source)
      {
        timer.start("geometry");
        clear();
        const unsigned int n_q_1d = quadrature.size();
        const unsigned int degree = dof_info.degree;
        n_cells                   = order.size();
        mapping_degree            = polynomial_mapping_degree(mapping);
        // The quadrature points alone determine a MappingQ(p) with p <
        // n_q_points_1d (its interpolant at the points is the mapping), so
        // the kernel can differentiate them instead of reading stored
        // Jacobians: dim numbers a point instead of dim * dim + 1.
        const bool points_determine_mapping = mapping_degree < n_q_1d;
        AssertThrow(storage != GeometryStorage::points ||
                        points_determine_mapping,
                    ExcNotSupportedByMatrixFree(
                        "GeometryStorage::points with " +
                        (mapping_degree == numbers::invalid_unsigned_int
                             ? std::string("a mapping that is not MappingQ")
                             : "MappingQ(" + std::to_string(mapping_degree) +
                                   ") and " + std::to_string(n_q_1d) +
                                   " quadrature points per direction") +
                        ": the points determine the Jacobians only for "
                        "MappingQ(p) with p < n_q_points_1d; use "
                        "GeometryStorage::jacobians"));
        const bool from_field = storage == GeometryStorage::field;
        AssertThrow(
            !from_field || mapping_degree <= degree,
            ExcNotSupportedByMatrixFree(
                "GeometryStorage::field with " +
                (mapping_degree == numbers::invalid_unsigned_int
                     ? std::string("a mapping that is not MappingQ")
                     : "MappingQ(" + std::to_string(mapping_degree) +
                           ") and FE_Q(" + std::to_string(degree) + ")") +
                ": the field at the element's support points represents "
                "MappingQ(p) only for p <= fe_degree; use "
                "GeometryStorage::points or jacobians"));
        const bool from_points =
            storage == GeometryStorage::points || from_field;

        // Tensor-product rule, x fastest.
        const Quadrature<dim> cell_quadrature(quadrature);
        n_q_points             = cell_quadrature.size();
        const unsigned int n_q = n_q_points;
        {
          std::vector<Number> weights(n_q);
          for (unsigned int q = 0; q < n_q; ++q)
            weights[q] = cell_quadrature.weight(q);
          quadrature_weights.copy_from(weights);
        }
        const bool     keep_points    = store_points || from_points;
        const bool     keep_jacobians = !from_points;
        constexpr bool with_centers = points_relative_to_cell_centers<Number>();
        const bool keep_centers = with_centers && (keep_points || from_field);

        const bool nodes_are_dofs =
            dof_info.n_components == 1 && dof_info.n_hanging_cells == 0;

        // The active cells: what a level of the same cells can take from
        // here (field_source()). A level: its cells' positions in such a
        // source.
        if (!dof_info.on_level && n_cells > 0)
        {
          source_of_levels.dof_handler = &dof_info.cells[0]->get_dof_handler();
          source_of_levels.mapping     = &mapping;
          source_of_levels.degree      = degree;
          source_of_levels.cell_ids    = cell_ids_of(dof_info, order);
          for (unsigned int q = 0; q < n_q_1d; ++q)
            source_of_levels.quadrature_1d.push_back(quadrature.point(q)[0]);
        }
        {
          std::vector<unsigned int> host_source_cells;
          if (find_source_cells(source,
                                mapping,
                                dof_info,
                                order,
                                quadrature,
                                host_source_cells))
            source_cells.copy_from(host_source_cells);
        }
        // A level of active cells whose source stores the Jacobians (and
        // the points, where they are kept and asked for): gathered.
        if (keep_jacobians && cells_from_source() &&
            source.inverse_jacobian != nullptr &&
            (!keep_points || source.points != nullptr ||
             source.points_not_needed))
        {
          timer.start("active DoFs of the level");
          keep_active_dofs_of_cells(dof_info);
          timer.start("geometry from the active cells");
          const bool points = keep_points && source.points != nullptr;
          // A level holds some of the source's cells: affine where those
          // are (the finest cells inside a curved domain often are).
          affine_cells = mapping_degree != numbers::invalid_unsigned_int &&
                         (source.affine_cells ||
                          gathered_cells_affine(source.inverse_jacobian,
                                                source_cells.data(),
                                                n_cells,
                                                dim * dim,
                                                n_q));
          inverse_jacobian.resize(std::size_t(n_cells) * dim * dim * n_q);
          JxW.resize(std::size_t(n_cells) * n_q);
          gather_cells("MappingInfo::gather_cells",
                       source.inverse_jacobian,
                       source_cells.data(),
                       n_cells,
                       dim * dim,
                       n_q,
                       inverse_jacobian.data());
          gather_cells("MappingInfo::gather_cells",
                       source.JxW,
                       source_cells.data(),
                       n_cells,
                       1,
                       n_q,
                       JxW.data());
          if (points)
          {
            quadrature_points.resize(std::size_t(n_cells) * dim * n_q);
            if (keep_centers)
              cell_centers.resize(std::size_t(n_cells) * dim);
            gather_cell_points<dim, Number>(source.points,
                                            source_cells.data(),
                                            n_cells,
                                            n_q,
                                            keep_centers ? cell_centers.data()
                                                         : nullptr,
                                            quadrature_points.data());
          }
          timer.stop();
          return;
        }
        // With the field and store_points: the 1D matrices from its nodes
        // to the quadrature points, by which for_each_points_chunk()
        // interpolates the points where they are asked for, chunk by chunk
        // on the device (no second pass of the mapping, no host copy).
        const auto keep_points_from_field = [&]
        {
          if (!store_points || n_cells == 0)
            return;
          points_from_field            = true;
          field_nodes_1d               = degree + 1;
          n_q_points_1d                = n_q_1d;
          const FiniteElement<dim> &fe = dof_info.cells[0]->get_fe();
          std::vector<Point<1>>     nodes_1d(field_nodes_1d);
          for (unsigned int i = 0; i < field_nodes_1d; ++i)
            nodes_1d[i][0] =
                fe.base_element(0)
                    .get_unit_support_points()[dof_info.lexicographic[i]][0];
          lagrange_matrices(nodes_1d,
                            quadrature,
                            field_values_1d,
                            field_derivatives_1d,
                            field_means_1d);
        };
        if (from_field && CellSupportPoints<dim>::continuous(mapping) &&
            source.mapping == &mapping)
        {
          // A level of active cells: the active cells' field holds its
          // positions (deal.II's MappingQ places a point the same from any
          // cell), renumbered on the device.
          timer.start("geometry field from the active cells");
          std::unique_ptr<unsigned int[]> source_of;
          std::vector<Number>             host_centers;
          if (gather_geometry_field_indices(
                  source, dof_info, order, source_of, host_centers))
          {
            const std::size_t n_local =
                dof_info.partitioner->locally_owned_size() +
                dof_info.partitioner->n_ghost_indices();
            Array<unsigned int> indices;
            indices.resize(n_local);
            Memory::copy_to_backend(indices.backend(),
                                    indices.data(),
                                    source_of.get(),
                                    n_local * sizeof(unsigned int));
            keep_active_dofs(source, dof_info, source_of.get());
            source_of.reset();
            geometry_field.resize(n_local * dim);
            gather_field<dim>(
                source.field, indices.data(), n_local, geometry_field.data());
            cell_centers.copy_from(host_centers);
            keep_points_from_field();
            timer.stop();
            return;
          }
        }
        if (from_field)
        {
          timer.start("geometry field");
          std::unique_ptr<double[]> host_field;
          std::size_t               field_size = 0;
          std::vector<unsigned int> host_nodes;
          std::vector<Number>       host_centers;
          // The cell kernels take the DoF indices as nodes where the data
          // hold no node list (see MatrixFreeData::geometry_indices).
          build_geometry_field(mapping,
                               dof_info,
                               order,
                               nodes_are_dofs,
                               host_field,
                               field_size,
                               host_nodes,
                               host_centers);
          geometry_field.resize(field_size);
          if (field_size > 0)
            Memory::copy_to_backend(geometry_field.backend(),
                                    geometry_field.data(),
                                    host_field.get(),
                                    field_size * sizeof(double));
          geometry_indices.copy_from(host_nodes);
          cell_centers.copy_from(host_centers);
          if (nodes_are_dofs && !dof_info.on_level && n_cells > 0)
            source_of_levels.partitioner = dof_info.partitioner;
          keep_points_from_field();
          timer.stop();
          return;
        }

        // MappingQ(p): affine until a cell is found not to be.
        affine_cells =
            keep_jacobians && mapping_degree != numbers::invalid_unsigned_int;
        if (keep_jacobians)
        {
          inverse_jacobian.resize(std::size_t(n_cells) * dim * dim * n_q);
          JxW.resize(std::size_t(n_cells) * n_q);
        }
        if (keep_points)
          quadrature_points.resize(std::size_t(n_cells) * dim * n_q);
        if (keep_centers)
          cell_centers.resize(std::size_t(n_cells) * dim);
        if (n_cells == 0)
        {
          timer.stop();
          return;
        }
        const FiniteElement<dim> &fe      = dof_info.cells[0]->get_fe();
        const auto                cell_of = [&](const std::size_t c)
        {
          return typename Triangulation<dim>::cell_iterator(
              dof_info.cells[order[c]]);
        };

        if (mapping_degree == numbers::invalid_unsigned_int)
        {
          // Any other mapping: FEValues at the quadrature points.
          AssertThrow(!from_points, ExcInternalError());
          std::vector<Number> host_inverse(inverse_jacobian.size()),
              host_JxW(JxW.size()), host_points(quadrature_points.size()),
              host_centers(cell_centers.size());
          parallel_for_chunks(
              n_cells,
              cell_grain,
              [&](const std::size_t begin, const std::size_t end)
              {
                FEValues<dim> fe_values(
                    mapping,
                    fe,
                    cell_quadrature,
                    update_inverse_jacobians | update_JxW_values |
                        (keep_points ? update_quadrature_points
                                     : update_default));
                for (std::size_t c = begin; c < end; ++c)
                {
                  fe_values.reinit(cell_of(c));
                  for (unsigned int q = 0; q < n_q; ++q)
                  {
                    const auto &inverse = fe_values.inverse_jacobian(q);
                    for (unsigned int d = 0; d < dim; ++d)
                      for (unsigned int e = 0; e < dim; ++e)
                        host_inverse[(c * dim * dim + d * dim + e) * n_q + q] =
                            inverse[d][e];
                    host_JxW[c * n_q + q] = fe_values.JxW(q);
                  }
                  if (!keep_points)
                    continue;
                  Point<dim> center;
                  if (with_centers)
                  {
                    for (unsigned int q = 0; q < n_q; ++q)
                      center += fe_values.quadrature_point(q);
                    center /= n_q;
                    for (unsigned int d = 0; d < dim; ++d)
                      host_centers[c * dim + d] = center[d];
                  }
                  for (unsigned int q = 0; q < n_q; ++q)
                    for (unsigned int d = 0; d < dim; ++d)
                      host_points[(c * dim + d) * n_q + q] =
                          fe_values.quadrature_point(q)[d] - center[d];
                }
              });
          inverse_jacobian.copy_from(host_inverse);
          JxW.copy_from(host_JxW);
          quadrature_points.copy_from(host_points);
          cell_centers.copy_from(host_centers);
          timer.stop();
          return;
        }

        // MappingQ(p): the support points (Gauss-Lobatto, as MappingQ
        // places them) on the host, the rest in a kernel.
        const unsigned int n_support_1d = mapping_degree + 1;
        const unsigned int n_support    = Utilities::pow(n_support_1d, dim);
        const std::vector<Point<1>> points_1d =
            QGaussLobatto<1>(n_support_1d).get_points();
        Array<double> shape_values_1d, shape_derivatives_1d, shape_means_1d,
            weights_double;
        lagrange_matrices(points_1d,
                          quadrature,
                          shape_values_1d,
                          shape_derivatives_1d,
                          shape_means_1d);
        {
          std::vector<double> weights(n_q);
          for (unsigned int q = 0; q < n_q; ++q)
            weights[q] = cell_quadrature.weight(q);
          weights_double.copy_from(weights);
        }
        std::vector<double> host_X;
        Array<double>       X;
        for (unsigned int first = 0; first < n_cells; first += cells_per_batch)
        {
          const unsigned int n = std::min(cells_per_batch, n_cells - first);
          timer.start("mapping support points");
          host_X.resize(std::size_t(n) * n_support * dim);
          std::atomic<bool> batch_affine(true);
          parallel_for_chunks(
              n,
              cell_grain,
              [&](const std::size_t begin, const std::size_t end)
              {
                CellSupportPoints<dim> support(mapping, points_1d);
                bool                   affine = affine_cells;
                for (std::size_t b = begin; b < end; ++b)
                {
                  support.get(cell_of(first + b),
                              host_X.data() + b * n_support * dim);
                  affine = affine &&
                           is_affine<dim>(host_X.data() + b * n_support * dim,
                                          n_support_1d,
                                          points_1d);
                }
                if (!affine)
                  batch_affine.store(false, std::memory_order_relaxed);
              });
          timer.start("geometry");
          affine_cells = affine_cells && batch_affine.load();
          X.copy_from(host_X);
          interpolate_geometry<dim, Number>(
              first,
              n,
              n_support_1d,
              n_q_1d,
              X.data(),
              shape_values_1d.data(),
              shape_derivatives_1d.data(),
              shape_means_1d.data(),
              weights_double.data(),
              false,
              keep_centers ? cell_centers.data() : nullptr,
              keep_points ? quadrature_points.data() : nullptr,
              keep_jacobians ? inverse_jacobian.data() : nullptr,
              keep_jacobians ? JxW.data() : nullptr);
          timer.progress(first + n, n_cells);
        }
        timer.stop();
      }

      template <int dim, typename Number>
      GeometryFieldSource<dim> MappingInfo<dim, Number>::field_source() const
      {
        GeometryFieldSource<dim> source = source_of_levels;
        if (source.partitioner != nullptr && geometry_field.size() > 0)
          source.field = geometry_field.data();
        const std::size_t n_q = std::size_t(n_cells) * n_q_points;
        if constexpr (std::is_same_v<Number, double>)
          if (source.cell_ids != nullptr && n_q > 0)
          {
            if (inverse_jacobian.size() == n_q * dim * dim && JxW.size() == n_q)
            {
              source.inverse_jacobian = inverse_jacobian.data();
              source.JxW              = JxW.data();
              source.affine_cells     = affine_cells;
            }
            if (quadrature_points.size() == n_q * dim)
              source.points = quadrature_points.data();
          }
        return source;
      }

      template <int dim, typename Number>
      void
      MappingInfo<dim, Number>::gather_point_values(const double  *from,
                                                    Array<Number> &values) const
      {
        AssertThrow(cells_from_source(), ExcInternalError());
        values.resize(std::size_t(n_cells) * n_q_points);
        gather_cells("MappingInfo::gather_point_values",
                     from,
                     source_cells.data(),
                     n_cells,
                     1,
                     n_q_points,
                     values.data());
      }

      template <int dim, typename Number>
      void MappingInfo<dim, Number>::clear()
      {
        source_of_levels = {};
        source_cells.clear();
        affine_cells = false;
        inverse_jacobian.clear();
        JxW.clear();
        quadrature_points.clear();
        cell_centers.clear();
        geometry_field.clear();
        geometry_indices.clear();
        release_points();
      }

      template <int dim, typename Number>
      void MappingInfo<dim, Number>::release_points()
      {
        quadrature_points.clear();
        points_from_field = false;
        field_values_1d.clear();
        field_derivatives_1d.clear();
        field_means_1d.clear();
      }

      template <int dim, typename Number>
      bool MappingInfo<dim, Number>::has_points() const
      {
        return (quadrature_points.size() ==
                    std::size_t(n_cells) * dim * n_q_points ||
                points_from_field) &&
               n_cells > 0;
      }

      template <int dim, typename Number>
      void MappingInfo<dim, Number>::for_each_points_chunk(
          const std::function<void(const unsigned int,
                                   const unsigned int,
                                   const Point<dim> *,
                                   Number *)> &f,
          Array<Number>                       *result,
          const NodeGather                    &gather_nodes) const
      {
        if (n_cells == 0)
          return;
        AssertThrow(has_points(), ExcInternalError());
        AssertThrow(!points_from_field || gather_nodes, ExcInternalError());
        if (result != nullptr)
          AssertDimension(result->size(), std::size_t(n_cells) * n_q_points);
        const unsigned int n_q        = n_q_points;
        const Backend      backend    = quadrature_weights.backend();
        const bool         centers    = cell_centers.size() > 0;
        const bool         from_field = points_from_field;
        const unsigned int n_nodes =
            from_field ? Utilities::pow(field_nodes_1d, dim) : 0;
        // Chunks of about 32k points; each thread copies its chunks
        // through its own page-locked buffers, so that while one waits for
        // a copy the others evaluate.
        const unsigned int cells_per_chunk =
            std::max(1u, (1u << 15) / std::max(1u, n_q));
        const std::size_t n_chunks =
            (n_cells + cells_per_chunk - 1) / cells_per_chunk;
        const std::size_t max_points = std::size_t(cells_per_chunk) * n_q;
        // With the field also a chunk's node positions, gathered from the
        // field, and the points interpolated from them.
        struct Buffers
        {
          Buffers(const Backend     backend,
                  const std::size_t n_points,
                  const std::size_t n_field_numbers)
              : offsets(backend, n_points * dim * sizeof(Number)),
                centers(backend, n_points * dim * sizeof(Number)),
                values(backend, n_points * sizeof(Number)), points(n_points)
          {
            if (n_field_numbers > 0)
            {
              nodes.resize(n_field_numbers, backend);
              field_points.resize(n_points * dim, backend);
            }
          }
          PinnedBuffer            offsets, centers, values;
          std::vector<Point<dim>> points;
          Array<double>           nodes;
          Array<Number>           field_points;
        };
        std::vector<std::unique_ptr<Buffers>> pool;
        std::mutex                            pool_mutex;
        parallel_for_chunks(
            n_chunks,
            std::max<std::size_t>(1, n_chunks / (8 * n_setup_threads())),
            [&](const std::size_t chunk_begin, const std::size_t chunk_end)
            {
              bind_thread_to_device();
              std::unique_ptr<Buffers> buffers;
              {
                std::lock_guard<std::mutex> lock(pool_mutex);
                if (!pool.empty())
                {
                  buffers = std::move(pool.back());
                  pool.pop_back();
                }
              }
              if (!buffers)
                buffers = std::make_unique<Buffers>(
                    backend,
                    max_points,
                    std::size_t(cells_per_chunk) * n_nodes * dim);
              PinnedBuffer &offsets     = buffers->offsets;
              PinnedBuffer &cell_center = buffers->centers;
              PinnedBuffer &values      = buffers->values;
              auto         &points      = buffers->points;
              for (std::size_t k = chunk_begin; k < chunk_end; ++k)
              {
                const unsigned int first = k * cells_per_chunk;
                const unsigned int n =
                    std::min(cells_per_chunk, n_cells - first);
                const Number *device_points =
                    quadrature_points.data() + std::size_t(first) * dim * n_q;
                if (from_field)
                {
                  gather_nodes(first, n, buffers->nodes.data());
                  interpolate_geometry<dim, Number>(
                      0,
                      n,
                      field_nodes_1d,
                      n_q_points_1d,
                      buffers->nodes.data(),
                      field_values_1d.data(),
                      field_derivatives_1d.data(),
                      field_means_1d.data(),
                      nullptr,
                      true,
                      // Given centers are only read.
                      centers ? const_cast<Number *>(cell_centers.data()) +
                                    std::size_t(first) * dim
                              : nullptr,
                      buffers->field_points.data(),
                      nullptr,
                      nullptr);
                  device_points = buffers->field_points.data();
                }
                Memory::copy_to_host(backend,
                                     offsets.as<Number>(),
                                     device_points,
                                     std::size_t(n) * dim * n_q *
                                         sizeof(Number));
                if (centers)
                  Memory::copy_to_host(backend,
                                       cell_center.as<Number>(),
                                       cell_centers.data() +
                                           std::size_t(first) * dim,
                                       std::size_t(n) * dim * sizeof(Number));
                const Number *x = offsets.as<Number>();
                const Number *c = cell_center.as<Number>();
                for (unsigned int b = 0; b < n; ++b)
                  for (unsigned int q = 0; q < n_q; ++q)
                    for (unsigned int d = 0; d < dim; ++d)
                      points[b * n_q + q][d] =
                          (centers ? double(c[b * dim + d]) : 0.) +
                          double(x[(b * dim + d) * n_q + q]);
                f(first, n, points.data(), values.as<Number>());
                if (result != nullptr)
                  Memory::copy_to_backend(
                      backend,
                      result->data() + std::size_t(first) * n_q,
                      values.as<Number>(),
                      std::size_t(n) * n_q * sizeof(Number));
              }
              std::lock_guard<std::mutex> lock(pool_mutex);
              pool.push_back(std::move(buffers));
            });
      }

      template <int dim, typename Number>
      std::size_t MappingInfo<dim, Number>::memory_consumption() const
      {
        return inverse_jacobian.memory_consumption() +
               JxW.memory_consumption() +
               quadrature_points.memory_consumption() +
               cell_centers.memory_consumption() +
               geometry_field.memory_consumption() +
               geometry_indices.memory_consumption() +
               quadrature_weights.memory_consumption() +
               source_cells.memory_consumption();
      }

      template unsigned int polynomial_mapping_degree(const Mapping<2> &);
      template unsigned int polynomial_mapping_degree(const Mapping<3> &);
      template class MappingInfo<2, float>;
      template class MappingInfo<2, double>;
      template class MappingInfo<3, float>;
      template class MappingInfo<3, double>;
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
