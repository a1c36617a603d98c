// GPU::ElementIntegrator's assembly set-up: the sparsity pattern, the
// constraint data the assembly kernel reads, and the rows other ranks own
// (the element matrices: element_integrator.cu).
#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/integration/element_pattern.h>

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <map>
#include <memory>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      // The most column slots (a DoF's line entries, or the DoF) of the
      // cells with a line of two or more entries; 0 if there are none.
      unsigned int most_slots(const unsigned int         n_cells,
                              const unsigned int         n,
                              const Array<unsigned int> &cell_lines,
                              const Array<unsigned int> &line_offsets)
      {
        const unsigned int *lines = cell_lines.data();
        const unsigned int *loff  = line_offsets.data();
        return static_cast<unsigned int>(parallel_max(
            "ElementIntegrator (slots)",
            n_cells,
            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
            {
              unsigned int slots   = 0;
              bool         expands = false;
              for (unsigned int i = 0; i < n; ++i)
              {
                const unsigned int l      = lines[c * n + i];
                const unsigned int length = l == numbers::invalid_unsigned_int
                                                ? 1
                                                : loff[l + 1] - loff[l];
                slots += length;
                expands = expands || length > 1;
              }
              return expands ? double(slots) : 0.;
            }));
      }

      // dst[pos[k]] += src[k] (outside the class: nvcc's extended lambdas).
      template <typename Number>
      void add_at_positions(const std::size_t   n,
                            const unsigned int *pos,
                            const Number       *src,
                            Number             *dst)
      {
        parallel_for("ElementIntegrator (rows from other ranks)",
                     n,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
                     { atomic_add(&dst[pos[k]], src[k]); });
      }
    } // namespace

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::initialize_matrix(
        const AffineConstraints<double> &constraints,
        SparseMatrix<Number>            &matrix)
    {
      AssertThrow(mapping != nullptr,
                  ExcMessage("ElementIntegrator: call reinit() first."));
      using size_type = types::global_dof_index;
      timer.clear();
      timer.start("sparsity pattern");
      const bool     on_level = level != numbers::invalid_unsigned_int;
      const IndexSet owned    = on_level
                                    ? dof_handler->locally_owned_mg_dofs(level)
                                    : dof_handler->locally_owned_dofs();
      internal::ElementPattern pattern;
      pattern.build<dim>(
          cells, level, n_dofs, constraints, owned, communicator);
      matrix.reinit(std::make_shared<Utilities::MPI::Partitioner>(
                        owned, pattern.ghosts, communicator),
                    std::move(pattern.row_offsets),
                    std::move(pattern.columns));

      timer.start("constraint data");
      const auto &partitioner    = *matrix.get_partitioner();
      n_owned_rows               = partitioner.locally_owned_size();
      const unsigned int n_local = n_owned_rows + partitioner.n_ghost_indices();
      // Keys (the pattern's): the matrix's local index, or one after those
      // for DoFs no owned row couples to (extras).
      const std::vector<size_type> &extras = pattern.extras;
      auto                          key = [&](const size_type g) -> unsigned int
      {
        if (partitioner.in_local_range(g) || partitioner.is_ghost_entry(g))
          return partitioner.global_to_local(g);
        const auto it = std::lower_bound(extras.begin(), extras.end(), g);
        Assert(it != extras.end() && *it == g, ExcInternalError());
        return n_local + (it - extras.begin());
      };
      const unsigned int n_keys = n_local + extras.size();
      cell_keys.swap(pattern.cell_keys);
      cell_lines.swap(pattern.cell_lines);
      line_keys.swap(pattern.line_keys);
      std::vector<Number> entry_weights(pattern.line_weights.size());
      for (std::size_t k = 0; k < entry_weights.size(); ++k)
        entry_weights[k] = static_cast<Number>(pattern.line_weights[k]);
      line_offsets.copy_from(pattern.line_offsets);
      // Condensing pays from more DoFs a cell than a warp's threads (H100:
      // Q3 3x, Q5 8x faster; Q1, Q2 and 2D Q4 10-20 % slower).
      max_slots = n_dofs > 32
                      ? most_slots(n_cells(), n_dofs, cell_lines, line_offsets)
                      : 0;
      if (internal::AssemblyKernel<Number>::scratch_bytes(n_dofs, max_slots) >
          (160 << 10))
        max_slots = 0;
      line_weights.copy_from(entry_weights);
      std::vector<Number> inhomogeneities(pattern.constrained.size());
      bool                inhomogeneous = false;
      for (std::size_t k = 0; k < inhomogeneities.size(); ++k)
      {
        inhomogeneities[k] = static_cast<Number>(
            constraints.get_inhomogeneity(pattern.constrained[k]));
        inhomogeneous = inhomogeneous || inhomogeneities[k] != Number(0);
      }
      if (inhomogeneous)
        line_inhomogeneities.copy_from(inhomogeneities);
      else
        line_inhomogeneities.clear();

      // The loads' layout: owned entries, then every DoF a key past them
      // names, so that compress() takes them to their owners.
      {
        IndexSet others(owned.size());
        others.add_indices(partitioner.ghost_indices());
        others.add_indices(extras.begin(), extras.end());
        others.compress();
        const auto load_partitioner =
            std::make_shared<Utilities::MPI::Partitioner>(
                owned, others, communicator);
        loads.reinit(load_partitioner);
        std::vector<unsigned int> index(n_keys - n_owned_rows);
        for (unsigned int k = n_owned_rows; k < n_keys; ++k)
          index[k - n_owned_rows] = load_partitioner->global_to_local(
              k < n_local ? partitioner.local_to_global(k)
                          : extras[k - n_local]);
        vector_index_of_key.copy_from(index);
        matrix_partitioner = matrix.get_partitioner();
      }

      // Ghost rows as CSR over keys, in the order the owners receive them.
      std::vector<unsigned int> row_of_key(n_keys - n_owned_rows,
                                           numbers::invalid_unsigned_int),
          g_offsets{0}, g_columns(pattern.ghost_columns.size());
      export_ranges.clear();
      ghost_send_order.assign(g_columns.size(), 0);
      for (unsigned int g = 0; g < pattern.ghost_rows.size(); ++g)
      {
        const unsigned int row = key(pattern.ghost_rows[g]);
        AssertThrow(row >= n_owned_rows, ExcInternalError());
        row_of_key[row - n_owned_rows] = g;
        const unsigned int owner       = pattern.ghost_owners[g];
        const std::size_t  begin       = pattern.ghost_offsets[g];
        const std::size_t  end         = pattern.ghost_offsets[g + 1];
        if (export_ranges.empty() || export_ranges.back().first != owner)
          export_ranges.push_back({owner, {begin, begin}});
        export_ranges.back().second.second = end;
        // The kernel searches each row's keys, sorted; the values go out
        // in the pattern's order (ghost_send_order), as the owners expect.
        std::vector<std::pair<unsigned int, std::size_t>> sorted;
        for (std::size_t k = begin; k < end; ++k)
          sorted.emplace_back(key(pattern.ghost_columns[k]), k);
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t t = 0; t < sorted.size(); ++t)
        {
          g_columns[begin + t]               = sorted[t].first;
          ghost_send_order[sorted[t].second] = begin + t;
        }
        g_offsets.push_back(end);
      }
      ghost_row_of_key.copy_from(row_of_key);
      ghost_offsets.copy_from(g_offsets);
      ghost_columns.copy_from(g_columns);
      ghost_values.resize(g_columns.size());
      missing_entries.resize(1);

      // The owners find where each (row, column) they receive goes.
      import_sources.clear();
      import_counts.clear();
      std::vector<unsigned int> positions;
      if (!pattern.received.empty())
      {
        std::vector<unsigned int> row_offsets(n_owned_rows + 1), columns;
        Memory::copy_to_host(Device::backend(),
                             row_offsets.data(),
                             matrix.row_offsets(),
                             row_offsets.size() * sizeof(unsigned int));
        columns.resize(row_offsets.back());
        Memory::copy_to_host(Device::backend(),
                             columns.data(),
                             matrix.column_indices(),
                             columns.size() * sizeof(unsigned int));
        for (const auto &[source, pairs] : pattern.received)
        {
          import_sources.push_back(source);
          import_counts.push_back(pairs.size() / 2);
          for (std::size_t p = 0; p < pairs.size(); p += 2)
          {
            const unsigned int r = partitioner.global_to_local(pairs[p]);
            const unsigned int c = partitioner.global_to_local(pairs[p + 1]);
            const unsigned int k = internal::find_sorted(
                columns.data(), row_offsets[r], row_offsets[r + 1], c);
            AssertThrow(k < row_offsets[r + 1] && columns[k] == c,
                        ExcInternalError());
            positions.push_back(k);
          }
        }
      }
      import_positions.copy_from(positions);
      matrix_initialized = true;
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::send_ghost_rows(
        SparseMatrix<Number> &matrix) const
    {
      std::vector<unsigned int> missing(1);
      missing_entries.copy_to(missing);
      AssertThrow(missing[0] == 0,
                  ExcMessage("ElementIntegrator::assemble: " +
                             std::to_string(missing[0]) +
                             " entries fell outside the sparsity pattern; "
                             "were the constraints changed after "
                             "initialize_matrix()?"));
      if (Utilities::MPI::n_mpi_processes(communicator) == 1)
        return;
      timer.start("ghost rows");
      std::vector<Number> values;
      ghost_values.copy_to(values);
      std::map<unsigned int, std::vector<Number>> outgoing;
      for (const auto &[rank, range] : export_ranges)
        for (std::size_t k = range.first; k < range.second; ++k)
          outgoing[rank].push_back(values[ghost_send_order[k]]);
      const auto incoming =
          Utilities::MPI::some_to_some(communicator, outgoing);
      std::vector<Number> received;
      for (unsigned int s = 0; s < import_sources.size(); ++s)
      {
        const auto it = incoming.find(import_sources[s]);
        AssertThrow(it != incoming.end() &&
                        it->second.size() == import_counts[s],
                    ExcInternalError());
        received.insert(received.end(), it->second.begin(), it->second.end());
      }
      Array<Number> device_received;
      device_received.copy_from(received);
      add_at_positions(received.size(),
                       import_positions.data(),
                       device_received.data(),
                       matrix.values());
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::start_rhs()
    {
      loads = Number(0);
    }

    template <int dim, int n_components, typename Number>
    void ElementIntegrator<dim, n_components, Number>::finish_rhs(
        Vector<Number> &rhs)
    {
      timer.start("vector entries of other ranks");
      loads.compress(VectorOperation::add);
      const auto &layout = rhs.get_partitioner();
      if (layout == nullptr || layout->size() != matrix_partitioner->size() ||
          layout->local_range() != matrix_partitioner->local_range())
        rhs.reinit(matrix_partitioner);
      rhs = Number(0);
      Memory::copy_within(rhs.backend(),
                          rhs.get_values(),
                          loads.get_values(),
                          std::size_t(n_owned_rows) * sizeof(Number));
      timer.stop();
    }

#define DEAL_II_GPU_INSTANTIATE(dim, n_components, Number)                     \
  template void                                                                \
  ElementIntegrator<dim, n_components, Number>::initialize_matrix(             \
      const AffineConstraints<double> &, SparseMatrix<Number> &);              \
  template void ElementIntegrator<dim, n_components, Number>::send_ghost_rows( \
      SparseMatrix<Number> &) const;                                           \
  template void ElementIntegrator<dim, n_components, Number>::start_rhs();     \
  template void ElementIntegrator<dim, n_components, Number>::finish_rhs(      \
      Vector<Number> &);
    DEAL_II_GPU_INSTANTIATE(2, 1, double)
    DEAL_II_GPU_INSTANTIATE(2, 2, double)
    DEAL_II_GPU_INSTANTIATE(3, 1, double)
    DEAL_II_GPU_INSTANTIATE(3, 3, double)
    DEAL_II_GPU_INSTANTIATE(2, 1, float)
    DEAL_II_GPU_INSTANTIATE(3, 1, float)
#undef DEAL_II_GPU_INSTANTIATE
  } // namespace GPU
} // namespace dealii
