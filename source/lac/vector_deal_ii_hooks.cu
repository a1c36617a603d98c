// deal.II's hooks for GPU::Vector: AffineConstraints::set_zero() and
// PreconditionChebyshev's initial guess, run on the vector's backend.
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/vector.h>

namespace dealii
{
  namespace internal
  {
    namespace AffineConstraintsImplementation
    {
      namespace
      {
        template <typename Number>
        void
        set_zero_constrained(const std::vector<types::global_dof_index> &cm,
                             GPU::Vector<Number>                        &vec)
        {
          const auto               &part = *vec.get_partitioner();
          std::vector<unsigned int> local;
          for (const auto i : cm)
            if (part.in_local_range(i))
              local.push_back(part.global_to_local(i));
          GPU::Array<unsigned int> indices;
          indices.copy_from(local);
          const unsigned int *idx = indices.data();
          Number             *x   = vec.get_values();
          GPU::parallel_for("AffineConstraints::set_zero",
                            local.size(),
                            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                            { x[idx[j]] = Number(); });
          vec.compress(VectorOperation::insert);
        }
      } // namespace

      template <>
      void set_zero_all(const std::vector<types::global_dof_index> &cm,
                        GPU::Vector<float>                         &vec)
      {
        set_zero_constrained(cm, vec);
      }

      template <>
      void set_zero_all(const std::vector<types::global_dof_index> &cm,
                        GPU::Vector<double>                        &vec)
      {
        set_zero_constrained(cm, vec);
      }
    } // namespace AffineConstraintsImplementation

    namespace PreconditionChebyshevImplementation
    {
      namespace
      {
        template <typename Number>
        void fill_high_frequency(GPU::Vector<Number> &vector)
        {
          const types::global_dof_index first =
              vector.get_partitioner()->local_range().first;
          Number *x = vector.get_values();
          GPU::parallel_for("PreconditionChebyshev::set_initial_guess",
                            vector.locally_owned_size(),
                            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                            { x[i] = Number((first + i) % 11); });
          vector.add(-vector.mean_value());
        }
      } // namespace

      template <>
      void set_initial_guess(GPU::Vector<float> &vector)
      {
        fill_high_frequency(vector);
      }

      template <>
      void set_initial_guess(GPU::Vector<double> &vector)
      {
        fill_high_frequency(vector);
      }
    } // namespace PreconditionChebyshevImplementation
  }   // namespace internal
} // namespace dealii
