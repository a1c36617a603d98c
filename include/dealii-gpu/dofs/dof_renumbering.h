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

      /**
       * New numbers for the locally owned DoFs of @p dof_handler (in the
       * form compute_matrix_free_data_locality() gives them) that number
       * the interior DoFs of every block lexicographically, one block after
       * the other, and the other DoFs after them in their present order. A
       * block is a cell of level @p block_level that is refined r >= 1 times
       * isotropically, with all its active descendants locally owned; its
       * interior DoFs are those of its descendants not on the block's
       * boundary, (k 2^r - 1)^dim for FE_Q(k), x fastest in the block's
       * coordinates. GPU::MatrixFree detects this numbering (scalar FE_Q,
       * no coloring, no hanging nodes inside the block) and then computes
       * the DoF indices of the blocks' cells instead of storing them: for Q1
       * that takes about 1 instead of 32 bytes per DoF (see
       * MatrixFree::n_structured_cells()). Block level 0 (the coarse cells)
       * gives the fewest boundary DoFs; with many MPI ranks, whose cells
       * split coarse cells, a finer level keeps more blocks whole.
       */
      template <int dim>
      std::vector<types::global_dof_index>
      compute_block_lexicographic(const DoFHandler<dim, dim> &dof_handler,
                                  const unsigned int          block_level = 0);

      /** Renumber the DoFs of @p dof_handler as
       *  compute_block_lexicographic() says. Build the AffineConstraints
       *  again afterwards. */
      template <int dim>
      void block_lexicographic(DoFHandler<dim, dim> &dof_handler,
                               const unsigned int    block_level = 0);
    } // namespace DoFRenumbering
  }   // namespace GPU
} // namespace dealii

#endif
