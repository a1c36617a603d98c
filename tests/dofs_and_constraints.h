// The DoFs and constraints the multigrid tests solve on.
#ifndef dealii_gpu_tests_dofs_and_constraints_h
#define dealii_gpu_tests_dofs_and_constraints_h

#include <deal.II/base/index_set.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/lac/affine_constraints.h>

// FE_Q(degree), or FESystem of it with n_components > 1, with level DoFs;
// constraints: hanging nodes and zero values on boundary id 0, on the
// locally relevant DoFs (constraints.get_local_lines()).
template <int dim>
void
distribute_dofs_and_constraints(dealii::DoFHandler<dim>           &dof_handler,
                                const unsigned int                 degree,
                                const unsigned int                 n_components,
                                dealii::AffineConstraints<double> &constraints)
{
  using namespace dealii;
  if (n_components == 1)
    dof_handler.distribute_dofs(FE_Q<dim>(degree));
  else
    dof_handler.distribute_dofs(FESystem<dim>(FE_Q<dim>(degree), n_components));
  dof_handler.distribute_mg_dofs();
  IndexSet relevant;
  DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
  constraints.reinit(relevant);
  DoFTools::make_hanging_node_constraints(dof_handler, constraints);
  DoFTools::make_zero_boundary_constraints(dof_handler, 0, constraints);
  constraints.close();
}

#endif
