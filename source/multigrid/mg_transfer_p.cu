// GPU::MGTransferP: index lists on the host from the two DoFHandlers of
// one mesh, the per-cell interpolation on the device (the kernels of the
// h-transfer).
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/multigrid/mg_transfer_p.h>

#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/lac/la_parallel_vector.h>

#include "../base/sorted_indices.h"
#include "transfer_kernels.h"
#include <algorithm>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      template <int dim>
      const FE_Q<dim> &fe_q(const DoFHandler<dim> &dof_handler,
                            const char            *side)
      {
        const auto *fe = dynamic_cast<const FE_Q<dim> *>(&dof_handler.get_fe());
        AssertThrow(fe != nullptr,
                    ExcMessage(std::string("MGTransferP: the ") + side +
                               " element must be FE_Q, not " +
                               dof_handler.get_fe().get_name()));
        return *fe;
      }

      // The cell's DoF indices in lexicographic order.
      template <typename CellIterator>
      void lexicographic_indices(const CellIterator              &cell,
                                 const std::vector<unsigned int> &lexicographic,
                                 std::vector<types::global_dof_index> &scratch,
                                 types::global_dof_index              *indices)
      {
        cell->get_dof_indices(scratch);
        for (unsigned int i = 0; i < lexicographic.size(); ++i)
          indices[i] = scratch[lexicographic[i]];
      }

      // Cells per chunk of the threaded loops (chunk c: cells c * grain ..).
      constexpr unsigned int grain = 4096;
    } // namespace

    template <int dim, typename Number>
    void MGTransferP<dim, Number>::build(
        const DoFHandler<dim>           &fine_dof_handler,
        const AffineConstraints<double> &fine_constraints,
        const DoFHandler<dim>           &coarse_dof_handler,
        const AffineConstraints<double> &coarse_constraints)
    {
      const FE_Q<dim> &fine_fe   = fe_q(fine_dof_handler, "fine");
      const FE_Q<dim> &coarse_fe = fe_q(coarse_dof_handler, "coarse");
      AssertThrow(&fine_dof_handler.get_triangulation() ==
                      &coarse_dof_handler.get_triangulation(),
                  ExcMessage("MGTransferP: the DoFHandlers must share one "
                             "triangulation"));
      fine_degree   = fine_fe.degree;
      coarse_degree = coarse_fe.degree;
      AssertThrow(coarse_degree < fine_degree && fine_degree <= 8,
                  ExcMessage("MGTransferP: coarse degree " +
                             std::to_string(coarse_degree) +
                             " must be below the fine degree " +
                             std::to_string(fine_degree) + " (at most 8)"));
      const MPI_Comm     comm = fine_dof_handler.get_communicator();
      const unsigned int nf1 = fine_degree + 1, nc1 = coarse_degree + 1;
      const unsigned int nf = internal::power<dim>(nf1),
                         nc = internal::power<dim>(nc1);

      // 1D interpolation: coarse basis function i at fine point j.
      const std::vector<unsigned int> fine_lex =
          FETools::lexicographic_to_hierarchic_numbering<dim>(fine_degree);
      const std::vector<unsigned int> coarse_lex =
          FETools::lexicographic_to_hierarchic_numbering<dim>(coarse_degree);
      {
        std::vector<Number> P(nf1 * nc1);
        const auto         &points = fine_fe.get_unit_support_points();
        for (unsigned int j = 0; j < nf1; ++j)
        {
          Point<dim> x;
          x[0] = points[fine_lex[j]][0];
          for (unsigned int i = 0; i < nc1; ++i)
            P[j * nc1 + i] = coarse_fe.shape_value(coarse_lex[i], x);
        }
        interpolation_1d.copy_from(P);
      }

      // Cells and their global indices, on the set-up threads.
      std::vector<typename DoFHandler<dim>::active_cell_iterator> cells;
      for (const auto &cell : fine_dof_handler.active_cell_iterators())
        if (cell->is_locally_owned())
          cells.push_back(cell);
      n_cells = cells.size();
      std::vector<types::global_dof_index> fine_global(std::size_t(n_cells) *
                                                       nf),
          coarse_global(std::size_t(n_cells) * nc);
      parallel_for_chunks(
          n_cells,
          grain,
          [&](const std::size_t begin, const std::size_t end)
          {
            std::vector<types::global_dof_index> scratch_f(nf), scratch_c(nc);
            for (std::size_t c = begin; c < end; ++c)
            {
              lexicographic_indices(
                  cells[c], fine_lex, scratch_f, fine_global.data() + c * nf);
              const typename DoFHandler<dim>::active_cell_iterator coarse_cell(
                  &cells[c]->get_triangulation(),
                  cells[c]->level(),
                  cells[c]->index(),
                  &coarse_dof_handler);
              lexicographic_indices(coarse_cell,
                                    coarse_lex,
                                    scratch_c,
                                    coarse_global.data() + c * nc);
            }
          });

      // Ghosts of both sides, collected per chunk (joined in chunk order).
      // Coarse: the cells' unconstrained DoFs and the entries of their
      // hanging-node constraints.
      const IndexSet &fine_owned_set = fine_dof_handler.locally_owned_dofs();
      const IndexSet &coarse_owned_set =
          coarse_dof_handler.locally_owned_dofs();
      const std::size_t n_chunks = (n_cells + grain - 1) / grain;
      std::vector<std::vector<types::global_dof_index>> fine_chunk(n_chunks),
          coarse_chunk(n_chunks), line_chunk(n_chunks);
      parallel_for_chunks(
          n_cells,
          grain,
          [&](const std::size_t begin, const std::size_t end)
          {
            const std::size_t chunk = begin / grain;
            for (std::size_t i = begin * nf; i < end * nf; ++i)
              if (!fine_owned_set.is_element(fine_global[i]) &&
                  !fine_constraints.is_constrained(fine_global[i]))
                fine_chunk[chunk].push_back(fine_global[i]);
            for (std::size_t i = begin * nc; i < end * nc; ++i)
            {
              const types::global_dof_index g = coarse_global[i];
              const auto                   *entries =
                  coarse_constraints.get_constraint_entries(g);
              if (entries == nullptr)
              {
                if (!coarse_owned_set.is_element(g))
                  coarse_chunk[chunk].push_back(g);
              }
              else if (!entries->empty())
              {
                coarse_chunk[chunk].push_back(g);
                line_chunk[chunk].push_back(g);
                AssertThrow(coarse_constraints.get_inhomogeneity(g) == 0.,
                            ExcMessage("MGTransferP: inhomogeneous "
                                       "constraints"));
                for (const auto &entry : *entries)
                  coarse_chunk[chunk].push_back(entry.first);
              }
            }
          });
      auto join = [](std::vector<std::vector<types::global_dof_index>> &parts)
      {
        std::vector<types::global_dof_index> all;
        for (auto &part : parts)
        {
          all.insert(all.end(), part.begin(), part.end());
          std::vector<types::global_dof_index>().swap(part);
        }
        return all;
      };
      std::vector<types::global_dof_index> fine_ghosts   = join(fine_chunk),
                                           coarse_ghosts = join(coarse_chunk),
                                           lines         = join(line_chunk);
      auto make_partitioner = [&](std::vector<types::global_dof_index> &ghosts,
                                  const IndexSet                       &owned)
      {
        internal::sort_unique(ghosts);
        IndexSet ghost_set(owned.size());
        ghost_set.add_indices(ghosts.begin(), ghosts.end());
        ghost_set.subtract_set(owned);
        return std::make_shared<const Utilities::MPI::Partitioner>(
            owned, ghost_set, comm);
      };
      fine_partitioner   = make_partitioner(fine_ghosts, fine_owned_set);
      coarse_partitioner = make_partitioner(coarse_ghosts, coarse_owned_set);
      fine_owned         = std::make_shared<const Utilities::MPI::Partitioner>(
          fine_owned_set, comm);
      coarse_owned = std::make_shared<const Utilities::MPI::Partitioner>(
          coarse_owned_set, comm);

      // Local indices; weights 1 / (cells sharing an unconstrained fine DoF,
      // over all ranks).
      std::vector<unsigned int> fine_local(fine_global.size()),
          coarse_local(coarse_global.size());
      parallel_for_chunks(
          n_cells,
          grain,
          [&](const std::size_t begin, const std::size_t end)
          {
            for (std::size_t i = begin * nf; i < end * nf; ++i)
              fine_local[i] =
                  fine_constraints.is_constrained(fine_global[i])
                      ? constrained_dof_flag
                      : fine_partitioner->global_to_local(fine_global[i]);
            for (std::size_t i = begin * nc; i < end * nc; ++i)
            {
              const auto *entries =
                  coarse_constraints.get_constraint_entries(coarse_global[i]);
              coarse_local[i] =
                  (entries != nullptr && entries->empty())
                      ? constrained_dof_flag
                      : coarse_partitioner->global_to_local(coarse_global[i]);
            }
          });
      std::vector<types::global_dof_index>().swap(fine_global);
      std::vector<types::global_dof_index>().swap(coarse_global);
      LinearAlgebra::distributed::Vector<double> count(fine_partitioner);
      for (const unsigned int i : fine_local)
        if (i != constrained_dof_flag)
          count.local_element(i) += 1.;
      count.compress(VectorOperation::add);
      count.update_ghost_values();
      std::vector<Number> w(fine_partitioner->locally_owned_size() +
                            fine_partitioner->n_ghost_indices());
      for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = count.local_element(i) > 0 ? Number(1. / count.local_element(i))
                                          : Number();
      fine_indices.copy_from(fine_local);
      coarse_indices.copy_from(coarse_local);
      weights.copy_from(w);

      // Coarse hanging-node lines, each once.
      std::sort(lines.begin(), lines.end());
      lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
      std::vector<unsigned int> line_rows, line_offsets{0}, line_columns;
      std::vector<Number>       line_weights;
      for (const types::global_dof_index g : lines)
      {
        line_rows.push_back(coarse_partitioner->global_to_local(g));
        for (const auto &entry : *coarse_constraints.get_constraint_entries(g))
        {
          line_columns.push_back(
              coarse_partitioner->global_to_local(entry.first));
          line_weights.push_back(entry.second);
        }
        line_offsets.push_back(line_columns.size());
      }
      has_constraints = Utilities::MPI::max(
                            static_cast<unsigned int>(lines.size()), comm) > 0;
      constrained.copy_from(line_rows);
      offsets.copy_from(line_offsets);
      columns.copy_from(line_columns);
      constraint_weights.copy_from(line_weights);
      fine_vector.reinit(fine_partitioner);
      coarse_vector.reinit(coarse_partitioner);
    }

    template <int dim, typename Number>
    internal::TransferCells<Number> MGTransferP<dim, Number>::cells() const
    {
      return {coarse_degree + 1,
              fine_degree + 1,
              1,
              coarse_indices.data(),
              fine_indices.data(),
              weights.data(),
              interpolation_1d.data()};
    }

    template <int dim, typename Number>
    void MGTransferP<dim, Number>::prolongate(VectorType       &dst,
                                              const VectorType &src) const
    {
      AssertThrow(n_cells > 0 || fine_partitioner != nullptr,
                  ExcMessage("MGTransferP::prolongate before build()"));
      coarse_vector.copy_locally_owned_data_from(src);
      coarse_vector.update_ghost_values();
      // Complete the hanging DoFs of the coarse function.
      if (constrained.size() > 0)
      {
        const unsigned int *row = constrained.data(), *offset = offsets.data(),
                           *column = columns.data();
        const Number *weight       = constraint_weights.data();
        Number       *values       = coarse_vector.get_values();
        parallel_for("MGTransferP::distribute",
                     constrained.size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     {
                       Number sum = Number();
                       for (unsigned int e = offset[i]; e < offset[i + 1]; ++e)
                         sum += weight[e] * values[column[e]];
                       values[row[i]] = sum;
                     });
      }
      fine_vector = Number();
      fine_vector.zero_out_ghost_values();
      const internal::TransferCells<Number> data = cells();
      internal::run_transfer<dim, Number>(
          "MGTransferP::prolongate",
          n_cells,
          data,
          internal::ProlongateCells<dim, Number>{
              data, coarse_vector.get_values(), fine_vector.get_values()});
      fine_vector.compress(VectorOperation::add);
      dst.copy_locally_owned_data_from(fine_vector);
    }

    template <int dim, typename Number>
    void MGTransferP<dim, Number>::restrict_and_add(VectorType       &dst,
                                                    const VectorType &src) const
    {
      AssertThrow(n_cells > 0 || fine_partitioner != nullptr,
                  ExcMessage("MGTransferP::restrict_and_add before build()"));
      fine_vector.copy_locally_owned_data_from(src);
      fine_vector.update_ghost_values();
      coarse_vector = Number();
      coarse_vector.zero_out_ghost_values();
      const internal::TransferCells<Number> data = cells();
      internal::run_transfer<dim, Number>(
          "MGTransferP::restrict_and_add",
          n_cells,
          data,
          internal::RestrictCells<dim, Number>{
              data, fine_vector.get_values(), coarse_vector.get_values()});
      // The transpose of the hanging-node completion: a constrained entry
      // goes to the entries it depends on (never constrained themselves).
      if (constrained.size() > 0)
      {
        const unsigned int *row = constrained.data(), *offset = offsets.data(),
                           *column = columns.data();
        const Number *weight       = constraint_weights.data();
        Number       *values       = coarse_vector.get_values();
        parallel_for("MGTransferP::distribute (transpose)",
                     constrained.size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     {
                       const Number value = values[row[i]];
                       values[row[i]]     = Number();
                       for (unsigned int e = offset[i]; e < offset[i + 1]; ++e)
                         atomic_add(values + column[e], weight[e] * value);
                     });
      }
      coarse_vector.compress(VectorOperation::add);
      fine_vector.zero_out_ghost_values();
      dst += coarse_vector;
    }

    template <int dim, typename Number>
    std::size_t MGTransferP<dim, Number>::memory_consumption() const
    {
      return coarse_indices.memory_consumption() +
             fine_indices.memory_consumption() + weights.memory_consumption() +
             interpolation_1d.memory_consumption() +
             constrained.memory_consumption() + offsets.memory_consumption() +
             columns.memory_consumption() +
             constraint_weights.memory_consumption() +
             fine_vector.memory_consumption() +
             coarse_vector.memory_consumption();
    }

    template class MGTransferP<2, float>;
    template class MGTransferP<2, double>;
    template class MGTransferP<3, float>;
    template class MGTransferP<3, double>;
  } // namespace GPU
} // namespace dealii
