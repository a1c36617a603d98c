#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/integration/element_pattern.h>
#include <dealii-gpu/matrix_free/mapping_info.h>

#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_simplex_p.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/fe_wedge_p.h>
#include <deal.II/fe/mapping_fe.h>

#include "../matrix_free/cell_support_points.h"
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      // The element of the mapping, whose support points the host maps and
      // whose shape functions the kernel differentiates: exact for
      // MappingQ(p) (a polynomial of FE_Q(p)) and MappingFE(fe) alike.
      template <int dim>
      std::unique_ptr<FiniteElement<dim>>
      geometry_element(const Mapping<dim> &mapping, const ReferenceCell &cell)
      {
        if (cell.is_hyper_cube())
        {
          const unsigned int p = internal::polynomial_mapping_degree(mapping);
          AssertThrow(p != numbers::invalid_unsigned_int,
                      ExcMessage("ElementIntegrator: on quadrilaterals and "
                                 "hexahedra the mapping must be MappingQ (or "
                                 "derived from it) or MappingCartesian."));
          return std::make_unique<FE_Q<dim>>(p);
        }
        const auto *mapping_fe = dynamic_cast<const MappingFE<dim> *>(&mapping);
        AssertThrow(mapping_fe != nullptr,
                    ExcMessage("ElementIntegrator: on " + cell.to_string() +
                               " cells the mapping must be MappingFE."));
        const unsigned int p = mapping_fe->get_degree();
        if (cell.is_simplex())
          return std::make_unique<FE_SimplexP<dim>>(p);
        AssertThrow(cell == ReferenceCells::Wedge,
                    ExcMessage("ElementIntegrator: " + cell.to_string() +
                               " cells are not supported."));
        return std::make_unique<FE_WedgeP<dim>>(p);
      }

      // Cells per batch: element matrices of at most this many bytes, and
      // at most an eighth of the device's free memory. H100, Q1 3D: 1 GiB
      // (2 batches of 2.85e6 cells) took 12 % less time than 256 MiB (6):
      // each batch is synchronized and ends in a partial wave.
      constexpr std::size_t batch_bytes = std::size_t(1) << 30;
      // Element matrices: 8 quadrature points a chunk where the scratch
      // stays within 100 KB (H100: 8 was faster than 4 and 16 at Q3, Q4).
      constexpr unsigned int chunk_points = 8;
      constexpr std::size_t  chunk_bytes  = 100 << 10;
      constexpr std::size_t  cell_grain   = 256;

    } // namespace

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::reinit(
        const Mapping<dim>    &mapping_in,
        const DoFHandler<dim> &dof_handler_in,
        const Quadrature<dim> &quadrature,
        const AdditionalData  &additional_data)
    {
      const DoFHandler<dim> &dof_handler = dof_handler_in;
      timer.clear();
      timer.start("element data");
      const FiniteElement<dim> &fe = dof_handler.get_fe();
      AssertThrow(
          dof_handler.get_fe_collection().size() == 1,
          ExcMessage("ElementIntegrator: hp::FECollection with " +
                     std::to_string(dof_handler.get_fe_collection().size()) +
                     " elements is not supported."));
      AssertThrow(
          fe.n_components() == n_components,
          ExcMessage("ElementIntegrator<dim, " + std::to_string(n_components) +
                     ">: the element " + fe.get_name() + " has " +
                     std::to_string(fe.n_components()) + " components."));
      AssertThrow(fe.is_primitive(),
                  ExcMessage("ElementIntegrator: the element " + fe.get_name() +
                             " is not primitive (every shape function must be "
                             "nonzero in one component only)."));
      AssertThrow(quadrature.size() > 0,
                  ExcMessage("ElementIntegrator: empty quadrature."));
      mapping           = &mapping_in;
      this->dof_handler = &dof_handler_in;
      level             = additional_data.mg_level;
      cells.clear();
      const bool on_level = level != numbers::invalid_unsigned_int;
      if (on_level)
      {
        AssertThrow(dof_handler.has_level_dofs(),
                    ExcMessage("ElementIntegrator: mg_level " +
                               std::to_string(level) +
                               " on a DoFHandler without level DoFs (call "
                               "distribute_mg_dofs())."));
        AssertThrow(
            level < dof_handler.get_triangulation().n_global_levels(),
            ExcMessage("ElementIntegrator: mg_level " + std::to_string(level) +
                       " of a mesh with " +
                       std::to_string(
                           dof_handler.get_triangulation().n_global_levels()) +
                       " levels."));
      }
      const auto cell_range =
          on_level ? dof_handler.cell_iterators_on_level(std::min(
                         level, dof_handler.get_triangulation().n_levels() - 1))
                   : dof_handler.cell_iterators();
      for (const auto &cell : cell_range)
        if (on_level ? (cell->level() == int(level) &&
                        cell->is_locally_owned_on_level())
                     : (cell->is_active() && cell->is_locally_owned()))
        {
          AssertThrow(cell->reference_cell() == fe.reference_cell(),
                      ExcMessage("ElementIntegrator: a " +
                                 cell->reference_cell().to_string() +
                                 " cell on a mesh of " +
                                 fe.reference_cell().to_string() +
                                 " cells (mixed meshes are not supported)."));
          cells.push_back(cell);
        }
      communicator = dof_handler.get_triangulation().get_communicator();
      n_dofs       = fe.n_dofs_per_cell();
      n_q          = quadrature.size();

      std::vector<Number> values(std::size_t(n_q) * n_dofs),
          gradients(values.size() * dim);
      std::vector<unsigned char> components(n_dofs);
      for (unsigned int i = 0; i < n_dofs; ++i)
        components[i] = fe.system_to_component_index(i).first;
      for (unsigned int q = 0; q < n_q; ++q)
        for (unsigned int i = 0; i < n_dofs; ++i)
        {
          values[q * n_dofs + i]    = fe.shape_value(i, quadrature.point(q));
          const Tensor<1, dim> grad = fe.shape_grad(i, quadrature.point(q));
          for (unsigned int d = 0; d < dim; ++d)
            gradients[(q * n_dofs + i) * dim + d] = grad[d];
        }
      shape_values.copy_from(values);
      shape_gradients.copy_from(gradients);
      shape_components.copy_from(components);
      // U of the batched products: entry (q (1 + dim) + a, i) at
      // q (1 + dim) + a + i K.
      if (n_components == 1)
      {
        const std::size_t   K = std::size_t(n_q) * (1 + dim);
        std::vector<Number> u(K * n_dofs);
        for (unsigned int i = 0; i < n_dofs; ++i)
          for (unsigned int q = 0; q < n_q; ++q)
          {
            Number *column = u.data() + i * K + q * (1 + dim);
            column[0]      = values[q * n_dofs + i];
            for (unsigned int d = 0; d < dim; ++d)
              column[1 + d] = gradients[(q * n_dofs + i) * dim + d];
          }
        product_reference.copy_from(u);
      }

      const auto geometry = geometry_element(mapping_in, fe.reference_cell());
      geometry_support_points = geometry->get_unit_support_points();
      n_geometry              = geometry_support_points.size();
      std::vector<double> g_values(std::size_t(n_q) * n_geometry),
          g_gradients(g_values.size() * dim), w(n_q);
      for (unsigned int q = 0; q < n_q; ++q)
      {
        w[q] = quadrature.weight(q);
        for (unsigned int k = 0; k < n_geometry; ++k)
        {
          g_values[q * n_geometry + k] =
              geometry->shape_value(k, quadrature.point(q));
          const Tensor<1, dim> grad =
              geometry->shape_grad(k, quadrature.point(q));
          for (unsigned int d = 0; d < dim; ++d)
            g_gradients[(q * n_geometry + k) * dim + d] = grad[d];
        }
      }
      geometry_values.copy_from(g_values);
      geometry_gradients.copy_from(g_gradients);
      weights.copy_from(w);
      choose_launch(additional_data, components);
      strategy = additional_data.strategy;
      // A multiple of 16, the cells of one MMA.
      cells_per_team = (std::max(1u,
                                 additional_data.cells_per_team > 0
                                     ? additional_data.cells_per_team
                                     : 128u) +
                        15) /
                       16 * 16;
      setup_reference_tensor(fe, quadrature);
      matrix_initialized = false;

      // Every cell's support points on the device, where they fit.
      const std::size_t geometry_bytes =
          std::size_t(n_cells()) * n_geometry * dim * sizeof(double);
      const std::size_t budget = Device::backend() == Backend::cuda
                                     ? Device::memory_info().first / 8
                                     : std::size_t(2) << 30;
      geometry_cached          = false;
      support_points.clear();
      if (additional_data.keep_geometry && geometry_bytes <= budget)
      {
        support_points.resize(std::size_t(n_cells()) * n_geometry * dim);
        for (unsigned int first = 0; first < n_cells();
             first += cells_per_batch)
        {
          const unsigned int n = std::min(cells_per_batch, n_cells() - first);
          compute_support_points(first,
                                 n,
                                 support_points.data() +
                                     std::size_t(first) * n_geometry * dim);
          timer.progress(first + n, n_cells());
        }
        geometry_cached = true;
      }
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::setup_reference_tensor(
        const FiniteElement<dim> &fe, const Quadrature<dim> &quadrature)
    {
      reference_tensor.clear();
      base_index.clear();
      n_base = 0;
      // Affine: simplices under a degree-1 mapping, or parallelograms and
      // parallelepipeds (every vertex x_0 + sum of the edge vectors from
      // x_0 its binary index names) under one.
      affine = false;
      if (fe.reference_cell().is_simplex())
        affine = n_geometry == dim + 1;
      else if (fe.reference_cell().is_hyper_cube() &&
               n_geometry == GeometryInfo<dim>::vertices_per_cell)
      {
        std::atomic<bool> all_affine(true);
        parallel_for_chunks(
            n_cells(),
            cell_grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t c = begin; c < end && all_affine; ++c)
              {
                const auto x     = mapping->get_vertices(cells[c]);
                double     scale = 0, error = 0;
                for (unsigned int d = 0; d < dim; ++d)
                  scale = std::max(scale, (x[1u << d] - x[0]).norm());
                for (unsigned int v = 0; v < x.size(); ++v)
                {
                  Point<dim> expected = x[0];
                  for (unsigned int d = 0; d < dim; ++d)
                    if (v & (1u << d))
                      expected += x[1u << d] - x[0];
                  error = std::max(error, (x[v] - expected).norm());
                }
                if (error > 1e-12 * scale)
                  all_affine = false;
              }
            });
        affine = all_affine;
      }
      if (!affine || fe.n_base_elements() != 1)
        return;

      // K[a][b][k][l] = sum_q w_q t_a(k) t_b(l), t_0 the base element's
      // value and t_1..t_dim its reference derivatives.
      const FiniteElement<dim> &base = fe.base_element(0);
      n_base                         = base.n_dofs_per_cell();
      std::vector<double> t(std::size_t(quadrature.size()) * (1 + dim) *
                            n_base);
      for (unsigned int q = 0; q < quadrature.size(); ++q)
        for (unsigned int k = 0; k < n_base; ++k)
        {
          double *tq = &t[(std::size_t(q) * n_base + k) * (1 + dim)];
          tq[0]      = base.shape_value(k, quadrature.point(q));
          const Tensor<1, dim> grad = base.shape_grad(k, quadrature.point(q));
          for (unsigned int d = 0; d < dim; ++d)
            tq[1 + d] = grad[d];
        }
      const std::size_t   kk = std::size_t(n_base) * n_base;
      std::vector<Number> K((1 + dim) * (1 + dim) * kk);
      parallel_for_chunks(
          n_base,
          1,
          [&](const std::size_t begin, const std::size_t end)
          {
            for (std::size_t k = begin; k < end; ++k)
              for (unsigned int l = 0; l < n_base; ++l)
                for (unsigned int a = 0; a <= dim; ++a)
                  for (unsigned int b = 0; b <= dim; ++b)
                  {
                    double sum = 0;
                    for (unsigned int q = 0; q < quadrature.size(); ++q)
                      sum += quadrature.weight(q) *
                             t[(std::size_t(q) * n_base + k) * (1 + dim) + a] *
                             t[(std::size_t(q) * n_base + l) * (1 + dim) + b];
                    K[(a * (1 + dim) + b) * kk + k * n_base + l] =
                        static_cast<Number>(sum);
                  }
          });
      std::vector<unsigned int> index(n_dofs);
      for (unsigned int i = 0; i < n_dofs; ++i)
        index[i] = fe.system_to_component_index(i).second;
      reference_tensor.copy_from(K);
      base_index.copy_from(index);
    }

    template <int dim, int n_components, typename Number>
    const double *
    ElementIntegrator<dim, n_components, Number>::batch_support_points(
        const unsigned int first, const unsigned int n) const
    {
      if (geometry_cached)
        return support_points.data() + std::size_t(first) * n_geometry * dim;
      if (support_points.size() < std::size_t(n) * n_geometry * dim)
        support_points.resize(std::size_t(cells_per_batch) * n_geometry * dim);
      compute_support_points(first, n, support_points.data());
      return support_points.data();
    }

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::choose_launch(
        const AdditionalData             &data,
        const std::vector<unsigned char> &components)
    {
      // The scratch size does not depend on the operation.
      using Kernel =
          internal::ElementMatrixKernel<dim, n_components, Number, int>;
      // Rows by component, each component's rows padded to a multiple of 16.
      std::vector<unsigned int> row_of(n_dofs), dof_of;
      for (unsigned int c = 0; c < n_components; ++c)
      {
        for (unsigned int i = 0; i < n_dofs; ++i)
          if (components[i] == c)
          {
            row_of[i] = dof_of.size();
            dof_of.push_back(i);
          }
        while (dof_of.size() % 16 != 0)
          dof_of.push_back(n_dofs);
      }
      n_rows = dof_of.size();
      row_of_dof.copy_from(row_of);
      dof_of_row.copy_from(dof_of);
      // A warp a 32 x 32 block of the element matrix, at most 8 warps
      // (the kernel takes about 130-170 registers a thread).
      if (data.threads_per_cell > 0)
        team_size = data.threads_per_cell;
      else
        team_size = 32 * std::min(Kernel::n_blocks(n_rows, n_dofs), 8u);
      AssertThrow(team_size >= 32 && team_size <= 1024 && team_size % 32 == 0,
                  ExcMessage("ElementIntegrator: " + std::to_string(team_size) +
                             " threads a cell (a multiple of 32 up to "
                             "1024)."));
      // One component: the operation per function and point (for Laplace
      // as fast as per point at Q2-Q5, 5 % faster at Q6 on the H100).
      // Several: the points' tensors D (2.2x faster for elasticity Q2).
      const bool per_function = n_components == 1;
      // The region of the matrix whose U and W a pass computes: the whole
      // matrix (U and W by function; the warps take its blocks in
      // passes, all of U and W again each pass) or br x bc blocks, one
      // for each warp (U and W by slot, the region's rows and columns
      // only). The MMAs are the same either way; the choice takes the
      // least work for U and W, counting a function 1, a row of U alone
      // 0.6 per function (physical gradients) or 0.25 per point (reference
      // ones), and a pass 8 a warp (fitted to the H100: the whole matrix
      // was faster for Laplace Q2-Q4, 4 x 2 blocks for Q5 and Q6 and 3 x 2
      // for elasticity Q2, doc/benchmarks.md).
      {
        const unsigned int n_cols  = Kernel::padded_columns(n_dofs);
        const unsigned int n_br    = (n_rows + 31) / 32;
        const unsigned int n_bc    = (n_cols + 31) / 32;
        const unsigned int n_warps = team_size / 32;
        const double       row_u   = per_function ? 0.6 : 0.25;
        region_rows                = 32 * n_br;
        region_cols                = 32 * n_bc;
        double best = double((n_br * n_bc + n_warps - 1) / n_warps) *
                      (8 * n_warps + n_dofs);
        for (unsigned int br = 1; br <= std::min(n_warps, n_br); ++br)
        {
          const unsigned int bc   = std::min(n_warps / br, n_bc);
          const unsigned int n_pr = (n_br + br - 1) / br;
          const unsigned int n_pc = (n_bc + bc - 1) / bc;
          if (n_pr * n_pc == 1)
            continue;
          const double cost = n_pr * n_pc * 8. * n_warps +
                              row_u * n_rows * n_pc + double(n_cols) * n_pr;
          if (cost < best)
          {
            best        = cost;
            region_rows = 32 * br;
            region_cols = 32 * bc;
          }
        }
      }
      ld_u = Kernel::leading_dimension(std::min(region_rows, n_rows));
      ld_w = Kernel::leading_dimension(
          std::min(region_cols, Kernel::padded_columns(n_dofs)));
      // The points' tensors D, of all points where they take at most
      // 48 KB, else of a chunk.
      const std::size_t d_bytes =
          std::size_t(n_q) * Kernel::n_ab * Kernel::n_ab * sizeof(Number);
      const bool d_all       = !per_function && d_bytes <= (48 << 10);
      const auto points_of_d = [&](const unsigned int c)
      { return per_function ? 0u : (d_all ? n_q : c); };
      if (data.points_per_chunk > 0)
        chunk = std::min(data.points_per_chunk, n_q);
      else
      {
        chunk = std::min(chunk_points, n_q);
        while (chunk > 1 &&
               Kernel::scratch_bytes(
                   ld_u, ld_w, chunk, points_of_d(chunk), n_q) > chunk_bytes)
          --chunk;
      }
      d_points = points_of_d(chunk);
      const std::size_t scratch =
          Kernel::scratch_bytes(ld_u, ld_w, chunk, d_points, n_q);
      AssertThrow(scratch <= 200 * 1024,
                  ExcMessage("ElementIntegrator: " + std::to_string(chunk) +
                             " points a chunk need " + std::to_string(scratch) +
                             " bytes of scratch memory, more than a thread "
                             "block has."));
      // Assembly: a thread for each tile of 1, 2 x 2 or 4 x 4 entries (up
      // to 16, 48 and more functions), 32 to 256 threads.
      const unsigned int tile = n_dofs <= 16 ? 1 : (n_dofs <= 48 ? 2 : 4);
      assembly_team           = std::clamp(
          (Utilities::pow((n_dofs + tile - 1) / tile, 2) + 31) / 32 * 32,
          32u,
          256u);
      const std::size_t matrix_bytes =
          std::size_t(n_dofs) * n_dofs * sizeof(Number);
      std::size_t bytes = batch_bytes;
      if (const std::size_t free = Device::memory_info().first; free > 0)
        bytes = std::min(bytes, free / 8);
      cells_per_batch = data.cells_per_batch > 0
                            ? data.cells_per_batch
                            : static_cast<unsigned int>(std::max<std::size_t>(
                                  1, bytes / matrix_bytes));
      cells_per_batch =
          std::max(1u, std::min<unsigned int>(cells_per_batch, n_cells()));
      // Automatic: batches of equal size, so that the last is not a small
      // one with a partial wave of blocks.
      if (data.cells_per_batch == 0 && n_cells() > 0)
      {
        const unsigned int n_batches =
            (n_cells() + cells_per_batch - 1) / cells_per_batch;
        cells_per_batch = (n_cells() + n_batches - 1) / n_batches;
      }
      // Batched products: the operands W (K x n a cell, K = (1 + dim) n_q)
      // of at most twice the bytes of the batch's matrices (n x n a cell)
      // at a time, in equal parts of a batch.
      product_cells = static_cast<unsigned int>(
          std::clamp<std::size_t>(2 * std::size_t(cells_per_batch) * n_dofs /
                                      (std::size_t(n_q) * (1 + dim)),
                                  1,
                                  cells_per_batch));
      const unsigned int n_products =
          (cells_per_batch + product_cells - 1) / product_cells;
      product_cells = (cells_per_batch + n_products - 1) / n_products;
    }

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::compute_support_points(
        const unsigned int first,
        const unsigned int n,
        double            *destination) const
    {
      timer.start("mapping support points");
      std::vector<double> host(std::size_t(n) * n_geometry * dim);
      if (n > 0 && cells[first]->reference_cell().is_hyper_cube())
      {
        // FE_Q(p)'s points are MappingQ(p)'s support points: taken from
        // the mapping (lexicographic), not evaluated again by FEValues.
        const unsigned int p = internal::polynomial_mapping_degree(*mapping);
        const std::vector<unsigned int> hierarchic =
            FETools::lexicographic_to_hierarchic_numbering<dim>(p);
        const std::vector<Point<1>> nodes =
            QGaussLobatto<1>(p + 1).get_points();
        parallel_for_chunks(
            n,
            cell_grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              internal::CellSupportPoints<dim> support(*mapping, nodes);
              std::vector<double>              x(n_geometry * dim);
              for (std::size_t c = begin; c < end; ++c)
              {
                support.get(typename Triangulation<dim>::cell_iterator(
                                cells[first + c]),
                            x.data());
                for (unsigned int i = 0; i < n_geometry; ++i)
                  for (unsigned int d = 0; d < dim; ++d)
                    host[(c * n_geometry + hierarchic[i]) * dim + d] =
                        x[i * dim + d];
              }
            });
      }
      else
      {
        const Quadrature<dim> support_quadrature(geometry_support_points);
        parallel_for_chunks(n,
                            cell_grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              FEValues<dim> fe_values(*mapping,
                                                      cells[first]->get_fe(),
                                                      support_quadrature,
                                                      update_quadrature_points);
                              for (std::size_t c = begin; c < end; ++c)
                              {
                                fe_values.reinit(
                                    typename Triangulation<dim>::cell_iterator(
                                        cells[first + c]));
                                for (unsigned int k = 0; k < n_geometry; ++k)
                                  for (unsigned int d = 0; d < dim; ++d)
                                    host[(c * n_geometry + k) * dim + d] =
                                        fe_values.quadrature_point(k)[d];
                              }
                            });
      }
      Memory::copy_to_backend(Device::backend(),
                              destination,
                              host.data(),
                              host.size() * sizeof(double));
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::check_batch(
        const char        *function,
        const unsigned int first,
        const unsigned int n) const
    {
      AssertThrow(mapping != nullptr,
                  ExcMessage("ElementIntegrator: call reinit() first."));
      AssertThrow(first + n <= n_cells() && n <= cells_per_batch,
                  ExcMessage(std::string("ElementIntegrator::") + function +
                             ": cells " + std::to_string(first) + " to " +
                             std::to_string(first + n) + " of " +
                             std::to_string(n_cells()) + " with batches of " +
                             std::to_string(cells_per_batch)));
    }

    template <int dim, int n_components, typename Number>
    std::size_t
    ElementIntegrator<dim, n_components, Number>::memory_consumption() const
    {
      return shape_values.memory_consumption() +
             shape_gradients.memory_consumption() +
             shape_components.memory_consumption() +
             geometry_values.memory_consumption() +
             geometry_gradients.memory_consumption() +
             weights.memory_consumption() +
             support_points.memory_consumption() +
             reference_tensor.memory_consumption() +
             base_index.memory_consumption() +
             product_reference.memory_consumption() +
             product_tensors.memory_consumption() +
             product_operands.memory_consumption() +
             row_of_dof.memory_consumption() + dof_of_row.memory_consumption() +
             cell_keys.memory_consumption() + cell_lines.memory_consumption() +
             line_offsets.memory_consumption() +
             line_keys.memory_consumption() +
             line_weights.memory_consumption() +
             line_inhomogeneities.memory_consumption() +
             loads.memory_consumption() +
             vector_index_of_key.memory_consumption() +
             ghost_row_of_key.memory_consumption() +
             ghost_offsets.memory_consumption() +
             ghost_columns.memory_consumption() +
             ghost_values.memory_consumption() +
             import_positions.memory_consumption();
    }

    template class ElementIntegrator<2, 1, double>;
    template class ElementIntegrator<2, 2, double>;
    template class ElementIntegrator<3, 1, double>;
    template class ElementIntegrator<3, 3, double>;
    template class ElementIntegrator<2, 1, float>;
    template class ElementIntegrator<3, 1, float>;
  } // namespace GPU
} // namespace dealii
