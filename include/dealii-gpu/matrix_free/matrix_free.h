// GPU::MatrixFree: the data a matrix-free cell loop needs on the device,
// built from deal.II's DoFHandler, Mapping and AffineConstraints.
#ifndef dealii_gpu_matrix_free_matrix_free_h
#define dealii_gpu_matrix_free_matrix_free_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/matrix_free/geometry_storage.h>
#include <dealii-gpu/matrix_free/mapping_info.h>
#include <dealii-gpu/matrix_free/shape_info.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/base/point.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_update_flags.h>

#include <array>
#include <memory>
#include <type_traits>
#include <vector>

namespace dealii
{
  template <int dim, int spacedim>
  class DoFHandler;
  template <int dim, int spacedim>
  class Mapping;
  template <typename number>
  class AffineConstraints;

  namespace GPU
  {
    /**
     * The element, constraint or degree is not supported by GPU::MatrixFree.
     */
    DeclException1(ExcNotSupportedByMatrixFree,
                   std::string,
                   << "GPU::MatrixFree does not support this: " << arg1);

    /** The index FEEvaluation::dof_index() and for_each_local_result()
     *  report for a constrained (skipped) DoF. */
    constexpr unsigned int constrained_dof = 0xffffffffu;

    /** In MatrixFreeData::dof_indices, a constrained DoF keeps its local
     *  index with this bit set, so that the mapping field can be read
     *  through the DoF indices (GeometryStorage::field). */
    constexpr unsigned int constrained_dof_flag = 0x80000000u;

    /**
     * Whether the quadrature points and the mapping field of cells are
     * taken relative to each cell's center (MatrixFreeData::cell_centers):
     * only where Number is narrower than double. Differences of absolute
     * coordinates lose digits of the Jacobian in float, not in double; in
     * double the center would cost 24 bytes and 2 dim n_q_points additions
     * a cell for nothing.
     */
    template <typename Number>
    constexpr bool points_relative_to_cell_centers()
    {
      return sizeof(Number) < sizeof(double);
    }

