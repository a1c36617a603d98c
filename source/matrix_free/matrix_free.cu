// GPU::MatrixFree: the data builder (host) and the constrained-value kernels.
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/dofs/block_lattice.h>
#include <dealii-gpu/matrix_free/fe_evaluation.h>
#include <dealii-gpu/matrix_free/hanging_nodes.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/graph_coloring.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/fe/mapping_cartesian.h>
#include <deal.II/fe/mapping_q.h>
#include <deal.II/lac/affine_constraints.h>

#include <algorithm>
#include <numeric>
#include <sstream>
#include <unordered_map>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      void check_functor_constants(const unsigned int fe_degree,
                                   const unsigned int n_q_points_1d,
                                   const unsigned int n_components,
                                   const unsigned int data_fe_degree,
                                   const unsigned int data_n_q_points_1d,
                                   const unsigned int data_n_components)
      {
        if (fe_degree != data_fe_degree ||
            n_q_points_1d != data_n_q_points_1d ||
            n_components != data_n_components)
        {
          std::ostringstream message;
          message << "the cell functor is compiled for degree " << fe_degree
                  << ", " << n_q_points_1d << " quadrature points per "
                  << "direction and " << n_components
                  << " component(s), but the data has degree " << data_fe_degree
                  << ", " << data_n_q_points_1d << " points and "
                  << data_n_components << " component(s)";
          AssertThrow(false, ExcNotSupportedByMatrixFree(message.str()));
        }
      }

      void check_geometry_available(const bool functor_uses_geometry,
                                    const bool data_has_geometry)
      {
        AssertThrow(!functor_uses_geometry || data_has_geometry,
                    ExcNotSupportedByMatrixFree(
                        "this cell functor reads the Jacobians or JxW, but "
                        "release_geometry() has freed them; run functors "
                        "with uses_geometry = false (e.g. LaplaceTensorCell) "
                        "or keep the geometry"));
      }

      // Finds the hanging faces and edges of a cell, and the coarse DoFs at
      // the positions of its parent on them (see hanging_nodes.h).
      template <int dim>
      class HangingNodeSetup
      {
      public:
        using CellIterator = typename DoFHandler<dim>::cell_iterator;
        using Indices      = std::vector<types::global_dof_index>;

        HangingNodeSetup(const DoFHandler<dim>           &dof_handler,
                         const unsigned int               degree,
                         const std::vector<unsigned int> &lexicographic)
            : degree(degree), n(degree + 1)
        {
          const auto &fe_q = dynamic_cast<const FE_Q<dim> &>(
              dof_handler.get_fe().base_element(0));
          const auto &support = fe_q.get_unit_support_points();
          interpolation.resize(2 * n * n);
          for (unsigned int child = 0; child < 2; ++child)
            for (unsigned int i = 0; i < n; ++i)
              for (unsigned int j = 0; j < n; ++j)
              {
                Point<dim> x;
                x[0] = 0.5 * (support[lexicographic[i]][0] + child);
                interpolation[child * n * n + i * n + j] =
                    fe_q.shape_value(lexicographic[j], x);
              }
          // 3D: the child lines of refined edges of active cells, and one
          // coarse cell holding each such edge.
          if (dim == 3)
            for (const auto &cell : dof_handler.active_cell_iterators())
              if (!cell->is_artificial())
                for (unsigned int l = 0; l < GeometryInfo<dim>::lines_per_cell;
                     ++l)
                  if (cell->line(l)->has_children())
                    for (unsigned int ch = 0; ch < 2; ++ch)
                      coarse_edges[cell->line(l)->child_index(ch)] = {cell, l};
        }

        const std::vector<double> &interpolation_matrices() const
        {
          return interpolation;
        }

        // Returns the mask of the cell (0: nothing hangs). Only for a
        // hanging cell, fills @p fine with its lexicographic DoF indices and
        // @p indices with the same, the ones on hanging faces and edges
        // replaced by the coarse ones (most cells need neither).
        template <typename LexicographicIndices>
        unsigned int
        substitute(const CellIterator         &cell,
                   const LexicographicIndices &lexicographic_indices,
                   Indices                    &fine,
                   Indices                    &indices) const
        {
          if (cell->level() == 0)
            return 0;
          using namespace HangingNodes;
          const auto parent = cell->parent();
          AssertThrow(parent->refinement_case() ==
                          RefinementCase<dim>::isotropic_refinement,
                      ExcNotSupportedByMatrixFree(
                          "anisotropic refinement (hanging nodes need "
                          "isotropically refined parents)"));
          unsigned int child = 0;
          while (parent->child(child) != cell)
            ++child;
          unsigned int mask = 0;
          // Faces next to a coarser cell.
          std::array<CellIterator, dim> face_cell;
          std::array<unsigned int, dim> face_no{};
          for (unsigned int f = 0; f < 2 * dim; ++f)
            if (!cell->at_boundary(f) && cell->neighbor_is_coarser(f))
            {
              const unsigned int d = f / 2;
              AssertThrow(f % 2 == ((child >> d) & 1u), ExcInternalError());
              mask |= face_bit(d);
              face_cell[d] = cell->neighbor(f);
              face_no[d]   = cell->neighbor_of_coarser_neighbor(f).first;
            }
          // Edges on a coarser cell's edge, unless inside a hanging face.
          std::array<std::pair<CellIterator, unsigned int>, 3> edge;
          if (dim == 3)
            for (unsigned int l = 0; l < GeometryInfo<dim>::lines_per_cell; ++l)
            {
              const auto it = coarse_edges.find(cell->line_index(l));
              if (it == coarse_edges.end())
                continue;
              unsigned int d, sides;
              line_position(l, d, sides);
              const unsigned int e1 = (d + 1) % 3, e2 = (d + 2) % 3;
              AssertThrow(((sides >> e1) & 1u) == ((child >> e1) & 1u) &&
                              ((sides >> e2) & 1u) == ((child >> e2) & 1u),
                          ExcInternalError());
              if ((mask & (face_bit(e1) | face_bit(e2))) == 0)
              {
                mask |= edge_bit(d);
                edge[d] = it->second;
              }
            }
          if (mask == 0)
            return 0;
          mask |= child;
          fine    = lexicographic_indices(cell);
          indices = fine;

          // Coarse DoFs at the parent's positions.
          const unsigned int n_lex  = Utilities::pow(n, dim);
          const unsigned int n_comp = indices.size() / n_lex;
          for (unsigned int e = 0; e < dim; ++e)
          {
            if ((mask & face_bit(e)) != 0)
            {
              const Indices coarse = lexicographic_indices(face_cell[e]);
              const auto    map    = face_map(
                  parent, e, child_position(mask, e), face_cell[e], face_no[e]);
              for (unsigned int i = 0; i < n_lex; ++i)
              {
                const auto p = position(i);
                if (p[e] != child_position(mask, e) * degree)
                  continue;
                const unsigned int j = map(p);
                for (unsigned int c = 0; c < n_comp; ++c)
                  indices[c * n_lex + i] = coarse[c * n_lex + j];
              }
            }
            if (dim == 3 && (mask & edge_bit(e)) != 0)
            {
              const Indices      coarse = lexicographic_indices(edge[e].first);
              const unsigned int e1 = (e + 1) % 3, e2 = (e + 2) % 3;
              // The coarse cell's edge: direction, fixed sides, and whether
              // it runs like the parent's edge.
              unsigned int dc, sides_c;
              line_position(edge[e].second, dc, sides_c);
              const unsigned int start_parent =
                  parent->vertex_index((child_position(mask, e1) << e1) |
                                       (child_position(mask, e2) << e2));
              const unsigned int end_parent = parent->vertex_index(
                  (1u << e) | (child_position(mask, e1) << e1) |
                  (child_position(mask, e2) << e2));
              const unsigned int start_coarse =
                  edge[e].first->vertex_index(sides_c);
              AssertThrow(start_coarse == start_parent ||
                              start_coarse == end_parent,
                          ExcInternalError());
              const bool forward = start_coarse == start_parent;
              for (unsigned int i = 0; i < n_lex; ++i)
              {
                const auto p = position(i);
                if (p[e1] != child_position(mask, e1) * degree ||
                    p[e2] != child_position(mask, e2) * degree)
                  continue;
                std::array<unsigned int, 3> q{};
                for (unsigned int d = 0; d < dim; ++d)
                  q[d] = ((sides_c >> d) & 1u) * degree;
                q[dc]                = forward ? p[e] : degree - p[e];
                const unsigned int j = index(q);
                for (unsigned int c = 0; c < n_comp; ++c)
                  indices[c * n_lex + i] = coarse[c * n_lex + j];
              }
            }
          }
          return mask;
        }

        // Every hanging DoF's constraint must be the interpolation the
        // kernel applies: same coarse DoFs, same weights (coarse DoFs with
        // Dirichlet rows dropped, as AffineConstraints::close() does).
        template <typename ConstraintNumber>
        void check_constraints(
            const unsigned int                         mask,
            const Indices                             &fine,
            const Indices                             &coarse,
            const AffineConstraints<ConstraintNumber> &constraints) const
        {
          using namespace HangingNodes;
          const unsigned int n_lex  = Utilities::pow(n, dim);
          const unsigned int n_comp = fine.size() / n_lex;
          const double tolerance = sizeof(ConstraintNumber) < 8 ? 1e-5 : 1e-8;
          std::vector<std::pair<types::global_dof_index, double>> expected,
              actual;
          for (unsigned int c = 0; c < n_comp; ++c)
            for (unsigned int i = 0; i < n_lex; ++i)
            {
              const types::global_dof_index f = fine[c * n_lex + i];
              if (f == coarse[c * n_lex + i])
                continue;
              const auto   p = position(i);
              unsigned int interpolated[3], n_interpolated = 0;
              for (unsigned int d = 0; d < dim; ++d)
                if (line_is_constrained<dim>(mask, d, p.data(), degree))
                  interpolated[n_interpolated++] = d;
              expected.clear();
              const unsigned int n_terms = Utilities::pow(n, n_interpolated);
              for (unsigned int t = 0; t < n_terms; ++t)
              {
                auto         q      = p;
                double       weight = 1.;
                unsigned int rest   = t;
                for (unsigned int m = 0; m < n_interpolated; ++m)
                {
                  const unsigned int d = interpolated[m];
                  q[d]                 = rest % n;
                  rest /= n;
                  weight *= interpolation[child_position(mask, d) * n * n +
                                          p[d] * n + q[d]];
                }
                if (std::abs(weight) < 1e-12)
                  continue;
                const types::global_dof_index g = coarse[c * n_lex + index(q)];
                if (constraints.is_constrained(g))
                {
                  const auto *entries = constraints.get_constraint_entries(g);
                  AssertThrow(
                      entries == nullptr || entries->empty(),
                      ExcNotSupportedByMatrixFree(
                          "DoF " + std::to_string(g) +
                          " of a coarse face or edge is itself a hanging "
                          "node (refinement levels of cells that share a "
                          "vertex differ by more than one); use p4est or "
                          "Triangulation::limit_level_difference_at_vertices"));
                  continue;
                }
                expected.emplace_back(g, weight);
              }
              actual.clear();
              const auto *entries = constraints.get_constraint_entries(f);
              AssertThrow(
                  constraints.is_constrained(f),
                  ExcNotSupportedByMatrixFree(
                      "DoF " + std::to_string(f) +
                      " is a hanging node but has no constraint: build the "
                      "AffineConstraints with "
                      "DoFTools::make_hanging_node_constraints()"));
              if (entries != nullptr)
                for (const auto &entry : *entries)
                  if (std::abs(double(entry.second)) >= 1e-12)
                    actual.emplace_back(entry.first, double(entry.second));
              std::sort(expected.begin(), expected.end());
              std::sort(actual.begin(), actual.end());
              bool same = expected.size() == actual.size();
              for (unsigned int k = 0; same && k < expected.size(); ++k)
                same =
                    expected[k].first == actual[k].first &&
                    std::abs(expected[k].second - actual[k].second) <=
                        tolerance * std::max(1., std::abs(expected[k].second));
              AssertThrow(
                  same,
                  ExcNotSupportedByMatrixFree(
                      "the constraint of hanging DoF " + std::to_string(f) +
                      " is not the interpolation from the coarse side (" +
                      std::to_string(actual.size()) + " entries, " +
                      std::to_string(expected.size()) +
                      " expected); build the hanging-node constraints "
                      "before the Dirichlet ones, and no other constraints "
                      "on these DoFs"));
            }
        }

      private:
        std::array<unsigned int, 3> position(unsigned int i) const
        {
          std::array<unsigned int, 3> p{};
          for (unsigned int d = 0; d < dim; ++d, i /= n)
            p[d] = i % n;
          return p;
        }

        unsigned int index(const std::array<unsigned int, 3> &p) const
        {
          return p[0] + n * (p[1] + (dim == 3 ? n * p[2] : 0));
        }

        // Direction of line l of a hex and the vertex bits of its start.
        static void line_position(const unsigned int l,
                                  unsigned int      &direction,
                                  unsigned int      &start)
        {
          const unsigned int v0 =
              GeometryInfo<dim>::line_to_cell_vertices(l, 0);
          const unsigned int v1 =
              GeometryInfo<dim>::line_to_cell_vertices(l, 1);
          const unsigned int differ = v0 ^ v1;
          direction                 = differ == 1 ? 0 : differ == 2 ? 1 : 2;
          start                     = std::min(v0, v1);
        }

        // Map from the parent's lexicographic positions on its face normal
        // to e (side `side`) to the coarse neighbor's lexicographic index on
        // the same face, found by matching the corner vertices.
        std::function<unsigned int(const std::array<unsigned int, 3> &)>
        face_map(const CellIterator &parent,
                 const unsigned int  e,
                 const unsigned int  side,
                 const CellIterator &coarse,
                 const unsigned int  coarse_face) const
        {
          const unsigned int dc = coarse_face / 2, sc = coarse_face % 2;
          std::array<unsigned int, 2> t{}, tc{};
          for (unsigned int d = 0, m = 0, mc = 0; d < dim; ++d)
          {
            if (d != e)
              t[m++] = d;
            if (d != dc)
              tc[mc++] = d;
          }
          constexpr unsigned int n_corners = 1u << (dim - 1);
          // corner[a] = the coarse face corner (bits in tc) at parent corner a.
          std::array<unsigned int, 4> corner{};
          for (unsigned int a = 0; a < n_corners; ++a)
          {
            unsigned int bits = side << e;
            for (unsigned int m = 0; m + 1 < dim; ++m)
              bits |= ((a >> m) & 1u) << t[m];
            const unsigned int vertex = parent->vertex_index(bits);
            bool               found  = false;
            for (unsigned int b = 0; b < n_corners && !found; ++b)
            {
              unsigned int bits_c = sc << dc;
              for (unsigned int m = 0; m + 1 < dim; ++m)
                bits_c |= ((b >> m) & 1u) << tc[m];
              if (coarse->vertex_index(bits_c) == vertex)
              {
                corner[a] = b;
                found     = true;
              }
            }
            AssertThrow(found, ExcInternalError());
          }
          // Affine map of the face square: origin and the images of the axes.
          std::array<int, 2>                origin{};
          std::array<std::array<int, 2>, 2> axis{};
          for (unsigned int m = 0; m + 1 < dim; ++m)
            origin[m] = (corner[0] >> m) & 1u;
          for (unsigned int j = 0; j + 1 < dim; ++j)
            for (unsigned int m = 0; m + 1 < dim; ++m)
              axis[j][m] = int((corner[1u << j] >> m) & 1u) - origin[m];
          const int degree_ = degree;
          return [=](const std::array<unsigned int, 3> &p)
          {
            std::array<unsigned int, 3> q{};
            q[dc] = sc * degree_;
            for (unsigned int m = 0; m + 1 < dim; ++m)
            {
              int r = origin[m] * degree_;
              for (unsigned int j = 0; j + 1 < dim; ++j)
                r += axis[j][m] * int(p[t[j]]);
              q[tc[m]] = r;
            }
            return index(q);
          };
        }

        const unsigned int  degree;
        const unsigned int  n;
        std::vector<double> interpolation;
        std::unordered_map<unsigned int, std::pair<CellIterator, unsigned int>>
            coarse_edges;
      };

      // GeometryStorage::field: the mapped positions of the support points
      // of FE_Q(degree), one node per DoF of the first component. With
      // nodes_are_dofs the node of a DoF is its local vector index, so the
      // kernel reads the field through the DoF indices (no node list; the
      // field then follows the DoF numbering, see
      // DoFRenumbering::matrix_free_data_locality); else the nodes are
      // numbered in the order the cells first touch them and `nodes` lists
      // each cell's. Each cell's nodes are its own DoFs (also on hanging
      // faces and Dirichlet boundaries), so the field reproduces every
      // cell's mapping; a node that two cells place differently means a
      // mapping that is not continuous, which is refused.
      template <int dim, typename CellIterator, typename Number>
      void build_geometry_field(const Mapping<dim>              &mapping,
                                const FiniteElement<dim>        &fe,
                                const FE_Q<dim>                 &fe_q,
                                const std::vector<unsigned int> &lexicographic,
                                const std::vector<CellIterator> &cells,
                                const bool                       on_level,
                                const Utilities::MPI::Partitioner &partitioner,
                                const bool                 nodes_are_dofs,
                                std::vector<double>       &field,
                                std::vector<unsigned int> &nodes,
                                std::vector<Number>       &centers)
      {
        const unsigned int      n = lexicographic.size();
        std::vector<Point<dim>> support(n);
        for (unsigned int i = 0; i < n; ++i)
          support[i] = fe_q.get_unit_support_points()[lexicographic[i]];
        FEValues<dim> fe_values(
            mapping, fe_q, Quadrature<dim>(support), update_quadrature_points);
        const unsigned int n_local =
            partitioner.locally_owned_size() + partitioner.n_ghost_indices();
        std::vector<unsigned int>            node_of_local(n_local,
                                                numbers::invalid_unsigned_int);
        std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
        field.assign(nodes_are_dofs ? std::size_t(n_local) * dim : 0, 0.);
        nodes.resize(nodes_are_dofs ? 0 : cells.size() * n);
        constexpr bool with_centers = points_relative_to_cell_centers<Number>();
        centers.resize(with_centers ? cells.size() * dim : 0);
        unsigned int n_nodes = 0;
        for (unsigned int c = 0; c < cells.size(); ++c)
        {
          if (on_level)
            cells[c]->get_mg_dof_indices(indices);
          else
            cells[c]->get_active_or_mg_dof_indices(indices);
          fe_values.reinit(
              typename Triangulation<dim>::cell_iterator(cells[c]));
          const double tolerance = 1e-10 * cells[c]->diameter();
          Point<dim>   center;
          for (unsigned int i = 0; i < n; ++i)
          {
            const types::global_dof_index g =
                indices[fe.component_to_system_index(0, lexicographic[i])];
            AssertThrow(partitioner.in_local_range(g) ||
                            partitioner.is_ghost_entry(g),
                        ExcInternalError());
            const unsigned int local = partitioner.global_to_local(g);
            const Point<dim>  &x     = fe_values.quadrature_point(i);
            center += x;
            unsigned int &node = node_of_local[local];
            if (node == numbers::invalid_unsigned_int)
            {
              node = nodes_are_dofs ? local : n_nodes++;
              if (!nodes_are_dofs)
                field.resize(std::size_t(n_nodes) * dim);
              for (unsigned int d = 0; d < dim; ++d)
                field[std::size_t(node) * dim + d] = x[d];
            }
            else
              for (unsigned int d = 0; d < dim; ++d)
                if (std::abs(field[std::size_t(node) * dim + d] - x[d]) >
                    tolerance)
                {
                  std::ostringstream message;
                  message << "GeometryStorage::field with a mapping that is "
                             "not continuous between cells: the cells next "
                             "to the support point "
                          << x
                          << " map it to different places; use "
                             "GeometryStorage::points or jacobians";
                  AssertThrow(false,
                              ExcNotSupportedByMatrixFree(message.str()));
                }
            if (!nodes_are_dofs)
              nodes[std::size_t(c) * n + i] = node;
          }
          center /= n;
          for (unsigned int d = 0; d < dim && with_centers; ++d)
            centers[std::size_t(c) * dim + d] = center[d];
        }
      }

      // Cells a warp runs with one thread per cell.
      constexpr unsigned int cells_per_warp = 32;

      // Calls f(cell, i) for the entries i < n_per_cell of every cell in
      // the order in which the cell loop's warps first read them: the cell
      // ranges in the order cell_loop() launches them, `group` cells (a
      // warp, with one thread per cell) at a time, position by position.
      template <typename F>
      void for_each_in_read_order(
          const std::vector<std::array<unsigned int, 4>> &cell_phases,
          const unsigned int                              group,
          const unsigned int                              n_per_cell,
          const F                                        &f)
      {
        for (unsigned int part = 0; part < 3; ++part)
          for (const auto &phase : cell_phases)
            for (unsigned int first = phase[part]; first < phase[part + 1];
                 first += group)
            {
              const unsigned int last =
                  std::min(first + group, phase[part + 1]);
              for (unsigned int i = 0; i < n_per_cell; ++i)
                for (unsigned int cell = first; cell < last; ++cell)
                  f(cell, i);
            }
      }

      // Cells of blocks whose DoFs GPU::DoFRenumbering::block_lexicographic()
      // numbered, found in the cell list of reinit().
      struct StructuredBlocks
      {
        unsigned int refinements = 0;
        // Positions in the cell list, block after block, lexicographic.
        std::vector<unsigned int> cells;
        // Per block: the global index of the first interior DoF.
        std::vector<types::global_dof_index> interior_first;
        // Per block: the global indices of the faces' lattice points, laid
        // out as MatrixFreeData::block_surface.
        std::vector<types::global_dof_index> surface;
      };

      // Whether @p block, refined r times, is a structured block: all its
      // cells in the list without hanging nodes, its interior DoFs
      // numbered lexicographically from one first index (interior_ok for
      // each), its surface DoFs surface_ok. If so, appends it to @p result.
      // @p first_cell is the block's first active cell (child 0 r times).
      template <int dim,
                typename CellIterator,
                typename SurfaceOk,
                typename InteriorOk>
      bool add_structured_block(const CellIterator              &block,
                                const CellIterator              &first_cell,
                                const unsigned int               r,
                                const std::vector<unsigned int> &position,
                                const std::vector<unsigned int> &masks,
                                const unsigned int               degree,
                                const SurfaceOk                 &surface_ok,
                                const InteriorOk                &interior_ok,
                                StructuredBlocks                &result)
      {
        // Only blocks that save at least half of the index memory (not,
        // e.g., Q1 blocks of 2^dim cells, whose one interior DoF would fit
        // any numbering).
        const unsigned int M = degree << r;
        const unsigned int P = M + 1;
        const std::size_t  face_size =
            dim == 3 ? std::size_t(P) * P : std::size_t(P);
        const std::size_t n_block_cells = std::size_t(1) << (dim * r);
        if (2 * (1 + 2 * dim * face_size) >
            n_block_cells * Utilities::pow(degree + 1, dim))
          return false;
        std::vector<types::global_dof_index> surface(2 * dim * face_size);
        const std::vector<unsigned int>      lexicographic =
            FETools::lexicographic_to_hierarchic_numbering<dim>(degree);
        types::global_dof_index              first = 0;
        std::vector<types::global_dof_index> indices;
        // Checks the cell at lexicographic position c in the block and
        // records its surface DoFs; stops at the first DoF out of place.
        const auto check = [&](const std::size_t c, const auto &cell)
        {
          if (cell->has_children())
            return false;
          const unsigned int p = position[cell->active_cell_index()];
          if (p == numbers::invalid_unsigned_int || masks[p] != 0)
            return false;
          indices.resize(cell->get_fe().n_dofs_per_cell());
          cell->get_dof_indices(indices);
          for (unsigned int i = 0; i < lexicographic.size(); ++i)
          {
            const auto x     = lattice_point<dim>(c, i, r, degree);
            bool       inner = true;
            for (unsigned int d = 0; d < dim; ++d)
              inner = inner && x[d] > 0 && x[d] < M;
            const types::global_dof_index g = indices[lexicographic[i]];
            if (inner)
            {
              std::size_t offset = 0;
              for (int d = dim - 1; d >= 0; --d)
                offset = offset * (M - 1) + x[d] - 1;
              // Cell 0 holds lattice point (1, ..., 1) and comes first.
              if (offset == 0 && c == 0)
                first = g;
              if (!interior_ok(g) || g != first + offset)
                return false;
              continue;
            }
            if (!surface_ok(g))
              return false;
            for (unsigned int d = 0; d < dim; ++d)
              if (x[d] == 0 || x[d] == M)
              {
                const unsigned int u        = x[d == 0 ? 1 : 0];
                const unsigned int v        = dim == 3 ? x[d == 2 ? 1 : 2] : 0;
                surface[(2 * d + (x[d] == M)) * face_size + u +
                        std::size_t(P) * v] = g;
              }
          }
          return true;
        };
        // The first two cells (child 0 and its x neighbor, child 1) reject
        // almost any block not so numbered before its cells are collected:
        // reinit() tests every block of every size.
        if (!check(0, first_cell) || !check(1, first_cell->parent()->child(1)))
          return false;
        std::vector<typename DoFHandler<dim>::active_cell_iterator> cells;
        if (!block_cells<dim>(block, r, cells))
          return false;
        for (std::size_t c = 0; c < cells.size(); ++c)
          if (!check(c, cells[c]))
            return false;
        for (const auto &cell : cells)
          result.cells.push_back(position[cell->active_cell_index()]);
        result.interior_first.push_back(first);
        result.surface.insert(
            result.surface.end(), surface.begin(), surface.end());
        return true;
      }

      // The structured blocks among @p cells: all of them for the largest
      // number of refinements r for which there is one.
      template <int dim,
                typename CellIterator,
                typename SurfaceOk,
                typename InteriorOk>
      StructuredBlocks
      find_structured_blocks(const std::vector<CellIterator> &cells,
                             const std::vector<unsigned int> &masks,
                             const unsigned int               degree,
                             const SurfaceOk                 &surface_ok,
                             const InteriorOk                &interior_ok)
      {
        StructuredBlocks result;
        if (cells.empty())
          return result;
        std::vector<unsigned int> position(
            cells[0]->get_triangulation().n_active_cells(),
            numbers::invalid_unsigned_int);
        for (unsigned int c = 0; c < cells.size(); ++c)
          position[cells[c]->active_cell_index()] = c;
        // The largest r for which some block qualifies, then all blocks of
        // that r. Each block is visited once, from its first cell (child 0
        // of child 0 ... r times); most cells stop at their first parent.
        int max_level = 0;
        for (const auto &cell : cells)
          max_level = std::max(max_level, cell->level());
        for (unsigned int r = max_level; r > 0 && result.refinements == 0; --r)
          for (const auto &cell : cells)
          {
            if (static_cast<unsigned int>(cell->level()) < r)
              continue;
            CellIterator block = cell;
            unsigned int up    = 0;
            for (; up < r; ++up)
            {
              const CellIterator parent = block->parent();
              if (parent->child_index(0) != block->index())
                break;
              block = parent;
            }
            if (up == r && add_structured_block<dim>(block,
                                                     cell,
                                                     r,
                                                     position,
                                                     masks,
                                                     degree,
                                                     surface_ok,
                                                     interior_ok,
                                                     result))
              result.refinements = r;
          }
        return result;
      }
    } // namespace internal

    template <int dim, typename Number>
    template <typename ConstraintNumber>
    void MatrixFree<dim, Number>::reinit(
        const Mapping<dim, dim>                   &mapping,
        const DoFHandler<dim, dim>                &dof_handler,
        const AffineConstraints<ConstraintNumber> &constraints,
        const Quadrature<1>                       &quadrature,
        const AdditionalData                      &additional_data)
    {
      const FiniteElement<dim> &fe = dof_handler.get_fe();
      const auto *fe_q = dynamic_cast<const FE_Q<dim> *>(&fe.base_element(0));
      AssertThrow(fe.n_base_elements() == 1 && fe_q != nullptr,
                  ExcNotSupportedByMatrixFree(
                      "the element " + fe.get_name() +
                      "; supported are FE_Q(k) and FESystem(FE_Q(k), n)"));
      const unsigned int n_components = fe.element_multiplicity(0);
      AssertThrow(
          n_components >= 1 && n_components <= static_cast<unsigned int>(dim),
          ExcNotSupportedByMatrixFree(std::to_string(n_components) +
                                      " components (1 to " +
                                      std::to_string(dim) + " are supported)"));
      const unsigned int degree = fe_q->degree;
      AssertThrow(degree >= DEAL_II_GPU_MIN_DEGREE &&
                      degree <= DEAL_II_GPU_MAX_DEGREE,
                  ExcNotSupportedByMatrixFree(
                      "degree " + std::to_string(degree) +
                      "; this build compiles degrees " +
                      std::to_string(DEAL_II_GPU_MIN_DEGREE) + " to " +
                      std::to_string(DEAL_II_GPU_MAX_DEGREE) +
                      " (CMake DEAL_II_GPU_MIN_DEGREE/MAX_DEGREE)"));
      const unsigned int n_q_1d = quadrature.size();
      AssertThrow(n_q_1d >= degree + 1,
                  ExcNotSupportedByMatrixFree(
                      std::to_string(n_q_1d) +
                      " quadrature points per direction "
                      "for degree " +
                      std::to_string(degree) + " (at least degree + 1)"));
      AssertThrow(Utilities::pow(n_q_1d, dim) <= 1024,
                  ExcNotSupportedByMatrixFree(
                      std::to_string(n_q_1d) + "^" + std::to_string(dim) +
                      " quadrature points (one thread each, at most 1024)"));

      const unsigned int level    = additional_data.mg_level;
      const bool         on_level = level != numbers::invalid_unsigned_int;
      const MPI_Comm comm = dof_handler.get_triangulation().get_communicator();

      using CellIterator = typename DoFHandler<dim>::cell_iterator;
      std::vector<CellIterator> cells;
      if (on_level)
      {
        for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
          if (cell->is_locally_owned_on_level())
            cells.push_back(cell);
      }
      else
        for (const auto &cell : dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            cells.push_back(cell);

      const unsigned int              dofs_per_cell = fe.n_dofs_per_cell();
      const std::vector<unsigned int> lexicographic =
          FETools::lexicographic_to_hierarchic_numbering<dim>(degree);
      const unsigned int n_lexicographic = lexicographic.size();
      // DoF indices in lexicographic order per component.
      auto lexicographic_indices = [&](const CellIterator &cell)
      {
        std::vector<types::global_dof_index> indices(dofs_per_cell);
        if (on_level)
          cell->get_mg_dof_indices(indices);
        else
          cell->get_active_or_mg_dof_indices(indices);
        std::vector<types::global_dof_index> result(dofs_per_cell);
        for (unsigned int comp = 0; comp < n_components; ++comp)
          for (unsigned int i = 0; i < n_lexicographic; ++i)
            result[comp * n_lexicographic + i] =
                indices[fe.component_to_system_index(comp, lexicographic[i])];
        return result;
      };

      // Hanging nodes: masks, and the coarse DoF indices that replace the
      // fine ones on hanging faces and edges (levels have none).
      const unsigned int                                n_cells = cells.size();
      std::vector<unsigned int>                         masks(n_cells, 0u);
      std::vector<unsigned int>                         hanging_slot(n_cells,
                                             numbers::invalid_unsigned_int);
      std::vector<std::vector<types::global_dof_index>> hanging_indices;
      std::vector<types::global_dof_index>              coarse_dofs;
      std::vector<double> interpolation_1d(2 * (degree + 1) * (degree + 1));
      const bool          resolve_hanging =
          !on_level && dof_handler.get_triangulation().has_hanging_nodes();
      if (resolve_hanging)
      {
        internal::HangingNodeSetup<dim> setup(
            dof_handler, degree, lexicographic);
        interpolation_1d = setup.interpolation_matrices();
        for (unsigned int c = 0; c < n_cells; ++c)
        {
          std::vector<types::global_dof_index> fine, substituted;
          const unsigned int                   mask = setup.substitute(
              cells[c], lexicographic_indices, fine, substituted);
          if (mask == 0)
            continue;
          setup.check_constraints(mask, fine, substituted, constraints);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            if (substituted[i] != fine[i])
              coarse_dofs.push_back(substituted[i]);
          masks[c]        = mask;
          hanging_slot[c] = hanging_indices.size();
          hanging_indices.push_back(std::move(substituted));
        }
      }
      n_hanging_cells = hanging_indices.size();

      // Vector layout: owned DoFs, then the other DoFs the cells touch.
      const IndexSet owned = on_level ? dof_handler.locally_owned_mg_dofs(level)
                                      : dof_handler.locally_owned_dofs();
      IndexSet       active =
          on_level
                    ? DoFTools::extract_locally_active_level_dofs(dof_handler, level)
                    : DoFTools::extract_locally_active_dofs(dof_handler);
      std::sort(coarse_dofs.begin(), coarse_dofs.end());
      coarse_dofs.erase(std::unique(coarse_dofs.begin(), coarse_dofs.end()),
                        coarse_dofs.end());
      active.add_indices(coarse_dofs.begin(), coarse_dofs.end());
      active.subtract_set(owned);
      partitioner =
          std::make_shared<Utilities::MPI::Partitioner>(owned, active, comm);

      auto cell_indices = [&](const unsigned int c)
      {
        return hanging_slot[c] != numbers::invalid_unsigned_int
                   ? hanging_indices[hanging_slot[c]]
                   : lexicographic_indices(cells[c]);
      };

      // Cell order: colors one after another if asked.
      use_coloring = additional_data.use_coloring;
      colors.clear();
      std::vector<unsigned int> order(n_cells);
      std::iota(order.begin(), order.end(), 0u);

      // Structured blocks (GPU::DoFRenumbering::block_lexicographic()) go
      // first, their cells lexicographic: the kernels compute their DoF
      // indices. Only for scalar fields with atomics, and only blocks free
      // of hanging nodes and, where communication overlaps, of ghosts.
      const bool overlap_wanted =
          additional_data.overlap_communication_computation &&
          Utilities::MPI::n_mpi_processes(comm) > 1;
      internal::StructuredBlocks structured;
      if (!on_level && n_components == 1 && !use_coloring &&
          owned.is_contiguous())
        structured = internal::find_structured_blocks<dim>(
            cells,
            masks,
            degree,
            [&](const types::global_dof_index g)
            {
              return !overlap_wanted || owned.is_element(g) ||
                     constraints.is_constrained(g);
            },
            [&](const types::global_dof_index g)
            { return owned.is_element(g) && !constraints.is_constrained(g); });
      const unsigned int n_structured = structured.cells.size();
      if (n_structured > 0)
      {
        std::vector<char> in_block(n_cells, 0);
        for (const unsigned int c : structured.cells)
          in_block[c] = 1;
        unsigned int k = 0;
        for (const unsigned int c : structured.cells)
          order[k++] = c;
        for (unsigned int c = 0; c < n_cells; ++c)
          if (!in_block[c])
            order[k++] = c;
      }
      // deal.II's graph coloring dereferences begin even for an empty range
      // (a rank without cells on a small mesh).
      if (use_coloring && n_cells > 0)
      {
        using Iterator      = std::vector<unsigned int>::const_iterator;
        const auto coloring = GraphColoring::make_graph_coloring(
            Iterator(order.begin()),
            Iterator(order.end()),
            std::function<std::vector<types::global_dof_index>(
                const Iterator &)>([&](const Iterator &it)
                                   { return cell_indices(*it); }));
        std::vector<unsigned int> ordered;
        for (const auto &color : coloring)
        {
          const unsigned int first = ordered.size();
          for (const auto &it : color)
            ordered.push_back(*it);
          colors.emplace_back(first, ordered.size());
        }
        order.swap(ordered);
      }
      else if (n_cells > 0)
        colors.emplace_back(0u, n_cells);

      // Overlap of communication and computation: within each color, the
      // cells that touch ghost DoFs go between two halves of the others.
      overlap = additional_data.overlap_communication_computation &&
                Utilities::MPI::n_mpi_processes(comm) > 1;
      cell_phases.clear();
      n_boundary = 0;
      {
        std::vector<char> touches_ghosts(n_cells, 0);
        for (unsigned int c = 0; c < n_cells; ++c)
          for (const auto g : cell_indices(c))
            if (!owned.is_element(g) && !constraints.is_constrained(g))
            {
              touches_ghosts[c] = 1;
              break;
            }
        for (const auto &color : colors)
        {
          std::vector<unsigned int> inner, boundary;
          for (unsigned int k = color.first; k < color.second; ++k)
            (touches_ghosts[order[k]] ? boundary : inner).push_back(order[k]);
          n_boundary += boundary.size();
          if (!overlap)
          {
            cell_phases.push_back(
                {{color.first, color.first, color.second, color.second}});
            continue;
          }
          // The structured cells (inner ones, first) stay in front.
          const unsigned int n_first =
              std::max<unsigned int>(inner.size() / 2, n_structured);
          unsigned int k = color.first;
          for (unsigned int i = 0; i < n_first; ++i)
            order[k++] = inner[i];
          for (const unsigned int c : boundary)
            order[k++] = c;
          for (unsigned int i = n_first; i < inner.size(); ++i)
            order[k++] = inner[i];
          const unsigned int n_boundary_color = boundary.size();
          cell_phases.push_back({{color.first,
                                  color.first + n_first,
                                  color.first + n_first + n_boundary_color,
                                  color.second}});
        }
      }

      // Local indices; Dirichlet-constrained DoFs keep theirs, flagged.
      AssertThrow(partitioner->locally_owned_size() +
                          partitioner->n_ghost_indices() <
                      constrained_dof_flag,
                  ExcNotSupportedByMatrixFree(
                      "more than 2^31 - 1 DoFs on one MPI rank"));
      std::vector<unsigned int> host_indices(std::size_t(n_cells) *
                                             dofs_per_cell);
      std::vector<unsigned int> host_masks(n_cells);
      {
        std::vector<CellIterator> ordered_cells(n_cells);
        for (unsigned int c = 0; c < n_cells; ++c)
        {
          const unsigned int original = order[c];
          ordered_cells[c]            = cells[original];
          host_masks[c]               = masks[original];
          const auto indices          = cell_indices(original);
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
          {
            const types::global_dof_index g = indices[i];
            unsigned int local              = partitioner->global_to_local(g);
            if (constraints.is_constrained(g))
            {
              local |= constrained_dof_flag;
              const auto *entries = constraints.get_constraint_entries(g);
              AssertThrow(
                  entries == nullptr || entries->empty(),
                  ExcNotSupportedByMatrixFree(
                      "the constraint on DoF " + std::to_string(g) +
                      " couples it to other DoFs but is not a hanging node "
                      "of a face or edge next to a cell one level coarser "
                      "(periodicity, a general constraint, or a mesh whose "
                      "level difference at vertices is not limited); "
                      "supported are Dirichlet rows and such hanging nodes"));
            }
            host_indices[std::size_t(c) * dofs_per_cell + i] = local;
          }
        }
        cells.swap(ordered_cells);
      }
      std::vector<unsigned int> constrained_owned;
      for (const auto g : owned)
        if (constraints.is_constrained(g))
          constrained_owned.push_back(partitioner->global_to_local(g));
      // The structured cells' indices are computed (cell_dof_entry()):
      // only the other cells' are stored. Checked here against the list.
      {
        std::vector<unsigned int> first(structured.interior_first.size());
        for (std::size_t b = 0; b < first.size(); ++b)
          first[b] = partitioner->global_to_local(structured.interior_first[b]);
        std::vector<unsigned int> surface(structured.surface.size());
        for (std::size_t i = 0; i < surface.size(); ++i)
        {
          const types::global_dof_index g = structured.surface[i];
          surface[i] =
              partitioner->global_to_local(g) |
              (constraints.is_constrained(g) ? constrained_dof_flag : 0u);
        }
        MatrixFreeData<dim, Number> view{};
        view.n_cells                = n_cells;
        view.dofs_per_cell          = dofs_per_cell;
        view.n_structured_cells     = n_structured;
        view.dof_indices_first_cell = n_structured;
        view.block_refinements      = structured.refinements;
        view.block_interior_first   = first.data();
        view.block_surface          = surface.data();
        for (unsigned int c = 0; c < n_structured; ++c)
          for (unsigned int i = 0; i < dofs_per_cell; ++i)
            AssertThrow(cell_dof_entry(view, c, i, degree) ==
                            host_indices[std::size_t(c) * dofs_per_cell + i],
                        ExcInternalError());
        block_interior_first.copy_from(first);
        block_surface.copy_from(surface);
        host_indices.erase(host_indices.begin(),
                           host_indices.begin() +
                               std::size_t(n_structured) * dofs_per_cell);
        block_refinements = structured.refinements;
      }
      dof_indices.copy_from(host_indices);
      constrained_indices.copy_from(constrained_owned);
      if (resolve_hanging)
      {
        hanging_masks.copy_from(host_masks);
        hanging_interpolation.copy_from(std::vector<Number>(
            interpolation_1d.begin(), interpolation_1d.end()));
      }
      else
      {
        hanging_masks.clear();
        hanging_interpolation.clear();
      }

      // Thread layout. One thread per cell keeps a small cell's data in
      // registers instead of passing it through shared memory.
      {
        // Compiled only where it can be faster (see CellThreads): the
        // per-cell kernels are large, and every cell functor would carry
        // them into every program's build.
        const unsigned int n_points = Utilities::pow(n_q_1d, dim);
        const bool         from_points =
            additional_data.geometry == GeometryStorage::points ||
            additional_data.geometry == GeometryStorage::field;
        // Not with hanging nodes either: their per-cell kernels doubled the
        // compile time of the per-cell code.
        const bool possible = dim == 3 && n_components == 1 && from_points &&
                              n_points <= max_points_thread_per_cell &&
                              !resolve_hanging;
        switch (additional_data.cell_threads)
        {
        case CellThreads::automatic:
          // Faster than one thread per point on the H100 at 1.8e6 DoFs
          // (doc/benchmarks.md): the mapping field at Q1 and Q2 (2.2-2.9x),
          // the points at Q1 (1.6x); slower for the other geometries.
          thread_per_cell =
              possible && (additional_data.geometry == GeometryStorage::field ||
                           n_points <= 8);
          break;
        case CellThreads::per_quadrature_point:
          thread_per_cell = false;
          break;
        case CellThreads::per_cell:
          AssertThrow(possible,
                      ExcNotSupportedByMatrixFree(
                          "one thread per cell for " + std::to_string(dim) +
                          "D, " + std::to_string(n_components) +
                          " component(s), " + std::to_string(n_points) +
                          " quadrature points, " +
                          (from_points ? "the Jacobians computed in the "
                                         "kernel"
                                       : "stored Jacobians") +
                          (resolve_hanging ? " and hanging nodes"
                                           : " and no hanging nodes") +
                          " (supported: 3D, one component, at most " +
                          std::to_string(max_points_thread_per_cell) +
                          " quadrature points, GeometryStorage::points or "
                          "field, no hanging nodes)"));
          thread_per_cell = true;
          break;
        }
      }
      if (thread_per_cell)
      {
        cells_per_block = additional_data.cells_per_block == 0
                              ? 128u
                              : additional_data.cells_per_block;
        AssertThrow(cells_per_block <= internal::max_thread_teams_per_block,
                    ExcNotSupportedByMatrixFree(
                        std::to_string(cells_per_block) +
                        " cells per block with one thread per cell (at most " +
                        std::to_string(internal::max_thread_teams_per_block) +
                        ")"));
      }
      // Cells per thread block: at least 64 threads, within 48 KiB of
      // scratch. Measured on the H100 (doc/benchmarks.md): Q1 3D gains 2.5x
      // with 8-16 cells, Q2 nothing, and Q3 loses with more than one.
      // With one thread per cell, the cells of structured blocks still run
      // one thread per point (cell_loop()): they take the default.
      const auto team_cells_per_block = [&](unsigned int wanted)
      {
        const unsigned int threads = Utilities::pow(n_q_1d, dim);
        const std::size_t  scratch =
            (internal::cell_scratch_bytes<dim, Number>(
                 degree,
                 n_q_1d,
                 n_components,
                 additional_data.geometry != GeometryStorage::jacobians) +
             15) /
            16 * 16;
        if (wanted == 0)
        {
          wanted = std::max(1u, 64u / threads);
          while (wanted > 1 && wanted * scratch > 48 * 1024)
            --wanted;
        }
        // Cells of at most 32 points are packed into warps
        // (parallel_for_teams): whole warps of them. Larger cells run one a
        // block; cell_loop() compiles only that launch form for them.
        const unsigned int per_warp =
            internal::teams_per_warp(TeamShape{threads, 1, 1});
        const bool packed = per_warp > 0;
        if (packed)
          wanted = (wanted + per_warp - 1) / per_warp * per_warp;
        AssertThrow(packed || wanted == 1,
                    ExcNotSupportedByMatrixFree(
                        std::to_string(wanted) + " cells per block of " +
                        std::to_string(threads) +
                        " threads (cells of more than 32 quadrature points "
                        "run one a block)"));
        AssertThrow((packed ? 32 * (wanted / per_warp) : wanted * threads) <=
                        1024,
                    ExcNotSupportedByMatrixFree(
                        std::to_string(wanted) + " cells per block of " +
                        std::to_string(threads) +
                        " threads (at most 1024 threads per block)"));
        return wanted;
      };
      if (thread_per_cell)
        structured_cells_per_block = team_cells_per_block(0);
      else
      {
        cells_per_block = team_cells_per_block(additional_data.cells_per_block);
        structured_cells_per_block = cells_per_block;
      }

      // Geometry. The quadrature points alone determine a MappingQ(p) with
      // p < n_q_points_1d (its interpolant at the points is the mapping), so
      // the kernel can differentiate them instead of reading stored
      // Jacobians: dim numbers a point instead of dim * dim + 1.
      unsigned int mapping_degree = numbers::invalid_unsigned_int;
      if (const auto *mapping_q =
              dynamic_cast<const MappingQ<dim, dim> *>(&mapping))
        mapping_degree = mapping_q->get_degree();
      else if (dynamic_cast<const MappingCartesian<dim, dim> *>(&mapping) !=
               nullptr)
        mapping_degree = 1;
      const bool points_determine_mapping = mapping_degree < n_q_1d;
      geometry_storage                    = additional_data.geometry;
      geometry_kept                       = true;
      AssertThrow(geometry_storage != GeometryStorage::points ||
                      points_determine_mapping,
                  ExcNotSupportedByMatrixFree(
                      "GeometryStorage::points with " +
                      (mapping_degree == numbers::invalid_unsigned_int
                           ? std::string("a mapping that is not MappingQ")
                           : "MappingQ(" + std::to_string(mapping_degree) +
                                 ") and " + std::to_string(n_q_1d) +
                                 " quadrature points per direction") +
                      ": the points determine the Jacobians only for "
                      "MappingQ(p) with p < n_q_points_1d; use "
                      "GeometryStorage::jacobians"));
      const bool from_field = geometry_storage == GeometryStorage::field;
      AssertThrow(!from_field || mapping_degree <= degree,
                  ExcNotSupportedByMatrixFree(
                      "GeometryStorage::field with " +
                      (mapping_degree == numbers::invalid_unsigned_int
                           ? std::string("a mapping that is not MappingQ")
                           : "MappingQ(" + std::to_string(mapping_degree) +
                                 ") and FE_Q(" + std::to_string(degree) + ")") +
                      ": the field at the element's support points represents "
                      "MappingQ(p) only for p <= fe_degree; use "
                      "GeometryStorage::points or jacobians"));
      const bool from_points =
          geometry_storage == GeometryStorage::points || from_field;

      // Geometry at the quadrature points (tensor product, x fastest).
      const Quadrature<dim> cell_quadrature(quadrature);
      const unsigned int    n_q = cell_quadrature.size();
      const bool store_points   = (additional_data.mapping_update_flags &
                                 update_quadrature_points) != 0;
      const bool device_points  = !from_field && (store_points || from_points);
      const bool need_cell_values =
          !from_points || device_points || store_points;
      FEValues<dim> fe_values(
          mapping,
          fe,
          cell_quadrature,
          (from_points ? update_default
                       : update_inverse_jacobians | update_JxW_values) |
              (device_points || store_points ? update_quadrature_points
                                             : update_default));
      std::vector<Number> host_inverse_jacobian(
          from_points ? 0 : std::size_t(n_cells) * dim * dim * n_q);
      std::vector<Number> host_JxW(from_points ? 0
                                               : std::size_t(n_cells) * n_q);
      std::vector<Number> host_points(
          device_points ? std::size_t(n_cells) * dim * n_q : 0);
      constexpr bool with_centers = points_relative_to_cell_centers<Number>();
      std::vector<Number> host_centers(with_centers &&
                                               (device_points || from_field)
                                           ? std::size_t(n_cells) * dim
                                           : 0);
      host_quadrature_points.clear();
      if (from_field)
      {
        std::vector<double>       host_field;
        std::vector<unsigned int> host_nodes;
        // The cell kernels take the DoF indices as nodes where the data
        // hold no node list (see MatrixFreeData::geometry_indices).
        internal::build_geometry_field(mapping,
                                       fe,
                                       *fe_q,
                                       lexicographic,
                                       cells,
                                       on_level,
                                       *partitioner,
                                       n_components == 1 &&
                                           n_hanging_cells == 0,
                                       host_field,
                                       host_nodes,
                                       host_centers);
        geometry_field.copy_from(host_field);
        geometry_indices.copy_from(host_nodes);
      }
      else
      {
        geometry_field.clear();
        geometry_indices.clear();
      }
      for (unsigned int c = 0; c < n_cells && need_cell_values; ++c)
      {
        fe_values.reinit(typename Triangulation<dim>::cell_iterator(cells[c]));
        if (from_field)
        {
          for (unsigned int q = 0; q < n_q; ++q)
            host_quadrature_points.push_back(fe_values.quadrature_point(q));
          continue;
        }
        if (!from_points)
          for (unsigned int q = 0; q < n_q; ++q)
          {
            const auto &inverse = fe_values.inverse_jacobian(q);
            for (unsigned int d = 0; d < dim; ++d)
              for (unsigned int e = 0; e < dim; ++e)
                host_inverse_jacobian
                    [(std::size_t(c) * dim * dim + d * dim + e) * n_q + q] =
                        inverse[d][e];
            host_JxW[std::size_t(c) * n_q + q] = fe_values.JxW(q);
          }
        if (device_points)
        {
          // In float, offsets from the center: the differences the kernel
          // takes then carry the rounding of the offsets, not of the
          // coordinates.
          Point<dim> center;
          if (with_centers)
          {
            for (unsigned int q = 0; q < n_q; ++q)
              center += fe_values.quadrature_point(q);
            center /= n_q;
            for (unsigned int d = 0; d < dim; ++d)
              host_centers[std::size_t(c) * dim + d] = center[d];
          }
          for (unsigned int q = 0; q < n_q; ++q)
          {
            const Point<dim> &p = fe_values.quadrature_point(q);
            if (store_points)
              host_quadrature_points.push_back(p);
            for (unsigned int d = 0; d < dim; ++d)
              host_points[(std::size_t(c) * dim + d) * n_q + q] =
                  p[d] - center[d];
          }
        }
      }
      inverse_jacobian.copy_from(host_inverse_jacobian);
      JxW.copy_from(host_JxW);
      quadrature_points.copy_from(host_points);
      cell_centers.copy_from(host_centers);
      {
        std::vector<Number> weights(n_q);
        for (unsigned int q = 0; q < n_q; ++q)
          weights[q] = cell_quadrature.weight(q);
        quadrature_weights.copy_from(weights);
      }

      // 1D shape values: along the x axis the FE_Q functions with
      // lexicographic index (i, 0, 0) are the 1D Lagrange polynomials.
      const unsigned int  n_dofs_1d = degree + 1;
      std::vector<Number> host_shape(n_q_1d * n_dofs_1d);
      for (unsigned int q = 0; q < n_q_1d; ++q)
        for (unsigned int i = 0; i < n_dofs_1d; ++i)
        {
          Point<dim> p;
          p[0] = quadrature.point(q)[0];
          host_shape[q * n_dofs_1d + i] =
              fe_q->shape_value(lexicographic[i], p);
        }
      shape_values.copy_from(host_shape);
      // Derivatives of the Lagrange basis on the quadrature points.
      const auto lagrange = Polynomials::generate_complete_Lagrange_basis(
          quadrature.get_points());
      std::vector<Number> host_collocation(n_q_1d * n_q_1d);
      std::vector<double> derivatives(2);
      for (unsigned int q = 0; q < n_q_1d; ++q)
        for (unsigned int j = 0; j < n_q_1d; ++j)
        {
          lagrange[j].value(quadrature.point(q)[0], derivatives);
          host_collocation[q * n_q_1d + j] = derivatives[1];
        }
      collocation_gradients.copy_from(host_collocation);

      data.n_cells                = n_cells;
      data.fe_degree              = degree;
      data.n_q_points_1d          = n_q_1d;
      data.n_components           = n_components;
      data.dofs_per_cell          = dofs_per_cell;
      data.n_q_points             = n_q;
      data.use_atomics            = use_coloring ? 0 : 1;
      data.jacobians_from_points  = from_points ? 1 : 0;
      data.dof_indices            = dof_indices.data();
      data.n_structured_cells     = n_structured;
      data.dof_indices_first_cell = n_structured;
      data.block_refinements      = block_refinements;
      data.block_interior_first   = block_interior_first.data();
      data.block_surface          = block_surface.data();
      data.inverse_jacobian   = from_points ? nullptr : inverse_jacobian.data();
      data.JxW                = from_points ? nullptr : JxW.data();
      data.quadrature_points  = from_field ? nullptr : quadrature_points.data();
      data.cell_centers       = cell_centers.data();
      data.geometry_field     = from_field ? geometry_field.data() : nullptr;
      data.geometry_indices   = from_field && geometry_indices.size() > 0
                                    ? geometry_indices.data()
                                    : nullptr;
      data.quadrature_weights = quadrature_weights.data();
      data.shape_values       = shape_values.data();
      data.collocation_gradients = collocation_gradients.data();
      data.hanging_masks = n_hanging_cells > 0 ? hanging_masks.data() : nullptr;
      data.hanging_interpolation = hanging_interpolation.data();
    }

    template <int dim, typename Number>
    const std::shared_ptr<const Utilities::MPI::Partitioner> &
    MatrixFree<dim, Number>::get_vector_partitioner() const
    {
      return partitioner;
    }

    template <int dim, typename Number>
    void
    MatrixFree<dim, Number>::copy_constrained_values(const Vector<Number> &src,
                                                     Vector<Number> &dst) const
    {
      const unsigned int *indices = constrained_indices.data();
      const Number       *s       = src.get_values();
      Number             *d       = dst.get_values();
      parallel_for("MatrixFree::copy_constrained_values",
                   constrained_indices.size(),
                   [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                   { d[indices[i]] = s[indices[i]]; });
    }

    template <int dim, typename Number>
    void
    MatrixFree<dim, Number>::set_constrained_values(const Number    value,
                                                    Vector<Number> &dst) const
    {
      const unsigned int *indices = constrained_indices.data();
      Number             *d       = dst.get_values();
      parallel_for("MatrixFree::set_constrained_values",
                   constrained_indices.size(),
                   [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                   { d[indices[i]] = value; });
    }

    template <int dim, typename Number>
    void MatrixFree<dim, Number>::evaluate_diffusion_tensor(
        const Array<Number> &coefficient_values, Array<Number> &tensor) const
    {
      AssertThrow(geometry_kept && data.inverse_jacobian != nullptr,
                  ExcNotSupportedByMatrixFree(
                      "evaluate_diffusion_tensor needs the stored Jacobians "
                      "(GeometryStorage::jacobians, before release_geometry)"));
      const std::size_t n = std::size_t(data.n_cells) * data.n_q_points;
      AssertThrow(coefficient_values.size() == n,
                  ExcDimensionMismatch(coefficient_values.size(), n));
      constexpr unsigned int n_entries = dim * (dim + 1) / 2;
      tensor.resize(n * n_entries);
      const unsigned int n_q     = data.n_q_points;
      const Number      *inverse = data.inverse_jacobian;
      const Number      *jxw     = data.JxW;
      const Number      *a       = coefficient_values.data();
      Number            *t       = tensor.data();
      parallel_for(
          "MatrixFree::evaluate_diffusion_tensor",
          n,
          [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
          {
            const std::size_t  cell = i / n_q;
            const unsigned int q    = i % n_q;
            Number             J[dim][dim];
            for (unsigned int d = 0; d < dim; ++d)
              for (unsigned int e = 0; e < dim; ++e)
                J[d][e] = inverse[(cell * dim * dim + d * dim + e) * n_q + q];
            const Number factor = a[i] * jxw[i];
            // Entries in the order of the documentation: diagonal first.
            unsigned int entry = 0;
            for (unsigned int offset = 0; offset < dim; ++offset)
              for (unsigned int d = 0; d + offset < dim; ++d)
              {
                const unsigned int f   = d + offset;
                Number             sum = 0;
                for (unsigned int e = 0; e < dim; ++e)
                  sum += J[d][e] * J[f][e];
                t[(cell * n_entries + entry) * n_q + q] = factor * sum;
                ++entry;
              }
          });
    }

    template <int dim, typename Number>
    void MatrixFree<dim, Number>::release_geometry()
    {
      inverse_jacobian.clear();
      JxW.clear();
      quadrature_points.clear();
      cell_centers.clear();
      geometry_field.clear();
      geometry_indices.clear();
      host_quadrature_points.clear();
      host_quadrature_points.shrink_to_fit();
      data.inverse_jacobian      = nullptr;
      data.JxW                   = nullptr;
      data.quadrature_points     = nullptr;
      data.cell_centers          = nullptr;
      data.geometry_field        = nullptr;
      data.geometry_indices      = nullptr;
      data.jacobians_from_points = 0;
      geometry_kept              = false;
    }

    template <int dim, typename Number>
    bool MatrixFree<dim, Number>::has_geometry() const
    {
      return geometry_kept;
    }

    template <int dim, typename Number>
    const MatrixFreeData<dim, Number> &MatrixFree<dim, Number>::get_data() const
    {
      return data;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_cells() const
    {
      return data.n_cells;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_cells_with_hanging_nodes() const
    {
      return n_hanging_cells;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::get_cells_per_block() const
    {
      return cells_per_block;
    }

    template <int dim, typename Number>
    bool MatrixFree<dim, Number>::runs_thread_per_cell() const
    {
      return thread_per_cell;
    }

    template <int dim, typename Number>
    std::vector<unsigned int>
    MatrixFree<dim, Number>::get_dof_read_order() const
    {
      const unsigned int n_owned =
          partitioner ? partitioner->locally_owned_size() : 0;
      const unsigned int        dofs_per_cell = data.dofs_per_cell;
      std::vector<unsigned int> indices, first, surface;
      dof_indices.copy_to(indices);
      block_interior_first.copy_to(first);
      block_surface.copy_to(surface);
      MatrixFreeData<dim, Number> view = data;
      view.dof_indices                 = indices.data();
      view.block_interior_first        = first.data();
      view.block_surface               = surface.data();
      const unsigned int        unset  = numbers::invalid_unsigned_int;
      std::vector<unsigned int> position(n_owned, unset);
      std::vector<unsigned int> order;
      order.reserve(n_owned);
      const auto touch = [&](const unsigned int cell, const unsigned int i)
      {
        const unsigned int index =
            cell_dof_entry(view, cell, i, data.fe_degree);
        if (index < n_owned && position[index] == unset)
        {
          position[index] = order.size();
          order.push_back(index);
        }
      };
      internal::for_each_in_read_order(
          cell_phases,
          thread_per_cell ? internal::cells_per_warp : 1,
          dofs_per_cell,
          touch);
      for (unsigned int index = 0; index < n_owned; ++index)
        if (position[index] == unset)
          order.push_back(index);
      return order;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_structured_cells() const
    {
      return data.n_structured_cells;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_boundary_cells() const
    {
      return n_boundary;
    }

    template <int dim, typename Number>
    bool MatrixFree<dim, Number>::overlaps_communication() const
    {
      return overlap;
    }

    template <int dim, typename Number>
    typename MatrixFree<dim, Number>::GeometryStorage
    MatrixFree<dim, Number>::get_geometry_storage() const
    {
      return geometry_storage;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::get_fe_degree() const
    {
      return data.fe_degree;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::get_n_q_points_1d() const
    {
      return data.n_q_points_1d;
    }

    template <int dim, typename Number>
    unsigned int MatrixFree<dim, Number>::n_components() const
    {
      return data.n_components;
    }

    template <int dim, typename Number>
    const std::vector<std::pair<unsigned int, unsigned int>> &
    MatrixFree<dim, Number>::get_colors() const
    {
      return colors;
    }

    template <int dim, typename Number>
    std::size_t MatrixFree<dim, Number>::memory_consumption() const
    {
      return sizeof(*this) + dof_indices.memory_consumption() +
             block_interior_first.memory_consumption() +
             block_surface.memory_consumption() +
             inverse_jacobian.memory_consumption() + JxW.memory_consumption() +
             quadrature_points.memory_consumption() +
             cell_centers.memory_consumption() +
             geometry_field.memory_consumption() +
             geometry_indices.memory_consumption() +
             quadrature_weights.memory_consumption() +
             shape_values.memory_consumption() +
             collocation_gradients.memory_consumption() +
             constrained_indices.memory_consumption() +
             hanging_masks.memory_consumption() +
             hanging_interpolation.memory_consumption();
    }

#define DEALII_GPU_INSTANTIATE(dim, Number)                                    \
  template class MatrixFree<dim, Number>;                                      \
  template void MatrixFree<dim, Number>::reinit(                               \
      const Mapping<dim, dim> &,                                               \
      const DoFHandler<dim, dim> &,                                            \
      const AffineConstraints<double> &,                                       \
      const Quadrature<1> &,                                                   \
      const AdditionalData &);                                                 \
  template void MatrixFree<dim, Number>::reinit(                               \
      const Mapping<dim, dim> &,                                               \
      const DoFHandler<dim, dim> &,                                            \
      const AffineConstraints<float> &,                                        \
      const Quadrature<1> &,                                                   \
      const AdditionalData &);
    DEALII_GPU_INSTANTIATE(2, float)
    DEALII_GPU_INSTANTIATE(2, double)
    DEALII_GPU_INSTANTIATE(3, float)
    DEALII_GPU_INSTANTIATE(3, double)
#undef DEALII_GPU_INSTANTIATE
  } // namespace GPU
} // namespace dealii
