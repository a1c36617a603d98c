// The row strategy of GPU::ElementIntegrator: element matrices of small
// elements on any cells, a tile of cells a team and a thread a row.
#ifndef dealii_gpu_integration_element_row_kernel_h
#define dealii_gpu_integration_element_row_kernel_h

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
       * Element matrices of elements with at most max_dofs functions (the
       * registers of a row: 8 or 16; H200: 8 was 10-40 % faster for Q1), for
       * any cells and operations: A_ij = sum_q u_qi^T D_q u_qj, u the
       * reference value and derivatives, D_q the point's tensor
       * (point_tensor_column()). A team takes a tile of cells_per_team
       * cells: first D of each (cell, point), a thread each, into shared
       * memory; then a thread a (cell, row i) keeps row i in registers,
       * forming t = u_qi^T D_q once a point for all n_dofs entries; the
       * rows go through shared memory so that the tile's matrices are
       * written contiguously. The quadrature-point kernel instead gives a
       * cell a warp and 16 x 8 MMAs, most of them padding below 32
       * functions (Q1 in 3D: 8 of 32 lanes busy in the geometry, 25 %
       * occupancy).
       */
      template <int dim,
                int n_comp,
                typename Number,
                typename Operation,
                unsigned int max_dofs>
      struct ElementRowKernel
      {
        Operation                  operation;
        PointGeometry<dim, Number> geometry;
        const Number              *shape_values;    // [q][i]
        const Number              *shape_gradients; // [q][i][d]
        const unsigned char       *components;      // c_i
        unsigned int               n_q, n_dofs, n_cells, cells_per_team;
        Number                    *matrices;

        static constexpr unsigned int n_ab = n_comp * (1 + dim);

        // Odd strides (in Number) for each point's and each cell's D and
        // each row of the staged matrices: the points, cells and rows one
        // warp reads or writes at once then fall on different shared-memory
        // banks.
        static constexpr unsigned int point_stride = n_ab * n_ab | 1u;
        DEAL_II_GPU_HOST_DEVICE static unsigned int
        d_stride(const unsigned int n_q)
        {
          return (n_q * point_stride) | 1u;
        }
        DEAL_II_GPU_HOST_DEVICE static unsigned int
        row_stride(const unsigned int n_dofs)
        {
          return n_dofs | 1u;
        }

        /** D of every point and the matrices of a tile. */
        static std::size_t scratch_bytes(const unsigned int cells_per_team,
                                         const unsigned int n_q,
                                         const unsigned int n_dofs)
        {
          return sizeof(Number) * cells_per_team *
                 (std::size_t(d_stride(n_q)) +
                  std::size_t(n_dofs) * row_stride(n_dofs));
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          const unsigned int first  = team.team_index() * cells_per_team;
          const unsigned int n_here = n_cells - first < cells_per_team
                                          ? n_cells - first
                                          : cells_per_team;
          const unsigned int nn     = n_dofs * n_dofs;
          const unsigned int sd     = d_stride(n_q);
          const unsigned int ld     = row_stride(n_dofs);
          Number            *D      = team.scratch<Number>();
          Number            *A      = D + cells_per_team * sd;
          const Operation    op     = operation;

          team.for_each<false>(n_here * n_q,
                               [&](const unsigned int e)
                               {
                                 const unsigned int c = e / n_q,
                                                    q = e - c * n_q;
                                 Number g[PointGeometry<dim, Number>::stride];
                                 geometry.compute(first + c, q, g);
                                 for (unsigned int cj = 0; cj < n_comp; ++cj)
                                   for (unsigned int b = 0; b <= dim; ++b)
                                     point_tensor_column<dim, n_comp>(
                                         op,
                                         g,
                                         g[dim * dim],
                                         cj,
                                         b,
                                         D + c * sd + q * point_stride);
                               });
          team.barrier<false>();

          team.for_each<false>(
              n_here * n_dofs,
              [&](const unsigned int e)
              {
                const unsigned int c = e / n_dofs, i = e - c * n_dofs;
                const unsigned int ci            = components[i];
                Number             row[max_dofs] = {};
                for (unsigned int q = 0; q < n_q; ++q)
                {
                  const Number *Dq =
                      D + c * sd + q * point_stride + ci * (1 + dim) * n_ab;
                  const std::size_t qi = std::size_t(q) * n_dofs + i;
                  Number            ui[1 + dim];
                  ui[0] = shape_values[qi];
                  for (unsigned int d = 0; d < dim; ++d)
                    ui[1 + d] = shape_gradients[qi * dim + d];
                  Number t[n_ab];
                  for (unsigned int cb = 0; cb < n_ab; ++cb)
                  {
                    Number sum = 0;
                    for (unsigned int a = 0; a <= dim; ++a)
                      sum += ui[a] * Dq[a * n_ab + cb];
                    t[cb] = sum;
                  }
                  const Number *values    = shape_values + q * n_dofs;
                  const Number *gradients = shape_gradients + q * n_dofs * dim;
                  // Unrolled to max_dofs, so that the row stays in
                  // registers.
                  DEAL_II_GPU_UNROLL
                  for (unsigned int j = 0; j < max_dofs; ++j)
                    if (j < n_dofs)
                    {
                      const Number *tj =
                          t + (n_comp == 1 ? 0 : components[j] * (1 + dim));
                      Number sum = tj[0] * values[j];
                      for (unsigned int d = 0; d < dim; ++d)
                        sum += tj[1 + d] * gradients[j * dim + d];
                      row[j] += sum;
                    }
                }
                DEAL_II_GPU_UNROLL
                for (unsigned int j = 0; j < max_dofs; ++j)
                  if (j < n_dofs)
                    A[(c * n_dofs + i) * ld + j] = row[j];
              });
          team.barrier<false>();

          Number *out = matrices + std::size_t(first) * nn;
          team.for_each<false>(n_here * nn,
                               [&](const unsigned int e)
                               {
                                 const unsigned int r = e / n_dofs;
                                 out[e] = A[r * ld + e - r * n_dofs];
                               });
        }
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
