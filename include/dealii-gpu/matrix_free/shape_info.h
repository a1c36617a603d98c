// The 1D shape data of GPU::MatrixFree's sum factorization.
#ifndef dealii_gpu_matrix_free_shape_info_h
#define dealii_gpu_matrix_free_shape_info_h

#include <dealii-gpu/base/memory.h>

#include <deal.II/base/quadrature.h>
#include <deal.II/fe/fe_q.h>

#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * Values of the 1D Lagrange polynomials of FE_Q(degree) (on its
       * support points, lexicographic) at the 1D quadrature points,
       * [q (degree + 1) + i], and the derivatives of the Lagrange basis on
       * the quadrature points at those points, [q n_q_points_1d + j]
       * (collocation: gradients are taken at the quadrature points).
       */
      template <typename Number>
      class ShapeInfo
      {
      public:
        /** @p lexicographic: the hierarchic index of each lexicographic
         *  one. */
        template <int dim>
        void reinit(const FE_Q<dim>                 &fe,
                    const std::vector<unsigned int> &lexicographic,
                    const Quadrature<1>             &quadrature);

        std::size_t memory_consumption() const;

        Array<Number> shape_values;
        Array<Number> collocation_gradients;
        /** The quadrature points are the support points (Gauss-Lobatto
         *  with degree + 1 points): shape_values is the identity. */
        bool nodes_are_quadrature_points = false;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
