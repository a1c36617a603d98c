// The longer members of GPU::FEEvaluation: the sum-factorization passes
// (evaluate, integrate, the diagonal) and the geometry a kernel computes
// from the points or the mapping field. Included by fe_evaluation.h.
#ifndef dealii_gpu_matrix_free_fe_evaluation_templates_h
#define dealii_gpu_matrix_free_fe_evaluation_templates_h

#include <dealii-gpu/matrix_free/fe_evaluation.h>

namespace dealii
{
  namespace GPU
  {
    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components,
              typename Number>
    template <typename F>
    DEAL_II_GPU_HOST_DEVICE void
    FEEvaluation<dim, fe_degree, n_q_points_1d, n_components, Number>::
        compute_diagonal(const F   &f,
                         const bool evaluate_values,
                         const bool evaluate_gradients,
                         const bool integrate_values,
                         const bool integrate_gradients)
    {
      const bool hanging = data.hanging_masks != nullptr &&
                           (data.hanging_masks[cell] &
                            internal::HangingNodes::constraint_bits) != 0;
      // Both branches hold barriers: decided for the barrier's scope (a
      // warp holds several small cells).
      if (team.is_serial<may_run_serially>() ||
          team.barrier_or<may_run_serially>(hanging))
      {
        for (unsigned int i = 0; i < dofs_per_cell; ++i)
        {
          set_unit_dof_values(i);
          evaluate(evaluate_values, evaluate_gradients);
          apply_for_each_quad_point(f);
          integrate(integrate_values, integrate_gradients);
          store_local_result(i);
        }
        return;
      }
      constexpr unsigned int nq = n_q_points_1d, nd = n_dofs_1d;
      constexpr unsigned int n_1d = nq * nd;
      // [kind * n_1d + q * nd + i]: S S, S G and G G at (q, i), with S the
      // shape functions and G = D S their derivatives (D: collocation).
      Number *products = point_coordinates() +
                         (data.jacobians_from_points ? dim * n_q_points : 0);
      const Number      *sh = shape, *co = collocation;
      const unsigned int sld = shape_ld(), cld = collocation_ld();
      const auto         tabulate = [&](const unsigned int j)
      {
        const unsigned int q = j / nd, i = j % nd;
        Number             d = 0;
        for (unsigned int m = 0; m < nq; ++m)
          d += co[q * cld + m] * sh[m * sld + i];
        const Number s         = sh[q * sld + i];
        products[j]            = s * s;
        products[n_1d + j]     = s * d;
        products[2 * n_1d + j] = d * d;
      };
      team.for_each<may_run_serially>(n_1d, tabulate);
      Number *r = local_results;
      team.for_each<may_run_serially>(dofs_per_cell,
                                      [&](unsigned int i) { r[i] = 0; });
      team.barrier<may_run_serially>();
      Number *v = values, *g = gradients;
      for (unsigned int c = 0; c < n_components; ++c)
        for (unsigned int b = 0; b <= dim; ++b)
        {
          if (b == 0 ? !evaluate_values : !evaluate_gradients)
            continue;
          // Input b of component c is 1 at every point, all others 0.
          team.for_each<may_run_serially>(
              n_components * n_q_points,
              [&](unsigned int j)
              { v[j] = b == 0 && j / n_q_points == c ? Number(1) : Number(); });
          team.for_each<may_run_serially>(n_components * dim * n_q_points,
                                          [&](unsigned int j) {
                                            g[j] = b > 0 && j / n_q_points ==
                                                                c * dim + b - 1
                                                       ? Number(1)
                                                       : Number();
                                          });
          team.barrier<may_run_serially>();
          apply_for_each_quad_point(f);
          // Output a at q is entry (a, b) of the point's linearization;
          // the diagonal takes it times the products of the 1D factors of
          // inputs a and b in each direction.
          for (unsigned int a = 0; a <= dim; ++a)
          {
            if (a == 0 ? !integrate_values : !integrate_gradients)
              continue;
            const Number *m      = a == 0 ? v + c * n_q_points
                                          : g + (c * dim + a - 1) * n_q_points;
            const auto    factor = [&](const unsigned int e) {
              return products +
                     ((a == e + 1 ? 1 : 0) + (b == e + 1 ? 1 : 0)) * n_1d;
            };
            Number *out = r + c * n_dofs_per_component;
            if constexpr (dim == 2)
            {
              internal::contract<0, true, false, may_run_serially>(
                  team, factor(0), nd, nq, m, buffer0, nd, nq, 1);
              internal::contract<1, true, true, may_run_serially>(
                  team, factor(1), nd, nq, buffer0, out, nd, nd, 1);
            }
            else
            {
              internal::contract<0, true, false, may_run_serially>(
                  team, factor(0), nd, nq, m, buffer0, nd, nq, nq);
              internal::contract<1, true, false, may_run_serially>(
                  team, factor(1), nd, nq, buffer0, buffer1, nd, nd, nq);
              internal::contract<2, true, true, may_run_serially>(
                  team, factor(2), nd, nq, buffer1, out, nd, nd, nd);
            }
          }
        }
    }

    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components,
              typename Number>
    DEAL_II_GPU_HOST_DEVICE void
    FEEvaluation<dim, fe_degree, n_q_points_1d, n_components, Number>::evaluate(
        const bool evaluate_values, const bool evaluate_gradients)
    {
      (void)evaluate_values;
      constexpr unsigned int nq = n_q_points_1d;
      for (unsigned int c = 0; c < n_components; ++c)
      {
        Number *v = values + c * n_q_points;
        interpolate_to_quadrature(v);
        // A serial team computes each gradient where it is asked for.
        if (evaluate_gradients && !team.is_serial<may_run_serially>())
        {
          Number            *g   = gradients + c * dim * n_q_points;
          const Number      *co  = collocation;
          const unsigned int cld = collocation_ld();
          team.for_each<may_run_serially>(
              nq,
              nq,
              dim == 3 ? nq : 1,
              [&](unsigned int i, unsigned int j, unsigned int k)
              {
                const unsigned int q  = i + nq * (j + nq * k);
                Number             gx = 0, gy = 0, gz = 0;
                for (unsigned int m = 0; m < nq; ++m)
                {
                  gx += co[i * cld + m] * v[m + nq * (j + nq * k)];
                  gy += co[j * cld + m] * v[i + nq * (m + nq * k)];
                  if (dim == 3)
                    gz += co[k * cld + m] * v[i + nq * (j + nq * m)];
                }
                g[q]              = gx;
                g[n_q_points + q] = gy;
                if (dim == 3)
                  g[2 * n_q_points + q] = gz;
              });
          team.barrier<may_run_serially>();
        }
      }
    }

    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components,
              typename Number>
    DEAL_II_GPU_HOST_DEVICE void
    FEEvaluation<dim, fe_degree, n_q_points_1d, n_components, Number>::
        integrate(const bool integrate_values, const bool integrate_gradients)
    {
      constexpr unsigned int nq = n_q_points_1d, nd = n_dofs_1d;
      for (unsigned int c = 0; c < n_components; ++c)
      {
        Number *v = values + c * n_q_points;
        if (team.is_serial<may_run_serially>())
        {
          // The submitted values and the tested gradients were summed up
          // point by point; start the passes from them.
          Number    *acc = gradients + c * dim * n_q_points;
          const bool iv = integrate_values, ig = integrate_gradients;
          Number    *out = nodes_are_points() ? v : buffer0;
          team.for_each<may_run_serially>(n_q_points,
                                          [&](unsigned int q) {
                                            out[q] = (iv ? acc[q] : Number()) +
                                                     (ig ? acc[n_q_points + q]
                                                         : Number());
                                          });
        }
        else if (integrate_gradients)
        {
          const Number      *g           = gradients + c * dim * n_q_points;
          const Number      *co          = collocation;
          const unsigned int cld         = collocation_ld();
          const bool         with_values = integrate_values;
          // In place where no pass follows: each thread reads v at its
          // own point only.
          Number *out = nodes_are_points() ? v : buffer0;
          team.for_each<may_run_serially>(
              nq,
              nq,
              dim == 3 ? nq : 1,
              [&](unsigned int i, unsigned int j, unsigned int k)
              {
                const unsigned int q   = i + nq * (j + nq * k);
                Number             sum = with_values ? v[q] : Number();
                for (unsigned int m = 0; m < nq; ++m)
                {
                  sum += co[m * cld + i] * g[m + nq * (j + nq * k)];
                  sum +=
                      co[m * cld + j] * g[n_q_points + i + nq * (m + nq * k)];
                  if (dim == 3)
                    sum += co[m * cld + k] *
                           g[2 * n_q_points + i + nq * (j + nq * m)];
                }
                out[q] = sum;
              });
          team.barrier<may_run_serially>();
        }
        if (nodes_are_points())
          continue;
        // The passes start from buffer0 where the gradients were tested
        // (no copy back into v), else from v.
        const bool from_buffer =
            integrate_gradients || team.is_serial<may_run_serially>();
        Number *a = from_buffer ? buffer0 : v;
        Number *b = from_buffer ? buffer1 : buffer0;
        if (dim == 2)
        {
          internal::contract<1, true, false, may_run_serially>(
              team, shape, shape_ld(), nq, a, b, nq, nd, 1);
          internal::contract<0, true, false, may_run_serially>(
              team, shape, shape_ld(), nq, b, v, nd, nd, 1);
        }
        else
        {
          Number *c = from_buffer ? buffer0 : buffer1;
          internal::contract<2, true, false, may_run_serially>(
              team, shape, shape_ld(), nq, a, b, nq, nq, nd);
          internal::contract<1, true, false, may_run_serially>(
              team, shape, shape_ld(), nq, b, c, nq, nd, nd);
          internal::contract<0, true, false, may_run_serially>(
              team, shape, shape_ld(), nq, c, v, nd, nd, nd);
        }
      }
      if (team.is_serial<may_run_serially>())
        clear_accumulators();
    }

    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components,
              typename Number>
    DEAL_II_GPU_HOST_DEVICE void
    FEEvaluation<dim, fe_degree, n_q_points_1d, n_components, Number>::
        interpolate_to_quadrature(Number *v)
    {
      constexpr unsigned int nq = n_q_points_1d, nd = n_dofs_1d;
      if (nodes_are_points())
        return;
      if constexpr (dim == 2)
      {
        internal::contract<0, false, false, may_run_serially>(
            team, shape, shape_ld(), nd, v, buffer0, nq, nd, 1);
        internal::contract<1, false, false, may_run_serially>(
            team, shape, shape_ld(), nd, buffer0, v, nq, nq, 1);
      }
      else
      {
        internal::contract<0, false, false, may_run_serially>(
            team, shape, shape_ld(), nd, v, buffer0, nq, nd, nd);
        internal::contract<1, false, false, may_run_serially>(
            team, shape, shape_ld(), nd, buffer0, buffer1, nq, nq, nd);
        internal::contract<2, false, false, may_run_serially>(
            team, shape, shape_ld(), nd, buffer1, v, nq, nq, nq);
      }
    }

    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components,
              typename Number>
    DEAL_II_GPU_HOST_DEVICE void
    FEEvaluation<dim, fe_degree, n_q_points_1d, n_components, Number>::
        interpolate_geometry_field(Number *x)
    {
      const unsigned int *nodes =
          data.geometry_indices != nullptr
              ? data.geometry_indices + std::size_t(cell) * n_dofs_per_component
              : nullptr;
      const double *field  = data.geometry_field;
      const Number *center = data.cell_centers;
      if constexpr (points_relative_to_cell_centers<Number>())
        center += std::size_t(cell) * dim;
      team.for_each<may_run_serially>(
          dim * n_dofs_per_component,
          [&](unsigned int i)
          {
            const unsigned int d = i / n_dofs_per_component;
            const unsigned int n = i % n_dofs_per_component;
            const unsigned int node =
                (nodes != nullptr ? nodes[n] : dof_entry(n)) &
                ~constrained_dof_flag;
            if constexpr (points_relative_to_cell_centers<Number>())
              x[d * n_q_points + n] = Number(
                  field[std::size_t(node) * dim + d] - double(center[d]));
            else
              x[d * n_q_points + n] = field[std::size_t(node) * dim + d];
          });
      team.barrier<may_run_serially>();
      // Unrolled only where it may run serially (constant scratch
      // indices); elsewhere it would just triple the code to compile.
      if constexpr (may_run_serially)
      {
        DEAL_II_GPU_UNROLL
        for (unsigned int d = 0; d < dim; ++d)
          interpolate_to_quadrature(x + d * n_q_points);
      }
      else
        for (unsigned int d = 0; d < dim; ++d)
          interpolate_to_quadrature(x + d * n_q_points);
    }

