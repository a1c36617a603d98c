// Named wall-clock steps of a set-up (GPU::MatrixFree::reinit, the
// multigrid levels), progress lines for long set-ups, and the host threads
// that set-up runs on.
#ifndef dealii_gpu_base_setup_timer_h
#define dealii_gpu_base_setup_timer_h

#include <chrono>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    /**
     * Wall-clock seconds of the named steps of a set-up, in the order they
     * first ran. add() sums another timer's steps by name (the levels of a
     * multigrid hierarchy into one line per step). Each step's end waits for
     * the device, so that a step is charged for its own kernels and copies.
     *
     * With set_setup_progress() given a stream, every step of at least
     * 0.5 s prints a line there when it ends (context, step, seconds), and
     * long loops print their fraction done (progress()).
     */
    class SetupTimer
    {
    public:
      /** @p context names the set-up in progress lines ("level 3", ...). */
      explicit SetupTimer(std::string context = "");

      /** End the running step (if any) and start @p step. */
      void start(const std::string &step);

      /** End the running step. */
      void stop();

      /** For a long loop of the running step: prints "step: 40 %" lines
       *  (at most every 2 s, and not in the step's first 2 s). */
      void progress(const std::size_t done, const std::size_t total);

      /** Add @p other's steps to this one's, by name. */
      void add(const SetupTimer &other);

      /** Seconds of @p step (0 if it did not run). */
      double operator[](const std::string &step) const;

      double total() const;

      const std::vector<std::pair<std::string, double>> &steps() const;

      /** "step 1.23 s, step 0.45 s, ..." on one line. */
      void print(std::ostream &out) const;

      void clear();

    private:
      using Clock = std::chrono::steady_clock;
      std::string                                 context;
      std::vector<std::pair<std::string, double>> times;
      std::string                                 running;
      Clock::time_point                           started;
      Clock::time_point                           last_progress;
    };

    /**
     * Where set-up progress lines go: nullptr (the default) prints none.
     * Applications pass std::cout on rank 0 (or a ConditionalOStream's
     * stream) for set-ups that take seconds.
     */
    void set_setup_progress(std::ostream *out);

    /** The stream set by set_setup_progress(), or nullptr. */
    std::ostream *get_setup_progress();

    /**
     * Host threads for set-up work: the cores this process may run on (its
     * CPU affinity), shared evenly among the MPI ranks of the node when the
     * process is not bound to fewer cores than the node has. The
     * environment variable DEAL_II_GPU_SETUP_THREADS overrides it. deal.II's
     * MultithreadInfo is not consulted: programs set it to 1 for their MPI
     * ranks (step-37 does), while the GPU leaves the cores idle during
     * set-up.
     */
    unsigned int n_setup_threads();

    /** Use @p n setup threads from now on (0: the automatic choice). */
    void set_n_setup_threads(const unsigned int n);

    /**
     * Run f(begin, end) on chunks of [0, n) of at most @p grain indices,
     * on n_setup_threads() threads (chunks handed out in order as threads
     * become free). f must only write what its own indices own. The first
     * exception a chunk throws is rethrown here after all threads end.
     */
    void parallel_for_chunks(
        const std::size_t                                                n,
        const std::size_t                                                grain,
        const std::function<void(const std::size_t, const std::size_t)> &f);
  } // namespace GPU
} // namespace dealii

#endif
