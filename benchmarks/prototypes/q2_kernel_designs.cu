// Q2 (3D) Laplace cell kernels in four thread layouts (one thread per
// point, per column of points, per column with shuffles, per cell), on a curved
// structured mesh, against cuSPARSE in the same run: which layout can reach
// the issue's Q2 target (4x cuSPARSE) before one is built into
// GPU::FEEvaluation. Standalone prototype (CUDA only, no deal.II); every
// kernel is checked against a direct CPU evaluation on a small mesh.
//   q2_kernel_designs [n_max [run|profile [lexicographic|hierarchical|
//                                          morton|interleaved]]]
// prints a table and writes q2_kernel_designs.csv.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cusparse.h>
#include <random>
#include <string>
#include <vector>

// One check for CUDA and cuSPARSE calls: a failed call prints what failed
// where, and ends the program.
inline const char *
failure(const cudaError_t e)
{
  return e == cudaSuccess ? nullptr : cudaGetErrorString(e);
}
inline const char *
failure(const cusparseStatus_t s)
{
  return s == CUSPARSE_STATUS_SUCCESS ? nullptr : cusparseGetErrorString(s);
}
template <typename Status>
void
check_call(const Status status,
           const char  *call,
           const char  *file,
           const int    line)
{
  if (const char *what = failure(status))
  {
    std::fprintf(stderr, "%s failed at %s:%d: %s\n", call, file, line, what);
    std::exit(1);
  }
}
#define CHECK(call) check_call((call), #call, __FILE__, __LINE__)

// 1D data as functions of compile-time indices, so that the unrolled loops
// over the register direction fold them into immediates.
__host__ __device__ constexpr double
gauss(const int q)
{
  return q == 0   ? 0.5 - 0.3872983346207417
         : q == 1 ? 0.5
                  : 0.5 + 0.3872983346207417;
}
__host__ __device__ constexpr double
weight(const int q)
{
  return q == 1 ? 8. / 18. : 5. / 18.;
}
__host__ __device__ constexpr double
node(const int m)
{
  return 0.5 * m;
}
// Lagrange polynomial m on the nodes {0, 1/2, 1}, and its derivative.
__host__ __device__ constexpr double
lagrange(const int m, const double x)
{
  double r = 1;
  for (int n = 0; n < 3; ++n)
    if (n != m)
      r *= (x - node(n)) / (node(m) - node(n));
  return r;
}
// Derivative at x of the Lagrange polynomial m on the nodes (or, with
// on_gauss, on the Gauss points).
template <bool on_gauss = false>
__host__ __device__ constexpr double
lagrange_derivative(const int m, const double x)
{
  auto   point = [](const int n) { return on_gauss ? gauss(n) : node(n); };
  double r     = 0;
  for (int l = 0; l < 3; ++l)
    if (l != m)
    {
      double p = 1. / (point(m) - point(l));
      for (int n = 0; n < 3; ++n)
        if (n != m && n != l)
          p *= (x - point(n)) / (point(m) - point(n));
      r += p;
    }
  return r;
}
// Collocation derivative: at Gauss point q, of the Lagrange polynomial m on
// the Gauss points.
__host__ __device__ constexpr double
colloc(const int q, const int m)
{
  return lagrange_derivative<true>(m, gauss(q));
}
__host__ __device__ constexpr double
shape(const int q, const int m)
{
  return lagrange(m, gauss(q));
}

// The coefficient is 1 / coefficient_denominator(x); it is folded into the
// division by det(J), so a point costs one division.
__host__ __device__ __forceinline__ double
coefficient_denominator(const double x, const double y, const double z)
{
  return 0.05 + 2. * (x * x + y * y + z * z);
}

// Physical flux of one point: J[c][e] = d x_c / d xi_e, g = reference
// gradient; returns J^{-1} J^{-T} g det(J) w / denominator in f.
__host__ __device__ __forceinline__ void
point_flux(const double J[3][3],
           const double g[3],
           const double w,
           const double denominator,
           double       f[3])
{
  const double c00 = J[1][1] * J[2][2] - J[1][2] * J[2][1];
  const double c01 = J[1][2] * J[2][0] - J[1][0] * J[2][2];
  const double c02 = J[1][0] * J[2][1] - J[1][1] * J[2][0];
  const double det = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
  // adjugate: inv = adj / det, adj[e][c]
  double adj[3][3];
  adj[0][0] = c00;
  adj[1][0] = c01;
  adj[2][0] = c02;
  adj[0][1] = J[0][2] * J[2][1] - J[0][1] * J[2][2];
  adj[1][1] = J[0][0] * J[2][2] - J[0][2] * J[2][0];
  adj[2][1] = J[0][1] * J[2][0] - J[0][0] * J[2][1];
  adj[0][2] = J[0][1] * J[1][2] - J[0][2] * J[1][1];
  adj[1][2] = J[0][2] * J[1][0] - J[0][0] * J[1][2];
  adj[2][2] = J[0][0] * J[1][1] - J[0][1] * J[1][0];
  // physical gradient grad_c = sum_d inv[d][c] g_d; f_d = sum_c inv[d][c]
  // grad_c times a w det: with inv = adj / det that is adj (adj^T g) a w / det.
  const double s = w / (det * denominator);
  double       p[3];
  for (int c = 0; c < 3; ++c)
    p[c] = (adj[0][c] * g[0] + adj[1][c] * g[1] + adj[2][c] * g[2]) * s;
  for (int d = 0; d < 3; ++d)
    f[d] = adj[d][0] * p[0] + adj[d][1] * p[1] + adj[d][2] * p[2];
}

