// A level cell's DoF indices, read object by object where the cell has the
// standard orientation (library-internal).
#ifndef dealii_gpu_source_dofs_level_dof_indices_h
#define dealii_gpu_source_dofs_level_dof_indices_h

#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_accessor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe.h>

#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * The level DoF indices of a cell, as get_mg_dof_indices() gives them.
       * deal.II 9.4 caches a cell's active indices, not its level ones, and
       * its generic walk over the cell's objects (with the orientation
       * adjustments) took 1.7 times as long as reading the vertices', lines',
       * faces' and cell's DoFs in order (Q4, 3D). That order is deal.II's
       * where every face and line of the cell has the standard orientation;
       * other cells, and 1D and 2D, take get_mg_dof_indices().
       */
      template <int dim>
      class LevelDoFIndices
      {
      public:
        explicit LevelDoFIndices(const FiniteElement<dim> &fe)
            : per_vertex(fe.n_dofs_per_vertex()),
              per_line(fe.n_dofs_per_line()),
              per_quad(dim == 3 ? fe.n_dofs_per_quad(0) : 0),
              per_hex(dim == 3 ? fe.n_dofs_per_hex() : 0),
              n(fe.n_dofs_per_cell())
        {
        }

        /** The level DoFs of @p cell (on its level) into @p out. */
        template <typename CellIterator>
        void get(const CellIterator                   &cell,
                 std::vector<types::global_dof_index> &out) const
        {
          out.resize(n);
          if constexpr (dim == 3)
            if (standard_orientation(cell))
            {
              const unsigned int level = cell->level();
              unsigned int       i     = 0;
              for (unsigned int v = 0; v < 8; ++v)
                for (unsigned int j = 0; j < per_vertex; ++j)
                  out[i++] = cell->mg_vertex_dof_index(level, v, j);
              for (unsigned int l = 0; l < 12; ++l)
              {
                const auto line = cell->line(l);
                for (unsigned int j = 0; j < per_line; ++j)
                  out[i++] = line->mg_dof_index(level, j);
              }
              for (unsigned int f = 0; f < 6; ++f)
              {
                const auto face = cell->face(f);
                for (unsigned int j = 0; j < per_quad; ++j)
                  out[i++] = face->mg_dof_index(level, j);
              }
              for (unsigned int j = 0; j < per_hex; ++j)
                out[i++] = cell->mg_dof_index(level, j);
              return;
            }
          cell->get_mg_dof_indices(out);
        }

      private:
        template <typename CellIterator>
        static bool standard_orientation(const CellIterator &cell)
        {
          for (unsigned int f = 0; f < 6; ++f)
            if (!cell->face_orientation(f) || cell->face_flip(f) ||
                cell->face_rotation(f))
              return false;
          for (unsigned int l = 0; l < 12; ++l)
            if (!cell->line_orientation(l))
              return false;
          return true;
        }

        const unsigned int per_vertex, per_line, per_quad, per_hex, n;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
