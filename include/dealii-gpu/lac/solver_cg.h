// deal.II's SolverCG on GPU::Vector with a DiagonalMatrix (Jacobi)
// preconditioner: the vector work of an iteration in two sweeps instead of
// seven. Included by vector.h, so that every SolverCG<GPU::Vector> sees it.
#ifndef dealii_gpu_lac_solver_cg_h
#define dealii_gpu_lac_solver_cg_h

#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/solver_cg.h>

#include <array>
#include <cmath>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * Before the operator of CG iteration k: p = D r for k = 1; else, with
       * v = A p of iteration k - 1, r -= alpha v and p = D r + beta p, in
       * one sweep (D: @p inverse_diagonal), and, where @p x_p and @p x_r are
       * not both zero, x += x_p p + x_r D r with p and r as they were
       * before the sweep.
       */
      template <typename Number>
      void cg_update_before_vmult(const bool            first_iteration,
                                  const Number          alpha,
                                  const Number          beta,
                                  const Number          x_p,
                                  const Number          x_r,
                                  const Vector<Number> &inverse_diagonal,
                                  Vector<Number>       &x,
                                  Vector<Number>       &r,
                                  Vector<Number>       &p,
                                  const Vector<Number> &v);

      /** x += x_p p + x_r D r, the last update of x after the solve. */
      template <typename Number>
      void cg_update_solution(const Number          x_p,
                              const Number          x_r,
                              const Vector<Number> &inverse_diagonal,
                              const Vector<Number> &r,
                              const Vector<Number> &p,
                              Vector<Number>       &x);

      /**
       * After the operator, over all ranks, in one sweep: p.v, v.v, r.v,
       * r.r, r.Dv, v.Dv, r.Dr. The next residual r - alpha v and its
       * preconditioned norm follow from them before r is updated.
       */
      template <typename Number>
      std::array<double, 7>
      cg_sums_after_vmult(const Vector<Number> &inverse_diagonal,
                          const Vector<Number> &r,
                          const Vector<Number> &p,
                          const Vector<Number> &v);

      /** Iterations of the fused SolverCG run in this process (for tests:
       *  that deal.II's SolverCG picked them). */
      unsigned long long n_fused_cg_iterations();
    } // namespace internal
  }   // namespace GPU

  namespace internal
  {
    namespace SolverCG
    {
      /**
       * deal.II's SolverCG picks its iteration by the vector, matrix and
       * preconditioner types; this one serves GPU::Vector with a
       * DiagonalMatrix and any operator. One sweep before A p (the updates
       * of x, r and p left from the previous iteration) and one after it
       * (seven sums, from which alpha, |r| and the next r.Dr follow)
       * move 88 bytes a DoF in double besides the operator (x is updated
       * every second iteration), against 136 of the generic iteration's
       * seven vector operations. alpha, beta and |r| are those of the
       * generic iteration (up to round-off), so the solver's signals
       * (eigenvalue estimates of PreconditionChebyshev) see the same
       * sequence. The residual vector is one update behind (r of the
       * previous iteration); x is current after the solve.
       */
      template <typename Number, typename MatrixType>
      struct IterationWorker<::dealii::GPU::Vector<Number>,
                             MatrixType,
                             DiagonalMatrix<::dealii::GPU::Vector<Number>>,
                             int>
          : public IterationWorkerBase<
                ::dealii::GPU::Vector<Number>,
                MatrixType,
                DiagonalMatrix<::dealii::GPU::Vector<Number>>>
      {
        using VectorType = ::dealii::GPU::Vector<Number>;
        using Base       = IterationWorkerBase<VectorType,
                                         MatrixType,
                                         DiagonalMatrix<VectorType>>;

        IterationWorker(const MatrixType                 &A,
                        const DiagonalMatrix<VectorType> &preconditioner,
                        const bool                        flexible,
                        VectorMemory<VectorType>         &memory,
                        VectorType                       &x)
            : Base(A, preconditioner, flexible, memory, x)
        {
        }

        void do_iteration(const unsigned int iteration_index)
        {
          // beta = r_{k-1}.D r_{k-1} / r_{k-2}.D r_{k-2}, the first from the
          // sums of the previous iteration (r_{k-1} is formed below).
          if (iteration_index > 1)
          {
            previous_beta = this->beta;
            this->beta    = next_r_dot_preconditioner_dot_r /
                         this->r_dot_preconditioner_dot_r;
          }
          // x is brought up to date every second iteration: at odd k > 1
          // from x_{k-3}, with p_{k-2} = (p_{k-1} - D r_{k-2}) / beta_{k-1}
          // written through the vectors at hand.
          Number x_p = 0, x_r = 0;
          if (iteration_index > 1 && iteration_index % 2 == 1)
            deferred_solution_update(previous_beta, x_p, x_r);
          ::dealii::GPU::internal::cg_update_before_vmult(
              iteration_index == 1,
              this->alpha,
              this->beta,
              x_p,
              x_r,
              this->preconditioner.get_vector(),
              this->x,
              this->r,
              this->p,
              this->v);
          this->A.vmult(this->v, this->p);
          const std::array<double, 7> s =
              ::dealii::GPU::internal::cg_sums_after_vmult(
                  this->preconditioner.get_vector(), this->r, this->p, this->v);
          this->r_dot_preconditioner_dot_r = s[6];
          this->previous_alpha             = this->alpha;
          // p.Ap = 0 only for p = 0, i.e. r = 0: nothing left to add.
          const double alpha = s[0] != 0. ? s[6] / s[0] : 0.;
          this->alpha        = alpha;
          // |r - alpha v|^2 and (r - alpha v).D(r - alpha v); round-off
          // near zero may make them negative.
          this->residual_norm =
              std::sqrt(std::abs(s[3] + alpha * (alpha * s[1] - 2. * s[2])));
          next_r_dot_preconditioner_dot_r =
              std::abs(s[6] + alpha * (alpha * s[5] - 2. * s[4]));
        }

        // After n iterations x is x_{n-1} (n odd) or x_{n-2} (n even).
        void finalize_after_convergence(const unsigned int n_iterations)
        {
          if (n_iterations % 2 == 1)
            this->x.add(this->alpha, this->p);
          else
          {
            // As do_iteration() would one step later, where beta_n is
            // this->beta (p_n and r_{n-1} in memory).
            Number x_p, x_r;
            deferred_solution_update(this->beta, x_p, x_r);
            ::dealii::GPU::internal::cg_update_solution(
                x_p,
                x_r,
                this->preconditioner.get_vector(),
                this->r,
                this->p,
                this->x);
          }
        }

        // x_{k-1} = x_{k-3} + alpha_{k-2} p_{k-2} + alpha_{k-1} p_{k-1},
        // with p_{k-1} and r_{k-2} in memory: the coefficients of p and D r
        // (alpha_{k-1} = this->alpha, alpha_{k-2} = previous_alpha, beta =
        // beta_{k-1}). beta = 0 only for r = 0.
        void deferred_solution_update(const Number beta,
                                      Number      &x_p,
                                      Number      &x_r) const
        {
          const Number ratio =
              beta != Number() ? this->previous_alpha / beta : Number();
          x_p = this->alpha + ratio;
          x_r = -ratio;
        }

        Number previous_beta                   = Number();
        Number next_r_dot_preconditioner_dot_r = Number();
      };
    } // namespace SolverCG
  }   // namespace internal
} // namespace dealii

#endif