    /**
     * Device view of the per-cell data of GPU::MatrixFree, handed to cell
     * functors. All arrays are in the memory of the active backend. Cell
     * data are stored so that the threads of a cell read consecutive entries:
     * index (cell * n + i) for DoFs, ((cell * dim * dim + d) * n_q + q) for
     * the inverse Jacobian entry d = row * dim + column, (cell * n_q + q) for
     * JxW and ((cell * dim + d) * n_q + q) for the quadrature points
     * (offsets from the cell's center (cell * dim + d) in float, see
     * points_relative_to_cell_centers()).
     *
     * Geometry comes in one of two forms: stored inverse Jacobians and JxW
     * (inverse_jacobian, JxW), or only the quadrature points, from which
     * FEEvaluation computes the Jacobians by differentiating along the
     * quadrature lines (jacobians_from_points = 1; inverse_jacobian and JxW
     * are nullptr). The second is exact for MappingQ(p) with p <
     * n_q_points_1d and stores dim instead of dim * dim + 1 numbers per
     * point. Where every cell is affine (affine_cells = 1), the inverse
     * Jacobian is read at each cell's first point only (it is the same at
     * every point), so an operator reads dim * dim numbers a cell, not a
     * point.
     */
    template <int dim, typename Number>
    struct MatrixFreeData
    {
      unsigned int n_cells;
      unsigned int fe_degree;
      unsigned int n_q_points_1d;
      unsigned int n_components;
      unsigned int dofs_per_cell; // (fe_degree + 1)^dim * n_components
      unsigned int n_q_points;    // n_q_points_1d^dim
      /** 1: add with atomics; 0: plain adds (cells of one color). */
      unsigned int use_atomics;
      /** 1: Jacobians computed from quadrature_points in the kernel. */
      unsigned int jacobians_from_points;
      /** 1: every cell affine; read inverse_jacobian at the cell's first
       *  point. */
      unsigned int affine_cells;
      /** Local vector indices (owned, then ghosts), with
       *  constrained_dof_flag set for constrained DoFs, for the cells
       *  [n_structured_cells, n_cells): entry (cell - n_structured_cells)
       *  * dofs_per_cell + i. Read them with cell_dof_entry(). */
      const unsigned int *dof_indices;
      /** Cells [0, n_structured_cells) lie in blocks of 2^(dim *
       *  block_refinements) cells, lexicographic in each block (a coarser
       *  cell refined block_refinements times), whose DoF indices are
       *  computed instead of stored (see cell_dof_entry() and
       *  GPU::DoFRenumbering::block_lexicographic()). 0 where no block is
       *  numbered so. */
      unsigned int n_structured_cells;
      /** The first cell dof_indices holds (n_structured_cells; kept apart
       *  so that a kernel may fix n_structured_cells, and with it the way
       *  to each index, at compile time). */
      unsigned int dof_indices_first_cell;
      unsigned int block_refinements;
      /** Per block: the local index of its first interior DoF; the
       *  interior DoFs (lattice points 1..M-1 per direction, M = fe_degree
       *  2^block_refinements) follow lexicographically. */
      const unsigned int *block_interior_first;
      /** Per block: the DoF entries (as in dof_indices) of its 2 dim
       *  faces, face f = 2 d + (0 at lattice coordinate 0 in direction d, 1
       *  at M), (M + 1)^(dim - 1) lattice points each, lexicographic in the
       *  other directions. Where faces meet, the lower face is read. */
      const unsigned int *block_surface;
      const Number       *inverse_jacobian;
      const Number       *JxW;
      /** The quadrature points (offsets from cell_centers where
       *  points_relative_to_cell_centers<Number>()). */
      const Number *quadrature_points;
      /** nullptr unless points_relative_to_cell_centers<Number>(). */
      const Number *cell_centers;
      /** Mapping at the support points, [node * dim + d], relative to no
       *  cell (double, so that offsets from cell_centers keep their digits
       *  in float), or nullptr. */
      const double *geometry_field;
      /** Per cell the nodes of geometry_field in lexicographic order; or
       *  nullptr, where the nodes are the DoFs: node = dof_indices entry
       *  without constrained_dof_flag (scalar fields on cells without
       *  hanging nodes, whose DoF indices are their own support points). */
      const unsigned int *geometry_indices;
      /** Weights of the tensor-product quadrature rule, [q] for the
       *  n_q_points points (x fastest): one load a point instead of dim
       *  loads and dim - 1 products. */
      const Number *quadrature_weights;
      /** 1D shape values phi_i(x_q), [q * (fe_degree + 1) + i]. */
      const Number *shape_values;
      /** 1: the quadrature points are the nodes (Gauss-Lobatto with
       *  fe_degree + 1 points), shape_values is the identity, and
       *  FEEvaluation skips the interpolation passes. */
      unsigned int nodes_are_quadrature_points;
      /** Derivatives of the Lagrange basis in the quadrature points, [q * n_q +
       * j]. */
      const Number *collocation_gradients;
      /** Per cell: which faces and edges hang (see hanging_nodes.h), or
       *  nullptr when the mesh has no hanging nodes. */
      const unsigned int *hanging_masks;
      /** 1D interpolation from a parent interval to child 0 and 1,
       *  [child * (k + 1)^2 + i * (k + 1) + j]. */
      const Number *hanging_interpolation;
    };

