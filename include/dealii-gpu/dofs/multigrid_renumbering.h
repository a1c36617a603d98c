// Numberings of the active and level DoFs of a multigrid hierarchy for the
// sparse-matrix multigrid's experiments (Geveler et al.'s HIE and 2LV
// orderings, ../shared/papers/001): by the refinement tree, and two-level.
#ifndef dealii_gpu_dofs_multigrid_renumbering_h
#define dealii_gpu_dofs_multigrid_renumbering_h

#include <dealii-gpu/base/config.h>

namespace dealii
{
  template <int dim, int spacedim>
  class DoFHandler;

  namespace GPU
  {
    namespace DoFRenumbering
    {
      /**
       * Number every level's DoFs in the order they first appear when the
       * level's cells are visited depth first through the refinement tree
       * (coarse cells in order, children in order), and the active DoFs as
       * the finest level's. Needs distribute_mg_dofs(), one MPI rank and a
       * uniformly refined mesh (every active cell on the finest level);
       * anything else throws.
       */
      template <int dim>
      void hierarchical_levels(DoFHandler<dim, dim> &dof_handler);

      /**
       * Two-level numbering: level 0 as in hierarchical_levels(); on every
       * finer level first the DoFs that sit at a support point of the next
       * coarser level's DoFs, in that level's order (so that the
       * prolongation starts with an identity block), then the others in
       * the order of hierarchical_levels(); the active DoFs as the finest
       * level's. The element needs support points (FE_Q). The same
       * requirements as hierarchical_levels().
       */
      template <int dim>
      void two_level(DoFHandler<dim, dim> &dof_handler);
    } // namespace DoFRenumbering
  }   // namespace GPU
} // namespace dealii

#endif
