// Q2 kernel-layout prototype (q2_kernel_designs.cu): the four cell-kernel
// layouts (one thread per point, per column, per column with shuffles, per
// cell) and the copy that measures the bandwidth ceiling.
#ifndef q2_kernel_designs_layouts_h
#define q2_kernel_designs_layouts_h

#include "q2_kernel_designs_common.h"

// ---------------------------------------------------------------------------
// Layout "point": one thread per point, one cell per warp (27 of 32 lanes),
// WPB warps per block, warp barriers, shared memory for every pass.
template <int WPB, int MINB>
__global__ void __launch_bounds__(32 * WPB, MINB)
    point_kernel(const DeviceData d, const double *src, double *dst)
{
  __shared__ double tab[18];
  __shared__ double sh[WPB][8][32];
  if (threadIdx.x < 9)
  {
    tab[threadIdx.x]     = shape(threadIdx.x / 3, threadIdx.x % 3);
    tab[9 + threadIdx.x] = colloc(threadIdx.x / 3, threadIdx.x % 3);
  }
  __syncthreads();
  const double      *S = tab, *D = tab + 9;
  const unsigned int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const unsigned int cell = blockIdx.x * WPB + w;
  if (cell >= d.n_cells)
    return; // whole warp
  const bool         active = lane < 27;
  const unsigned int l      = active ? lane : 26;
  const unsigned int i = l % 3, j = l / 3 % 3, k = l / 9;
  double *A0 = sh[w][0], *A1 = sh[w][1], *X0 = sh[w][2], *X1 = sh[w][3],
         *X2 = sh[w][4], *F0 = sh[w][5], *F1 = sh[w][6], *F2 = sh[w][7];
  const unsigned int gi = d.dofs[std::size_t(cell) * 27 + l];
  const double      *pt = d.points + std::size_t(cell) * 81 + l;
  const double       x = pt[0], y = pt[27], z = pt[54];
  if (active)
  {
    A0[l] = src[gi];
    X0[l] = x;
    X1[l] = y;
    X2[l] = z;
  }
  __syncwarp();
  // sum_m M(row, m) in(offset + m stride), M transposed or not; the offset
  // and stride select the direction: x (3 j + 9 k, 1), y (i + 9 k, 3) or
  // z (i + 3 j, 9).
  const unsigned int ox = 3 * j + 9 * k, oy = i + 9 * k, oz = i + 3 * j;
  auto               pass = [&](const double      *M,
                  const bool         transpose,
                  const unsigned int row,
                  const double      *in,
                  const unsigned int offset,
                  const unsigned int stride)
  {
    double s = 0;
#pragma unroll
    for (int m = 0; m < 3; ++m)
      s += (transpose ? M[m * 3 + row] : M[row * 3 + m]) *
           in[offset + m * stride];
    return s;
  };
  // Write this thread's value, then a warp barrier.
  auto put = [&](double *a, const double v)
  {
    if (active)
      a[l] = v;
    __syncwarp();
  };
  put(A1, pass(S, false, i, A0, ox, 1));
  put(A0, pass(S, false, j, A1, oy, 3));
  put(A1, pass(S, false, k, A0, oz, 9));
  double        g[3] = {pass(D, false, i, A1, ox, 1),
                        pass(D, false, j, A1, oy, 3),
                        pass(D, false, k, A1, oz, 9)};
  double        J[3][3];
  const double *X[3] = {X0, X1, X2};
#pragma unroll
  for (int c = 0; c < 3; ++c)
  {
    J[c][0] = pass(D, false, i, X[c], ox, 1);
    J[c][1] = pass(D, false, j, X[c], oy, 3);
    J[c][2] = pass(D, false, k, X[c], oz, 9);
  }
  const double w3 = (i == 1 ? 8. / 18 : 5. / 18) *
                    (j == 1 ? 8. / 18 : 5. / 18) * (k == 1 ? 8. / 18 : 5. / 18);
  double f[3];
  point_flux(J, g, w3, coefficient_denominator(x, y, z), f);
  if (active)
  {
    F0[l] = f[0];
    F1[l] = f[1];
    F2[l] = f[2];
  }
  __syncwarp();
  put(A0,
      pass(D, true, i, F0, ox, 1) + pass(D, true, j, F1, oy, 3) +
          pass(D, true, k, F2, oz, 9));
  put(A1, pass(S, true, k, A0, oz, 9));
  put(A0, pass(S, true, j, A1, oy, 3));
  const double r = pass(S, true, i, A0, ox, 1);
  if (active)
    atomicAdd(dst + gi, r);
}