    /**
     * Entry @p i (lexicographic, component after component) of the DoF
     * indices of @p cell, as MatrixFreeData::dof_indices holds them (local
     * index, constrained_dof_flag set for constrained DoFs): computed from
     * the lattice position for the cells of structured blocks, read for the
     * others.
     */
    template <int dim, typename Number>
    DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
    cell_dof_entry(const MatrixFreeData<dim, Number> &data,
                   const unsigned int                 cell,
                   const unsigned int                 i,
                   const unsigned int                 fe_degree)
    {
      if (cell >= data.n_structured_cells)
        return data
            .dof_indices[std::size_t(cell - data.dof_indices_first_cell) *
                             data.dofs_per_cell +
                         i];
      const unsigned int s     = data.block_refinements;
      const unsigned int n     = 1u << s;
      const unsigned int block = cell >> (dim * s);
      const unsigned int r     = cell & ((1u << (dim * s)) - 1u);
      const unsigned int n_1d  = fe_degree + 1;
      // Cell position in the block and DoF position in the cell; x = k
      // position + a is the lattice coordinate, 0..M = k n. Tests on a
      // (known in an unrolled loop) and the cell position, not on x, fold
      // to per-cell flags.
      unsigned int a[dim], position[dim];
      a[0]        = i % n_1d;
      a[1]        = (i / n_1d) % n_1d;
      position[0] = r & (n - 1);
      position[1] = (r >> s) & (n - 1);
      if constexpr (dim == 3)
      {
        a[2]        = i / (n_1d * n_1d);
        position[2] = r >> (2 * s);
      }
      bool low[dim], high[dim], interior = true;
      for (unsigned int d = 0; d < dim; ++d)
      {
        low[d]   = a[d] == 0 && position[d] == 0;
        high[d]  = a[d] == fe_degree && position[d] == n - 1;
        interior = interior && !low[d] && !high[d];
      }
      const unsigned int M = fe_degree << s;
      unsigned int       x[dim];
      for (unsigned int d = 0; d < dim; ++d)
        x[d] = fe_degree * position[d] + a[d];
      if (interior)
      {
        unsigned int offset = x[dim - 1] - 1;
        for (int d = dim - 2; d >= 0; --d)
          offset = offset * (M - 1) + x[d] - 1;
        return data.block_interior_first[block] + offset;
      }
      const unsigned int P    = M + 1;
      unsigned int       face = 0, u = 0, v = 0;
      if (low[0] || high[0])
      {
        face = high[0];
        u    = x[1];
        v    = dim == 3 ? x[dim - 1] : 0;
      }
      else if (low[1] || high[1])
      {
        face = 2 + high[1];
        u    = x[0];
        v    = dim == 3 ? x[dim - 1] : 0;
      }
      else
      {
        face = 4 + high[dim - 1];
        u    = x[0];
        v    = x[1];
      }
      const std::size_t face_size = dim == 3 ? std::size_t(P) * P : P;
      return data
          .block_surface[(std::size_t(block) * 2 * dim + face) * face_size + u +
                         std::size_t(P) * v];
    }

    /**
     * How a CUDA cell kernel lays out its threads. No effect on the host
     * backend, which runs every cell in one thread anyway.
     */
    enum class CellThreads
    {
      /** One thread per cell where that measured faster on the H100
       *  (doc/benchmarks.md): scalar fields in 3D without hanging nodes,
       *  with GeometryStorage::field and at most 27 quadrature points (Q1,
       *  Q2), or GeometryStorage::points and at most 8 (Q1); one thread
       *  per quadrature point otherwise. */
      automatic,
      /** One thread per quadrature point: the cell's threads pass the
       *  sum-factorization data through shared memory, with barriers. */
      per_quadrature_point,
      /** One thread per cell, which does all of the cell's work with the
       *  cell's data in its registers: no shared memory and no barriers,
       *  but as many registers as the data need. For scalar 3D cells of at
       *  most max_points_thread_per_cell quadrature points whose Jacobians
       *  are computed in the kernel (GeometryStorage::points or field), on
       *  meshes without hanging nodes: only there is it compiled, since
       *  only there was it faster (and every compiled case costs minutes
       *  of nvcc time per program). */
      per_cell
    };

    /** Most quadrature points a cell may have for CellThreads::per_cell. */
    constexpr unsigned int max_points_thread_per_cell = 27;

