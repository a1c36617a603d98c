// Cell operations of the operator (A(x) grad u, grad v) + (c(x) u, v) for
// GPU::MatrixFree::cell_loop(): A and c are given per quadrature point (see
// GPU::MatrixFree::evaluate_coefficient), or as constants; or, for the
// diffusion term alone, as a merged tensor (LaplaceTensorCell).
#ifndef dealii_gpu_operators_laplace_cell_h
#define dealii_gpu_operators_laplace_cell_h

#include <dealii-gpu/matrix_free/fe_evaluation.h>
#include <dealii-gpu/operators/quadrature_operation.h>

namespace dealii
{
  namespace GPU
  {
    /**
     * Coefficients of (A grad u, grad v) + (c u, v): per quadrature point
     * ([cell * n_q_points + q]) where the pointer is set, else the
     * constant. A zero reaction constant with no array skips the mass term.
     */
    template <typename Number>
    struct LaplaceCoefficients
    {
      const Number *diffusion          = nullptr;
      Number        diffusion_constant = Number(1);
      const Number *reaction           = nullptr;
      Number        reaction_constant  = Number();

      DEAL_II_GPU_HOST_DEVICE bool has_reaction() const
      {
        return reaction != nullptr || reaction_constant != Number();
      }
    };

    /** The operation at one quadrature point (without the mass term if
     *  not @p with_mass). */
    template <bool with_mass = true, typename Number, typename FEEval>
    DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
    laplace_quadrature_operation(const LaplaceCoefficients<Number> &k,
                                 FEEval                            &phi,
                                 const unsigned int                 q)
    {
      const std::size_t index =
          std::size_t(phi.get_cell()) * phi.n_q_points + q;
      const Number a =
          k.diffusion != nullptr ? k.diffusion[index] : k.diffusion_constant;
      phi.submit_gradient(a * phi.get_gradient(q), q);
      if (with_mass && k.has_reaction())
      {
        const Number c =
            k.reaction != nullptr ? k.reaction[index] : k.reaction_constant;
        phi.submit_value(c * phi.get_value(q), q);
      }
    }

    /** dst += A_cell src on every cell. */
    template <int dim,
              int degree,
              int n_comp,
              typename Number,
              int n_q_1d = degree + 1>
    struct LaplaceCell
    {
      static constexpr unsigned int fe_degree     = degree;
      static constexpr unsigned int n_q_points_1d = n_q_1d;
      static constexpr unsigned int n_components  = n_comp;

      LaplaceCoefficients<Number> coefficients;

      DEAL_II_GPU_HOST_DEVICE void
      operator()(const TeamMember                  &team,
                 const unsigned int                 cell,
                 const MatrixFreeData<dim, Number> &data,
                 const Number                      *src,
                 Number                            *dst) const
      {
        // See LaplaceFunctionCell.
        using Evaluation = FEEvaluation<dim, degree, n_q_1d, n_comp, Number>;
        if constexpr (Evaluation::may_run_serially)
          if (team.is_serial() && !coefficients.has_reaction())
          {
            apply<false>(team, cell, data, src, dst);
            return;
          }
        apply<true>(team, cell, data, src, dst);
      }

    private:
      template <bool with_mass>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      apply(const TeamMember                  &team,
            const unsigned int                 cell,
            const MatrixFreeData<dim, Number> &data,
            const Number                      *src,
            Number                            *dst) const
      {
        FEEvaluation<dim, degree, n_q_1d, n_comp, Number> phi(team, cell, data);
        const bool reaction = with_mass && coefficients.has_reaction();
        phi.read_dof_values(src);
        phi.evaluate(reaction, true);
        const LaplaceCoefficients<Number> k = coefficients;
        phi.apply_for_each_quad_point(
            [&](auto &p, const unsigned int q)
            { laplace_quadrature_operation<with_mass>(k, p, q); });
        phi.integrate(reaction, true);
        phi.distribute_local_to_global(dst);
      }
    };

    /**
     * dst += A_cell src for (a(x) grad u, grad v) + c (u, v), with a(x)
     * computed in the kernel at FEEvaluation::quadrature_point(q) by
     * @p Coefficient, a class with `DEAL_II_GPU_HOST_DEVICE Number
     * operator()(const Tensor<1, dim, Number> &x) const` (a Tensor, see
     * FEEvaluation::quadrature_point): no per-point coefficient data, so
     * the operator holds only the
     * geometry (least with GeometryStorage::field).
     */
    template <int dim,
              int degree,
              int n_comp,
              typename Number,
              typename Coefficient,
              int n_q_1d = degree + 1>
    struct LaplaceFunctionCell
    {
      static constexpr unsigned int fe_degree     = degree;
      static constexpr unsigned int n_q_points_1d = n_q_1d;
      static constexpr unsigned int n_components  = n_comp;

      Coefficient coefficient;
      /** c of the mass term; zero skips it. */
      Number reaction_constant = Number();

      DEAL_II_GPU_HOST_DEVICE void
      operator()(const TeamMember                  &team,
                 const unsigned int                 cell,
                 const MatrixFreeData<dim, Number> &data,
                 const Number                      *src,
                 Number                            *dst) const
      {
        // One thread per cell keeps the submitted values in an accumulator
        // of n_q_points registers whenever submit_value() may be called:
        // without the mass term, a cell compiled without that call.
        using Evaluation = FEEvaluation<dim, degree, n_q_1d, n_comp, Number>;
        if constexpr (Evaluation::may_run_serially)
          if (team.is_serial() && reaction_constant == Number())
          {
            apply<false>(team, cell, data, src, dst);
            return;
          }
        apply<true>(team, cell, data, src, dst);
      }

