// GPU::MGConstrainedDoFs: each multigrid level's Dirichlet and
// refinement-edge DoFs, the sets of deal.II's MGConstrainedDoFs, found on
// the set-up threads.
#ifndef dealii_gpu_multigrid_mg_constrained_dofs_h
#define dealii_gpu_multigrid_mg_constrained_dofs_h

#include <deal.II/base/index_set.h>
#include <deal.II/base/subscriptor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/component_mask.h>

#include <set>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    /**
     * The DoFs geometric multigrid treats apart on each level: those on the
     * Dirichlet boundary (make_zero_boundary_constraints()) and those on
     * the faces between a level's cells and coarser cells, the refinement
     * edge (initialize()). The same sets, under the same names, as deal.II's
     * MGConstrainedDoFs, which finds them in serial passes over every level
     * cell (seconds at 1e8 DoFs, while the other cores wait); here each
     * level's cells are shared among n_setup_threads() threads, and the
     * sets do not depend on their number.
     *
     * GPU::MatrixFreeMultigrid, GPU::SparseMatrixMultigrid and
     * GPU::MultigridPreconditioner use this class; GPU::MGTransferMatrixFree
     * and GPU::MGLevelOperator take it or deal.II's. What deal.II's class
     * has besides: level constraints for periodic faces, user constraints,
     * no-normal-flux constraints; a mesh with periodic faces is refused.
     *
     * @code
     * GPU::MGConstrainedDoFs mg_constrained_dofs;
     * mg_constrained_dofs.initialize(dof_handler);
     * mg_constrained_dofs.make_zero_boundary_constraints(dof_handler, {0});
     * GPU::MGTransferMatrixFree<dim, float> transfer(mg_constrained_dofs);
     * @endcode
     */
    class MGConstrainedDoFs : public Subscriptor
    {
    public:
      /** The refinement-edge DoFs of every level (none on a uniformly
       *  refined mesh); forgets the boundary DoFs. Needs the level DoFs
       *  (distribute_mg_dofs()). */
      template <int dim, int spacedim>
      void initialize(const DoFHandler<dim, spacedim> &dof_handler);

      /**
       * Adds the DoFs of every level on the faces with these boundary ids,
       * of the components in @p component_mask (all if empty). On a
       * distributed mesh, the faces of the cells that are locally owned
       * or ghosts on the level.
       */
      template <int dim, int spacedim>
      void make_zero_boundary_constraints(
          const DoFHandler<dim, spacedim>    &dof_handler,
          const std::set<types::boundary_id> &boundary_ids,
          const ComponentMask                &component_mask = ComponentMask());

      void clear();

      /** Whether make_zero_boundary_constraints() was called. */
      bool have_boundary_indices() const;

      const IndexSet &get_boundary_indices(const unsigned int level) const;

      const IndexSet &
      get_refinement_edge_indices(const unsigned int level) const;

      bool is_boundary_index(const unsigned int            level,
                             const types::global_dof_index index) const;

      bool at_refinement_edge(const unsigned int            level,
                              const types::global_dof_index index) const;

    private:
      std::vector<IndexSet> boundary_indices;
      std::vector<IndexSet> refinement_edge_indices;
    };
  } // namespace GPU
} // namespace dealii

#endif
