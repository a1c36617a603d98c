// Element matrices of a quadrature-point operation on the device, and their
// assembly into a GPU::SparseMatrix with deal.II's constraints.
#ifndef dealii_gpu_integration_element_integrator_h
#define dealii_gpu_integration_element_integrator_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/integration/point_evaluator.h>
#include <dealii-gpu/lac/sparse_matrix.h>

#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>

#include <vector>

namespace dealii
{
  namespace GPU
  {
    /**
     * Element matrices of the locally owned cells of a DoFHandler, computed
     * on the device from a quadrature-point operation, and their assembly
     * into a GPU::SparseMatrix with an AffineConstraints object applied as
     * deal.II's AffineConstraints::distribute_local_to_global() does.
     *
     * The operation is the one GPU::MatrixFreeOperator takes (operations.h:
     * LaplaceOperation, MassOperation, HelmholtzOperation,
     * ConvectionDiffusionOperation, ElasticityOperation, or a user's): a
     * bilinear form written once gives the matrix-free operator and the
     * assembled matrix. Element matrix entry (i, j) is the operation applied
     * to trial function j, tested with function i; the operation must be
     * linear in the values and gradients it reads.
     *
     * Elements: any primitive element deal.II tabulates (FE_Q, FE_DGQ on
     * quadrilaterals and hexahedra, FE_SimplexP on triangles and
     * tetrahedra, FE_WedgeP, FESystem of one of them), @p n_components
     * components. Mappings: MappingQ (and derived) or MappingCartesian on
     * hypercube cells, MappingFE on other cells: the host computes each
     * cell's mapping support points (on the set-up threads), everything per
     * quadrature point is computed on the device. Reference shape values
     * and gradients are tabulated once on the host.
     *
     * How it runs: one team of threads per cell. In chunks of quadrature
     * points the team computes the Jacobians, applies the operation to
     * every trial function at every point of the chunk, and adds the
     * chunk's part of every entry (one thread per entry, in parts over the
     * chunks). Chunk length and team size are chosen from the element size.
     */
    template <int dim, int n_components = 1, typename Number = double>
    class ElementIntegrator
    {
    public:
      struct AdditionalData
      {
        /** Cells whose element matrices are held at once (0: automatic,
         *  at most about 256 MB of matrices). */
        unsigned int cells_per_batch = 0;
        /** Threads per cell (0: automatic). */
        unsigned int threads_per_cell = 0;
        /** Quadrature points per chunk (0: automatic, from a scratch
         *  budget of 40 KB). */
        unsigned int points_per_chunk = 0;
        /** Keep every cell's mapping support points on the device after
         *  reinit(), so that assemble() runs on the device alone (true:
         *  where they take at most an eighth of the free device memory,
         *  or 2 GiB on the host backend; false: computed on the host for
         *  each batch of each call). */
        bool keep_geometry = true;
      };

      /** Set up the reference data, the list of locally owned cells and
       *  (see AdditionalData::keep_geometry) the cells' mapping support
       *  points. Call it again when the mesh or the mapping moves. Throws
       *  for an element or mapping that is not supported. */
      void reinit(const Mapping<dim>    &mapping,
                  const DoFHandler<dim> &dof_handler,
                  const Quadrature<dim> &quadrature,
                  const AdditionalData  &additional_data = AdditionalData());

      /** Locally owned cells, in the order of the element matrices. */
      unsigned int n_cells() const { return cells.size(); }

      unsigned int dofs_per_cell() const { return n_dofs; }

      const std::vector<typename DoFHandler<dim>::active_cell_iterator> &
      get_cells() const
      {
        return cells;
      }

      /** Cells per batch of compute_element_matrices() inside assemble(). */
      unsigned int batch_size() const { return cells_per_batch; }

      /** Whether the mapping support points of all cells stay on the
       *  device (AdditionalData::keep_geometry). */
      bool geometry_kept() const { return geometry_cached; }