    /**
     * Matrix-free data on the device for FE_Q(k) and FESystem(FE_Q(k), n)
     * (n = 1..dim) with a tensor-product Gauss quadrature, mirroring deal.II's
     * MatrixFree: reinit() from a Mapping, a DoFHandler, AffineConstraints and
     * a 1D quadrature; cell_loop() runs a cell functor over all cells;
     * initialize_dof_vector() gives vectors with the right ghost layout.
     *
     * Constraints: rows with no entries (homogeneous Dirichlet values) are
     * skipped on reading and writing, as deal.II's CPU MatrixFree does, so
     * vmult gives the same result as the CPU operator. Hanging-node
     * constraints of adaptively refined meshes (faces and, in 3D, edges,
     * one level of difference, as p4est and
     * Triangulation::limit_level_difference_at_vertices give) are resolved
     * inside the cell kernel: the cell reads the coarse DoFs and
     * interpolates (see hanging_nodes.h). reinit() checks every hanging
     * DoF's constraint in @p constraints against that interpolation. Other
     * constraints (periodicity, general linear constraints) are rejected
     * with ExcNotSupportedByMatrixFree.
     *
     * Conflicting writes of neighbouring cells are resolved with atomic
     * additions (default) or, with AdditionalData::use_coloring, by running
     * the colors of a graph coloring one after another with plain writes.
     *
     * With several MPI ranks the cell loop overlaps the ghost exchange of
     * src and the compress of dst with the cells that touch no ghost DoF
     * (AdditionalData::overlap_communication_computation, on by default).
     * The geometry is kept as inverse Jacobians and JxW per quadrature
     * point, or, with GeometryStorage::points, as the quadrature points
     * alone (2.9x less memory; see GeometryStorage), or, with
     * GeometryStorage::field, as the mapping's values at the DoF nodes
     * shared between cells (the least memory). Operators of
     * the form (a grad u, grad v) can instead merge coefficient and
     * geometry into one symmetric tensor per point
     * (evaluate_diffusion_tensor(), then release_geometry(), and
     * LaplaceTensorCell): half the memory of stored Jacobians, and faster.
     */
    template <int dim, typename Number = double>
    class MatrixFree
    {
    public:
      /** How the cell geometry is kept on the device (see above). */
      using GeometryStorage = GPU::GeometryStorage;
      using CellThreads     = GPU::CellThreads;

      struct AdditionalData
      {
        AdditionalData(
            const UpdateFlags mapping_update_flags = update_gradients |
                                                     update_JxW_values,
            const bool            use_coloring = false,
            const unsigned int    mg_level     = numbers::invalid_unsigned_int,
            const unsigned int    cells_per_block                   = 0,
            const bool            overlap_communication_computation = true,
            const GeometryStorage geometry = GeometryStorage::jacobians)
            : mapping_update_flags(mapping_update_flags),
              use_coloring(use_coloring), mg_level(mg_level),
              cells_per_block(cells_per_block),
              overlap_communication_computation(
                  overlap_communication_computation),
              geometry(geometry)
        {
        }

        /** update_quadrature_points stores the points (for coefficients). */
        UpdateFlags mapping_update_flags;
        /** false: atomic additions; true: graph coloring, plain writes. */
        bool use_coloring;
        /** Level of a multigrid hierarchy (level cells and level DoFs), or
         *  numbers::invalid_unsigned_int for the active cells. */
        unsigned int mg_level;
        /** Cells per CUDA thread block (one thread per quadrature point
         *  each); 0 picks at least 64 threads per block (3D: 8 cells for
         *  Q1, 2 for Q2, 1 from Q3 on). Cells of at most 32 points are
         *  packed into warps (32 / points a warp), so the count is rounded
         *  up to whole warps; cells of more points run one a block (reinit()
         *  refuses more for them). With one thread per cell (see
         *  cell_threads): the block's threads, 0 for 128, at most 256. No
         *  effect on the host backend. */
        unsigned int cells_per_block;
        /** With several ranks: run the cells that touch no ghost DoF while
         *  the ghost values of src arrive and while dst's ghost
         *  contributions are sent (as deal.II's MatrixFree does). */
        bool overlap_communication_computation;
        /** Stored Jacobians, quadrature points or the mapping field (see
         *  GeometryStorage). */
        GeometryStorage geometry;
        /** One thread per quadrature point or per cell (see CellThreads). */
        CellThreads cell_threads = CellThreads::automatic;
        /** A multigrid level with GeometryStorage::field: the active
         *  cells' field of a MatrixFree on the same DoFHandler and mapping
         *  (get_geometry_field_source()). Where every level cell is active
         *  (the finest level) the level's field is gathered from it on the
         *  device instead of computed again; elsewhere it is ignored. The
         *  source must not change during reinit(). */
        internal::GeometryFieldSource<dim> geometry_source;
      };

      MatrixFree() = default;

      /**
       * Build the data. @p quadrature is the 1D rule (QGauss<1>) with
       * n_q_points_1d >= fe_degree + 1; the cell rule is its tensor product.
       */
      template <typename ConstraintNumber>
      void reinit(const Mapping<dim, dim>                   &mapping,
                  const DoFHandler<dim, dim>                &dof_handler,
                  const AffineConstraints<ConstraintNumber> &constraints,
                  const Quadrature<1>                       &quadrature,
                  const AdditionalData &additional_data = AdditionalData());

