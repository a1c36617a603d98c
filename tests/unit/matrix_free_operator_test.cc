// GPU::MatrixFreeOperator fails clearly on bad input: an element that is
// not FE_Q(degree) with the operator's components (both backends), vectors
// of another layout, Tvmult of a non-symmetric operation without adjoint();
// and the names of its run-time choices round-trip.
#include <dealii-gpu/operators/matrix_free_operator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_dgq.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/grid/tria.h>
#include <deal.II/lac/affine_constraints.h>

#include <cctype>
#include <gtest/gtest.h>
#include <string>

using namespace dealii;

namespace
{
  // u -> (grad u, grad v) + (b . grad u, v): not symmetric, no adjoint().
  struct NoAdjoint
  {
    static constexpr EvaluationFlags::EvaluationFlags evaluation_flags =
        GPU::combined_flags(EvaluationFlags::values,
                            EvaluationFlags::gradients);

    DEAL_II_GPU_PORTABLE_TEMPLATE
    template <typename Evaluator>
    DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator         &phi,
                                            const unsigned int q) const
    {
      const auto grad = phi.get_gradient(q);
      phi.submit_gradient(grad, q);
      phi.submit_value(grad[0], q);
    }
  };

  template <GPU::MatrixFreeBackend backend, int n_components = 1>
  using Laplace = GPU::MatrixFreeOperator<2,
                                          2,
                                          n_components,
                                          double,
                                          GPU::LaplaceOperation<>,
                                          backend>;

  // The message of the ExcNotSupportedByMatrixFree that reinit() of
  // Operator throws on @p fe, or "".
  template <typename Operator>
  std::string reinit_message(const FiniteElement<2> &fe)
  {
    Triangulation<2> tria;
    GridGenerator::hyper_cube(tria);
    tria.refine_global(2);
    DoFHandler<2> dof_handler(tria);
    dof_handler.distribute_dofs(fe);
    AffineConstraints<double> constraints;
    constraints.close();
    try
    {
      Operator op;
      op.reinit(MappingQ1<2>(), dof_handler, constraints);
    }
    catch (const GPU::ExcNotSupportedByMatrixFree &e)
    {
      // On one line: deal.II wraps the message.
      std::string message;
      for (const char c : std::string(e.what()))
        if (!std::isspace(static_cast<unsigned char>(c)))
          message += c;
        else if (!message.empty() && message.back() != ' ')
          message += ' ';
      return message;
    }
    return "";
  }

  template <GPU::MatrixFreeBackend backend>
  void expect_refused_elements()
  {
    using Scalar = Laplace<backend>;
    using Vector = Laplace<backend, 2>;
    EXPECT_NE(reinit_message<Scalar>(FE_DGQ<2>(2)).find("FE_DGQ<2>(2)"),
              std::string::npos);
    const std::string degree = reinit_message<Scalar>(FE_Q<2>(3));
    EXPECT_NE(degree.find("FE_Q<2>(3)"), std::string::npos) << degree;
    EXPECT_NE(degree.find("needs FE_Q(2)"), std::string::npos) << degree;
    const std::string components =
        reinit_message<Vector>(FESystem<2>(FE_Q<2>(2), 3));
    EXPECT_NE(components.find("2 components"), std::string::npos) << components;
    EXPECT_EQ(reinit_message<Scalar>(FE_Q<2>(2)), "");
    EXPECT_EQ(reinit_message<Vector>(FESystem<2>(FE_Q<2>(2), 2)), "");
  }
} // namespace

TEST(MatrixFreeOperator, RefusesOtherElementsOnTheCPU)
{
  expect_refused_elements<GPU::MatrixFreeBackend::cpu>();
}

TEST(MatrixFreeOperator, RefusesOtherElementsOnTheGPU)
{
  expect_refused_elements<GPU::MatrixFreeBackend::gpu>();
}

TEST(MatrixFreeOperator, RefusesVectorsOfAnotherLayout)
{
  Triangulation<2> tria;
  GridGenerator::hyper_cube(tria);
  tria.refine_global(2);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(2));
  AffineConstraints<double> constraints;
  constraints.close();
  Laplace<GPU::MatrixFreeBackend::cpu> op;
  op.reinit(MappingQ1<2>(), dof_handler, constraints);
  LinearAlgebra::distributed::Vector<double> good, bad(7);
  op.initialize_dof_vector(good);
  EXPECT_EQ(op.m(), dof_handler.n_dofs());
  EXPECT_THROW(op.vmult(good, bad), ExcMessage);
  EXPECT_THROW(op.vmult(bad, good), ExcMessage);
  try
  {
    op.vmult(good, bad);
  }
  catch (const ExcMessage &e)
  {
    EXPECT_NE(std::string(e.what()).find("initialize_dof_vector"),
              std::string::npos);
  }
  EXPECT_THROW(op.el(0, 0), ExcMessage);
}

TEST(MatrixFreeOperator, TvmultNeedsSymmetryOrAdjoint)
{
  Triangulation<2> tria;
  GridGenerator::hyper_cube(tria);
  tria.refine_global(1);
  DoFHandler<2> dof_handler(tria);
  dof_handler.distribute_dofs(FE_Q<2>(1));
  AffineConstraints<double> constraints;
  constraints.close();
  GPU::MatrixFreeOperator<2,
                          1,
                          1,
                          double,
                          NoAdjoint,
                          GPU::MatrixFreeBackend::cpu>
      op;
  op.reinit(MappingQ1<2>(), dof_handler, constraints);
  LinearAlgebra::distributed::Vector<double> u, v;
  op.initialize_dof_vector(u);
  op.initialize_dof_vector(v);
  u = 1.;
  EXPECT_NO_THROW(op.vmult(v, u));
  EXPECT_THROW(op.Tvmult(v, u), ExcMessage);
}

TEST(MatrixFreeOperator, NamesRoundTrip)
{
  for (const auto backend :
       {GPU::MatrixFreeBackend::cpu, GPU::MatrixFreeBackend::gpu})
    EXPECT_EQ(GPU::matrix_free_backend_from_string(GPU::to_string(backend)),
              backend);
  for (const auto rule :
       {GPU::QuadratureRule::gauss, GPU::QuadratureRule::gauss_lobatto})
    EXPECT_EQ(GPU::quadrature_rule_from_string(GPU::to_string(rule)), rule);
  EXPECT_THROW(GPU::matrix_free_backend_from_string("tpu"), ExcMessage);
  EXPECT_THROW(GPU::quadrature_rule_from_string("simpson"), ExcMessage);
  EXPECT_THROW(GPU::make_quadrature(GPU::QuadratureRule::gauss_lobatto, 1),
               ExcMessage);
  EXPECT_EQ(
      GPU::make_quadrature(GPU::QuadratureRule::gauss_lobatto, 3).point(0)[0],
      0.);
}