      /**
       * The element matrices of cells first, ..., first + n - 1 (n at most
       * batch_size()) into @p matrices: n * dofs_per_cell()^2 numbers, cell
       * by cell, each row-major (entry (i, j) at i * dofs_per_cell() + j).
       */
      template <typename Operation>
      void compute_element_matrices(const Operation   &operation,
                                    const unsigned int first,
                                    const unsigned int n,
                                    Array<Number>     &matrices) const;

      /**
       * Prepare assembly with @p constraints (closed; hanging nodes,
       * Dirichlet values): the sparsity pattern (the entries deal.II's
       * DoFTools::make_sparsity_pattern with the constraints gives, built
       * from the cells' DoF indices on the set-up threads and exchanged
       * between the ranks), @p matrix's structure, and the constraint data
       * the assembly kernel reads.
       */
      void initialize_matrix(const AffineConstraints<double> &constraints,
                             SparseMatrix<Number>            &matrix);

      /**
       * @p matrix = the sum over the locally owned cells (of all ranks) of
       * the element matrices of @p operation, with the constraints of
       * initialize_matrix() condensed: constrained rows and columns hold
       * only a positive diagonal, as deal.II's distribute_local_to_global()
       * leaves them.
       */
      template <typename Operation>
      void assemble(const Operation &operation, SparseMatrix<Number> &matrix);

      /** Time of each step of the last reinit(), initialize_matrix() or
       *  assemble() (each starts it anew; compute_element_matrices() adds
       *  to it). The timer synchronizes the device between steps. */
      const SetupTimer &get_timer() const { return timer; }

      /** Device bytes of the reference data and constraint data. */
      std::size_t memory_consumption() const;

    private:
      // The mapping support points of cells first, ..., first + n - 1
      // (host threads, then uploaded to @p destination): n * n_geometry *
      // dim doubles.
      void compute_support_points(const unsigned int first,
                                  const unsigned int n,
                                  double            *destination) const;
      // The support points of a batch: the kept ones, or computed now.
      const double *batch_support_points(const unsigned int first,
                                         const unsigned int n) const;
      // Add the rows other ranks own into them, after the kernel filled
      // ghost_values.
      void send_ghost_rows(SparseMatrix<Number> &matrix) const;
      // Automatic team size and chunk length.
      void choose_launch(const AdditionalData &data);

      const Mapping<dim>    *mapping     = nullptr;
      const DoFHandler<dim> *dof_handler = nullptr;
      std::vector<typename DoFHandler<dim>::active_cell_iterator> cells;
      std::vector<Point<dim>> geometry_support_points;
      unsigned int            n_dofs          = 0;
      unsigned int            n_q             = 0;
      unsigned int            n_geometry      = 0;
      unsigned int            cells_per_batch = 1;
      unsigned int            team_size       = 32;
      unsigned int            chunk           = 1;
      unsigned int            tile            = 1;

      // Reference data: [q][i], [q][i][d], [i], [q][k], [q][k][d], [q].
      Array<Number>         shape_values;
      Array<Number>         shape_gradients;
      Array<unsigned char>  shape_components;
      Array<double>         geometry_values;
      Array<double>         geometry_gradients;
      Array<double>         weights;
      mutable Array<double> support_points;
      bool                  geometry_cached = false;