      /** Vector with the ghost layout the cell loop needs. */
      template <typename VectorNumber>
      void initialize_dof_vector(Vector<VectorNumber> &vector) const;

      const std::shared_ptr<const Utilities::MPI::Partitioner> &
      get_vector_partitioner() const;

      /**
       * Run @p functor on every locally owned cell: src's ghosts are updated
       * first, dst's ghost contributions are sent to their owners afterwards
       * (compress(add)); with overlap_communication_computation, cells
       * away from other ranks run while the messages travel. The functor
       * provides static constexpr unsigned int fe_degree, n_q_points_1d,
       * n_components; DEAL_II_GPU_HOST_DEVICE void operator()(const
       * GPU::TeamMember &team, const unsigned int cell, const
       * GPU::MatrixFreeData<dim, Number> &data, const Number *src, Number *dst)
       * const; and is typically built on GPU::FEEvaluation. Its constants must
       * match the data (checked). dst is added to, not overwritten.
       */
      template <typename Functor>
      void cell_loop(const Functor        &functor,
                     const Vector<Number> &src,
                     Vector<Number>       &dst) const;

      /** dst[i] = src[i] for the locally owned constrained DoFs. */
      void copy_constrained_values(const Vector<Number> &src,
                                   Vector<Number>       &dst) const;

      /** dst[i] = value for the locally owned constrained DoFs. */
      void set_constrained_values(const Number    value,
                                  Vector<Number> &dst) const;

      /**
       * Evaluate a coefficient at every quadrature point of every cell (on
       * the host, from the quadrature points kept on the device; reinit
       * with update_quadrature_points) into @p values, laid out [cell * n_q
       * + q]. The points come to the host in chunks of cells, and
       * @p coefficient is called from n_setup_threads() threads at once: it
       * must be safe to call concurrently (as a const Function::value()
       * is).
       */
      template <typename CoefficientFunction>
      void evaluate_coefficient(const CoefficientFunction &coefficient,
                                Array<Number>             &values) const;

      /**
       * The merged diffusion tensor a(x) det(J) w J^{-1} J^{-T} at every
       * quadrature point, for operators (a grad u, grad v) that then need
       * neither the Jacobians nor JxW (LaplaceTensorCell): dim (dim + 1) / 2
       * numbers a point instead of dim * dim + 2, laid out
       * [(cell * n_entries + entry) * n_q + q] with the entries (0,0),
       * (1,1), (2,2), (0,1), (0,2), (1,2) (2D: (0,0), (1,1), (0,1)). Needs
       * GeometryStorage::jacobians and update_quadrature_points. Follow
       * with release_geometry() to free what it replaces.
       */
      template <typename CoefficientFunction>
      void evaluate_diffusion_tensor(const CoefficientFunction &coefficient,
                                     Array<Number>             &tensor) const;

      /** As above, from the coefficient's values at the quadrature points
       *  ([cell * n_q + q], as evaluate_coefficient() gives them). */
      void evaluate_diffusion_tensor(const Array<Number> &coefficient_values,
                                     Array<Number>       &tensor) const;

      /**
       * Free the geometry (inverse Jacobians, JxW, quadrature points) on the
       * device and the host. Afterwards cell_loop() runs only functors that
       * declare `static constexpr bool uses_geometry = false` (they work in
       * reference coordinates with their own per-point data, such as
       * LaplaceTensorCell); any other functor is refused with an exception.
       */
      void release_geometry();

      /** False after release_geometry(). */
      bool has_geometry() const;

      /**
       * Free what update_quadrature_points kept for evaluate_coefficient()
       * where the kernels do not read it: with GeometryStorage::field
       * (FEEvaluation::quadrature_point() computes the points from the
       * field; evaluate_coefficient() interpolates them from it on the
       * device, chunk by chunk) only the small 1D matrices that do it, and
       * evaluate_coefficient() is refused afterwards; with the other forms
       * the stored points stay. Call after the coefficients are evaluated.
       */
      void release_quadrature_points();

      /** Device view for cell functors. */
      const MatrixFreeData<dim, Number> &get_data() const;

      unsigned int n_cells() const;

      /** Locally owned cells with a hanging face or edge. */
      unsigned int n_cells_with_hanging_nodes() const;

      /** Cells per thread block of the cell loop on CUDA. */
      unsigned int get_cells_per_block() const;

