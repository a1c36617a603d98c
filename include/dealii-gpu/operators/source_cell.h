// GPU::SourceCell: the right-hand side (f, v) as a cell functor on
// GPU::MatrixFree, f given at the quadrature points by a device-callable
// function (hanging nodes resolved and Dirichlet rows skipped by the cell
// loop). Include from .cu files.
#ifndef dealii_gpu_operators_source_cell_h
#define dealii_gpu_operators_source_cell_h

#include <dealii-gpu/matrix_free/fe_evaluation.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

namespace dealii
{
  namespace GPU
  {
    /** f = 1. */
    struct UnitSource
    {
      template <typename Evaluator>
      DEAL_II_GPU_HOST_DEVICE double operator()(const Evaluator &,
                                                const unsigned int) const
      {
        return 1.;
      }
    };

    /**
     * Adds (f, v) of every cell to dst (cell_loop(SourceCell{...}, dst,
     * dst); then set_constrained_values(0, dst) for Dirichlet rows).
     * Source: DEAL_II_GPU_HOST_DEVICE double operator()(const FEEvaluation
     * &phi, unsigned int q) const, the value of f at quadrature point q
     * (phi.quadrature_point(q) needs the points: update_quadrature_points
     * or a geometry computed in the kernel).
     */
    template <int dim, int degree, typename Source = UnitSource>
    struct SourceCell
    {
      static constexpr unsigned int fe_degree     = degree;
      static constexpr unsigned int n_q_points_1d = degree + 1;
      static constexpr unsigned int n_components  = 1;
      Source                        source;

      DEAL_II_GPU_HOST_DEVICE void
      operator()(const TeamMember                  &team,
                 const unsigned int                 cell,
                 const MatrixFreeData<dim, double> &data,
                 const double *,
                 double *dst) const
      {
        FEEvaluation<dim, degree, degree + 1, 1, double> phi(team, cell, data);
        const Source                                     f = source;
        phi.apply_for_each_quad_point([&](auto &p, const unsigned int q)
                                      { p.submit_value(f(p, q), q); });
        phi.integrate(true, false);
        phi.distribute_local_to_global(dst);
      }
    };
  } // namespace GPU
} // namespace dealii

#endif