      // Constraint data of initialize_matrix(). Each DoF has a key: its
      // local index in the matrix's vector layout (owned, then ghost
      // columns), else a number after those (DoFs of owned cells that no
      // owned row couples to). cell_keys[cell][i]: the key of the cell's
      // i-th DoF; cell_lines[cell][i]: its constraint line, or
      // invalid_unsigned_int. A line lists (key, weight) entries.
      Array<unsigned int> cell_keys;
      Array<unsigned int> cell_lines;
      Array<unsigned int> line_offsets;
      Array<unsigned int> line_keys;
      Array<Number>       line_weights;
      // Rows owned by other ranks that owned cells add to (ghost rows):
      // ghost_row_of_key[key - n_owned] (or invalid_unsigned_int), their
      // CSR over keys, and the values the kernel adds into them.
      Array<unsigned int>         ghost_row_of_key;
      Array<unsigned int>         ghost_offsets;
      Array<unsigned int>         ghost_columns;
      mutable Array<Number>       ghost_values;
      mutable Array<unsigned int> missing_entries;
      unsigned int                n_owned_rows = 0;
      // Export of ghost rows: per destination rank the range of
      // ghost_values to send; import: positions in this rank's CSR of
      // what each source sends, in rank order.
      std::vector<std::pair<unsigned int, std::pair<std::size_t, std::size_t>>>
          export_ranges;
      // Position in ghost_values of each value sent, in sending order.
      std::vector<std::size_t>  ghost_send_order;
      std::vector<unsigned int> import_sources;
      std::vector<unsigned int> import_counts;
      Array<unsigned int>       import_positions;
      MPI_Comm                  communicator       = MPI_COMM_SELF;
      bool                      matrix_initialized = false;

      mutable SetupTimer timer;
    };

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
       * The team functor of ElementIntegrator::compute_element_matrices():
       * one cell a team, quadrature points in chunks.
       */
      template <int dim, int n_comp, typename Number, typename Operation>
      struct ElementMatrixKernel
      {
        Operation            operation;
        const double        *support_points;
        const double        *geometry_values;
        const double        *geometry_gradients;
        const double        *weights;
        const Number        *shape_values;
        const Number        *shape_gradients;
        const unsigned char *components;
        unsigned int         n_q, n_dofs, n_geometry, chunk;
        // Entries a thread adds up: tile x tile (at most max_tile).
        unsigned int tile;
        Number      *matrices;

        static constexpr unsigned int max_tile = 4;

        // Per point of a chunk: J^{-T} (dim * dim), JxW, the point (dim).
        static constexpr unsigned int geometry_stride = dim * dim + 1 + dim;