      /** Whether the CUDA cell loop runs one thread per cell (see
       *  CellThreads). */
      bool runs_thread_per_cell() const;

      /**
       * The locally owned DoFs (by their position in the locally owned
       * range) in the order in which the CUDA cell loop first reads them:
       * with one thread per cell, the 32 cells of a warp together, one
       * local DoF position after the other, so that the DoFs a warp first
       * reads at one position lie next to each other in memory; else cell
       * by cell. Owned DoFs that no cell reads (constrained ones) follow in
       * their present order. Used by
       * GPU::DoFRenumbering::matrix_free_data_locality().
       */
      std::vector<unsigned int> get_dof_read_order() const;

      /**
       * Locally owned cells whose DoF indices the kernels compute instead
       * of reading them: the cells of blocks whose interior DoFs
       * GPU::DoFRenumbering::block_lexicographic() numbered (a coarser cell
       * refined r times, all its cells here, without hanging nodes, and,
       * where communication overlaps, without ghost DoFs). reinit() finds
       * them for scalar elements without coloring, all of the largest
       * block size (refinements r) of which there is one. A block stores
       * 4 bytes and its 2 dim faces' DoF indices instead of dofs_per_cell
       * indices per cell: for Q1 in 3D on coarse cells refined 6 times
       * 0.4 instead of 32 bytes per DoF. These cells run one thread per
       * quadrature point even where the others run one thread per cell
       * (CellThreads), at 0.3 to 0.4 times the list's speed there on the
       * H100 (doc/benchmarks.md): blocks are for problems that fit no other
       * way.
       */
      unsigned int n_structured_cells() const;

      /** Locally owned cells that touch ghost DoFs (other ranks' DoFs). */
      unsigned int n_boundary_cells() const;

      /** Whether the cell loop overlaps ghost exchange and cell work. */
      bool overlaps_communication() const;

      /** The geometry storage picked by reinit(). */
      GeometryStorage get_geometry_storage() const;

      unsigned int get_fe_degree() const;

      unsigned int get_n_q_points_1d() const;

      unsigned int n_components() const;

      /** Colors: ranges of cells that can be processed without atomics. */
      const std::vector<std::pair<unsigned int, unsigned int>> &
      get_colors() const;

      /** Bytes of the active backend's memory (the device's on CUDA)
       *  this object holds. */
      std::size_t memory_consumption() const;

      /** Bytes of host memory this object keeps after reinit(). */
      std::size_t host_memory_consumption() const;

      /** Wall-clock seconds of reinit()'s steps: cells, dof indices,
       *  partitioner, local indices, structured blocks, coloring, cell
       *  phases, upload indices, geometry (field), shape data. */
      const SetupTimer &get_setup_timer() const;

      /** The mapping field of these data for the multigrid levels (see
       *  AdditionalData::geometry_source): empty unless they hold one of
       *  the active cells, numbered by the DoFs. */
      internal::GeometryFieldSource<dim> get_geometry_field_source() const;

      /** Whether reinit() found every cell among those of
       *  AdditionalData::geometry_source (a level of active cells, on the
       *  same mapping and quadrature). */
      bool has_cells_of_geometry_source() const;

      /** values[cell n_q + q] = the source's @p source_values (a device
       *  array laid out as evaluate_coefficient() gives it, on the source's
       *  cells) at the same cell and point; needs
       *  has_cells_of_geometry_source(). */
      void gather_from_geometry_source(const double  *source_values,
                                       Array<Number> &values) const;

    private:
      // The mapping field at the nodes of cells first, ..., first + n - 1,
      // [((cell - first) * n_nodes + i) * dim + d] (a backend array), for
      // the points of evaluate_coefficient().
      void gather_field_nodes(const unsigned int first,
                              const unsigned int n,
                              double            *nodes) const;

