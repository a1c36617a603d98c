// The geometry side of GPU::MatrixFree::reinit(): Jacobians, JxW,
// quadrature points or the mapping field on the device.
#ifndef dealii_gpu_matrix_free_mapping_info_h
#define dealii_gpu_matrix_free_mapping_info_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/matrix_free/dof_info.h>
#include <dealii-gpu/matrix_free/geometry_storage.h>

#include <deal.II/base/partitioner.h>
#include <deal.II/base/point.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The geometry of a GPU::MatrixFree on the active cells, for the
       * multigrid levels whose cells are all active (the finest level of a
       * uniform mesh): such a level gathers it on the device instead of
       * asking the mapping again. Either the mapping field
       * (GeometryStorage::field), numbered by the local DoF indices, or the
       * stored inverse Jacobians, JxW and points (double data only), found
       * cell by cell through cell_ids. Pointers are nullptr where the data
       * hold no such array.
       */
      template <int dim>
      struct GeometryFieldSource
      {
        const DoFHandler<dim> *dof_handler = nullptr;
        const Mapping<dim>    *mapping     = nullptr;
        unsigned int           degree      = 0;
        /** Device array, dim numbers per local index of partitioner. */
        const double                                      *field = nullptr;
        std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
        /** Device arrays in MatrixFreeData's layouts (points absolute). */
        const double *inverse_jacobian = nullptr;
        const double *JxW              = nullptr;
        const double *points           = nullptr;
        /** Whether all cells of this rank are affine. */
        bool affine_cells = false;
        /** The 1D quadrature points of those arrays. */
        std::vector<double> quadrature_1d;
        /** The cell at each position of the arrays: (level << 32) |
         *  index. */
        std::shared_ptr<const std::vector<std::uint64_t>> cell_ids;
        /** Set by a level operator that gathers its own point data (its
         *  coefficients) from the source as well: a level that gathers its
         *  Jacobians then keeps no points. */
        bool points_not_needed = false;
      };

      /**
       * The cells' geometry on the device, in the layouts of
       * MatrixFreeData, for the cells of a DoFInfo in the order @p order.
       *
       * For MappingQ(p) (and classes derived from it, such as
       * MappingQCache and MappingQEulerian) and MappingCartesian, the host
       * computes only each cell's mapping support points ((p + 1)^dim
       * points, on the setup threads, in batches of cells) and a kernel
       * interpolates them to the quadrature points: points, Jacobians,
       * their inverses and JxW. Other mappings fill FEValues on the host
       * threads. GeometryStorage::field is built on the host threads from
       * the mapping at the element's support points.
       *
       * affine_cells tells whether every cell of this rank is affine
       * (MappingQ(p) or MappingCartesian with support points that are an
       * affine image of the reference ones, as on boxes and their
       * refinements): the cell kernels then read each cell's inverse
       * Jacobian at its first point only.
       */
      template <int dim, typename Number>
      class MappingInfo
      {
      public:
        /** @p store_points keeps the quadrature points (for coefficients,
         *  points_at()) whatever the storage. A level's field is gathered
         *  from @p source where it applies (see GeometryFieldSource). */
        void reinit(const Mapping<dim>              &mapping,
                    const DoFInfo<dim>              &dof_info,
                    const std::vector<unsigned int> &order,
                    const Quadrature<1>             &quadrature,
                    const GeometryStorage            storage,
                    const bool                       store_points,
                    SetupTimer                      &timer,
                    const GeometryFieldSource<dim>  &source = {});

        /** This geometry as a source for the levels (see
         *  GeometryFieldSource; empty on a level). */
        GeometryFieldSource<dim> field_source() const;

        /** Whether reinit() found each cell in its source's cells
         *  (source_cells). */
        bool cells_from_source() const { return source_cells.size() > 0; }

        /** values[c n_q + q] = from[source_cells[c] n_q + q]: point data of
         *  the source's cells (its coefficients) for these cells. */
        void gather_point_values(const double  *from,
                                 Array<Number> &values) const;

        /** Free the geometry (inverse Jacobians, JxW, points, field). */
        void clear();

        /** Whether the quadrature points are kept (stored, or with the
         *  field: interpolated from it by for_each_points_chunk()). */
        bool has_points() const;

        /** Free what has_points() tells of. */
        void release_points();

        /** gather(first, n, nodes) writes the field's positions at the
         *  nodes of cells first, ..., first + n - 1 to the backend array
         *  nodes ([(cell - first) * n_nodes + i] * dim + d, nodes
         *  lexicographic): GPU::MatrixFree knows each cell's nodes. */
        using NodeGather = std::function<void(
            const unsigned int, const unsigned int, double *)>;

        /**
         * Calls f(first, n, points, values) for chunks of consecutive cells
         * from the set-up threads at once (f must be safe to call
         * concurrently): points holds the quadrature points of cells
         * first, ..., first + n - 1 (n_q_points each), copied from the
         * device (with the field: interpolated there chunk by chunk from
         * the nodes @p gather_nodes gives, never stored whole). What f
         * writes to values (as many numbers as points) goes to @p result at
         * [first * n_q_points] where @p result is given (sized n_cells *
         * n_q_points).
         */
        void for_each_points_chunk(const std::function<void(const unsigned int,
                                                            const unsigned int,
                                                            const Point<dim> *,
                                                            Number *)> &f,
                                   Array<Number>                       *result,
                                   const NodeGather &gather_nodes = {}) const;

        std::size_t memory_consumption() const;

        /** The MappingQ degree, 1 for MappingCartesian, else
         *  numbers::invalid_unsigned_int. */
        unsigned int mapping_degree = numbers::invalid_unsigned_int;
        unsigned int n_q_points     = 0;
        unsigned int n_cells        = 0;

        /** Whether every cell is affine (stored Jacobians of a MappingQ(p)
         *  or MappingCartesian only). */
        bool                affine_cells = false;
        Array<Number>       inverse_jacobian;
        Array<Number>       JxW;
        Array<Number>       quadrature_points;
        Array<Number>       cell_centers;
        Array<double>       geometry_field;
        Array<unsigned int> geometry_indices;
        Array<Number>       quadrature_weights;
        /** Each cell's position in the source's arrays (device; empty
         *  unless reinit() found them all). */
        Array<unsigned int> source_cells;

      private:
        // GeometryStorage::field with store_points: the 1D Lagrange
        // matrices from the nodes to the quadrature points (device), for
        // for_each_points_chunk(). Kernels that need points compute them
        // from the field, so only coefficients evaluated on the host use
        // these, and an array of all points is never built.
        bool points_from_field = false;
        // What field_source() tells of, but the array.
        GeometryFieldSource<dim> source_of_levels;
        Array<double> field_values_1d, field_derivatives_1d, field_means_1d;
        unsigned int  field_nodes_1d = 0, n_q_points_1d = 0;
      };

      /** The degree of a MappingQ (or derived), 1 for MappingCartesian,
       *  numbers::invalid_unsigned_int for other mappings. */
      template <int dim>
      unsigned int polynomial_mapping_degree(const Mapping<dim> &mapping);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
