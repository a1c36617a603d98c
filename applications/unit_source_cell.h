// The right-hand side (1, v) of the applications, as a cell functor on
// GPU::MatrixFree (hanging nodes resolved by the cell loop). Include from
// .cu files.
#ifndef dealii_gpu_applications_unit_source_cell_h
#define dealii_gpu_applications_unit_source_cell_h

#include <dealii-gpu/matrix_free/fe_evaluation.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

namespace Applications
{
  using namespace dealii;

  template <int dim, int degree>
  struct UnitSourceCell
  {
    static constexpr unsigned int fe_degree     = degree;
    static constexpr unsigned int n_q_points_1d = degree + 1;
    static constexpr unsigned int n_components  = 1;

    DEAL_II_GPU_HOST_DEVICE void
    operator()(const GPU::TeamMember                  &team,
               const unsigned int                      cell,
               const GPU::MatrixFreeData<dim, double> &data,
               const double *,
               double *dst) const
    {
      GPU::FEEvaluation<dim, degree, degree + 1, 1, double> phi(
          team, cell, data);
      phi.apply_for_each_quad_point([&](auto &p, const unsigned int q)
                                    { p.submit_value(1., q); });
      phi.integrate(true, false);
      phi.distribute_local_to_global(dst);
    }
  };
} // namespace Applications

#endif
