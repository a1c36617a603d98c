#include <dealii-gpu/dofs/locally_relevant_dofs.h>
#include <dealii-gpu/multigrid/mg_coarse_amg.h>
#include <dealii-gpu/multigrid/mg_coarse_direct.h>
#include <dealii-gpu/multigrid/mg_constrained_dofs.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/multigrid/mg_tools.h>

#include <Epetra_MultiVector.h>
#include <Teuchos_ParameterList.hpp>

namespace dealii
{
  namespace GPU
  {
    template <typename Number>
    using HostVector = LinearAlgebra::distributed::Vector<Number>;

    template <int dim, typename ConstrainedDoFs>
    void assemble_level_matrix(
        const Mapping<dim>                              &mapping,
        const DoFHandler<dim>                           &dof_handler,
        const ConstrainedDoFs                           &mg_constrained_dofs,
        const std::function<double(const Point<dim> &)> &diffusion,
        const std::function<double(const Point<dim> &)> &reaction,
        const unsigned int                               level,
        TrilinosWrappers::SparseMatrix                  &matrix)
    {
      const FiniteElement<dim> &fe = dof_handler.get_fe();
      AssertThrow(fe.n_components() == 1,
                  ExcMessage("assemble_level_matrix: scalar elements only, "
                             "not " +
                             fe.get_name()));
      AssertThrow(dof_handler.has_level_dofs(),
                  ExcMessage("assemble_level_matrix needs level DoFs: call "
                             "distribute_mg_dofs()"));
      const MPI_Comm comm  = dof_handler.get_communicator();
      const IndexSet owned = dof_handler.locally_owned_mg_dofs(level);
      const IndexSet relevant =
          internal::locally_relevant_level_dofs(dof_handler, level);
      AffineConstraints<double> constraints;
      constraints.reinit(relevant);
      if (mg_constrained_dofs.have_boundary_indices())
        constraints.add_lines(mg_constrained_dofs.get_boundary_indices(level));
      constraints.close();

      DynamicSparsityPattern dsp(relevant);
      MGTools::make_sparsity_pattern(dof_handler, dsp, level, constraints);
      SparsityTools::distribute_sparsity_pattern(dsp, owned, comm, relevant);
      matrix.reinit(owned, owned, dsp, comm);

      const QGauss<dim>                    quadrature(fe.degree + 1);
      FEValues<dim>                        fe_values(mapping,
                              fe,
                              quadrature,
                              update_values | update_gradients |
                                  update_quadrature_points | update_JxW_values);
      const unsigned int                   n = fe.n_dofs_per_cell();
      FullMatrix<double>                   cell_matrix(n, n);
      std::vector<types::global_dof_index> indices(n);
      for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
        if (cell->is_locally_owned_on_level())
        {
          fe_values.reinit(cell);
          cell_matrix = 0;
          for (const unsigned int q : fe_values.quadrature_point_indices())
          {
            const Point<dim> &x = fe_values.quadrature_point(q);
            const double      a = diffusion(x) * fe_values.JxW(q);
            const double c = reaction ? reaction(x) * fe_values.JxW(q) : 0.;
            for (unsigned int i = 0; i < n; ++i)
              for (unsigned int j = 0; j < n; ++j)
                cell_matrix(i, j) += a * (fe_values.shape_grad(i, q) *
                                          fe_values.shape_grad(j, q)) +
                                     c * fe_values.shape_value(i, q) *
                                         fe_values.shape_value(j, q);
          }
          cell->get_mg_dof_indices(indices);
          constraints.distribute_local_to_global(cell_matrix, indices, matrix);
        }
      matrix.compress(VectorOperation::add);
      // Identity rows on the boundary DoFs, as in the level operators
      // (distribute_local_to_global left them decoupled).
      for (const types::global_dof_index i : owned)
        if (constraints.is_constrained(i))
          matrix.set(i, i, 1.);
      matrix.compress(VectorOperation::insert);
    }

