// The evaluator a quadrature-point operation sees when element matrices
// are computed: one trial function at one point.
#ifndef dealii_gpu_integration_point_evaluator_h
#define dealii_gpu_integration_point_evaluator_h

#include <dealii-gpu/base/config.h>

#include <deal.II/base/tensor.h>

#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The interface of GPU::FEEvaluation that quadrature-point operations
       * use (get_value, get_gradient, get_divergence,
       * get_symmetric_gradient, the submit_* calls, quadrature_point), for
       * one shape function of a primitive element at one point: the value
       * @p value in component @p component and zero elsewhere, the physical
       * gradient @p gradient likewise. What the operation submits is kept
       * (without JxW) for the element matrix.
       */
      template <int dim, int n_components, typename Number>
      class PointEvaluator
      {
      public:
        using number_type = Number;
        using value_type  = std::conditional_t<n_components == 1,
                                              Number,
                                              Tensor<1, n_components, Number>>;
        using gradient_type =
            std::conditional_t<n_components == 1,
                               Tensor<1, dim, Number>,
                               Tensor<1, n_components, Tensor<1, dim, Number>>>;

        DEAL_II_GPU_HOST_DEVICE
        PointEvaluator(const Tensor<1, dim, Number> &point,
                       const unsigned int            component,
                       const Number                  value,
                       const Tensor<1, dim, Number> &gradient)
            : point(point), component(component), value(value),
              gradient(gradient)
        {
        }

        DEAL_II_GPU_HOST_DEVICE value_type get_value(const unsigned int) const
        {
          if constexpr (n_components == 1)
            return value;
          else
          {
            value_type v;
            v[component] = value;
            return v;
          }
        }

        DEAL_II_GPU_HOST_DEVICE gradient_type
        get_gradient(const unsigned int) const
        {
          if constexpr (n_components == 1)
            return gradient;
          else
          {
            gradient_type g;
            g[component] = gradient;
            return g;
          }
        }

        DEAL_II_GPU_HOST_DEVICE Number get_divergence(const unsigned int) const
        {
          static_assert(n_components == dim, "divergence needs dim components");
          return gradient[component];
        }

        DEAL_II_GPU_HOST_DEVICE Tensor<2, dim, Number>
                                get_symmetric_gradient(const unsigned int) const
        {
          static_assert(n_components == dim,
                        "symmetric gradient needs dim components");
          Tensor<2, dim, Number> result;
          for (unsigned int d = 0; d < dim; ++d)
          {
            result[component][d] += Number(0.5) * gradient[d];
            result[d][component] += Number(0.5) * gradient[d];
          }
          return result;
        }

        DEAL_II_GPU_HOST_DEVICE Tensor<1, dim, Number>
                                quadrature_point(const unsigned int) const
        {
          return point;
        }

        DEAL_II_GPU_HOST_DEVICE void submit_value(const value_type &v,
                                                  const unsigned int)
        {
          submitted_value = v;
        }

        DEAL_II_GPU_HOST_DEVICE void submit_gradient(const gradient_type &g,
                                                     const unsigned int)
        {
          submitted_gradient = g;
        }

        DEAL_II_GPU_HOST_DEVICE void
        submit_symmetric_gradient(const Tensor<2, dim, Number> &t,
                                  const unsigned int)
        {
          static_assert(n_components == dim, "needs dim components");
          for (unsigned int d = 0; d < dim; ++d)
            for (unsigned int e = 0; e < dim; ++e)
              submitted_gradient[d][e] = Number(0.5) * (t[d][e] + t[e][d]);
        }

        DEAL_II_GPU_HOST_DEVICE void submit_divergence(const Number div,
                                                       const unsigned int)
        {
          static_assert(n_components == dim, "needs dim components");
          for (unsigned int d = 0; d < dim; ++d)
            for (unsigned int e = 0; e < dim; ++e)
              submitted_gradient[d][e] = d == e ? div : Number();
        }

        /** Component c of what was submitted as value. */
        DEAL_II_GPU_HOST_DEVICE Number
        submitted_value_component(const unsigned int c) const
        {
          if constexpr (n_components == 1)
            return submitted_value;
          else
            return submitted_value[c];
        }

        /** Derivative d of component c of what was submitted as gradient. */
        DEAL_II_GPU_HOST_DEVICE Number submitted_gradient_component(
            const unsigned int c, const unsigned int d) const
        {
          if constexpr (n_components == 1)
            return submitted_gradient[d];
          else
            return submitted_gradient[c][d];
        }

      private:
        Tensor<1, dim, Number> point;
        unsigned int           component;
        Number                 value;
        Tensor<1, dim, Number> gradient;
        value_type             submitted_value{};
        gradient_type          submitted_gradient{};
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
