#include <dealii-gpu/dofs/block_lattice.h>
#include <dealii-gpu/dofs/dof_renumbering.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe.h>

#include <string>

namespace dealii
{
  namespace GPU
  {
    namespace DoFRenumbering
    {
      template <int dim, typename Number>
      std::vector<types::global_dof_index> compute_matrix_free_data_locality(
          const DoFHandler<dim, dim>    &dof_handler,
          const MatrixFree<dim, Number> &matrix_free)
      {
        const IndexSet &owned = dof_handler.locally_owned_dofs();
        const std::vector<unsigned int> order =
            matrix_free.get_dof_read_order();
        AssertThrow(order.size() == owned.n_elements(),
                    ExcMessage("GPU::DoFRenumbering: the MatrixFree object "
                               "holds " +
                               std::to_string(order.size()) +
                               " locally owned DoFs, the DoFHandler " +
                               std::to_string(owned.n_elements()) +
                               "; set it up with this DoFHandler first"));
        // The k-th DoF read gets the k-th number of the owned range.
        std::vector<types::global_dof_index> new_numbers(order.size());
        for (unsigned int k = 0; k < order.size(); ++k)
          new_numbers[order[k]] = owned.nth_index_in_set(k);
        return new_numbers;
      }

      template <int dim, typename Number>
      void matrix_free_data_locality(DoFHandler<dim, dim>          &dof_handler,
                                     const MatrixFree<dim, Number> &matrix_free)
      {
        dof_handler.renumber_dofs(
            compute_matrix_free_data_locality(dof_handler, matrix_free));
      }

      template <int dim>
      std::vector<types::global_dof_index>
      compute_block_lexicographic(const DoFHandler<dim, dim> &dof_handler,
                                  const unsigned int          block_level)
      {
        AssertThrow(dof_handler.get_fe().n_components() == 1,
                    ExcMessage("GPU::DoFRenumbering::block_lexicographic "
                               "numbers scalar elements (FE_Q) only"));
        AssertThrow(
            block_level < dof_handler.get_triangulation().n_global_levels(),
            ExcIndexRange(block_level,
                          0,
                          dof_handler.get_triangulation().n_global_levels()));
        const unsigned int            degree = dof_handler.get_fe().degree;
        const IndexSet               &owned  = dof_handler.locally_owned_dofs();
        const types::global_dof_index unset  = numbers::invalid_dof_index;
        std::vector<types::global_dof_index> new_numbers(owned.n_elements(),
                                                         unset);
        types::global_dof_index              next = 0;
        std::vector<typename DoFHandler<dim>::active_cell_iterator> cells;
        if (block_level < dof_handler.get_triangulation().n_levels())
          for (const auto &block :
               dof_handler.cell_iterators_on_level(block_level))
          {
            const unsigned int r = internal::refinements_below<dim>(block);
            if (r == 0 || !internal::block_cells<dim>(block, r, cells))
              continue;
            const auto lattice = internal::block_lattice<dim>(cells, r, degree);
            const unsigned int M = degree << r;
            // Interior lattice points, x fastest.
            std::array<unsigned int, dim> x;
            x.fill(1);
            while (x[dim - 1] < M)
            {
              std::size_t point = 0;
              for (int d = dim - 1; d >= 0; --d)
                point = point * (M + 1) + x[d];
              const auto g = lattice[point];
              AssertThrow(owned.is_element(g), ExcInternalError());
              auto &number = new_numbers[owned.index_within_set(g)];
              AssertThrow(number == unset, ExcInternalError());
              number = owned.nth_index_in_set(next++);
              for (unsigned int d = 0; d < dim; ++d)
              {
                if (++x[d] < M || d == dim - 1)
                  break;
                x[d] = 1;
              }
            }
          }
        for (auto &number : new_numbers)
          if (number == unset)
            number = owned.nth_index_in_set(next++);
        return new_numbers;
      }

      template <int dim>
      void block_lexicographic(DoFHandler<dim, dim> &dof_handler,
                               const unsigned int    block_level)
      {
        dof_handler.renumber_dofs(
            compute_block_lexicographic(dof_handler, block_level));
      }

      template std::vector<types::global_dof_index>
      compute_block_lexicographic(const DoFHandler<2, 2> &, const unsigned int);
      template std::vector<types::global_dof_index>
      compute_block_lexicographic(const DoFHandler<3, 3> &, const unsigned int);
      template void block_lexicographic(DoFHandler<2, 2> &, const unsigned int);
      template void block_lexicographic(DoFHandler<3, 3> &, const unsigned int);

#define DEALII_GPU_INSTANTIATE(dim, Number)                                         \
  template std::vector<types::global_dof_index>                                     \
                compute_matrix_free_data_locality(const DoFHandler<dim, dim> &,     \
                                                  const MatrixFree<dim, Number> &); \
  template void matrix_free_data_locality(DoFHandler<dim, dim> &,                   \
                                          const MatrixFree<dim, Number> &);
      DEALII_GPU_INSTANTIATE(2, float)
      DEALII_GPU_INSTANTIATE(2, double)
      DEALII_GPU_INSTANTIATE(3, float)
      DEALII_GPU_INSTANTIATE(3, double)
#undef DEALII_GPU_INSTANTIATE
    } // namespace DoFRenumbering
  }   // namespace GPU
} // namespace dealii
