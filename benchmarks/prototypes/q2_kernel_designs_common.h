// Q2 kernel-layout prototype (q2_kernel_designs.cu): checks of CUDA and
// cuSPARSE calls, the 1D data, the structured curved mesh, its orderings,
// the direct CPU reference and the device helpers the layouts share.
#ifndef q2_kernel_designs_common_h
#define q2_kernel_designs_common_h
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

#endif
