// GPU::MatrixFree: the data builder (host) and the constrained-value kernels.
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/matrix_free/cell_order.h>
#include <dealii-gpu/matrix_free/dof_info.h>
#include <dealii-gpu/matrix_free/fe_evaluation.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>

#include "../base/pinned_buffer.h"
#include <algorithm>
#include <sstream>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      void check_functor_constants(const unsigned int fe_degree,
                                   const unsigned int n_q_points_1d,
                                   const unsigned int n_components,
                                   const unsigned int data_fe_degree,
                                   const unsigned int data_n_q_points_1d,
                                   const unsigned int data_n_components)
      {
        if (fe_degree != data_fe_degree ||
            n_q_points_1d != data_n_q_points_1d ||
            n_components != data_n_components)
        {
          std::ostringstream message;
          message << "the cell functor is compiled for degree " << fe_degree
                  << ", " << n_q_points_1d << " quadrature points per "
                  << "direction and " << n_components
                  << " component(s), but the data has degree " << data_fe_degree
                  << ", " << data_n_q_points_1d << " points and "
                  << data_n_components << " component(s)";
          AssertThrow(false, ExcNotSupportedByMatrixFree(message.str()));
        }
      }

      void check_geometry_available(const bool functor_uses_geometry,
                                    const bool data_has_geometry)
      {
        AssertThrow(!functor_uses_geometry || data_has_geometry,
                    ExcNotSupportedByMatrixFree(
                        "this cell functor reads the Jacobians or JxW, but "
                        "release_geometry() has freed them; run functors "
                        "with uses_geometry = false (e.g. LaplaceTensorCell) "
                        "or keep the geometry"));
      }

      // Cells a warp runs with one thread per cell.
      constexpr unsigned int cells_per_warp = 32;

      // Calls f(cell, i) for the entries i < n_per_cell of every cell in
      // the order in which the cell loop's warps first read them: the cell
      // ranges in the order cell_loop() launches them, `group` cells (a
      // warp, with one thread per cell) at a time, position by position.
      template <typename F>
      void for_each_in_read_order(
          const std::vector<std::array<unsigned int, 4>> &cell_phases,
          const unsigned int                              group,
          const unsigned int                              n_per_cell,
          const F                                        &f)
      {
        for (unsigned int part = 0; part < 3; ++part)
          for (const auto &phase : cell_phases)
            for (unsigned int first = phase[part]; first < phase[part + 1];
                 first += group)
            {
              const unsigned int last =
                  std::min(first + group, phase[part + 1]);
              for (unsigned int i = 0; i < n_per_cell; ++i)
                for (unsigned int cell = first; cell < last; ++cell)
                  f(cell, i);
            }
      }

    } // namespace internal

    template <int dim, typename Number>
    template <typename ConstraintNumber>
    void MatrixFree<dim, Number>::reinit(
        const Mapping<dim, dim>                   &mapping,
        const DoFHandler<dim, dim>                &dof_handler,
        const AffineConstraints<ConstraintNumber> &constraints,
        const Quadrature<1>                       &quadrature,
        const AdditionalData                      &requested_data)
    {
      // requested_data.geometry may be automatic; additional_data holds
      // the form taken once the cells are known.
      AdditionalData            additional_data = requested_data;
      const FiniteElement<dim> &fe              = dof_handler.get_fe();
      const auto *fe_q = dynamic_cast<const FE_Q<dim> *>(&fe.base_element(0));
      AssertThrow(fe.n_base_elements() == 1 && fe_q != nullptr,
                  ExcNotSupportedByMatrixFree(
                      "the element " + fe.get_name() +
                      "; supported are FE_Q(k) and FESystem(FE_Q(k), n)"));
      const unsigned int n_components = fe.element_multiplicity(0);
      AssertThrow(
          n_components >= 1 && n_components <= static_cast<unsigned int>(dim),
          ExcNotSupportedByMatrixFree(std::to_string(n_components) +
                                      " components (1 to " +
                                      std::to_string(dim) + " are supported)"));
      const unsigned int degree = fe_q->degree;
      AssertThrow(degree >= DEAL_II_GPU_MIN_DEGREE &&
                      degree <= DEAL_II_GPU_MAX_DEGREE,
                  ExcNotSupportedByMatrixFree(
                      "degree " + std::to_string(degree) +
                      "; this build compiles degrees " +
                      std::to_string(DEAL_II_GPU_MIN_DEGREE) + " to " +
                      std::to_string(DEAL_II_GPU_MAX_DEGREE) +
                      " (CMake DEAL_II_GPU_MIN_DEGREE/MAX_DEGREE)"));
      const unsigned int n_q_1d = quadrature.size();
      AssertThrow(n_q_1d >= degree + 1,
                  ExcNotSupportedByMatrixFree(
                      std::to_string(n_q_1d) +
                      " quadrature points per direction "
                      "for degree " +
                      std::to_string(degree) + " (at least degree + 1)"));
      AssertThrow(Utilities::pow(n_q_1d, dim) <= 1024,
                  ExcNotSupportedByMatrixFree(
                      std::to_string(n_q_1d) + "^" + std::to_string(dim) +
                      " quadrature points (one thread each, at most 1024)"));

      const unsigned int level = additional_data.mg_level;
      const MPI_Comm comm = dof_handler.get_triangulation().get_communicator();
      setup_timer =
          SetupTimer(level == numbers::invalid_unsigned_int
                         ? std::string("GPU::MatrixFree")
                         : "GPU::MatrixFree level " + std::to_string(level));

      // Cells, hanging nodes, vector layout, local DoF indices.
      internal::DoFInfo<dim> dof_info;
      dof_info.reinit(dof_handler, constraints, level, setup_timer);
      partitioner                        = dof_info.partitioner;
      n_hanging_cells                    = dof_info.n_hanging_cells;
      const bool         resolve_hanging = dof_info.resolve_hanging;
      const unsigned int n_cells         = dof_info.cells.size();
      const unsigned int dofs_per_cell   = dof_info.dofs_per_cell;
      const bool         automatic_geometry =
          requested_data.geometry == GeometryStorage::automatic;
      if (automatic_geometry)
      {
        // The field where one thread per cell runs it (see CellThreads).
        const unsigned int mapping_degree =
            internal::polynomial_mapping_degree(mapping);
        const bool field =
            dim == 3 && n_components == 1 &&
            Utilities::pow(n_q_1d, dim) <= max_points_thread_per_cell &&
            !resolve_hanging && mapping_degree <= degree;
        additional_data.geometry =
            field ? GeometryStorage::field : GeometryStorage::jacobians;
      }

      // Cell order: structured blocks, colors, overlap phases.
      use_coloring = additional_data.use_coloring;
      overlap      = additional_data.overlap_communication_computation &&
                Utilities::MPI::n_mpi_processes(comm) > 1;
      internal::CellOrder<dim> cell_order;
      cell_order.reinit(
          dof_info, constraints, use_coloring, overlap, setup_timer);
      colors                          = cell_order.colors;
      cell_phases                     = cell_order.cell_phases;
      n_boundary                      = cell_order.n_boundary;
      block_refinements               = cell_order.block_refinements;
      const unsigned int n_structured = cell_order.n_structured;
      const auto        &order        = cell_order.order;

      // Upload: the listed cells' indices in cell-loop order.
      setup_timer.start("upload indices");
      {
        // Written straight into the upload's buffers.
        internal::fill(
            dof_indices,
            std::size_t(n_cells - n_structured) * dofs_per_cell,
            [&](const std::size_t begin,
                const std::size_t end,
                unsigned int     *out)
            {
              for (std::size_t i = begin; i < end;)
              {
                const std::size_t k = i / dofs_per_cell, j = i % dofs_per_cell;
                const std::size_t m = std::min(end - i, dofs_per_cell - j);
                std::copy_n(dof_info.indices.begin() +
                                std::size_t(order[n_structured + k]) *
                                    dofs_per_cell +
                                j,
                            m,
                            out + (i - begin));
                i += m;
              }
            });
      }
      block_interior_first.copy_from(cell_order.block_interior_first);
      block_surface.copy_from(cell_order.block_surface);
      constrained_indices.copy_from(dof_info.constrained_owned);
      if (resolve_hanging)
      {
        std::vector<unsigned int> host_masks(n_cells);
        for (unsigned int c = 0; c < n_cells; ++c)
          host_masks[c] = dof_info.masks[order[c]];
        hanging_masks.copy_from(host_masks);
        hanging_interpolation.copy_from(
            std::vector<Number>(dof_info.hanging_interpolation.begin(),
                                dof_info.hanging_interpolation.end()));
      }
      else
      {
        hanging_masks.clear();
        hanging_interpolation.clear();
      }
      setup_timer.stop();

      // Thread layout. One thread per cell keeps a small cell's data in
      // registers instead of passing it through shared memory.
      {
        // Compiled only where it can be faster (see CellThreads): the
        // per-cell kernels are large, and every cell functor would carry
        // them into every program's build.
        const unsigned int n_points = Utilities::pow(n_q_1d, dim);
        const bool         from_points =
            additional_data.geometry == GeometryStorage::points ||
            additional_data.geometry == GeometryStorage::field;
        // Not with hanging nodes either: their per-cell kernels doubled the
        // compile time of the per-cell code.
        const bool possible = dim == 3 && n_components == 1 && from_points &&
                              n_points <= max_points_thread_per_cell &&
                              !resolve_hanging;
        switch (additional_data.cell_threads)
        {
        case CellThreads::automatic:
          // Faster than one thread per point on the H100 at 1.8e6 DoFs
          // (doc/benchmarks.md): the mapping field at Q1 and Q2 (2.2-2.9x),
          // the points at Q1 (1.6x); slower for the other geometries.
          thread_per_cell =
              possible && (additional_data.geometry == GeometryStorage::field ||
                           n_points <= 8);
          break;
        case CellThreads::per_quadrature_point:
          thread_per_cell = false;
          break;
        case CellThreads::per_cell:
          AssertThrow(possible,
                      ExcNotSupportedByMatrixFree(
                          "one thread per cell for " + std::to_string(dim) +
                          "D, " + std::to_string(n_components) +
                          " component(s), " + std::to_string(n_points) +
                          " quadrature points, " +
                          (from_points ? "the Jacobians computed in the "
                                         "kernel"
                                       : "stored Jacobians") +
                          (resolve_hanging ? " and hanging nodes"
                                           : " and no hanging nodes") +
                          " (supported: 3D, one component, at most " +
                          std::to_string(max_points_thread_per_cell) +
                          " quadrature points, GeometryStorage::points or "
                          "field, no hanging nodes)"));
          thread_per_cell = true;
          break;
        }
      }
      if (thread_per_cell)
      {
        cells_per_block = additional_data.cells_per_block == 0
                              ? 128u
                              : additional_data.cells_per_block;
        AssertThrow(cells_per_block <= internal::max_thread_teams_per_block,
                    ExcNotSupportedByMatrixFree(
                        std::to_string(cells_per_block) +
                        " cells per block with one thread per cell (at most " +
                        std::to_string(internal::max_thread_teams_per_block) +
                        ")"));
      }
      // Cells per thread block: at least 64 threads, within 48 KiB of
      // scratch. Measured on the H100 (doc/benchmarks.md): Q1 3D gains 2.5x
      // with 8-16 cells, Q2 nothing, and Q3 loses with more than one.
      // With one thread per cell, the cells of structured blocks still run
      // one thread per point (cell_loop()): they take the default.
      const auto team_cells_per_block = [&](unsigned int wanted)
      {
        const unsigned int threads = Utilities::pow(n_q_1d, dim);
        const std::size_t  scratch =
            (internal::cell_scratch_bytes<dim, Number>(
                 degree,
                 n_q_1d,
                 n_components,
                 additional_data.geometry != GeometryStorage::jacobians) +
             15) /
            16 * 16;
        if (wanted == 0)
        {
          wanted = std::max(1u, 64u / threads);
          while (wanted > 1 && wanted * scratch > 48 * 1024)
            --wanted;
        }
        // Cells of at most 32 points are packed into warps
        // (parallel_for_teams): whole warps of them. Larger cells run one a
        // block; cell_loop() compiles only that launch form for them.
        const unsigned int per_warp =
            internal::teams_per_warp(TeamShape{threads, 1, 1});
        const bool packed = per_warp > 0;
        if (packed)
          wanted = (wanted + per_warp - 1) / per_warp * per_warp;
        AssertThrow(packed || wanted == 1,
                    ExcNotSupportedByMatrixFree(
                        std::to_string(wanted) + " cells per block of " +
                        std::to_string(threads) +
                        " threads (cells of more than 32 quadrature points "
                        "run one a block)"));
        AssertThrow((packed ? 32 * (wanted / per_warp) : wanted * threads) <=
                        1024,
                    ExcNotSupportedByMatrixFree(
                        std::to_string(wanted) + " cells per block of " +
                        std::to_string(threads) +
                        " threads (at most 1024 threads per block)"));
        return wanted;
      };
      if (thread_per_cell)
        structured_cells_per_block = team_cells_per_block(0);
      else
      {
        cells_per_block = team_cells_per_block(additional_data.cells_per_block);
        structured_cells_per_block = cells_per_block;
      }

      // Geometry and shape data.
      geometry_storage   = additional_data.geometry;
      geometry_kept      = true;
      bool field_refused = false;
      try
      {
        geometry.reinit(mapping,
                        dof_info,
                        order,
                        quadrature,
                        geometry_storage,
                        (additional_data.mapping_update_flags &
                         update_quadrature_points) != 0,
                        setup_timer,
                        additional_data.geometry_source);
      }
      catch (const ExcNotSupportedByMatrixFree &)
      {
        // The field refuses a mapping that is not continuous between cells;
        // the automatic choice then takes stored Jacobians, on every rank
        // (the set-up's collective steps must match).
        if (!automatic_geometry || geometry_storage != GeometryStorage::field)
          throw;
        field_refused = true;
      }
      if (automatic_geometry &&
          Utilities::MPI::max(field_refused ? 1u : 0u, comm) == 1u)
      {
        AdditionalData fallback = requested_data;
        fallback.geometry       = GeometryStorage::jacobians;
        reinit(mapping, dof_handler, constraints, quadrature, fallback);
        return;
      }
      const bool from_field = geometry_storage == GeometryStorage::field;
      const bool from_points =
          geometry_storage == GeometryStorage::points || from_field;
      setup_timer.start("shape data");
      shape.reinit(*fe_q, dof_info.lexicographic, quadrature);
      setup_timer.stop();

      data.n_cells               = n_cells;
      data.fe_degree             = degree;
      data.n_q_points_1d         = n_q_1d;
      data.n_components          = n_components;
      data.dofs_per_cell         = dofs_per_cell;
      data.n_q_points            = geometry.n_q_points;
      data.use_atomics           = use_coloring ? 0 : 1;
      data.jacobians_from_points = from_points ? 1 : 0;
      data.affine_cells       = !from_points && geometry.affine_cells ? 1 : 0;
      data.dof_indices        = dof_indices.data();
      data.n_structured_cells = n_structured;
      data.dof_indices_first_cell = n_structured;
      data.block_refinements      = block_refinements;
      data.block_interior_first   = block_interior_first.data();
      data.block_surface          = block_surface.data();
      data.inverse_jacobian =
          from_points ? nullptr : geometry.inverse_jacobian.data();
      data.JxW = from_points ? nullptr : geometry.JxW.data();
      data.quadrature_points =
          from_field ? nullptr : geometry.quadrature_points.data();
      data.cell_centers = geometry.cell_centers.data();
      data.geometry_field =
          from_field ? geometry.geometry_field.data() : nullptr;
      data.geometry_indices = from_field && geometry.geometry_indices.size() > 0
                                  ? geometry.geometry_indices.data()
                                  : nullptr;
      data.quadrature_weights    = geometry.quadrature_weights.data();
      data.shape_values          = shape.shape_values.data();
      data.collocation_gradients = shape.collocation_gradients.data();
      data.nodes_are_quadrature_points =
          shape.nodes_are_quadrature_points ? 1 : 0;
      data.hanging_masks = n_hanging_cells > 0 ? hanging_masks.data() : nullptr;
      data.hanging_interpolation = hanging_interpolation.data();
    }

    template <int dim, typename Number>
    const std::shared_ptr<const Utilities::MPI::Partitioner> &
    MatrixFree<dim, Number>::get_vector_partitioner() const
    {
      return partitioner;
    }

    template <int dim, typename Number>
    void
    MatrixFree<dim, Number>::copy_constrained_values(const Vector<Number> &src,
                                                     Vector<Number> &dst) const
    {
      const unsigned int *indices = constrained_indices.data();
      const Number       *s       = src.get_values();
      Number             *d       = dst.get_values();
      parallel_for("MatrixFree::copy_constrained_values",
                   constrained_indices.size(),
                   [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                   { d[indices[i]] = s[indices[i]]; });
    }

    template <int dim, typename Number>
    void
    MatrixFree<dim, Number>::set_constrained_values(const Number    value,
                                                    Vector<Number> &dst) const
    {
      const unsigned int *indices = constrained_indices.data();
      Number             *d       = dst.get_values();
      parallel_for("MatrixFree::set_constrained_values",
                   constrained_indices.size(),
                   [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                   { d[indices[i]] = value; });
    }

    template <int dim, typename Number>
    void MatrixFree<dim, Number>::evaluate_diffusion_tensor(
        const Array<Number> &coefficient_values, Array<Number> &tensor) const
    {
      AssertThrow(geometry_kept && data.inverse_jacobian != nullptr,
                  ExcNotSupportedByMatrixFree(
                      "evaluate_diffusion_tensor needs the stored Jacobians "
                      "(GeometryStorage::jacobians, before release_geometry)"));
      const std::size_t n = std::size_t(data.n_cells) * data.n_q_points;
      AssertThrow(coefficient_values.size() == n,
                  ExcDimensionMismatch(coefficient_values.size(), n));
      constexpr unsigned int n_entries = dim * (dim + 1) / 2;
      tensor.resize(n * n_entries);
      const unsigned int n_q     = data.n_q_points;
      const Number      *inverse = data.inverse_jacobian;
      const Number      *jxw     = data.JxW;
      const Number      *a       = coefficient_values.data();
      Number            *t       = tensor.data();
      parallel_for(
          "MatrixFree::evaluate_diffusion_tensor",
          n,
          [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
          {
            const std::size_t  cell = i / n_q;
            const unsigned int q    = i % n_q;
            Number             J[dim][dim];
            for (unsigned int d = 0; d < dim; ++d)
              for (unsigned int e = 0; e < dim; ++e)
                J[d][e] = inverse[(cell * dim * dim + d * dim + e) * n_q + q];
            const Number factor = a[i] * jxw[i];
            // Entries in the order of the documentation: diagonal first.
            unsigned int entry = 0;
            for (unsigned int offset = 0; offset < dim; ++offset)
              for (unsigned int d = 0; d + offset < dim; ++d)
              {
                const unsigned int f   = d + offset;
                Number             sum = 0;
                for (unsigned int e = 0; e < dim; ++e)
                  sum += J[d][e] * J[f][e];
                t[(cell * n_entries + entry) * n_q + q] = factor * sum;
                ++entry;
              }
          });
    }

    template <int dim, typename Number>
    void MatrixFree<dim, Number>::release_geometry()
    {
      geometry.clear();
      data.inverse_jacobian      = nullptr;
      data.JxW                   = nullptr;
      data.quadrature_points     = nullptr;
      data.cell_centers          = nullptr;
      data.geometry_field        = nullptr;
      data.geometry_indices      = nullptr;
      data.jacobians_from_points = 0;
      data.affine_cells          = 0;
      geometry_kept              = false;
    }

    template <int dim, typename Number>
    std::size_t MatrixFree<dim, Number>::host_memory_consumption() const
    {
      return sizeof(*this) +
             (partitioner ? partitioner->memory_consumption() : 0) +
             colors.capacity() * sizeof(colors[0]) +
             cell_phases.capacity() * sizeof(cell_phases[0]);
    }

    template <int dim, typename Number>
    const SetupTimer &MatrixFree<dim, Number>::get_setup_timer() const
    {
      return setup_timer;
    }

    template <int dim, typename Number>
    internal::GeometryFieldSource<dim>
    MatrixFree<dim, Number>::get_geometry_field_source() const
    {
      return geometry.field_source();
    }

    template <int dim, typename Number>
    bool MatrixFree<dim, Number>::has_cells_of_geometry_source() const
    {
      return geometry.cells_from_source();
    }

    template <int dim, typename Number>
    void MatrixFree<dim, Number>::gather_from_geometry_source(
        const double *source_values, Array<Number> &values) const
    {
      AssertThrow(has_cells_of_geometry_source(),
                  ExcMessage("gather_from_geometry_source: the cells were "
                             "not all found in the geometry source"));
      geometry.gather_point_values(source_values, values);
    }

    namespace internal
    {
      namespace
      {
        // See MatrixFree::gather_field_nodes() (a free function: nvcc takes
        // no device lambda in a private member).
        template <int dim, typename Number>
        void gather_field_nodes(const MatrixFreeData<dim, Number> &data,
                                const unsigned int                 first,
                                const unsigned int                 n,
                                double                            *nodes)
        {
          const MatrixFreeData<dim, Number> d = data;
          AssertThrow(d.geometry_field != nullptr, ExcInternalError());
          const unsigned int n_nodes = Utilities::pow(d.fe_degree + 1, dim);
          parallel_for(
              "MatrixFree::gather_field_nodes",
              std::size_t(n) * n_nodes,
              [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
              {
                const unsigned int cell = first + k / n_nodes;
                const unsigned int i    = k % n_nodes;
                const unsigned int node =
                    (d.geometry_indices != nullptr
                         ? d.geometry_indices[std::size_t(cell) * n_nodes + i]
                         : cell_dof_entry(d, cell, i, d.fe_degree)) &
                    ~constrained_dof_flag;
                for (unsigned int c = 0; c < dim; ++c)
                  nodes[k * dim + c] =
                      d.geometry_field[std::size_t(node) * dim + c];
              });
        }
      } // namespace
    }   // namespace internal

    template <int dim, typename Number>
    void MatrixFree<dim, Number>::gather_field_nodes(const unsigned int first,
                                                     const unsigned int n,
                                                     double *nodes) const
    {
      internal::gather_field_nodes(data, first, n, nodes);
    }

    template <int dim, typename Number>
    void MatrixFree<dim, Number>::release_quadrature_points()
    {
      if (geometry_storage == GeometryStorage::field)
        geometry.release_points();
    }

    template <int dim, typename Number>
    bool MatrixFree<dim, Number>::has_geometry() const
    {
      return geometry_kept;
    }

    template <int dim, typename Number>
    const MatrixFreeData<dim, Number> &MatrixFree<dim, Number>::get_data() const
    {
      return data;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_cells() const
    {
      return data.n_cells;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_cells_with_hanging_nodes() const
    {
      return n_hanging_cells;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::get_cells_per_block() const
    {
      return cells_per_block;
    }

    template <int dim, typename Number>
    bool MatrixFree<dim, Number>::runs_thread_per_cell() const
    {
      return thread_per_cell;
    }

    template <int dim, typename Number>
    std::vector<unsigned int>
    MatrixFree<dim, Number>::get_dof_read_order() const
    {
      const unsigned int n_owned =
          partitioner ? partitioner->locally_owned_size() : 0;
      const unsigned int        dofs_per_cell = data.dofs_per_cell;
      std::vector<unsigned int> indices, first, surface;
      dof_indices.copy_to(indices);
      block_interior_first.copy_to(first);
      block_surface.copy_to(surface);
      MatrixFreeData<dim, Number> view = data;
      view.dof_indices                 = indices.data();
      view.block_interior_first        = first.data();
      view.block_surface               = surface.data();
      const unsigned int        unset  = numbers::invalid_unsigned_int;
      std::vector<unsigned int> position(n_owned, unset);
      std::vector<unsigned int> order;
      order.reserve(n_owned);
      const auto touch = [&](const unsigned int cell, const unsigned int i)
      {
        const unsigned int index =
            cell_dof_entry(view, cell, i, data.fe_degree);
        if (index < n_owned && position[index] == unset)
        {
          position[index] = order.size();
          order.push_back(index);
        }
      };
      internal::for_each_in_read_order(
          cell_phases,
          thread_per_cell ? internal::cells_per_warp : 1,
          dofs_per_cell,
          touch);
      for (unsigned int index = 0; index < n_owned; ++index)
        if (position[index] == unset)
          order.push_back(index);
      return order;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_structured_cells() const
    {
      return data.n_structured_cells;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_boundary_cells() const
    {
      return n_boundary;
    }

    template <int dim, typename Number>
    bool MatrixFree<dim, Number>::overlaps_communication() const
    {
      return overlap;
    }

    template <int dim, typename Number>
    typename MatrixFree<dim, Number>::GeometryStorage
    MatrixFree<dim, Number>::get_geometry_storage() const
    {
      return geometry_storage;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::get_fe_degree() const
    {
      return data.fe_degree;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::get_n_q_points_1d() const
    {
      return data.n_q_points_1d;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_components() const
    {
      return data.n_components;
    }

    template <int dim, typename Number>
    const std::vector<std::pair<unsigned int, unsigned int>> &
    MatrixFree<dim, Number>::get_colors() const
    {
      return colors;
    }

    template <int dim, typename Number>
    std::size_t MatrixFree<dim, Number>::memory_consumption() const
    {
      return dof_indices.memory_consumption() +
             block_interior_first.memory_consumption() +
             block_surface.memory_consumption() +
             geometry.memory_consumption() + shape.memory_consumption() +
             constrained_indices.memory_consumption() +
             hanging_masks.memory_consumption() +
             hanging_interpolation.memory_consumption();
    }

#define DEALII_GPU_INSTANTIATE(dim, Number)                                    \
  template class MatrixFree<dim, Number>;                                      \
  template void MatrixFree<dim, Number>::reinit(                               \
      const Mapping<dim, dim> &,                                               \
      const DoFHandler<dim, dim> &,                                            \
      const AffineConstraints<double> &,                                       \
      const Quadrature<1> &,                                                   \
      const AdditionalData &);                                                 \
  template void MatrixFree<dim, Number>::reinit(                               \
      const Mapping<dim, dim> &,                                               \
      const DoFHandler<dim, dim> &,                                            \
      const AffineConstraints<float> &,                                        \
      const Quadrature<1> &,                                                   \
      const AdditionalData &);
    DEALII_GPU_INSTANTIATE(2, float)
    DEALII_GPU_INSTANTIATE(2, double)
    DEALII_GPU_INSTANTIATE(3, float)
    DEALII_GPU_INSTANTIATE(3, double)
#undef DEALII_GPU_INSTANTIATE
  } // namespace GPU
} // namespace dealii