struct Mesh
{
  int                       n;         // cells per direction
  int                       N;         // nodes per direction, 2n + 1
  std::vector<unsigned int> cell_dofs; // [cell * 27 + lexicographic]
  std::vector<double>       field;     // [node * 3 + d]
  std::vector<double>       points;    // [cell * 81 + d * 27 + q]
  // Number of grid node (c * N + b) * N + a.
  std::vector<unsigned int> node_number;
};

Mesh
make_mesh(const int n)
{
  Mesh m;
  m.n             = n;
  m.N             = 2 * n + 1;
  const int    N  = m.N;
  const double pi = 3.141592653589793;
  m.field.resize(std::size_t(N) * N * N * 3);
  m.node_number.resize(std::size_t(N) * N * N);
  for (std::size_t g = 0; g < m.node_number.size(); ++g)
    m.node_number[g] = g;
  for (int c = 0; c < N; ++c)
    for (int b = 0; b < N; ++b)
      for (int a = 0; a < N; ++a)
      {
        const double      X[3] = {-1. + 2. * a / (N - 1),
                                  -1. + 2. * b / (N - 1),
                                  -1. + 2. * c / (N - 1)};
        const std::size_t i    = (std::size_t(c) * N + b) * N + a;
        for (int d = 0; d < 3; ++d)
          m.field[i * 3 + d] = X[d] + 0.1 * std::sin(pi * X[(d + 1) % 3]) *
                                          std::cos(0.5 * pi * X[(d + 2) % 3]);
      }
  const std::size_t n_cells = std::size_t(n) * n * n;
  m.cell_dofs.resize(n_cells * 27);
  m.points.resize(n_cells * 81);
  for (int cz = 0; cz < n; ++cz)
    for (int cy = 0; cy < n; ++cy)
      for (int cx = 0; cx < n; ++cx)
      {
        const std::size_t cell = (std::size_t(cz) * n + cy) * n + cx;
        for (int k = 0; k < 3; ++k)
          for (int j = 0; j < 3; ++j)
            for (int i = 0; i < 3; ++i)
              m.cell_dofs[cell * 27 + i + 3 * j + 9 * k] =
                  ((2 * cz + k) * N + 2 * cy + j) * N + 2 * cx + i;
        for (int q = 0; q < 27; ++q)
          for (int d = 0; d < 3; ++d)
          {
            double x = 0;
            for (int v = 0; v < 27; ++v)
              x += shape(q % 3, v % 3) * shape(q / 3 % 3, v / 3 % 3) *
                   shape(q / 9, v / 9) *
                   m.field[std::size_t(m.cell_dofs[cell * 27 + v]) * 3 + d];
            m.points[cell * 81 + d * 27 + q] = x;
          }
      }
  return m;
}

// Cells in hierarchical (Morton) order, as deal.II iterates over a refined
// coarse cell; DoF numbers unchanged.
void
order_cells_hierarchically(Mesh &m)
{
  const std::size_t n_cells = std::size_t(m.n) * m.n * m.n;
  auto              morton  = [&](const std::size_t cell)
  {
    const unsigned int c[3] = {unsigned(cell % m.n),
                               unsigned(cell / m.n % m.n),
                               unsigned(cell / m.n / m.n)};
    std::uint64_t      code = 0;
    for (int bit = 0; bit < 21; ++bit)
      for (int d = 0; d < 3; ++d)
        code |= std::uint64_t((c[d] >> bit) & 1u) << (3 * bit + d);
    return code;
  };
  std::vector<std::size_t> order(n_cells);
  for (std::size_t c = 0; c < n_cells; ++c)
    order[c] = c;
  std::sort(order.begin(),
            order.end(),
            [&](const std::size_t a, const std::size_t b)
            { return morton(a) < morton(b); });
  std::vector<unsigned int> dofs(m.cell_dofs.size());
  std::vector<double>       points(m.points.size());
  for (std::size_t c = 0; c < n_cells; ++c)
  {
    std::copy_n(&m.cell_dofs[order[c] * 27], 27, &dofs[c * 27]);
    std::copy_n(&m.points[order[c] * 81], 81, &points[c * 81]);
  }
  m.cell_dofs.swap(dofs);
  m.points.swap(points);
}

