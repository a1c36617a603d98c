// GPU::FEEvaluation: sum-factorized evaluation and integration on one cell,
// used inside cell functors run by GPU::MatrixFree::cell_loop(). Include
// from .cu files (kernels).
#ifndef dealii_gpu_matrix_free_fe_evaluation_h
#define dealii_gpu_matrix_free_fe_evaluation_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/matrix_free/evaluation_kernels.h>
#include <dealii-gpu/matrix_free/hanging_nodes.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/point.h>
#include <deal.II/base/tensor.h>
#include <deal.II/matrix_free/evaluation_flags.h>

#include <algorithm>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    /**
     * Evaluation of FE_Q(fe_degree) functions (n_components of them, as in
     * FESystem(FE_Q, n)) on one cell at n_q_points_1d^dim Gauss points, with
     * the interface of deal.II's FEEvaluation, inside a cell functor:
     *
     * @code
     * FEEvaluation<dim, degree, degree + 1, 1, double> phi(team, cell, data);
     * phi.read_dof_values(src);
     * phi.evaluate(EvaluationFlags::gradients);
     * phi.apply_for_each_quad_point([&](auto &phi, const unsigned int q) {
     *   phi.submit_gradient(phi.get_gradient(q), q);
     * });
     * phi.integrate(EvaluationFlags::gradients);
     * phi.distribute_local_to_global(dst);
     * @endcode
     *
     * One thread works on each quadrature point; the passes of the sum
     * factorization are separated by team barriers. Values and gradients
     * live in team scratch memory; get_* and submit_* must be called for the
     * quadrature point the thread is working on, i.e. inside
     * apply_for_each_quad_point(). With one thread per cell (CellThreads),
     * the same code runs in one thread that takes every point in turn, as
     * on the host, and the scratch is that thread's own (registers).
     */
    template <int dim,
              int fe_degree,
              int n_q_points_1d = fe_degree + 1,
              int n_components  = 1,
              typename Number   = double>
    class FEEvaluation
    {
    public:
      static_assert(dim == 2 || dim == 3, "dim must be 2 or 3");
      static_assert(fe_degree >= 1, "fe_degree must be at least 1");
      static_assert(n_q_points_1d >= fe_degree + 1,
                    "n_q_points_1d must be at least fe_degree + 1");

      static constexpr unsigned int n_dofs_1d = fe_degree + 1;
      static constexpr unsigned int n_dofs_per_component =
          internal::power(n_dofs_1d, dim);
      static constexpr unsigned int dofs_per_cell =
          n_dofs_per_component * n_components;
      static constexpr unsigned int n_q_points =
          internal::power(n_q_points_1d, dim);
      /** Whether cells of this kind may run one thread per cell
       *  (CellThreads::per_cell); only then is that code compiled. */
      static constexpr bool may_run_serially =
          internal::thread_per_cell_compiled<dim>(n_components, n_q_points_1d);

      /** The scalar type (deal.II's FEEvaluation::number_type). */
      using number_type = Number;
      using value_type  = std::conditional_t<n_components == 1,
                                            Number,
                                            Tensor<1, n_components, Number>>;
      using gradient_type =
          std::conditional_t<n_components == 1,
                             Tensor<1, dim, Number>,
                             Tensor<1, n_components, Tensor<1, dim, Number>>>;

      /** Team scratch this class needs (see cell_loop). */
      static constexpr std::size_t scratch_bytes()
      {
        return internal::cell_scratch_bytes<dim, Number>(
            fe_degree, n_q_points_1d, n_components);
      }

      /**
       * Set up for @p cell: stages the 1D shape data in team scratch and,
       * if the data keep only the quadrature points or the mapping field,
       * the quadrature points, from which apply_for_each_quad_point()
       * computes each point's inverse Jacobian and JxW.
       */
      DEAL_II_GPU_HOST_DEVICE
      FEEvaluation(const TeamMember                  &team,
                   const unsigned int                 cell,
                   const MatrixFreeData<dim, Number> &data)
          : team(team), cell(cell), data(data)
      {
        Number *s     = team.scratch<Number>();
        Number *sh    = s;
        Number *co    = sh + n_q_points_1d * staged_shape_ld;
        values        = co + n_q_points_1d * staged_collocation_ld;
        gradients     = values + n_components * n_q_points;
        buffer0       = gradients + n_components * dim * n_q_points;
        buffer1       = buffer0 + n_q_points;
        local_results = buffer1 + n_q_points;
        const Number *shape_values = data.shape_values;
        const Number *colloc       = data.collocation_gradients;
        if (team.is_serial<may_run_serially>())
        {
          // One thread: read the 1D data where they are used (cached
          // loads), so that they do not hold registers throughout.
          shape       = shape_values;
          collocation = colloc;
          clear_accumulators();
        }
        else
        {
          team.for_each<may_run_serially>(
              n_q_points_1d * n_dofs_1d,
              [&](unsigned int i) {
                sh[i / n_dofs_1d * staged_shape_ld + i % n_dofs_1d] =
                    shape_values[i];
              });
          team.for_each<may_run_serially>(
              n_q_points_1d * n_q_points_1d,
              [&](unsigned int i)
              {
                co[i / n_q_points_1d * staged_collocation_ld +
                   i % n_q_points_1d] = colloc[i];
              });
          shape       = sh;
          collocation = co;
        }
        if (data.jacobians_from_points)
        {
          Number *x = point_coordinates();
          if (data.geometry_field != nullptr)
            interpolate_geometry_field(x);
          else
          {
            const Number *points =
                data.quadrature_points + std::size_t(cell) * dim * n_q_points;
            team.for_each<may_run_serially>(
                dim * n_q_points, [&](unsigned int i) { x[i] = points[i]; });
          }
        }
        team.barrier<may_run_serially>();
      }

      /**
       * Read this cell's DoF values: Dirichlet-constrained DoFs read as
       * zero, DoFs on hanging faces and edges are interpolated from the
       * coarse side.
       */
      DEAL_II_GPU_HOST_DEVICE void read_dof_values(const Number *src)
      {
        Number *v = values;
        team.for_each<may_run_serially>(
            dofs_per_cell,
            [&](unsigned int i)
            {
              const unsigned int index = dof_entry(i);
              // DoF values of component c go to the start of its
              // value slot.
              const unsigned int c = i / n_dofs_per_component;
              v[c * n_q_points + i % n_dofs_per_component] =
                  (index & constrained_dof_flag) != 0 ? Number() : src[index];
            });
        team.barrier<may_run_serially>();
        resolve_hanging_nodes<false>();
      }

      /**
       * Set the DoF values to the unit vector e_i (to compute the
       * operator's diagonal: evaluate, apply, integrate, then
       * store_local_result(i)).
       */
      DEAL_II_GPU_HOST_DEVICE void set_unit_dof_values(const unsigned int i)
      {
        Number *v = values;
        team.for_each<may_run_serially>(
            dofs_per_cell,
            [&](unsigned int j)
            {
              v[(j / n_dofs_per_component) * n_q_points +
                j % n_dofs_per_component] = j == i ? Number(1) : Number();
            });
        team.barrier<may_run_serially>();
        resolve_hanging_nodes<false>();
      }

      /**
       * The diagonal of this cell's matrix of a linear operation at the
       * points, f(*this, q) as in apply_for_each_quad_point(), into the
       * local results (then distribute_local_results()); the flags say
       * what f reads and submits. A team with a thread per point on a cell
       * without hanging nodes probes f with one input at all points at
       * once (a value or one reference derivative: 1 + dim calls of f a
       * component), then contracts each output with the products of the 1D
       * shape functions and their derivatives by sum factorization:
       * O(k^4) work a probe, where unit vectors through evaluate() and
       * integrate() cost O(k^4) a cell DoF. A one-thread team (never in
       * the cell loop: it runs diagonal functors a team per cell) and
       * hanging cells take the unit vectors. Needs the cell loop's
       * diagonal scratch (internal::functor_computes_diagonal).
       */
      template <typename F>
      DEAL_II_GPU_HOST_DEVICE void
      compute_diagonal(const F   &f,
                       const bool evaluate_values,
                       const bool evaluate_gradients,
                       const bool integrate_values,
                       const bool integrate_gradients);

      /** Keep the integrated DoF value i in the cell's local results. */
      DEAL_II_GPU_HOST_DEVICE void store_local_result(const unsigned int i)
      {
        resolve_hanging_nodes<true>();
        const Number *v = values;
        Number       *r = local_results;
        team.for_each<may_run_serially>(
            1,
            [&](unsigned int)
            {
              r[i] = v[(i / n_dofs_per_component) * n_q_points +
                       i % n_dofs_per_component];
            });
        team.barrier<may_run_serially>();
      }

      /**
       * After integrate(): call f(j, index, value) for every local DoF j
       * with its vector index (constrained_dof for a skipped DoF) and its
       * integrated value, with hanging nodes resolved as in
       * distribute_local_to_global(). With set_unit_dof_values(i) before
       * evaluate(), the values are column i of the cell matrix, which is how
       * a sparse matrix is assembled from a cell operation.
       */
      template <typename F>
      DEAL_II_GPU_HOST_DEVICE void for_each_local_result(const F &f)
      {
        resolve_hanging_nodes<true>();
        const Number *v = values;
        team.for_each<may_run_serially>(
            dofs_per_cell,
            [&](unsigned int j)
            {
              f(j,
                reported_index(dof_entry(j)),
                v[(j / n_dofs_per_component) * n_q_points +
                  j % n_dofs_per_component]);
            });
        team.barrier<may_run_serially>();
      }

      /** Vector index of local DoF j (constrained_dof if skipped). */
      DEAL_II_GPU_HOST_DEVICE unsigned int dof_index(const unsigned int j) const
      {
        return reported_index(dof_entry(j));
      }

      /** Add the local results to dst like distribute_local_to_global(). */
      DEAL_II_GPU_HOST_DEVICE void distribute_local_results(Number *dst) const
      {
        const Number *r       = local_results;
        const bool    atomics = data.use_atomics;
        team.for_each<may_run_serially>(
            dofs_per_cell,
            [&](unsigned int i)
            {
              const unsigned int index = dof_entry(i);
              if ((index & constrained_dof_flag) == 0)
              {
                if (atomics)
                  atomic_add(dst + index, r[i]);
                else
                  dst[index] += r[i];
              }
            });
        team.barrier<may_run_serially>();
      }

      /**
       * Values and/or gradients at the quadrature points. deal.II's
       * operators on EvaluationFlags are host functions: combine flags on
       * the host (e.g. in the functor's constructor) or use the overload
       * with two bools inside device code.
       */
      DEAL_II_GPU_HOST_DEVICE void
      evaluate(const EvaluationFlags::EvaluationFlags flags)
      {
        evaluate(internal::has_flag(flags, EvaluationFlags::values),
                 internal::has_flag(flags, EvaluationFlags::gradients));
      }

      /** As above; the form to use in device code. */
      DEAL_II_GPU_HOST_DEVICE void evaluate(const bool evaluate_values,
                                            const bool evaluate_gradients);

      /**
       * Run f(*this, q) for every quadrature point q, then a barrier. Where
       * the Jacobians are computed in the kernel, point q's geometry is
       * computed here and kept for the get_* and submit_* calls of f.
       */
      template <typename F>
      DEAL_II_GPU_HOST_DEVICE void apply_for_each_quad_point(const F &f)
      {
        team.for_each<may_run_serially>(n_q_points,
                                        [&](unsigned int q)
                                        {
                                          if (data.jacobians_from_points)
                                            compute_point_geometry(q);
                                          f(*this, q);
                                        });
        team.barrier<may_run_serially>();
      }

      DEAL_II_GPU_HOST_DEVICE value_type get_value(const unsigned int q) const
      {
        if constexpr (n_components == 1)
          return values[q];
        else
        {
          value_type v;
          for (unsigned int c = 0; c < n_components; ++c)
            v[c] = values[c * n_q_points + q];
          return v;
        }
      }

      /** Gradient in real space: J^{-T} times the reference gradient. */
      DEAL_II_GPU_HOST_DEVICE gradient_type
      get_gradient(const unsigned int q) const
      {
        gradient_type result;
        for (unsigned int c = 0; c < n_components; ++c)
        {
          Number g[dim];
          for (unsigned int d = 0; d < dim; ++d)
            g[d] = reference_derivative(c, d, q);
          for (unsigned int e = 0; e < dim; ++e)
          {
            Number sum = 0;
            for (unsigned int d = 0; d < dim; ++d)
              sum += metric(q, d, e) * g[d];
            // The kernel's own Jacobians: adjugate, then 1 / det(J).
            component(result, c)[e] =
                data.jacobians_from_points ? sum * point_inverse_det : sum;
          }
        }
        return result;
      }

      /**
       * Derivatives along the reference coordinates (d u / d xi_d), without
       * the Jacobian: for operators that bring their own metric, such as a
       * merged tensor from MatrixFree::evaluate_diffusion_tensor().
       */
      DEAL_II_GPU_HOST_DEVICE gradient_type
      get_reference_gradient(const unsigned int q) const
      {
        gradient_type result;
        for (unsigned int c = 0; c < n_components; ++c)
          for (unsigned int d = 0; d < dim; ++d)
            component(result, c)[d] = reference_derivative(c, d, q);
        return result;
      }

      /**
       * Test with the derivatives along the reference coordinates as given
       * (no Jacobian, no JxW): the counterpart of get_reference_gradient().
       */
      DEAL_II_GPU_HOST_DEVICE void
      submit_reference_gradient(const gradient_type &grad, const unsigned int q)
      {
        for (unsigned int c = 0; c < n_components; ++c)
          for (unsigned int d = 0; d < dim; ++d)
            submit_reference_derivative(c, d, q, component(grad, c)[d]);
      }

      /** Divergence (n_components == dim). */
      DEAL_II_GPU_HOST_DEVICE Number get_divergence(const unsigned int q) const
      {
        static_assert(n_components == dim, "divergence needs dim components");
        const gradient_type grad = get_gradient(q);
        Number              div  = 0;
        for (unsigned int d = 0; d < dim; ++d)
          div += grad[d][d];
        return div;
      }

      /** Symmetric gradient (n_components == dim), as a full tensor. */
      DEAL_II_GPU_HOST_DEVICE Tensor<2, dim, Number>
                              get_symmetric_gradient(const unsigned int q) const
      {
        static_assert(n_components == dim,
                      "symmetric gradient needs dim components");
        const gradient_type    grad = get_gradient(q);
        Tensor<2, dim, Number> result;
        for (unsigned int d = 0; d < dim; ++d)
          for (unsigned int e = 0; e < dim; ++e)
            result[d][e] = Number(0.5) * (grad[d][e] + grad[e][d]);
        return result;
      }

      /** Test with value v (multiplied by JxW here). */
      DEAL_II_GPU_HOST_DEVICE void submit_value(const value_type  &v,
                                                const unsigned int q)
      {
        const Number jxw = JxW(q);
        // A serial team still reads the values of later points.
        Number *out = team.is_serial<may_run_serially>() ? gradients : values;
        const unsigned int stride =
            team.is_serial<may_run_serially>() ? dim * n_q_points : n_q_points;
        if constexpr (n_components == 1)
          out[q] = v * jxw;
        else
          for (unsigned int c = 0; c < n_components; ++c)
            out[c * stride + q] = v[c] * jxw;
      }

      /** Test with the gradient g (J^{-1} g JxW in reference space). */
      DEAL_II_GPU_HOST_DEVICE void submit_gradient(const gradient_type &grad,
                                                   const unsigned int   q)
      {
        // J^{-1} JxW = adj(J) w: with the kernel's own Jacobians no
        // determinant is needed here.
        const Number scale = data.jacobians_from_points ? point_weight : JxW(q);
        for (unsigned int c = 0; c < n_components; ++c)
          for (unsigned int d = 0; d < dim; ++d)
          {
            Number sum = 0;
            for (unsigned int e = 0; e < dim; ++e)
              sum += metric(q, d, e) * component(grad, c)[e];
            submit_reference_derivative(c, d, q, sum * scale);
          }
      }

      /** Test with a symmetric tensor (n_components == dim). */
      DEAL_II_GPU_HOST_DEVICE void
      submit_symmetric_gradient(const Tensor<2, dim, Number> &t,
                                const unsigned int            q)
      {
        static_assert(n_components == dim, "needs dim components");
        gradient_type grad;
        for (unsigned int d = 0; d < dim; ++d)
          for (unsigned int e = 0; e < dim; ++e)
            grad[d][e] = Number(0.5) * (t[d][e] + t[e][d]);
        submit_gradient(grad, q);
      }

      /** Test with the divergence (n_components == dim). */
      DEAL_II_GPU_HOST_DEVICE void submit_divergence(const Number       div,
                                                     const unsigned int q)
      {
        static_assert(n_components == dim, "needs dim components");
        gradient_type grad;
        for (unsigned int d = 0; d < dim; ++d)
          for (unsigned int e = 0; e < dim; ++e)
            grad[d][e] = d == e ? div : Number();
        submit_gradient(grad, q);
      }

      DEAL_II_GPU_HOST_DEVICE Number JxW(const unsigned int q) const
      {
        return data.jacobians_from_points
                   ? point_weight * point_det
                   : data.JxW[std::size_t(cell) * n_q_points + q];
      }

      /**
       * The quadrature point q in real space. Needs update_quadrature_points
       * in the MatrixFree data, or GeometryStorage::points or field. A
       * Tensor<1, dim> rather than a Point: deal.II's Point has no device
       * constructors in a deal.II built without CUDA.
       */
      DEAL_II_GPU_HOST_DEVICE Tensor<1, dim, Number>
                              quadrature_point(const unsigned int q) const
      {
        const Number *offsets =
            data.jacobians_from_points != 0
                ? point_coordinates()
                : data.quadrature_points + std::size_t(cell) * dim * n_q_points;
        Tensor<1, dim, Number> p;
        DEAL_II_GPU_UNROLL
        for (unsigned int d = 0; d < dim; ++d)
          if constexpr (points_relative_to_cell_centers<Number>())
            p[d] = data.cell_centers[std::size_t(cell) * dim + d] +
                   offsets[d * n_q_points + q];
          else
            p[d] = offsets[d * n_q_points + q];
        return p;
      }

      /** Cell index (to look up per-cell data such as coefficients). */
      DEAL_II_GPU_HOST_DEVICE unsigned int get_cell() const { return cell; }

      /**
       * Multiply by the test functions and sum over the quadrature points:
       * submitted values and/or gradients, as the flags say.
       */
      DEAL_II_GPU_HOST_DEVICE void
      integrate(const EvaluationFlags::EvaluationFlags flags)
      {
        integrate(internal::has_flag(flags, EvaluationFlags::values),
                  internal::has_flag(flags, EvaluationFlags::gradients));
      }

      /** As above; the form to use in device code. */
      DEAL_II_GPU_HOST_DEVICE void integrate(const bool integrate_values,
                                             const bool integrate_gradients);

      /**
       * Add the cell's contributions to dst (atomically unless the data
       * was built with coloring); constrained DoFs are skipped.
       */
      DEAL_II_GPU_HOST_DEVICE void distribute_local_to_global(Number *dst)
      {
        resolve_hanging_nodes<true>();
        const Number *v       = values;
        const bool    atomics = data.use_atomics;
        team.for_each<may_run_serially>(
            dofs_per_cell,
            [&](unsigned int i)
            {
              const unsigned int index = dof_entry(i);
              if ((index & constrained_dof_flag) == 0)
              {
                const Number contribution =
                    v[(i / n_dofs_per_component) * n_q_points +
                      i % n_dofs_per_component];
                if (atomics)
                  atomic_add(dst + index, contribution);
                else
                  dst[index] += contribution;
              }
            });
        team.barrier<may_run_serially>();
      }

    private:
      // Entry i of this cell's DoF indices (see cell_dof_entry()).
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
      dof_entry(const unsigned int i) const
      {
        // The list's row length known at compile time.
        if (cell >= data.n_structured_cells)
          return data
              .dof_indices[std::size_t(cell - data.dof_indices_first_cell) *
                               dofs_per_cell +
                           i];
        return cell_dof_entry(data, cell, i, fe_degree);
      }

      // The index a user sees for an entry of dof_indices.
      static DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
      reported_index(const unsigned int index)
      {
        return (index & constrained_dof_flag) != 0 ? constrained_dof : index;
      }

      // A serial team (one thread per cell) keeps no gradients of all points:
      // get_gradient() differentiates the values at the point's quadrature
      // lines (collocation), and the submit_* functions add their point's
      // part of integrate() to two sums, held where the gradients of the
      // component would be: submitted values ([0, n_q_points)) and tested
      // gradients ([n_q_points, 2 n_q_points)). That is the least data a
      // thread has to keep in registers.
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void clear_accumulators()
      {
        Number *g = gradients;
        team.for_each<may_run_serially>(n_components * dim * n_q_points,
                                        [&](unsigned int i)
                                        { g[i] = Number(); });
      }

      // d u_c / d xi_d at point q.
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE Number
      reference_derivative(const unsigned int c,
                           const unsigned int d,
                           const unsigned int q) const
      {
        if (!team.is_serial<may_run_serially>())
          return gradients[(c * dim + d) * n_q_points + q];
        constexpr unsigned int nq     = n_q_points_1d;
        const unsigned int     stride = d == 0 ? 1 : d == 1 ? nq : nq * nq;
        const unsigned int     row    = (q / stride) % nq;
        const Number          *v   = values + c * n_q_points + q - row * stride;
        Number                 sum = 0;
        for (unsigned int m = 0; m < nq; ++m)
          sum += collocation[row * collocation_ld() + m] * v[m * stride];
        return sum;
      }

      // Test with t = (J^-1 grad JxW)_d at point q: stored for integrate(),
      // or, for a serial team, its part of integrate() added right away.
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      submit_reference_derivative(const unsigned int c,
                                  const unsigned int d,
                                  const unsigned int q,
                                  const Number       t)
      {
        if (!team.is_serial<may_run_serially>())
        {
          gradients[(c * dim + d) * n_q_points + q] = t;
          return;
        }
        constexpr unsigned int nq     = n_q_points_1d;
        const unsigned int     stride = d == 0 ? 1 : d == 1 ? nq : nq * nq;
        const unsigned int     row    = (q / stride) % nq;
        Number *acc = gradients + (c * dim + 1) * n_q_points + q - row * stride;
        for (unsigned int m = 0; m < nq; ++m)
          acc[m * stride] += collocation[row * collocation_ld() + m] * t;
      }

      // Interpolate the DoF values from the coarse side of hanging faces and
      // edges (transpose: the reverse, before writing).
      template <bool transpose>
      DEAL_II_GPU_HOST_DEVICE void resolve_hanging_nodes()
      {
        if (data.hanging_masks == nullptr)
          return;
        const unsigned int mask = data.hanging_masks[cell];
        if (!team.barrier_or<may_run_serially>(
                (mask & internal::HangingNodes::constraint_bits) != 0))
          return;
        for (unsigned int c = 0; c < n_components; ++c)
          internal::HangingNodes::
              interpolate<dim, n_dofs_1d, transpose, may_run_serially, Number>(
                  team,
                  mask,
                  data.hanging_interpolation,
                  values + c * n_q_points,
                  buffer0);
      }

      // Entry (d, e) of the inverse Jacobian at q, or, where the kernel
      // computes the Jacobians, of its adjugate det(J) J^{-1} (so that
      // each point scales once, not every entry).
      DEAL_II_GPU_HOST_DEVICE Number metric(const unsigned int q,
                                            const unsigned int d,
                                            const unsigned int e) const
      {
        if (data.jacobians_from_points)
          return point_adjugate[d][e];
        // Affine cells: every point reads its cell's first point (the same
        // matrix), so the cell's nine numbers come through the cache once.
        // The index keeps the compile-time entry stride n_q_points (constant
        // offsets from one base): a per-cell layout, or a branch between
        // two, took the Q7 kernel from 32 to 52-56 registers a thread, half
        // the blocks an SM holds, and made it slower.
        return data
            .inverse_jacobian[(std::size_t(cell) * dim * dim + d * dim + e) *
                                  n_q_points +
                              q * (1u - data.affine_cells)];
      }

      // Whether the quadrature points are the nodes, so that the passes
      // between them are the identity and are skipped (Gauss-Lobatto with
      // n_dofs_1d points: a Laplace cell keeps two of its eight passes and
      // barriers, half of its arithmetic).
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE bool
      nodes_are_points() const
      {
        // Not for a one-thread team: its scratch lives in registers only
        // while every index is a compile-time constant, and the skip
        // chooses between arrays at run time (a 2.7 KB stack frame at Q2,
        // BP5 at k = 1, 2 half as fast).
        if constexpr (n_q_points_1d == n_dofs_1d)
          return !team.is_serial<may_run_serially>() &&
                 data.nodes_are_quadrature_points != 0;
        else
          return false;
      }

      // Values at the n_dofs_1d^dim nodes in v (lexicographic) to the
      // quadrature points, in place (v holds n_q_points numbers).
      DEAL_II_GPU_HOST_DEVICE void interpolate_to_quadrature(Number *v);

      // The quadrature points (see quadrature_point())
      // ([d * n_q_points + q]) where the Jacobians are computed in the
      // kernel: after the local results, so evaluate() leaves them.
      DEAL_II_GPU_HOST_DEVICE Number *point_coordinates() const
      {
        return local_results + dofs_per_cell;
      }

      // Gathers the mapping field at this cell's nodes (in float as offsets
      // from the cell center, taken in double) and interpolates it to the
      // quadrature points in x ([d * n_q_points + q]). The nodes are the
      // DoFs (of the first component) unless the data hold a node list.
      DEAL_II_GPU_HOST_DEVICE void interpolate_geometry_field(Number *x);

      // Geometry at point q (see metric()) from the staged points: the
      // points determine the polynomial mapping, so differentiating their
      // interpolant along the quadrature lines through q gives J[c][e] =
      // d x_c / d xi_e exactly. Kept in registers for this point only,
      // which costs far fewer shared-memory accesses than keeping the
      // geometry of all points in scratch (the cell kernels are bound by
      // those at low degree).
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      compute_point_geometry(const unsigned int q);

    public:
      /** Component c of a value or gradient (the object itself for one
       *  component), for code that works on any number of components. */
      template <typename T>
      static DEAL_II_GPU_HOST_DEVICE auto &component(T &t, const unsigned int c)
      {
        if constexpr (n_components == 1)
        {
          (void)c;
          return t;
        }
        else
          return t[c];
      }

    private:
      // Row strides of the 1D shape values ([q][i]) and collocation
      // derivatives ([q][m]) staged in team scratch: odd, so that the
      // threads of a warp at different points of a line, which read
      // different rows, read different banks (8 points a line gave 4-way
      // conflicts). A serial team reads them from the data, unpadded.
      static constexpr unsigned int staged_shape_ld       = n_dofs_1d | 1u;
      static constexpr unsigned int staged_collocation_ld = n_q_points_1d | 1u;

      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
      shape_ld() const
      {
        return team.is_serial<may_run_serially>() ? n_dofs_1d : staged_shape_ld;
      }
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
      collocation_ld() const
      {
        return team.is_serial<may_run_serially>() ? n_q_points_1d
                                                  : staged_collocation_ld;
      }

      const TeamMember                  &team;
      const unsigned int                 cell;
      const MatrixFreeData<dim, Number> &data;
      const Number                      *shape;
      const Number                      *collocation;
      Number                            *values;
      Number                            *gradients;
      Number                            *buffer0;
      Number                            *buffer1;
      Number                            *local_results;
      // Geometry of the point apply_for_each_quad_point() works on, where
      // the Jacobians are computed in the kernel: adj(J) = det(J) J^{-1},
      // det(J), 1 / det(J) and the quadrature weight.
      Number point_adjugate[dim][dim];
      Number point_det;
      Number point_inverse_det;
      Number point_weight;
    };
  } // namespace GPU
} // namespace dealii

#include <dealii-gpu/matrix_free/fe_evaluation.templates.h>

// MatrixFree::cell_loop(), which runs the cell functors written with this
// class: the same include gives both.
#include <dealii-gpu/matrix_free/cell_loop.h>

#endif
