// Backend selection, device assignment per MPI rank, memory and scratch.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/base/mpi.h>

#include "pinned_buffer.h"

#ifdef DEAL_II_GPU_WITH_CUDA
#  include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <mutex>
#include <new>
#include <sstream>
#include <sys/stat.h>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      struct DeviceState
      {
        bool         initialized = false;
        Backend      backend     = Backend::host;
        int          device_id   = -1;
        unsigned int n_sms       = 1;
        std::string  device_name;
        // Ranks of this node on the same device, and whether an MPS
        // control daemon runs: without it their kernels take turns.
        int  ranks_sharing = 1;
        bool mps           = false;
      };

#ifdef DEAL_II_GPU_WITH_CUDA
      // The daemon's control pipe, where CUDA's clients look for it.
      bool mps_daemon_running()
      {
        const char       *dir = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
        const std::string control =
            std::string(dir != nullptr && *dir != '\0' ? dir
                                                       : "/tmp/nvidia-mps") +
            "/control";
        struct stat info;
        return stat(control.c_str(), &info) == 0;
      }
#endif

      DeviceState &state()
      {
        static DeviceState s;
        return s;
      }

      int count_cuda_devices()
      {
#ifdef DEAL_II_GPU_WITH_CUDA
        int n = 0;
        // No driver or no device: the host backend is the answer, not an
        // error. Clear the sticky error state afterwards.
        if (cudaGetDeviceCount(&n) != cudaSuccess)
        {
          (void)cudaGetLastError();
          return 0;
        }
        return n;
#else
        return 0;
#endif
      }

      void select_backend(const Backend backend, const MPI_Comm &communicator)
      {
        DeviceState &s = state();
        if (s.initialized)
        {
          AssertThrow(s.backend == backend,
                      ExcMessage("GPU::Device is already initialized with "
                                 "backend '" +
                                 to_string(s.backend) +
                                 "'; it cannot change to '" +
                                 to_string(backend) + "'."));
          return;
        }
        s.backend = backend;
        if (backend == Backend::cuda)
        {
#ifdef DEAL_II_GPU_WITH_CUDA
          const int n_devices = count_cuda_devices();
          AssertThrow(n_devices > 0,
                      ExcCudaNotAvailable("no CUDA device is visible"));
          const auto node = internal::node_rank_and_size(communicator);
          s.device_id     = node.first % n_devices;
          s.ranks_sharing = node.second / n_devices +
                            (s.device_id < node.second % n_devices ? 1 : 0);
          s.mps = s.ranks_sharing > 1 && mps_daemon_running();
          DEAL_II_GPU_CUDA_CHECK(cudaSetDevice(s.device_id));
          cudaDeviceProp properties;
          DEAL_II_GPU_CUDA_CHECK(
              cudaGetDeviceProperties(&properties, s.device_id));
          s.n_sms       = properties.multiProcessorCount;
          s.device_name = properties.name;
#else
          (void)communicator;
          AssertThrow(false,
                      ExcCudaNotAvailable(
                          "dealii-gpu was built without CUDA (no nvcc)"));
#endif
        }
        else
        {
          s.device_id = -1;
          s.n_sms     = 1;
        }
        s.initialized = true;
      }
    } // namespace

    std::string to_string(const Backend backend)
    {
      return backend == Backend::cuda ? "cuda" : "host";
    }

    void Device::initialize(const std::string &name,
                            const MPI_Comm    &communicator)
    {
      if (name == "cuda")
        select_backend(Backend::cuda, communicator);
      else if (name == "host")
        select_backend(Backend::host, communicator);
      else if (name == "auto" || name.empty())
      {
        if (state().initialized)
          return;
        select_backend(count_cuda_devices() > 0 ? Backend::cuda : Backend::host,
                       communicator);
      }
      else
        AssertThrow(false,
                    ExcMessage("Unknown GPU::Device '" + name +
                               "': use 'cuda', 'host' or 'auto'."));
    }

    void Device::initialize(int argc, char **argv, const MPI_Comm &communicator)
    {
      std::string name;
      for (int i = 1; i < argc; ++i)
      {
        const std::string arg = argv[i];
        if (arg.rfind("--device=", 0) == 0)
          name = arg.substr(9);
        else if (arg == "--device" && i + 1 < argc)
          name = argv[i + 1];
      }
      if (name.empty())
        if (const char *env = std::getenv("DEALII_GPU_DEVICE"))
          name = env;
      initialize(name.empty() ? "auto" : name, communicator);
    }

    Backend Device::backend()
    {
      if (!state().initialized)
      {
        std::string name = "auto";
        if (const char *env = std::getenv("DEALII_GPU_DEVICE"))
          name = env;
        initialize(name);
      }
      return state().backend;
    }

    bool Device::is_initialized()
    {
      return state().initialized;
    }

    bool Device::cuda_compiled()
    {
#ifdef DEAL_II_GPU_WITH_CUDA
      return true;
#else
      return false;
#endif
    }

    int Device::n_cuda_devices()
    {
      return count_cuda_devices();
    }

    int Device::device_id()
    {
      backend();
      return state().device_id;
    }

    unsigned int Device::n_multiprocessors()
    {
      backend();
      return state().n_sms;
    }

    std::pair<std::size_t, std::size_t> Device::memory_info()
    {
#ifdef DEAL_II_GPU_WITH_CUDA
      if (backend() == Backend::cuda)
      {
        std::size_t free_bytes = 0, total_bytes = 0;
        DEAL_II_GPU_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        return {free_bytes, total_bytes};
      }
#endif
      return {0, 0};
    }

    std::string Device::description()
    {
      std::ostringstream out;
      if (backend() == Backend::cuda)
      {
        const auto memory = memory_info();
        out << "cuda: " << state().device_name << " (device "
            << state().device_id << ", " << std::fixed << std::setprecision(1)
            << memory.second / 1073741824. << " GiB, " << state().n_sms
            << " SMs)";
        if (state().ranks_sharing > 1)
        {
          out << ", shared by " << state().ranks_sharing << " ranks ";
          if (state().mps)
            out << "through MPS";
          else
            out << "without MPS (their kernels take turns: start "
                   "nvidia-cuda-mps-control -d, doc/user-guide.md)";
        }
      }
      else
        out << "host (CPU, one MPI rank per core, unvectorized deal.II build)";
      return out.str();
    }

    std::pair<int, int>
    internal::node_rank_and_size(const MPI_Comm &communicator)
    {
      int initialized = 0;
      MPI_Initialized(&initialized);
      if (!initialized)
        return {0, 1};
      MPI_Comm node;
      MPI_Comm_split_type(
          communicator, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
      int rank = 0, size = 1;
      MPI_Comm_rank(node, &rank);
      MPI_Comm_size(node, &size);
      MPI_Comm_free(&node);
      return {rank, size};
    }

    void Device::synchronize()
    {
#ifdef DEAL_II_GPU_WITH_CUDA
      if (backend() == Backend::cuda)
        DEAL_II_GPU_CUDA_CHECK(cudaDeviceSynchronize());
#endif
    }

    namespace Memory
    {
      void *allocate(const Backend backend, const std::size_t bytes)
      {
        if (bytes == 0)
          return nullptr;
        if (backend == Backend::cuda)
        {
#ifdef DEAL_II_GPU_WITH_CUDA
          void       *pointer = nullptr;
          cudaError_t error   = cudaMalloc(&pointer, bytes);
          if (error == cudaErrorMemoryAllocation)
          {
            (void)cudaGetLastError();
            std::size_t free_bytes = 0, total_bytes = 0;
            cudaMemGetInfo(&free_bytes, &total_bytes);
            AssertThrow(
                false,
                ExcOutOfDeviceMemory(
                    state().device_name, bytes, free_bytes, total_bytes));
          }
          DEAL_II_GPU_CUDA_CHECK(error);
          return pointer;
#else
          AssertThrow(false, ExcCudaNotAvailable("built without CUDA"));
#endif
        }
        // 64-byte alignment as for cache lines and vector loads.
        void *pointer = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
        AssertThrow(pointer != nullptr, ExcOutOfHostMemory(bytes));
        return pointer;
      }

      void deallocate(const Backend backend, void *pointer) noexcept
      {
        if (pointer == nullptr)
          return;
#ifdef DEAL_II_GPU_WITH_CUDA
        if (backend == Backend::cuda)
        {
          // Never throw from a destructor path.
          (void)cudaFree(pointer);
          return;
        }
#endif
        (void)backend;
        std::free(pointer);
      }

    } // namespace Memory

    namespace internal
    {
      PinnedBuffer::PinnedBuffer(const Backend backend, const std::size_t bytes)
          : backend(backend)
      {
        if (bytes == 0)
          return;
#ifdef DEAL_II_GPU_WITH_CUDA
        if (backend == Backend::cuda)
        {
          const cudaError_t error = cudaMallocHost(&pointer, bytes);
          if (error == cudaErrorMemoryAllocation)
          {
            (void)cudaGetLastError();
            AssertThrow(false, ExcOutOfHostMemory(bytes));
          }
          DEAL_II_GPU_CUDA_CHECK(error);
          return;
        }
#endif
        pointer = Memory::allocate(Backend::host, bytes);
      }

      void bind_thread_to_device()
      {
#ifdef DEAL_II_GPU_WITH_CUDA
        if (Device::backend() == Backend::cuda)
          DEAL_II_GPU_CUDA_CHECK(cudaSetDevice(Device::device_id()));
#endif
      }

      PinnedBuffer::~PinnedBuffer()
      {
        if (pointer == nullptr)
          return;
#ifdef DEAL_II_GPU_WITH_CUDA
        if (backend == Backend::cuda)
        {
          (void)cudaFreeHost(pointer);
          return;
        }
#endif
        Memory::deallocate(Backend::host, pointer);
      }
    } // namespace internal

    namespace Memory
    {
#ifdef DEAL_II_GPU_WITH_CUDA
      namespace
      {
        // Copies of at least this many bytes go through the staging
        // buffers below instead of cudaMemcpy from pageable memory.
        constexpr std::size_t staged_copy_bytes = std::size_t(16) << 20;
        constexpr std::size_t staging_chunk     = std::size_t(32) << 20;

        // Two pinned buffers: the set-up threads copy one chunk between
        // pageable memory and one buffer while the DMA engine moves the
        // other (set-up's uploads and downloads are gigabytes; cudaMemcpy
        // of pageable memory runs on one core). Kept for the process, like
        // host_reduction_result().
        struct Staging
        {
          std::mutex  mutex;
          char       *buffer[2] = {nullptr, nullptr};
          cudaEvent_t done[2];
        };

        Staging &staging()
        {
          static Staging *s = []
          {
            auto *st = new Staging;
            for (unsigned int b = 0; b < 2; ++b)
            {
              void *pointer = nullptr;
              DEAL_II_GPU_CUDA_CHECK(cudaMallocHost(&pointer, staging_chunk));
              st->buffer[b] = static_cast<char *>(pointer);
              DEAL_II_GPU_CUDA_CHECK(cudaEventCreateWithFlags(
                  &st->done[b], cudaEventDisableTiming));
            }
            return st;
          }();
          return *s;
        }

        void parallel_memcpy(void             *destination,
                             const void       *source,
                             const std::size_t bytes)
        {
          constexpr std::size_t grain = std::size_t(1) << 20;
          parallel_for_chunks(
              bytes,
              grain,
              [&](const std::size_t begin, const std::size_t end)
              {
                std::memcpy(static_cast<char *>(destination) + begin,
                            static_cast<const char *>(source) + begin,
                            end - begin);
              });
        }

        // On the legacy default stream, so ordered with the kernels like
        // cudaMemcpy; returns when the data are in place. fill(offset, n,
        // buffer) writes bytes [offset, offset + n) of the data to the
        // buffer, in chunks of @p chunk bytes.
        void staged_copy_to_device(
            void             *destination,
            const std::size_t bytes,
            const std::size_t chunk,
            const std::function<
                void(const std::size_t, const std::size_t, char *)> &fill)
        {
          Staging                    &st = staging();
          std::lock_guard<std::mutex> lock(st.mutex);
          for (std::size_t offset = 0, k = 0; offset < bytes;
               offset += chunk, ++k)
          {
            const unsigned int b = k % 2;
            const std::size_t  n = std::min(chunk, bytes - offset);
            if (k >= 2)
              DEAL_II_GPU_CUDA_CHECK(cudaEventSynchronize(st.done[b]));
            fill(offset, n, st.buffer[b]);
            DEAL_II_GPU_CUDA_CHECK(
                cudaMemcpyAsync(static_cast<char *>(destination) + offset,
                                st.buffer[b],
                                n,
                                cudaMemcpyHostToDevice,
                                0));
            DEAL_II_GPU_CUDA_CHECK(cudaEventRecord(st.done[b], 0));
          }
          DEAL_II_GPU_CUDA_CHECK(cudaStreamSynchronize(0));
        }

        void staged_copy_to_host(void             *destination,
                                 const void       *source,
                                 const std::size_t bytes)
        {
          Staging                    &st = staging();
          std::lock_guard<std::mutex> lock(st.mutex);
          const std::size_t           n_chunks =
              (bytes + staging_chunk - 1) / staging_chunk;
          const auto start = [&](const std::size_t k)
          {
            const std::size_t offset = k * staging_chunk;
            DEAL_II_GPU_CUDA_CHECK(
                cudaMemcpyAsync(st.buffer[k % 2],
                                static_cast<const char *>(source) + offset,
                                std::min(staging_chunk, bytes - offset),
                                cudaMemcpyDeviceToHost,
                                0));
            DEAL_II_GPU_CUDA_CHECK(cudaEventRecord(st.done[k % 2], 0));
          };
          start(0);
          for (std::size_t k = 0; k < n_chunks; ++k)
          {
            // Chunk k + 1's buffer was emptied by the copy-out of k - 1.
            if (k + 1 < n_chunks)
              start(k + 1);
            DEAL_II_GPU_CUDA_CHECK(cudaEventSynchronize(st.done[k % 2]));
            const std::size_t offset = k * staging_chunk;
            parallel_memcpy(static_cast<char *>(destination) + offset,
                            st.buffer[k % 2],
                            std::min(staging_chunk, bytes - offset));
          }
        }
      } // namespace
#endif

      void copy_to_backend(const Backend     backend,
                           void             *destination,
                           const void       *source,
                           const std::size_t bytes)
      {
        if (bytes == 0)
          return;
#ifdef DEAL_II_GPU_WITH_CUDA
        if (backend == Backend::cuda)
        {
          if (bytes >= staged_copy_bytes)
            staged_copy_to_device(
                destination,
                bytes,
                staging_chunk,
                [&](const std::size_t offset, const std::size_t n, char *out) {
                  parallel_memcpy(
                      out, static_cast<const char *>(source) + offset, n);
                });
          else
            DEAL_II_GPU_CUDA_CHECK(
                cudaMemcpy(destination, source, bytes, cudaMemcpyHostToDevice));
          return;
        }
#endif
        (void)backend;
        std::memcpy(destination, source, bytes);
      }

      void copy_to_host(const Backend     backend,
                        void             *destination,
                        const void       *source,
                        const std::size_t bytes)
      {
        if (bytes == 0)
          return;
#ifdef DEAL_II_GPU_WITH_CUDA
        if (backend == Backend::cuda)
        {
          if (bytes >= staged_copy_bytes)
            staged_copy_to_host(destination, source, bytes);
          else
            DEAL_II_GPU_CUDA_CHECK(
                cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToHost));
          return;
        }
#endif
        (void)backend;
        std::memcpy(destination, source, bytes);
      }

      void copy_within(const Backend     backend,
                       void             *destination,
                       const void       *source,
                       const std::size_t bytes)
      {
        if (bytes == 0)
          return;
#ifdef DEAL_II_GPU_WITH_CUDA
        if (backend == Backend::cuda)
        {
          DEAL_II_GPU_CUDA_CHECK(
              cudaMemcpy(destination, source, bytes, cudaMemcpyDeviceToDevice));
          return;
        }
#endif
        (void)backend;
        std::memmove(destination, source, bytes);
      }

      void set_zero(const Backend     backend,
                    void             *destination,
                    const std::size_t bytes)
      {
        if (bytes == 0)
          return;
#ifdef DEAL_II_GPU_WITH_CUDA
        if (backend == Backend::cuda)
        {
          DEAL_II_GPU_CUDA_CHECK(cudaMemset(destination, 0, bytes));
          return;
        }
#endif
        (void)backend;
        std::memset(destination, 0, bytes);
      }
    } // namespace Memory

    namespace internal
    {
      void throw_cuda_error(int         error_code,
                            const char *call,
                            const char *file,
                            int         line,
                            const char *function)
      {
        std::string name = "error " + std::to_string(error_code);
        std::string text = "(no CUDA runtime)";
#ifdef DEAL_II_GPU_WITH_CUDA
        name = cudaGetErrorName(static_cast<cudaError_t>(error_code));
        text = cudaGetErrorString(static_cast<cudaError_t>(error_code));
#endif
        throw_cuda_library_error(name, text, call, file, line, function);
      }

      void throw_cuda_library_error(const std::string &name,
                                    const std::string &text,
                                    const char        *call,
                                    const char        *file,
                                    int                line,
                                    const char        *function)
      {
        ExcCudaError exc(call, name, text);
        // Record the place of the failing call, as AssertThrow does.
        exc.set_fields(file, line, function, call, "ExcCudaError");
        throw exc;
      }

      bool synchronize_after_launch()
      {
        static const bool sync = []
        {
          const char *env = std::getenv("DEALII_GPU_SYNC");
          return env != nullptr && std::strcmp(env, "1") == 0;
        }();
        return sync;
      }

      void *host_team_scratch(const std::size_t bytes)
      {
        static std::unique_ptr<std::max_align_t[]> buffer;
        static std::size_t                         capacity = 0;
        if (bytes > capacity)
        {
          const std::size_t n =
              (bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t);
          buffer.reset(new std::max_align_t[n]);
          capacity = n * sizeof(std::max_align_t);
        }
        return buffer.get();
      }

      void *device_reduction_buffer(const std::size_t bytes)
      {
        static Array<char> buffer;
        if (buffer.size() < bytes || buffer.backend() != Device::backend())
          buffer.resize(std::max<std::size_t>(bytes, 64 * 1024));
        return buffer.data();
      }

      void *host_reduction_result()
      {
#ifdef DEAL_II_GPU_WITH_CUDA
        static double *result = []
        {
          void *pointer = nullptr;
          DEAL_II_GPU_CUDA_CHECK(cudaMallocHost(&pointer, 64));
          return static_cast<double *>(pointer);
        }();
        return result;
#else
        static double result[8];
        return result;
#endif
      }

      void throw_not_compiled_for_cuda(const char *kernel_name)
      {
        AssertThrow(false,
                    ExcCudaNotAvailable(
                        std::string("kernel '") + kernel_name +
                        "' was compiled without nvcc. Put kernels in .cu files "
                        "(compiled as CUDA) when the CUDA backend is used."));
        std::abort();
      }

      void check_team_launch(const char        *kernel_name,
                             const TeamShape   &shape,
                             const std::size_t  scratch_bytes_per_team,
                             const unsigned int teams_per_block)
      {
        AssertThrow(teams_per_block >= 1 && shape.size() >= 1 &&
                        shape.size() * teams_per_block <= 1024,
                    ExcMessage(std::string("kernel '") + kernel_name +
                               "': a block has 1 to 1024 threads, not " +
                               std::to_string(shape.size()) + " x " +
                               std::to_string(teams_per_block)));
        const std::size_t scratch_bytes =
            (scratch_bytes_per_team + 15) / 16 * 16 * teams_per_block;
#ifdef DEAL_II_GPU_WITH_CUDA
        if (Device::backend() != Backend::cuda)
          return;
        static int max_shared = []
        {
          int value = 0;
          DEAL_II_GPU_CUDA_CHECK(
              cudaDeviceGetAttribute(&value,
                                     cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                     Device::device_id()));
          return value;
        }();
        AssertThrow(scratch_bytes <= static_cast<std::size_t>(max_shared),
                    ExcMessage(std::string("kernel '") + kernel_name +
                               "' asks for " + std::to_string(scratch_bytes) +
                               " bytes of team scratch; the device has " +
                               std::to_string(max_shared)));
#else
        (void)scratch_bytes;
#endif
      }

      void produce_to_backend(
          const Backend     backend,
          void             *destination,
          const std::size_t bytes,
          const std::size_t unit,
          const std::function<
              void(const std::size_t, const std::size_t, void *)> &produce)
      {
        if (bytes == 0)
          return;
        AssertThrow(unit > 0 && bytes % unit == 0, ExcInternalError());
        // Pieces of about 1 MB for the threads.
        const std::size_t piece = std::max<std::size_t>(1, (1 << 20) / unit);
        const auto        produce_into =
            [&](const std::size_t offset, const std::size_t n, char *out)
        {
          parallel_for_chunks(
              n / unit,
              piece,
              [&](const std::size_t begin, const std::size_t end) {
                produce(offset + begin * unit,
                        (end - begin) * unit,
                        out + begin * unit);
              });
        };
#ifdef DEAL_II_GPU_WITH_CUDA
        if (backend == Backend::cuda)
        {
          if (bytes < Memory::staged_copy_bytes)
          {
            HostVector<char> host(bytes);
            produce_into(0, bytes, host.data());
            DEAL_II_GPU_CUDA_CHECK(cudaMemcpy(
                destination, host.data(), bytes, cudaMemcpyHostToDevice));
            return;
          }
          const std::size_t chunk = Memory::staging_chunk / unit * unit;
          AssertThrow(chunk > 0, ExcInternalError());
          Memory::staged_copy_to_device(
              destination, bytes, chunk, produce_into);
          return;
        }
#endif
        (void)backend;
        produce_into(0, bytes, static_cast<char *>(destination));
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii
