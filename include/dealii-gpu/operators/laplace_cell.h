// Cell operation of the operator (A(x) grad u, grad v) + m (u, v) for
// GPU::MatrixFree::cell_loop(); A is given per quadrature point (see
// GPU::MatrixFree::evaluate_coefficient), m is a constant (0: no mass term).
#ifndef dealii_gpu_operators_laplace_cell_h
#define dealii_gpu_operators_laplace_cell_h

#include <dealii-gpu/matrix_free/fe_evaluation.h>

namespace dealii
{
  namespace GPU
  {
    template <int dim, int degree, int n_comp, typename Number, int n_q_1d = degree + 1>
    struct LaplaceCell
    {
      static constexpr unsigned int fe_degree     = degree;
      static constexpr unsigned int n_q_points_1d = n_q_1d;
      static constexpr unsigned int n_components  = n_comp;

      /** A at the quadrature points, [cell * n_q_points + q]; null: A = 1. */
      const Number *coefficients = nullptr;
      /** Factor of the mass term. */
      Number mass_factor = Number();

      DEAL_II_GPU_HOST_DEVICE void
      operator()(const TeamMember                  &team,
                 const unsigned int                 cell,
                 const MatrixFreeData<dim, Number> &data,
                 const Number                      *src,
                 Number                            *dst) const
      {
        FEEvaluation<dim, degree, n_q_1d, n_comp, Number> phi(team, cell, data);
        const bool with_mass = mass_factor != Number();
        phi.read_dof_values(src);
        phi.evaluate(with_mass, true);
        const Number *a =
          coefficients != nullptr ? coefficients + std::size_t(cell) * phi.n_q_points : nullptr;
        const Number m = mass_factor;
        phi.apply_for_each_quad_point([&](auto &p, const unsigned int q) {
          if (a != nullptr)
            p.submit_gradient(a[q] * p.get_gradient(q), q);
          else
            p.submit_gradient(p.get_gradient(q), q);
          if (m != Number())
            p.submit_value(m * p.get_value(q), q);
        });
        phi.integrate(with_mass, true);
        phi.distribute_local_to_global(dst);
      }
    };
  } // namespace GPU
} // namespace dealii

#endif