    private:
      template <bool with_mass>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      apply(const TeamMember                  &team,
            const unsigned int                 cell,
            const MatrixFreeData<dim, Number> &data,
            const Number                      *src,
            Number                            *dst) const
      {
        FEEvaluation<dim, degree, n_q_1d, n_comp, Number> phi(team, cell, data);
        const bool reaction = with_mass && reaction_constant != Number();
        phi.read_dof_values(src);
        phi.evaluate(reaction, true);
        const Coefficient a = coefficient;
        const Number      c = reaction_constant;
        phi.apply_for_each_quad_point(
            [&](auto &p, const unsigned int q)
            {
              p.submit_gradient(a(p.quadrature_point(q)) * p.get_gradient(q),
                                q);
              if constexpr (with_mass)
                if (reaction)
                  p.submit_value(c * p.get_value(q), q);
            });
        phi.integrate(reaction, true);
        phi.distribute_local_to_global(dst);
      }
    };

    /** At one quadrature point, submit G grad_ref u for each component,
     *  G the point's merged tensor (MatrixFree::evaluate_diffusion_tensor():
     *  entries (0,0), (1,1), [(2,2)], (0,1), ..., n_q apart). */
    template <int dim, int n_comp, typename Number, typename FEEval>
    DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
    diffusion_tensor_quadrature_operation(const Number      *cell_tensor,
                                          FEEval            &phi,
                                          const unsigned int q)
    {
      Number       G[dim][dim];
      unsigned int entry = 0;
      for (unsigned int offset = 0; offset < dim; ++offset)
        for (unsigned int d = 0; d + offset < dim; ++d, ++entry)
        {
          G[d][d + offset] = cell_tensor[entry * FEEval::n_q_points + q];
          G[d + offset][d] = G[d][d + offset];
        }
      const typename FEEval::gradient_type g = phi.get_reference_gradient(q);
      typename FEEval::gradient_type       result;
      for (unsigned int c = 0; c < n_comp; ++c)
        for (unsigned int d = 0; d < dim; ++d)
        {
          Number sum = 0;
          for (unsigned int e = 0; e < dim; ++e)
            sum += G[d][e] * FEEval::component(g, c)[e];
          FEEval::component(result, c)[d] = sum;
        }
      phi.submit_reference_gradient(result, q);
    }

    /**
     * The quadrature operation of (a(x) grad u, grad v) from the merged
     * tensor of MatrixFree::evaluate_diffusion_tensor(): per quadrature
     * point dim (dim + 1) / 2 numbers instead of the inverse Jacobian, JxW
     * and the coefficient, so less to read. Reads no geometry
     * (uses_geometry = false), so it runs after
     * MatrixFree::release_geometry(). Each component gets the same tensor.
     */
    template <int dim, int n_comp, typename Number>
    struct DiffusionTensorOperation
    {
      static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
          EvaluationFlags::gradients;
      static constexpr bool uses_geometry = false;

      /** From MatrixFree::evaluate_diffusion_tensor(). */
      const Number *tensor = nullptr;

      template <typename FEEval>
      DEAL_II_GPU_HOST_DEVICE void operator()(FEEval            &phi,
                                              const unsigned int q) const
      {
        constexpr unsigned int n_entries = dim * (dim + 1) / 2;
        diffusion_tensor_quadrature_operation<dim, n_comp>(
            tensor +
                std::size_t(phi.get_cell()) * n_entries * FEEval::n_q_points,
            phi,
            q);
      }
    };

    /** dst += A_cell src from the merged tensor (DiffusionTensorOperation). */
    template <int dim,
              int degree,
              int n_comp,
              typename Number,
              int n_q_1d = degree + 1>
    using LaplaceTensorCell =
        QuadratureOperationCell<dim,
                                degree,
                                n_q_1d,
                                n_comp,
                                Number,
                                DiffusionTensorOperation<dim, n_comp, Number>>;

    /** dst += diagonal of A_cell on every cell from the merged tensor, as
     *  LaplaceTensorCell applies it (src is not read). */
    template <int dim,
              int degree,
              int n_comp,
              typename Number,
              int n_q_1d = degree + 1>
    using LaplaceTensorDiagonalCell = QuadratureOperationDiagonalCell<
        dim,
        degree,
        n_q_1d,
        n_comp,
        Number,
        DiffusionTensorOperation<dim, n_comp, Number>>;

    /** dst += diagonal of A_cell on every cell (src is not read). */
    template <int dim,
              int degree,
              int n_comp,
              typename Number,
              int n_q_1d = degree + 1>
    struct LaplaceDiagonalCell
    {
      static constexpr unsigned int fe_degree         = degree;
      static constexpr unsigned int n_q_points_1d     = n_q_1d;
      static constexpr unsigned int n_components      = n_comp;
      static constexpr bool         computes_diagonal = true;

      LaplaceCoefficients<Number> coefficients;

      DEAL_II_GPU_HOST_DEVICE void
      operator()(const TeamMember                  &team,
                 const unsigned int                 cell,
                 const MatrixFreeData<dim, Number> &data,
                 const Number *,
                 Number *dst) const
      {
        FEEvaluation<dim, degree, n_q_1d, n_comp, Number> phi(team, cell, data);
        const bool reaction                 = coefficients.has_reaction();
        const LaplaceCoefficients<Number> k = coefficients;
        phi.compute_diagonal([&](auto &p, const unsigned int q)
                             { laplace_quadrature_operation(k, p, q); },
                             reaction,
                             true,
                             reaction,
                             true);
        phi.distribute_local_results(dst);
      }
    };
  } // namespace GPU
} // namespace dealii

#endif
