// internal::exclusive_scan: CSR row offsets from row lengths on the active
// backend, for structures built on the device.
#ifndef dealii_gpu_lac_exclusive_scan_h
#define dealii_gpu_lac_exclusive_scan_h

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** offsets[i] = counts[0] + ... + counts[i - 1] for i in [0, n],
       *  on the active backend; @p offsets may be @p counts (then with n +
       *  1 entries). Returns offsets[n]; throws if it exceeds 2^32 - 1. */
      unsigned int exclusive_scan(const unsigned int  n,
                                  const unsigned int *counts,
                                  unsigned int       *offsets);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
