// The provided quadrature-point operations of GPU::MatrixFreeOperator:
// Laplace (scalar or tensor coefficient), mass, Helmholtz,
// convection-diffusion-reaction and linear elasticity. Each is written once
// and runs on deal.II's CPU FEEvaluation and on GPU::FEEvaluation; vector
// fields (n_components > 1) take the same Laplace and mass operations.
#ifndef dealii_gpu_operators_operations_h
#define dealii_gpu_operators_operations_h

#include <dealii-gpu/operators/quadrature_operation.h>

#include <deal.II/base/tensor.h>

#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    /**
     * A coefficient that is the same everywhere: a number, or a
     * Tensor<1, dim> (velocity) or Tensor<2, dim> (diffusion tensor).
     * Operations do not compute quadrature points for it.
     */
    template <typename T>
    struct Constant
    {
      static constexpr bool depends_on_point = false;
      T                     value;
    };

    namespace internal
    {
      // Coefficient::depends_on_point; true for a user's function of x.
      template <typename Coefficient, typename = void>
      struct depends_on_point : std::true_type
      {
      };
      template <typename Coefficient>
      struct depends_on_point<
          Coefficient,
          std::void_t<decltype(Coefficient::depends_on_point)>>
          : std::bool_constant<Coefficient::depends_on_point>
      {
      };

      template <typename... Coefficients>
      constexpr bool any_depends_on_point()
      {
        return (depends_on_point<Coefficients>::value || ...);
      }

      template <typename T>
      struct is_rank_2_tensor : std::false_type
      {
      };
      template <int dim, typename Number>
      struct is_rank_2_tensor<Tensor<2, dim, Number>> : std::true_type
      {
      };

      // A number or tensor in the evaluator's precision (a Constant<double>
      // in a float level operator).
      template <typename Number, typename T>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE auto
      in_precision(const T &value)
      {
        if constexpr (std::is_arithmetic_v<T>)
          return Number(value);
        else
          return Tensor<T::rank, T::dimension, Number>(value);
      }

      // A^T for a tensor, a itself for a number.
      template <typename T>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE T transposed(const T &a)
      {
        if constexpr (is_rank_2_tensor<T>::value)
        {
          T result;
          for (unsigned int d = 0; d < T::dimension; ++d)
            for (unsigned int e = 0; e < T::dimension; ++e)
              result[d][e] = a[e][d];
          return result;
        }
        else
          return a;
      }
    } // namespace internal

    /**
     * The coefficient's value at quadrature point q of @p phi: a Constant's
     * value (in the evaluator's precision), or a function of the point,
     * called with the evaluator's
     * quadrature point (deal.II's Point<dim, VectorizedArray<Number>> on the
     * CPU, Tensor<1, dim, Number> on the GPU). A user's coefficient is a
     * class with
     * `DEAL_II_GPU_PORTABLE_TEMPLATE template <typename Point>
     *  DEAL_II_GPU_HOST_DEVICE auto operator()(const Point &x) const`.
     */
    DEAL_II_GPU_PORTABLE_TEMPLATE
    template <typename Coefficient, typename Evaluator>
    DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE auto
    coefficient_value(const Coefficient &coefficient,
                      const Evaluator   &phi,
                      const unsigned int q)
    {
      if constexpr (internal::depends_on_point<Coefficient>::value)
        return coefficient(phi.quadrature_point(q));
      else
        return internal::in_precision<typename Evaluator::number_type>(
            coefficient.value);
    }

    /**
     * |x|^2 of a quadrature point of either evaluator (deal.II's
     * Point<dim, VectorizedArray<Number>> or a Tensor<1, dim, Number>), in
     * the point's number type: for coefficients written once.
     */
    DEAL_II_GPU_PORTABLE_TEMPLATE
    template <typename Point>
    DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE auto
    squared_norm(const Point &x)
    {
      auto r2 = x[0] * x[0];
      for (unsigned int d = 1; d < Point::dimension; ++d)
        r2 += x[d] * x[d];
      return r2;
    }

    /**
     * (A grad u, grad v): A a number, a symmetric Tensor<2, dim> (scalar
     * fields only), or a function of x giving either. With n_components >
     * 1 the vector Laplacian, each component with the same number A.
     */
    template <typename Diffusion = Constant<double>>
    struct LaplaceOperation
    {
      static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
          EvaluationFlags::gradients;
      static constexpr bool uses_quadrature_points =
          internal::any_depends_on_point<Diffusion>();
      static constexpr bool is_symmetric = true;

      Diffusion diffusion;

      DEAL_II_GPU_PORTABLE_TEMPLATE
      template <typename Evaluator>
      DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                              const unsigned int q) const
      {
        phi.submit_gradient(
            coefficient_value(diffusion, phi, q) * phi.get_gradient(q), q);
      }
    };

    /** (c u, v); with n_components > 1 the vector mass matrix. */
    template <typename Reaction = Constant<double>>
    struct MassOperation
    {
      static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
          EvaluationFlags::values;
      static constexpr bool uses_quadrature_points =
          internal::any_depends_on_point<Reaction>();
      static constexpr bool is_symmetric = true;

      Reaction reaction;

      DEAL_II_GPU_PORTABLE_TEMPLATE
      template <typename Evaluator>
      DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                              const unsigned int q) const
      {
        phi.submit_value(coefficient_value(reaction, phi, q) * phi.get_value(q),
                         q);
      }
    };

    /** (A grad u, grad v) + (c u, v), the weak form of -div(A grad u) + c
     *  u (A as in LaplaceOperation). */
    template <typename Diffusion = Constant<double>,
              typename Reaction  = Constant<double>>
    struct HelmholtzOperation
    {
      static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
          combined_flags(EvaluationFlags::values, EvaluationFlags::gradients);
      static constexpr bool uses_quadrature_points =
          internal::any_depends_on_point<Diffusion, Reaction>();
      static constexpr bool is_symmetric = true;

      Diffusion diffusion;
      Reaction  reaction;

      DEAL_II_GPU_PORTABLE_TEMPLATE
      template <typename Evaluator>
      DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                              const unsigned int q) const
      {
        phi.submit_gradient(
            coefficient_value(diffusion, phi, q) * phi.get_gradient(q), q);
        phi.submit_value(coefficient_value(reaction, phi, q) * phi.get_value(q),
                         q);
      }
    };

    /**
     * (A grad u, grad v) + (b . grad u, v) + (r u, v) for a scalar field: A
     * a number or any Tensor<2, dim> (not necessarily symmetric), b a
     * Tensor<1, dim>, r a number, each constant or a function of x. Not
     * symmetric (solve with GMRES); adjoint() gives the transpose,
     * (A^T grad u + b u, grad v) + (r u, v), for Tvmult.
     */
    template <typename Diffusion, typename Velocity, typename Reaction>
    struct ConvectionDiffusionAdjoint;

    template <typename Diffusion, typename Velocity, typename Reaction>
    struct ConvectionDiffusionOperation
    {
      static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
          combined_flags(EvaluationFlags::values, EvaluationFlags::gradients);
      static constexpr bool uses_quadrature_points =
          internal::any_depends_on_point<Diffusion, Velocity, Reaction>();

      Diffusion diffusion;
      Velocity  velocity;
      Reaction  reaction;

      DEAL_II_GPU_PORTABLE_TEMPLATE
      template <typename Evaluator>
      DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                              const unsigned int q) const
      {
        const auto grad = phi.get_gradient(q);
        const auto b    = coefficient_value(velocity, phi, q);
        auto       bu   = b[0] * grad[0];
        for (unsigned int d = 1; d < grad.dimension; ++d)
          bu += b[d] * grad[d];
        phi.submit_gradient(coefficient_value(diffusion, phi, q) * grad, q);
        phi.submit_value(
            coefficient_value(reaction, phi, q) * phi.get_value(q) + bu, q);
      }

      /** The transpose of this operation (for Tvmult). */
      ConvectionDiffusionAdjoint<Diffusion, Velocity, Reaction> adjoint() const
      {
        return {diffusion, velocity, reaction};
      }
    };

    /** The transpose of ConvectionDiffusionOperation:
     *  (A^T grad u + b u, grad v) + (r u, v). */
    template <typename Diffusion, typename Velocity, typename Reaction>
    struct ConvectionDiffusionAdjoint
    {
      static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
          combined_flags(EvaluationFlags::values, EvaluationFlags::gradients);
      static constexpr bool uses_quadrature_points =
          internal::any_depends_on_point<Diffusion, Velocity, Reaction>();

      Diffusion diffusion;
      Velocity  velocity;
      Reaction  reaction;

      DEAL_II_GPU_PORTABLE_TEMPLATE
      template <typename Evaluator>
      DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                              const unsigned int q) const
      {
        const auto u = phi.get_value(q);
        const auto b = coefficient_value(velocity, phi, q);
        auto flux = internal::transposed(coefficient_value(diffusion, phi, q)) *
                    phi.get_gradient(q);
        for (unsigned int d = 0; d < flux.dimension; ++d)
          flux[d] += b[d] * u;
        phi.submit_gradient(flux, q);
        phi.submit_value(coefficient_value(reaction, phi, q) * u, q);
      }
    };

    /**
     * The right-hand side (f, v) of a scalar field, f a number or a
     * function of x: apply it with MatrixFreeOperator::apply_operation() to
     * a zero vector to get b_i = (f, phi_i), hanging nodes condensed and
     * constrained rows zero.
     */
    template <typename Source = Constant<double>>
    struct SourceOperation
    {
      static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
          EvaluationFlags::nothing;
      static constexpr EvaluationFlags::EvaluationFlags integration_flags =
          EvaluationFlags::values;
      static constexpr bool uses_quadrature_points =
          internal::any_depends_on_point<Source>();

      Source source;

      DEAL_II_GPU_PORTABLE_TEMPLATE
      template <typename Evaluator>
      DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                              const unsigned int q) const
      {
        phi.submit_value(coefficient_value(source, phi, q), q);
      }
    };

    /**
     * Linear elasticity, (2 mu eps(u) + lambda div(u) I, eps(v)) with the
     * Lame parameters lambda and mu (numbers or functions of x), for
     * FESystem(FE_Q(k), dim).
     */
    template <typename Lambda = Constant<double>,
              typename Mu     = Constant<double>>
    struct ElasticityOperation
    {
      static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
          EvaluationFlags::gradients;
      static constexpr bool uses_quadrature_points =
          internal::any_depends_on_point<Lambda, Mu>();
      static constexpr bool is_symmetric = true;

      Lambda lambda;
      Mu     mu;

      DEAL_II_GPU_PORTABLE_TEMPLATE
      template <typename Evaluator>
      DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                              const unsigned int q) const
      {
        const auto mu_q   = coefficient_value(mu, phi, q);
        const auto two_mu = mu_q + mu_q;
        const auto lambda_div =
            coefficient_value(lambda, phi, q) * phi.get_divergence(q);
        auto stress = two_mu * phi.get_symmetric_gradient(q);
        for (unsigned int d = 0; d < stress.dimension; ++d)
          stress[d][d] += lambda_div;
        phi.submit_symmetric_gradient(stress, q);
      }
    };
  } // namespace GPU
} // namespace dealii

#endif