// DoFs renumbered in the order the cells touch them. group == 1: cell by
// cell, as deal.II numbers them (with hierarchical cells: deal.II's
// numbering). group == 32: a warp's cells at a time, each cell position
// in turn, so that the new DoFs a warp reads at one position of its cells
// have consecutive numbers.
void
renumber_by_touch(Mesh &m, const unsigned int group)
{
  const std::size_t         n_cells = std::size_t(m.n) * m.n * m.n;
  const unsigned int        unset   = ~0u;
  std::vector<unsigned int> new_index(m.field.size() / 3, unset);
  std::vector<double>       field(m.field.size());
  unsigned int              next  = 0;
  const auto                touch = [&](const std::size_t c, const int v)
  {
    const unsigned int old = m.cell_dofs[c * 27 + v];
    if (new_index[old] != unset)
      return;
    new_index[old] = next++;
    for (int d = 0; d < 3; ++d)
      field[std::size_t(new_index[old]) * 3 + d] = m.field[old * 3 + d];
  };
  for (std::size_t first = 0; first < n_cells; first += group)
  {
    const std::size_t last = std::min<std::size_t>(first + group, n_cells);
    for (int v = 0; v < 27; ++v)
      for (std::size_t c = first; c < last; ++c)
        touch(c, v);
  }
  for (auto &dof : m.cell_dofs)
    dof = new_index[dof];
  for (auto &number : m.node_number)
    number = new_index[number];
  m.field.swap(field);
}

// Direct evaluation (no sum factorization, nodal derivatives): reference.
void
reference(const Mesh                &m,
          const std::vector<double> &src,
          std::vector<double>       &dst)
{
  std::fill(dst.begin(), dst.end(), 0.);
  const std::size_t n_cells = std::size_t(m.n) * m.n * m.n;
  for (std::size_t cell = 0; cell < n_cells; ++cell)
  {
    const unsigned int *dofs    = &m.cell_dofs[cell * 27];
    double              out[27] = {};
    for (int q = 0; q < 27; ++q)
    {
      const int qi[3]   = {q % 3, q / 3 % 3, q / 9};
      double    J[3][3] = {}, g[3] = {}, x[3] = {};
      double    grad_phi[27][3];
      for (int v = 0; v < 27; ++v)
      {
        const int vi[3] = {v % 3, v / 3 % 3, v / 9};
        for (int e = 0; e < 3; ++e)
        {
          double p = 1;
          for (int d = 0; d < 3; ++d)
            p *= d == e ? lagrange_derivative(vi[d], gauss(qi[d]))
                        : lagrange(vi[d], gauss(qi[d]));
          grad_phi[v][e] = p;
          g[e] += p * src[dofs[v]];
          for (int c = 0; c < 3; ++c)
            J[c][e] += p * m.field[std::size_t(dofs[v]) * 3 + c];
        }
        for (int c = 0; c < 3; ++c)
          x[c] += lagrange(vi[0], gauss(qi[0])) *
                  lagrange(vi[1], gauss(qi[1])) *
                  lagrange(vi[2], gauss(qi[2])) *
                  m.field[std::size_t(dofs[v]) * 3 + c];
      }
      double f[3];
      point_flux(J,
                 g,
                 weight(qi[0]) * weight(qi[1]) * weight(qi[2]),
                 coefficient_denominator(x[0], x[1], x[2]),
                 f);
      for (int v = 0; v < 27; ++v)
        out[v] += f[0] * grad_phi[v][0] + f[1] * grad_phi[v][1] +
                  f[2] * grad_phi[v][2];
    }
    for (int v = 0; v < 27; ++v)
      dst[dofs[v]] += out[v];
  }
}

struct DeviceData
{
  unsigned int        n_cells;
  const unsigned int *dofs;
  const unsigned int *geometry_indices; // separate array, as in the module
  const double       *points;
  const double       *field;
  // Entry-major copies for the "cell" layout: dofs_t[v * n_cells + cell],
  // points_t[(d * 27 + q) * n_cells + cell], tensor_t[(s * 27 + q) *
  // n_cells + cell] with s = 00, 01, 02, 11, 12, 22.
  const unsigned int *dofs_t;
  const double       *points_t;
  const double       *tensor_t;
  const double       *tensor_c; // cell-major: [cell * 162 + s * 27 + q]
  // For the library variants of the cell layout (Library bits): a point
  // per cell the field is taken relative to, and the 1D data in memory
  // ([0, 9) shape, [9, 18) collocation, [18, 21) weights).
  const double *centers;
  const double *one_d;
};

