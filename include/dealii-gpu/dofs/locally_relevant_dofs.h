// A level's locally relevant DoFs, deal.II's set, with a faster sort
// (library-internal).
#ifndef dealii_gpu_dofs_locally_relevant_dofs_h
#define dealii_gpu_dofs_locally_relevant_dofs_h

#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The set of DoFTools::extract_locally_relevant_level_dofs(): the
       * owned level DoFs and those of the ghost cells on @p level. The same
       * passes over the ghost cells, but the radix sort of sort_unique()
       * instead of std::sort: about half the time of deal.II's function on
       * a rank's Q4 level.
       */
      template <int dim, int spacedim>
      IndexSet
      locally_relevant_level_dofs(const DoFHandler<dim, spacedim> &dof_handler,
                                  const unsigned int               level);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
