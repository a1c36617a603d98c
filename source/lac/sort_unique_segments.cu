#include <dealii-gpu/base/parallel.h>

#include "exclusive_scan.h"
#include "sort_unique_segments.h"
#include <algorithm>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      namespace
      {
        // Segments up to this length are sorted in team scratch (32 KiB).
        constexpr unsigned int scratch_entries = 8192;
      } // namespace

      void sort_unique_segments(const unsigned int   n_segments,
                                Array<unsigned int> &offsets,
                                Array<unsigned int> &data)
      {
        AssertDimension(offsets.size(), n_segments + 1);
        if (n_segments == 0)
          return;
        const unsigned int *off        = offsets.data();
        const unsigned int  max_length = static_cast<unsigned int>(
            parallel_max("sort_unique_segments (longest)",
                         n_segments,
                         [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t s)
                         { return double(off[s + 1] - off[s]); }));
        unsigned int padded = 2;
        while (padded < max_length)
          padded *= 2;
        const unsigned int capacity = std::min(padded, scratch_entries);
        const unsigned int threads  = std::min(256u, std::max(32u, padded / 4));
        const unsigned int teams_per_block = std::max(1u, 128u / threads);

        // Sort (a bitonic network whose comparators all put the smaller
        // value first, so that the entries past the segment's end act as
        // +infinity and are never touched), then write the distinct values
        // to the same place in `unique`, each thread a chunk of the sorted
        // segment.
        Array<unsigned int> unique(data.size());
        Array<unsigned int> lengths(n_segments + 1);
        unsigned int       *values = data.data();
        unsigned int       *out    = unique.data();
        unsigned int       *length = lengths.data();
        parallel_for_teams(
            "sort_unique_segments (sort)",
            n_segments,
            TeamShape{threads, 1, 1},
            (capacity + threads) * sizeof(unsigned int),
            [=] DEAL_II_GPU_HOST_DEVICE(const TeamMember &team)
            {
              const unsigned int s     = team.team_index();
              const unsigned int begin = off[s];
              const unsigned int n     = off[s + 1] - begin;
              const bool         local = n <= capacity;
              unsigned int      *a =
                  local ? team.scratch<unsigned int>() : values + begin;
              unsigned int *counts =
                  team.scratch<unsigned int>(capacity * sizeof(unsigned int));
              const unsigned int n_threads = team.team_shape().size();
              if (local)
                team.for_each<false>(
                    n, [&](const unsigned int i) { a[i] = values[begin + i]; });
              team.barrier<false>();
              unsigned int p = 1;
              while (p < n)
                p *= 2;
              auto compare = [&](const unsigned int i, const unsigned int j)
              {
                if (j < n && a[j] < a[i])
                {
                  const unsigned int t = a[i];
                  a[i]                 = a[j];
                  a[j]                 = t;
                }
              };
              for (unsigned int k = 2; k <= p; k *= 2)
              {
                team.for_each<false>(p / 2,
                                     [&](const unsigned int t)
                                     {
                                       const unsigned int i =
                                           (t / (k / 2)) * k + t % (k / 2);
                                       compare(i, i ^ (k - 1));
                                     });
                team.barrier<false>();
                for (unsigned int h = k / 4; h > 0; h /= 2)
                {
                  team.for_each<false>(p / 2,
                                       [&](const unsigned int t)
                                       {
                                         const unsigned int i =
                                             (t / h) * 2 * h + t % h;
                                         compare(i, i + h);
                                       });
                  team.barrier<false>();
                }
              }
              const unsigned int chunk  = (n + n_threads - 1) / n_threads;
              auto               is_new = [&](const unsigned int i)
              { return i == 0 || a[i] != a[i - 1]; };
              team.for_each<false>(
                  n_threads,
                  [&](const unsigned int c)
                  {
                    const unsigned int end =
                        (c + 1) * chunk < n ? (c + 1) * chunk : n;
                    unsigned int count = 0;
                    for (unsigned int i = c * chunk; i < end; ++i)
                      count += is_new(i);
                    counts[c] = count;
                  });
              team.barrier<false>();
              team.for_each<false>(
                  n_threads,
                  [&](const unsigned int c)
                  {
                    unsigned int position = 0;
                    for (unsigned int c2 = 0; c2 < c; ++c2)
                      position += counts[c2];
                    const unsigned int end =
                        (c + 1) * chunk < n ? (c + 1) * chunk : n;
                    for (unsigned int i = c * chunk; i < end; ++i)
                      if (is_new(i))
                        out[begin + position++] = a[i];
                    if (c + 1 == n_threads)
                      length[s] = position;
                  });
            },
            teams_per_block);

        const unsigned int n_entries =
            exclusive_scan(n_segments, length, length);
        data.resize(n_entries);
        unsigned int *result = data.data();
        parallel_for_teams(
            "sort_unique_segments (compact)",
            n_segments,
            TeamShape{threads, 1, 1},
            0,
            [=] DEAL_II_GPU_HOST_DEVICE(const TeamMember &team)
            {
              const unsigned int s = team.team_index();
              team.for_each<false>(length[s + 1] - length[s],
                                   [&](const unsigned int i) {
                                     result[length[s] + i] = out[off[s] + i];
                                   });
            },
            teams_per_block);
        offsets.swap(lengths);
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