// Shape values and collocation derivatives for the thread-dependent
// directions, in shared memory (one block barrier).
__device__ void
stage_tables(double *tab)
{
  if (threadIdx.x < 9)
  {
    tab[threadIdx.x]     = shape(threadIdx.x / 3, threadIdx.x % 3);
    tab[9 + threadIdx.x] = colloc(threadIdx.x / 3, threadIdx.x % 3);
  }
  __syncthreads();
}

// Column layouts: the DoF indices, values and geometry (quadrature points,
// or the mapping field at the nodes) of column t of a cell, k = 0, 1, 2.
template <bool FIELD>
__device__ __forceinline__ void
load_column(const DeviceData  &d,
            const double      *src,
            const unsigned int cell,
            const unsigned int t,
            const bool         active,
            unsigned int       gi[3],
            double             u[3],
            double             x[3][3])
{
  const std::size_t c = active ? cell : 0;
#pragma unroll
  for (int k = 0; k < 3; ++k)
  {
    const std::size_t q = c * 27 + t + 9 * k;
    gi[k]               = d.dofs[q];
    u[k]                = active ? src[gi[k]] : 0.;
#pragma unroll
    for (int e = 0; e < 3; ++e)
      x[e][k] = FIELD ? d.field[std::size_t(d.geometry_indices[q]) * 3 + e]
                      : d.points[c * 81 + e * 27 + t + 9 * k];
  }
}

// Interpolation along the register direction (z), in place.
__device__ __forceinline__ void
z_interpolate(double v[3])
{
  double r[3];
#pragma unroll
  for (int k = 0; k < 3; ++k)
    r[k] = shape(k, 0) * v[0] + shape(k, 1) * v[1] + shape(k, 2) * v[2];
#pragma unroll
  for (int k = 0; k < 3; ++k)
    v[k] = r[k];
}

// Fluxes at the three points of column (i, j): from the reference
// derivatives gx, gy (and the values u for the one in z), the x and y
// derivatives jx(c, k), jy(c, k) of the coordinates x (the one in z from x
// itself). The x and y fluxes replace gx and gy, the z flux goes to fz.
// jx and jy are called inside the loop over the points, so that a layout
// that reads them from shared memory keeps few of them in registers.
template <typename JX, typename JY>
__device__ __forceinline__ void
column_fluxes(const unsigned int i,
              const unsigned int j,
              const double       u[3],
              const double       x[3][3],
              const JX          &jx,
              const JY          &jy,
              double             gx[3],
              double             gy[3],
              double             fz[3])
{
  const double wij =
      (i == 1 ? 8. / 18 : 5. / 18) * (j == 1 ? 8. / 18 : 5. / 18);
#pragma unroll
  for (int k = 0; k < 3; ++k)
  {
    double J[3][3];
#pragma unroll
    for (int c = 0; c < 3; ++c)
    {
      J[c][0] = jx(c, k);
      J[c][1] = jy(c, k);
      J[c][2] = colloc(k, 0) * x[c][0] + colloc(k, 1) * x[c][1] +
                colloc(k, 2) * x[c][2];
    }
    const double g[3] = {gx[k],
                         gy[k],
                         colloc(k, 0) * u[0] + colloc(k, 1) * u[1] +
                             colloc(k, 2) * u[2]};
    double       f[3];
    point_flux(J,
               g,
               wij * weight(k),
               coefficient_denominator(x[0][k], x[1][k], x[2][k]),
               f);
    gx[k] = f[0];
    gy[k] = f[1];
    fz[k] = f[2];
  }
}

// Test with the z derivative (added to r), then the transposed
// interpolation in z, into v.
__device__ __forceinline__ void
z_integrate(double r[3], const double fz[3], double v[3])
{
#pragma unroll
  for (int k = 0; k < 3; ++k)
    r[k] += colloc(0, k) * fz[0] + colloc(1, k) * fz[1] + colloc(2, k) * fz[2];
#pragma unroll
  for (int k = 0; k < 3; ++k)
    v[k] = shape(0, k) * r[0] + shape(1, k) * r[1] + shape(2, k) * r[2];
}

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

