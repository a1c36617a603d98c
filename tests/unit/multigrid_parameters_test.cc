// ParameterHandler entries of GPU::MultigridData and
// GPU::SparseMatrixMultigridData: the defaults parse to the structs'
// defaults, every entry reaches its field, and a value outside an entry's
// selection is refused by the ParameterHandler.
#include <dealii-gpu/multigrid/sparse_matrix_multigrid_data.h>

#include <deal.II/base/parameter_handler.h>

#include <gtest/gtest.h>

using namespace dealii;

TEST(MultigridParameters, DefaultsAreTheStructsDefaults)
{
  ParameterHandler prm;
  GPU::SparseMatrixMultigridData::declare_parameters(prm);
  GPU::SparseMatrixMultigridData parsed, defaults;
  parsed.smoothing_degree = defaults.smoothing_degree + 3;
  parsed.preconditioner =
      GPU::SparseMatrixMultigridData::SmootherPreconditioner::spai;
  parsed.parse_parameters(prm);
  EXPECT_EQ(parsed.smoother, defaults.smoother);
  EXPECT_EQ(parsed.smoothing_degree, defaults.smoothing_degree);
  EXPECT_EQ(parsed.coarse_solver, defaults.coarse_solver);
  EXPECT_EQ(parsed.precision, defaults.precision);
  EXPECT_EQ(parsed.preconditioner, defaults.preconditioner);
  EXPECT_EQ(parsed.spmv, defaults.spmv);
  EXPECT_EQ(parsed.restriction, defaults.restriction);
}

TEST(MultigridParameters, EntriesReachTheirFields)
{
  ParameterHandler prm;
  GPU::SparseMatrixMultigridData::declare_parameters(prm);
  prm.parse_input_from_string("set Smoother = jacobi\n"
                              "set Smoothing degree = 2\n"
                              "set Coarse solver = direct\n"
                              "set V-cycle precision = double\n"
                              "set Smoother preconditioner = spai\n"
                              "set SpMV kernel = ellpack\n"
                              "set Restriction = stored transpose\n");
  GPU::SparseMatrixMultigridData data;
  data.parse_parameters(prm);
  using Data = GPU::SparseMatrixMultigridData;
  EXPECT_EQ(data.smoother, GPU::MultigridData::Smoother::jacobi);
  EXPECT_EQ(data.smoothing_degree, 2u);
  EXPECT_EQ(data.coarse_solver, GPU::MultigridData::CoarseSolver::direct);
  EXPECT_EQ(data.precision, GPU::MultigridData::Precision::double_precision);
  EXPECT_EQ(data.preconditioner, Data::SmootherPreconditioner::spai);
  EXPECT_EQ(data.spmv, GPU::SparseMatrix<double>::SpMV::ellpack_r);
  using Restriction = GPU::MGTransferSparseMatrix<2, double>::Restriction;
  EXPECT_EQ(data.restriction, Restriction::stored_transpose);
  prm.parse_input_from_string("set Smoother preconditioner = spai0\n"
                              "set SpMV kernel = csr\n");
  data.parse_parameters(prm);
  EXPECT_EQ(data.preconditioner, Data::SmootherPreconditioner::spai0);
  EXPECT_EQ(data.spmv, GPU::SparseMatrix<double>::SpMV::csr);
}

TEST(MultigridParameters, ValuesOutsideTheSelectionAreRefused)
{
  ParameterHandler prm;
  GPU::SparseMatrixMultigridData::declare_parameters(prm);
  EXPECT_ANY_THROW(
      prm.parse_input_from_string("set Smoother preconditioner = ilu\n"));
  EXPECT_ANY_THROW(prm.parse_input_from_string("set SpMV kernel = bsr\n"));
}
