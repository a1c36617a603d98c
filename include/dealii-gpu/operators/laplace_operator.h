// GPU::LaplaceOperator: the matrix-free operator (A(x) grad u, grad v) +
// (c(x) u, v) on GPU::MatrixFree, in the form deal.II's solvers and
// preconditioners expect (vmult, m, initialize_dof_vector, diagonal).
// Include from .cu files.
#ifndef dealii_gpu_operators_laplace_operator_h
#define dealii_gpu_operators_laplace_operator_h

#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/operators/laplace_cell.h>

#include <deal.II/base/subscriptor.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/mapping.h>
#include <deal.II/lac/affine_constraints.h>

#include <functional>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** What a level's LaplaceOperator can take from the system's
       *  (LaplaceOperator::get_level_source()): the geometry and the
       *  coefficients at the quadrature points of the active cells. */
      template <int dim>
      struct LaplaceLevelSource
      {
        GeometryFieldSource<dim> geometry;
        /** Device arrays [cell n_q + q] of the source's cells. */
        const double *diffusion = nullptr;
        const double *reaction  = nullptr;
      };
    } // namespace internal

    /**
     * Matrix-free operator of (A(x) grad u, grad v) + (c(x) u, v) for
     * FE_Q(degree) (n_components copies) on GPU::MatrixFree. Constrained
     * (Dirichlet) rows act as identity: vmult copies src into dst there, as
     * deal.II's MatrixFreeOperators do, so CG with zero boundary values in
     * the right-hand side keeps them.
     */
    template <int dim,
              int degree,
              typename Number  = double,
              int n_components = 1>
    class LaplaceOperator : public Subscriptor
    {
    public:
      using value_type = Number;
      using VectorType = Vector<Number>;
      using size_type  = types::global_dof_index;

      /**
       * Build the data; A and c are evaluated at the quadrature points (an
       * empty c means no reaction term) and stored, one number a point
       * each. @p geometry is GPU::MatrixFree's form of the geometry; the
       * automatic choice takes the mapping field where it is fastest (Q1
       * and Q2 in 3D without hanging nodes), stored Jacobians elsewhere.
       *
       * With @p merge_geometry, where the Jacobians are stored, the cells
       * are not all affine and there is no c, A and the geometry are
       * merged into one symmetric tensor a det(J) w J^{-1} J^{-T} a point
       * (LaplaceTensorCell) and the Jacobians released: dim (dim + 1) / 2
       * numbers a point instead of dim * dim + 2, and fewer to read a
       * vmult. get_matrix_free() then runs only cell functors that use no
       * geometry, so GPU::MultigridPreconditioner merges its level
       * operators, not a user's system operator. (On affine cells the
       * kernels read one inverse Jacobian a cell, less than the tensor.)
       *
       * A level operator (@p mg_level) whose cells are all active takes
       * its geometry and its A and c at the quadrature points from
       * @p source, the system operator's get_level_source(), on the device
       * where the source holds them (built on the same mapping, DoFHandler
       * and A and c); elsewhere @p source is ignored.
       */
      template <typename ConstraintNumber>
      void
      reinit(const Mapping<dim>                              &mapping,
             const DoFHandler<dim>                           &dof_handler,
             const AffineConstraints<ConstraintNumber>       &constraints,
             const std::function<double(const Point<dim> &)> &diffusion,
             const std::function<double(const Point<dim> &)> &reaction = {},
             const unsigned int    mg_level     = numbers::invalid_unsigned_int,
             const bool            use_coloring = false,
             const GeometryStorage geometry     = GeometryStorage::automatic,
             const bool            merge_geometry            = false,
             const internal::LaplaceLevelSource<dim> &source = {})
      {
        typename MatrixFree<dim, Number>::AdditionalData data(
            update_gradients | update_JxW_values | update_quadrature_points,
            use_coloring,
            mg_level);
        data.geometry = geometry;
        // Coefficients taken from the source need no points.
        const bool coefficients_from_source =
            mg_level != numbers::invalid_unsigned_int &&
            source.diffusion != nullptr &&
            bool(reaction) == (source.reaction != nullptr);
        data.geometry_source                   = source.geometry;
        data.geometry_source.points_not_needed = coefficients_from_source;
        matrix_free.reinit(
            mapping, dof_handler, constraints, QGauss<1>(degree + 1), data);
        setup_timer = matrix_free.get_setup_timer();
        setup_timer.start("coefficients");
        coefficients        = LaplaceCoefficients<Number>();
        const auto evaluate = [&](const auto    &function,
                                  const double  *from_source,
                                  Array<Number> &values)
        {
          if (coefficients_from_source &&
              matrix_free.has_cells_of_geometry_source())
            matrix_free.gather_from_geometry_source(from_source, values);
          else
            matrix_free.evaluate_coefficient([&](const Point<dim> &p)
                                             { return Number(function(p)); },
                                             values);
        };
        evaluate(diffusion, source.diffusion, diffusion_values);
        coefficients.diffusion = diffusion_values.data();
        if (reaction)
        {
          evaluate(reaction, source.reaction, reaction_values);
          coefficients.reaction = reaction_values.data();
        }
        // The field's kernels compute the points they need.
        matrix_free.release_quadrature_points();
        merged =
            merge_geometry && !reaction &&
            matrix_free.get_geometry_storage() == GeometryStorage::jacobians &&
            matrix_free.get_data().affine_cells == 0;
        diffusion_tensor.clear();
        if (merged)
        {
          matrix_free.evaluate_diffusion_tensor(diffusion_values,
                                                diffusion_tensor);
          matrix_free.release_geometry();
          diffusion_values.clear();
          coefficients.diffusion = nullptr;
        }
        setup_timer.stop();
      }

      /** Seconds of reinit()'s steps: GPU::MatrixFree's and the
       *  coefficients'. */
      const SetupTimer &get_setup_timer() const { return setup_timer; }

      void initialize_dof_vector(VectorType &vector) const
      {
        matrix_free.initialize_dof_vector(vector);
      }

      /** dst = A src (constrained rows: dst = src). */
      void vmult(VectorType &dst, const VectorType &src) const
      {
        dst = Number();
        if (merged)
          matrix_free.cell_loop(
              LaplaceTensorCell<dim, degree, n_components, Number>{
                  {diffusion_tensor.data()}},
              src,
              dst);
        else
          matrix_free.cell_loop(
              LaplaceCell<dim, degree, n_components, Number>{coefficients},
              src,
              dst);
        matrix_free.copy_constrained_values(src, dst);
      }

      void Tvmult(VectorType &dst, const VectorType &src) const
      {
        vmult(dst, src);
      }

      void Tvmult_add(VectorType &dst, const VectorType &src) const
      {
        vmult_add(dst, src);
      }

      /** dst += A src. */
      void vmult_add(VectorType &dst, const VectorType &src) const
      {
        VectorType tmp;
        tmp.reinit(dst, true);
        vmult(tmp, src);
        dst += tmp;
      }

      /** The inverse of the diagonal (1 on constrained rows), computed on
       *  the device cell by cell (FEEvaluation::compute_diagonal). */
      void compute_inverse_diagonal(VectorType &inverse_diagonal) const
      {
        initialize_dof_vector(inverse_diagonal);
        if (merged)
          matrix_free.cell_loop(
              LaplaceTensorDiagonalCell<dim, degree, n_components, Number>{
                  {diffusion_tensor.data()}},
              inverse_diagonal,
              inverse_diagonal);
        else
          matrix_free.cell_loop(
              LaplaceDiagonalCell<dim, degree, n_components, Number>{
                  coefficients},
              inverse_diagonal,
              inverse_diagonal);
        matrix_free.set_constrained_values(Number(1), inverse_diagonal);
        Number *d = inverse_diagonal.get_values();
        parallel_for("LaplaceOperator::compute_inverse_diagonal",
                     inverse_diagonal.locally_owned_size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i) {
                       d[i] = d[i] != Number() ? Number(1) / d[i] : Number(1);
                     });
      }

      size_type m() const
      {
        return matrix_free.get_vector_partitioner()->size();
      }

      size_type n() const { return m(); }

      /** Not available for a matrix-free operator (deal.II's templates name
       * it). */
      Number el(const size_type, const size_type) const
      {
        AssertThrow(false,
                    ExcMessage("LaplaceOperator is matrix-free: no el()"));
        return Number();
      }

      const MatrixFree<dim, Number> &get_matrix_free() const
      {
        return matrix_free;
      }

      /** The geometry and coefficients for level operators of the same
       *  cells (see reinit()): empty unless Number is double and the
       *  coefficients are stored unmerged. */
      internal::LaplaceLevelSource<dim> get_level_source() const
      {
        internal::LaplaceLevelSource<dim> source;
        if constexpr (std::is_same_v<Number, double>)
          if (!merged && diffusion_values.size() > 0)
          {
            source.geometry  = matrix_free.get_geometry_field_source();
            source.diffusion = diffusion_values.data();
            source.reaction =
                reaction_values.size() > 0 ? reaction_values.data() : nullptr;
          }
        return source;
      }

      /** Whether reinit() merged coefficient and geometry (see there). */
      bool has_merged_geometry() const { return merged; }

      std::size_t memory_consumption() const
      {
        return matrix_free.memory_consumption() +
               diffusion_values.memory_consumption() +
               reaction_values.memory_consumption() +
               diffusion_tensor.memory_consumption();
      }

    private:
      MatrixFree<dim, Number>     matrix_free;
      Array<Number>               diffusion_values;
      Array<Number>               reaction_values;
      Array<Number>               diffusion_tensor;
      bool                        merged = false;
      LaplaceCoefficients<Number> coefficients;
      SetupTimer                  setup_timer;
    };
  } // namespace GPU
} // namespace dealii

#endif
