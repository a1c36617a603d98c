// The ghost exchange pattern a GPU::Vector shares with its copies.
#ifndef dealii_gpu_source_lac_vector_exchange_h
#define dealii_gpu_source_lac_vector_exchange_h

#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/memory.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/partitioner.h>

#ifdef DEAL_II_GPU_WITH_CUDA
#  include <cuda_runtime.h>
#endif

#include <cstddef>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // Host buffer for staging MPI messages; page-locked under CUDA so
      // that device-host copies run at full speed and need no bounce buffer.
      class StagingBuffer
      {
      public:
        StagingBuffer()                                 = default;
        StagingBuffer(const StagingBuffer &)            = delete;
        StagingBuffer &operator=(const StagingBuffer &) = delete;
        ~StagingBuffer() { release(); }

        char *get(const std::size_t bytes, const bool page_locked)
        {
          if (bytes > capacity || page_locked != locked)
          {
            release();
            if (bytes > 0)
            {
#ifdef DEAL_II_GPU_WITH_CUDA
              if (page_locked)
              {
                void *p = nullptr;
                DEAL_II_GPU_CUDA_CHECK(cudaMallocHost(&p, bytes));
                data = static_cast<char *>(p);
              }
              else
#endif
                data =
                    static_cast<char *>(Memory::allocate(Backend::host, bytes));
              capacity = bytes;
              locked   = page_locked;
            }
          }
          return data;
        }

      private:
        void release()
        {
#ifdef DEAL_II_GPU_WITH_CUDA
          if (locked && data != nullptr)
            (void)cudaFreeHost(data);
          else
#endif
            Memory::deallocate(Backend::host, data);
          data     = nullptr;
          capacity = 0;
          locked   = false;
        }

        char       *data     = nullptr;
        std::size_t capacity = 0;
        bool        locked   = false;
      };

      struct ExchangePattern
      {
        explicit ExchangePattern(const Utilities::MPI::Partitioner &partitioner)
        {
          std::vector<unsigned int> indices;
          indices.reserve(partitioner.n_import_indices());
          for (const auto &range : partitioner.import_indices())
            for (unsigned int i = range.first; i < range.second; ++i)
              indices.push_back(i);
          import_indices.copy_from(indices);
        }

        /** Locally owned indices that other ranks hold as ghosts. */
        Array<unsigned int> import_indices;
        /** Packed values on the backend, and host staging buffers. */
        Array<char>   packed;
        StagingBuffer host_send;
        StagingBuffer host_receive;
        /** The exchange in flight (started, not finished), if any. */
        std::vector<MPI_Request> requests;
        const void              *in_flight = nullptr;
        bool                     forward   = false;
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