    template <int dim, typename Number, typename VectorType>
    template <typename ConstrainedDoFs>
    void MGCoarseGridAMG<dim, Number, VectorType>::initialize(
        const Mapping<dim>                              &mapping,
        const DoFHandler<dim>                           &dof_handler,
        const ConstrainedDoFs                           &mg_constrained_dofs,
        const std::function<double(const Point<dim> &)> &diffusion,
        const std::function<double(const Point<dim> &)> &reaction,
        const unsigned int                               level,
        const AdditionalData                            &additional_data)
    {
      TrilinosWrappers::SparseMatrix level_matrix;
      assemble_level_matrix(mapping,
                            dof_handler,
                            mg_constrained_dofs,
                            diffusion,
                            reaction,
                            level,
                            level_matrix);
      initialize(level_matrix, dof_handler, level, additional_data);
    }

    template <int dim, typename Number, typename VectorType>
    void MGCoarseGridAMG<dim, Number, VectorType>::initialize(
        const TrilinosWrappers::SparseMatrix &level_matrix,
        const DoFHandler<dim>                &dof_handler,
        const unsigned int                    level,
        const AdditionalData                 &additional_data)
    {
      AssertThrow(dof_handler.has_level_dofs(),
                  ExcMessage("MGCoarseGridAMG needs level DoFs: call "
                             "distribute_mg_dofs()"));
      const IndexSet owned = dof_handler.locally_owned_mg_dofs(level);
      AssertThrow(level_matrix.m() == dof_handler.n_dofs(level) &&
                      level_matrix.locally_owned_range_indices() == owned,
                  ExcMessage("MGCoarseGridAMG: the matrix's rows are not "
                             "the locally owned DoFs of level " +
                             std::to_string(level)));
      data = additional_data;
      matrix.copy_from(level_matrix);
      const FiniteElement<dim> &fe = dof_handler.get_fe();
      TrilinosWrappers::PreconditionAMG::AdditionalData amg_data;
      amg_data.elliptic              = true;
      amg_data.higher_order_elements = fe.degree > 1;
      amg_data.smoother_sweeps       = 2;
      amg_data.aggregation_threshold = 0.02;
      // ML's near null space of a vector-valued element: one constant a
      // component (its default is one mode for all rows).
      if (fe.n_components() > 1)
      {
        amg_data.constant_modes.assign(
            fe.n_components(), std::vector<bool>(owned.n_elements(), false));
        std::vector<types::global_dof_index> indices(fe.n_dofs_per_cell());
        for (const auto &cell : dof_handler.mg_cell_iterators_on_level(level))
          if (cell->is_locally_owned_on_level())
          {
            cell->get_mg_dof_indices(indices);
            for (unsigned int i = 0; i < indices.size(); ++i)
              if (owned.is_element(indices[i]))
                amg_data.constant_modes[fe.system_to_component_index(i).first]
                                       [owned.index_within_set(indices[i])] =
                    true;
          }
      }
      // deal.II hands ML a null pointer for the modes of a rank that owns
      // no DoF of this level, and ML then warns on that rank; it reads no
      // entry there, so any non-null pointer does.
      Teuchos::ParameterList              parameters;
      std::unique_ptr<Epetra_MultiVector> modes;
      amg_data.set_parameters(parameters, modes, matrix);
      double no_entries = 0.;
      if (owned.n_elements() == 0 &&
          parameters.isType<double *>("null space: vectors") &&
          parameters.get<double *>("null space: vectors") == nullptr)
        parameters.set("null space: vectors", &no_entries);
      amg.initialize(matrix, parameters);
      this->reinit_host(
          "MGCoarseGridAMG", owned, dof_handler.get_communicator(), level);
    }

    template <int dim, typename Number, typename VectorType>
    void MGCoarseGridAMG<dim, Number, VectorType>::solve(
        TrilinosWrappers::MPI::Vector       &dst,
        const TrilinosWrappers::MPI::Vector &src) const
    {
      ReductionControl control(
          data.max_iterations, 1e-300, data.reduction, false, false);
      SolverCG<TrilinosWrappers::MPI::Vector> cg(control);
      cg.solve(matrix, dst, src, amg);
      iterations = control.last_step();
    }

