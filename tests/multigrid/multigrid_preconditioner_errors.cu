// GPU::MultigridPreconditioner refuses what it cannot serve with a message
// that names the problem, before anything is computed: no level DoFs, a
// parallel triangulation without its multigrid hierarchy, an element other
// than FE_Q(degree), settings out of range, vmult before initialize(),
// a level operator asked for in the precision that was not built or below
// the FE_Q(degree) level of p-coarsening, and GPU::MGTransferP between
// elements it does not serve.
#include <deal.II/fe/fe_dgq.h>

#include "../poisson_problem.h"
#include "../tests.h"

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  constexpr int                    dim = 2;
  const MappingQ<dim>              mapping(1);
  const auto                       one = [](const Point<dim> &) { return 1.; };

  {
    Triangulation<dim> tria(
        Triangulation<dim>::limit_level_difference_at_vertices);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(2);
    DoFHandler<dim> dof_handler(tria);
    dof_handler.distribute_dofs(FE_Q<dim>(2));
    expect_error("no level DoFs",
                 "distribute_mg_dofs",
                 [&]
                 {
                   GPU::MultigridPreconditioner<dim, 2> mg;
                   mg.initialize(mapping, dof_handler, {0}, one);
                 });
    dof_handler.distribute_mg_dofs();
    expect_error("FE_Q(2) for MultigridPreconditioner<2, 3>",
                 "FE_Q(3)",
                 [&]
                 {
                   GPU::MultigridPreconditioner<dim, 3> mg;
                   mg.initialize(mapping, dof_handler, {0}, one);
                 });
    DoFHandler<dim> dg(tria);
    dg.distribute_dofs(FE_DGQ<dim>(2));
    dg.distribute_mg_dofs();
    expect_error("FE_DGQ(2)",
                 "not FE_DGQ",
                 [&]
                 {
                   GPU::MultigridPreconditioner<dim, 2> mg;
                   mg.initialize(mapping, dg, {0}, one);
                 });
    GPU::MultigridData data;
    data.coarse_reduction = 2;
    expect_error("coarse reduction 2",
                 "coarse reduction in (0, 1)",
                 [&]
                 {
                   GPU::MultigridPreconditioner<dim, 2> mg;
                   mg.initialize(mapping, dof_handler, {0}, one, data);
                 });
    expect_error("vmult before initialize()",
                 "before initialize",
                 [&]
                 {
                   GPU::MultigridPreconditioner<dim, 2> mg;
                   GPU::Vector<double>                  v(dof_handler.n_dofs());
                   mg.vmult(v, v);
                 });
    expect_error("MGTransferP from FE_Q(2) to FE_Q(2)",
                 "must be below",
                 [&]
                 {
                   AffineConstraints<double> none;
                   none.close();
                   GPU::MGTransferP<dim, double> transfer;
                   transfer.build(dof_handler, none, dof_handler, none);
                 });
    expect_error("MGTransferP from FE_DGQ(2)",
                 "must be FE_Q",
                 [&]
                 {
                   AffineConstraints<double> none;
                   none.close();
                   GPU::MGTransferP<dim, double> transfer;
                   transfer.build(dg, none, dof_handler, none);
                 });
    expect_error("double level operator of a float V-cycle",
                 "no V-cycle in this precision",
                 [&]
                 {
                   GPU::MultigridPreconditioner<dim, 2> mg;
                   mg.initialize(mapping, dof_handler, {0}, one);
                   mg.get_level_operator<double>(0);
                 });
    {
      // p-coarsening: the finest level is the FE_Q(2) operator, the
      // FE_Q(1) levels below it are not served.
      GPU::MultigridData p_data;
      p_data.p_coarsening = true;
      GPU::MultigridPreconditioner<dim, 2> mg;
      mg.initialize(mapping, dof_handler, {0}, one, p_data);
      const unsigned int finest = mg.n_levels() - 1;
      deallog << "p-coarsening: finest level " << finest << " has "
              << mg.get_level_operator<float>(finest).m() << " of "
              << dof_handler.n_dofs() << " DoFs" << std::endl;
      expect_error("p-coarsening, FE_Q(1) level operator",
                   "with p-coarsening only the finest level",
                   [&] { mg.get_level_operator<float>(0); });
    }
  }
  {
    parallel::distributed::Triangulation<dim> tria(MPI_COMM_WORLD);
    GridGenerator::hyper_cube(tria);
    tria.refine_global(2);
    DoFHandler<dim> dof_handler(tria);
    dof_handler.distribute_dofs(FE_Q<dim>(2));
    // Ours refuses such a mesh; deal.II refuses its level DoFs.
    expect_error("p4est mesh without multigrid hierarchy",
                 "without its multigrid hierarchy",
                 [&]
                 {
                   GPU::MultigridPreconditioner<dim, 2> mg;
                   mg.initialize(mapping, dof_handler, {0}, one);
                 });
    expect_error("its level DoFs (deal.II's distribute_mg_dofs())",
                 "construct_multigrid_hierarchy",
                 [&] { dof_handler.distribute_mg_dofs(); });
  }
}
