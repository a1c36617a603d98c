// Q2 (3D) Laplace cell kernels in four thread layouts (one thread per
// point, per column of points, per column with shuffles, per cell), on a curved
// structured mesh, against cuSPARSE in the same run: which layout can reach
// the issue's Q2 target (4x cuSPARSE) before one is built into
// GPU::FEEvaluation. Standalone prototype (CUDA only, no deal.II); every
// kernel is checked against a direct CPU evaluation on a small mesh.
//   q2_kernel_designs [n_max [run|profile [lexicographic|hierarchical|
//                                          morton|interleaved]]]
// prints a table and writes q2_kernel_designs.csv.
#include "q2_kernel_designs_common.h"
#include "q2_kernel_designs_layouts.h"

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