    template <int dim, typename Number, typename VectorType>
    std::unique_ptr<MGCoarseGridBase<VectorType>>
    internal::make_host_coarse_solver(
        const TrilinosWrappers::SparseMatrix &matrix,
        const DoFHandler<dim>                &dof_handler,
        const unsigned int                    level,
        const MultigridData                  &data)
    {
      AssertThrow(data.coarse_solver == MultigridData::CoarseSolver::amg ||
                      data.coarse_solver == MultigridData::CoarseSolver::direct,
                  ExcMessage("make_host_coarse_solver: amg or direct only"));
      if (data.coarse_solver == MultigridData::CoarseSolver::direct)
      {
        auto direct =
            std::make_unique<MGCoarseGridDirect<Number, VectorType>>();
        direct->initialize(matrix, level);
        return direct;
      }
      auto amg = std::make_unique<MGCoarseGridAMG<dim, Number, VectorType>>();
      typename MGCoarseGridAMG<dim, Number, VectorType>::AdditionalData
          amg_data;
      amg_data.reduction = data.coarse_reduction;
      amg->initialize(matrix, dof_handler, level, amg_data);
      return amg;
    }

#define DEALII_GPU_INSTANTIATE_FACTORY(dim, Number, VectorType)                \
  template std::unique_ptr<MGCoarseGridBase<VectorType>>                       \
  internal::make_host_coarse_solver<dim, Number, VectorType>(                  \
      const TrilinosWrappers::SparseMatrix &,                                  \
      const DoFHandler<dim> &,                                                 \
      const unsigned int,                                                      \
      const MultigridData &);
    DEALII_GPU_INSTANTIATE_FACTORY(2, float, Vector<float>)
    DEALII_GPU_INSTANTIATE_FACTORY(2, double, Vector<double>)
    DEALII_GPU_INSTANTIATE_FACTORY(3, float, Vector<float>)
    DEALII_GPU_INSTANTIATE_FACTORY(3, double, Vector<double>)
    DEALII_GPU_INSTANTIATE_FACTORY(2, float, HostVector<float>)
    DEALII_GPU_INSTANTIATE_FACTORY(2, double, HostVector<double>)
    DEALII_GPU_INSTANTIATE_FACTORY(3, float, HostVector<float>)
    DEALII_GPU_INSTANTIATE_FACTORY(3, double, HostVector<double>)
#undef DEALII_GPU_INSTANTIATE_FACTORY

#define DEALII_GPU_INSTANTIATE_AMG(dim, Number, VectorType, Constrained)       \
  template void MGCoarseGridAMG<dim, Number, VectorType>::initialize(          \
      const Mapping<dim> &,                                                    \
      const DoFHandler<dim> &,                                                 \
      const Constrained &,                                                     \
      const std::function<double(const Point<dim> &)> &,                       \
      const std::function<double(const Point<dim> &)> &,                       \
      const unsigned int,                                                      \
      const AdditionalData &);
#define DEALII_GPU_INSTANTIATE(dim, Constrained)                               \
  template void assemble_level_matrix(                                         \
      const Mapping<dim> &,                                                    \
      const DoFHandler<dim> &,                                                 \
      const Constrained &,                                                     \
      const std::function<double(const Point<dim> &)> &,                       \
      const std::function<double(const Point<dim> &)> &,                       \
      const unsigned int,                                                      \
      TrilinosWrappers::SparseMatrix &);                                       \
  DEALII_GPU_INSTANTIATE_AMG(dim, float, Vector<float>, Constrained)           \
  DEALII_GPU_INSTANTIATE_AMG(dim, double, Vector<double>, Constrained)         \
  DEALII_GPU_INSTANTIATE_AMG(dim, float, HostVector<float>, Constrained)       \
  DEALII_GPU_INSTANTIATE_AMG(dim, double, HostVector<double>, Constrained)

    template class MGCoarseGridAMG<2, float>;
    template class MGCoarseGridAMG<2, double>;
    template class MGCoarseGridAMG<3, float>;
    template class MGCoarseGridAMG<3, double>;
    template class MGCoarseGridAMG<2, float, HostVector<float>>;
    template class MGCoarseGridAMG<2, double, HostVector<double>>;
    template class MGCoarseGridAMG<3, float, HostVector<float>>;
    template class MGCoarseGridAMG<3, double, HostVector<double>>;
    DEALII_GPU_INSTANTIATE(2, dealii::MGConstrainedDoFs)
    DEALII_GPU_INSTANTIATE(3, dealii::MGConstrainedDoFs)
    DEALII_GPU_INSTANTIATE(2, GPU::MGConstrainedDoFs)
    DEALII_GPU_INSTANTIATE(3, GPU::MGConstrainedDoFs)
#undef DEALII_GPU_INSTANTIATE
#undef DEALII_GPU_INSTANTIATE_AMG
  } // namespace GPU
} // namespace dealii