// ---------------------------------------------------------------------------
// Layout "column": 9 threads per cell, one per (i, j), each holding the
// three points of its z-column in registers; three cells per warp (27
// lanes), WPB warps per block. Passes in z stay in registers (compile-time
// coefficients), x and y go through shared memory with warp barriers.
// FIELD: the mapping is read at the nodes and interpolated like the
// solution; else the quadrature points are read.
template <bool FIELD, int WPB, int MINB>
__global__ void __launch_bounds__(32 * WPB, MINB)
    column_kernel(const DeviceData d, const double *src, double *dst)
{
  constexpr int     n_arrays = FIELD ? 9 : 6;
  __shared__ double tab[18];
  __shared__ double sh[WPB][n_arrays][81];
  stage_tables(tab);
  const double      *S = tab, *D = tab + 9;
  const unsigned int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const unsigned int sub = lane / 9, t = lane % 9;
  const unsigned int first = (blockIdx.x * WPB + w) * 3;
  if (first >= d.n_cells)
    return; // whole warp
  const unsigned int cell   = first + sub;
  const bool         active = sub < 3 && cell < d.n_cells;
  const bool         writer = sub < 3;
  const unsigned int i = t % 3, j = t / 3;
  const unsigned int base = (sub < 3 ? sub : 0) * 27 + t; // + 9 k
  double(*sh_w)[81]       = sh[w];
  double *A0 = sh_w[0], *A1 = sh_w[1], *A2 = sh_w[2],
         *X[3] = {sh_w[3], sh_w[4], sh_w[5]};
  unsigned int gi[3];
  double       u[3], x[3][3];
  load_column<FIELD>(d, src, cell, t, active, gi, u, x);
  // Interpolate in z (registers), then x and y through shared memory; with
  // FIELD the coordinates go along.
  z_interpolate(u);
  if constexpr (FIELD)
  {
#pragma unroll
    for (int c = 0; c < 3; ++c)
      z_interpolate(x[c]);
  }
  auto store = [&](double *a, const double v[3])
  {
    if (writer)
    {
#pragma unroll
      for (int k = 0; k < 3; ++k)
        a[base + 9 * k] = v[k];
    }
  };
  // sum_m M[row * 3 + m] a(m along x or y)
  // v[k] = sum_m M(row, m) a(m) along x (stride 1) or y (stride 3), M
  // transposed or not.
  auto pass = [&](const double *M,
                  const int     row,
                  const bool    transpose,
                  const int     stride,
                  const double *a,
                  double        v[3])
  {
    const double  m0 = transpose ? M[row] : M[row * 3];
    const double  m1 = transpose ? M[3 + row] : M[row * 3 + 1];
    const double  m2 = transpose ? M[6 + row] : M[row * 3 + 2];
    const double *p  = a + base - (stride == 1 ? i : 3 * j);
#pragma unroll
    for (int k = 0; k < 3; ++k)
      v[k] =
          m0 * p[9 * k] + m1 * p[9 * k + stride] + m2 * p[9 * k + 2 * stride];
  };
  auto x_pass =
      [&](const double *M, const int row, const double *a, double v[3])
  { pass(M, row, false, 1, a, v); };
  auto y_pass =
      [&](const double *M, const int row, const double *a, double v[3])
  { pass(M, row, false, 3, a, v); };
  auto x_pass_t =
      [&](const double *M, const int col, const double *a, double v[3])
  { pass(M, col, true, 1, a, v); };
  auto y_pass_t =
      [&](const double *M, const int col, const double *a, double v[3])
  { pass(M, col, true, 3, a, v); };
  store(A0, u);
#pragma unroll
  for (int c = 0; c < 3; ++c)
    store(X[c], x[c]);
  __syncwarp();
  if constexpr (FIELD)
  {
    double *Y[3] = {sh_w[6], sh_w[7], sh_w[8]};
    x_pass(S, i, A0, u);
    store(A1, u);
#pragma unroll
    for (int c = 0; c < 3; ++c)
    {
      x_pass(S, i, X[c], x[c]);
      store(Y[c], x[c]);
    }
    __syncwarp();
    y_pass(S, j, A1, u);
#pragma unroll
    for (int c = 0; c < 3; ++c)
    {
      y_pass(S, j, Y[c], x[c]);
      store(X[c], x[c]);
    }
  }
  else
  {
    x_pass(S, i, A0, u);
    store(A1, u);
    __syncwarp();
    y_pass(S, j, A1, u);
  }
  store(A0, u); // values at the points
  __syncwarp();
  double gx[3], gy[3], fz[3];
  x_pass(D, i, A0, gx);
  y_pass(D, j, A0, gy);
  // One Jacobian entry: sum_m D(row, m) X[c](m along x or y) at point k.
  auto jacobian = [&](const int row, const int stride, const int c, const int k)
  {
    const double *p = X[c] + base + 9 * k - (stride == 1 ? i : 3 * j);
    return D[row * 3] * p[0] + D[row * 3 + 1] * p[stride] +
           D[row * 3 + 2] * p[2 * stride];
  };
  column_fluxes(
      i,
      j,
      u,
      x,
      [&](const int c, const int k) { return jacobian(i, 1, c, k); },
      [&](const int c, const int k) { return jacobian(j, 3, c, k); },
      gx,
      gy,
      fz);
  store(A1, gx);
  store(A2, gy);
  __syncwarp();
  double r[3], ry[3], v[3];
  x_pass_t(D, i, A1, r);
  y_pass_t(D, j, A2, ry);
#pragma unroll
  for (int k = 0; k < 3; ++k)
    r[k] += ry[k];
  z_integrate(r, fz, v);
  store(A0, v);
  __syncwarp();
  x_pass_t(S, i, A0, r);
  store(X[0], r);
  __syncwarp();
  y_pass_t(S, j, X[0], r);
  if (active)
  {
#pragma unroll
    for (int k = 0; k < 3; ++k)
      atomicAdd(dst + gi[k], r[k]);
  }
}

