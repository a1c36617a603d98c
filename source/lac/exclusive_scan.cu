#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>

#include "exclusive_scan.h"
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      unsigned int exclusive_scan(const unsigned int  n,
                                  const unsigned int *counts,
                                  unsigned int       *offsets)
      {
        // Chunk sums on the backend, their scan on the host (n / 256
        // values), then each chunk scanned from its start.
        constexpr unsigned int chunk    = 256;
        const unsigned int     n_chunks = (n + chunk - 1) / chunk;
        if (n == 0)
        {
          const std::vector<unsigned int> zero(1, 0u);
          Memory::copy_to_backend(
              Device::backend(), offsets, zero.data(), sizeof(unsigned int));
          return 0;
        }
        Array<unsigned int> sums(n_chunks);
        unsigned int       *s = sums.data();
        parallel_for("exclusive_scan (chunk sums)",
                     n_chunks,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
                     {
                       const unsigned int end =
                           c * chunk + chunk < n ? c * chunk + chunk : n;
                       unsigned int total = 0;
                       for (unsigned int i = c * chunk; i < end; ++i)
                         total += counts[i];
                       s[c] = total;
                     });
        std::vector<unsigned int> host;
        sums.copy_to(host);
        std::uint64_t running = 0;
        for (unsigned int &v : host)
        {
          const std::uint64_t value = v;
          v                         = static_cast<unsigned int>(running);
          running += value;
        }
        AssertThrow(running <= std::numeric_limits<unsigned int>::max(),
                    ExcMessage("exclusive_scan: the sum " +
                               std::to_string(running) +
                               " exceeds 32-bit indices (more entries than "
                               "one rank can index)."));
        sums.copy_from(host);
        parallel_for("exclusive_scan",
                     n_chunks,
                     [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t c)
                     {
                       const unsigned int end =
                           c * chunk + chunk < n ? c * chunk + chunk : n;
                       unsigned int run = s[c];
                       for (unsigned int i = c * chunk; i < end; ++i)
                       {
                         const unsigned int count = counts[i];
                         offsets[i]               = run;
                         run += count;
                       }
                       if (end == n)
                         offsets[n] = run;
                     });
        return static_cast<unsigned int>(running);
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
