// GPU::MultigridData: the choices of GPU::MultigridPreconditioner
// (smoother, coarse solver, precision of the V-cycle), with their
// ParameterHandler entries.
#ifndef dealii_gpu_multigrid_multigrid_data_h
#define dealii_gpu_multigrid_multigrid_data_h

#include <dealii-gpu/matrix_free/geometry_storage.h>

#include <deal.II/base/parameter_handler.h>

#include <string>

namespace dealii
{
  namespace GPU
  {
    /**
     * What GPU::MultigridPreconditioner builds; the defaults are what
     * benchmarks/multigrid_solve measured fastest to a 1e-8 reduction.
     */
    struct MultigridData
    {
      enum class Smoother
      {
        /** deal.II's PreconditionChebyshev around the inverse diagonal. */
        chebyshev,
        /** Damped Jacobi: x += omega D^-1 (b - A x), smoothing_degree
         *  steps (deal.II's Chebyshev of degree 1, which is this step). */
        jacobi
      };

      enum class CoarseSolver
      {
        /** direct where the coarse level is spread over several MPI ranks
         *  and has at most automatic_direct_max_dofs DoFs, chebyshev
         *  otherwise: measured fastest (doc/benchmarks.md). Chebyshev's
         *  iterations on several ranks each wait for a ghost exchange,
         *  the host solve for one gather; on one rank the two take the
         *  same time, and on larger coarse levels the factorization does
         *  not pay. */
        automatic,
        /** Chebyshev iteration to coarse_reduction, its degree from the
         *  estimated spectrum. */
        chebyshev,
        /** CG with the inverse diagonal to coarse_reduction, on the device. */
        cg_jacobi,
        /** CG with Trilinos ML AMG to coarse_reduction, on the host
         *  (GPU::MGCoarseGridAMG; matrix assembled once). */
        amg,
        /** An exact solve on the host by Trilinos' Amesos KLU
         *  (GPU::MGCoarseGridDirect; matrix factorized once). */
        direct
      };

      enum class Precision
      {
        /** Levels, transfer and smoothers in float inside a solver in
         *  double. */
        single_precision,
        double_precision
      };

      Smoother smoother = Smoother::chebyshev;
      /** Chebyshev: the polynomial degree; Jacobi: the number of steps. */
      unsigned int smoothing_degree = 5;
      /** Chebyshev acts on eigenvalues in [max / range, max]. */
      double smoothing_range = 20.;
      /** Jacobi's omega; 0 takes 4 / (3 lambda_max) from the estimated
       *  largest eigenvalue of D^-1 A (damps its upper half). */
      double       jacobi_relaxation = 0.;
      CoarseSolver coarse_solver     = CoarseSolver::automatic;
      /** The largest coarse level CoarseSolver::automatic solves directly. */
      static constexpr unsigned int automatic_direct_max_dofs = 2000;
      /** The coarse solver reduces the coarse residual by this factor. */
      double    coarse_reduction = 1e-3;
      Precision precision        = Precision::single_precision;
      /** For FE_Q(k), k >= 2: levels in FE_Q(1), reached from FE_Q(k) on
       *  the active cells by one p-transfer (GPU::MGTransferP). */
      bool p_coarsening = false;
      /** How the level operators keep the cell geometry (see
       *  GPU::GeometryStorage): automatic takes the mapping field at Q1-Q2
       *  (levels have no hanging nodes), above that the Jacobians merged
       *  with a(x) into one tensor a point where the operator has no
       *  reaction term and the cells are curved (GPU::LaplaceOperator),
       *  stored Jacobians otherwise. */
      GeometryStorage geometry = GeometryStorage::automatic;

      /** Entries "Smoother", "Smoothing degree", "Smoothing range",
       *  "Jacobi relaxation", "Coarse solver", "Coarse reduction",
       *  "V-cycle precision", "p-coarsening", "Geometry storage" in the
       *  current subsection. */
      static void declare_parameters(ParameterHandler &prm);

      void parse_parameters(const ParameterHandler &prm);

      /** E.g. "chebyshev(5), coarse amg, float" (the geometry where it is
       *  not automatic). */
      std::string description() const;

      /**
       * Set deal.II's PreconditionChebyshev::AdditionalData @p chebyshev of
       * a smoothing level (preconditioner left alone): Chebyshev of
       * smoothing_degree, or damped Jacobi as its degree-1 case (theta =
       * 1 / omega: omega given, or from the estimated spectrum with range
       * 2). Returns the smoothing steps per pre- or post-smoothing.
       */
      template <typename ChebyshevData>
      unsigned int set_smoother_data(ChebyshevData &chebyshev) const
      {
        if (smoother == Smoother::chebyshev)
        {
          chebyshev.degree              = smoothing_degree;
          chebyshev.smoothing_range     = smoothing_range;
          chebyshev.eig_cg_n_iterations = 10;
          return 1;
        }
        chebyshev.degree = 1;
        if (jacobi_relaxation > 0)
        {
          // [max / range, max] with max = 2 / omega and a range so wide
          // that its lower end vanishes.
          chebyshev.eig_cg_n_iterations = 0;
          chebyshev.max_eigenvalue      = 2. / jacobi_relaxation;
          chebyshev.smoothing_range     = 1e12;
        }
        else
        {
          chebyshev.smoothing_range     = 2.;
          chebyshev.eig_cg_n_iterations = 10;
        }
        return smoothing_degree;
      }
    };

    /** "automatic", "chebyshev", "cg", "amg" or "direct" (the names of
     *  the parameter file and of multigrid_solve --coarse). Print
     *  get_additional_data().coarse_solver of an initialized multigrid to
     *  see what automatic took. */
    std::string to_string(const MultigridData::CoarseSolver coarse_solver);
  } // namespace GPU
} // namespace dealii

#endif
