// The batched-product strategy of GPU::ElementIntegrator: each cell's
// operand W = D U written to device memory by a team kernel, then all
// element matrices A = W^T U as one batched dense product.
#ifndef dealii_gpu_integration_element_product_kernel_h
#define dealii_gpu_integration_element_product_kernel_h

#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/integration/element_kernels.h>

#include <cstddef>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * Element matrices as products with one shared operand (one
       * component). U is the reference value and derivatives of every
       * function at every point, a K x n matrix (K = n_q (1 + dim), row
       * q (1 + dim) + a, column-major); each cell's operand W = D U, D_q
       * the point's tensor (point_tensor_column(): the operation, the
       * geometry and JxW), has the same layout. Then A = sum_q U_q^T D_q
       * U_q = U^T W, and W^T U, computed for all cells as one batched
       * product (element_matrix_products()), gives A row-major.
       *
       * First D of every point of every cell, a thread a point
       * (PointTensorKernel), then W, a thread an entry column (point,
       * function), adjacent threads on adjacent points so that the writes
       * are contiguous (ProductOperandKernel): two light kernels keep
       * enough threads resident to write W at the memory's bandwidth.
       */
      template <int dim, typename Number, typename Operation>
      struct PointTensorKernel
      {
        Operation                  operation;
        PointGeometry<dim, Number> geometry;
        unsigned int               n_q;
        Number                    *tensors; // D[cell][q], (1 + dim)^2 each

        static constexpr unsigned int n_ab = 1 + dim;

        DEAL_II_GPU_HOST_DEVICE void operator()(const std::size_t p) const
        {
          const unsigned int cell = p / n_q, q = p - std::size_t(cell) * n_q;
          Number             g[PointGeometry<dim, Number>::stride];
          geometry.compute(cell, q, g);
          for (unsigned int b = 0; b < n_ab; ++b)
            point_tensor_column<dim, 1>(
                operation, g, g[dim * dim], 0, b, tensors + p * n_ab * n_ab);
        }
      };

      template <typename Number, unsigned int n_ab>
      struct ProductOperandKernel
      {
        const Number *tensors;   // D[cell][q]
        const Number *reference; // U, K x n_dofs
        unsigned int  n_q, n_dofs;
        Number       *operands; // W of each cell, K x n_dofs

        DEAL_II_GPU_HOST_DEVICE void operator()(const std::size_t e) const
        {
          // e = (cell n_dofs + j) n_q + q.
          const std::size_t  column = e / n_q;
          const unsigned int q      = e - column * n_q;
          const unsigned int j      = column % n_dofs;
          const std::size_t  cell   = column / n_dofs;
          const std::size_t  K      = std::size_t(n_q) * n_ab;
          const Number      *u      = reference + j * K + q * n_ab;
          const Number      *D      = tensors + (cell * n_q + q) * n_ab * n_ab;
          Number            *w      = operands + column * K + q * n_ab;
          Number             uu[n_ab];
          for (unsigned int b = 0; b < n_ab; ++b)
            uu[b] = u[b];
          for (unsigned int a = 0; a < n_ab; ++a)
          {
            Number sum = 0;
            for (unsigned int b = 0; b < n_ab; ++b)
              sum += D[a * n_ab + b] * uu[b];
            w[a] = sum;
          }
        }
      };

      /**
       * matrices[c] (row-major n x n) = W_c^T U for the @p n_cells operands
       * W_c (K x n, column-major, one after the other) and the shared U
       * (K x n): on CUDA one strided batched GEMM of cuBLAS (on the FP64
       * tensor cores for double), on the host a team a cell.
       */
      template <typename Number>
      void element_matrix_products(const Number      *operands,
                                   const Number      *reference,
                                   const unsigned int n,
                                   const unsigned int K,
                                   const unsigned int n_cells,
                                   Number            *matrices);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
