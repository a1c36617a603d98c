#include <dealii-gpu/matrix_free/shape_info.h>

#include <deal.II/base/polynomial.h>

#include <cmath>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <typename Number>
      template <int dim>
      void
      ShapeInfo<Number>::reinit(const FE_Q<dim>                 &fe,
                                const std::vector<unsigned int> &lexicographic,
                                const Quadrature<1>             &quadrature)
      {
        // Along the x axis the FE_Q functions with lexicographic index
        // (i, 0, 0) are the 1D Lagrange polynomials.
        const unsigned int  n_q_1d    = quadrature.size();
        const unsigned int  n_dofs_1d = fe.degree + 1;
        std::vector<Number> host_shape(n_q_1d * n_dofs_1d);
        for (unsigned int q = 0; q < n_q_1d; ++q)
          for (unsigned int i = 0; i < n_dofs_1d; ++i)
          {
            Point<dim> p;
            p[0]                          = quadrature.point(q)[0];
            host_shape[q * n_dofs_1d + i] = fe.shape_value(lexicographic[i], p);
          }
        shape_values.copy_from(host_shape);
        nodes_are_quadrature_points = n_q_1d == n_dofs_1d;
        for (unsigned int q = 0; q < n_q_1d && nodes_are_quadrature_points; ++q)
          for (unsigned int i = 0; i < n_dofs_1d; ++i)
            if (std::abs(double(host_shape[q * n_dofs_1d + i]) -
                         (q == i ? 1. : 0.)) > 1e-12)
              nodes_are_quadrature_points = false;
        const auto lagrange = Polynomials::generate_complete_Lagrange_basis(
            quadrature.get_points());
        std::vector<Number> host_collocation(n_q_1d * n_q_1d);
        std::vector<double> derivatives(2);
        for (unsigned int q = 0; q < n_q_1d; ++q)
          for (unsigned int j = 0; j < n_q_1d; ++j)
          {
            lagrange[j].value(quadrature.point(q)[0], derivatives);
            host_collocation[q * n_q_1d + j] = derivatives[1];
          }
        collocation_gradients.copy_from(host_collocation);
      }

      template <typename Number>
      std::size_t ShapeInfo<Number>::memory_consumption() const
      {
        return shape_values.memory_consumption() +
               collocation_gradients.memory_consumption();
      }

#define DEALII_GPU_INSTANTIATE(dim, Number)                                    \
  template void ShapeInfo<Number>::reinit(const FE_Q<dim> &,                   \
                                          const std::vector<unsigned int> &,   \
                                          const Quadrature<1> &);
      DEALII_GPU_INSTANTIATE(2, float)
      DEALII_GPU_INSTANTIATE(2, double)
      DEALII_GPU_INSTANTIATE(3, float)
      DEALII_GPU_INSTANTIATE(3, double)
#undef DEALII_GPU_INSTANTIATE
      template class ShapeInfo<float>;
      template class ShapeInfo<double>;
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
