// GPU::MGTransferMatrixFree rejects the input it cannot serve with a
// message that names it, instead of building a wrong transfer: a parallel
// triangulation without its multigrid hierarchy, a DoFHandler without level
// DoFs, an element or degree it does not support, partitioners or vectors
// of the wrong layout.
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>

#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>

#include <algorithm>
#include <gtest/gtest.h>
#include <string>

using namespace dealii;

namespace
{
  // Message of the ExcNotSupportedByMGTransfer that build() throws, on one
  // line (deal.II wraps it), or "".
  std::string build_message(const DoFHandler<2> &dof_handler)
  {
    std::string message;
    try
    {
      GPU::MGTransferMatrixFree<2, double> transfer;
      transfer.build(dof_handler);
    }
    catch (const GPU::ExcNotSupportedByMGTransfer &e)
    {
      message = e.what();
    }
    std::replace(message.begin(), message.end(), '\n', ' ');
    message.erase(std::unique(message.begin(),
                              message.end(),
                              [](char a, char b)
                              { return a == ' ' && b == ' '; }),
                  message.end());
    return message;
  }

  // A refined square with level DoFs of @p fe.
  void make_level_dofs(Triangulation<2>       &tria,
                       DoFHandler<2>          &dof_handler,
                       const FiniteElement<2> &fe)
  {
    GridGenerator::hyper_cube(tria);
    tria.refine_global(2);
    dof_handler.reinit(tria);
    dof_handler.distribute_dofs(fe);
    dof_handler.distribute_mg_dofs();
  }
} // namespace

TEST(MGTransferErrors, ParallelTriangulationWithoutHierarchy)
{
  parallel::distributed::Triangulation<2> tria(MPI_COMM_WORLD);
  GridGenerator::hyper_cube(tria);
  tria.refine_global(2);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(1));
  EXPECT_NE(build_message(dof_handler).find("multigrid hierarchy"),
            std::string::npos);
}

TEST(MGTransferErrors, NoLevelDoFs)
{
  Triangulation<2> tria(Triangulation<2>::limit_level_difference_at_vertices);
  GridGenerator::hyper_cube(tria);
  tria.refine_global(2);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(1));
  EXPECT_NE(build_message(dof_handler).find("no level DoFs"),
            std::string::npos);
}

TEST(MGTransferErrors, UnsupportedElementAndDegree)
{
  Triangulation<2> tria(Triangulation<2>::limit_level_difference_at_vertices);
  DoFHandler<2>    dg;
  make_level_dofs(tria, dg, FE_DGQ<2>(1));
  EXPECT_NE(build_message(dg).find("element FE_DGQ"), std::string::npos);
  DoFHandler<2> high;
  high.reinit(tria);
  high.distribute_dofs(FE_Q<2>(9));
  high.distribute_mg_dofs();
  EXPECT_NE(build_message(high).find("degree 9"), std::string::npos);
}

TEST(MGTransferErrors, WrongLayouts)
{
  Triangulation<2> tria(Triangulation<2>::limit_level_difference_at_vertices);
  DoFHandler<2>    dof_handler;
  make_level_dofs(tria, dof_handler, FE_Q<2>(1));
  GPU::MGTransferMatrixFree<2, double> transfer;
  // One partitioner for three levels.
  const auto one = std::make_shared<const Utilities::MPI::Partitioner>(
      dof_handler.locally_owned_mg_dofs(0), MPI_COMM_WORLD);
  EXPECT_THROW(transfer.build(dof_handler, {one}),
               GPU::ExcNotSupportedByMGTransfer);
  // A level-1 vector where level 2 is expected.
  transfer.build(dof_handler);
  GPU::Vector<double> coarse(dof_handler.n_dofs(1)),
      wrong(dof_handler.n_dofs(1));
  EXPECT_THROW(transfer.prolongate(2, wrong, coarse),
               GPU::ExcVectorLayoutMismatch);
}
