// Runtime choice of the execution backend and of the GPU a rank uses.
#ifndef dealii_gpu_base_device_h
#define dealii_gpu_base_device_h

#include <dealii-gpu/base/config.h>

#include <deal.II/base/mpi.h>

#include <cstddef>
#include <string>
#include <utility>

namespace dealii
{
  namespace GPU
  {
    /**
     * Where kernels run and where vectors keep their data.
     */
    enum class Backend
    {
      /** The CPU: every kernel runs loop by loop on the host. */
      host,
      /** An NVIDIA GPU through CUDA. */
      cuda
    };

    /** "host" or "cuda". */
    std::string to_string(const Backend backend);

    namespace internal
    {
      /** This process's rank among the MPI ranks of its node, and their
       *  number ({0, 1} without MPI). */
      std::pair<int, int> node_rank_and_size(const MPI_Comm &communicator);
    } // namespace internal

    /**
     * The process-wide execution backend. It is chosen once, before any
     * vector or data structure is created, by initialize(); without a call,
     * the first use picks the default: CUDA when the library was built with
     * it and a device is visible, else the host.
     *
     * With MPI, each rank takes the GPU (node-local rank) modulo (number of
     * visible GPUs).
     */
    class Device
    {
    public:
      /**
       * Select the backend by name: "cuda", "host" or "auto" (the default
       * described above). Throws if "cuda" is asked for but not available.
       * Calling it again with the same choice does nothing; changing the
       * backend after objects were created on it is an error.
       */
      static void initialize(const std::string &name         = "auto",
                             const MPI_Comm    &communicator = MPI_COMM_WORLD);

      /**
       * Select the backend from the command line (--device=NAME or
       * --device NAME), else from the environment variable
       * DEALII_GPU_DEVICE, else "auto". Unrelated arguments are ignored.
       */
      static void initialize(int             argc,
                             char          **argv,
                             const MPI_Comm &communicator = MPI_COMM_WORLD);

      /** The backend in use; picks the default if none was chosen. */
      static Backend backend();

      /** True once initialize() ran or backend() picked the default. */
      static bool is_initialized();

      /** Whether the library was built with the CUDA backend. */
      static bool cuda_compiled();

      /** Number of CUDA devices visible to this process (0 without CUDA). */
      static int n_cuda_devices();

      /** The CUDA device this rank uses, or -1 on the host backend. */
      static int device_id();

      /**
       * A line describing the backend, e.g. "cuda: NVIDIA H100 80GB HBM3
       * (79.1 GiB, 132 SMs)" or "host (CPU, unvectorized build)". Where
       * several ranks of a node share the device it says so, and whether
       * an MPS daemon lets their kernels run at the same time.
       */
      static std::string description();

      /** Number of multiprocessors (1 on the host). */
      static unsigned int n_multiprocessors();

      /** Free and total memory of the device in bytes (0, 0 on the host). */
      static std::pair<std::size_t, std::size_t> memory_info();

      /** Wait for all work on the device (no-op on the host). */
      static void synchronize();
    };
  } // namespace GPU
} // namespace dealii

#endif
