// Host memory that a backend's copies move at full speed (library-internal).
#ifndef dealii_gpu_source_base_pinned_buffer_h
#define dealii_gpu_source_base_pinned_buffer_h

#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/memory.h>

#include <cstddef>
#include <functional>

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
       * Fill @p bytes of the backend's memory from the host:
       * produce(offset, n, out) writes bytes [offset, offset + n) of the
       * data to out, for pieces of whole @p unit bytes, on the set-up
       * threads. Under CUDA the pieces are written into the staging
       * buffers of the upload, so that no host copy of the whole data is
       * made (a fresh host array costs its page faults first).
       */
      void produce_to_backend(
          const Backend     backend,
          void             *destination,
          const std::size_t bytes,
          const std::size_t unit,
          const std::function<
              void(const std::size_t, const std::size_t, void *)> &produce);

      /**
       * Resize @p array to @p n entries and fill it on the host:
       * produce(begin, end, out) writes entries [begin, end) to out[0, end
       * - begin) (see produce_to_backend()).
       */
      template <typename T, typename Produce>
      void fill(Array<T> &array, const std::size_t n, const Produce &produce)
      {
        array.resize(n);
        produce_to_backend(
            array.backend(),
            array.data(),
            n * sizeof(T),
            sizeof(T),
            [&](const std::size_t offset, const std::size_t bytes, void *out)
            {
              produce(offset / sizeof(T),
                      (offset + bytes) / sizeof(T),
                      static_cast<T *>(out));
            });
      }

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
