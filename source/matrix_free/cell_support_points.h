// Positions of a tensor product of 1D nodes on each cell under a mapping,
// for the mapping's support points, the geometry field and the Jacobians.
#ifndef dealii_gpu_source_matrix_free_cell_support_points_h
#define dealii_gpu_source_matrix_free_cell_support_points_h

#include <deal.II/base/polynomial.h>
#include <deal.II/base/quadrature.h>
#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/manifold.h>
#include <deal.II/grid/tria.h>

#include <cmath>
#include <memory>
#include <typeinfo>
#include <utility>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The mapped positions of the tensor product of @p nodes_1d (x
       * fastest) on a cell. For a MappingQ(p) they come from its support
       * points (the manifolds' work, as FEValues would do it first), copied
       * where the nodes are its Gauss-Lobatto points and else interpolated
       * by sum factorization; FEValues at the points evaluated the
       * polynomial again, 40 % of the time at p = 2. Where deal.II's
       * MappingQ would place its points with the flat manifold (p = 1, or
       * the cell, its faces and lines all on the triangulation's flat
       * manifold, as the inner cells of a ball or every cell of a box),
       * they are the multilinear interpolation of the vertices, computed
       * here directly at the nodes: the manifolds' generic path cost 3-5x
       * more (1.2 against 0.4 us a cell at p = 2, 4.5 against 1 at p = 4).
       * Any other mapping goes through FEValues. One object a thread
       * (FEValues is not shared).
       */
      template <int dim>
      class CellSupportPoints
      {
      public:
        CellSupportPoints(const Mapping<dim>          &mapping,
                          const std::vector<Point<1>> &nodes_1d)
            : mapping_q(dynamic_cast<const MappingQ<dim> *>(&mapping)),
              n_nodes(Utilities::pow(nodes_1d.size(), dim))
        {
          if (mapping_q == nullptr)
          {
            fe = std::make_unique<FE_Q<dim>>(1);
            fe_values =
                std::make_unique<FEValues<dim>>(mapping,
                                                *fe,
                                                tensor_product(nodes_1d),
                                                update_quadrature_points);
            return;
          }
          const unsigned int p = mapping_q->get_degree();
          n_out_1d             = nodes_1d.size();
          from_vertices        = continuous(mapping);
          linear.resize(n_out_1d * 2);
          for (unsigned int i = 0; i < n_out_1d; ++i)
          {
            linear[i * 2]     = 1. - nodes_1d[i][0];
            linear[i * 2 + 1] = nodes_1d[i][0];
          }
          lexicographic =
              FETools::lexicographic_to_hierarchic_numbering<dim>(p);
          const std::vector<Point<1>> gauss_lobatto =
              QGaussLobatto<1>(p + 1).get_points();
          bool same = nodes_1d.size() == p + 1;
          for (unsigned int i = 0; same && i <= p; ++i)
            same = std::abs(nodes_1d[i][0] - gauss_lobatto[i][0]) < 1e-14;
          if (same)
            return;
          n_in_1d = p + 1;
          const auto lagrange =
              Polynomials::generate_complete_Lagrange_basis(gauss_lobatto);
          matrix.resize(n_out_1d * n_in_1d);
          for (unsigned int i = 0; i < n_out_1d; ++i)
            for (unsigned int j = 0; j < n_in_1d; ++j)
              matrix[i * n_in_1d + j] = lagrange[j].value(nodes_1d[i][0]);
        }

        /** Number of nodes a cell. */
        unsigned int size() const { return n_nodes; }

        /**
         * Whether every cell places a support point it shares with another
         * at the same position by construction: deal.II's own MappingQ
         * computes line and face points from the line and face, not from
         * the cell. A class derived from it may not.
         */
        static bool continuous(const Mapping<dim> &mapping)
        {
          return typeid(mapping) == typeid(MappingQ<dim>) ||
                 typeid(mapping) == typeid(MappingQ1<dim>);
        }

        /** The positions on @p cell: x[i * dim + d]. */
        void get(const typename Triangulation<dim>::cell_iterator &cell,
                 double                                           *x)
        {
          if (mapping_q == nullptr)
          {
            fe_values->reinit(cell);
            for (unsigned int i = 0; i < n_nodes; ++i)
              for (unsigned int d = 0; d < dim; ++d)
                x[i * dim + d] = fe_values->quadrature_point(i)[d];
            return;
          }
          if (from_vertices && on_flat_manifold(cell))
          {
            ++n_from_vertices;
            in.resize(GeometryInfo<dim>::vertices_per_cell * dim);
            for (const unsigned int v : GeometryInfo<dim>::vertex_indices())
              for (unsigned int d = 0; d < dim; ++d)
                in[v * dim + d] = cell->vertex(v)[d];
            interpolate(linear, 2, x);
            return;
          }
          const std::vector<Point<dim>> points =
              (mapping_q->*(&Access::compute_mapping_support_points))(cell);
          if (matrix.empty())
          {
            for (unsigned int i = 0; i < n_nodes; ++i)
              for (unsigned int d = 0; d < dim; ++d)
                x[i * dim + d] = points[lexicographic[i]][d];
            return;
          }
          in.resize(points.size() * dim);
          for (unsigned int i = 0; i < points.size(); ++i)
            for (unsigned int d = 0; d < dim; ++d)
              in[i * dim + d] = points[lexicographic[i]][d];
          interpolate(matrix, n_in_1d, x);
        }

        /** How many cells get() placed from their vertices. */
        std::size_t n_cells_from_vertices() const { return n_from_vertices; }

      private:
        // Opens MappingQ's support points (protected in deal.II 9.4) to
        // this class through a pointer to member.
        struct Access : MappingQ<dim>
        {
          using MappingQ<dim>::compute_mapping_support_points;
        };

        static Quadrature<dim>
        tensor_product(const std::vector<Point<1>> &nodes_1d)
        {
          return Quadrature<dim>(Quadrature<1>(
              nodes_1d,
              std::vector<double>(nodes_1d.size(), 1. / nodes_1d.size())));
        }

        // Whether deal.II's MappingQ places the cell's points with the
        // flat manifold alone: degree 1 (the vertices), or the cell, its
        // faces and (3D) lines all on the triangulation's flat manifold
        // object, which MappingQ then asks for every point at once. An id
        // whose manifold is another object, even another FlatManifold, goes
        // through MappingQ. Ids are looked up once each per object.
        bool
        on_flat_manifold(const typename Triangulation<dim>::cell_iterator &cell)
        {
          if (mapping_q->get_degree() == 1)
            return true;
          const Triangulation<dim> &tria = cell->get_triangulation();
          if (&tria != flat_ids_of)
          {
            flat_ids_of = &tria;
            flat_ids.clear();
            const Manifold<dim> &flat =
                tria.get_manifold(numbers::flat_manifold_id);
            const auto *f = dynamic_cast<const FlatManifold<dim> *>(&flat);
            flat_manifold = f != nullptr &&
                                    typeid(flat) == typeid(FlatManifold<dim>) &&
                                    f->get_periodicity().norm() == 0
                                ? &flat
                                : nullptr;
          }
          if (flat_manifold == nullptr)
            return false;
          const auto is_flat = [&](const types::manifold_id id)
          {
            for (const auto &known : flat_ids)
              if (known.first == id)
                return known.second;
            flat_ids.emplace_back(id, &tria.get_manifold(id) == flat_manifold);
            return flat_ids.back().second;
          };
          if (!is_flat(cell->manifold_id()))
            return false;
          for (const unsigned int f : GeometryInfo<dim>::face_indices())
            if (!is_flat(cell->face(f)->manifold_id()))
              return false;
          // The lines through faces 0-3 (x = 0, 1 and y = 0, 1 hold all
          // twelve): a face's lines are stored with it, while a cell's go
          // through its faces' orientations (twice the time).
          if constexpr (dim == 3)
            for (unsigned int f = 0; f < 4; ++f)
            {
              const auto face = cell->face(f);
              for (unsigned int l = 0; l < 4; ++l)
                if (!is_flat(face->line(l)->manifold_id()))
                  return false;
            }
          return true;
        }

        // `in` (n_in^dim points) to x (n_out_1d^dim) by the 1D matrix m
        // (n_out_1d x n_in), one direction at a time: [after][n_in][before]
        // to [after][n_out][before].
        void interpolate(const std::vector<double> &m_1d,
                         const unsigned int         n_in,
                         double                    *x)
        {
          unsigned int before = 1, after = Utilities::pow(n_in, dim - 1);
          for (unsigned int d = 0; d < dim; ++d)
          {
            out.assign(std::size_t(after) * n_out_1d * before * dim, 0.);
            for (unsigned int a = 0; a < after; ++a)
              for (unsigned int i = 0; i < n_out_1d; ++i)
                for (unsigned int j = 0; j < n_in; ++j)
                {
                  const double  m = m_1d[i * n_in + j];
                  const double *src =
                      &in[(std::size_t(a * n_in + j) * before) * dim];
                  double *dst =
                      &out[(std::size_t(a * n_out_1d + i) * before) * dim];
                  for (unsigned int b = 0; b < before * dim; ++b)
                    dst[b] += m * src[b];
                }
            in.swap(out);
            before *= n_out_1d;
            if (d + 1 < dim)
              after /= n_in;
          }
          std::copy(in.begin(), in.begin() + std::size_t(n_nodes) * dim, x);
        }

        const MappingQ<dim>      *mapping_q;
        const unsigned int        n_nodes;
        std::vector<unsigned int> lexicographic;
        unsigned int              n_in_1d = 0, n_out_1d = 0;
        // MappingQ(p) at the nodes from the support points (empty where
        // the nodes are them), and from the vertices.
        std::vector<double>       matrix, linear, in, out;
        bool                      from_vertices   = false;
        std::size_t               n_from_vertices = 0;
        const Triangulation<dim> *flat_ids_of     = nullptr;
        const Manifold<dim>      *flat_manifold   = nullptr;
        std::vector<std::pair<types::manifold_id, bool>> flat_ids;
        std::unique_ptr<FE_Q<dim>>                       fe;
        std::unique_ptr<FEValues<dim>>                   fe_values;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
