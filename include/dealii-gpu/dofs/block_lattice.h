// Blocks of cells for structured DoF numbering: a cell refined r times
// isotropically, whose 2^(dim r) active descendants form a lattice of
// (k 2^r + 1)^dim FE_Q(k) DoFs. Used by
// GPU::DoFRenumbering::block_lexicographic() to number a block's interior
// DoFs lexicographically and by GPU::MatrixFree to compute them instead of
// storing them.
#ifndef dealii_gpu_dofs_block_lattice_h
#define dealii_gpu_dofs_block_lattice_h

#include <dealii-gpu/base/config.h>

#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>

#include <array>
#include <cstddef>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The active descendants of @p block, refined @p refinements times
       * isotropically, in lexicographic order of their position in the
       * block (x fastest). Returns false (and leaves @p cells unspecified)
       * where the block is not so refined or a descendant is not locally
       * owned. deal.II numbers the children of an isotropically refined
       * cell as its vertices, child c at (c & 1, (c >> 1) & 1, c >> 2), in
       * the parent's coordinates, which is what makes the lattice.
       */
      template <int dim>
      bool block_cells(
          const typename DoFHandler<dim>::cell_iterator &block,
          const unsigned int                             refinements,
          std::vector<typename DoFHandler<dim>::active_cell_iterator> &cells);

      /**
       * The DoF indices of a block's cells (as block_cells() gives them) on
       * its lattice of (degree 2^refinements + 1)^dim points, x fastest,
       * for a scalar FE_Q(degree).
       */
      template <int dim>
      std::vector<types::global_dof_index> block_lattice(
          const std::vector<typename DoFHandler<dim>::active_cell_iterator>
                            &cells,
          const unsigned int refinements,
          const unsigned int degree);

      /**
       * The lattice coordinates of the DoF at lexicographic position
       * @p local of the cell at lexicographic position @p cell of a block
       * refined @p refinements times, for FE_Q(degree): cell coordinates
       * times degree plus the DoF's coordinates in the cell.
       */
      template <int dim>
      inline std::array<unsigned int, dim>
      lattice_point(std::size_t        cell,
                    unsigned int       local,
                    const unsigned int refinements,
                    const unsigned int degree)
      {
        const unsigned int            n_1d = 1u << refinements;
        std::array<unsigned int, dim> x;
        for (unsigned int d = 0; d < dim; ++d)
        {
          x[d] = degree * static_cast<unsigned int>(cell % n_1d) +
                 local % (degree + 1);
          cell /= n_1d;
          local /= degree + 1;
        }
        return x;
      }

      /** Refinements from @p cell to its first active descendant (0 for an
       *  active cell), following child 0. */
      template <int dim>
      unsigned int
      refinements_below(const typename DoFHandler<dim>::cell_iterator &cell);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
