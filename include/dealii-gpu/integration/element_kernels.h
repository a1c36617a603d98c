// The team kernels of GPU::ElementIntegrator that compute element matrices
// and element vectors at the quadrature points (the reference-tensor
// strategy: reference_tensor_kernel.h; the assembly: assembly_kernel.h).
#ifndef dealii_gpu_integration_element_kernels_h
#define dealii_gpu_integration_element_kernels_h

#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/integration/point_evaluator.h>

#include <deal.II/base/tensor.h>

#include <cstddef>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The geometry of one quadrature point of a cell from the cell's
       * mapping support points: J^{-T} (dim * dim), JxW and the point
       * (dim), stride words, in double arithmetic and stored as Number.
       */
      template <int dim, typename Number>
      struct PointGeometry
      {
        const double *support_points;
        const double *values;    // [q][k]
        const double *gradients; // [q][k][d]
        const double *weights;   // [q]
        unsigned int  n_geometry;

        static constexpr unsigned int stride = dim * dim + 1 + dim;

        DEAL_II_GPU_HOST_DEVICE void
        compute(const unsigned int cell, const unsigned int q, Number *g) const
        {
          const double *X =
              support_points + std::size_t(cell) * n_geometry * dim;
          double J[dim][dim] = {};
          double x[dim]      = {};
          for (unsigned int k = 0; k < n_geometry; ++k)
          {
            const double  N = values[q * n_geometry + k];
            const double *dN =
                gradients + (std::size_t(q) * n_geometry + k) * dim;
            for (unsigned int d = 0; d < dim; ++d)
            {
              const double Xd = X[k * dim + d];
              x[d] += N * Xd;
              for (unsigned int e = 0; e < dim; ++e)
                J[d][e] += Xd * dN[e];
            }
          }
          store(J, x, weights[q], g);
        }

        /**
         * As compute() with weight 1 on an affine cell of a degree-1
         * geometry (simplex: vertices 0..dim; parallelogram or
         * parallelepiped: vertices 0 and 2^e), from dim + 1 vertices only:
         * column e of J is vertex e + 1 or 2^e less vertex 0; the point is
         * vertex 0.
         */
        DEAL_II_GPU_HOST_DEVICE void compute_affine(const unsigned int cell,
                                                    Number            *g) const
        {
          const double *X =
              support_points + std::size_t(cell) * n_geometry * dim;
          double J[dim][dim], x[dim];
          for (unsigned int d = 0; d < dim; ++d)
            x[d] = X[d];
          for (unsigned int e = 0; e < dim; ++e)
          {
            const unsigned int v = n_geometry == dim + 1 ? e + 1 : 1u << e;
            for (unsigned int d = 0; d < dim; ++d)
              J[d][e] = X[v * dim + d] - x[d];
          }
          store(J, x, 1., g);
        }

        /** J^{-T}, |det J| weight and the point x into g. */
        DEAL_II_GPU_HOST_DEVICE static void store(const double (&J)[dim][dim],
                                                  const double (&x)[dim],
                                                  const double weight,
                                                  Number      *g)
        {
          double inv[dim][dim];
          double det;
          if constexpr (dim == 2)
          {
            det       = J[0][0] * J[1][1] - J[0][1] * J[1][0];
            inv[0][0] = J[1][1] / det;
            inv[0][1] = -J[0][1] / det;
            inv[1][0] = -J[1][0] / det;
            inv[1][1] = J[0][0] / det;
          }
          else
          {
            const double c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
            const double c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
            const double c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
            det              = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
            inv[0][0]        = c00 / det;
            inv[1][0]        = c01 / det;
            inv[2][0]        = c02 / det;
            inv[0][1]        = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
            inv[1][1]        = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
            inv[2][1]        = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
            inv[0][2]        = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
            inv[1][2]        = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
            inv[2][2]        = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
          }
          // J^{-T}[d][e] = inv[e][d]: grad_x = J^{-T} grad_xi.
          for (unsigned int d = 0; d < dim; ++d)
            for (unsigned int e = 0; e < dim; ++e)
              g[d * dim + e] = Number(inv[e][d]);
          g[dim * dim] = Number((det < 0 ? -det : det) * weight);
          for (unsigned int d = 0; d < dim; ++d)
            g[dim * dim + 1 + d] = Number(x[d]);
        }

        /** Physical gradient component d from the reference gradient. */
        DEAL_II_GPU_HOST_DEVICE static Number
        physical(const Number *g, const Number *reference, const unsigned int d)
        {
          Number sum = 0;
          for (unsigned int f = 0; f < dim; ++f)
            sum += g[d * dim + f] * reference[f];
          return sum;
        }

        DEAL_II_GPU_HOST_DEVICE static Tensor<1, dim, Number>
        point(const Number *g)
        {
          Tensor<1, dim, Number> x;
          for (unsigned int d = 0; d < dim; ++d)
            x[d] = g[dim * dim + 1 + d];
          return x;
        }
      };

      /**
       * Column (cj, b) of a point's tensor D[(c, a)][(cj, b)], a and b over
       * the value (0) and the reference derivatives (1..dim): the operation
       * applied to the function whose value is [b = 0] and whose physical
       * gradient is J^{-T} e_b in component cj, tested with the same
       * transformation, times @p scale. g is the point's PointGeometry data
       * (J^{-T}, ., x). D is row-major, n_comp (1 + dim) a row. A bilinear
       * form's matrix is then sum over the points of u_i^T D u_j with u
       * the reference value and derivatives.
       */
      template <int dim, int n_comp, typename Number, typename Operation>
      DEAL_II_GPU_HOST_DEVICE void point_tensor_column(const Operation   &op,
                                                       const Number      *g,
                                                       const Number       scale,
                                                       const unsigned int cj,
                                                       const unsigned int b,
                                                       Number            *D)
      {
        constexpr unsigned int n_ab = n_comp * (1 + dim);
        Tensor<1, dim, Number> gradient;
        if (b > 0)
          for (unsigned int d = 0; d < dim; ++d)
            gradient[d] = g[d * dim + b - 1];
        PointEvaluator<dim, n_comp, Number> phi(
            PointGeometry<dim, Number>::point(g),
            cj,
            Number(b == 0 ? 1 : 0),
            gradient);
        op(phi, 0u);
        const unsigned int column = cj * (1 + dim) + b;
        for (unsigned int c = 0; c < n_comp; ++c)
        {
          D[(c * (1 + dim)) * n_ab + column] =
              scale * phi.submitted_value_component(c);
          for (unsigned int a = 1; a <= dim; ++a)
          {
            Number sum = 0;
            for (unsigned int d = 0; d < dim; ++d)
              sum +=
                  g[d * dim + a - 1] * phi.submitted_gradient_component(c, d);
            D[(c * (1 + dim) + a) * n_ab + column] = scale * sum;
          }
        }
      }

      /**
       * D += A B for one 16 x 8 x 4 MMA in double on the FP64 tensor cores,
       * called by all 32 lanes of a warp; lane = 4 g + t: a0 and a1 hold
       * A[g][t] and A[g + 8][t], b holds B[t][g], d holds D[g][2 t + 0, 1]
       * and D[g + 8][2 t + 0, 1] (PTX's fragments of m16n8k4.f64). Hopper
       * (sm_90) has the instruction; sm_80 runs it as two 8 x 8 x 4 MMAs,
       * which on Hopper have half the rate.
       */
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      mma_16x8x4([[maybe_unused]] const double a0,
                 [[maybe_unused]] const double a1,
                 [[maybe_unused]] const double b,
                 [[maybe_unused]] double (&d)[4])
      {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 "
            "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
            : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
            : "d"(a0), "d"(a1), "d"(b));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 "
            "{%0, %1}, {%2}, {%3}, {%0, %1};"
            : "+d"(d[0]), "+d"(d[1])
            : "d"(a0), "d"(b));
        asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 "
            "{%0, %1}, {%2}, {%3}, {%0, %1};"
            : "+d"(d[2]), "+d"(d[3])
            : "d"(a1), "d"(b));
