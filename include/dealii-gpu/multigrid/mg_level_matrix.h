// GPU::assemble_operation_level_matrix: the matrix of a quadrature-point
// operation on one multigrid level, assembled on the device, as the
// Trilinos matrix the host coarse solvers (AMG, direct) take. Include from
// .cu files.
#ifndef dealii_gpu_multigrid_mg_level_matrix_h
#define dealii_gpu_multigrid_mg_level_matrix_h

#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/lac/sparse_matrix.h>

#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/trilinos_sparse_matrix.h>

namespace dealii
{
  namespace GPU
  {
    /**
     * The matrix of @p operation (any operation GPU::MatrixFreeOperator
     * takes, the element FE_Q(k) or FESystem of it with @p n_components
     * components) on @p level of @p dof_handler, with @p level_constraints
     * (the level's boundary DoFs) as identity rows and columns, as the
     * matrix-free level operators hold them. GPU::ElementIntegrator
     * computes the element matrices with @p quadrature and assembles them
     * on the device in double; the result is copied to @p matrix, rows the
     * level's locally owned DoFs. For the coarse levels of multigrids
     * whose operators have no assembled form (GPU::MatrixFreeMultigrid).
     */
    template <int dim, int n_components, typename Operation>
    void assemble_operation_level_matrix(
        const Mapping<dim>              &mapping,
        const DoFHandler<dim>           &dof_handler,
        const AffineConstraints<double> &level_constraints,
        const Operation                 &operation,
        const Quadrature<dim>           &quadrature,
        const unsigned int               level,
        TrilinosWrappers::SparseMatrix  &matrix)
    {
      using Integrator = ElementIntegrator<dim, n_components, double>;
      typename Integrator::AdditionalData data;
      data.mg_level = level;
      Integrator integrator;
      integrator.reinit(mapping, dof_handler, quadrature, data);
      SparseMatrix<double> device_matrix;
      integrator.initialize_matrix(level_constraints, device_matrix);
      integrator.assemble(operation, device_matrix);
      device_matrix.copy_to(matrix);
      // The assembly leaves a constrained row its averaged diagonal; the
      // level operators' is one.
      for (const types::global_dof_index i :
           matrix.locally_owned_range_indices())
        if (level_constraints.is_constrained(i))
          matrix.set(i, i, 1.);
      matrix.compress(VectorOperation::insert);
    }
  } // namespace GPU
} // namespace dealii

#endif
