// What the host charges a set-up before any of its work: starting and
// joining the worker threads of one parallel loop, and the first touch of
// a fresh 200 MB array (page faults) against writing it again, with and
// without transparent huge pages. Measured on the GPU machine's host to
// decide on kept workers for parallel_for_chunks() (doc/architecture.md).
// Standalone (no deal.II, not built by CMake):
//   g++ -O2 -pthread host_setup_costs.cc -o host_setup_costs
//   ./host_setup_costs [threads, default 16]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

static double
seconds_since(const Clock::time_point t)
{
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// f(begin, end) on n_threads threads started for this call.
template <typename F>
void
on_new_threads(const int n_threads, const std::size_t n, const F &f)
{
  std::vector<std::thread> threads;
  for (int t = 1; t < n_threads; ++t)
    threads.emplace_back([&, t]
                         { f(n * t / n_threads, n * (t + 1) / n_threads); });
  f(0, n / n_threads);
  for (auto &thread : threads)
    thread.join();
}

int
main(int argc, char **argv)
{
  const int         n_threads = argc > 1 ? std::atoi(argv[1]) : 16;
  const std::size_t bytes     = std::size_t(200) << 20;
  auto              t         = Clock::now();
  for (int r = 0; r < 100; ++r)
    on_new_threads(n_threads, 100, [](std::size_t, std::size_t) {});
  std::printf("threads %d: start+join of %d threads: %.1f us a loop\n",
              n_threads,
              n_threads - 1,
              seconds_since(t) / 100 * 1e6);
  for (const bool huge : {false, true})
    for (int repeat = 0; repeat < 2; ++repeat)
    {
      char *p = static_cast<char *>(std::aligned_alloc(2 << 20, bytes));
      if (huge)
        madvise(p, bytes, MADV_HUGEPAGE);
      t = Clock::now();
      on_new_threads(n_threads,
                     bytes,
                     [&](std::size_t b, std::size_t e)
                     { std::memset(p + b, 1, e - b); });
      const double first = seconds_since(t);
      t                  = Clock::now();
      on_new_threads(n_threads,
                     bytes,
                     [&](std::size_t b, std::size_t e)
                     { std::memset(p + b, 2, e - b); });
      std::printf("200 MB %s: first touch %.1f ms, again %.1f ms\n",
                  huge ? "MADV_HUGEPAGE" : "plain",
                  first * 1e3,
                  seconds_since(t) * 1e3);
      std::free(p);
    }
}