// ---------------------------------------------------------------------------
// Layout "column" with warp shuffles instead of shared memory for the x and
// y passes: no shared arrays and no warp barriers.
template <bool FIELD, int WPB, int MINB>
__global__ void __launch_bounds__(32 * WPB, MINB)
    shuffle_kernel(const DeviceData d, const double *src, double *dst)
{
  __shared__ double tab[18];
  stage_tables(tab);
  const double      *S = tab, *D = tab + 9;
  const unsigned int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const unsigned int sub = lane / 9, t = lane % 9;
  const unsigned int first = (blockIdx.x * WPB + w) * 3;
  if (first >= d.n_cells)
    return; // whole warp
  const unsigned int cell   = first + sub;
  const bool         active = sub < 3 && cell < d.n_cells;
  const unsigned int i = t % 3, j = t / 3;
  const int          lx = int(lane) - int(i), ly = int(lane) - 3 * int(j);
  unsigned int       gi[3];
  double             u[3], x[3][3];
  load_column<FIELD>(d, src, cell, t, active, gi, u, x);
  constexpr unsigned int full = 0xffffffffu;
  // out[k] = sum_m M(m) in[k] of lane (first + stride m); M(m) = M[row * 3 + m]
  // or, transposed, M[m * 3 + row].
  auto pass = [&](const double *M,
                  const int     row,
                  const bool    transpose,
                  const int     first_lane,
                  const int     stride,
                  const double  in[3],
                  double        out[3])
  {
    const double m0 = transpose ? M[row] : M[row * 3];
    const double m1 = transpose ? M[3 + row] : M[row * 3 + 1];
    const double m2 = transpose ? M[6 + row] : M[row * 3 + 2];
#pragma unroll
    for (int k = 0; k < 3; ++k)
      out[k] = m0 * __shfl_sync(full, in[k], first_lane) +
               m1 * __shfl_sync(full, in[k], first_lane + stride) +
               m2 * __shfl_sync(full, in[k], first_lane + 2 * stride);
  };
  z_interpolate(u);
  double tmp[3];
  pass(S, i, false, lx, 1, u, tmp);
  pass(S, j, false, ly, 3, tmp, u);
  if constexpr (FIELD)
  {
#pragma unroll
    for (int c = 0; c < 3; ++c)
    {
      z_interpolate(x[c]);
      pass(S, i, false, lx, 1, x[c], tmp);
      pass(S, j, false, ly, 3, tmp, x[c]);
    }
  }
  double gx[3], gy[3];
  pass(D, i, false, lx, 1, u, gx);
  pass(D, j, false, ly, 3, u, gy);
  double Jx[3][3], Jy[3][3];
#pragma unroll
  for (int c = 0; c < 3; ++c)
  {
    pass(D, i, false, lx, 1, x[c], Jx[c]);
    pass(D, j, false, ly, 3, x[c], Jy[c]);
  }
  double fz[3];
  column_fluxes(
      i,
      j,
      u,
      x,
      [&](const int c, const int k) { return Jx[c][k]; },
      [&](const int c, const int k) { return Jy[c][k]; },
      gx,
      gy,
      fz);
  double r[3], ry[3], v[3];
  pass(D, i, true, lx, 1, gx, r);
  pass(D, j, true, ly, 3, gy, ry);
#pragma unroll
  for (int k = 0; k < 3; ++k)
    r[k] += ry[k];
  z_integrate(r, fz, v);
  pass(S, i, true, lx, 1, v, tmp);
  pass(S, j, true, ly, 3, tmp, r);
  if (active)
  {
#pragma unroll
    for (int k = 0; k < 3; ++k)
      atomicAdd(dst + gi[k], r[k]);
  }
}

