// The reference-tensor strategy of GPU::ElementIntegrator: element
// matrices of affine cells as the contraction of a geometry tensor with
// the base element's reference tensor.
#ifndef dealii_gpu_integration_reference_tensor_kernel_h
#define dealii_gpu_integration_reference_tensor_kernel_h

#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/integration/element_kernels.h>

#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * Whether an operation says that it does not read the quadrature
       * point (Operation::uses_quadrature_points == false): then on an
       * affine cell it is the same linear map at every point. Operations
       * that do not say are taken to read it.
       */
      template <typename Operation, typename = void>
      struct constant_on_affine_cells : std::false_type
      {
      };
      template <typename Operation>
      struct constant_on_affine_cells<
          Operation,
          std::void_t<decltype(Operation::uses_quadrature_points)>>
          : std::bool_constant<!Operation::uses_quadrature_points>
      {
      };

      /**
       * The reference-tensor strategy (affine cells, an operation constant
       * on them), one team for a tile of cells_per_team cells. First each
       * cell's geometry tensor G[(c, a)][(c', b)], a and b over the value
       * (0) and the reference derivatives (1..dim), one thread a cell, into
       * the team's scratch: the element matrix is A_ij = sum_ab
       * G[(c_i, a)][(c_j, b)] K[a][b][k_i][k_j] with K the reference tensor
       * of the base element. Column (c', b) of G is the operation applied
       * to the function whose value is [b = 0] and whose physical gradient
       * is J^{-T} e_b in component c', tested with the same transformation
       * and times |det J|. Then the contraction: each thread holds K of
       * entries_per_thread entries in registers and computes them for its
       * cells of the tile; adjacent threads write adjacent entries. (On the
       * FP64 tensor cores, 16 cells an MMA, it was no faster on the H100
       * at Q1 and 2-2.4 times slower at Q2 and 2D Q4: the kernel is bound
       * by writing the matrices, not by arithmetic.)
       */
      template <int dim, int n_comp, typename Number, typename Operation>
      struct ReferenceTensorKernel
      {
        Operation                  operation;
        PointGeometry<dim, Number> geometry;
        const Number              *reference;  // K[a][b][k][l]
        const unsigned char       *components; // c_i
        const unsigned int        *base_index; // k_i
        unsigned int               n_dofs, n_base, n_cells, cells_per_team;
        Number                    *matrices;

        static constexpr unsigned int n_ab = n_comp * (1 + dim);
        // An odd number of words a cell's G, so that the threads of the
        // geometry phase, a cell each, write to different banks.
        static constexpr unsigned int stride = n_ab * n_ab | 1u;
        // Two entries and at most 128 threads: about 90 registers a thread,
        // so that several teams share a multiprocessor (four entries and
        // 256 threads took 156 registers, one team a multiprocessor).
        static constexpr unsigned int entries_per_thread = 2;
        static constexpr unsigned int max_team_size      = 128;

        /** Groups of entries a thread computes, entry g + n_groups r of
         *  group g for r < entries_per_thread. */
        DEAL_II_GPU_HOST_DEVICE static unsigned int
        n_groups(const unsigned int n_dofs)
        {
          return (n_dofs * n_dofs + entries_per_thread - 1) /
                 entries_per_thread;
        }

        /** Threads a team: whole groups, at most max_team_size. */
        static unsigned int team_size(const unsigned int n_dofs)
        {
          const unsigned int groups = n_groups(n_dofs);
          return groups >= max_team_size ? max_team_size
                                         : groups * (max_team_size / groups);
        }

        static std::size_t scratch_bytes(const unsigned int cells_per_team)
        {
          return sizeof(Number) * stride * cells_per_team;
        }

        DEAL_II_GPU_HOST_DEVICE void geometry_tensor(const unsigned int cell,
                                                     Number            *G) const
        {
          Number g[PointGeometry<dim, Number>::stride];
          geometry.compute_affine(cell, g);
          // |det J| (weight 1) is g[dim * dim].
          for (unsigned int cj = 0; cj < n_comp; ++cj)
            for (unsigned int b = 0; b <= dim; ++b)
              point_tensor_column<dim, n_comp>(
                  operation, g, g[dim * dim], cj, b, G);
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          const unsigned int first  = team.team_index() * cells_per_team;
          const unsigned int n_here = n_cells - first < cells_per_team
                                          ? n_cells - first
                                          : cells_per_team;
          Number            *G      = team.scratch<Number>();
          team.for_each<false>(n_here,
                               [&](const unsigned int c)
                               { geometry_tensor(first + c, G + c * stride); });
          team.barrier<false>();

          const unsigned int nn     = n_dofs * n_dofs;
          const unsigned int groups = n_groups(n_dofs);
          const unsigned int size   = team.team_shape().size();
          const unsigned int lanes  = groups >= size ? 1 : size / groups;
          const std::size_t  kk     = std::size_t(n_base) * n_base;
          team.for_each<false>(
              groups * lanes,
              [&](const unsigned int item)
              {
                const unsigned int     group = item % groups;
                const unsigned int     lane  = item / groups;
                constexpr unsigned int E     = entries_per_thread;
                Number                 K[E][1 + dim][1 + dim];
                unsigned int           offset[E] = {};
                bool                   valid[E];
                DEAL_II_GPU_UNROLL
                for (unsigned int r = 0; r < E; ++r)
                {
                  const unsigned int e = group + groups * r;
                  valid[r]             = e < nn;
                  const unsigned int i = valid[r] ? e / n_dofs : 0;
                  const unsigned int j = valid[r] ? e - i * n_dofs : 0;
                  if constexpr (n_comp > 1)
                    offset[r] = (components[i] * (1 + dim)) * n_ab +
                                components[j] * (1 + dim);
                  const std::size_t kl =
                      std::size_t(base_index[i]) * n_base + base_index[j];
                  for (unsigned int a = 0; a <= dim; ++a)
                    for (unsigned int b = 0; b <= dim; ++b)
                      K[r][a][b] = reference[(a * (1 + dim) + b) * kk + kl];
                }
                for (unsigned int c = lane; c < n_here; c += lanes)
                {
                  const Number *Gc = G + c * stride;
                  Number       *out =
                      matrices + (std::size_t(first) + c) * nn + group;
                  // All sums before any store: the stores could alias the
                  // scratch, which would make the entries sharing G's
                  // words (one component) read them again.
                  Number sum[E] = {};
                  DEAL_II_GPU_UNROLL
                  for (unsigned int r = 0; r < E; ++r)
                    for (unsigned int a = 0; a <= dim; ++a)
                      for (unsigned int b = 0; b <= dim; ++b)
                        sum[r] += Gc[offset[r] + a * n_ab + b] * K[r][a][b];
                  DEAL_II_GPU_UNROLL
                  for (unsigned int r = 0; r < E; ++r)
                    if (valid[r])
                      out[groups * r] = sum[r];
                }
              });
        }
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
