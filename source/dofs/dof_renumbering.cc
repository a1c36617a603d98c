#include <dealii-gpu/dofs/dof_renumbering.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>

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