    template <int dim,
              int fe_degree,
              int n_q_points_1d,
              int n_components,
              typename Number>
    DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
    FEEvaluation<dim, fe_degree, n_q_points_1d, n_components, Number>::
        compute_point_geometry(const unsigned int q)
    {
      constexpr unsigned int nq  = n_q_points_1d;
      const unsigned int     i   = q % nq;
      const unsigned int     j   = (q / nq) % nq;
      const unsigned int     k   = dim == 3 ? q / (nq * nq) : 0;
      const Number          *x   = point_coordinates();
      const Number          *co  = collocation;
      const unsigned int     cld = collocation_ld();
      Number                 J[dim][dim];
      DEAL_II_GPU_UNROLL
      for (unsigned int c = 0; c < dim; ++c)
      {
        const Number *xc = x + c * n_q_points;
        Number        j0 = 0, j1 = 0, j2 = 0;
        DEAL_II_GPU_UNROLL
        for (unsigned int m = 0; m < nq; ++m)
        {
          j0 += co[i * cld + m] * xc[m + nq * (j + nq * k)];
          j1 += co[j * cld + m] * xc[i + nq * (m + nq * k)];
          if constexpr (dim == 3)
            j2 += co[k * cld + m] * xc[i + nq * (j + nq * m)];
        }
        J[c][0] = j0;
        J[c][1] = j1;
        if constexpr (dim == 3)
          J[c][2] = j2;
      }
      if constexpr (dim == 2)
      {
        point_adjugate[0][0] = J[1][1];
        point_adjugate[0][1] = -J[0][1];
        point_adjugate[1][0] = -J[1][0];
        point_adjugate[1][1] = J[0][0];
        point_det            = J[0][0] * J[1][1] - J[0][1] * J[1][0];
      }
      else
      {
        point_adjugate[0][0] = J[1][1] * J[2][2] - J[1][2] * J[2][1];
        point_adjugate[1][0] = J[1][2] * J[2][0] - J[1][0] * J[2][2];
        point_adjugate[2][0] = J[1][0] * J[2][1] - J[1][1] * J[2][0];
        point_adjugate[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
        point_adjugate[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
        point_adjugate[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
        point_adjugate[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
        point_adjugate[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
        point_adjugate[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
        point_det            = J[0][0] * point_adjugate[0][0] +
                    J[0][1] * point_adjugate[1][0] +
                    J[0][2] * point_adjugate[2][0];
      }
      point_weight      = data.quadrature_weights[q];
      point_inverse_det = internal::reciprocal(point_det);
    }
  } // namespace GPU
} // namespace dealii

#endif
