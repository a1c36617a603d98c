// Renumbering of a DoFHandler's DoFs for the memory access pattern of
// GPU::MatrixFree, in the manner of deal.II's DoFRenumbering.
#ifndef dealii_gpu_dofs_dof_renumbering_h
#define dealii_gpu_dofs_dof_renumbering_h

#include <dealii-gpu/base/config.h>

#include <deal.II/base/types.h>

#include <vector>

namespace dealii
{
  template <int dim, int spacedim>
  class DoFHandler;

  namespace GPU
  {
    template <int dim, typename Number>
    class MatrixFree;

    namespace DoFRenumbering
    {
      /**
       * New numbers for the locally owned DoFs of @p dof_handler (one per
       * locally owned DoF, in the order of
       * DoFHandler::locally_owned_dofs(), as DoFHandler::renumber_dofs()
       * takes them) that number the DoFs in the order in which the cell
       * loop of @p matrix_free first reads them (see
       * MatrixFree::get_dof_read_order()). Each rank keeps its range of
       * DoF numbers. @p matrix_free must have been set up with this
       * DoFHandler in its present numbering.
       */
      template <int dim, typename Number>
      std::vector<types::global_dof_index> compute_matrix_free_data_locality(
          const DoFHandler<dim, dim>    &dof_handler,
          const MatrixFree<dim, Number> &matrix_free);

      /**
       * Renumber the DoFs of @p dof_handler as
       * compute_matrix_free_data_locality() says. With one thread per cell
       * (MatrixFree::runs_thread_per_cell()) the cells of a warp then read
       * neighbouring vector entries, which measured up to 1.5x faster for
       * Q2 on an H100 (doc/benchmarks.md); for one thread per quadrature
       * point it numbers the DoFs cell by cell. As after any renumbering,
       * the AffineConstraints must be built again and @p matrix_free set up
       * again (reinit()) before it is used.
       */
      template <int dim, typename Number>
      void
      matrix_free_data_locality(DoFHandler<dim, dim>          &dof_handler,
                                const MatrixFree<dim, Number> &matrix_free);
    } // namespace DoFRenumbering
  }   // namespace GPU
} // namespace dealii

#endif
