// The two sweeps of SolverCG's iteration on GPU::Vector with a diagonal
// preconditioner (see solver_cg.h), on either backend.
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/solver_cg.h>

#include <deal.II/base/array_view.h>
#include <deal.II/base/mpi.h>

#include <atomic>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      namespace
      {
        std::atomic<unsigned long long> fused_iterations{0};

        template <typename Number>
        void check_sizes(const Vector<Number> &a, const Vector<Number> &b)
        {
          AssertThrow(a.locally_owned_size() == b.locally_owned_size(),
                      ExcMessage("SolverCG: vectors of " +
                                 std::to_string(a.locally_owned_size()) +
                                 " and " +
                                 std::to_string(b.locally_owned_size()) +
                                 " locally owned entries (the operator's "
                                 "inverse diagonal and the solution must "
                                 "have one layout)"));
        }
      } // namespace

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
                                  const Vector<Number> &v)
      {
        check_sizes(inverse_diagonal, r);
        check_sizes(x, r);
        check_sizes(p, r);
        check_sizes(v, r);
        // Owned entries change behind the vectors' backs: ghosts a caller
        // left would be stale.
        for (Vector<Number> *vector : {&x, &r, &p})
          if (vector->has_ghost_elements())
            vector->zero_out_ghost_values();
        const Number     *d  = inverse_diagonal.get_values();
        Number           *xv = x.get_values();
        Number           *rv = r.get_values();
        Number           *pv = p.get_values();
        const Number     *vv = v.get_values();
        const std::size_t n  = r.locally_owned_size();
        if (first_iteration)
          parallel_for("SolverCG: p = D r",
                       n,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                       { pv[i] = d[i] * rv[i]; });
        else if (x_p == Number() && x_r == Number())
          parallel_for("SolverCG: r and p updates",
                       n,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                       {
                         const Number ri = rv[i] - alpha * vv[i];
                         rv[i]           = ri;
                         pv[i]           = d[i] * ri + beta * pv[i];
                       });
        else
          parallel_for("SolverCG: x, r and p updates",
                       n,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                       {
                         const Number pi = pv[i], di = d[i], ri = rv[i];
                         xv[i] += x_p * pi + x_r * (di * ri);
                         const Number r_new = ri - alpha * vv[i];
                         rv[i]              = r_new;
                         pv[i]              = di * r_new + beta * pi;
                       });
      }

      template <typename Number>
      void cg_update_solution(const Number          x_p,
                              const Number          x_r,
                              const Vector<Number> &inverse_diagonal,
                              const Vector<Number> &r,
                              const Vector<Number> &p,
                              Vector<Number>       &x)
      {
        check_sizes(inverse_diagonal, r);
        check_sizes(x, r);
        check_sizes(p, r);
        if (x.has_ghost_elements())
          x.zero_out_ghost_values();
        const Number *d  = inverse_diagonal.get_values();
        const Number *rv = r.get_values();
        const Number *pv = p.get_values();
        Number       *xv = x.get_values();
        parallel_for("SolverCG: x update",
                     x.locally_owned_size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     { xv[i] += x_p * pv[i] + x_r * (d[i] * rv[i]); });
      }

      template <typename Number>
      std::array<double, 7>
      cg_sums_after_vmult(const Vector<Number> &inverse_diagonal,
                          const Vector<Number> &r,
                          const Vector<Number> &p,
                          const Vector<Number> &v)
      {
        check_sizes(inverse_diagonal, r);
        check_sizes(p, r);
        check_sizes(v, r);
        const Number         *d    = inverse_diagonal.get_values();
        const Number         *rv   = r.get_values();
        const Number         *pv   = p.get_values();
        const Number         *vv   = v.get_values();
        std::array<double, 7> sums = parallel_sums<7>(
            "SolverCG: sums",
            r.locally_owned_size(),
            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i, double *s)
            {
              const double di = d[i], ri = rv[i], pi = pv[i], vi = vv[i];
              const double dv = di * vi;
              s[0] += pi * vi;
              s[1] += vi * vi;
              s[2] += ri * vi;
              s[3] += ri * ri;
              s[4] += ri * dv;
              s[5] += vi * dv;
              s[6] += ri * di * ri;
            });
        ++fused_iterations;
        Utilities::MPI::sum(ArrayView<const double>(sums.data(), sums.size()),
                            r.get_mpi_communicator(),
                            ArrayView<double>(sums.data(), sums.size()));
        return sums;
      }

      unsigned long long n_fused_cg_iterations()
      {
        return fused_iterations.load();
      }

#define DEALII_GPU_INSTANTIATE(Number)                                           \
  template void                  cg_update_before_vmult(const bool,              \
                                                        const Number,            \
                                                        const Number,            \
                                                        const Number,            \
                                                        const Number,            \
                                                        const Vector<Number> &,  \
                                                        Vector<Number> &,        \
                                                        Vector<Number> &,        \
                                                        Vector<Number> &,        \
                                                        const Vector<Number> &); \
  template void                  cg_update_solution(const Number,                \
                                                    const Number,                \
                                                    const Vector<Number> &,      \
                                                    const Vector<Number> &,      \
                                                    const Vector<Number> &,      \
                                                    Vector<Number> &);           \
  template std::array<double, 7> cg_sums_after_vmult(const Vector<Number> &,     \
                                                     const Vector<Number> &,     \
                                                     const Vector<Number> &,     \
                                                     const Vector<Number> &);
      DEALII_GPU_INSTANTIATE(float)
      DEALII_GPU_INSTANTIATE(double)
#undef DEALII_GPU_INSTANTIATE
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
