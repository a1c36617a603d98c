#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/base/mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <iomanip>
#include <mutex>
#include <sched.h>
#include <thread>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      std::ostream *progress_stream = nullptr;
    }

    void set_setup_progress(std::ostream *out)
    {
      progress_stream = out;
    }

    std::ostream *get_setup_progress()
    {
      return progress_stream;
    }

    SetupTimer::SetupTimer(std::string context) : context(std::move(context)) {}

    void SetupTimer::start(const std::string &step)
    {
      stop();
      running       = step;
      started       = Clock::now();
      last_progress = started;
    }

    void SetupTimer::stop()
    {
      if (running.empty())
        return;
      if (Device::is_initialized())
        Device::synchronize();
      const double seconds =
          std::chrono::duration<double>(Clock::now() - started).count();
      auto it = std::find_if(times.begin(),
                             times.end(),
                             [&](const auto &t) { return t.first == running; });
      if (it == times.end())
        times.emplace_back(running, seconds);
      else
        it->second += seconds;
      if (progress_stream != nullptr && seconds >= 0.5)
        *progress_stream << "  setup" << (context.empty() ? "" : " ") << context
                         << ": " << running << " " << std::setprecision(3)
                         << seconds << " s" << std::endl;
      running.clear();
    }

    void SetupTimer::progress(const std::size_t done, const std::size_t total)
    {
      if (progress_stream == nullptr || running.empty() || total == 0)
        return;
      const auto now = Clock::now();
      if (std::chrono::duration<double>(now - last_progress).count() < 2.)
        return;
      last_progress = now;
      *progress_stream << "  setup" << (context.empty() ? "" : " ") << context
                       << ": " << running << " " << (100 * done) / total
                       << " % (" << std::setprecision(3)
                       << std::chrono::duration<double>(now - started).count()
                       << " s)" << std::endl;
    }

    void SetupTimer::add(const SetupTimer &other)
    {
      for (const auto &[step, seconds] : other.times)
      {
        auto it = std::find_if(times.begin(),
                               times.end(),
                               [&](const auto &t) { return t.first == step; });
        if (it == times.end())
          times.emplace_back(step, seconds);
        else
          it->second += seconds;
      }
    }

    double SetupTimer::operator[](const std::string &step) const
    {
      for (const auto &t : times)
        if (t.first == step)
          return t.second;
      return 0.;
    }

    double SetupTimer::total() const
    {
      double sum = 0;
      for (const auto &t : times)
        sum += t.second;
      return sum;
    }

    const std::vector<std::pair<std::string, double>> &SetupTimer::steps() const
    {
      return times;
    }

    void SetupTimer::print(std::ostream &out) const
    {
      bool first = true;
      for (const auto &[step, seconds] : times)
      {
        out << (first ? "" : ", ") << step << " " << std::setprecision(3)
            << seconds << " s";
        first = false;
      }
    }

    void SetupTimer::clear()
    {
      times.clear();
      running.clear();
    }

    namespace
    {
      unsigned int setup_threads_override = 0;
    }

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
          std::min<std::size_t>(n_setup_threads(), n_chunks);
      if (n_threads <= 1)
      {
        for (std::size_t begin = 0; begin < n; begin += chunk)
          f(begin, std::min(n, begin + chunk));
        return;
      }
      std::atomic<std::size_t> next(0);
      std::exception_ptr       error;
      std::mutex               error_mutex;
      const auto               work = [&]
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
      std::vector<std::thread> threads;
      for (unsigned int t = 1; t < n_threads; ++t)
        threads.emplace_back(work);
      work();
      for (auto &thread : threads)
        thread.join();
      if (error)
        std::rethrow_exception(error);
    }
  } // namespace GPU
} // namespace dealii
