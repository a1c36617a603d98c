// The sparsity pattern and constraint data of element assembly: the cells'
// DoF indices and constraint lines gathered on the set-up threads, the rows
// built on the active backend.
#ifndef dealii_gpu_integration_element_pattern_h
#define dealii_gpu_integration_element_pattern_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/memory.h>

#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/affine_constraints.h>

#include <utility>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * What assembling element matrices of @p cells with @p constraints
       * writes, as deal.II's DoFTools::make_sparsity_pattern() with the
       * constraints (keep_constrained_dofs = false) and
       * distribute_local_to_global() do: every pair of a cell's DoFs, a
       * constrained DoF replaced by the DoFs of its constraint line, and
       * the diagonal of every constrained DoF.
       *
       * DoFs are named by keys: the owned DoFs first (g - first owned), then
       * the owned rows' other columns (ghosts), then the other DoFs the
       * cells or constraint lines name (extras), each group sorted. The
       * first two are the local indices of a Partitioner(owned, ghosts).
       */
      struct ElementPattern
      {
        using size_type = types::global_dof_index;

        /** The cells' DoF indices, cell by cell. */
        std::vector<size_type> cell_dofs;
        /** Constrained DoFs of the cells, sorted; line k of them has the
         *  entries line_offsets[k], ..., line_offsets[k + 1] - 1. */
        std::vector<size_type>    constrained;
        std::vector<unsigned int> line_offsets;
        std::vector<size_type>    line_dofs;
        std::vector<double>       line_weights;
        /** The owned rows' columns other ranks own, and the other DoFs
         *  named that are not among them (both sorted). */
        IndexSet               ghosts;
        std::vector<size_type> extras;
        /** On the active backend: the keys of cell_dofs, the line of each
         *  (or numbers::invalid_unsigned_int), the keys of line_dofs, and
         *  the owned rows in CSR (columns are keys, sorted). */
        Array<unsigned int> cell_keys;
        Array<unsigned int> cell_lines;
        Array<unsigned int> line_keys;
        Array<unsigned int> row_offsets;
        Array<unsigned int> columns;
        /** Rows other ranks own that these cells write (sorted by owner,
         *  then index), their owners and columns (global, sorted). */
        std::vector<size_type>    ghost_rows;
        std::vector<unsigned int> ghost_owners;
        std::vector<std::size_t>  ghost_offsets;
        std::vector<size_type>    ghost_columns;
        /** Per source rank, the (row, column) pairs of its ghost rows in
         *  this rank's rows, in the order it sends their values. */
        std::vector<std::pair<unsigned int, std::vector<size_type>>> received;

        /** The line of constrained DoF g, or invalid_unsigned_int. */
        unsigned int line_of(const size_type g) const;

        /** Everything above, from the active DoFs of @p cells or, for a
         *  @p level other than numbers::invalid_unsigned_int, their level
         *  DoFs: DoF indices and lines on the set-up threads, rows on the
         *  active backend, the ghost rows exchanged with the other ranks. */
        template <int dim>
        void
        build(const std::vector<typename DoFHandler<dim>::cell_iterator> &cells,
              const unsigned int                                          level,
              const unsigned int               dofs_per_cell,
              const AffineConstraints<double> &constraints,
              const IndexSet                  &owned,
              const MPI_Comm                   communicator);
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