template <typename F>
double
time_ms(const F &f, const int reps)
{
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  f();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> times;
  for (int r = 0; r < 3; ++r)
  {
    CHECK(cudaEventRecord(a));
    for (int i = 0; i < reps; ++i)
      f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    times.push_back(ms / reps);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return *std::min_element(times.begin(), times.end());
}

template <typename T>
T *
to_device(const std::vector<T> &v)
{
  T *p;
  CHECK(cudaMalloc(&p, sizeof(T) * std::max<std::size_t>(v.size(), 1)));
  CHECK(cudaMemcpy(p, v.data(), sizeof(T) * v.size(), cudaMemcpyHostToDevice));
  return p;
}

// Device copies of a mesh's data, with the entry-major arrays of the cell
// layout and the merged tensor computed here from the points (collocation
// derivatives are exact for the Q2 map).
DeviceData
upload(const Mesh &m)
{
  const std::size_t         n = std::size_t(m.n) * m.n * m.n;
  std::vector<unsigned int> dofs_t(n * 27);
  std::vector<double> points_t(n * 81), tensor_t(n * 162), tensor_c(n * 162);
  for (std::size_t cell = 0; cell < n; ++cell)
  {
    for (int v = 0; v < 27; ++v)
      dofs_t[v * n + cell] = m.cell_dofs[cell * 27 + v];
    for (int e = 0; e < 81; ++e)
      points_t[e * n + cell] = m.points[cell * 81 + e];
    const double *x = &m.points[cell * 81];
    for (int q = 0; q < 27; ++q)
    {
      const int qi[3] = {q % 3, q / 3 % 3, q / 9}, stride[3] = {1, 3, 9};
      double    J[3][3];
      for (int c = 0; c < 3; ++c)
        for (int e = 0; e < 3; ++e)
        {
          const int first = q - qi[e] * stride[e];
          J[c][e]         = 0;
          for (int l = 0; l < 3; ++l)
            J[c][e] += colloc(qi[e], l) * x[c * 27 + first + l * stride[e]];
        }
      // T = adj adj^T w / (det denominator): the flux of point_flux is T g.
      double T[3][3];
      for (int col = 0; col < 3; ++col)
      {
        const double g[3] = {
            double(col == 0), double(col == 1), double(col == 2)};
        double f[3];
        point_flux(J,
                   g,
                   weight(qi[0]) * weight(qi[1]) * weight(qi[2]),
                   coefficient_denominator(x[q], x[27 + q], x[54 + q]),
                   f);
        for (int row = 0; row < 3; ++row)
          T[row][col] = f[row];
      }
      const double sym[6] = {
          T[0][0], T[0][1], T[0][2], T[1][1], T[1][2], T[2][2]};
      for (int c = 0; c < 6; ++c)
      {
        tensor_t[(c * 27 + q) * n + cell] = sym[c];
        tensor_c[cell * 162 + c * 27 + q] = sym[c];
      }
    }
  }
  std::vector<double> centers(n * 3), one_d(21);
  for (std::size_t cell = 0; cell < n; ++cell)
    for (int c = 0; c < 3; ++c)
      centers[cell * 3 + c] =
          m.field[std::size_t(m.cell_dofs[cell * 27 + 13]) * 3 + c];
  for (int q = 0; q < 3; ++q)
  {
    for (int v = 0; v < 3; ++v)
    {
      one_d[q * 3 + v]     = shape(q, v);
      one_d[9 + q * 3 + v] = colloc(q, v);
    }
    one_d[18 + q] = weight(q);
  }
  return DeviceData{unsigned(n),
                    to_device(m.cell_dofs),
                    to_device(m.cell_dofs),
                    to_device(m.points),
                    to_device(m.field),
                    to_device(dofs_t),
                    to_device(points_t),
                    to_device(tensor_t),
                    to_device(tensor_c),
                    to_device(centers),
                    to_device(one_d)};
}

void
release(const DeviceData &d)
{
  CHECK(cudaFree((void *)d.dofs));
  CHECK(cudaFree((void *)d.geometry_indices));
  CHECK(cudaFree((void *)d.centers));
  CHECK(cudaFree((void *)d.one_d));
  CHECK(cudaFree((void *)d.points));
  CHECK(cudaFree((void *)d.field));
  CHECK(cudaFree((void *)d.dofs_t));
  CHECK(cudaFree((void *)d.points_t));
  CHECK(cudaFree((void *)d.tensor_t));
  CHECK(cudaFree((void *)d.tensor_c));
}

struct Kernel
{
  const char *name;
  void (*launch)(const DeviceData &, const double *, double *);
};

template <int WPB, int MINB = 1>
void
launch_point(const DeviceData &d, const double *s, double *t)
{
  point_kernel<WPB, MINB><<<(d.n_cells + WPB - 1) / WPB, 32 * WPB>>>(d, s, t);
}
template <bool FIELD, int WPB, int MINB = 1>
void
launch_shuffle(const DeviceData &d, const double *s, double *t)
{
  const unsigned int warps = (d.n_cells + 2) / 3;
  shuffle_kernel<FIELD, WPB, MINB>
      <<<(warps + WPB - 1) / WPB, 32 * WPB>>>(d, s, t);
}
template <bool FIELD, int WPB, int MINB = 1>
void
launch_column(const DeviceData &d, const double *s, double *t)
{
  const unsigned int warps = (d.n_cells + 2) / 3;
  column_kernel<FIELD, WPB, MINB>
      <<<(warps + WPB - 1) / WPB, 32 * WPB>>>(d, s, t);
}

template <CellGeometry G,
          int          BS,
          int          MINB       = 1,
          bool         CELL_MAJOR = false,
          int          LIB        = 0>
void
launch_cell(const DeviceData &d, const double *s, double *t)
{
  cell_kernel<G, BS, MINB, CELL_MAJOR, LIB>
      <<<(d.n_cells + BS - 1) / BS, BS>>>(d, s, t);
}

// Q2 sparsity of the structured mesh: node a couples with the nodes of the
// cells around it (vertex nodes +-2, midpoints +-1 per direction).
void
build_csr(const Mesh &m, std::vector<int> &row_ptr, std::vector<int> &cols)
{
  const int         N      = m.N;
  const std::size_t n_rows = std::size_t(N) * N * N;
  // Grid node (a, b, c) -> its number in the mesh, and back.
  std::vector<unsigned int> grid_of(n_rows);
  for (std::size_t g = 0; g < n_rows; ++g)
    grid_of[m.node_number[g]] = g;
  row_ptr.assign(n_rows + 1, 0);
  cols.clear();
  auto range = [&](const int a, int &lo, int &hi)
  {
    const int r = a % 2 == 0 ? 2 : 1;
    lo          = std::max(0, a - r);
    hi          = std::min(N - 1, a + r);
  };
  for (std::size_t row = 0; row < n_rows; ++row)
  {
    const int a = grid_of[row] % N, b = grid_of[row] / N % N,
              c = grid_of[row] / N / N;
    int a0, a1, b0, b1, c0, c1;
    range(a, a0, a1);
    range(b, b0, b1);
    range(c, c0, c1);
    const std::size_t begin = cols.size();
    for (int z = c0; z <= c1; ++z)
      for (int y = b0; y <= b1; ++y)
        for (int x = a0; x <= a1; ++x)
          cols.push_back(m.node_number[(z * N + y) * N + x]);
    std::sort(cols.begin() + begin, cols.end());
    row_ptr[row + 1] = int(cols.size());
  }
}

int
main(int argc, char **argv)
{
  const int n_max = argc > 1 ? std::atoi(argv[1]) : 128;
  // "profile": one launch of each kernel at n_max, for ncu.
  const bool profile = argc > 2 && std::string(argv[2]) == "profile";
  // Cell order and DoF numbering: "lexicographic" (both), "hierarchical"
  // (as deal.II orders and numbers a refined coarse cell), "morton" (cells
  // hierarchical, DoFs lexicographic), "interleaved" (cells hierarchical,
  // DoFs numbered a warp's cells at a time, see renumber_by_touch).
  const std::string numbering = argc > 3 ? argv[3] : "lexicographic";
  if (numbering != "lexicographic" && numbering != "hierarchical" &&
      numbering != "morton" && numbering != "interleaved")
  {
    std::fprintf(stderr, "unknown numbering %s\n", numbering.c_str());
    return 1;
  }
  auto mesh = [&](const int n)
  {
    Mesh m = make_mesh(n);
    if (numbering != "lexicographic")
      order_cells_hierarchically(m);
    if (numbering == "hierarchical")
      renumber_by_touch(m, 1);
    else if (numbering == "interleaved")
      renumber_by_touch(m, 32);
    return m;
  };
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, %s numbering\n",
              prop.name,
              prop.multiProcessorCount,
              numbering.c_str());

  const Kernel kernels[] = {
      {"point-1w", launch_point<1>},
      {"point-4w", launch_point<4>},
      {"column-points-2w", launch_column<false, 2>},
      {"column-points-4w", launch_column<false, 4>},
      {"column-field-2w", launch_column<true, 2>},
      {"column-field-4w", launch_column<true, 4>},
      {"point-4w-r40", launch_point<4, 12>},
      {"column-points-4w-r80", launch_column<false, 4, 6>},
      {"column-points-4w-r64", launch_column<false, 4, 8>},
      {"column-field-4w-r80", launch_column<true, 4, 6>},
      {"column-field-4w-r64", launch_column<true, 4, 8>},
      {"column-points-4w-r96", launch_column<false, 4, 5>},
      {"column-field-4w-r96", launch_column<true, 4, 5>},
      {"column-points-8w-r88", launch_column<false, 8, 3>},
      {"shuffle-points-4w", launch_shuffle<false, 4>},
      {"shuffle-points-4w-r80", launch_shuffle<false, 4, 6>},
      {"shuffle-field-4w", launch_shuffle<true, 4>},
      {"shuffle-field-4w-r80", launch_shuffle<true, 4, 6>},
      {"cell-points-128", launch_cell<CellGeometry::points, 128>},
      {"cell-points-128-r168", launch_cell<CellGeometry::points, 128, 3>},
      {"cell-points-128-r128", launch_cell<CellGeometry::points, 128, 4>},
      {"cell-field-128", launch_cell<CellGeometry::field, 128>},
      {"cell-field-128-r168", launch_cell<CellGeometry::field, 128, 3>},
      {"cell-tensor-128", launch_cell<CellGeometry::tensor, 128>},
      {"cell-points-128-cellmajor",
       launch_cell<CellGeometry::points, 128, 1, true>},
      {"cell-field-128-cellmajor",
       launch_cell<CellGeometry::field, 128, 1, true>},
      {"cell-field-cellmajor-lib-indices",
       launch_cell<CellGeometry::field, 128, 1, true, 1>},
      {"cell-field-cellmajor-lib-center",
       launch_cell<CellGeometry::field, 128, 1, true, 2>},
      {"cell-field-cellmajor-lib-shape",
       launch_cell<CellGeometry::field, 128, 1, true, 4>},
      {"cell-field-cellmajor-lib-divisions",
       launch_cell<CellGeometry::field, 128, 1, true, 8>},
      {"cell-field-cellmajor-lib-all",
       launch_cell<CellGeometry::field, 128, 1, true, 15>},
      {"cell-tensor-128-cellmajor",
       launch_cell<CellGeometry::tensor, 128, 1, true>},
      {"cell-tensor-128-r168", launch_cell<CellGeometry::tensor, 128, 3>},
      {"cell-tensor-128-r128", launch_cell<CellGeometry::tensor, 128, 4>},
      {"cell-tensor-128-r96", launch_cell<CellGeometry::tensor, 128, 5>},
      {"cell-points-reload-128", launch_cell<CellGeometry::points_reload, 128>},
      {"cell-points-reload-128-r168",
       launch_cell<CellGeometry::points_reload, 128, 3>},
      {"cell-points-reload-128-r128",
       launch_cell<CellGeometry::points_reload, 128, 4>}};

  if (profile)
  {
    const Mesh        m      = mesh(n_max);
    const std::size_t n_dofs = std::size_t(m.N) * m.N * m.N;
    const DeviceData  d      = upload(m);
    double           *s      = to_device(std::vector<double>(n_dofs, 1.)), *t;
    CHECK(cudaMalloc(&t, sizeof(double) * n_dofs));
    for (const auto &k : kernels)
    {
      k.launch(d, s, t);
      CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    return 0;
  }
  // Correctness on a small mesh against the direct CPU evaluation.
  {
    const Mesh          m      = mesh(5);
    const std::size_t   n_dofs = std::size_t(m.N) * m.N * m.N;
    std::vector<double> src(n_dofs), ref(n_dofs), out(n_dofs);
    std::mt19937        rng(3);
    std::uniform_real_distribution<double> dist(-1., 1.);
    for (auto &v : src)
      v = dist(rng);
    reference(m, src, ref);
    double ref_norm = 0;
    for (const double v : ref)
      ref_norm = std::max(ref_norm, std::abs(v));
    const DeviceData d = upload(m);
    double          *s = to_device(src), *t;
    CHECK(cudaMalloc(&t, sizeof(double) * n_dofs));
    for (const auto &k : kernels)
    {
      CHECK(cudaMemset(t, 0, sizeof(double) * n_dofs));
      k.launch(d, s, t);
      CHECK(cudaGetLastError());
      CHECK(cudaMemcpy(
          out.data(), t, sizeof(double) * n_dofs, cudaMemcpyDeviceToHost));
      double err = 0;
      for (std::size_t i = 0; i < n_dofs; ++i)
        err = std::max(err, std::abs(out[i] - ref[i]));
      std::printf("check %-18s max error / max value %.1e%s\n",
                  k.name,
                  err / ref_norm,
                  err / ref_norm < 1e-12 ? "" : "  FAILED");
      if (!(err / ref_norm < 1e-12))
        return 1;
    }
  }

  // Copy bandwidth (bytes read + written).
  double copy_bw;
  {
    const std::size_t n = std::size_t(1) << 28;
    double           *a, *b;
    CHECK(cudaMalloc(&a, n * 8));
    CHECK(cudaMalloc(&b, n * 8));
    CHECK(cudaMemset(a, 0, n * 8));
    const double ms =
        time_ms([&] { copy_kernel<<<4 * 132 * 8, 256>>>(a, b, n); }, 10);
    copy_bw = 2. * n * 8 / ms * 1e3;
    std::printf("copy bandwidth: %.3e B/s\n", copy_bw);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
  }

  FILE *csv = std::fopen("q2_kernel_designs.csv", "w");
  std::fprintf(csv,
               "cells_1d,dofs,implementation,seconds,dofs_per_second,bytes_per_"
               "dof,of_copy\n");
  std::printf("\n%9s %10s %-18s %11s %11s %8s %8s\n",
              "cells_1d",
              "DoFs",
              "implementation",
              "time [s]",
              "DoFs/s",
              "B/DoF",
              "of copy");
  for (int n = 32; n <= n_max; n *= 2)
  {
    const Mesh          m       = mesh(n);
    const std::size_t   n_dofs  = std::size_t(m.N) * m.N * m.N;
    const std::size_t   n_cells = std::size_t(n) * n * n;
    std::vector<double> src(n_dofs, 1.);
    for (std::size_t i = 0; i < n_dofs; ++i)
      src[i] = std::sin(0.001 * i);
    const DeviceData d = upload(m);
    double          *s = to_device(src), *t;
    CHECK(cudaMalloc(&t, sizeof(double) * n_dofs));
    const int reps = n_dofs < 1e6 ? 100 : 20;
    auto      row  = [&](const char *name, const double sec, const double bytes)
    {
      std::printf("%9d %10zu %-18s %11.3e %11.3e %8.1f %7.0f%%\n",
                  n,
                  n_dofs,
                  name,
                  sec,
                  n_dofs / sec,
                  bytes / n_dofs,
                  100. * bytes / sec / copy_bw);
      std::fprintf(csv,
                   "%d,%zu,%s,%.6e,%.6e,%.1f,%.3f\n",
                   n,
                   n_dofs,
                   name,
                   sec,
                   n_dofs / sec,
                   bytes / n_dofs,
                   bytes / sec / copy_bw);
    };
    for (const auto &k : kernels)
    {
      const double ms = time_ms(
          [&]
          {
            CHECK(cudaMemsetAsync(t, 0, sizeof(double) * n_dofs));
            k.launch(d, s, t);
          },
          reps);
      const bool field = std::string(k.name).find("field") != std::string::npos;
      const bool tensor =
          std::string(k.name).find("tensor") != std::string::npos;
      // indices, src, dst read and written, geometry
      const double bytes = n_cells * 27. * 4 + n_dofs * 24. +
                           (field    ? n_cells * 27. * 4 + n_dofs * 24.
                            : tensor ? n_cells * 162. * 8
                                     : n_cells * 81. * 8);
      row(k.name, ms * 1e-3, bytes);
    }
    {
      const double ms = time_ms(
          [&] { CHECK(cudaMemsetAsync(t, 0, sizeof(double) * n_dofs)); }, reps);
      row("memset-of-dst", ms * 1e-3, n_dofs * 8.);
    }
    if (n <= 64)
    {
      std::vector<int> row_ptr, cols;
      build_csr(m, row_ptr, cols);
      std::vector<double> vals(cols.size());
      for (std::size_t i = 0; i < vals.size(); ++i)
        vals[i] = 1e-3 * (i % 97);
      int             *d_rows = to_device(row_ptr), *d_cols = to_device(cols);
      double          *d_vals = to_device(vals);
      cusparseHandle_t handle;
      cusparseSpMatDescr_t A;
      cusparseDnVecDescr_t x, y;
      CHECK(cusparseCreate(&handle));
      CHECK(cusparseCreateCsr(&A,
                              n_dofs,
                              n_dofs,
                              cols.size(),
                              d_rows,
                              d_cols,
                              d_vals,
                              CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO,
                              CUDA_R_64F));
      CHECK(cusparseCreateDnVec(&x, n_dofs, s, CUDA_R_64F));
      CHECK(cusparseCreateDnVec(&y, n_dofs, t, CUDA_R_64F));
      const double one = 1, zero = 0;
      std::size_t  buffer_size;
      CHECK(cusparseSpMV_bufferSize(handle,
                                    CUSPARSE_OPERATION_NON_TRANSPOSE,
                                    &one,
                                    A,
                                    x,
                                    &zero,
                                    y,
                                    CUDA_R_64F,
                                    CUSPARSE_SPMV_ALG_DEFAULT,
                                    &buffer_size));
      void *buffer;
      CHECK(cudaMalloc(&buffer, std::max<std::size_t>(buffer_size, 1)));
      const double ms = time_ms(
          [&]
          {
            CHECK(cusparseSpMV(handle,
                               CUSPARSE_OPERATION_NON_TRANSPOSE,
                               &one,
                               A,
                               x,
                               &zero,
                               y,
                               CUDA_R_64F,
                               CUSPARSE_SPMV_ALG_DEFAULT,
                               buffer));
          },
          reps);
      row("cusparse-csr", ms * 1e-3, cols.size() * 12. + n_dofs * 20.);
      CHECK(cusparseDestroySpMat(A));
      CHECK(cusparseDestroyDnVec(x));
      CHECK(cusparseDestroyDnVec(y));
      CHECK(cusparseDestroy(handle));
      CHECK(cudaFree(buffer));
      CHECK(cudaFree(d_rows));
      CHECK(cudaFree(d_cols));
      CHECK(cudaFree(d_vals));
    }
    release(d);
    CHECK(cudaFree(s));
    CHECK(cudaFree(t));
  }
  std::fclose(csv);
  return 0;
}