#endif
      }

      /** Whether ElementMatrixKernel runs on the FP64 tensor cores in this
       *  compilation (CUDA, sm_80 and later, double). */
      template <typename Number>
      DEAL_II_GPU_HOST_DEVICE constexpr bool element_matrices_on_tensor_cores()
      {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        return std::is_same_v<Number, double>;
#else
        return false;
#endif
      }

      /**
       * The team functor of ElementIntegrator::compute_element_matrices():
       * one cell a team, quadrature points in chunks. The element matrix
       * is a product summed over the points, A = sum_q U_q^T W_q, a over
       * the value (0) and the derivatives (1..dim), padded to 4, the depth
       * of one MMA, so one point is one MMA step. U[q][a][r] holds the
       * value and derivatives of the function of row r, W[q][c][a][j] what
       * the operation submits in component c for function j times JxW.
       * Per point (d_points > 0): U holds the reference value and
       * derivatives, W[q][c][a][j] = sum_b D_q[(c, a)][(c_j, b)] U[q][b][j]
       * with D_q the point's tensor (point_tensor_column(): n_comp (1 + dim)
       * calls of the operation a point). Per function (d_points = 0, one
       * component): U holds the physical value and gradient, W the
       * operation called for each function at each point.
       * Rows are ordered by component and each component's rows padded to
       * 16, so that the rows of one MMA share a component (hence W_c).
       * The matrix is computed in passes over regions of region_rows x
       * region_cols entries (multiples of 32), U and W of a pass only for
       * the region's rows and columns. On the tensor cores each warp keeps
       * a 32 x 32 block of the region in registers over all points;
       * elsewhere (host, float) the team adds each chunk's sums into A,
       * one thread an entry.
       */
      template <int dim, int n_comp, typename Number, typename Operation>
      struct ElementMatrixKernel
      {
        Operation                  operation;
        PointGeometry<dim, Number> geometry;
        const Number              *shape_values;
        const Number              *shape_gradients;
        const unsigned char       *components;
        const unsigned int        *row_of_dof; // r of DoF i
        const unsigned int        *dof_of_row; // i of row r (n_dofs: padding)
        unsigned int               n_q, n_dofs, chunk;
        // Points whose D the scratch holds: n_q (all, computed once a
        // cell), chunk (computed a chunk) or 0 (per function).
        unsigned int d_points;
        unsigned int n_rows;                   // multiple of 16
        unsigned int region_rows, region_cols; // multiples of 32
        unsigned int ld_u, ld_w;               // row strides of U and W
        Number      *matrices;

        static constexpr unsigned int n_a = 4;
        static constexpr unsigned int geometry_stride =
            PointGeometry<dim, Number>::stride;
        static_assert(1 + dim <= n_a, "one MMA step a point");

        /** Columns: n_dofs padded to 8. */
        DEAL_II_GPU_HOST_DEVICE static unsigned int
        padded_columns(const unsigned int n_dofs)
        {
          return (n_dofs + 7) / 8 * 8;
        }

        /** A row stride >= n that is 8 modulo 16 doubles, so that the four
         *  rows an MMA fragment reads fall on different shared-memory
         *  banks. */
        static unsigned int leading_dimension(const unsigned int n)
        {
          return (n + 7) / 16 * 16 + 8;
        }

        static constexpr unsigned int n_ab = n_comp * (1 + dim);

        /** U and W of @p chunk points, D of @p d_points, the geometry of
         *  all n_q points. */
        static std::size_t scratch_bytes(const unsigned int ld_u,
                                         const unsigned int ld_w,
                                         const unsigned int chunk,
                                         const unsigned int d_points,
                                         const unsigned int n_q)
        {
          return sizeof(Number) *
                 (chunk * n_a * (ld_u + n_comp * ld_w) +
                  d_points * n_ab * n_ab + n_q * geometry_stride);
        }

        /** Blocks of 32 x 32 entries (4 x 4 MMAs) of A. */
        DEAL_II_GPU_HOST_DEVICE static unsigned int
        n_blocks(const unsigned int n_rows, const unsigned int n_dofs)
        {
          return ((n_rows + 31) / 32) * ((padded_columns(n_dofs) + 31) / 32);
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          using Evaluator          = PointEvaluator<dim, n_comp, Number>;
          using Geometry           = PointGeometry<dim, Number>;
          const unsigned int cell  = team.team_index();
          const bool         all_d = d_points >= n_q;
          Number            *U     = team.scratch<Number>();
          Number            *W     = U + chunk * n_a * ld_u;
          Number            *D     = W + chunk * n_comp * n_a * ld_w;
          Number            *geo   = D + d_points * n_ab * n_ab;
          Number            *A = matrices + std::size_t(cell) * n_dofs * n_dofs;
          const Operation    op  = operation;
          constexpr bool     mma = element_matrices_on_tensor_cores<Number>();

          // Padding (a = 1 + dim in 2D; rows and columns in one pass) is
          // never written and stays zero.
          team.for_each<false>(chunk * n_a * (ld_u + n_comp * ld_w),
                               [&](const unsigned int k) { U[k] = 0; });
          // The geometry of every point once, all threads at a time.
          team.for_each<false>(
              n_q,
              [&](const unsigned int q)
              { geometry.compute(cell, q, geo + q * geometry_stride); });
          // Each point's tensor D (the operation and the geometry), into
          // slot q - first.
          const auto compute_d =
              [&](const unsigned int first, const unsigned int count)
          {
            team.for_each<false>(
                count * n_ab,
                [&](const unsigned int e)
                {
                  const unsigned int qc = e / n_ab, column = e % n_ab;
                  const Number      *g = geo + (first + qc) * geometry_stride;
                  point_tensor_column<dim, n_comp>(op,
                                                   g,
                                                   g[dim * dim],
                                                   column / (1 + dim),
                                                   column % (1 + dim),
                                                   D + qc * n_ab * n_ab);
                });
          };
          if (all_d)
          {
            team.barrier<false>();
            compute_d(0, n_q);
          }

          // Passes: regions, and on the tensor cores where a region has
          // more blocks than the team warps, several passes a region.
          const unsigned int n_cols = padded_columns(n_dofs);
          const unsigned int n_pc   = (n_cols + region_cols - 1) / region_cols;
          const unsigned int n_regions =
              (n_rows + region_rows - 1) / region_rows * n_pc;
          const unsigned int region_blocks =
              region_rows / 32 * (region_cols / 32);
          const unsigned int n_warps = team.team_shape().size() / 32;
          const unsigned int n_sub =
              mma ? (region_blocks + n_warps - 1) / n_warps : 1;
          // Blocks of 16 rows and of 8 columns.
          [[maybe_unused]] const unsigned int n_rb = n_rows / 16;
          [[maybe_unused]] const unsigned int n_cb = n_cols / 8;

          for (unsigned int pass = 0; pass < n_regions * n_sub; ++pass)
          {
            const unsigned int region = pass / n_sub;
            const unsigned int r0     = region / n_pc * region_rows;
            const unsigned int c0     = region % n_pc * region_cols;
            const unsigned int rows =
                n_rows - r0 < region_rows ? n_rows - r0 : region_rows;
            const unsigned int cols =
                n_cols - c0 < region_cols ? n_cols - c0 : region_cols;
            // A warp's 32 x 32 entries: 2 x 4 MMAs of 16 x 8.
            [[maybe_unused]] double       acc[2][4][4] = {};
            [[maybe_unused]] unsigned int rb0 = 0, cb0 = 0, comp[2] = {};
            [[maybe_unused]] bool         active = false;
#ifdef __CUDA_ARCH__
            [[maybe_unused]] const unsigned int lane = threadIdx.x % 32;
            if constexpr (mma)
            {
              // The warp's block of the region, row by row.
              const unsigned int block =
                  pass % n_sub * n_warps + threadIdx.x / 32;
              const unsigned int wr = block / (region_cols / 32),
                                 wc = block % (region_cols / 32);
              rb0                   = r0 / 16 + 2 * wr;
              cb0                   = c0 / 8 + 4 * wc;
              active = block < region_blocks && rb0 < n_rb && cb0 < n_cb;
              if constexpr (n_comp > 1)
                for (unsigned int rb = 0; rb < 2; ++rb)
                  comp[rb] = active && rb0 + rb < n_rb
                                 ? components[dof_of_row[(rb0 + rb) * 16]]
                                 : 0;
            }
#endif
            for (unsigned int q0 = 0; q0 < n_q; q0 += chunk)
            {
              const unsigned int nq = n_q - q0 < chunk ? n_q - q0 : chunk;
              team.barrier<false>();
              if (d_points > 0 && !all_d)
              {
                compute_d(q0, nq);
                team.barrier<false>();
              }
              // Function i's value and derivatives at point q0 + qc:
              // reference (per point) or physical (per function).
              const auto derivatives = [&](const unsigned int qc,
                                           const unsigned int i,
                                           Number(&u)[1 + dim])
              {
                const std::size_t qi  = std::size_t(q0 + qc) * n_dofs + i;
                const Number     *ref = shape_gradients + qi * dim;
                u[0]                  = shape_values[qi];
                for (unsigned int d = 0; d < dim; ++d)
                  u[1 + d] =
                      d_points > 0
                          ? ref[d]
                          : Geometry::physical(
                                geo + (q0 + qc) * geometry_stride, ref, d);
              };
              // U's row slot s (zero for padding: !valid).
              const auto store_u = [&](const unsigned int qc,
                                       const unsigned int s,
                                       const Number(&u)[1 + dim],
                                       const bool valid)
              {
                for (unsigned int a = 0; a <= dim; ++a)
                  U[(qc * n_a + a) * ld_u + s] = valid ? u[a] : Number(0);
              };
              // W's column slot s for function j, whose derivatives are u
              // (zero for padding: j >= n_dofs).
              const auto store_w = [&](const unsigned int qc,
                                       const unsigned int s,
                                       const unsigned int j,
                                       const Number(&u)[1 + dim])
              {
                Number *w = W + qc * n_comp * n_a * ld_w + s;
                if (j >= n_dofs)
                {
                  for (unsigned int c = 0; c < n_comp; ++c)
                    for (unsigned int a = 0; a <= dim; ++a)
                      w[(c * n_a + a) * ld_w] = 0;
                  return;
                }
                const unsigned int q = q0 + qc;
                if constexpr (n_comp == 1)
                  if (d_points == 0)
                  {
                    const Number          *g = geo + q * geometry_stride;
                    Tensor<1, dim, Number> grad;
                    for (unsigned int d = 0; d < dim; ++d)
                      grad[d] = u[1 + d];
                    Evaluator phi(
                        Geometry::point(g), components[j], u[0], grad);
                    op(phi, 0u);
                    const Number jxw = g[dim * dim];
                    w[0]             = phi.submitted_value_component(0) * jxw;
                    for (unsigned int d = 0; d < dim; ++d)
                      w[(1 + d) * ld_w] =
                          phi.submitted_gradient_component(0, d) * jxw;
                    return;
                  }
                const Number *Dq = D + (all_d ? q : qc) * n_ab * n_ab +
                                   components[j] * (1 + dim);
                for (unsigned int c = 0; c < n_comp; ++c)
                  for (unsigned int a = 0; a <= dim; ++a)
                  {
                    const Number *row = Dq + (c * (1 + dim) + a) * n_ab;
                    Number        sum = 0;
                    for (unsigned int b = 0; b <= dim; ++b)
                      sum += row[b] * u[b];
                    w[(c * n_a + a) * ld_w] = sum;
                  }
              };
              // One loop for U and W (latency: their loads overlap). One
              // region: by function, padding left zero; several: by slot.
              if (n_regions == 1)
                team.for_each<false>(n_dofs * nq,
                                     [&](const unsigned int e)
                                     {
                                       const unsigned int qc = e / n_dofs;
                                       const unsigned int j  = e - qc * n_dofs;
                                       Number             u[1 + dim];
                                       derivatives(qc, j, u);
                                       store_u(qc, row_of_dof[j], u, true);
                                       store_w(qc, j, j, u);
                                     });
              else
              {
                const unsigned int n_slots = rows > cols ? rows : cols;
                team.for_each<false>(n_slots * nq,
                                     [&](const unsigned int e)
                                     {
                                       const unsigned int qc = e / n_slots;
                                       const unsigned int s  = e - qc * n_slots;
                                       Number             u[1 + dim];
                                       if (s < rows)
                                       {
                                         const unsigned int i =
                                             dof_of_row[r0 + s];
                                         if (i < n_dofs)
                                           derivatives(qc, i, u);
                                         store_u(qc, s, u, i < n_dofs);
                                       }
                                       if (s < cols)
                                       {
                                         const unsigned int j = c0 + s;
                                         if (j < n_dofs)
                                           derivatives(qc, j, u);
                                         store_w(qc, s, j, u);
                                       }
                                     });
              }
              team.barrier<false>();

              if constexpr (mma)
              {
#ifdef __CUDA_ARCH__
                if (active)
                {
                  // Lane (g, t) = (lane / 4, lane % 4) reads rows 16 b + g
                  // and 16 b + 8 + g, column 8 b + g, of derivative a = t.
                  const unsigned int g = lane / 4, t = lane % 4;
                  for (unsigned int qc = 0; qc < nq; ++qc)
                  {
                    // Region rows and columns: (rb0 + rb) 16 >= r0,
                    // (cb0 + cb) 8 >= c0.
                    const Number *u = U + (qc * n_a + t) * ld_u + g;
                    double        a[2][2];
                    DEAL_II_GPU_UNROLL
                    for (unsigned int rb = 0; rb < 2; ++rb)
                      for (unsigned int h = 0; h < 2; ++h)
                        a[rb][h] = rb0 + rb < n_rb
                                       ? u[(rb0 + rb) * 16 - r0 + 8 * h]
                                       : 0.;
                    double b[2][4];
                    DEAL_II_GPU_UNROLL
                    for (unsigned int rb = 0; rb < (n_comp == 1 ? 1 : 2); ++rb)
                    {
                      const Number *w =
                          W + ((qc * n_comp + comp[rb]) * n_a + t) * ld_w + g;
                      DEAL_II_GPU_UNROLL
                      for (unsigned int cb = 0; cb < 4; ++cb)
                        b[rb][cb] =
                            cb0 + cb < n_cb ? w[(cb0 + cb) * 8 - c0] : 0.;
                    }
                    DEAL_II_GPU_UNROLL
                    for (unsigned int rb = 0; rb < 2; ++rb)
                      DEAL_II_GPU_UNROLL
                    for (unsigned int cb = 0; cb < 4; ++cb)
                      mma_16x8x4(a[rb][0],
                                 a[rb][1],
                                 b[n_comp == 1 ? 0 : rb][cb],
                                 acc[rb][cb]);
                  }
                }
#endif
              }
              else
                team.for_each<false>(
                    rows * cols,
                    [&](const unsigned int e)
                    {
                      const unsigned int rr = e / cols;
                      const unsigned int jj = e - rr * cols;
                      const unsigned int i  = dof_of_row[r0 + rr];
                      const unsigned int j  = c0 + jj;
                      if (i >= n_dofs || j >= n_dofs)
                        return;
                      const Number *w   = W + components[i] * n_a * ld_w + jj;
                      Number        sum = 0;
                      for (unsigned int qc = 0; qc < nq; ++qc)
                        for (unsigned int a = 0; a <= dim; ++a)
                          sum += U[(qc * n_a + a) * ld_u + rr] *
                                 w[(qc * n_comp * n_a + a) * ld_w];
                      Number &entry = A[std::size_t(i) * n_dofs + j];
                      entry         = q0 == 0 ? sum : entry + sum;
                    });
            }

#ifdef __CUDA_ARCH__
            if constexpr (mma)
              if (active)
              {
                const unsigned int g = lane / 4, t = lane % 4;
                DEAL_II_GPU_UNROLL
                for (unsigned int rb = 0; rb < 2; ++rb)
                  DEAL_II_GPU_UNROLL
                for (unsigned int h = 0; h < 2; ++h)
                {
                  const unsigned int r = (rb0 + rb) * 16 + 8 * h + g;
                  const unsigned int i =
                      rb0 + rb < n_rb ? dof_of_row[r] : n_dofs;
                  if (i >= n_dofs)
                    continue;
                  DEAL_II_GPU_UNROLL
                  for (unsigned int cb = 0; cb < 4; ++cb)
                    DEAL_II_GPU_UNROLL
                  for (unsigned int e = 0; e < 2; ++e)
                  {
                    const unsigned int j = (cb0 + cb) * 8 + 2 * t + e;
                    if (j < n_dofs)
                      A[std::size_t(i) * n_dofs + j] = acc[rb][cb][2 * h + e];
                  }
                }
              }
#endif
          }
        }
      };

      /**
       * The team functor of ElementIntegrator::compute_element_vectors():
       * a tile of cells_per_team cells a team (small elements: several, so
       * that a thread has a point, then an entry; one from 64 functions).
       * The operation runs once per point on an evaluator
       * whose value and gradient are zero (no trial function), so what it
       * submits is the load: entry i = sum over the points of (submitted
       * value . phi_i + submitted gradient : grad phi_i) JxW.
       */
      template <int dim, int n_comp, typename Number, typename Operation>
      struct ElementVectorKernel
      {
        Operation                  operation;
        PointGeometry<dim, Number> geometry;
        const Number              *shape_values;
        const Number              *shape_gradients;
        const unsigned char       *components;
        unsigned int               n_q, n_dofs, chunk, n_cells, cells_per_team;
        Number                    *vectors;

        static constexpr unsigned int geometry_stride =
            PointGeometry<dim, Number>::stride;

        static std::size_t scratch_bytes(const unsigned int chunk,
                                         const unsigned int cells_per_team)
        {
          return sizeof(Number) * cells_per_team * chunk *
                 (geometry_stride + n_comp * (1 + dim));
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          using Geometry            = PointGeometry<dim, Number>;
          const unsigned int first  = team.team_index() * cells_per_team;
          const unsigned int n_here = n_cells - first < cells_per_team
                                          ? n_cells - first
                                          : cells_per_team;
          Number            *geo    = team.scratch<Number>();
          // Per cell and point: the submitted value [qc][c] and gradient
          // [qc][c][d], times JxW.
          Number *loads = geo + cells_per_team * chunk * geometry_stride;
          Number *F     = vectors + std::size_t(first) * n_dofs;
          const Operation        op        = operation;
          constexpr unsigned int per_point = n_comp * (1 + dim);

          for (unsigned int q0 = 0; q0 < n_q; q0 += chunk)
          {
            const unsigned int nq = n_q - q0 < chunk ? n_q - q0 : chunk;
            team.for_each<false>(
                n_here * nq,
                [&](const unsigned int e)
                {
                  const unsigned int cell = e / nq, qc = e - cell * nq;
                  Number *g = geo + (cell * chunk + qc) * geometry_stride;
                  geometry.compute(first + cell, q0 + qc, g);
                  PointEvaluator<dim, n_comp, Number> phi(
                      Geometry::point(g), 0, Number(0), {});
                  op(phi, 0u);
                  const Number jxw = g[dim * dim];
                  Number      *l   = loads + (cell * chunk + qc) * per_point;
                  for (unsigned int c = 0; c < n_comp; ++c)
                  {
                    l[c] = phi.submitted_value_component(c) * jxw;
                    for (unsigned int d = 0; d < dim; ++d)
                      l[n_comp + c * dim + d] =
                          phi.submitted_gradient_component(c, d) * jxw;
                  }
                });
            team.barrier<false>();
            team.for_each<false>(
                n_here * n_dofs,
                [&](const unsigned int e)
                {
                  const unsigned int cell = e / n_dofs, i = e - cell * n_dofs;
                  const unsigned int c   = components[i];
                  Number             sum = 0;
                  for (unsigned int qc = 0; qc < nq; ++qc)
                  {
                    const unsigned int q = q0 + qc;
                    const Number      *g =
                        geo + (cell * chunk + qc) * geometry_stride;
                    const Number *l = loads + (cell * chunk + qc) * per_point;
                    const Number *ref =
                        shape_gradients + (std::size_t(q) * n_dofs + i) * dim;
                    sum += shape_values[std::size_t(q) * n_dofs + i] * l[c];
                    for (unsigned int d = 0; d < dim; ++d)
                      sum += Geometry::physical(g, ref, d) *
                             l[n_comp + c * dim + d];
                  }
                  F[e] = q0 == 0 ? sum : F[e] + sum;
                });
            team.barrier<false>();
          }
        }
      };

    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
