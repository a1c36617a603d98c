// The team kernels of GPU::ElementIntegrator: element matrices, element
// vectors, and their assembly with constraints.
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
      /** Binary search for @p key in the sorted keys[begin, end). */
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
      find_sorted(const unsigned int *keys,
                  unsigned int        begin,
                  unsigned int        end,
                  const unsigned int  key)
      {
        while (begin < end)
        {
          const unsigned int middle = begin + (end - begin) / 2;
          if (keys[middle] < key)
            begin = middle + 1;
          else
            end = middle;
        }
        return begin;
      }

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
          g[dim * dim] = Number((det < 0 ? -det : det) * weights[q]);
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
       * The team functor of ElementIntegrator::compute_element_matrices():
       * one cell a team, quadrature points in chunks.
       */
      template <int dim, int n_comp, typename Number, typename Operation>
      struct ElementMatrixKernel
      {
        Operation                  operation;
        PointGeometry<dim, Number> geometry;
        const Number              *shape_values;
        const Number              *shape_gradients;
        const unsigned char       *components;
        unsigned int               n_q, n_dofs, chunk;
        // Entries a thread adds up: tile x tile (at most max_tile).
        unsigned int tile;
        Number      *matrices;

        static constexpr unsigned int max_tile = 4;
        static constexpr unsigned int geometry_stride =
            PointGeometry<dim, Number>::stride;

        static std::size_t scratch_bytes(const unsigned int n_dofs,
                                         const unsigned int chunk)
        {
          return sizeof(Number) * chunk *
                 (geometry_stride + n_dofs * (dim + n_comp * (1 + dim)));
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          using Evaluator         = PointEvaluator<dim, n_comp, Number>;
          using Geometry          = PointGeometry<dim, Number>;
          const unsigned int cell = team.team_index();
          Number            *geo  = team.scratch<Number>();
          // Per point qc of the chunk, the function index fastest (adjacent
          // threads touch adjacent words): physical gradients [qc][d][j],
          // then the operation's submitted values [qc][c][j] and gradients
          // [qc][c][d][j], times JxW.
          Number         *grads  = geo + chunk * geometry_stride;
          Number         *values = grads + n_dofs * chunk * dim;
          Number         *fluxes = values + n_dofs * chunk * n_comp;
          Number         *A  = matrices + std::size_t(cell) * n_dofs * n_dofs;
          const Operation op = operation;
          // Entries in tiles of tile x tile, rows i = ib + n_ib a and
          // columns j = jb + n_jb b: each loaded gradient and flux serves a
          // whole row or column of the tile (register reuse).
          const unsigned int n_tile = (n_dofs + tile - 1) / tile;

          for (unsigned int q0 = 0; q0 < n_q; q0 += chunk)
          {
            const unsigned int nq = n_q - q0 < chunk ? n_q - q0 : chunk;
            team.for_each<false>(
                nq,
                [&](const unsigned int qc) {
                  geometry.compute(cell, q0 + qc, geo + qc * geometry_stride);
                });
            team.barrier<false>();

            team.for_each<false>(
                n_dofs * nq,
                [&](const unsigned int e)
                {
                  const unsigned int     qc = e / n_dofs;
                  const unsigned int     j  = e - qc * n_dofs;
                  const unsigned int     q  = q0 + qc;
                  const Number          *g  = geo + qc * geometry_stride;
                  Tensor<1, dim, Number> grad;
                  const Number          *ref =
                      shape_gradients + (std::size_t(q) * n_dofs + j) * dim;
                  for (unsigned int d = 0; d < dim; ++d)
                  {
                    grad[d] = Geometry::physical(g, ref, d);
                    grads[(qc * dim + d) * n_dofs + j] = grad[d];
                  }
                  Evaluator phi(Geometry::point(g),
                                components[j],
                                shape_values[std::size_t(q) * n_dofs + j],
                                grad);
                  op(phi, 0u);
                  const Number jxw = g[dim * dim];
                  for (unsigned int c = 0; c < n_comp; ++c)
                  {
                    values[(qc * n_comp + c) * n_dofs + j] =
                        phi.submitted_value_component(c) * jxw;
                    for (unsigned int d = 0; d < dim; ++d)
                      fluxes[((qc * n_comp + c) * dim + d) * n_dofs + j] =
                          phi.submitted_gradient_component(c, d) * jxw;
                  }
                });
            team.barrier<false>();

            team.for_each<false>(
                n_tile * n_tile,
                [&](const unsigned int t)
                {
                  const unsigned int ib                      = t / n_tile;
                  const unsigned int jb                      = t - ib * n_tile;
                  Number             sum[max_tile][max_tile] = {};
                  for (unsigned int qc = 0; qc < nq; ++qc)
                  {
                    const Number *shape =
                        shape_values + std::size_t(q0 + qc) * n_dofs;
                    DEAL_II_GPU_UNROLL
                    for (unsigned int a = 0; a < max_tile; ++a)
                    {
                      const unsigned int i = ib + n_tile * a;
                      if (a >= tile || i >= n_dofs)
                        continue;
                      const unsigned int c = components[i];
                      Number             gi[dim];
                      for (unsigned int d = 0; d < dim; ++d)
                        gi[d] = grads[(qc * dim + d) * n_dofs + i];
                      const Number  phi_i = shape[i];
                      const Number *v     = values + (qc * n_comp + c) * n_dofs;
                      const Number *f =
                          fluxes + (qc * n_comp + c) * dim * n_dofs;
                      DEAL_II_GPU_UNROLL
                      for (unsigned int b = 0; b < max_tile; ++b)
                      {
                        const unsigned int j = jb + n_tile * b;
                        if (b >= tile || j >= n_dofs)
                          continue;
                        Number s = phi_i * v[j];
                        for (unsigned int d = 0; d < dim; ++d)
                          s += gi[d] * f[d * n_dofs + j];
                        sum[a][b] += s;
                      }
                    }
                  }
                  DEAL_II_GPU_UNROLL
                  for (unsigned int a = 0; a < max_tile; ++a)
                    DEAL_II_GPU_UNROLL
                  for (unsigned int b = 0; b < max_tile; ++b)
                  {
                    const unsigned int i = ib + n_tile * a;
                    const unsigned int j = jb + n_tile * b;
                    if (a < tile && b < tile && i < n_dofs && j < n_dofs)
                    {
                      Number &entry = A[std::size_t(i) * n_dofs + j];
                      entry         = q0 == 0 ? sum[a][b] : entry + sum[a][b];
                    }
                  }
                });
            team.barrier<false>();
          }
        }
      };

      /**
       * The team functor of ElementIntegrator::compute_element_vectors():
       * one cell a team. The operation runs once per point on an evaluator
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
        unsigned int               n_q, n_dofs, chunk;
        Number                    *vectors;

        static constexpr unsigned int geometry_stride =
            PointGeometry<dim, Number>::stride;

        static std::size_t scratch_bytes(const unsigned int chunk)
        {
          return sizeof(Number) * chunk *
                 (geometry_stride + n_comp * (1 + dim));
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          using Geometry          = PointGeometry<dim, Number>;
          const unsigned int cell = team.team_index();
          Number            *geo  = team.scratch<Number>();
          // Per point: the submitted value [qc][c] and gradient [qc][c][d],
          // times JxW.
          Number                *loads = geo + chunk * geometry_stride;
          Number                *F     = vectors + std::size_t(cell) * n_dofs;
          const Operation        op    = operation;
          constexpr unsigned int per_point = n_comp * (1 + dim);

          for (unsigned int q0 = 0; q0 < n_q; q0 += chunk)
          {
            const unsigned int nq = n_q - q0 < chunk ? n_q - q0 : chunk;
            team.for_each<false>(
                nq,
                [&](const unsigned int qc)
                {
                  Number *g = geo + qc * geometry_stride;
                  geometry.compute(cell, q0 + qc, g);
                  PointEvaluator<dim, n_comp, Number> phi(
                      Geometry::point(g), 0, Number(0), {});
                  op(phi, 0u);
                  const Number jxw = g[dim * dim];
                  Number      *l   = loads + qc * per_point;
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
                n_dofs,
                [&](const unsigned int i)
                {
                  const unsigned int c   = components[i];
                  Number             sum = 0;
                  for (unsigned int qc = 0; qc < nq; ++qc)
                  {
                    const unsigned int q = q0 + qc;
                    const Number      *g = geo + qc * geometry_stride;
                    const Number      *l = loads + qc * per_point;
                    const Number      *ref =
                        shape_gradients + (std::size_t(q) * n_dofs + i) * dim;
                    sum += shape_values[std::size_t(q) * n_dofs + i] * l[c];
                    for (unsigned int d = 0; d < dim; ++d)
                      sum += Geometry::physical(g, ref, d) *
                             l[n_comp + c * dim + d];
                  }
                  F[i] = q0 == 0 ? sum : F[i] + sum;
                });
            team.barrier<false>();
          }
        }
      };

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
       * The first kernel of the reference-tensor strategy (affine cells,
       * an operation constant on them), one thread a cell: the geometry
       * tensor G[(c, a)][(c', b)], a and b over the value (0) and the
       * reference derivatives (1..dim), such that the element matrix is
       * A_ij = sum_ab G[(c_i, a)][(c_j, b)] K[a][b][k_i][k_j] with K the
       * reference tensor of the base element. Column (c', b) of G is the
       * operation applied to the function whose value is [b = 0] and whose
       * physical gradient is J^{-T} e_b in component c', tested with the
       * same transformation and times |det J|.
       */
      template <int dim, int n_comp, typename Number, typename Operation>
      struct GeometryTensorKernel
      {
        Operation                  operation;
        PointGeometry<dim, Number> geometry;
        double                     first_weight;
        Number                    *tensors;

        static constexpr unsigned int n_ab   = n_comp * (1 + dim);
        static constexpr unsigned int stride = n_ab * n_ab;

        DEAL_II_GPU_HOST_DEVICE void operator()(const std::size_t cell) const
        {
          Number g[PointGeometry<dim, Number>::stride];
          geometry.compute(cell, 0, g);
          // J^{-T}[d][e] = g[d * dim + e]; |det J| without the weight.
          const Number    det = g[dim * dim] / Number(first_weight);
          const auto      x   = PointGeometry<dim, Number>::point(g);
          const Operation op  = operation;
          Number         *G   = tensors + std::size_t(cell) * stride;
          for (unsigned int cj = 0; cj < n_comp; ++cj)
            for (unsigned int b = 0; b <= dim; ++b)
            {
              Tensor<1, dim, Number> gradient;
              if (b > 0)
                for (unsigned int d = 0; d < dim; ++d)
                  gradient[d] = g[d * dim + b - 1];
              PointEvaluator<dim, n_comp, Number> phi(
                  x, cj, Number(b == 0 ? 1 : 0), gradient);
              op(phi, 0u);
              const unsigned int column = cj * (1 + dim) + b;
              for (unsigned int c = 0; c < n_comp; ++c)
              {
                G[(c * (1 + dim)) * n_ab + column] =
                    det * phi.submitted_value_component(c);
                for (unsigned int a = 1; a <= dim; ++a)
                {
                  Number sum = 0;
                  for (unsigned int d = 0; d < dim; ++d)
                    sum += g[d * dim + a - 1] *
                           phi.submitted_gradient_component(c, d);
                  G[(c * (1 + dim) + a) * n_ab + column] = det * sum;
                }
              }
            }
        }
      };

      /**
       * The second kernel of the reference-tensor strategy: one thread an
       * entry (i, j) of the element matrices of cells_per_thread cells,
       * the contraction of each cell's G with K ((1 + dim)^2 products an
       * entry). The thread holds its part of K in registers for all its
       * cells; adjacent threads write adjacent entries of a cell.
       */
      template <int dim, int n_comp, typename Number>
      struct ReferenceTensorKernel
      {
        const Number        *tensors;
        const Number        *reference;  // K[a][b][k][l]
        const unsigned char *components; // c_i
        const unsigned int  *base_index; // k_i
        unsigned int         n_dofs, n_base, n_cells, cells_per_thread;
        Number              *matrices;

        static constexpr unsigned int n_ab = n_comp * (1 + dim);

        DEAL_II_GPU_HOST_DEVICE void operator()(const std::size_t e) const
        {
          const std::size_t  per_cell = std::size_t(n_dofs) * n_dofs;
          const std::size_t  group    = e / per_cell;
          const unsigned int ij       = e - group * per_cell;
          const unsigned int i        = ij / n_dofs;
          const unsigned int j        = ij - i * n_dofs;
          const unsigned int ci = components[i], cj = components[j];
          const std::size_t  kl =
              std::size_t(base_index[i]) * n_base + base_index[j];
          const std::size_t kk = std::size_t(n_base) * n_base;
          Number            K[1 + dim][1 + dim];
          for (unsigned int a = 0; a <= dim; ++a)
            for (unsigned int b = 0; b <= dim; ++b)
              K[a][b] = reference[(a * (1 + dim) + b) * kk + kl];
          const std::size_t first = group * cells_per_thread;
          const std::size_t last  = first + cells_per_thread < n_cells
                                        ? first + cells_per_thread
                                        : n_cells;
          for (std::size_t cell = first; cell < last; ++cell)
          {
            const Number *G = tensors + cell * n_ab * n_ab +
                              (ci * (1 + dim)) * n_ab + cj * (1 + dim);
            Number sum = 0;
            for (unsigned int a = 0; a <= dim; ++a)
              for (unsigned int b = 0; b <= dim; ++b)
                sum += G[a * n_ab + b] * K[a][b];
            matrices[cell * per_cell + ij] = sum;
          }
        }
      };

      /**
       * The team functor of ElementIntegrator::assemble() and
       * assemble_rhs(): adds one cell's element matrix into the matrix rows
       * (owned: the CSR; other ranks': the ghost rows) and its element
       * vector into the vector, as deal.II's
       * AffineConstraints::distribute_local_to_global() does:
       * constrained DoFs expanded into their constraint lines, a positive
       * diagonal for constrained DoFs (|A_ii|, or the cell's mean |A_jj|
       * where A_ii = 0), and with both a matrix and a vector, the vector
       * entries less A_ij g_j for constrained DoFs j of inhomogeneity g_j.
       * Either part may be absent (matrices or vectors null).
       */
      template <typename Number>
      struct AssemblyKernel
      {
        const Number       *matrices;
        const Number       *vectors;
        const unsigned int *cell_keys;
        const unsigned int *cell_lines;
        const unsigned int *line_offsets;
        const unsigned int *line_keys;
        const Number       *line_weights;
        const Number       *line_inhomogeneities;
        const unsigned int *row_offsets;
        const unsigned int *columns;
        Number             *values;
        const unsigned int *ghost_row_of_key;
        const unsigned int *ghost_offsets;
        const unsigned int *ghost_columns;
        Number             *ghost_values;
        // Vector entry of a key past the owned ones (the owned ones are
        // the key itself).
        const unsigned int *vector_index_of_key;
        Number             *vector;
        unsigned int       *missing;
        unsigned int        n_dofs, first_cell, n_owned;

        static constexpr unsigned int none = static_cast<unsigned int>(-1);

        DEAL_II_GPU_HOST_DEVICE void add(const unsigned int row_key,
                                         const unsigned int column_key,
                                         const Number       value) const
        {
          const unsigned int *cols;
          Number             *vals;
          unsigned int        begin, end;
          if (row_key < n_owned)
          {
            begin = row_offsets[row_key];
            end   = row_offsets[row_key + 1];
            cols  = columns;
            vals  = values;
          }
          else
          {
            const unsigned int g = ghost_row_of_key[row_key - n_owned];
            begin                = ghost_offsets[g];
            end                  = ghost_offsets[g + 1];
            cols                 = ghost_columns;
            vals                 = ghost_values;
          }
          const unsigned int k = find_sorted(cols, begin, end, column_key);
          if (k < end && cols[k] == column_key)
            atomic_add(&vals[k], value);
          else
            atomic_add(missing, 1u);
        }

        DEAL_II_GPU_HOST_DEVICE void add_to_vector(const unsigned int key,
                                                   const Number value) const
        {
          atomic_add(
              &vector[key < n_owned ? key : vector_index_of_key[key - n_owned]],
              value);
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          const unsigned int  cell  = team.team_index();
          const std::size_t   base  = std::size_t(first_cell + cell) * n_dofs;
          const unsigned int *keys  = cell_keys + base;
          const unsigned int *lines = cell_lines + base;
          const Number       *A =
              matrices == nullptr
                        ? nullptr
                        : matrices + std::size_t(cell) * n_dofs * n_dofs;

          if (A != nullptr)
          {
            Number *diagonal = team.scratch<Number>();
            team.for_each<false>(
                n_dofs * n_dofs,
                [&](const unsigned int e)
                {
                  const unsigned int i  = e / n_dofs;
                  const unsigned int j  = e - i * n_dofs;
                  const Number       a  = A[e];
                  const unsigned int li = lines[i], lj = lines[j];
                  const unsigned int ri0 = li == none ? 0 : line_offsets[li];
                  const unsigned int ri1 =
                      li == none ? 1 : line_offsets[li + 1];
                  const unsigned int cj0 = lj == none ? 0 : line_offsets[lj];
                  const unsigned int cj1 =
                      lj == none ? 1 : line_offsets[lj + 1];
                  for (unsigned int r = ri0; r < ri1; ++r)
                  {
                    const unsigned int row =
                        li == none ? keys[i] : line_keys[r];
                    const Number wr = li == none ? Number(1) : line_weights[r];
                    for (unsigned int c = cj0; c < cj1; ++c)
                    {
                      const unsigned int col =
                          lj == none ? keys[j] : line_keys[c];
                      const Number wc =
                          lj == none ? Number(1) : line_weights[c];
                      add(row, col, wr * wc * a);
                    }
                  }
                });
            // deal.II's diagonal for constrained DoFs whose A_ii is zero:
            // the mean |A_jj|; if that is zero, the largest column sum of
            // |A| over n_dofs; if that is zero too, 1.
            team.for_each<false>(
                1,
                [&](unsigned int)
                {
                  Number sum = 0, l1 = 0;
                  for (unsigned int j = 0; j < n_dofs; ++j)
                  {
                    Number column = 0;
                    for (unsigned int i = 0; i < n_dofs; ++i)
                    {
                      const Number a = A[i * n_dofs + j];
                      column += a < 0 ? -a : a;
                    }
                    l1             = column > l1 ? column : l1;
                    const Number d = A[j * n_dofs + j];
                    sum += d < 0 ? -d : d;
                  }
                  diagonal[0] =
                      sum != Number(0)
                          ? sum / Number(n_dofs)
                          : (l1 != Number(0) ? l1 / Number(n_dofs) : Number(1));
                });
            team.barrier<false>();
            team.for_each<false>(
                n_dofs,
                [&](const unsigned int i)
                {
                  if (lines[i] == none)
                    return;
                  const Number d = A[i * n_dofs + i];
                  const Number a = d < 0 ? -d : d;
                  add(keys[i], keys[i], a != Number(0) ? a : diagonal[0]);
                });
          }

          if (vectors != nullptr)
          {
            const Number *F = vectors + std::size_t(cell) * n_dofs;
            team.for_each<false>(
                n_dofs,
                [&](const unsigned int i)
                {
                  Number b = F[i];
                  if (A != nullptr && line_inhomogeneities != nullptr)
                    for (unsigned int k = 0; k < n_dofs; ++k)
                      if (lines[k] != none)
                        b -= A[i * n_dofs + k] * line_inhomogeneities[lines[k]];
                  const unsigned int li = lines[i];
                  if (li == none)
                    add_to_vector(keys[i], b);
                  else
                    for (unsigned int r = line_offsets[li];
                         r < line_offsets[li + 1];
                         ++r)
                      add_to_vector(line_keys[r], line_weights[r] * b);
                });
          }
        }
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
