// Host memory that a backend's copies move at full speed (library-internal).
#ifndef dealii_gpu_source_base_pinned_buffer_h
#define dealii_gpu_source_base_pinned_buffer_h

#include <dealii-gpu/base/device.h>

#include <cstddef>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * Page-locked host memory for CUDA (cudaMemcpy to and from it runs as
       * DMA, without the driver's staging copy on one core), ordinary host
       * memory for the host backend.
       */
      class PinnedBuffer
      {
      public:
        PinnedBuffer(const Backend backend, const std::size_t bytes);

        ~PinnedBuffer();

        PinnedBuffer(const PinnedBuffer &)            = delete;
        PinnedBuffer &operator=(const PinnedBuffer &) = delete;

        template <typename T>
        T *as() const
        {
          return static_cast<T *>(pointer);
        }

      private:
        Backend backend;
        void   *pointer = nullptr;
      };

      /**
       * Make this process's device current on the calling thread (CUDA
       * keeps it per thread; a new thread starts on device 0): for set-up
       * threads that call the CUDA runtime themselves.
       */
      void bind_thread_to_device();
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
