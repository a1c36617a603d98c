// The host threads of the set-up: how many, and parallel_for_chunks() on
// workers kept for the process.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/setup_timer.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <sched.h>
#include <thread>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      unsigned int setup_threads_override = 0;

      // True on a thread while it runs a loop's chunks: a loop inside a
      // loop runs on that thread alone.
      thread_local bool in_loop = false;

      // Workers that wait between loops. A set-up runs 100-300 loops;
      // starting and joining 15 threads for each one cost the main thread
      // about 0.3 ms a loop, and each loop started on cold threads.
      class WorkerPool
      {
      public:
        ~WorkerPool()
        {
          {
            std::lock_guard<std::mutex> lock(mutex);
            stopping = true;
            ++generation;
          }
          wake.notify_all();
          for (auto &worker : workers)
            worker.join();
        }

        // Run @p job on the calling thread and on @p n_helpers workers,
        // and return when all have finished it; false, with nothing run,
        // while another thread's loop holds the workers.
        bool run(const unsigned int n_helpers, const std::function<void()> &job)
        {
          std::unique_lock<std::mutex> busy(job_mutex, std::try_to_lock);
          if (!busy.owns_lock())
            return false;
          {
            std::lock_guard<std::mutex> lock(mutex);
            while (workers.size() < n_helpers)
              workers.emplace_back(&WorkerPool::serve, this, workers.size());
            current = &job;
            wanted  = n_helpers;
            pending = n_helpers;
            ++generation;
          }
          wake.notify_all();
          in_loop = true;
          job();
          in_loop = false;
          std::unique_lock<std::mutex> lock(mutex);
          done.wait(lock, [&] { return pending == 0; });
          current = nullptr;
          return true;
        }

      private:
        void serve(const std::size_t index)
        {
          in_loop            = true;
          std::uint64_t seen = 0;
          while (true)
          {
            const std::function<void()> *job = nullptr;
            {
              std::unique_lock<std::mutex> lock(mutex);
              wake.wait(lock, [&] { return generation != seen; });
              seen = generation;
              if (stopping)
                return;
              if (index >= wanted)
                continue;
              job = current;
            }
            (*job)();
            std::lock_guard<std::mutex> lock(mutex);
            if (--pending == 0)
              done.notify_one();
          }
        }

        std::mutex                   job_mutex, mutex;
        std::condition_variable      wake, done;
        std::vector<std::thread>     workers;
        const std::function<void()> *current    = nullptr;
        std::size_t                  wanted     = 0;
        std::size_t                  pending    = 0;
        std::uint64_t                generation = 0;
        bool                         stopping   = false;
      };

      WorkerPool &worker_pool()
      {
        static WorkerPool pool;
        return pool;
      }
    } // namespace

    void set_n_setup_threads(const unsigned int n)
    {
      setup_threads_override = n;
    }

    unsigned int n_setup_threads()
    {
      if (setup_threads_override > 0)
        return setup_threads_override;
      static const unsigned int n = []
      {
        if (const char *env = std::getenv("DEAL_II_GPU_SETUP_THREADS"))
        {
          const int value = std::atoi(env);
          if (value > 0)
            return static_cast<unsigned int>(value);
        }
        const unsigned int hardware =
            std::max(1u, std::thread::hardware_concurrency());
        unsigned int allowed = hardware;
        cpu_set_t    mask;
        if (sched_getaffinity(0, sizeof(mask), &mask) == 0)
          allowed = std::max(1, CPU_COUNT(&mask));
        // Not bound: the ranks of this node share its cores.
        if (allowed >= hardware)
          allowed = std::max(
              1u,
              allowed /
                  static_cast<unsigned int>(
                      internal::node_rank_and_size(MPI_COMM_WORLD).second));
        return allowed;
      }();
      return n;
    }

    void parallel_for_chunks(
        const std::size_t                                                n,
        const std::size_t                                                grain,
        const std::function<void(const std::size_t, const std::size_t)> &f)
    {
      const std::size_t  chunk    = std::max<std::size_t>(grain, 1);
      const std::size_t  n_chunks = (n + chunk - 1) / chunk;
      const unsigned int n_threads =
          in_loop ? 1 : std::min<std::size_t>(n_setup_threads(), n_chunks);
      const auto serial = [&]
      {
        for (std::size_t begin = 0; begin < n; begin += chunk)
          f(begin, std::min(n, begin + chunk));
      };
      if (n_threads <= 1)
      {
        serial();
        return;
      }
      std::atomic<std::size_t>    next(0);
      std::exception_ptr          error;
      std::mutex                  error_mutex;
      const std::function<void()> work = [&]
      {
        for (std::size_t c = next++; c < n_chunks; c = next++)
        {
          try
          {
            f(c * chunk, std::min(n, (c + 1) * chunk));
          }
          catch (...)
          {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error)
              error = std::current_exception();
            next = n_chunks;
          }
        }
      };
      if (!worker_pool().run(n_threads - 1, work))
        serial();
      if (error)
        std::rethrow_exception(error);
    }
  } // namespace GPU
} // namespace dealii
