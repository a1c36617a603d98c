// Element matrices of a quadrature-point operation on the device, and their
// assembly into a GPU::SparseMatrix with deal.II's constraints.
#ifndef dealii_gpu_integration_element_integrator_h
#define dealii_gpu_integration_element_integrator_h

#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/integration/assembly_kernel.h>
#include <dealii-gpu/integration/element_kernels.h>
#include <dealii-gpu/integration/element_product_kernel.h>
#include <dealii-gpu/integration/element_row_kernel.h>
#include <dealii-gpu/integration/reference_tensor_kernel.h>
#include <dealii-gpu/lac/sparse_matrix.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>

#include <algorithm>
#include <type_traits>
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
     * How it runs, four strategies (AdditionalData::strategy):
     * - quadrature points (any cell, any operation): one team of threads
     *   per cell. In chunks of quadrature points the team computes the
     *   Jacobians and applies the operation to every trial function at
     *   every point of the chunk; the matrix is then a product summed over
     *   the points, which on the GPU (double) runs on the FP64 tensor
     *   cores, each warp holding a 32 x 32 block of the matrix over all
     *   points (in passes over the whole matrix or over regions of it
     *   where it has more blocks than the team warps). Chunk length, team
     *   size and regions are chosen from the element size.
     * - reference tensor (affine cells: simplices, or parallelograms and
     *   parallelepipeds under a degree-1 mapping; an operation that says
     *   uses_quadrature_points = false, so it is one linear map on the
     *   cell): A = G : K, the cell's geometry tensor G (the operation
     *   applied once to each value and reference derivative, one thread a
     *   cell) contracted with the base element's reference tensor K,
     *   precomputed once: (1 + dim)^2 products an entry instead of
     *   (1 + dim) per quadrature point. One kernel: a team computes G of
     *   AdditionalData::cells_per_team cells into shared memory, then the
     *   contraction, a matrix product (cells x entries) = G K for one
     *   component, which on the GPU (double) runs on the FP64 tensor
     *   cores.
     * - batched products (one component): the same sum over the points as
     *   one dense product a cell, A = U^T W with U (K x n, K = (1 + dim)
     *   n_q) the reference values and derivatives, shared by all cells,
     *   and W = D U: a team kernel writes each cell's W to device memory
     *   (in parts of a batch, W as large as the batch's matrices), then
     *   one strided batched GEMM
     *   of cuBLAS (FP64 tensor cores) computes the matrices of all cells.
     * - rows (at most 16 functions a cell, any cells): a team takes a
     *   tile of cells, computes each point's tensor D (the operation and
     *   the geometry) into shared memory, a thread a point, then a thread
     *   a matrix row sums u_i^T D u_j over the points for all j in
     *   registers; the tile's matrices are written contiguously (H200,
     *   ball, MappingQ(2): 2.3-3.1 times the quadrature-point kernel for
     *   Q1 in 3D, 2.8-8.7 times for Q1 and Q2 in 2D, 1.2 times for 2D Q3;
     *   0.68 times for 3D Q2).
     * The automatic choice takes the reference tensor wherever it applies:
     * on the H100 it was 1.6 to 35 times faster for Q1-Q4 (doc/benchmarks.md);
     * else batched products for one component and at least
     * batched_products_min_dofs functions a cell (H100, Laplace on curved
     * cells: 63 % faster at Q7, 5-24 % at Q6, 18 % slower at Q5 and 2.3-3.6
     * times slower at Q3-Q4, where W's traffic outweighs the product),
     * else rows up to rows_automatic_max_dofs functions, else quadrature
     * points.
     */
    template <int dim, int n_components = 1, typename Number = double>
    class ElementIntegrator
    {
    public:
      struct AdditionalData
      {
        /** Cells whose element matrices are held at once (0: automatic,
         *  at most 1 GiB of matrices and an eighth of the free device
         *  memory). */
        unsigned int cells_per_batch = 0;
        /** Threads per cell of the element matrices, a multiple of 32
         *  (0: automatic, a warp for each 32 x 32 block of the matrix, at
         *  most 8 warps). */
        unsigned int threads_per_cell = 0;
        /** Quadrature points per chunk (0: automatic, 8 or fewer to keep
         *  the scratch within 100 KB). */
        unsigned int points_per_chunk = 0;
        enum class Strategy
        {
          automatic,
          quadrature_points,
          reference_tensor,
          batched_products,
          rows
        };
        /** How element matrices are computed (see the class); an explicit
         *  reference_tensor, batched_products or rows throws where it does
         *  not apply. */
        Strategy strategy = Strategy::automatic;
        /** Reference tensor: at most this many cells a team of threads,
         *  rounded up to a multiple of 16, fewer where a batch would give
         *  less than 8 teams a multiprocessor (0: automatic, 128). */
        unsigned int cells_per_team = 0;
        /** Keep every cell's mapping support points on the device after
         *  reinit(), so that assemble() runs on the device alone (true:
         *  where they take at most an eighth of the free device memory,
         *  or 2 GiB on the host backend; false: computed on the host for
         *  each batch of each call). */
        bool keep_geometry = true;
        /** The multigrid level whose cells and level DoFs (MGConstrainedDoFs'
         *  level constraints) are assembled; numbers::invalid_unsigned_int:
         *  the active cells and DoFs. */
        unsigned int mg_level = numbers::invalid_unsigned_int;
      };

      /** Set up the reference data, the list of locally owned cells and
       *  (see AdditionalData::keep_geometry) the cells' mapping support
       *  points. Call it again when the mesh or the mapping moves. Throws
       *  for an element or mapping that is not supported. */
      void reinit(const Mapping<dim>    &mapping,
                  const DoFHandler<dim> &dof_handler,
                  const Quadrature<dim> &quadrature,
                  const AdditionalData  &additional_data = AdditionalData());

      /** The level of AdditionalData::mg_level (invalid_unsigned_int for
       *  the active cells). */
      unsigned int get_mg_level() const { return level; }

      /** Locally owned cells, in the order of the element matrices. */
      unsigned int n_cells() const { return cells.size(); }

      unsigned int dofs_per_cell() const { return n_dofs; }

      const std::vector<typename DoFHandler<dim>::cell_iterator> &
      get_cells() const
      {
        return cells;
      }

      /** Cells per batch of compute_element_matrices() inside assemble(). */
      unsigned int batch_size() const { return cells_per_batch; }

      /** Whether the mapping support points of all cells stay on the
       *  device (AdditionalData::keep_geometry). */
      bool geometry_kept() const { return geometry_cached; }

      /** Whether every locally owned cell is affine under the mapping. */
      bool all_cells_affine() const { return affine; }

      /** Whether compute_element_matrices() of @p Operation takes the
       *  reference-tensor strategy (see the class). */
      template <typename Operation>
      bool uses_reference_tensor() const
      {
        using Strategy = typename AdditionalData::Strategy;
        const bool possible =
            affine && reference_tensor.size() > 0 &&
            internal::constant_on_affine_cells<Operation>::value;
        AssertThrow(possible || strategy != Strategy::reference_tensor,
                    ExcMessage("ElementIntegrator: the reference-tensor "
                               "strategy needs affine cells (simplices, or "
                               "parallelepipeds under a degree-1 mapping), "
                               "one base element, and an operation with "
                               "uses_quadrature_points = false."));
        return possible && (strategy == Strategy::automatic ||
                            strategy == Strategy::reference_tensor);
      }

      /** The automatic choice takes batched products from this many
       *  functions a cell (one component, no reference tensor). */
      static constexpr unsigned int batched_products_min_dofs = 300;

      /** The row strategy serves at most this many functions a cell; the
       *  automatic choice takes it up to rows_automatic_max_dofs (no
       *  reference tensor). */
      static constexpr unsigned int rows_max_dofs           = 16;
      static constexpr unsigned int rows_automatic_max_dofs = 16;

      /** Whether compute_element_matrices() of @p Operation takes the
       *  batched-product strategy (see the class). */
      template <typename Operation>
      bool uses_batched_products() const
      {
        using Strategy = typename AdditionalData::Strategy;
        AssertThrow(n_components == 1 || strategy != Strategy::batched_products,
                    ExcMessage("ElementIntegrator: the batched-product "
                               "strategy needs one component."));
        if (uses_reference_tensor<Operation>())
          return false;
        return n_components == 1 && (strategy == Strategy::batched_products ||
                                     (strategy == Strategy::automatic &&
                                      n_dofs >= batched_products_min_dofs));
      }

      /** Whether compute_element_matrices(@p Operation) takes the row
       *  strategy (see the class). */
      template <typename Operation>
      bool uses_rows() const
      {
        using Strategy = typename AdditionalData::Strategy;
        AssertThrow(n_dofs <= rows_max_dofs || strategy != Strategy::rows,
                    ExcMessage("ElementIntegrator: the row strategy serves "
                               "at most " +
                               std::to_string(rows_max_dofs) +
                               " functions a cell, not " +
                               std::to_string(n_dofs) + "."));
        if (uses_reference_tensor<Operation>() ||
            uses_batched_products<Operation>())
          return false;
        return strategy == Strategy::rows ||
               (strategy == Strategy::automatic &&
                n_dofs <= rows_automatic_max_dofs);
      }

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
       * The element vectors (loads) of cells first, ..., first + n - 1 into
       * @p vectors: n * dofs_per_cell() numbers, cell by cell. @p source is
       * a quadrature-point operation run on an evaluator without a trial
       * function (get_value() and get_gradient() give zero): what it
       * submits is the load, entry i = sum over the points of (submitted
       * value . phi_i + submitted gradient : grad phi_i) JxW. For (f, v):
       * phi.submit_value(f(phi.quadrature_point(q)), q).
       */
      template <typename Source>
      void compute_element_vectors(const Source      &source,
                                   const unsigned int first,
                                   const unsigned int n,
                                   Array<Number>     &vectors) const;

      /**
       * Prepare assembly with @p constraints (closed; hanging nodes,
       * Dirichlet values): the sparsity pattern (the entries deal.II's
       * DoFTools::make_sparsity_pattern with the constraints gives, built
       * on the active backend from the cells' DoF indices and exchanged
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

      /**
       * The matrix as above and @p rhs = the sum of the element vectors of
       * @p source with the constraints applied as deal.II's
       * distribute_local_to_global(cell_matrix, cell_rhs, dof_indices,
       * matrix, rhs) does: a constrained DoF's entry goes to the DoFs of
       * its line, constrained rows get zero, and every cell's entries lose
       * A_ij g_j for its constrained DoFs j of inhomogeneity g_j (nonzero
       * Dirichlet values). Solve, then constraints.distribute() the
       * solution. @p rhs gets the matrix's layout (initialize_dof_vector())
       * if it has another.
       */
      template <typename Operation, typename Source>
      void assemble(const Operation      &operation,
                    const Source         &source,
                    SparseMatrix<Number> &matrix,
                    Vector<Number>       &rhs);

      /**
       * @p rhs alone, as deal.II's distribute_local_to_global(cell_rhs,
       * dof_indices, rhs) does (constraint lines, no inhomogeneity terms:
       * those need the matrix). Needs initialize_matrix() first.
       */
      template <typename Source>
      void assemble_rhs(const Source &source, Vector<Number> &rhs);

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
      // The parts of assemble() and assemble_rhs(); an absent part has
      // the type NoOperation and a null pointer.
      struct NoOperation
      {
      };
      template <typename Operation, typename Source>
      void assemble_parts(const Operation      *operation,
                          const Source         *source,
                          SparseMatrix<Number> *matrix,
                          Vector<Number>       *rhs);
      // Zero the load vector, or add it into rhs (compress first).
      void start_rhs();
      void finish_rhs(Vector<Number> &rhs);
      // The kernels' view of the reference geometry data and @p points.
      internal::PointGeometry<dim, Number>
      point_geometry(const double *points) const
      {
        return {points,
                geometry_values.data(),
                geometry_gradients.data(),
                weights.data(),
                n_geometry};
      }
      // Throws unless cells first, ..., first + n - 1 are a valid batch.
      void check_batch(const char        *function,
                       const unsigned int first,
                       const unsigned int n) const;
      // The element-matrix rows, automatic team size and chunk length;
      // components[i]: DoF i's component.
      void choose_launch(const AdditionalData             &data,
                         const std::vector<unsigned char> &components);
      // Whether all cells are affine, and K (where one base element).
      void setup_reference_tensor(const FiniteElement<dim> &fe,
                                  const Quadrature<dim>    &quadrature);
      template <typename Operation>
      void compute_by_batched_products(const Operation   &operation,
                                       const double      *points,
                                       const unsigned int n,
                                       Number            *matrices) const;
      template <typename Operation>
      void compute_by_rows(const Operation   &operation,
                           const double      *points,
                           const unsigned int n,
                           Number            *matrices) const;
      template <unsigned int max_dofs, typename Operation>
      void launch_rows(const Operation   &operation,
                       const double      *points,
                       const unsigned int n,
                       Number            *matrices) const;
      template <typename Operation>
      void compute_by_reference_tensor(const Operation   &operation,
                                       const double      *points,
                                       const unsigned int n,
                                       Number            *matrices) const;

      const Mapping<dim>    *mapping     = nullptr;
      const DoFHandler<dim> *dof_handler = nullptr;
      unsigned int           level       = numbers::invalid_unsigned_int;
      std::vector<typename DoFHandler<dim>::cell_iterator> cells;
      std::vector<Point<dim>> geometry_support_points;
      unsigned int            n_dofs          = 0;
      unsigned int            n_q             = 0;
      unsigned int            n_geometry      = 0;
      unsigned int            cells_per_batch = 1;
      unsigned int            team_size       = 32;
      unsigned int            assembly_team   = 32;
      unsigned int            chunk           = 1;
      // Points whose tensor D the element-matrix kernel keeps at once.
      unsigned int d_points = 1;
      // Rows of the element-matrix product: by component, each padded to 16
      // (see internal::ElementMatrixKernel), and the scratch row strides.
      unsigned int n_rows = 0, ld_u = 0, ld_w = 0;
      // The region of the matrix a pass of the kernel computes.
      unsigned int                      region_rows = 32, region_cols = 32;
      Array<unsigned int>               row_of_dof;
      Array<unsigned int>               dof_of_row;
      typename AdditionalData::Strategy strategy =
          AdditionalData::Strategy::automatic;

      // The reference-tensor strategy: whether all cells are affine, K
      // [a][b][k][l] over the base element's functions k, l, each DoF's
      // base function, and the batch's G.
      unsigned int        cells_per_team = 128;
      bool                affine         = false;
      unsigned int        n_base         = 0;
      Array<Number>       reference_tensor;
      Array<unsigned int> base_index;

      // The batched-product strategy (one component): U, K x n_dofs
      // column-major (K = n_q (1 + dim)), cells per product (their
      // operands W at most twice the bytes of a batch's matrices), the
      // points' tensors D and the operands.
      Array<Number>         product_reference;
      unsigned int          product_cells = 1;
      mutable Array<Number> product_tensors;
      mutable Array<Number> product_operands;

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
      // g of each line, or empty where no line has one.
      Array<Number> line_inhomogeneities;
      // The loads: owned entries, then every other DoF a key names (the
      // matrix's ghost columns and the extra keys), so that compress()
      // sends them to their owners; vector_index_of_key[key - n_owned]
      // is the entry of a key.
      mutable Vector<Number> loads;
      Array<unsigned int>    vector_index_of_key;
      // The matrix's layout, which rhs vectors get.
      std::shared_ptr<const Utilities::MPI::Partitioner> matrix_partitioner;
      // Rows owned by other ranks that owned cells add to (ghost rows):
      // ghost_row_of_key[key - n_owned] (or invalid_unsigned_int), their
      // CSR over keys, and the values the kernel adds into them.
      Array<unsigned int>         ghost_row_of_key;
      Array<unsigned int>         ghost_offsets;
      Array<unsigned int>         ghost_columns;
      mutable Array<Number>       ghost_values;
      mutable Array<unsigned int> missing_entries;
      unsigned int                n_owned_rows = 0;
      // Most column slots of a cell with hanging nodes (0: none, or too
      // many for team scratch): see internal::AssemblyKernel.
      unsigned int max_slots = 0;
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
  } // namespace GPU
} // namespace dealii

#include <dealii-gpu/integration/element_integrator.templates.h>

#endif