// ---------------------------------------------------------------------------
// Layout "cell": one thread per cell. All 27 values of a field stay in the
// thread's registers, every pass is register arithmetic with compile-time
// coefficients: no shared memory and no barriers. Per-cell data are read
// entry-major ([entry][cell], a warp's loads of one entry coalesce) or,
// with CELL_MAJOR, in the module's cell-major layout.
enum class CellGeometry
{
  points,       // quadrature points, coefficient and Jacobian in the kernel
  field,        // mapping field at the nodes, interpolated in the kernel
  tensor,       // merged J^-1 J^-T det(J) w / denominator, 6 words a point
  points_reload // points, but the coordinates a point needs are loaded
                // again for each point (L1 hits) instead of held
};

// A load the compiler may neither merge with another nor hoist: the
// coordinates are read again where they are needed, not kept in registers.
__device__ __forceinline__ double
load_again(const double *p)
{
  double v;
  asm volatile("ld.global.nc.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}

template <bool derivative>
__host__ __device__ constexpr double
matrix_1d(const int row, const int m)
{
  return derivative ? colloc(row, m) : shape(row, m);
}

// In-place pass over a cell's 27 registers in direction dir (stride 1, 3,
// 9): v(row) = sum_m M(row, m) v(m), or with M transposed.
template <int dir, bool derivative, bool transpose, bool memory = false>
__device__ __forceinline__ void
cell_pass(double v[27], const double *one_d = nullptr)
{
  constexpr int stride = dir == 0 ? 1 : dir == 1 ? 3 : 9;
#pragma unroll
  for (int line = 0; line < 9; ++line)
  {
    const int    a = line % 3, b = line / 3;
    const int    base  = dir == 0   ? 3 * a + 9 * b
                         : dir == 1 ? a + 9 * b
                                    : a + 3 * b;
    const double in[3] = {v[base], v[base + stride], v[base + 2 * stride]};
#pragma unroll
    for (int r = 0; r < 3; ++r)
    {
      double s = 0;
#pragma unroll
      for (int m = 0; m < 3; ++m)
        s += (memory      ? one_d[(derivative ? 9 : 0) +
                             (transpose ? m * 3 + r : r * 3 + m)]
              : transpose ? matrix_1d<derivative>(m, r)
                          : matrix_1d<derivative>(r, m)) *
             in[m];
      v[base + r * stride] = s;
    }
  }
}

// Reference derivative in direction e at point (i, j, k) of values v at
// the Gauss points (collocation).
template <int e, bool memory = false>
__device__ __forceinline__ double
cell_derivative(const double  v[27],
                const int     i,
                const int     j,
                const int     k,
                const double *one_d = nullptr)
{
  const int q      = i + 3 * j + 9 * k;
  const int row    = e == 0 ? i : e == 1 ? j : k;
  const int stride = e == 0 ? 1 : e == 1 ? 3 : 9;
  const int first  = q - row * stride;
  if constexpr (memory)
    return one_d[9 + row * 3] * v[first] +
           one_d[9 + row * 3 + 1] * v[first + stride] +
           one_d[9 + row * 3 + 2] * v[first + 2 * stride];
  return colloc(row, 0) * v[first] + colloc(row, 1) * v[first + stride] +
         colloc(row, 2) * v[first + 2 * stride];
}

// What the library's per-cell field kernel does differently (bits of the
// cell kernel's LIB parameter), to find what its 1.6x gap comes from.
namespace Library
{
  constexpr int geometry_indices = 1; // field through its own index list
  constexpr int center           = 2; // field relative to a cell point
  constexpr int shape_in_memory  = 4; // 1D data loaded, not immediates
  constexpr int two_divisions    = 8; // coefficient divided on its own
} // namespace Library

// CELL_MAJOR: each cell's entries contiguous, as GPU::MatrixFree stores
// them; a warp's load of one entry then touches 32 cache lines.
template <CellGeometry G,
          int          BS,
          int          MINB,
          bool         CELL_MAJOR = false,
          int          LIB        = 0>
__global__ void
__launch_bounds__(BS, MINB)
    cell_kernel(const DeviceData d, const double *src, double *dst)
{
  constexpr bool     MEM  = (LIB & Library::shape_in_memory) != 0;
  const unsigned int cell = blockIdx.x * BS + threadIdx.x;
  if (cell >= d.n_cells)
    return;
  const unsigned int n = d.n_cells;
  // Entry e of this cell in an array of `per_cell` entries a cell.
  const auto at =
      [&](const auto *a, const auto *a_t, const int per_cell, const int e)
  {
    return CELL_MAJOR ? __ldg(a + std::size_t(cell) * per_cell + e)
                      : __ldg(a_t + e * std::size_t(n) + cell);
  };
  double u[27];
#pragma unroll
  for (int v = 0; v < 27; ++v)
    u[v] = __ldg(src + at(d.dofs, d.dofs_t, 27, v));
  double X[G == CellGeometry::tensor ? 1 : 3][27];
  if constexpr (G == CellGeometry::points)
  {
#pragma unroll
    for (int c = 0; c < 3; ++c)
#pragma unroll
      for (int q = 0; q < 27; ++q)
        X[c][q] = at(d.points, d.points_t, 81, c * 27 + q);
  }
  else if constexpr (G == CellGeometry::field)
  {
#pragma unroll
    for (int v = 0; v < 27; ++v)
    {
      const double *x =
          d.field +
          3 * std::size_t((LIB & Library::geometry_indices)
                              ? at(d.geometry_indices, d.dofs_t, 27, v)
                              : at(d.dofs, d.dofs_t, 27, v));
#pragma unroll
      for (int c = 0; c < 3; ++c)
        X[c][v] =
            __ldg(x + c) -
            ((LIB & Library::center) ? __ldg(d.centers + 3 * cell + c) : 0.);
    }
#pragma unroll
    for (int c = 0; c < 3; ++c)
    {
      cell_pass<0, false, false, MEM>(X[c], d.one_d);
      cell_pass<1, false, false, MEM>(X[c], d.one_d);
      cell_pass<2, false, false, MEM>(X[c], d.one_d);
    }
  }
  cell_pass<0, false, false, MEM>(u, d.one_d);
  cell_pass<1, false, false, MEM>(u, d.one_d);
  cell_pass<2, false, false, MEM>(u, d.one_d);
  double r[27];
#pragma unroll
  for (int q = 0; q < 27; ++q)
    r[q] = 0;
#pragma unroll
  for (int q = 0; q < 27; ++q)
  {
    const int    i = q % 3, j = q / 3 % 3, k = q / 9;
    const double g[3] = {cell_derivative<0, MEM>(u, i, j, k, d.one_d),
                         cell_derivative<1, MEM>(u, i, j, k, d.one_d),
                         cell_derivative<2, MEM>(u, i, j, k, d.one_d)};
    double       f[3];
    if constexpr (G == CellGeometry::tensor)
    {
      double T[6];
#pragma unroll
      for (int s = 0; s < 6; ++s)
        T[s] = at(d.tensor_c, d.tensor_t, 162, s * 27 + q);
      f[0] = T[0] * g[0] + T[1] * g[1] + T[2] * g[2];
      f[1] = T[1] * g[0] + T[3] * g[1] + T[4] * g[2];
      f[2] = T[2] * g[0] + T[4] * g[1] + T[5] * g[2];
    }
    else if constexpr (G == CellGeometry::points_reload)
    {
      const int qi[3] = {i, j, k}, stride[3] = {1, 3, 9};
      double    J[3][3], x[3];
#pragma unroll
      for (int e = 0; e < 3; ++e)
      {
        const int first = q - qi[e] * stride[e];
#pragma unroll
        for (int c = 0; c < 3; ++c)
        {
          double line[3];
#pragma unroll
          for (int l = 0; l < 3; ++l)
            line[l] = load_again(
                d.points_t + (c * 27 + first + l * stride[e]) * std::size_t(n) +
                cell);
          J[c][e] = colloc(qi[e], 0) * line[0] + colloc(qi[e], 1) * line[1] +
                    colloc(qi[e], 2) * line[2];
          if (e == 0)
            x[c] = line[i];
        }
      }
      point_flux(J,
                 g,
                 weight(i) * weight(j) * weight(k),
                 coefficient_denominator(x[0], x[1], x[2]),
                 f);
    }
    else
    {
      double J[3][3];
#pragma unroll
      for (int c = 0; c < 3; ++c)
      {
        J[c][0] = cell_derivative<0, MEM>(X[c], i, j, k, d.one_d);
        J[c][1] = cell_derivative<1, MEM>(X[c], i, j, k, d.one_d);
        J[c][2] = cell_derivative<2, MEM>(X[c], i, j, k, d.one_d);
      }
      double x[3] = {X[0][q], X[1][q], X[2][q]};
      if constexpr ((LIB & Library::center) != 0)
        for (int c = 0; c < 3; ++c)
          x[c] += __ldg(d.centers + 3 * cell + c);
      const double w = MEM ? d.one_d[18 + i] * d.one_d[18 + j] * d.one_d[18 + k]
                           : weight(i) * weight(j) * weight(k);
      const double denominator = coefficient_denominator(x[0], x[1], x[2]);
      if constexpr ((LIB & Library::two_divisions) != 0)
        point_flux(J, g, w * (1. / denominator), 1., f);
      else
        point_flux(J, g, w, denominator, f);
    }
    // Test with the gradient: the transposed collocation derivatives.
#pragma unroll
    for (int m = 0; m < 3; ++m)
    {
      r[m + 3 * j + 9 * k] +=
          (MEM ? d.one_d[9 + i * 3 + m] : colloc(i, m)) * f[0];
      r[i + 3 * m + 9 * k] +=
          (MEM ? d.one_d[9 + j * 3 + m] : colloc(j, m)) * f[1];
      r[i + 3 * j + 9 * m] +=
          (MEM ? d.one_d[9 + k * 3 + m] : colloc(k, m)) * f[2];
    }
  }
  cell_pass<2, false, true, MEM>(r, d.one_d);
  cell_pass<1, false, true, MEM>(r, d.one_d);
  cell_pass<0, false, true, MEM>(r, d.one_d);
#pragma unroll
  for (int v = 0; v < 27; ++v)
    atomicAdd(dst + at(d.dofs, d.dofs_t, 27, v), r[v]);
}

__global__ void
copy_kernel(const double *src, double *dst, const std::size_t n)
{
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
       i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

#endif
