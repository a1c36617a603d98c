// Raw memory on the active backend and an owning array type.
#ifndef dealii_gpu_base_memory_h
#define dealii_gpu_base_memory_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/device.h>

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace Memory
    {
      /**
       * Allocate @p bytes on @p backend. Throws ExcOutOfDeviceMemory (with
       * the size asked for and what is free) or ExcOutOfHostMemory.
       */
      void *allocate(const Backend backend, const std::size_t bytes);

      /** Free memory from allocate(); nullptr is allowed. */
      void deallocate(const Backend backend, void *pointer) noexcept;

      /** Copy host memory to the backend's memory. */
      void copy_to_backend(const Backend     backend,
                           void             *destination,
                           const void       *source,
                           const std::size_t bytes);

      /** Copy the backend's memory to host memory. */
      void copy_to_host(const Backend     backend,
                        void             *destination,
                        const void       *source,
                        const std::size_t bytes);

      /** Copy within the backend's memory. */
      void copy_within(const Backend     backend,
                       void             *destination,
                       const void       *source,
                       const std::size_t bytes);

      /** Set bytes to zero in the backend's memory. */
      void set_zero(const Backend     backend,
                    void             *destination,
                    const std::size_t bytes);
    } // namespace Memory

    namespace internal
    {
      /**
       * Leaves new elements of trivial types uninitialized: for the large
       * host arrays of the set-up that threads fill completely, which
       * std::vector would first zero on one thread.
       */
      template <typename T>
      struct UninitializedAllocator : std::allocator<T>
      {
        template <typename U>
        struct rebind
        {
          using other = UninitializedAllocator<U>;
        };

        UninitializedAllocator() = default;

        template <typename U>
        UninitializedAllocator(const UninitializedAllocator<U> &) noexcept
        {
        }

        template <typename U>
        void construct(U *p) noexcept(
            std::is_nothrow_default_constructible<U>::value)
        {
          ::new (static_cast<void *>(p)) U;
        }

        template <typename U, typename... Args>
        void construct(U *p, Args &&...args)
        {
          ::new (static_cast<void *>(p)) U(std::forward<Args>(args)...);
        }
      };

      /** A host vector whose resize() leaves new elements uninitialized. */
      template <typename T>
      using HostVector = std::vector<T, UninitializedAllocator<T>>;
    } // namespace internal

    /**
     * An owning array of trivially copyable elements in the memory of the
     * backend it was created on (device memory for CUDA). Element access
     * is through data() inside kernels; host code copies with
     * copy_from()/copy_to().
     */
    template <typename T>
    class Array
    {
    public:
      Array() = default;

      /** n elements, uninitialized, on the current backend. */
      explicit Array(const std::size_t n) { resize(n); }

      Array(const Array &other) { *this = other; }

      Array(Array &&other) noexcept { swap(other); }

      ~Array() { clear(); }

      Array &operator=(const Array &other)
      {
        if (this != &other)
        {
          resize(other.n, other.backend_);
          if (n > 0)
            Memory::copy_within(backend_, values, other.values, n * sizeof(T));
        }
        return *this;
      }

      Array &operator=(Array &&other) noexcept
      {
        swap(other);
        return *this;
      }

      /** Resize (contents are not kept) on the current or a given backend. */
      void resize(const std::size_t new_size)
      {
        resize(new_size, Device::backend());
      }

      void resize(const std::size_t new_size, const Backend backend)
      {
        if (new_size == n && backend == backend_)
          return;
        clear();
        backend_ = backend;
        if (new_size > 0)
          values =
              static_cast<T *>(Memory::allocate(backend, new_size * sizeof(T)));
        n = new_size;
      }

      void clear()
      {
        Memory::deallocate(backend_, values);
        values = nullptr;
        n      = 0;
      }

      /** Resize to the host vector's size and copy it over. */
      template <typename Allocator>
      void copy_from(const std::vector<T, Allocator> &host_values)
      {
        resize(host_values.size());
        if (n > 0)
          Memory::copy_to_backend(
              backend_, values, host_values.data(), n * sizeof(T));
      }

      /** Copy into a host vector (resized). */
      void copy_to(std::vector<T> &host_values) const
      {
        host_values.resize(n);
        if (n > 0)
          Memory::copy_to_host(
              backend_, host_values.data(), values, n * sizeof(T));
      }

      void swap(Array &other) noexcept
      {
        std::swap(values, other.values);
        std::swap(n, other.n);
        std::swap(backend_, other.backend_);
      }

      T *data() { return values; }

      const T *data() const { return values; }

      std::size_t size() const { return n; }

      Backend backend() const { return backend_; }

      std::size_t memory_consumption() const
      {
        return sizeof(*this) + n * sizeof(T);
      }

    private:
      T          *values   = nullptr;
      std::size_t n        = 0;
      Backend     backend_ = Backend::host;
    };
  } // namespace GPU
} // namespace dealii

#endif
