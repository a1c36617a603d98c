// GPU::internal::MultigridPLevel: the top of a p-multigrid V-cycle, FE_Q(k)
// on the active mesh smoothed by Chebyshev, with the correction from a
// V-cycle of FE_Q(1) on the same mesh (GPU::MGTransferP between the two).
// Include from .cu files.
#ifndef dealii_gpu_multigrid_multigrid_p_level_h
#define dealii_gpu_multigrid_multigrid_p_level_h

#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/multigrid/mg_transfer_p.h>
#include <dealii-gpu/multigrid/multigrid_data.h>
#include <dealii-gpu/operators/laplace_operator.h>

#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/precondition.h>

#include <functional>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <int dim, int degree, typename LevelNumber>
      class MultigridPLevel
      {
      public:
        using LevelVector    = Vector<LevelNumber>;
        using ScalarFunction = std::function<double(const Point<dim> &)>;

        // The FE_Q(degree) operator on the active cells with
        // @p constraints, its smoother, and the transfer to
        // @p linear_dof_handler (FE_Q(1), @p linear_constraints).
        void initialize(const Mapping<dim>              &mapping,
                        const DoFHandler<dim>           &dof_handler,
                        const AffineConstraints<double> &constraints,
                        const DoFHandler<dim>           &linear_dof_handler,
                        const AffineConstraints<double> &linear_constraints,
                        const ScalarFunction            &diffusion,
                        const ScalarFunction            &reaction,
                        const MultigridData             &data,
                        SetupTimer                      &setup_timer)
        {
          op.reinit(mapping,
                    dof_handler,
                    constraints,
                    diffusion,
                    reaction,
                    numbers::invalid_unsigned_int,
                    false,
                    data.geometry,
                    data.geometry == GeometryStorage::automatic);
          setup_timer.add(op.get_setup_timer());
          setup_timer.start("p-transfer");
          transfer.build(
              dof_handler, constraints, linear_dof_handler, linear_constraints);
          setup_timer.stop();
          setup_timer.start("smoothers");
          typename Smoother::AdditionalData smoother_data;
          smoother_data.preconditioner = std::make_shared<Diagonal>();
          op.compute_inverse_diagonal(
              smoother_data.preconditioner->get_vector());
          n_smoothing_steps = data.set_smoother_data(smoother_data);
          smoother.initialize(op, smoother_data);
          op.initialize_dof_vector(b);
          op.initialize_dof_vector(x);
          op.initialize_dof_vector(r);
          smoother.estimate_eigenvalues(b);
          linear_defect.reinit(transfer.get_coarse_partitioner());
          linear_correction.reinit(transfer.get_coarse_partitioner());
          setup_timer.stop();
        }

        // dst = V-cycle(src): smoothing on FE_Q(degree), the correction
        // from @p linear (a preconditioner of the FE_Q(1) problem),
        // smoothing again.
        template <typename Number, typename LinearPreconditioner>
        void vmult(Vector<Number>             &dst,
                   const Vector<Number>       &src,
                   const LinearPreconditioner &linear) const
        {
          b.copy_locally_owned_data_from(src);
          x = LevelNumber();
          smoother.vmult(x, b);
          for (unsigned int i = 1; i < n_smoothing_steps; ++i)
            smoother.step(x, b);
          op.vmult(r, x);
          r.sadd(LevelNumber(-1), LevelNumber(1), b);
          linear_defect = LevelNumber();
          transfer.restrict_and_add(linear_defect, r);
          linear.vmult(linear_correction, linear_defect);
          transfer.prolongate(r, linear_correction);
          x += r;
          for (unsigned int i = 0; i < n_smoothing_steps; ++i)
            smoother.Tstep(x, b);
          dst.copy_locally_owned_data_from(x);
        }

        std::size_t memory_consumption() const
        {
          return op.memory_consumption() + transfer.memory_consumption() +
                 3 * b.memory_consumption() +
                 2 * linear_defect.memory_consumption();
        }

        const LaplaceOperator<dim, degree, LevelNumber> &get_operator() const
        {
          return op;
        }

      private:
        using Operator = LaplaceOperator<dim, degree, LevelNumber>;
        using Diagonal = DiagonalMatrix<LevelVector>;
        using Smoother = PreconditionChebyshev<Operator, LevelVector, Diagonal>;

        Operator                      op;
        MGTransferP<dim, LevelNumber> transfer;
        Smoother                      smoother;
        unsigned int                  n_smoothing_steps = 1;
        mutable LevelVector           b, x, r;
        mutable LevelVector           linear_defect, linear_correction;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