      MatrixFreeData<dim, Number>                        data;
      std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
      Array<unsigned int>                                dof_indices;
      Array<unsigned int>                                block_interior_first;
      Array<unsigned int>                                block_surface;
      unsigned int                                       block_refinements = 0;
      internal::MappingInfo<dim, Number>                 geometry;
      internal::ShapeInfo<Number>                        shape;
      Array<unsigned int>                                constrained_indices;
      Array<unsigned int>                                hanging_masks;
      Array<Number>                                      hanging_interpolation;
      unsigned int                                       n_hanging_cells = 0;
      unsigned int                                       cells_per_block = 1;
      // Of the one-thread-per-point launch that structured cells take.
      unsigned int structured_cells_per_block = 1;
      bool         thread_per_cell            = false;
      SetupTimer   setup_timer;
      std::vector<std::pair<unsigned int, unsigned int>> colors;
      // Per color: [first, p1) and [p2, last) touch no ghosts, [p1, p2)
      // does: {first, p1, p2, last}.
      std::vector<std::array<unsigned int, 4>> cell_phases;
      unsigned int                             n_boundary = 0;
      bool                                     overlap    = false;
      GeometryStorage geometry_storage = GeometryStorage::jacobians;
      bool            use_coloring     = false;
      bool            geometry_kept    = true;
    };

    namespace internal
    {
      // Raises ExcNotSupportedByMatrixFree when a functor's compile-time
      // constants do not match the data.
      void check_functor_constants(const unsigned int fe_degree,
                                   const unsigned int n_q_points_1d,
                                   const unsigned int n_components,
                                   const unsigned int data_fe_degree,
                                   const unsigned int data_n_q_points_1d,
                                   const unsigned int data_n_components);

      // Raises an exception when a functor that reads the geometry runs on
      // data whose geometry was released.
      void check_geometry_available(const bool functor_uses_geometry,
                                    const bool data_has_geometry);

      // Functor::uses_geometry, true where the functor does not say.
      template <typename Functor, typename = void>
      struct functor_uses_geometry : std::true_type
      {
      };
      template <typename Functor>
      struct functor_uses_geometry<
          Functor,
          std::void_t<decltype(Functor::uses_geometry)>>
          : std::bool_constant<Functor::uses_geometry>
      {
      };

      // Functor::computes_diagonal (FEEvaluation::compute_diagonal()'s
      // scratch), false where the functor does not say.
      template <typename Functor, typename = void>
      struct functor_computes_diagonal : std::false_type
      {
      };
      template <typename Functor>
      struct functor_computes_diagonal<
          Functor,
          std::void_t<decltype(Functor::computes_diagonal)>>
          : std::bool_constant<Functor::computes_diagonal>
      {
      };

      // Team shape and scratch size of the cell kernel (see FEEvaluation).
      template <int dim>
      constexpr unsigned int team_extent(const unsigned int n_q_points_1d)
      {
        return n_q_points_1d;
      }
    } // namespace internal

    template <int dim, typename Number>
    template <typename VectorNumber>
    void MatrixFree<dim, Number>::initialize_dof_vector(
        Vector<VectorNumber> &vector) const
    {
      vector.reinit(partitioner);
    }

    template <int dim, typename Number>
    template <typename CoefficientFunction>
    void MatrixFree<dim, Number>::evaluate_coefficient(
        const CoefficientFunction &coefficient, Array<Number> &values) const
    {
      AssertThrow(geometry_kept,
                  ExcNotSupportedByMatrixFree(
                      "the quadrature points were freed by release_geometry()"
                      "; evaluate coefficients before releasing"));
      AssertThrow(data.n_cells == 0 || geometry.has_points(),
                  ExcMessage("evaluate_coefficient needs the quadrature points:"
                             " reinit with update_quadrature_points (and"
                             " before release_quadrature_points())."));
      values.resize(std::size_t(data.n_cells) * data.n_q_points);
      geometry.for_each_points_chunk(
          [&](const unsigned int,
              const unsigned int n,
              const Point<dim>  *points,
              Number            *result)
          {
            for (std::size_t i = 0; i < std::size_t(n) * data.n_q_points; ++i)
              result[i] = coefficient(points[i]);
          },
          &values,
          [this](const unsigned int first, const unsigned int n, double *nodes)
          { gather_field_nodes(first, n, nodes); });
    }

    template <int dim, typename Number>
    template <typename CoefficientFunction>
    void MatrixFree<dim, Number>::evaluate_diffusion_tensor(
        const CoefficientFunction &coefficient, Array<Number> &tensor) const
    {
      Array<Number> values;
      evaluate_coefficient(coefficient, values);
      evaluate_diffusion_tensor(values, tensor);
    }
  } // namespace GPU
} // namespace dealii

#endif
