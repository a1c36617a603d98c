#include <dealii-gpu/dofs/block_lattice.h>

#include <deal.II/base/geometry_info.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/fe_tools.h>

#include <array>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      namespace
      {
        template <int dim>
        bool collect(
            const typename DoFHandler<dim>::cell_iterator &cell,
            const unsigned int                             depth_left,
            const std::array<unsigned int, dim>           &position,
            const unsigned int                             n_1d,
            std::vector<typename DoFHandler<dim>::active_cell_iterator> &cells)
        {
          if (depth_left == 0)
          {
            if (cell->has_children() || !cell->is_active() ||
                !cell->is_locally_owned())
              return false;
            unsigned int index = 0;
            for (int d = dim - 1; d >= 0; --d)
              index = index * n_1d + position[d];
            cells[index] = cell;
            return true;
          }
          if (!cell->has_children() ||
              cell->refinement_case() !=
                  RefinementCase<dim>::isotropic_refinement)
            return false;
          for (unsigned int c = 0; c < GeometryInfo<dim>::max_children_per_cell;
               ++c)
          {
            std::array<unsigned int, dim> child_position;
            for (unsigned int d = 0; d < dim; ++d)
              child_position[d] = 2 * position[d] + ((c >> d) & 1);
            if (!collect<dim>(cell->child(c),
                              depth_left - 1,
                              child_position,
                              n_1d,
                              cells))
              return false;
          }
          return true;
        }
      } // namespace

      template <int dim>
      bool block_cells(
          const typename DoFHandler<dim>::cell_iterator &block,
          const unsigned int                             refinements,
          std::vector<typename DoFHandler<dim>::active_cell_iterator> &cells)
      {
        const unsigned int n_1d = 1u << refinements;
        cells.resize(std::size_t(1) << (dim * refinements));
        std::array<unsigned int, dim> origin{};
        return collect<dim>(block, refinements, origin, n_1d, cells);
      }

      template <int dim>
      std::vector<types::global_dof_index> block_lattice(
          const std::vector<typename DoFHandler<dim>::active_cell_iterator>
                            &cells,
          const unsigned int refinements,
          const unsigned int degree)
      {
        const unsigned int P    = (degree << refinements) + 1;
        std::size_t        size = 1;
        for (unsigned int d = 0; d < dim; ++d)
          size *= P;
        std::vector<types::global_dof_index> lattice(
            size, numbers::invalid_dof_index);
        const std::vector<unsigned int> lexicographic =
            FETools::lexicographic_to_hierarchic_numbering<dim>(degree);
        std::vector<types::global_dof_index> indices;
        for (std::size_t c = 0; c < cells.size(); ++c)
        {
          indices.resize(cells[c]->get_fe().n_dofs_per_cell());
          cells[c]->get_dof_indices(indices);
          for (unsigned int i = 0; i < lexicographic.size(); ++i)
          {
            const auto  x     = lattice_point<dim>(c, i, refinements, degree);
            std::size_t point = 0;
            for (int d = dim - 1; d >= 0; --d)
              point = point * P + x[d];
            lattice[point] = indices[lexicographic[i]];
          }
        }
        return lattice;
      }

      template <int dim>
      unsigned int
      refinements_below(const typename DoFHandler<dim>::cell_iterator &cell)
      {
        unsigned int                            r       = 0;
        typename DoFHandler<dim>::cell_iterator current = cell;
        while (current->has_children())
        {
          current = current->child(0);
          ++r;
        }
        return r;
      }

#define DEALII_GPU_INSTANTIATE(dim)                                            \
  template bool block_cells<dim>(                                              \
      const typename DoFHandler<dim>::cell_iterator &,                         \
      const unsigned int,                                                      \
      std::vector<typename DoFHandler<dim>::active_cell_iterator> &);          \
  template std::vector<types::global_dof_index> block_lattice<dim>(            \
      const std::vector<typename DoFHandler<dim>::active_cell_iterator> &,     \
      const unsigned int,                                                      \
      const unsigned int);                                                     \
  template unsigned int refinements_below<dim>(                                \
      const typename DoFHandler<dim>::cell_iterator &);
      DEALII_GPU_INSTANTIATE(2)
      DEALII_GPU_INSTANTIATE(3)
#undef DEALII_GPU_INSTANTIATE
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
