// MappingQ's geometry on the device for MappingInfo::reinit(): the
// Lagrange polynomials on the support points at the quadrature points, the
// kernel interpolating a batch of cells' support points to points, inverse
// Jacobians and JxW, and the host's test of a cell for an affine image.
#ifndef dealii_gpu_source_matrix_free_mapping_q_geometry_h
#define dealii_gpu_source_matrix_free_mapping_q_geometry_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>

#include <deal.II/base/point.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/base/utilities.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // The Lagrange polynomials on points_1d at the quadrature points
      // ([q * n_points_1d + i]), their derivatives, and their means over
      // the points (for the cell centers), on the device.
      inline void lagrange_matrices(const std::vector<Point<1>> &points_1d,
                                    const Quadrature<1>         &quadrature,
                                    Array<double>               &values,
                                    Array<double>               &derivatives,
                                    Array<double>               &means)
      {
        const unsigned int n_q_1d = quadrature.size();
        const unsigned int n_1d   = points_1d.size();
        const auto         lagrange =
            Polynomials::generate_complete_Lagrange_basis(points_1d);
        std::vector<double> v(n_q_1d * n_1d), g(v.size()), m(n_1d, 0.), both(2);
        for (unsigned int q = 0; q < n_q_1d; ++q)
          for (unsigned int i = 0; i < n_1d; ++i)
          {
            lagrange[i].value(quadrature.point(q)[0], both);
            v[q * n_1d + i] = both[0];
            g[q * n_1d + i] = both[1];
            m[i] += both[0] / n_q_1d;
          }
        values.copy_from(v);
        derivatives.copy_from(g);
        means.copy_from(m);
      }

      // Interpolates the mapping support points of cells [first, first +
      // n) (X: [(cell - first) n_support + i] dim doubles, lexicographic)
      // to the quadrature points: points (relative to the cell centers
      // where given or kept), inverse Jacobians and JxW, each where its
      // pointer is not nullptr. The 1D matrices hold the
      // Lagrange polynomials on the support points at the quadrature points
      // ([q * n_support_1d + i]) and their means over the points.
      template <int dim, typename Number>
      void interpolate_geometry(const unsigned int first,
                                const unsigned int n,
                                const unsigned int n_support_1d,
                                const unsigned int n_q_1d,
                                const double      *X,
                                const double      *values,
                                const double      *derivatives,
                                const double      *means,
                                const double      *weights,
                                const bool         centers_given,
                                Number            *centers,
                                Number            *points,
                                Number            *inverse_jacobian,
                                Number            *JxW)
      {
        const unsigned int n_q       = Utilities::pow(n_q_1d, dim);
        const unsigned int n_support = Utilities::pow(n_support_1d, dim);
        parallel_for(
            "MappingInfo::interpolate_geometry",
            std::size_t(n) * n_q,
            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t k)
            {
              const unsigned int b    = k / n_q;
              const unsigned int q    = k % n_q;
              const std::size_t  cell = std::size_t(first) + b;
              unsigned int       q_1d[dim];
              for (unsigned int d = 0, rest = q; d < dim; ++d, rest /= n_q_1d)
                q_1d[d] = rest % n_q_1d;
              double        x[dim] = {}, center[dim] = {}, J[dim][dim] = {};
              const double *cell_X = X + std::size_t(b) * n_support * dim;
              for (unsigned int i = 0; i < n_support; ++i)
              {
                double v[dim], g[dim], m = 1.;
                for (unsigned int d = 0, rest = i; d < dim;
                     ++d, rest /= n_support_1d)
                {
                  const unsigned int j = rest % n_support_1d;
                  v[d]                 = values[q_1d[d] * n_support_1d + j];
                  g[d] = derivatives[q_1d[d] * n_support_1d + j];
                  m *= means[j];
                }
                double N = 1., dN[dim];
                for (unsigned int e = 0; e < dim; ++e)
                {
                  N *= v[e];
                  dN[e] = g[e];
                  for (unsigned int f = 0; f < dim; ++f)
                    if (f != e)
                      dN[e] *= v[f];
                }
                for (unsigned int d = 0; d < dim; ++d)
                {
                  const double value = cell_X[i * dim + d];
                  x[d] += N * value;
                  center[d] += m * value;
                  for (unsigned int e = 0; e < dim; ++e)
                    J[d][e] += dN[e] * value;
                }
              }
              if (points != nullptr)
                for (unsigned int d = 0; d < dim; ++d)
                {
                  double origin = 0;
                  if (centers != nullptr)
                  {
                    if (centers_given)
                      origin = centers[cell * dim + d];
                    else
                    {
                      origin = center[d];
                      if (q == 0)
                        centers[cell * dim + d] = Number(center[d]);
                    }
                  }
                  points[(cell * dim + d) * n_q + q] = Number(x[d] - origin);
                }
              if (inverse_jacobian != nullptr)
              {
                double inverse[dim][dim], det;
                if constexpr (dim == 2)
                {
                  det           = J[0][0] * J[1][1] - J[0][1] * J[1][0];
                  inverse[0][0] = J[1][1] / det;
                  inverse[0][1] = -J[0][1] / det;
                  inverse[1][0] = -J[1][0] / det;
                  inverse[1][1] = J[0][0] / det;
                }
                else
                {
                  const double c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
                  const double c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
                  const double c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
                  det           = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
                  inverse[0][0] = c00 / det;
                  inverse[1][0] = c01 / det;
                  inverse[2][0] = c02 / det;
                  inverse[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
                  inverse[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
                  inverse[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
                  inverse[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
                  inverse[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
                  inverse[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
                }
                for (unsigned int d = 0; d < dim; ++d)
                  for (unsigned int e = 0; e < dim; ++e)
                    inverse_jacobian[(cell * dim * dim + d * dim + e) * n_q +
                                     q] = Number(inverse[d][e]);
                JxW[cell * n_q + q] = Number(det * weights[q]);
              }
            });
      }

      // Whether the support points X (n_support_1d^dim, lexicographic, at
      // the tensor product of points_1d, from 0 to 1) are an affine image
      // of the reference ones: x0 + J xi with J from the corners next to x0.
      template <int dim>
      bool is_affine(const double                *X,
                     const unsigned int           n_support_1d,
                     const std::vector<Point<1>> &points_1d)
      {
        const unsigned int n_support = Utilities::pow(n_support_1d, dim);
        double             J[dim][dim], scale = 0;
        for (unsigned int e = 0, stride = 1; e < dim;
             ++e, stride *= n_support_1d)
          for (unsigned int d = 0; d < dim; ++d)
          {
            J[d][e] = X[(n_support_1d - 1) * stride * dim + d] - X[d];
            scale   = std::max(scale, std::abs(J[d][e]));
          }
        // deal.II's MatrixFree calls a cell affine at 1e-12 relative.
        const double tolerance = 1e-12 * scale;
        for (unsigned int i = 0; i < n_support; ++i)
        {
          double xi[dim];
          for (unsigned int d = 0, rest = i; d < dim; ++d, rest /= n_support_1d)
            xi[d] = points_1d[rest % n_support_1d][0];
          for (unsigned int d = 0; d < dim; ++d)
          {
            double x = X[d];
            for (unsigned int e = 0; e < dim; ++e)
              x += J[d][e] * xi[e];
            if (std::abs(X[i * dim + d] - x) > tolerance)
              return false;
          }
        }
        return true;
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
