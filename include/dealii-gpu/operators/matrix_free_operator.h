// GPU::MatrixFreeOperator: a matrix-free operator defined by one
// quadrature-point operation, applied through deal.II's CPU MatrixFree or
// through GPU::MatrixFree. Include from .cu files.
#ifndef dealii_gpu_operators_matrix_free_operator_h
#define dealii_gpu_operators_matrix_free_operator_h

#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/operators/matrix_free_backend.h>
#include <dealii-gpu/operators/quadrature_operation.h>

#include <deal.II/base/quadrature_lib.h>
#include <deal.II/base/subscriptor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/tools.h>

#include <functional>
#include <string>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    /**
     * A matrix-free operator u -> A u of FE_Q(degree) (FESystem(FE_Q(degree),
     * n_components) for vector fields) whose weak form is given at one
     * quadrature point by @p Operation. The same class runs on deal.II's
     * CPU MatrixFree or on GPU::MatrixFree (@p backend), so a program gets
     * both from one definition of its physics.
     *
     * An Operation is a class (copied to the device as it is: numbers,
     * tensors, device functions; no pointers to host memory) with
     * @code
     * static constexpr EvaluationFlags::EvaluationFlags evaluation_flags = ...;
     * // optional: integration_flags (default: evaluation_flags),
     * // uses_quadrature_points, is_symmetric (default: false), adjoint()
     * DEAL_II_GPU_PORTABLE_TEMPLATE
     * template <typename Evaluator>
     * DEAL_II_GPU_HOST_DEVICE void operator()(Evaluator &phi,
     *                                         const unsigned int q) const
     * {
     *   phi.submit_gradient(phi.get_gradient(q), q);
     *   phi.submit_value(c * phi.get_value(q), q);
     * }
     * @endcode
     * Evaluator is deal.II's FEEvaluation on the CPU (numbers are
     * VectorizedArray) and GPU::FEEvaluation on the GPU; both have get_value,
     * get_gradient, get_divergence, get_symmetric_gradient,
     * quadrature_point and the matching submit functions. Which thread
     * layout and geometry form run it on the GPU is the library's choice
     * (AdditionalData overrides it). operations.h has the provided ones.
     *
     * Constrained rows act as identity (vmult copies src there), as in
     * deal.II's MatrixFreeOperators, so CG with zero boundary values keeps
     * them; hanging-node constraints are resolved in the cell loop.
     */
    template <int dim,
              int degree,
              int n_components,
              typename Number,
              typename Operation,
              MatrixFreeBackend backend       = MatrixFreeBackend::gpu,
              int               n_q_points_1d = degree + 1>
    class MatrixFreeOperator : public Subscriptor
    {
    public:
      using value_type = Number;
      using VectorType =
          std::conditional_t<backend == MatrixFreeBackend::gpu,
                             Vector<Number>,
                             LinearAlgebra::distributed::Vector<Number>>;
      using size_type = types::global_dof_index;
      /** The matrix-free data of the backend. */
      using MatrixFreeType =
          std::conditional_t<backend == MatrixFreeBackend::gpu,
                             GPU::MatrixFree<dim, Number>,
                             dealii::MatrixFree<dim, Number>>;
      /** deal.II's evaluator the CPU backend hands to the operation. */
      using CPUEvaluation = dealii::
          FEEvaluation<dim, degree, n_q_points_1d, n_components, Number>;

      static constexpr MatrixFreeBackend backend_type = backend;

      struct AdditionalData
      {
        QuadratureRule quadrature = QuadratureRule::gauss;
        /** A multigrid level's operator (level DoFs, level constraints). */
        unsigned int mg_level = numbers::invalid_unsigned_int;
        /** GPU backend: the geometry form; automatic takes what
         *  doc/benchmarks.md measured fastest for the cells. */
        GeometryStorage geometry = GeometryStorage::automatic;
        /** GPU backend: one thread per quadrature point or per cell. */
        CellThreads cell_threads = CellThreads::automatic;
        /** GPU backend: colors instead of atomic additions. */
        bool use_coloring = false;
        /** Overlap ghost exchange and cell work (both backends). */
        bool overlap_communication_computation = true;
        /** GPU backend, a level operator: the system operator's geometry
         *  to take where it holds the level's (see
         *  GPU::MatrixFree::AdditionalData::geometry_source). */
        internal::GeometryFieldSource<dim> geometry_source;
      };

      /**
       * Build the data of the backend. The element must be FE_Q(degree) or
       * FESystem(FE_Q(degree), n_components); anything else throws.
       */
      template <typename ConstraintNumber>
      void reinit(const Mapping<dim>                        &mapping,
                  const DoFHandler<dim>                     &dof_handler,
                  const AffineConstraints<ConstraintNumber> &constraints,
                  const Operation      &new_operation   = Operation(),
                  const AdditionalData &additional_data = AdditionalData())
      {
        const FiniteElement<dim> &fe = dof_handler.get_fe();
        AssertThrow(fe.degree == degree && fe.n_components() == n_components &&
                        fe.n_base_elements() == 1 &&
                        fe.base_element(0).get_name().rfind("FE_Q<", 0) == 0,
                    ExcNotSupportedByMatrixFree(
                        "MatrixFreeOperator<dim, " + std::to_string(degree) +
                        ", " + std::to_string(n_components) + "> got " +
                        fe.get_name() + "; it needs FE_Q(" +
                        std::to_string(degree) + ")" +
                        (n_components > 1
                             ? " in an FESystem of " +
                                   std::to_string(n_components) + " components"
                             : std::string())));
        operation = new_operation;
        tmp.reinit(0);
        const Quadrature<1> quadrature =
            make_quadrature(additional_data.quadrature, n_q_points_1d);
        UpdateFlags flags = update_gradients | update_JxW_values;
        if (internal::uses_quadrature_points<Operation>::value)
          flags |= update_quadrature_points;
        if constexpr (backend == MatrixFreeBackend::gpu)
        {
          typename MatrixFreeType::AdditionalData data(
              flags,
              additional_data.use_coloring,
              additional_data.mg_level,
              0,
              additional_data.overlap_communication_computation,
              additional_data.geometry);
          data.cell_threads    = additional_data.cell_threads;
          data.geometry_source = additional_data.geometry_source;
          matrix_free.reinit(
              mapping, dof_handler, constraints, quadrature, data);
          setup_timer = matrix_free.get_setup_timer();
        }
        else
        {
          setup_timer.clear();
          setup_timer.start("deal.II MatrixFree");
          typename MatrixFreeType::AdditionalData data;
          data.mapping_update_flags = flags;
          data.mg_level             = additional_data.mg_level;
          data.tasks_parallel_scheme =
              MatrixFreeType::AdditionalData::TasksParallelScheme::none;
          matrix_free.reinit(
              mapping, dof_handler, constraints, quadrature, data);
          setup_timer.stop();
        }
      }

      /** Change the operation's coefficients; the data stay. */
      void set_operation(const Operation &new_operation)
      {
        operation = new_operation;
      }

      const Operation &get_operation() const { return operation; }

      void initialize_dof_vector(VectorType &vector) const
      {
        matrix_free.initialize_dof_vector(vector);
      }

      /** dst = A src (constrained rows: dst = src). */
      void vmult(VectorType &dst, const VectorType &src) const
      {
        apply(operation, dst, src, false);
      }

      /** dst += A src. */
      void vmult_add(VectorType &dst, const VectorType &src) const
      {
        apply(operation, dst, src, true);
      }

      /**
       * dst = the operator of @p other_operation on this operator's data
       * (mesh, element, quadrature, constraints; constrained rows dst =
       * src), e.g. a right-hand side with SourceOperation and src = 0. An
       * operation that uses the quadrature points needs an Operation that
       * uses them too (the data keep them only then).
       */
      template <typename OtherOperation>
      void apply_operation(const OtherOperation &other_operation,
                           VectorType           &dst,
                           const VectorType     &src) const
      {
        AssertThrow(
            !internal::uses_quadrature_points<OtherOperation>::value ||
                internal::uses_quadrature_points<Operation>::value,
            ExcMessage("apply_operation: this operation needs the "
                       "quadrature points, which the operator's data do "
                       "not keep (its Operation does not use them)"));
        apply(other_operation, dst, src, false);
      }

      /** dst = A^T src: vmult for a symmetric operation, else the
       *  operation's adjoint(); throws if it has neither. */
      void Tvmult(VectorType &dst, const VectorType &src) const
      {
        apply_transpose(dst, src, false);
      }

      void Tvmult_add(VectorType &dst, const VectorType &src) const
      {
        apply_transpose(dst, src, true);
      }

      /** The diagonal of A (1 on constrained rows), computed cell by cell
       *  from the same operation (GPU: FEEvaluation::compute_diagonal). */
      void compute_diagonal(VectorType &diagonal) const
      {
        if constexpr (backend == MatrixFreeBackend::gpu)
        {
          initialize_dof_vector(diagonal);
          matrix_free.cell_loop(
              QuadratureOperationDiagonalCell<dim,
                                              degree,
                                              n_q_points_1d,
                                              n_components,
                                              Number,
                                              Operation>{operation},
              diagonal,
              diagonal);
          matrix_free.set_constrained_values(Number(1), diagonal);
        }
        else
        {
          constexpr auto eval = Operation::evaluation_flags;
          constexpr auto integ =
              internal::integration_flags_of<Operation>::value;
          const Operation op = operation;
          // deal.II 9.4 adds into the vector as it is.
          initialize_dof_vector(diagonal);
          MatrixFreeTools::compute_diagonal<dim,
                                            degree,
                                            n_q_points_1d,
                                            n_components,
                                            Number,
                                            VectorizedArray<Number>,
                                            VectorType>(
              matrix_free,
              diagonal,
              [&op](CPUEvaluation &phi)
              {
                phi.evaluate(eval);
                for (unsigned int q = 0; q < phi.n_q_points; ++q)
                  op(phi, q);
                phi.integrate(integ);
              });
          for (const unsigned int i : matrix_free.get_constrained_dofs())
            diagonal.local_element(i) = Number(1);
        }
      }

      /** Its inverse (1 where the diagonal is zero). */
      void compute_inverse_diagonal(VectorType &inverse_diagonal) const
      {
        compute_diagonal(inverse_diagonal);
        if constexpr (backend == MatrixFreeBackend::gpu)
        {
          Number *d = inverse_diagonal.get_values();
          parallel_for("MatrixFreeOperator::compute_inverse_diagonal",
                       inverse_diagonal.locally_owned_size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i) {
                         d[i] = d[i] != Number() ? Number(1) / d[i] : Number(1);
                       });
        }
        else
          for (auto &d : inverse_diagonal)
            d = d != Number() ? Number(1) / d : Number(1);
      }

      size_type m() const
      {
        return matrix_free.get_vector_partitioner()->size();
      }

      size_type n() const { return m(); }

      /** Not available for a matrix-free operator (deal.II's templates
       *  name it). */
      Number el(const size_type, const size_type) const
      {
        AssertThrow(false,
                    ExcMessage("MatrixFreeOperator is matrix-free: no el()"));
        return Number();
      }

      const MatrixFreeType &get_matrix_free() const { return matrix_free; }

      /** Bytes of the backend's data (device memory on CUDA). */
      std::size_t memory_consumption() const
      {
        return matrix_free.memory_consumption();
      }

      /** Seconds of reinit()'s steps. */
      const SetupTimer &get_setup_timer() const { return setup_timer; }

    private:
      template <typename Op>
      void apply(const Op         &op,
                 VectorType       &dst,
                 const VectorType &src,
                 const bool        add) const
      {
        check_vector(src, "src");
        check_vector(dst, "dst");
        if constexpr (backend == MatrixFreeBackend::gpu)
        {
          const QuadratureOperationCell<dim,
                                        degree,
                                        n_q_points_1d,
                                        n_components,
                                        Number,
                                        Op>
              cell{op};
          // The cell loop adds and skips constrained rows; they get src
          // (identity), so dst += A src needs A src apart.
          VectorType &result = add ? tmp : dst;
          if (add)
            initialize_dof_vector(tmp);
          else
            dst = Number();
          matrix_free.cell_loop(cell, src, result);
          matrix_free.copy_constrained_values(src, result);
          if (add)
            dst += tmp;
        }
        else
        {
          constexpr auto eval  = Op::evaluation_flags;
          constexpr auto integ = internal::integration_flags_of<Op>::value;
          const std::function<void(
              const MatrixFreeType &,
              VectorType &,
              const VectorType &,
              const std::pair<unsigned int, unsigned int> &)>
              cell_operation =
                  [&op](const MatrixFreeType                        &data,
                        VectorType                                  &out,
                        const VectorType                            &in,
                        const std::pair<unsigned int, unsigned int> &range)
          {
            CPUEvaluation phi(data);
            for (unsigned int cell = range.first; cell < range.second; ++cell)
            {
              phi.reinit(cell);
              phi.gather_evaluate(in, eval);
              for (unsigned int q = 0; q < phi.n_q_points; ++q)
                op(phi, q);
              phi.integrate_scatter(integ, out);
            }
          };
          matrix_free.cell_loop(cell_operation, dst, src, !add);
          for (const unsigned int i : matrix_free.get_constrained_dofs())
            if (add)
              dst.local_element(i) += src.local_element(i);
            else
              dst.local_element(i) = src.local_element(i);
        }
      }

      void apply_transpose(VectorType       &dst,
                           const VectorType &src,
                           const bool        add) const
      {
        if constexpr (internal::is_symmetric<Operation>::value)
          apply(operation, dst, src, add);
        else if constexpr (internal::has_adjoint<Operation>::value)
          apply(operation.adjoint(), dst, src, add);
        else
          AssertThrow(false,
                      ExcMessage("Tvmult needs an operation that is "
                                 "symmetric (is_symmetric = true) or "
                                 "gives its adjoint()"));
      }

      void check_vector(const VectorType &vector, const char *name) const
      {
        const auto &partitioner = matrix_free.get_vector_partitioner();
        AssertThrow(
            vector.size() == partitioner->size() &&
                vector.locally_owned_size() ==
                    partitioner->locally_owned_size(),
            ExcMessage(std::string("MatrixFreeOperator: vector ") + name +
                       " has " + std::to_string(vector.size()) + " entries (" +
                       std::to_string(vector.locally_owned_size()) +
                       " here), the operator " +
                       std::to_string(partitioner->size()) + " (" +
                       std::to_string(partitioner->locally_owned_size()) +
                       " here): use initialize_dof_vector()"));
      }

      MatrixFreeType     matrix_free;
      Operation          operation;
      SetupTimer         setup_timer;
      mutable VectorType tmp;
    };
  } // namespace GPU
} // namespace dealii

#endif
