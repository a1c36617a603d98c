// GPU::KellyErrorEstimator: the host lists the faces to integrate and each
// cell's DoF values and mapping support points; the device evaluates the
// gradients and the geometry at the face quadrature points.
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/numerics/error_estimator.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/fe/mapping_q.h>

#include "../matrix_free/cell_support_points.h"
#include <array>
#include <cmath>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      namespace
      {
        // FE_Q(8) and MappingQ(9) at most.
        constexpr unsigned int max_nodes_1d = 10;

        // A face (or the subface of a refined one) between two cells. Side
        // 0 carries the quadrature: the finer cell, as in deal.II. Side 1's
        // face coordinates are offset + matrix * (side 0's).
        template <int dim>
        struct KellyFace
        {
          unsigned int cell[2];
          unsigned int face[2];
          double       offset[dim - 1];
          double       matrix[dim - 1][dim - 1];
        };

        template <int dim>
        struct KellyData
        {
          const double *values;    // a cell's DoF values, lexicographic
          const double *points;    // its mapping support points, x[i * dim + d]
          const double *fe_nodes;  // 1D nodes of FE_Q
          const double *map_nodes; // 1D nodes of MappingQ
          const double *q_points;  // face quadrature, (dim - 1) a point
          const double *q_weights;
          unsigned int  n_fe_1d, n_map_1d, n_q;
        };

        // Lagrange basis on @p nodes and its derivative at x.
        DEAL_II_GPU_HOST_DEVICE inline void lagrange(const double      *nodes,
                                                     const unsigned int n,
                                                     const double       x,
                                                     double            *value,
                                                     double *derivative)
        {
          for (unsigned int i = 0; i < n; ++i)
          {
            double v = 1., d = 0.;
            for (unsigned int j = 0; j < n; ++j)
              if (j != i)
              {
                const double inv = 1. / (nodes[i] - nodes[j]);
                d                = d * (x - nodes[j]) * inv + v * inv;
                v *= (x - nodes[j]) * inv;
              }
            value[i]      = v;
            derivative[i] = d;
          }
        }

        // Reference gradient of the tensor-product field u (n^dim values,
        // @p n_comp components interleaved) at the point with 1D basis
        // values v and derivatives d: out[c * dim + e] = d u_c / d xi_e.
        template <int dim>
        DEAL_II_GPU_HOST_DEVICE inline void
        reference_gradient(const double      *u,
                           const unsigned int n,
                           const unsigned int n_comp,
                           const double (&v)[dim][max_nodes_1d],
                           const double (&d)[dim][max_nodes_1d],
                           double *out)
        {
          for (unsigned int k = 0; k < n_comp * dim; ++k)
            out[k] = 0.;
          if constexpr (dim == 2)
          {
            for (unsigned int i1 = 0; i1 < n; ++i1)
              for (unsigned int i0 = 0; i0 < n; ++i0)
              {
                const double w0 = d[0][i0] * v[1][i1];
                const double w1 = v[0][i0] * d[1][i1];
                for (unsigned int c = 0; c < n_comp; ++c)
                {
                  const double x = u[(i1 * n + i0) * n_comp + c];
                  out[c * 2] += x * w0;
                  out[c * 2 + 1] += x * w1;
                }
              }
          }
          else
          {
            for (unsigned int i2 = 0; i2 < n; ++i2)
              for (unsigned int i1 = 0; i1 < n; ++i1)
              {
                const double a = v[1][i1] * v[2][i2];
                const double b = d[1][i1] * v[2][i2];
                const double e = v[1][i1] * d[2][i2];
                for (unsigned int i0 = 0; i0 < n; ++i0)
                {
                  const double w0 = d[0][i0] * a;
                  const double w1 = v[0][i0] * b;
                  const double w2 = v[0][i0] * e;
                  for (unsigned int c = 0; c < n_comp; ++c)
                  {
                    const double x = u[((i2 * n + i1) * n + i0) * n_comp + c];
                    out[c * 3] += x * w0;
                    out[c * 3 + 1] += x * w1;
                    out[c * 3 + 2] += x * w2;
                  }
                }
              }
          }
        }

        // The gradient of u, the outward unit normal and det(J) |J^-T n|
        // (the face's measure a unit of reference face) at face coordinates
        // s of face @p face of @p cell.
        template <int dim>
        DEAL_II_GPU_HOST_DEVICE inline void
        evaluate_side(const KellyData<dim> &data,
                      const unsigned int    cell,
                      const unsigned int    face,
                      const double         *s,
                      double               *gradient,
                      double               *normal,
                      double               &area)
        {
          const unsigned int normal_direction = face / 2;
          double             xi[dim];
          for (unsigned int e = 0, k = 0; e < dim; ++e)
            xi[e] = e == normal_direction ? double(face % 2) : s[k++];
          double v[dim][max_nodes_1d], d[dim][max_nodes_1d];
          for (unsigned int e = 0; e < dim; ++e)
            lagrange(data.fe_nodes, data.n_fe_1d, xi[e], v[e], d[e]);
          unsigned int n_fe  = data.n_fe_1d;
          unsigned int n_map = data.n_map_1d;
          for (unsigned int e = 1; e < dim; ++e)
          {
            n_fe *= data.n_fe_1d;
            n_map *= data.n_map_1d;
          }
          double g[dim];
          reference_gradient<dim>(
              data.values + std::size_t(cell) * n_fe, data.n_fe_1d, 1, v, d, g);
          for (unsigned int e = 0; e < dim; ++e)
            lagrange(data.map_nodes, data.n_map_1d, xi[e], v[e], d[e]);
          double J[dim * dim]; // J[c * dim + e] = d x_c / d xi_e
          reference_gradient<dim>(data.points + std::size_t(cell) * n_map * dim,
                                  data.n_map_1d,
                                  dim,
                                  v,
                                  d,
                                  J);
          double inv[dim][dim], det;
          if constexpr (dim == 2)
          {
            det       = J[0] * J[3] - J[1] * J[2];
            inv[0][0] = J[3] / det;
            inv[0][1] = -J[1] / det;
            inv[1][0] = -J[2] / det;
            inv[1][1] = J[0] / det;
          }
          else
          {
            const double c00 = J[4] * J[8] - J[5] * J[7];
            const double c01 = J[5] * J[6] - J[3] * J[8];
            const double c02 = J[3] * J[7] - J[4] * J[6];
            det              = J[0] * c00 + J[1] * c01 + J[2] * c02;
            inv[0][0]        = c00 / det;
            inv[1][0]        = c01 / det;
            inv[2][0]        = c02 / det;
            inv[0][1]        = (J[2] * J[7] - J[1] * J[8]) / det;
            inv[1][1]        = (J[0] * J[8] - J[2] * J[6]) / det;
            inv[2][1]        = (J[1] * J[6] - J[0] * J[7]) / det;
            inv[0][2]        = (J[1] * J[5] - J[2] * J[4]) / det;
            inv[1][2]        = (J[2] * J[3] - J[0] * J[5]) / det;
            inv[2][2]        = (J[0] * J[4] - J[1] * J[3]) / det;
          }
          // grad u = J^-T grad_xi u; the normal is J^-T times the reference
          // one, row normal_direction of J^-1.
          const double sign = face % 2 ? 1. : -1.;
          double       norm = 0.;
          for (unsigned int c = 0; c < dim; ++c)
          {
            gradient[c] = 0.;
            for (unsigned int e = 0; e < dim; ++e)
              gradient[c] += inv[e][c] * g[e];
            normal[c] = sign * inv[normal_direction][c];
            norm += normal[c] * normal[c];
          }
          norm = std::sqrt(norm);
          for (unsigned int c = 0; c < dim; ++c)
            normal[c] /= norm;
          area = std::abs(det) * norm;
        }

        // The global vertex at corner c (bit k: face coordinate k) of face
        // f of the cell, face coordinates being the cell's coordinates
        // other than f / 2 in increasing order.
        template <int dim, typename Iterator>
        unsigned int face_corner(const Iterator    &cell,
                                 const unsigned int f,
                                 const unsigned int c)
        {
          unsigned int v = 0;
          for (unsigned int e = 0, k = 0; e < dim; ++e)
          {
            const unsigned int bit = e == f / 2 ? f % 2 : (c >> k++) & 1;
            v |= bit << e;
          }
          return cell->vertex_index(v);
        }

        template <int dim>
        using FacePoint = std::array<double, dim - 1>;

        // Side 1's face coordinates as a function of side 0's: side 0's
        // corners are found among side 1's corners, or, where side 1's
        // face is refined, among its corners, edge midpoints and center
        // (vertex indices, so no geometry tolerance is involved).
        template <int dim, typename Iterator>
        void face_map(const Iterator    &cell0,
                      const unsigned int f0,
                      const Iterator    &cell1,
                      const unsigned int f1,
                      KellyFace<dim>    &item)
        {
          constexpr unsigned int n_corners = 1u << (dim - 1);
          // Corners, then (refined) midpoints of the lines and the center.
          std::array<std::pair<unsigned int, FacePoint<dim>>, dim == 2 ? 3 : 9>
                       known;
          unsigned int n_known = 0;
          const auto   add     = [&](const unsigned int    vertex,
                               const FacePoint<dim> &p) {
            known[n_known++] = {vertex, p};
          };
          for (unsigned int c = 0; c < n_corners; ++c)
          {
            FacePoint<dim> p;
            for (unsigned int k = 0; k < dim - 1; ++k)
              p[k] = (c >> k) & 1;
            add(face_corner<dim>(cell1, f1, c), p);
          }
          const auto find = [&](const unsigned int vertex)
          {
            for (unsigned int k = 0; k < n_known; ++k)
              if (known[k].first == vertex)
                return known[k].second;
            AssertThrow(false,
                        ExcMessage("GPU::KellyErrorEstimator: the cells of "
                                   "a face do not share its vertices"));
            return FacePoint<dim>();
          };
          const auto face = cell1->face(f1);
          if (face->has_children())
          {
            // The refined face's own coordinates u to side 1's.
            std::array<FacePoint<dim>, n_corners> own;
            for (unsigned int c = 0; c < n_corners; ++c)
              own[c] = find(face->vertex_index(c));
            const auto to_side1 = [&own](const FacePoint<dim> &u)
            {
              FacePoint<dim> p = own[0];
              for (unsigned int k = 0; k < dim - 1; ++k)
                for (unsigned int j = 0; j < dim - 1; ++j)
                  p[j] += u[k] * (own[1u << k][j] - own[0][j]);
              return p;
            };
            if constexpr (dim == 2)
            {
              const unsigned int mid = face->child(0)->vertex_index(1);
              AssertThrow(face->child(1)->vertex_index(0) == mid,
                          ExcInternalError());
              add(mid, to_side1({{0.5}}));
            }
            else
            {
              const unsigned int center = face->child(0)->vertex_index(3);
              AssertThrow(face->child(3)->vertex_index(0) == center,
                          ExcInternalError());
              add(center, to_side1({{0.5, 0.5}}));
              // Lines 0, 1 at u_0 = 0, 1; lines 2, 3 at u_1 = 0, 1.
              const FacePoint<dim> line_mid[4] = {
                  {{0., 0.5}}, {{1., 0.5}}, {{0.5, 0.}}, {{0.5, 1.}}};
              for (unsigned int l = 0; l < 4; ++l)
                add(face->line(l)->child(0)->vertex_index(1),
                    to_side1(line_mid[l]));
            }
          }
          std::array<FacePoint<dim>, n_corners> p;
          for (unsigned int c = 0; c < n_corners; ++c)
            p[c] = find(face_corner<dim>(cell0, f0, c));
          for (unsigned int j = 0; j < dim - 1; ++j)
          {
            item.offset[j] = p[0][j];
            for (unsigned int k = 0; k < dim - 1; ++k)
              item.matrix[j][k] = p[1u << k][j] - p[0][j];
          }
          // Side 0's face is side 1's or one of its quarters (halves).
          const double size = face->has_children() ? 0.5 : 1.;
          for (unsigned int k = 0; k < dim - 1; ++k)
          {
            double length = 0;
            for (unsigned int j = 0; j < dim - 1; ++j)
              length += std::abs(item.matrix[j][k]);
            AssertThrow(std::abs(length - size) < 1e-12, ExcInternalError());
          }
          item.cell[0] = 0;
          item.cell[1] = 0;
          item.face[0] = f0;
          item.face[1] = f1;
        }
      } // namespace

      template <int dim>
      void kelly_estimate(
          const Mapping<dim>                                   &mapping,
          const DoFHandler<dim>                                &dof_handler,
          const Quadrature<dim - 1>                            &quadrature,
          const std::function<double(types::global_dof_index)> &value,
          const std::function<bool(types::global_dof_index)>   &available,
          dealii::Vector<float>                                &error,
          SetupTimer                                           *timer)
      {
        SetupTimer  own;
        SetupTimer &steps = timer != nullptr ? *timer : own;
        static_assert(dim == 2 || dim == 3, "2D and 3D only");
        const FiniteElement<dim> &fe = dof_handler.get_fe();
        AssertThrow(dof_handler.get_fe_collection().size() == 1 &&
                        dynamic_cast<const FE_Q<dim> *>(&fe) != nullptr &&
                        fe.degree + 1 <= max_nodes_1d,
                    ExcMessage("GPU::KellyErrorEstimator needs a scalar "
                               "FE_Q(1..8), not " +
                               fe.get_name()));
        const auto *mapping_q = dynamic_cast<const MappingQ<dim> *>(&mapping);
        AssertThrow(mapping_q != nullptr &&
                        mapping_q->get_degree() + 1 <= max_nodes_1d,
                    ExcMessage("GPU::KellyErrorEstimator needs MappingQ(1..9) "
                               "(or MappingQ1, MappingQCache)"));
        const Triangulation<dim> &tria = dof_handler.get_triangulation();

        // 1D nodes of the element (lexicographic) and of the mapping.
        const std::vector<unsigned int> lexicographic =
            FETools::lexicographic_to_hierarchic_numbering<dim>(fe.degree);
        std::vector<double> fe_nodes(fe.degree + 1);
        for (unsigned int i = 0; i <= fe.degree; ++i)
          fe_nodes[i] = fe.get_unit_support_points()[lexicographic[i]][0];
        const unsigned int    p          = mapping_q->get_degree();
        std::vector<Point<1>> map_points = QGaussLobatto<1>(p + 1).get_points();
        std::vector<double>   map_nodes(p + 1);
        for (unsigned int i = 0; i <= p; ++i)
          map_nodes[i] = map_points[i][0];

        steps.start("faces");
        using Iterator = typename DoFHandler<dim>::active_cell_iterator;
        std::vector<Iterator> owned_cells;
        for (const auto &cell : dof_handler.active_cell_iterators())
          if (cell->is_locally_owned())
            owned_cells.push_back(cell);
        const std::size_t n_owned = owned_cells.size();

        // Each owned cell's faces (subfaces where its neighbors are finer)
        // by the index of the face object, on the set-up threads. A face
        // is listed once for the device: by its finer cell where that is
        // owned, else by the other; between two owned cells of one level
        // by the one of lower index.
        struct Found
        {
          unsigned int key;
          Iterator     cell[2];
          unsigned int face[2];
        };
        constexpr std::size_t grain    = 512;
        const std::size_t     n_chunks = (n_owned + grain - 1) / grain;
        std::vector<std::vector<Found>>        found(n_chunks);
        std::vector<std::vector<unsigned int>> keys(n_chunks);
        std::vector<unsigned int>              n_keys(n_owned);
        std::vector<double>                    factors(n_owned);
        parallel_for_chunks(
            n_owned,
            grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              std::vector<Found>        &list      = found[begin / grain];
              std::vector<unsigned int> &cell_keys = keys[begin / grain];
              for (std::size_t c = begin; c < end; ++c)
              {
                const Iterator &cell    = owned_cells[c];
                factors[c]              = cell->diameter() / 24.;
                const std::size_t first = cell_keys.size();
                for (const unsigned int f : cell->face_indices())
                {
                  if (cell->at_boundary(f))
                    continue;
                  const auto         face  = cell->face(f);
                  const unsigned int index = face->index();
                  if (face->has_children())
                  {
                    // The subface as the child sees it (its number among
                    // the face's children depends on the orientation).
                    const unsigned int nf = cell->neighbor_of_neighbor(f);
                    for (unsigned int sf = 0; sf < face->n_children(); ++sf)
                    {
                      const Iterator child =
                          cell->neighbor_child_on_subface(f, sf);
                      const unsigned int key = child->face(nf)->index();
                      cell_keys.push_back(key);
                      if (!child->is_locally_owned())
                        list.push_back({key, {child, cell}, {nf, f}});
                    }
                  }
                  else if (cell->neighbor_is_coarser(f))
                  {
                    cell_keys.push_back(index);
                    list.push_back(
                        {index,
                         {cell, Iterator(cell->neighbor(f))},
                         {f, cell->neighbor_of_coarser_neighbor(f).first}});
                  }
                  else
                  {
                    cell_keys.push_back(index);
                    const Iterator neighbor(cell->neighbor(f));
                    if (!neighbor->is_locally_owned() ||
                        cell->active_cell_index() <
                            neighbor->active_cell_index())
                      list.push_back({index,
                                      {cell, neighbor},
                                      {f, cell->neighbor_of_neighbor(f)}});
                  }
                }
                n_keys[c] = cell_keys.size() - first;
              }
            });

        // The cells whose data the faces need (the owned ones first), the
        // faces' numbers, then their maps on the set-up threads.
        std::vector<int>      local(tria.n_active_cells(), -1);
        std::vector<Iterator> cells;
        const auto            local_cell = [&](const Iterator &cell)
        {
          int &l = local[cell->active_cell_index()];
          if (l < 0)
          {
            l = cells.size();
            cells.push_back(cell);
          }
          return static_cast<unsigned int>(l);
        };
        for (const Iterator &cell : owned_cells)
          local_cell(cell);
        std::vector<int>           face_item(tria.n_raw_faces(), -1);
        std::vector<const Found *> listed;
        for (const auto &list : found)
          for (const Found &face : list)
          {
            AssertThrow(face_item[face.key] < 0, ExcInternalError());
            face_item[face.key] = listed.size();
            listed.push_back(&face);
            local_cell(face.cell[0]);
            local_cell(face.cell[1]);
          }
        std::vector<KellyFace<dim>> items(listed.size());
        parallel_for_chunks(
            listed.size(),
            grain,
            [&](const std::size_t begin, const std::size_t end)
            {
              for (std::size_t i = begin; i < end; ++i)
              {
                const Found &face = *listed[i];
                face_map<dim>(face.cell[0],
                              face.face[0],
                              face.cell[1],
                              face.face[1],
                              items[i]);
                for (unsigned int side = 0; side < 2; ++side)
                  items[i].cell[side] =
                      local[face.cell[side]->active_cell_index()];
              }
            });
        std::vector<unsigned int> owned(n_owned), offsets{0}, cell_faces;
        for (std::size_t chunk = 0; chunk < n_chunks; ++chunk)
        {
          std::size_t k = 0;
          for (std::size_t c = chunk * grain;
               c < std::min(n_owned, (chunk + 1) * grain);
               ++c)
          {
            owned[c] = owned_cells[c]->active_cell_index();
            for (unsigned int j = 0; j < n_keys[c]; ++j, ++k)
            {
              const int item = face_item[keys[chunk][k]];
              AssertThrow(item >= 0, ExcInternalError());
              cell_faces.push_back(item);
            }
            offsets.push_back(cell_faces.size());
          }
        }

        // The cells' DoF values (lexicographic) and support points, on the
        // set-up threads.
        steps.start("cell data");
        const unsigned int  n_fe  = fe.n_dofs_per_cell();
        const unsigned int  n_map = Utilities::pow(p + 1, dim);
        std::vector<double> values(cells.size() * n_fe);
        std::vector<double> points(cells.size() * n_map * dim);
        parallel_for_chunks(
            cells.size(),
            256,
            [&](const std::size_t begin, const std::size_t end)
            {
              CellSupportPoints<dim> support_points(mapping, map_points);
              std::vector<types::global_dof_index> indices(n_fe);
              for (std::size_t c = begin; c < end; ++c)
              {
                cells[c]->get_dof_indices(indices);
                for (unsigned int i = 0; i < n_fe; ++i)
                {
                  const types::global_dof_index index =
                      indices[lexicographic[i]];
                  AssertThrow(
                      available(index),
                      ExcMessage("GPU::KellyErrorEstimator: the solution "
                                 "lacks DoF " +
                                 std::to_string(index) +
                                 " of a cell next to an owned one; ghost "
                                 "it on the locally relevant DoFs"));
                  values[c * n_fe + i] = value(index);
                }
                support_points.get(cells[c], &points[c * n_map * dim]);
              }
            });

        steps.start("integrals");
        std::vector<double> q_points(quadrature.size() * (dim - 1));
        for (unsigned int q = 0; q < quadrature.size(); ++q)
          for (unsigned int k = 0; k < dim - 1; ++k)
            q_points[q * (dim - 1) + k] = quadrature.point(q)[k];

        Array<double> values_d, points_d, fe_nodes_d, map_nodes_d, q_points_d,
            q_weights_d, factors_d, integrals_d;
        Array<unsigned int>   offsets_d, cell_faces_d;
        Array<KellyFace<dim>> items_d;
        Array<float>          result_d;
        values_d.copy_from(values);
        points_d.copy_from(points);
        fe_nodes_d.copy_from(fe_nodes);
        map_nodes_d.copy_from(map_nodes);
        q_points_d.copy_from(q_points);
        q_weights_d.copy_from(quadrature.get_weights());
        factors_d.copy_from(factors);
        offsets_d.copy_from(offsets);
        cell_faces_d.copy_from(cell_faces);
        items_d.copy_from(items);
        integrals_d.resize(items.size());
        result_d.resize(owned.size());

        KellyData<dim> data;
        data.values                        = values_d.data();
        data.points                        = points_d.data();
        data.fe_nodes                      = fe_nodes_d.data();
        data.map_nodes                     = map_nodes_d.data();
        data.q_points                      = q_points_d.data();
        data.q_weights                     = q_weights_d.data();
        data.n_fe_1d                       = fe.degree + 1;
        data.n_map_1d                      = p + 1;
        data.n_q                           = quadrature.size();
        const KellyFace<dim> *item_ptr     = items_d.data();
        double               *integral_ptr = integrals_d.data();
        parallel_for("KellyErrorEstimator::faces",
                     items.size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     {
                       const KellyFace<dim> &item = item_ptr[i];
                       double                sum  = 0.;
                       for (unsigned int q = 0; q < data.n_q; ++q)
                       {
                         double s0[dim - 1], s1[dim - 1];
                         for (unsigned int k = 0; k < dim - 1; ++k)
                           s0[k] = data.q_points[q * (dim - 1) + k];
                         for (unsigned int j = 0; j < dim - 1; ++j)
                         {
                           s1[j] = item.offset[j];
                           for (unsigned int k = 0; k < dim - 1; ++k)
                             s1[j] += item.matrix[j][k] * s0[k];
                         }
                         double g0[dim], n0[dim], a0, g1[dim], n1[dim], a1;
                         evaluate_side<dim>(
                             data, item.cell[0], item.face[0], s0, g0, n0, a0);
                         evaluate_side<dim>(
                             data, item.cell[1], item.face[1], s1, g1, n1, a1);
                         // deal.II pairs each side's gradient with the other
                         // side's normal on subfaces; on regular faces n1 =
                         // -n0.
                         double jump = 0.;
                         for (unsigned int c = 0; c < dim; ++c)
                           jump += g1[c] * n0[c] + g0[c] * n1[c];
                         sum += jump * jump * a0 * data.q_weights[q];
                       }
                       integral_ptr[i] = sum;
                     });
        const unsigned int *offset_ptr    = offsets_d.data();
        const unsigned int *cell_face_ptr = cell_faces_d.data();
        const double       *factor_ptr    = factors_d.data();
        float              *result_ptr    = result_d.data();
        parallel_for(
            "KellyErrorEstimator::cells",
            owned.size(),
            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
            {
              double sum = 0.;
              for (unsigned int k = offset_ptr[c]; k < offset_ptr[c + 1]; ++k)
                sum += integral_ptr[cell_face_ptr[k]];
              result_ptr[c] =
                  static_cast<float>(std::sqrt(sum * factor_ptr[c]));
            });
        std::vector<float> result;
        result_d.copy_to(result);
        error.reinit(tria.n_active_cells());
        for (std::size_t c = 0; c < owned.size(); ++c)
          error[owned[c]] = result[c];
        steps.stop();
      }

      template void
      kelly_estimate<2>(const Mapping<2> &,
                        const DoFHandler<2> &,
                        const Quadrature<1> &,
                        const std::function<double(types::global_dof_index)> &,
                        const std::function<bool(types::global_dof_index)> &,
                        dealii::Vector<float> &,
                        SetupTimer *);
      template void
      kelly_estimate<3>(const Mapping<3> &,
                        const DoFHandler<3> &,
                        const Quadrature<2> &,
                        const std::function<double(types::global_dof_index)> &,
                        const std::function<bool(types::global_dof_index)> &,
                        dealii::Vector<float> &,
                        SetupTimer *);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
