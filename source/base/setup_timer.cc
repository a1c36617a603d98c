#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/setup_timer.h>

#include <algorithm>
#include <iomanip>

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

  } // namespace GPU
} // namespace dealii
