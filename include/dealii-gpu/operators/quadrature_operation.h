// What a user writes for GPU::MatrixFreeOperator: the operation at one
// quadrature point, once, for deal.II's CPU FEEvaluation and for
// GPU::FEEvaluation; and the cell functors that run it on GPU::MatrixFree.
#ifndef dealii_gpu_operators_quadrature_operation_h
#define dealii_gpu_operators_quadrature_operation_h

#include <dealii-gpu/matrix_free/fe_evaluation.h>

#include <deal.II/matrix_free/evaluation_flags.h>

#include <type_traits>

/**
 * Put before `template <typename Evaluator>` of a function that is called
 * both with deal.II's FEEvaluation (host only) and with GPU::FEEvaluation
 * (host and device), and that is itself DEAL_II_GPU_HOST_DEVICE: nvcc then
 * checks the call's execution space per instantiation instead of warning
 * about the host one. Empty outside nvcc.
 */
#ifdef __CUDACC__
#  define DEAL_II_GPU_PORTABLE_TEMPLATE _Pragma("nv_exec_check_disable")
#else
#  define DEAL_II_GPU_PORTABLE_TEMPLATE
#endif

namespace dealii
{
  namespace GPU
  {
    /**
     * EvaluationFlags combined in a constant expression (deal.II's
     * operator| is not constexpr), for an operation's
     * `static constexpr EvaluationFlags::EvaluationFlags evaluation_flags`.
     */
    constexpr EvaluationFlags::EvaluationFlags combined_flags(
        const EvaluationFlags::EvaluationFlags a,
        const EvaluationFlags::EvaluationFlags b = EvaluationFlags::nothing)
    {
      return static_cast<EvaluationFlags::EvaluationFlags>(
          static_cast<unsigned int>(a) | static_cast<unsigned int>(b));
    }

    namespace internal
    {
      constexpr bool has_values(const EvaluationFlags::EvaluationFlags f)
      {
        return (static_cast<unsigned int>(f) & EvaluationFlags::values) != 0;
      }

      constexpr bool has_gradients(const EvaluationFlags::EvaluationFlags f)
      {
        return (static_cast<unsigned int>(f) & EvaluationFlags::gradients) != 0;
      }

      // Operation::integration_flags, else its evaluation_flags.
      template <typename Operation, typename = void>
      struct integration_flags_of
      {
        static constexpr EvaluationFlags::EvaluationFlags value =
            Operation::evaluation_flags;
      };
      template <typename Operation>
      struct integration_flags_of<
          Operation,
          std::void_t<decltype(Operation::integration_flags)>>
      {
        static constexpr EvaluationFlags::EvaluationFlags value =
            Operation::integration_flags;
      };

      // Operation::uses_quadrature_points, false where it does not say.
      template <typename Operation, typename = void>
      struct uses_quadrature_points : std::false_type
      {
      };
      template <typename Operation>
      struct uses_quadrature_points<
          Operation,
          std::void_t<decltype(Operation::uses_quadrature_points)>>
          : std::bool_constant<Operation::uses_quadrature_points>
      {
      };

      // Operation::is_symmetric, false where it does not say.
      template <typename Operation, typename = void>
      struct is_symmetric : std::false_type
      {
      };
      template <typename Operation>
      struct is_symmetric<Operation,
                          std::void_t<decltype(Operation::is_symmetric)>>
          : std::bool_constant<Operation::is_symmetric>
      {
      };

      // Whether the operation gives its transpose by `adjoint()`.
      template <typename Operation, typename = void>
      struct has_adjoint : std::false_type
      {
      };
      template <typename Operation>
      struct has_adjoint<
          Operation,
          std::void_t<decltype(std::declval<const Operation &>().adjoint())>>
          : std::true_type
      {
      };
    } // namespace internal

    /**
     * The cell functor GPU::MatrixFree::cell_loop() runs for a quadrature
     * operation: read, evaluate what the operation's evaluation_flags ask
     * for, call the operation at every point, integrate what
     * integration_flags ask for, add into dst. How the cell's threads are
     * laid out (one per point or one per cell) is the cell loop's choice;
     * the operation never sees it.
     */
    template <int dim,
              int degree,
              int n_q_1d,
              int n_comp,
              typename Number,
              typename Operation>
    struct QuadratureOperationCell
    {
      static constexpr unsigned int fe_degree     = degree;
      static constexpr unsigned int n_q_points_1d = n_q_1d;
      static constexpr unsigned int n_components  = n_comp;
      // Whether the operation reads geometry (MatrixFree::release_geometry()).
      static constexpr bool uses_geometry =
          internal::functor_uses_geometry<Operation>::value;

      Operation operation;

      DEAL_II_GPU_HOST_DEVICE void
      operator()(const TeamMember                  &team,
                 const unsigned int                 cell,
                 const MatrixFreeData<dim, Number> &data,
                 const Number                      *src,
                 Number                            *dst) const
      {
        constexpr auto eval  = Operation::evaluation_flags;
        constexpr auto integ = internal::integration_flags_of<Operation>::value;
        FEEvaluation<dim, degree, n_q_1d, n_comp, Number> phi(team, cell, data);
        phi.read_dof_values(src);
        phi.evaluate(internal::has_values(eval), internal::has_gradients(eval));
        const Operation op = operation;
        phi.apply_for_each_quad_point([&](auto &p, const unsigned int q)
                                      { op(p, q); });
        phi.integrate(internal::has_values(integ),
                      internal::has_gradients(integ));
        phi.distribute_local_to_global(dst);
      }
    };

    /** dst += the diagonal of the cell matrices of a quadrature operation
     *  (FEEvaluation::compute_diagonal(); src is not read). */
    template <int dim,
              int degree,
              int n_q_1d,
              int n_comp,
              typename Number,
              typename Operation>
    struct QuadratureOperationDiagonalCell
    {
      static constexpr unsigned int fe_degree         = degree;
      static constexpr unsigned int n_q_points_1d     = n_q_1d;
      static constexpr unsigned int n_components      = n_comp;
      static constexpr bool         computes_diagonal = true;
      // Whether the operation reads geometry (MatrixFree::release_geometry()).
      static constexpr bool uses_geometry =
          internal::functor_uses_geometry<Operation>::value;

      Operation operation;

      DEAL_II_GPU_HOST_DEVICE void
      operator()(const TeamMember                  &team,
                 const unsigned int                 cell,
                 const MatrixFreeData<dim, Number> &data,
                 const Number *,
                 Number *dst) const
      {
        constexpr auto eval  = Operation::evaluation_flags;
        constexpr auto integ = internal::integration_flags_of<Operation>::value;
        FEEvaluation<dim, degree, n_q_1d, n_comp, Number> phi(team, cell, data);
        const Operation                                   op = operation;
        phi.compute_diagonal([&](auto &p, const unsigned int q) { op(p, q); },
                             internal::has_values(eval),
                             internal::has_gradients(eval),
                             internal::has_values(integ),
                             internal::has_gradients(integ));
        phi.distribute_local_results(dst);
      }
    };
  } // namespace GPU
} // namespace dealii

#endif
