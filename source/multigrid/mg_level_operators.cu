// Index kernels of GPU::MGLevelOperator: save, zero and restore the
// refinement-edge entries of level vectors.
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/multigrid/mg_level_operators.h>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <typename Number>
      void gather_entries(const Array<unsigned int> &indices,
                          const Number              *values,
                          Number                    *buffer)
      {
        const unsigned int *index = indices.data();
        parallel_for("MGLevelOperator::gather",
                     indices.size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     { buffer[i] = values[index[i]]; });
      }

      template <typename Number>
      void scatter_entries(const Array<unsigned int> &indices,
                           const Number              *buffer,
                           Number                    *values)
      {
        const unsigned int *index = indices.data();
        parallel_for("MGLevelOperator::scatter",
                     indices.size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     { values[index[i]] = buffer[i]; });
      }

      template <typename Number>
      void fill_entries(const Array<unsigned int> &indices,
                        const Number               value,
                        Number                    *values)
      {
        const unsigned int *index = indices.data();
        parallel_for("MGLevelOperator::fill",
                     indices.size(),
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                     { values[index[i]] = value; });
      }

#define DEAL_II_GPU_INSTANTIATE(Number)                                        \
  template void gather_entries(                                                \
      const Array<unsigned int> &, const Number *, Number *);                  \
  template void scatter_entries(                                               \
      const Array<unsigned int> &, const Number *, Number *);                  \
  template void fill_entries(                                                  \
      const Array<unsigned int> &, const Number, Number *);
      DEAL_II_GPU_INSTANTIATE(float)
      DEAL_II_GPU_INSTANTIATE(double)
#undef DEAL_II_GPU_INSTANTIATE
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
