// The order in which GPU::MatrixFree's cell loop runs the cells: structured
// blocks first, colors, and the cells next to other ranks between two
// halves of the others.
#ifndef dealii_gpu_matrix_free_cell_order_h
#define dealii_gpu_matrix_free_cell_order_h

#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/matrix_free/dof_info.h>

#include <array>
#include <utility>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * Cell order of the cell loop, from a DoFInfo:
       * - the cells of structured blocks (GPU::DoFRenumbering::
       *   block_lexicographic(), see MatrixFree::n_structured_cells())
       *   first, lexicographic within each block, with the data that let
       *   the kernels compute their DoF indices;
       * - with coloring, the colors of deal.II's GraphColoring one after
       *   another;
       * - with overlap of communication, within each color the cells that
       *   read ghost DoFs between two halves of the others (cell_phases).
       */
      template <int dim>
      class CellOrder
      {
      public:
        template <typename ConstraintNumber>
        void reinit(const DoFInfo<dim>                        &dof_info,
                    const AffineConstraints<ConstraintNumber> &constraints,
                    const bool                                 use_coloring,
                    const bool                                 overlap,
                    SetupTimer                                &timer);

        /** order[k]: the DoFInfo cell that runs k-th. */
        std::vector<unsigned int> order;
        /** Ranges of order that run without conflicts (one color each, or
         *  one range of all cells with atomics). */
        std::vector<std::pair<unsigned int, unsigned int>> colors;
        /** Per color {first, p1, p2, last}: [p1, p2) reads ghost DoFs. */
        std::vector<std::array<unsigned int, 4>> cell_phases;
        unsigned int                             n_boundary        = 0;
        unsigned int                             n_structured      = 0;
        unsigned int                             block_refinements = 0;
        /** Per block: local index of its first interior DoF. */
        std::vector<unsigned int> block_interior_first;
        /** Per block: the DoF entries of its faces (MatrixFreeData::
         *  block_surface). */
        std::vector<unsigned int> block_surface;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
