// The template members of GPU::ElementIntegrator: each strategy's launch
// for the element matrices (compute_element_matrices()), the element
// vectors and the assembly. Included by element_integrator.h.
#ifndef dealii_gpu_integration_element_integrator_templates_h
#define dealii_gpu_integration_element_integrator_templates_h

#include <dealii-gpu/integration/element_integrator.h>

namespace dealii
{
  namespace GPU
  {
    template <int dim, int n_components, typename Number>
    template <typename Operation>
    void ElementIntegrator<dim, n_components, Number>::compute_element_matrices(
        const Operation   &operation,
        const unsigned int first,
        const unsigned int n,
        Array<Number>     &matrices) const
    {
      check_batch("compute_element_matrices", first, n);
      if (matrices.size() < std::size_t(n) * n_dofs * n_dofs)
        matrices.resize(std::size_t(cells_per_batch) * n_dofs * n_dofs);
      if (n == 0)
        return;
      const double *points = batch_support_points(first, n);
      if (uses_reference_tensor<Operation>())
      {
        // Compiled only for operations it can serve.
        if constexpr (internal::constant_on_affine_cells<Operation>::value)
          compute_by_reference_tensor(operation, points, n, matrices.data());
        return;
      }
      if (uses_batched_products<Operation>())
      {
        if constexpr (n_components == 1)
          compute_by_batched_products(operation, points, n, matrices.data());
        return;
      }
      if (uses_rows<Operation>())
      {
        compute_by_rows(operation, points, n, matrices.data());
        return;
      }
      const auto geometry = point_geometry(points);
      timer.start("element matrices");
      using Kernel =
          internal::ElementMatrixKernel<dim, n_components, Number, Operation>;
      Kernel kernel{operation,
                    geometry,
                    shape_values.data(),
                    shape_gradients.data(),
                    shape_components.data(),
                    row_of_dof.data(),
                    dof_of_row.data(),
                    n_q,
                    n_dofs,
                    chunk,
                    d_points,
                    n_rows,
                    region_rows,
                    region_cols,
                    ld_u,
                    ld_w,
                    matrices.data()};
      parallel_for_teams<TeamKernels::one_per_block>(
          "ElementIntegrator (element matrices)",
          n,
          TeamShape{team_size, 1, 1},
          Kernel::scratch_bytes(ld_u, ld_w, chunk, d_points, n_q),
          kernel);
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    template <typename Operation>
    void
    ElementIntegrator<dim, n_components, Number>::compute_by_batched_products(
        const Operation   &operation,
        const double      *points,
        const unsigned int n,
        Number            *matrices) const
    {
      constexpr unsigned int n_ab = 1 + dim;
      const unsigned int     K    = n_q * n_ab;
      const unsigned int     m    = std::min(product_cells, n);
      timer.start("element matrices");
      if (product_operands.size() < std::size_t(m) * K * n_dofs)
        product_operands.resize(std::size_t(m) * K * n_dofs);
      if (product_tensors.size() < std::size_t(m) * n_q * n_ab * n_ab)
        product_tensors.resize(std::size_t(m) * n_q * n_ab * n_ab);
      for (unsigned int first = 0; first < n; first += m)
      {
        const unsigned int count = std::min(m, n - first);
        parallel_for(
            "ElementIntegrator (point tensors)",
            std::size_t(count) * n_q,
            internal::PointTensorKernel<dim, Number, Operation>{
                operation,
                point_geometry(points + std::size_t(first) * n_geometry * dim),
                n_q,
                product_tensors.data()});
        parallel_for("ElementIntegrator (product operands)",
                     std::size_t(count) * n_dofs * n_q,
                     internal::ProductOperandKernel<Number, n_ab>{
                         product_tensors.data(),
                         product_reference.data(),
                         n_q,
                         n_dofs,
                         product_operands.data()});
        internal::element_matrix_products(product_operands.data(),
                                          product_reference.data(),
                                          n_dofs,
                                          K,
                                          count,
                                          matrices + std::size_t(first) *
                                                         n_dofs * n_dofs);
      }
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    template <typename Operation>
    void ElementIntegrator<dim, n_components, Number>::compute_by_rows(
        const Operation   &operation,
        const double      *points,
        const unsigned int n,
        Number            *matrices) const
    {
      if (n_dofs <= 8)
        launch_rows<8>(operation, points, n, matrices);
      else
        launch_rows<rows_max_dofs>(operation, points, n, matrices);
    }

    template <int dim, int n_components, typename Number>
    template <unsigned int max_dofs, typename Operation>
    void ElementIntegrator<dim, n_components, Number>::launch_rows(
        const Operation   &operation,
        const double      *points,
        const unsigned int n,
        Number            *matrices) const
    {
      using Kernel = internal::
          ElementRowKernel<dim, n_components, Number, Operation, max_dofs>;
      timer.start("element matrices");
      // About 256 threads (a thread a row) and at most 48 KB of scratch a
      // team.
      const std::size_t  cell_bytes = Kernel::scratch_bytes(1, n_q, n_dofs);
      const unsigned int per_team =
          static_cast<unsigned int>(std::clamp<std::size_t>(
              std::min<std::size_t>(256 / n_dofs, (48 << 10) / cell_bytes),
              1,
              n));
      const unsigned int team = (per_team * n_dofs + 31) / 32 * 32;
      const Kernel       kernel{operation,
                          point_geometry(points),
                          shape_values.data(),
                          shape_gradients.data(),
                          shape_components.data(),
                          n_q,
                          n_dofs,
                          n,
                          per_team,
                          matrices};
      parallel_for_teams<TeamKernels::one_per_block>(
          "ElementIntegrator (rows)",
          (n + per_team - 1) / per_team,
          TeamShape{team, 1, 1},
          Kernel::scratch_bytes(per_team, n_q, n_dofs),
          kernel);
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    template <typename Operation>
    void
    ElementIntegrator<dim, n_components, Number>::compute_by_reference_tensor(
        const Operation   &operation,
        const double      *points,
        const unsigned int n,
        Number            *matrices) const
    {
      using Kernel =
          internal::ReferenceTensorKernel<dim, n_components, Number, Operation>;
      timer.start("element matrices");
      const unsigned int team = Kernel::team_size(n_dofs);
      // Fewer cells a team (a multiple of 16) where the batch would give
      // less than 8 teams a multiprocessor.
      const unsigned int per_team = std::min(
          cells_per_team,
          std::max(16u,
                   (n / (8 * Device::n_multiprocessors()) + 15) / 16 * 16));
      const Kernel kernel{operation,
                          point_geometry(points),
                          reference_tensor.data(),
                          shape_components.data(),
                          base_index.data(),
                          n_dofs,
                          n_base,
                          n,
                          per_team,
                          matrices};
      parallel_for_teams<TeamKernels::one_per_block>(
          "ElementIntegrator (reference tensor)",
          (n + per_team - 1) / per_team,
          TeamShape{team, 1, 1},
          Kernel::scratch_bytes(per_team),
          kernel);
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    template <typename Source>
    void ElementIntegrator<dim, n_components, Number>::compute_element_vectors(
        const Source      &source,
        const unsigned int first,
        const unsigned int n,
        Array<Number>     &vectors) const
    {
      check_batch("compute_element_vectors", first, n);
      if (vectors.size() < std::size_t(n) * n_dofs)
        vectors.resize(std::size_t(cells_per_batch) * n_dofs);
      if (n == 0)
        return;
      const auto geometry = point_geometry(batch_support_points(first, n));
      timer.start("element vectors");
      using Kernel =
          internal::ElementVectorKernel<dim, n_components, Number, Source>;
      // Below 64 functions a tile of cells a team, about 128 threads (H200,
      // 3D Q1: the rhs took twice the matrices' time with one cell a team).
      const unsigned int per_team =
          n_dofs < 64 ? std::min(128 / n_dofs, n) : 1u;
      const unsigned int team = per_team > 1
                                    ? (per_team * n_dofs + 31) / 32 * 32
                                    : std::min(team_size, 128u);
      Kernel             kernel{source,
                    geometry,
                    shape_values.data(),
                    shape_gradients.data(),
                    shape_components.data(),
                    n_q,
                    n_dofs,
                    chunk,
                    n,
                    per_team,
                    vectors.data()};
      parallel_for_teams<TeamKernels::one_per_block>(
          "ElementIntegrator (element vectors)",
          (n + per_team - 1) / per_team,
          TeamShape{team, 1, 1},
          Kernel::scratch_bytes(chunk, per_team),
          kernel);
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    template <typename Operation>
    void ElementIntegrator<dim, n_components, Number>::assemble(
        const Operation &operation, SparseMatrix<Number> &matrix)
    {
      assemble_parts<Operation, NoOperation>(
          &operation, nullptr, &matrix, nullptr);
    }

    template <int dim, int n_components, typename Number>
    template <typename Operation, typename Source>
    void ElementIntegrator<dim, n_components, Number>::assemble(
        const Operation      &operation,
        const Source         &source,
        SparseMatrix<Number> &matrix,
        Vector<Number>       &rhs)
    {
      assemble_parts(&operation, &source, &matrix, &rhs);
    }

    template <int dim, int n_components, typename Number>
    template <typename Source>
    void ElementIntegrator<dim, n_components, Number>::assemble_rhs(
        const Source &source, Vector<Number> &rhs)
    {
      assemble_parts<NoOperation, Source>(nullptr, &source, nullptr, &rhs);
    }

    template <int dim, int n_components, typename Number>
    template <typename Operation, typename Source>
    void ElementIntegrator<dim, n_components, Number>::assemble_parts(
        const Operation      *operation,
        const Source         *source,
        SparseMatrix<Number> *matrix,
        Vector<Number>       *rhs)
    {
      constexpr bool with_matrix = !std::is_same_v<Operation, NoOperation>;
      constexpr bool with_vector = !std::is_same_v<Source, NoOperation>;
      AssertThrow(
          matrix_initialized &&
              (!with_matrix || matrix->get_partitioner() == matrix_partitioner),
          ExcMessage("ElementIntegrator::assemble: call "
                     "initialize_matrix() with this matrix first."));
      timer.clear();
      if constexpr (with_matrix)
      {
        *matrix = 0.;
        if (ghost_values.size() > 0)
          Memory::set_zero(ghost_values.backend(),
                           ghost_values.data(),
                           ghost_values.size() * sizeof(Number));
        Memory::set_zero(missing_entries.backend(),
                         missing_entries.data(),
                         sizeof(unsigned int));
      }
      if constexpr (with_vector)
        start_rhs();
      Array<Number> matrices, vectors;
      for (unsigned int first = 0; first < n_cells(); first += cells_per_batch)
      {
        const unsigned int n = std::min(cells_per_batch, n_cells() - first);
        if constexpr (with_matrix)
          compute_element_matrices(*operation, first, n, matrices);
        if constexpr (with_vector)
          compute_element_vectors(*source, first, n, vectors);
        timer.start("assembly");
        internal::AssemblyKernel<Number> kernel{
            with_matrix ? matrices.data() : nullptr,
            with_vector ? vectors.data() : nullptr,
            cell_keys.data(),
            cell_lines.data(),
            line_offsets.data(),
            line_keys.data(),
            line_weights.data(),
            line_inhomogeneities.size() > 0 ? line_inhomogeneities.data()
                                            : nullptr,
            with_matrix ? matrix->row_offsets() : nullptr,
            with_matrix ? matrix->column_indices() : nullptr,
            with_matrix ? matrix->values() : nullptr,
            ghost_row_of_key.data(),
            ghost_offsets.data(),
            ghost_columns.data(),
            ghost_values.data(),
            vector_index_of_key.data(),
            with_vector ? loads.get_values() : nullptr,
            missing_entries.data(),
            n_dofs,
            first,
            n_owned_rows,
            max_slots};
        parallel_for_teams<TeamKernels::one_per_block>(
            "ElementIntegrator (assembly)",
            n,
            TeamShape{assembly_team, 1, 1},
            internal::AssemblyKernel<Number>::scratch_bytes(n_dofs, max_slots),
            kernel);
        timer.stop();
      }
      if constexpr (with_matrix)
      {
        send_ghost_rows(*matrix);
        matrix->values_changed();
      }
      if constexpr (with_vector)
        finish_rhs(*rhs);
    }
  } // namespace GPU
} // namespace dealii

#endif
