// internal::sort_unique_segments: each row of a CSR structure sorted and
// without repeats, on the active backend, for sparsity patterns built on
// the device.
#ifndef dealii_gpu_lac_sort_unique_segments_h
#define dealii_gpu_lac_sort_unique_segments_h

#include <dealii-gpu/base/memory.h>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * Sort each segment s of @p data, [offsets[s], offsets[s + 1]), and
       * drop its repeats, on the active backend; @p offsets (n_segments +
       * 1 entries) and @p data then describe the result. A segment of up
       * to 8192 entries is sorted in team scratch, a longer one in place.
       */
      void sort_unique_segments(const unsigned int   n_segments,
                                Array<unsigned int> &offsets,
                                Array<unsigned int> &data);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
