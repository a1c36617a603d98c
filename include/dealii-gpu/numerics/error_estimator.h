#ifndef dealii_gpu_numerics_error_estimator_h
#define dealii_gpu_numerics_error_estimator_h

#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/function.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/vector.h>

#include <functional>
#include <map>
#include <type_traits>
#include <utility>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The estimator on the current device: @p value(i) reads DoF i of the
       * solution, @p available(i) says whether this process holds it.
       */
      template <int dim>
      void kelly_estimate(
          const Mapping<dim>                                   &mapping,
          const DoFHandler<dim>                                &dof_handler,
          const Quadrature<dim - 1>                            &quadrature,
          const std::function<double(types::global_dof_index)> &value,
          const std::function<bool(types::global_dof_index)>   &available,
          dealii::Vector<float>                                &error,
          SetupTimer                                           *timer);

      template <typename VectorType, typename = void>
      struct HasPartitioner : std::false_type
      {
      };

      template <typename VectorType>
      struct HasPartitioner<
          VectorType,
          std::void_t<decltype(std::declval<const VectorType &>()
                                   .get_partitioner()
                                   ->is_ghost_entry(0))>> : std::true_type
      {
      };
    } // namespace internal

    /**
     * deal.II's KellyErrorEstimator with the face integrals on the device:
     * for each active cell K owned here, eta_K^2 = h_K / 24 * sum over the
     * faces F of K of the integral over F of [du/dn]^2 (h_K the cell's
     * diameter, [du/dn] the jump of the normal derivative, zero on the
     * boundary), the default strategy of deal.II 9.4. Faces with hanging
     * nodes are integrated on the finer side, as deal.II does, so the
     * indicators agree with deal.II's to the float they are stored in.
     *
     * The host collects each cell's DoF values and mapping support points
     * and the faces to integrate (no FEFaceValues); the device evaluates
     * the gradients and the geometry at the face quadrature points.
     * Scalar FE_Q(1..8) with MappingQ (MappingQ1, MappingQCache), 2D and
     * 3D, serial or distributed triangulations (the solution must hold the
     * DoFs of the ghost cells: a vector ghosted on the locally relevant
     * DoFs). Not supported: Neumann data, coefficients, component masks,
     * periodic faces.
     *
     * @code
     * GPU::KellyErrorEstimator<dim>::estimate(
     *     mapping, dof_handler, QGauss<dim - 1>(degree + 1), {}, solution,
     *     indicators);
     * @endcode
     */
    template <int dim>
    class KellyErrorEstimator
    {
    public:
      /**
       * deal.II's estimate() for @p solution (any deal.II vector with
       * operator() of a global DoF index) into @p error (resized to the
       * triangulation's active cells; zero on cells not owned here).
       * @p neumann_bc must be empty: every boundary face contributes zero.
       * With @p timer, its steps time the face list, the cells' data and
       * the device's integrals.
       */
      template <typename VectorType>
      static void estimate(
          const Mapping<dim>        &mapping,
          const DoFHandler<dim>     &dof_handler,
          const Quadrature<dim - 1> &quadrature,
          const std::map<types::boundary_id,
                         const Function<dim, typename VectorType::value_type> *>
                                &neumann_bc,
          const VectorType      &solution,
          dealii::Vector<float> &error,
          SetupTimer            *timer = nullptr)
      {
        AssertThrow(neumann_bc.empty(),
                    ExcMessage("GPU::KellyErrorEstimator supports no "
                               "Neumann data: pass an empty map"));
        AssertThrow(
            solution.size() == dof_handler.n_dofs(),
            ExcDimensionMismatch(solution.size(), dof_handler.n_dofs()));
        std::function<bool(types::global_dof_index)> available =
            [](types::global_dof_index) { return true; };
        if constexpr (internal::HasPartitioner<VectorType>::value)
          available = [&solution](const types::global_dof_index i)
          {
            return solution.in_local_range(i) ||
                   (solution.has_ghost_elements() &&
                    solution.get_partitioner()->is_ghost_entry(i));
          };
        internal::kelly_estimate<dim>(
            mapping,
            dof_handler,
            quadrature,
            [&solution](const types::global_dof_index i)
            { return static_cast<double>(solution(i)); },
            available,
            error,
            timer);
      }
    };
  } // namespace GPU
} // namespace dealii

#endif
