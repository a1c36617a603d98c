// Internal to source/matrix_free: the hanging faces and edges of a cell and
// the coarse DoFs that replace its own on them (see hanging_nodes.h), and
// the check of the hanging-node constraints against that interpolation.
#ifndef dealii_gpu_source_matrix_free_hanging_node_setup_h
#define dealii_gpu_source_matrix_free_hanging_node_setup_h

#include <dealii-gpu/matrix_free/hanging_nodes.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/lac/affine_constraints.h>

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
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
          // The coarsest and finest level of the active cells at each
          // vertex: a cell whose vertices touch no coarser cell has no
          // hanging face or edge (a coarser face or edge neighbor shares a
          // vertex with it), and only a cell touching a finer one can hold
          // a refined edge. Most cells of an adaptive mesh are neither, and
          // skip the neighbor and line queries below.
          const auto &tria = dof_handler.get_triangulation();
          min_level.assign(tria.n_vertices(), numbers::invalid_unsigned_int);
          std::vector<unsigned int> max_level(tria.n_vertices(), 0);
          for (const auto &cell : dof_handler.active_cell_iterators())
            if (!cell->is_artificial())
              for (const unsigned int v : GeometryInfo<dim>::vertex_indices())
              {
                const unsigned int i = cell->vertex_index(v);
                const unsigned int l = cell->level();
                min_level[i]         = std::min(min_level[i], l);
                max_level[i]         = std::max(max_level[i], l);
              }
          // 3D: the child lines of refined edges of active cells, and one
          // coarse cell holding each such edge.
          if (dim == 3)
            for (const auto &cell : dof_handler.active_cell_iterators())
              if (!cell->is_artificial() && touches(cell, max_level, true))
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
          if (cell->level() == 0 || !touches(cell, min_level, false))
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
          // Per coarse position: unchecked, unconstrained or a Dirichlet row
          // (looked up once: each is a term of several hanging DoFs).
          enum : unsigned char
          {
            unchecked,
            unconstrained,
            dirichlet_row
          };
          std::vector<unsigned char> coarse_kind(coarse.size(), unchecked);
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
                const unsigned int            k = c * n_lex + index(q);
                const types::global_dof_index g = coarse[k];
                if (coarse_kind[k] == unchecked)
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
                  coarse_kind[k] =
                      entries == nullptr ? unconstrained : dirichlet_row;
                }
                if (coarse_kind[k] == dirichlet_row)
                  continue;
                expected.emplace_back(g, weight);
              }
              actual.clear();
              const auto *entries = constraints.get_constraint_entries(f);
              AssertThrow(
                  entries != nullptr,
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
        // Whether a vertex of @p cell has a level in @p levels finer
        // (@p finer) or coarser than the cell's.
        static bool touches(const CellIterator              &cell,
                            const std::vector<unsigned int> &levels,
                            const bool                       finer)
        {
          const unsigned int level = cell->level();
          for (const unsigned int v : GeometryInfo<dim>::vertex_indices())
          {
            const unsigned int l = levels[cell->vertex_index(v)];
            if (finer ? l > level : l < level)
              return true;
          }
          return false;
        }

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
        // Per vertex, the coarsest level of the active cells at it.
        std::vector<unsigned int> min_level;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
