// GPU::SparseMatrixMultigrid: geometric multigrid in which every level
// operator and grid transfer is a sparse matrix assembled on the device
// (Geveler et al.'s design), for any quadrature-point operation that
// GPU::ElementIntegrator assembles. Include from .cu files.
#ifndef dealii_gpu_multigrid_sparse_matrix_multigrid_h
#define dealii_gpu_multigrid_sparse_matrix_multigrid_h

#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/integration/element_integrator.h>
#include <dealii-gpu/lac/sparse_approximate_inverse.h>
#include <dealii-gpu/lac/sparse_matrix.h>
#include <dealii-gpu/multigrid/mg_coarse_amg.h>
#include <dealii-gpu/multigrid/mg_transfer_sparse_matrix.h>
#include <dealii-gpu/multigrid/multigrid_data.h>
#include <dealii-gpu/multigrid/multigrid_hierarchy.h>
#include <dealii-gpu/multigrid/sparse_matrix_multigrid_data.h>
#include <dealii-gpu/operators/matrix_free_backend.h>

#include <deal.II/base/quadrature.h>
#include <deal.II/lac/diagonal_matrix.h>

#include <memory>
#include <set>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** m_i = a_ii / sum_j a_ij^2 over the locally owned rows of @p
       *  matrix (1 for an empty row), in a vector of its layout. */
      template <typename Number>
      void compute_spai0(const SparseMatrix<Number> &matrix,
                         Vector<Number>             &spai)
      {
        matrix.initialize_dof_vector(spai);
        const unsigned int *offsets = matrix.row_offsets();
        const unsigned int *columns = matrix.column_indices();
        const Number       *values  = matrix.values();
        Number             *m       = spai.get_values();
        parallel_for("SparseLevelOperator::compute_spai0",
                     matrix.local_size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t r)
                     {
                       Number diagonal = 0, sum = 0;
                       for (unsigned int k = offsets[r]; k < offsets[r + 1];
                            ++k)
                       {
                         sum += values[k] * values[k];
                         if (columns[k] == r)
                           diagonal = values[k];
                       }
                       m[r] = sum > Number() ? diagonal / sum : Number(1);
                     });
      }

      /**
       * What a smoothing step of the sparse-matrix multigrid applies to the
       * residual: a diagonal (Jacobi, SPAI(0)) or a
       * GPU::SparseApproximateInverse.
       */
      template <typename Number>
      class SparseSmootherPreconditioner : public Subscriptor
      {
      public:
        using VectorType = Vector<Number>;
        using size_type  = types::global_dof_index;

        void vmult(VectorType &dst, const VectorType &src) const
        {
          if (use_sparse)
            sparse.vmult(dst, src);
          else
            diagonal.vmult(dst, src);
        }

        void Tvmult(VectorType &dst, const VectorType &src) const
        {
          vmult(dst, src);
        }

        size_type m() const { return use_sparse ? sparse.m() : diagonal.m(); }

        DiagonalMatrix<VectorType>       diagonal;
        SparseApproximateInverse<Number> sparse;
        bool                             use_sparse = false;
      };

      /**
       * A multigrid level operator held as a GPU::SparseMatrix: the
       * element matrices of an operation on the level's cells, assembled
       * with the level constraints (Dirichlet rows and columns hold only
       * their diagonal, as deal.II's distribute_local_to_global() leaves
       * them).
       */
      template <int dim, int n_components, typename Number>
      class SparseLevelOperator : public Subscriptor
      {
      public:
        using VectorType = Vector<Number>;
        using value_type = Number;
        using size_type  = types::global_dof_index;
        using Integrator = ElementIntegrator<dim, n_components, Number>;
        using SmootherPreconditioner = SparseSmootherPreconditioner<Number>;

        /** Assemble the matrix of @p operation on level @p level (the
         *  element data is dropped afterwards). */
        template <typename Operation>
        void reinit(const Mapping<dim>                 &mapping,
                    const DoFHandler<dim>              &dof_handler,
                    const AffineConstraints<double>    &level_constraints,
                    const Operation                    &operation,
                    const Quadrature<dim>              &quadrature,
                    const unsigned int                  level,
                    const SparseMatrixMultigridData    &multigrid_data = {},
                    typename Integrator::AdditionalData data           = {})
        {
          preconditioner = multigrid_data.preconditioner;
          coarse         = level == 0;
          setup_timer    = SetupTimer("GPU::SparseMatrixMultigrid level " +
                                   std::to_string(level));
          data.mg_level  = level;
          Integrator integrator;
          integrator.reinit(mapping, dof_handler, quadrature, data);
          setup_timer.add(integrator.get_timer());
          integrator.initialize_matrix(level_constraints, matrix);
          setup_timer.add(integrator.get_timer());
          integrator.assemble(operation, matrix);
          setup_timer.add(integrator.get_timer());
          matrix.set_spmv(static_cast<typename SparseMatrix<Number>::SpMV>(
              multigrid_data.spmv));
        }

        void vmult(VectorType &dst, const VectorType &src) const
        {
          matrix.vmult(dst, src);
        }

        void Tvmult(VectorType &dst, const VectorType &src) const
        {
          matrix.Tvmult(dst, src);
        }

        void initialize_dof_vector(VectorType &vector) const
        {
          matrix.initialize_dof_vector(vector);
        }

        /** What the smoother applies to the residual: the inverse of the
         *  matrix's diagonal (1 where it is zero) or SPAI(0) (see
         *  SparseMatrixMultigridData). */
        void compute_inverse_diagonal(VectorType &inverse_diagonal) const
        {
          if (preconditioner ==
              SparseMatrixMultigridData::SmootherPreconditioner::spai0)
          {
            compute_spai0(matrix, inverse_diagonal);
            return;
          }
          matrix.compute_diagonal(inverse_diagonal);
          Number *d = inverse_diagonal.get_values();
          parallel_for("SparseLevelOperator::compute_inverse_diagonal",
                       inverse_diagonal.locally_owned_size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i) {
                         d[i] = d[i] != Number() ? Number(1) / d[i] : Number(1);
                       });
        }

        /** The smoother's preconditioner (SparseMatrixMultigridData::
         *  preconditioner) with the local rows @p edge_rows as identity
         *  rows (refinement edge). */
        std::shared_ptr<SmootherPreconditioner> make_smoother_preconditioner(
            const std::vector<unsigned int> &edge_rows) const
        {
          auto result = std::make_shared<SmootherPreconditioner>();
          if (preconditioner ==
                  SparseMatrixMultigridData::SmootherPreconditioner::spai &&
              !coarse)
          {
            result->use_sparse = true;
            result->sparse.reinit(matrix, edge_rows);
            return result;
          }
          auto &diagonal = result->diagonal.get_vector();
          compute_inverse_diagonal(diagonal);
          Array<unsigned int> rows;
          rows.copy_from(edge_rows);
          fill_entries(rows, Number(1), diagonal.get_values());
          return result;
        }

        size_type m() const { return matrix.m(); }
        size_type n() const { return matrix.n(); }

        /** Entry (i, j) of a locally owned row (slow: for tests). */
        value_type el(const size_type i, const size_type j) const
        {
          return matrix.el(i, j);
        }

        const SparseMatrix<Number> &get_matrix() const { return matrix; }

        /** The kernel of vmult() (see SparseMatrix::SpMV). */
        void set_spmv(const typename SparseMatrix<Number>::SpMV spmv) const
        {
          matrix.set_spmv(spmv);
        }

        const SetupTimer &get_setup_timer() const { return setup_timer; }

        std::size_t memory_consumption() const
        {
          return matrix.memory_consumption();
        }

      private:
        // mutable for set_spmv(): the kernel choice, not the operator.
        mutable SparseMatrix<Number>                      matrix;
        SparseMatrixMultigridData::SmootherPreconditioner preconditioner =
            SparseMatrixMultigridData::SmootherPreconditioner::jacobi;
        bool       coarse = false;
        SetupTimer setup_timer;
      };

      /** The level operator and transfer of SparseMatrixMultigrid by number
       *  type. */
      template <int dim, int n_components>
      struct SparseMultigridTypes
      {
        template <typename Number>
        using LevelOperator = SparseLevelOperator<dim, n_components, Number>;
        template <typename Number>
        using Transfer = MGTransferSparseMatrix<dim, Number>;
      };
    } // namespace internal

    /**
     * Geometric multigrid for the matrix that GPU::ElementIntegrator
     * assembles from @p Operation on FE_Q(k) or FESystem(FE_Q(k),
     * n_components), with zero Dirichlet values on the given boundary ids:
     * every level's operator is a GPU::SparseMatrix assembled on the device
     * from the level's cells, the transfer is GPU::MGTransferSparseMatrix
     * (prolongation and restriction as CSR products), smoothing is
     * Chebyshev or damped Jacobi around the matrices' diagonals, SPAI(0) or
     * SPAI(1) (SparseMatrixMultigridData::preconditioner), and the coarse
     * solver Chebyshev, CG-Jacobi, or CG with Trilinos ML AMG or a direct
     * solve on the host (MultigridData), all in deal.II's
     * Multigrid and PreconditionMG. The V-cycle runs in float (default) or
     * double (MultigridData::precision). It is the path for operations
     * without a matrix-free form and the reference for
     * GPU::MatrixFreeMultigrid, which takes the same operation.
     *
     * Uniform and adaptively refined meshes (local smoothing, interface
     * matrices as for the matrix-free levels), MPI with p4est. The degree
     * is the element's, a run-time value.
     *
     * @code
     * GPU::SparseMatrixMultigrid<dim, 1, Operation> multigrid;
     * multigrid.initialize(mapping, dof_handler, {0}, operation);
     * cg.solve(system_matrix, u, f, multigrid);
     * @endcode
     */
    template <int dim, int n_components, typename Operation>
    class SparseMatrixMultigrid
        : public internal::MultigridFrontEnd<
              dim,
              internal::SparseMultigridTypes<dim, n_components>::
                  template LevelOperator,
              internal::SparseMultigridTypes<dim,
                                             n_components>::template Transfer>
    {
      using Types = internal::SparseMultigridTypes<dim, n_components>;

    public:
      using AdditionalData = SparseMatrixMultigridData;

      template <typename Number>
      using LevelOperator = typename Types::template LevelOperator<Number>;

      template <typename Number>
      using Transfer = typename Types::template Transfer<Number>;

      SparseMatrixMultigrid()
          : internal::MultigridFrontEnd<dim,
                                        Types::template LevelOperator,
                                        Types::template Transfer>(
                "SparseMatrixMultigrid")
      {
      }

      /**
       * Assemble the level matrices, build the transfer matrices, the
       * smoothers (eigenvalues estimated here) and the coarse solver. The
       * element matrices use @p quadrature with degree + 1 points per
       * direction, or @p n_q_points_1d if not zero.
       */
      void
      initialize(const Mapping<dim>                 &mapping,
                 const DoFHandler<dim>              &dof_handler,
                 const std::set<types::boundary_id> &dirichlet_boundary_ids,
                 const Operation                    &operation,
                 const AdditionalData &additional_data = AdditionalData(),
                 const QuadratureRule  quadrature      = QuadratureRule::gauss,
                 const unsigned int    n_q_points_1d   = 0)
      {
        internal::check_multigrid_input(dof_handler, additional_data, true);
        AssertThrow(!additional_data.p_coarsening,
                    ExcMessage("SparseMatrixMultigrid has no p-coarsening"));
        const bool spai = additional_data.preconditioner ==
                          AdditionalData::SmootherPreconditioner::spai;
        AssertThrow(!spai || additional_data.smoother ==
                                 AdditionalData::Smoother::jacobi,
                    ExcMessage("SparseMatrixMultigrid: SPAI(1) goes with the "
                               "jacobi smoother (Richardson steps); the "
                               "Chebyshev smoother's eigenvalue estimate needs "
                               "a positive definite preconditioner, which "
                               "symmetrized SPAI(1) is not always"));
        data = additional_data;
        static_cast<MultigridData &>(data) =
            internal::resolve_coarse_solver(dof_handler, additional_data);
        if (spai && data.jacobi_relaxation == 0.)
          data.jacobi_relaxation = 1.;
        const unsigned int n_points =
            n_q_points_1d > 0 ? n_q_points_1d : dof_handler.get_fe().degree + 1;
        const Quadrature<dim> rule(make_quadrature(quadrature, n_points));
        this->initialize_hierarchy(
            dof_handler,
            dirichlet_boundary_ids,
            data,
            [&](auto                            &op,
                const AffineConstraints<double> &level_constraints,
                const unsigned int               level)
            {
              op.reinit(mapping,
                        dof_handler,
                        level_constraints,
                        operation,
                        rule,
                        level,
                        data);
            },
            [&](const auto &coarse_operator)
            {
              using Number =
                  typename std::decay_t<decltype(coarse_operator)>::value_type;
              TrilinosWrappers::SparseMatrix matrix;
              coarse_operator.get_matrix().copy_to(matrix);
              return internal::
                  make_host_coarse_solver<dim, Number, Vector<Number>>(
                      matrix, dof_handler, 0, data);
            });
        if (data.precision == MultigridData::Precision::double_precision)
          set_restriction<double>(data.restriction);
        else
          set_restriction<float>(data.restriction);
      }

      /** The kernel of the restriction (see
       *  MGTransferSparseMatrix::Restriction). */
      template <typename Number>
      void set_restriction(
          const typename MGTransferSparseMatrix<2, double>::Restriction kind)
      {
        this->template get_hierarchy<Number>().get_transfer().set_restriction(
            static_cast<typename Transfer<Number>::Restriction>(kind));
      }

      /** The kernel of every level matrix's product (CSR through
       *  cuSPARSE by default, or this library's CSR or ELLPACK-R). */
      template <typename Number>
      void set_spmv(const typename SparseMatrix<Number>::SpMV spmv)
      {
        const auto &hierarchy = this->template get_hierarchy<Number>();
        for (unsigned int l = 0; l < hierarchy.n_levels(); ++l)
          hierarchy.get_level_operator(l).set_spmv(spmv);
      }

      /** The data of initialize(), the automatic coarse solver replaced by
       *  the one taken (GPU::to_string() names it). */
      const AdditionalData &get_additional_data() const { return data; }

    private:
      AdditionalData data;
    };
  } // namespace GPU
} // namespace dealii

#endif