        static std::size_t scratch_bytes(const unsigned int n_dofs,
                                         const unsigned int chunk)
        {
          return sizeof(Number) * chunk *
                 (geometry_stride + n_dofs * (dim + n_comp * (1 + dim)));
        }

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          using Evaluator         = PointEvaluator<dim, n_comp, Number>;
          const unsigned int cell = team.team_index();
          Number            *geo  = team.scratch<Number>();
          // Per point qc of the chunk, the function index fastest (adjacent
          // threads touch adjacent words): physical gradients [qc][d][j],
          // then the operation's submitted values [qc][c][j] and gradients
          // [qc][c][d][j], times JxW.
          Number       *grads  = geo + chunk * geometry_stride;
          Number       *values = grads + n_dofs * chunk * dim;
          Number       *fluxes = values + n_dofs * chunk * n_comp;
          const double *X =
              support_points + std::size_t(cell) * n_geometry * dim;
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
                [&](const unsigned int qc)
                {
                  const unsigned int q           = q0 + qc;
                  double             J[dim][dim] = {};
                  double             x[dim]      = {};
                  for (unsigned int k = 0; k < n_geometry; ++k)
                  {
                    const double  N  = geometry_values[q * n_geometry + k];
                    const double *dN = geometry_gradients +
                                       (std::size_t(q) * n_geometry + k) * dim;
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
                    det       = J[0][0] * c00 + J[0][1] * c01 + J[0][2] * c02;
                    inv[0][0] = c00 / det;
                    inv[1][0] = c01 / det;
                    inv[2][0] = c02 / det;
                    inv[0][1] = (J[0][2] * J[2][1] - J[0][1] * J[2][2]) / det;
                    inv[1][1] = (J[0][0] * J[2][2] - J[0][2] * J[2][0]) / det;
                    inv[2][1] = (J[0][1] * J[2][0] - J[0][0] * J[2][1]) / det;
                    inv[0][2] = (J[0][1] * J[1][2] - J[0][2] * J[1][1]) / det;
                    inv[1][2] = (J[0][2] * J[1][0] - J[0][0] * J[1][2]) / det;
                    inv[2][2] = (J[0][0] * J[1][1] - J[0][1] * J[1][0]) / det;
                  }
                  Number *g = geo + qc * geometry_stride;
                  // J^{-T}[d][e] = inv[e][d]: grad_x = J^{-T} grad_xi.
                  for (unsigned int d = 0; d < dim; ++d)
                    for (unsigned int e = 0; e < dim; ++e)
                      g[d * dim + e] = Number(inv[e][d]);
                  g[dim * dim] = Number((det < 0 ? -det : det) * weights[q]);
                  for (unsigned int d = 0; d < dim; ++d)
                    g[dim * dim + 1 + d] = Number(x[d]);
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
                    Number sum = 0;
                    for (unsigned int f = 0; f < dim; ++f)
                      sum += g[d * dim + f] * ref[f];
                    grad[d]                            = sum;
                    grads[(qc * dim + d) * n_dofs + j] = sum;
                  }
                  Tensor<1, dim, Number> point;
                  for (unsigned int d = 0; d < dim; ++d)
                    point[d] = g[dim * dim + 1 + d];
                  Evaluator phi(point,
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
       * The team functor of ElementIntegrator::assemble(): adds one cell's
       * element matrix into the matrix rows (owned: the CSR; other ranks':
       * the ghost rows), expanding constrained DoFs into their constraint
       * lines, and a positive diagonal for constrained DoFs (deal.II's
       * rule: |A_ii|, or the mean |A_jj| of the cell where A_ii = 0).
       */
      template <typename Number>
      struct AssemblyKernel
      {
        const Number       *matrices;
        const unsigned int *cell_keys;
        const unsigned int *cell_lines;
        const unsigned int *line_offsets;
        const unsigned int *line_keys;
        const Number       *line_weights;
        const unsigned int *row_offsets;
        const unsigned int *columns;
        Number             *values;
        const unsigned int *ghost_row_of_key;
        const unsigned int *ghost_offsets;
        const unsigned int *ghost_columns;
        Number             *ghost_values;
        unsigned int       *missing;
        unsigned int        n_dofs, first_cell, n_owned;

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

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          const unsigned int  cell  = team.team_index();
          const std::size_t   base  = std::size_t(first_cell + cell) * n_dofs;
          const unsigned int *keys  = cell_keys + base;
          const unsigned int *lines = cell_lines + base;
          const Number *A = matrices + std::size_t(cell) * n_dofs * n_dofs;
          Number       *mean_diagonal = team.scratch<Number>();
          constexpr unsigned int none = static_cast<unsigned int>(-1);

          team.for_each<false>(
              n_dofs * n_dofs,
              [&](const unsigned int e)
              {
                const unsigned int i  = e / n_dofs;
                const unsigned int j  = e - i * n_dofs;
                const Number       a  = A[e];
                const unsigned int li = lines[i], lj = lines[j];
                const unsigned int ri0 = li == none ? 0 : line_offsets[li];
                const unsigned int ri1 = li == none ? 1 : line_offsets[li + 1];
                const unsigned int cj0 = lj == none ? 0 : line_offsets[lj];
                const unsigned int cj1 = lj == none ? 1 : line_offsets[lj + 1];
                for (unsigned int r = ri0; r < ri1; ++r)
                {
                  const unsigned int row = li == none ? keys[i] : line_keys[r];
                  const Number wr = li == none ? Number(1) : line_weights[r];
                  for (unsigned int c = cj0; c < cj1; ++c)
                  {
                    const unsigned int col =
                        lj == none ? keys[j] : line_keys[c];
                    const Number wc = lj == none ? Number(1) : line_weights[c];
                    add(row, col, wr * wc * a);
                  }
                }
              });
          team.for_each<false>(1,
                               [&](unsigned int)
                               {
                                 Number sum = 0;
                                 for (unsigned int i = 0; i < n_dofs; ++i)
                                 {
                                   const Number d = A[i * n_dofs + i];
                                   sum += d < 0 ? -d : d;
                                 }
                                 mean_diagonal[0] = sum / Number(n_dofs);
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
                add(keys[i], keys[i], a != Number(0) ? a : mean_diagonal[0]);
              });
        }
      };
    } // namespace internal

    template <int dim, int n_components, typename Number>
    template <typename Operation>
    void ElementIntegrator<dim, n_components, Number>::compute_element_matrices(
        const Operation   &operation,
        const unsigned int first,
        const unsigned int n,
        Array<Number>     &matrices) const
    {
      AssertThrow(first + n <= n_cells() && n <= cells_per_batch,
                  ExcMessage("ElementIntegrator::compute_element_matrices: "
                             "cells " +
                             std::to_string(first) + " to " +
                             std::to_string(first + n) + " of " +
                             std::to_string(n_cells()) + " with batches of " +
                             std::to_string(cells_per_batch)));
      if (matrices.size() < std::size_t(n) * n_dofs * n_dofs)
        matrices.resize(std::size_t(cells_per_batch) * n_dofs * n_dofs);
      if (n == 0)
        return;
      const double *points = batch_support_points(first, n);
      timer.start("element matrices");
      using Kernel =
          internal::ElementMatrixKernel<dim, n_components, Number, Operation>;
      Kernel kernel{operation,
                    points,
                    geometry_values.data(),
                    geometry_gradients.data(),
                    weights.data(),
                    shape_values.data(),
                    shape_gradients.data(),
                    shape_components.data(),
                    n_q,
                    n_dofs,
                    n_geometry,
                    chunk,
                    tile,
                    matrices.data()};
      parallel_for_teams<TeamKernels::one_per_block>(
          "ElementIntegrator (element matrices)",
          n,
          TeamShape{team_size, 1, 1},
          Kernel::scratch_bytes(n_dofs, chunk),
          kernel);
      timer.stop();
    }

    template <int dim, int n_components, typename Number>
    template <typename Operation>
    void ElementIntegrator<dim, n_components, Number>::assemble(
        const Operation &operation, SparseMatrix<Number> &matrix)
    {
      AssertThrow(matrix_initialized && matrix.local_size() == n_owned_rows &&
                      matrix.n_nonzero_elements() > 0,
                  ExcMessage("ElementIntegrator::assemble: call "
                             "initialize_matrix() with this matrix first."));
      timer.clear();
      matrix = 0.;
      if (ghost_values.size() > 0)
        Memory::set_zero(ghost_values.backend(),
                         ghost_values.data(),
                         ghost_values.size() * sizeof(Number));
      Memory::set_zero(missing_entries.backend(),
                       missing_entries.data(),
                       sizeof(unsigned int));
      Array<Number> matrices;
      for (unsigned int first = 0; first < n_cells(); first += cells_per_batch)
      {
        const unsigned int n = std::min(cells_per_batch, n_cells() - first);
        compute_element_matrices(operation, first, n, matrices);
        timer.start("assembly");
        internal::AssemblyKernel<Number> kernel{matrices.data(),
                                                cell_keys.data(),
                                                cell_lines.data(),
                                                line_offsets.data(),
                                                line_keys.data(),
                                                line_weights.data(),
                                                matrix.row_offsets(),
                                                matrix.column_indices(),
                                                matrix.values(),
                                                ghost_row_of_key.data(),
                                                ghost_offsets.data(),
                                                ghost_columns.data(),
                                                ghost_values.data(),
                                                missing_entries.data(),
                                                n_dofs,
                                                first,
                                                n_owned_rows};
        parallel_for_teams<TeamKernels::one_per_block>(
            "ElementIntegrator (assembly)",
            n,
            TeamShape{team_size, 1, 1},
            sizeof(Number),
            kernel);
        timer.stop();
      }
      send_ghost_rows(matrix);
      matrix.values_changed();
    }
  } // namespace GPU
} // namespace dealii

#endif
