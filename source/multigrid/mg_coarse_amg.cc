#include <dealii-gpu/dofs/locally_relevant_dofs.h>
#include <dealii-gpu/multigrid/mg_coarse_amg.h>
#include <dealii-gpu/multigrid/mg_constrained_dofs.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_values.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/dynamic_sparsity_pattern.h>
#include <deal.II/lac/full_matrix.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/lac/sparsity_tools.h>
#include <deal.II/multigrid/mg_tools.h>

namespace dealii
{
  namespace GPU
  {
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

    template <int dim, typename Number>
    template <typename ConstrainedDoFs>
    void MGCoarseGridAMG<dim, Number>::initialize(
        const Mapping<dim>                              &mapping,
        const DoFHandler<dim>                           &dof_handler,
        const ConstrainedDoFs                           &mg_constrained_dofs,
        const std::function<double(const Point<dim> &)> &diffusion,
        const std::function<double(const Point<dim> &)> &reaction,
        const unsigned int                               level,
        const AdditionalData                            &additional_data)
    {
      data = additional_data;
      assemble_level_matrix(mapping,
                            dof_handler,
                            mg_constrained_dofs,
                            diffusion,
                            reaction,
                            level,
                            matrix);
      TrilinosWrappers::PreconditionAMG::AdditionalData amg_data;
      amg_data.elliptic              = true;
      amg_data.higher_order_elements = dof_handler.get_fe().degree > 1;
      amg_data.smoother_sweeps       = 2;
      amg_data.aggregation_threshold = 0.02;
      amg.initialize(matrix, amg_data);
      this->reinit_host("MGCoarseGridAMG",
                        dof_handler.locally_owned_mg_dofs(level),
                        dof_handler.get_communicator(),
                        level);
    }

    template <int dim, typename Number>
    void MGCoarseGridAMG<dim, Number>::solve(
        TrilinosWrappers::MPI::Vector       &dst,
        const TrilinosWrappers::MPI::Vector &src) const
    {
      ReductionControl control(
          data.max_iterations, 1e-300, data.reduction, false, false);
      SolverCG<TrilinosWrappers::MPI::Vector> cg(control);
      cg.solve(matrix, dst, src, amg);
      iterations = control.last_step();
    }

#define DEALII_GPU_INSTANTIATE_AMG(dim, Number, Constrained)                   \
  template void MGCoarseGridAMG<dim, Number>::initialize(                      \
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
  DEALII_GPU_INSTANTIATE_AMG(dim, float, Constrained)                          \
  DEALII_GPU_INSTANTIATE_AMG(dim, double, Constrained)

    template class MGCoarseGridAMG<2, float>;
    template class MGCoarseGridAMG<2, double>;
    template class MGCoarseGridAMG<3, float>;
    template class MGCoarseGridAMG<3, double>;
    DEALII_GPU_INSTANTIATE(2, dealii::MGConstrainedDoFs)
    DEALII_GPU_INSTANTIATE(3, dealii::MGConstrainedDoFs)
    DEALII_GPU_INSTANTIATE(2, GPU::MGConstrainedDoFs)
    DEALII_GPU_INSTANTIATE(3, GPU::MGConstrainedDoFs)
#undef DEALII_GPU_INSTANTIATE
#undef DEALII_GPU_INSTANTIATE_AMG
  } // namespace GPU
} // namespace dealii
