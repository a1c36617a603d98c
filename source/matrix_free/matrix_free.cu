// GPU::MatrixFree: the data builder (host) and the constrained-value kernels.
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

#include <deal.II/base/graph_coloring.h>
#include <deal.II/base/polynomial.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>

#include <sstream>

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

      // Vector layout: owned DoFs, then all other DoFs of owned cells.
      const IndexSet owned = on_level ? dof_handler.locally_owned_mg_dofs(level)
                                      : dof_handler.locally_owned_dofs();
      IndexSet       active =
          on_level
                    ? DoFTools::extract_locally_active_level_dofs(dof_handler, level)
                    : DoFTools::extract_locally_active_dofs(dof_handler);
      active.subtract_set(owned);
      partitioner =
          std::make_shared<Utilities::MPI::Partitioner>(owned, active, comm);

      // Cells, colored if asked.
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

      const unsigned int dofs_per_cell = fe.n_dofs_per_cell();
      auto               get_indices   = [&](const CellIterator &cell)
      {
        std::vector<types::global_dof_index> indices(dofs_per_cell);
        if (on_level)
          cell->get_mg_dof_indices(indices);
        else
          cell->get_active_or_mg_dof_indices(indices);
        return indices;
      };

      use_coloring = additional_data.use_coloring;
      colors.clear();
      // deal.II's graph coloring dereferences begin even for an empty range
      // (a rank without cells on a small mesh).
      if (use_coloring && !cells.empty())
      {
        using Iterator = typename std::vector<CellIterator>::const_iterator;
        const auto coloring = GraphColoring::make_graph_coloring(
            Iterator(cells.begin()),
            Iterator(cells.end()),
            std::function<std::vector<types::global_dof_index>(
                const Iterator &)>([&](const Iterator &it)
                                   { return get_indices(*it); }));
        std::vector<CellIterator> ordered;
        for (const auto &color : coloring)
        {
          const unsigned int first = ordered.size();
          for (const auto &it : color)
            ordered.push_back(*it);
          colors.emplace_back(first, ordered.size());
        }
        cells.swap(ordered);
      }
      else if (!cells.empty())
        colors.emplace_back(0u, static_cast<unsigned int>(cells.size()));

      // DoF indices in lexicographic order per component.
      const std::vector<unsigned int> lexicographic =
          FETools::lexicographic_to_hierarchic_numbering<dim>(degree);
      const unsigned int        n_cells = cells.size();
      std::vector<unsigned int> host_indices(std::size_t(n_cells) *
                                             dofs_per_cell);
      std::vector<unsigned int> constrained_owned;
      for (unsigned int c = 0; c < n_cells; ++c)
      {
        const auto indices = get_indices(cells[c]);
        for (unsigned int comp = 0; comp < n_components; ++comp)
          for (unsigned int i = 0; i < lexicographic.size(); ++i)
          {
            const types::global_dof_index g =
                indices[fe.component_to_system_index(comp, lexicographic[i])];
            unsigned int local = constrained_dof;
            if (constraints.is_constrained(g))
            {
              const auto *entries = constraints.get_constraint_entries(g);
              AssertThrow(entries == nullptr || entries->empty(),
                          ExcNotSupportedByMatrixFree(
                              "the constraint on DoF " + std::to_string(g) +
                              " couples it to other DoFs (hanging node or "
                              "periodicity); this version supports "
                              "Dirichlet rows only"));
            }
            else
              local = partitioner->global_to_local(g);
            host_indices[std::size_t(c) * dofs_per_cell +
                         comp * lexicographic.size() + i] = local;
          }
      }
      for (const auto g : owned)
        if (constraints.is_constrained(g))
          constrained_owned.push_back(partitioner->global_to_local(g));
      dof_indices.copy_from(host_indices);
      constrained_indices.copy_from(constrained_owned);

      // Geometry at the quadrature points (tensor product, x fastest).
      const Quadrature<dim> cell_quadrature(quadrature);
      const unsigned int    n_q  = cell_quadrature.size();
      const bool    store_points = (additional_data.mapping_update_flags &
                                 update_quadrature_points) != 0;
      FEValues<dim> fe_values(
          mapping,
          fe,
          cell_quadrature,
          update_inverse_jacobians | update_JxW_values |
              (store_points ? update_quadrature_points : update_default));
      std::vector<Number> host_inverse_jacobian(std::size_t(n_cells) * dim *
                                                dim * n_q);
      std::vector<Number> host_JxW(std::size_t(n_cells) * n_q);
      std::vector<Number> host_points(
          store_points ? std::size_t(n_cells) * dim * n_q : 0);
      host_quadrature_points.clear();
      for (unsigned int c = 0; c < n_cells; ++c)
      {
        fe_values.reinit(typename Triangulation<dim>::cell_iterator(cells[c]));
        for (unsigned int q = 0; q < n_q; ++q)
        {
          const auto &inverse = fe_values.inverse_jacobian(q);
          for (unsigned int d = 0; d < dim; ++d)
            for (unsigned int e = 0; e < dim; ++e)
              host_inverse_jacobian[(std::size_t(c) * dim * dim + d * dim + e) *
                                        n_q +
                                    q] = inverse[d][e];
          host_JxW[std::size_t(c) * n_q + q] = fe_values.JxW(q);
          if (store_points)
          {
            const Point<dim> &p = fe_values.quadrature_point(q);
            host_quadrature_points.push_back(p);
            for (unsigned int d = 0; d < dim; ++d)
              host_points[(std::size_t(c) * dim + d) * n_q + q] = p[d];
          }
        }
      }
      inverse_jacobian.copy_from(host_inverse_jacobian);
      JxW.copy_from(host_JxW);
      quadrature_points.copy_from(host_points);

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

      data.n_cells               = n_cells;
      data.fe_degree             = degree;
      data.n_q_points_1d         = n_q_1d;
      data.n_components          = n_components;
      data.dofs_per_cell         = dofs_per_cell;
      data.n_q_points            = n_q;
      data.use_atomics           = use_coloring ? 0 : 1;
      data.dof_indices           = dof_indices.data();
      data.inverse_jacobian      = inverse_jacobian.data();
      data.JxW                   = JxW.data();
      data.quadrature_points     = quadrature_points.data();
      data.shape_values          = shape_values.data();
      data.collocation_gradients = collocation_gradients.data();
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
             inverse_jacobian.memory_consumption() + JxW.memory_consumption() +
             quadrature_points.memory_consumption() +
             shape_values.memory_consumption() +
             collocation_gradients.memory_consumption() +
             constrained_indices.memory_consumption();
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
