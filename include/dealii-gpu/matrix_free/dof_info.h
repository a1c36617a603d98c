// The DoF side of GPU::MatrixFree::reinit(): cells, hanging nodes, vector
// layout and the cells' local DoF indices, built on the host threads.
#ifndef dealii_gpu_matrix_free_dof_info_h
#define dealii_gpu_matrix_free_dof_info_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/base/index_set.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>

#include <memory>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The locally owned cells (active, or of one multigrid level) of a
       * DoFHandler with FE_Q(k) or FESystem(FE_Q(k), n), and what the cell
       * loop needs of their DoFs: the hanging-node mask of each cell
       * (hanging_nodes.h), the vector layout (owned DoFs, then every other
       * DoF a cell reads, the coarse DoFs of hanging faces and edges
       * included) and each cell's DoF indices in that layout,
       * lexicographic, component after component, with
       * constrained_dof_flag on constrained DoFs. Every hanging DoF's
       * constraint is checked against the interpolation the kernel applies;
       * other constraints with entries are refused.
       *
       * Cells stay in deal.II's order (cell_order.h orders them). The
       * per-cell work runs on n_setup_threads() threads; its results do not
       * depend on the number of threads.
       */
      template <int dim>
      class DoFInfo
      {
      public:
        using CellIterator = typename DoFHandler<dim>::cell_iterator;

        /** @p mg_level: numbers::invalid_unsigned_int for the active
         *  cells. Steps are timed in @p timer. */
        template <typename ConstraintNumber>
        void reinit(const DoFHandler<dim>                     &dof_handler,
                    const AffineConstraints<ConstraintNumber> &constraints,
                    const unsigned int                         mg_level,
                    SetupTimer                                &timer);

        unsigned int degree        = 0;
        unsigned int n_components  = 0;
        unsigned int dofs_per_cell = 0;
        bool         on_level      = false;
        /** Whether hanging nodes are resolved (active cells of a mesh with
         *  hanging nodes). */
        bool resolve_hanging = false;
        /** lexicographic[i]: the hierarchic index of lexicographic i. */
        std::vector<unsigned int> lexicographic;
        std::vector<CellIterator> cells;
        /** Per cell: which faces and edges hang (0: none). */
        std::vector<unsigned int> masks;
        unsigned int              n_hanging_cells = 0;
        /** 1D interpolation from a parent to child 0 and 1,
         *  [child (k + 1)^2 + i (k + 1) + j]. */
        std::vector<double> hanging_interpolation;
        IndexSet            owned;
        std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
        /** [cell * dofs_per_cell + i]: local index, constrained_dof_flag
         *  set on constrained DoFs. */
        HostVector<unsigned int> indices;
        /** Per cell: whether it reads a DoF of another rank that is not
         *  constrained. */
        std::vector<char> touches_ghosts;
        /** Local indices of the locally owned constrained DoFs. */
        std::vector<unsigned int> constrained_owned;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
