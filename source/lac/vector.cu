// GPU::Vector: element-wise kernels, reductions and ghost exchange. This
// file is compiled by nvcc with the CUDA backend and as C++ without it.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/la_parallel_vector.h>

#ifdef DEAL_II_GPU_WITH_CUDA
#  include <cuda_runtime.h>
#endif

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <type_traits>

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

      namespace
      {
        const int exchange_tag = 4207;

        template <typename Number>
        void pack(const std::size_t   n,
                  const unsigned int *indices,
                  const Number       *values,
                  Number             *packed)
        {
          parallel_for("Vector::update_ghost_values (pack)",
                       n,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                       { packed[j] = values[indices[j]]; });
        }

        template <typename Number>
        void unpack_add(const std::size_t   n,
                        const unsigned int *indices,
                        const Number       *packed,
                        Number             *values)
        {
          parallel_for("Vector::compress (unpack)",
                       n,
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                       { atomic_add(&values[indices[j]], packed[j]); });
        }

        // Lets nullptr stand for an unused input vector.
        template <typename T>
        struct Identity
        {
          using type = T;
        };
        template <typename T>
        using NonDeduced = typename Identity<T>::type;

        // Entry-wise kernels: each call j handles W entries of a tile of
        // W * T entries, T apart (base + k T), so that the warp's accesses
        // coalesce and all loads of a call are issued before its stores:
        // each thread has W independent loads in flight per vector (the
        // compiler would not reorder them itself: for all it knows the
        // pointers alias).
        constexpr unsigned int chunk_width = 4;
        constexpr unsigned int tile_lanes  = 256;

        inline std::size_t n_chunk_calls(const std::size_t n)
        {
          const std::size_t tile = chunk_width * tile_lanes;
          return (n + tile - 1) / tile * tile_lanes;
        }

        DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE std::size_t
        chunk_base(const std::size_t j)
        {
          return (j / tile_lanes) * (chunk_width * tile_lanes) + j % tile_lanes;
        }

        // Reduction with Combine (SumOp, MaxOp) of op(x_i, y_i, z_i), which
        // may also change x_i (written back if WritesX). x is loaded only if
        // ReadsX; y and z may be null.
        template <typename Combine,
                  bool ReadsX,
                  bool WritesX,
                  typename Number,
                  typename Op>
        double chunked(const char               *name,
                       const std::size_t         n,
                       Number                   *x,
                       const NonDeduced<Number> *y,
                       const NonDeduced<Number> *z,
                       const Op                  op)
        {
          constexpr unsigned int W = chunk_width, T = tile_lanes;
          auto chunk = [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
          {
            const std::size_t base   = chunk_base(j);
            double            result = 0.;
            if (base + (W - 1) * T < n)
            {
              Number xv[W], yv[W], zv[W];
              for (unsigned int k = 0; k < W; ++k)
              {
                xv[k] = ReadsX ? x[base + k * T] : Number();
                yv[k] = y != nullptr ? y[base + k * T] : Number();
                zv[k] = z != nullptr ? z[base + k * T] : Number();
              }
              for (unsigned int k = 0; k < W; ++k)
                result = Combine::combine(result, op(xv[k], yv[k], zv[k]));
              if (WritesX)
                for (unsigned int k = 0; k < W; ++k)
                  x[base + k * T] = xv[k];
            }
            else
              for (std::size_t i = base; i < n; i += T)
              {
                Number xi = ReadsX ? x[i] : Number();
                result    = Combine::combine(result,
                                          op(xi,
                                             y != nullptr ? y[i] : Number(),
                                             z != nullptr ? z[i] : Number()));
                if (WritesX)
                  x[i] = xi;
              }
            return result;
          };
          return parallel_reduce<Combine>(name, n_chunk_calls(n), chunk);
        }

        // x_i = op(x_i, y_i, z_i) without reduction; x is loaded only if
        // ReadsX.
        template <bool ReadsX, typename Number, typename Op>
        void update(const char               *name,
                    const std::size_t         n,
                    Number                   *x,
                    const NonDeduced<Number> *y,
                    const NonDeduced<Number> *z,
                    const Op                  op)
        {
          constexpr unsigned int W = chunk_width, T = tile_lanes;
          parallel_for(name,
                       n_chunk_calls(n),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                       {
                         const std::size_t base = chunk_base(j);
                         if (base + (W - 1) * T < n)
                         {
                           Number xv[W], yv[W], zv[W];
                           for (unsigned int k = 0; k < W; ++k)
                           {
                             xv[k] = ReadsX ? x[base + k * T] : Number();
                             yv[k] = y != nullptr ? y[base + k * T] : Number();
                             zv[k] = z != nullptr ? z[base + k * T] : Number();
                           }
                           for (unsigned int k = 0; k < W; ++k)
                             x[base + k * T] = op(xv[k], yv[k], zv[k]);
                         }
                         else
                           for (std::size_t i = base; i < n; i += T)
                             x[i] = op(ReadsX ? x[i] : Number(),
                                       y != nullptr ? y[i] : Number(),
                                       z != nullptr ? z[i] : Number());
                       });
        }

        bool cuda_aware_mpi_from_environment()
        {
          const char *env = std::getenv("DEALII_GPU_CUDA_AWARE_MPI");
          return env != nullptr && std::strcmp(env, "1") == 0;
        }
      } // namespace
    }   // namespace internal

    template <typename Number>
    Vector<Number>::ElementAccess::operator Number() const
    {
      Number value;
      Memory::copy_to_host(backend, &value, pointer, sizeof(Number));
      return value;
    }

    template <typename Number>
    typename Vector<Number>::ElementAccess &
    Vector<Number>::ElementAccess::operator=(const Number value)
    {
      Memory::copy_to_backend(backend, pointer, &value, sizeof(Number));
      return *this;
    }

    template <typename Number>
    typename Vector<Number>::ElementAccess &
    Vector<Number>::ElementAccess::operator+=(const Number value)
    {
      const Number old = *this;
      return *this     = old + value;
    }

    template <typename Number>
    Vector<Number>::Vector()
        : cuda_aware_mpi(internal::cuda_aware_mpi_from_environment())
    {
      reinit(0);
    }

    template <typename Number>
    Vector<Number>::Vector(const Vector &other)
        : Subscriptor(), cuda_aware_mpi(other.cuda_aware_mpi)
    {
      reinit(other, true);
      Memory::copy_within(values.backend(),
                          values.data(),
                          other.values.data(),
                          values.size() * sizeof(Number));
      ghosted = other.ghosted;
    }

    template <typename Number>
    Vector<Number>::Vector(Vector &&other) noexcept : Vector()
    {
      swap(other);
    }

    template <typename Number>
    Vector<Number>::Vector(const size_type n)
        : cuda_aware_mpi(internal::cuda_aware_mpi_from_environment())
    {
      reinit(n);
    }

    template <typename Number>
    Vector<Number>::Vector(
        const std::shared_ptr<const Utilities::MPI::Partitioner> &partitioner)
        : cuda_aware_mpi(internal::cuda_aware_mpi_from_environment())
    {
      reinit(partitioner);
    }

    template <typename Number>
    Vector<Number>::~Vector() = default;

    template <typename Number>
    void Vector<Number>::reinit(const size_type n,
                                const bool      omit_zeroing_entries)
    {
      if (partitioner && partitioner->size() == n &&
          partitioner->locally_owned_size() == n && omit_zeroing_entries)
        return;
      partitioner = std::make_shared<Utilities::MPI::Partitioner>(n);
      pattern     = std::make_shared<internal::ExchangePattern>(*partitioner);
      values.resize(n);
      ghosted = false;
      if (!omit_zeroing_entries)
        Memory::set_zero(values.backend(), values.data(), n * sizeof(Number));
    }

    template <typename Number>
    void Vector<Number>::reinit(
        const std::shared_ptr<const Utilities::MPI::Partitioner>
            &new_partitioner)
    {
      Assert(new_partitioner, ExcMessage("empty partitioner"));
      partitioner = new_partitioner;
      pattern     = std::make_shared<internal::ExchangePattern>(*partitioner);
      values.resize(partitioner->locally_owned_size() +
                    partitioner->n_ghost_indices());
      Memory::set_zero(
          values.backend(), values.data(), values.size() * sizeof(Number));
      ghosted = false;
    }

    template <typename Number>
    template <typename Number2>
    void Vector<Number>::reinit(const Vector<Number2> &other,
                                const bool             omit_zeroing_entries)
    {
      partitioner = other.partitioner;
      pattern     = other.pattern;
      values.resize(other.values.size(), other.values.backend());
      ghosted = false;
      if (!omit_zeroing_entries)
        Memory::set_zero(
            values.backend(), values.data(), values.size() * sizeof(Number));
    }

    template <typename Number>
    Vector<Number> &Vector<Number>::operator=(const Vector &other)
    {
      if (this == &other)
        return *this;
      if (partitioner != other.partitioner)
        reinit(other, true);
      Memory::copy_within(values.backend(),
                          values.data(),
                          other.values.data(),
                          values.size() * sizeof(Number));
      ghosted = other.ghosted;
      return *this;
    }

    template <typename Number>
    Vector<Number> &Vector<Number>::operator=(Vector &&other) noexcept
    {
      swap(other);
      return *this;
    }

    template <typename Number>
    template <typename Number2>
    void
    Vector<Number>::copy_locally_owned_data_from(const Vector<Number2> &other)
    {
      AssertThrow(size() == other.size() &&
                      locally_owned_size() == other.locally_owned_size(),
                  ExcVectorLayoutMismatch(size(),
                                          other.size(),
                                          locally_owned_size(),
                                          other.locally_owned_size()));
      Number        *x = values.data();
      const Number2 *y = other.get_values();
      parallel_for("Vector::copy_locally_owned_data_from",
                   locally_owned_size(),
                   [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                   { x[i] = static_cast<Number>(y[i]); });
    }

    template <typename Number>
    void Vector<Number>::check_compatible(const Vector &v) const
    {
      AssertThrow(v.values.backend() == values.backend(),
                  ExcBackendMismatch(to_string(values.backend()),
                                     to_string(v.values.backend())));
      AssertThrow(
          v.partitioner == partitioner ||
              (v.size() == size() &&
               v.partitioner->local_range() == partitioner->local_range()),
          ExcVectorLayoutMismatch(
              size(), v.size(), locally_owned_size(), v.locally_owned_size()));
    }

    template <typename Number>
    Vector<Number> &Vector<Number>::operator=(const Number s)
    {
      Number           *x = values.data();
      const std::size_t n =
          s == Number() ? values.size() : locally_owned_size();
      internal::update<false>(
          "Vector::operator=",
          n,
          x,
          nullptr,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number, Number, Number) { return s; });
      if (s == Number())
        ghosted = false;
      return *this;
    }

    template <typename Number>
    Vector<Number> &Vector<Number>::operator*=(const Number factor)
    {
      Number *x = values.data();
      internal::update<true>(
          "Vector::operator*=",
          locally_owned_size(),
          x,
          nullptr,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number xi, Number, Number)
          { return xi * factor; });
      return *this;
    }

    template <typename Number>
    Vector<Number> &Vector<Number>::operator/=(const Number factor)
    {
      AssertThrow(factor != Number(), ExcDivideByZero());
      return *this *= Number(1) / factor;
    }

    template <typename Number>
    Vector<Number> &Vector<Number>::operator+=(const Vector &v)
    {
      add(Number(1), v);
      return *this;
    }

    template <typename Number>
    Vector<Number> &Vector<Number>::operator-=(const Vector &v)
    {
      add(Number(-1), v);
      return *this;
    }

    template <typename Number>
    void Vector<Number>::add(const Number a)
    {
      Number *x = values.data();
      internal::update<true>("Vector::add",
                             locally_owned_size(),
                             x,
                             nullptr,
                             nullptr,
                             [=] DEAL_II_GPU_HOST_DEVICE(
                                 Number xi, Number, Number) { return xi + a; });
    }

    template <typename Number>
    void Vector<Number>::add(const Number a, const Vector &v)
    {
      check_compatible(v);
      Number       *x = values.data();
      const Number *y = v.values.data();
      internal::update<true>(
          "Vector::add",
          locally_owned_size(),
          x,
          y,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number xi, Number yi, Number)
          { return xi + a * yi; });
    }

    template <typename Number>
    void Vector<Number>::add(const Number  a,
                             const Vector &v,
                             const Number  b,
                             const Vector &w)
    {
      check_compatible(v);
      check_compatible(w);
      Number       *x = values.data();
      const Number *y = v.values.data();
      const Number *z = w.values.data();
      internal::update<true>(
          "Vector::add",
          locally_owned_size(),
          x,
          y,
          z,
          [=] DEAL_II_GPU_HOST_DEVICE(Number xi, Number yi, Number zi)
          { return xi + a * yi + b * zi; });
    }

    template <typename Number>
    void Vector<Number>::sadd(const Number s, const Number a, const Vector &v)
    {
      check_compatible(v);
      Number       *x = values.data();
      const Number *y = v.values.data();
      internal::update<true>(
          "Vector::sadd",
          locally_owned_size(),
          x,
          y,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number xi, Number yi, Number)
          { return s * xi + a * yi; });
    }

    template <typename Number>
    void Vector<Number>::sadd(const Number s, const Vector &v)
    {
      sadd(s, Number(1), v);
    }

    template <typename Number>
    void Vector<Number>::equ(const Number a, const Vector &v)
    {
      check_compatible(v);
      Number       *x = values.data();
      const Number *y = v.values.data();
      internal::update<false>(
          "Vector::equ",
          locally_owned_size(),
          x,
          y,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number, Number yi, Number)
          { return a * yi; });
    }

    template <typename Number>
    void Vector<Number>::equ(const Number  a,
                             const Vector &v,
                             const Number  b,
                             const Vector &w)
    {
      check_compatible(v);
      check_compatible(w);
      Number       *x = values.data();
      const Number *y = v.values.data();
      const Number *z = w.values.data();
      internal::update<false>(
          "Vector::equ",
          locally_owned_size(),
          x,
          y,
          z,
          [=] DEAL_II_GPU_HOST_DEVICE(Number, Number yi, Number zi)
          { return a * yi + b * zi; });
    }

    template <typename Number>
    void Vector<Number>::scale(const Vector &v)
    {
      check_compatible(v);
      Number       *x = values.data();
      const Number *y = v.values.data();
      internal::update<true>(
          "Vector::scale",
          locally_owned_size(),
          x,
          y,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number xi, Number yi, Number)
          { return xi * yi; });
    }

    template <typename Number>
    Number Vector<Number>::operator*(const Vector &v) const
    {
      check_compatible(v);
      Number       *x     = const_cast<Number *>(values.data());
      const Number *y     = v.values.data();
      const double  local = internal::chunked<SumOp, true, false>(
          "Vector::operator*",
          locally_owned_size(),
          x,
          y,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number & xi, Number yi, Number)
          { return static_cast<double>(xi) * yi; });
      return Utilities::MPI::sum(local, get_mpi_communicator());
    }

    template <typename Number>
    Number Vector<Number>::add_and_dot(const Number  a,
                                       const Vector &v,
                                       const Vector &w)
    {
      check_compatible(v);
      check_compatible(w);
      Number       *x = values.data();
      const Number *y = v.values.data();
      const Number *z = w.values.data();
      // w may be this vector (deal.II's Gram-Schmidt does that): then the
      // dot product must use the updated entries, not the loaded ones.
      const double local =
          z == x
              ? internal::chunked<SumOp, true, true>(
                    "Vector::add_and_dot",
                    locally_owned_size(),
                    x,
                    y,
                    nullptr,
                    [=] DEAL_II_GPU_HOST_DEVICE(Number & xi, Number yi, Number)
                    {
                      xi += a * yi;
                      return static_cast<double>(xi) * xi;
                    })
              : internal::chunked<SumOp, true, true>(
                    "Vector::add_and_dot",
                    locally_owned_size(),
                    x,
                    y,
                    z,
                    [=] DEAL_II_GPU_HOST_DEVICE(
                        Number & xi, Number yi, Number zi)
                    {
                      xi += a * yi;
                      return static_cast<double>(xi) * zi;
                    });
      return Utilities::MPI::sum(local, get_mpi_communicator());
    }

    template <typename Number>
    typename Vector<Number>::real_type Vector<Number>::l1_norm() const
    {
      Number      *x     = const_cast<Number *>(values.data());
      const double local = internal::chunked<SumOp, true, false>(
          "Vector::l1_norm",
          locally_owned_size(),
          x,
          nullptr,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number & xi, Number, Number)
          { return static_cast<double>(xi < Number() ? -xi : xi); });
      return Utilities::MPI::sum(local, get_mpi_communicator());
    }

    template <typename Number>
    typename Vector<Number>::real_type Vector<Number>::norm_sqr() const
    {
      Number      *x     = const_cast<Number *>(values.data());
      const double local = internal::chunked<SumOp, true, false>(
          "Vector::norm_sqr",
          locally_owned_size(),
          x,
          nullptr,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number & xi, Number, Number)
          { return static_cast<double>(xi) * xi; });
      return Utilities::MPI::sum(local, get_mpi_communicator());
    }

    template <typename Number>
    typename Vector<Number>::real_type Vector<Number>::l2_norm() const
    {
      return std::sqrt(norm_sqr());
    }

    template <typename Number>
    typename Vector<Number>::real_type Vector<Number>::linfty_norm() const
    {
      Number      *x     = const_cast<Number *>(values.data());
      const double local = internal::chunked<MaxOp, true, false>(
          "Vector::linfty_norm",
          locally_owned_size(),
          x,
          nullptr,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number & xi, Number, Number)
          { return static_cast<double>(xi < Number() ? -xi : xi); });
      return Utilities::MPI::max(local, get_mpi_communicator());
    }

    template <typename Number>
    Number Vector<Number>::mean_value() const
    {
      Number      *x     = const_cast<Number *>(values.data());
      const double local = internal::chunked<SumOp, true, false>(
          "Vector::mean_value",
          locally_owned_size(),
          x,
          nullptr,
          nullptr,
          [=] DEAL_II_GPU_HOST_DEVICE(Number & xi, Number, Number)
          { return static_cast<double>(xi); });
      const double total = Utilities::MPI::sum(local, get_mpi_communicator());
      return size() > 0 ? static_cast<Number>(total / size()) : Number();
    }

    template <typename Number>
    bool Vector<Number>::all_zero() const
    {
      return linfty_norm() == real_type();
    }

    template <typename Number>
    typename Vector<Number>::size_type Vector<Number>::size() const
    {
      return partitioner->size();
    }

    template <typename Number>
    typename Vector<Number>::size_type
    Vector<Number>::locally_owned_size() const
    {
      return partitioner->locally_owned_size();
    }

    template <typename Number>
    IndexSet Vector<Number>::locally_owned_elements() const
    {
      return partitioner->locally_owned_range();
    }

    template <typename Number>
    typename Vector<Number>::ElementAccess
    Vector<Number>::operator()(const size_type global_index)
    {
      AssertThrow(partitioner->in_local_range(global_index) ||
                      partitioner->is_ghost_entry(global_index),
                  ExcMessage("Index " + std::to_string(global_index) +
                             " is neither owned nor a ghost on this rank."));
      return ElementAccess(values.data() +
                               partitioner->global_to_local(global_index),
                           values.backend());
    }

    template <typename Number>
    Number Vector<Number>::operator()(const size_type global_index) const
    {
      return const_cast<Vector &>(*this)(global_index);
    }

    template <typename Number>
    void Vector<Number>::swap(Vector &other) noexcept
    {
      std::swap(partitioner, other.partitioner);
      std::swap(pattern, other.pattern);
      values.swap(other.values);
      std::swap(ghosted, other.ghosted);
      std::swap(cuda_aware_mpi, other.cuda_aware_mpi);
    }

    template <typename Number>
    void Vector<Number>::update_ghost_values() const
    {
      update_ghost_values_start();
      update_ghost_values_finish();
    }

    template <typename Number>
    void Vector<Number>::update_ghost_values_start() const
    {
      exchange_start(true);
    }

    template <typename Number>
    void Vector<Number>::update_ghost_values_finish() const
    {
      exchange_finish(true);
      ghosted = true;
    }

    template <typename Number>
    void Vector<Number>::compress(const VectorOperation::values operation)
    {
      compress_start(operation);
      compress_finish(operation);
    }

    template <typename Number>
    void Vector<Number>::compress_start(const VectorOperation::values operation)
    {
      if (operation == VectorOperation::add)
        exchange_start(false);
    }

    template <typename Number>
    void
    Vector<Number>::compress_finish(const VectorOperation::values operation)
    {
      if (operation == VectorOperation::add)
        exchange_finish(false);
      zero_out_ghost_values();
    }

    template <typename Number>
    void Vector<Number>::zero_out_ghost_values() const
    {
      Memory::set_zero(values.backend(),
                       values.data() + locally_owned_size(),
                       partitioner->n_ghost_indices() * sizeof(Number));
      ghosted = false;
    }

    template <typename Number>
    bool Vector<Number>::has_ghost_elements() const
    {
      return ghosted;
    }

    // forward: owners send their imported entries to the ranks that hold
    // them as ghosts. Backward (compress add): ghosts go to their owners and
    // are added there; one owned entry may receive from several ranks, so
    // the unpacking adds atomically. The messages are posted in the start
    // call and waited for in the finish call.
    template <typename Number>
    void Vector<Number>::exchange_start(const bool forward) const
    {
      const Utilities::MPI::Partitioner &part = *partitioner;
      if (Utilities::MPI::n_mpi_processes(part.get_mpi_communicator()) == 1)
        return;
      internal::ExchangePattern &p = *pattern;
      AssertThrow(
          p.in_flight == nullptr,
          ExcMessage("GPU::Vector: a ghost exchange was started while "
                     "another one on a vector of the same layout is in "
                     "flight; finish it first (update_ghost_values_finish "
                     "or compress_finish)"));
      const std::size_t n_import = part.n_import_indices();
      const std::size_t n_ghost  = part.n_ghost_indices();
      const std::size_t n_owned  = part.locally_owned_size();
      const Backend     backend  = values.backend();
      const bool        staged   = backend == Backend::cuda && !cuda_aware_mpi;

      if (p.packed.size() < n_import * sizeof(Number) ||
          p.packed.backend() != backend)
        p.packed.resize(n_import * sizeof(Number), backend);
      Number             *packed  = reinterpret_cast<Number *>(p.packed.data());
      Number             *x       = values.data();
      const unsigned int *indices = p.import_indices.data();
      Number             *ghosts  = x + n_owned;

      // Buffers handed to MPI: host staging, or the backend memory itself.
      char *import_buffer = reinterpret_cast<char *>(packed);
      char *ghost_buffer  = reinterpret_cast<char *>(ghosts);
      if (staged)
      {
        import_buffer = p.host_send.get(n_import * sizeof(Number), true);
        ghost_buffer  = p.host_receive.get(n_ghost * sizeof(Number), true);
      }

      // The copies wait for the kernels before them (one stream), so the
      // data sent are complete; CUDA-aware MPI gets device pointers and
      // needs the device synchronized for the same reason.
      if (forward)
      {
        internal::pack(n_import, indices, x, packed);
        if (staged)
          Memory::copy_to_host(
              backend, import_buffer, packed, n_import * sizeof(Number));
      }
      else if (staged)
        Memory::copy_to_host(
            backend, ghost_buffer, ghosts, n_ghost * sizeof(Number));
      if (backend == Backend::cuda && !staged)
        Device::synchronize();

      const MPI_Comm comm = part.get_mpi_communicator();
      p.requests.clear();
      p.requests.reserve(part.ghost_targets().size() +
                         part.import_targets().size());
      std::size_t offset = 0;
      for (const auto &target : part.ghost_targets())
      {
        p.requests.emplace_back();
        char     *buffer = ghost_buffer + offset * sizeof(Number);
        const int bytes  = static_cast<int>(target.second * sizeof(Number));
        const int ierr   = forward ? MPI_Irecv(buffer,
                                             bytes,
                                             MPI_BYTE,
                                             target.first,
                                             internal::exchange_tag,
                                             comm,
                                             &p.requests.back())
                                   : MPI_Isend(buffer,
                                             bytes,
                                             MPI_BYTE,
                                             target.first,
                                             internal::exchange_tag,
                                             comm,
                                             &p.requests.back());
        AssertThrowMPI(ierr);
        offset += target.second;
      }
      offset = 0;
      for (const auto &target : part.import_targets())
      {
        p.requests.emplace_back();
        char     *buffer = import_buffer + offset * sizeof(Number);
        const int bytes  = static_cast<int>(target.second * sizeof(Number));
        const int ierr   = forward ? MPI_Isend(buffer,
                                             bytes,
                                             MPI_BYTE,
                                             target.first,
                                             internal::exchange_tag,
                                             comm,
                                             &p.requests.back())
                                   : MPI_Irecv(buffer,
                                             bytes,
                                             MPI_BYTE,
                                             target.first,
                                             internal::exchange_tag,
                                             comm,
                                             &p.requests.back());
        AssertThrowMPI(ierr);
        offset += target.second;
      }
      p.in_flight = this;
      p.forward   = forward;
    }

    template <typename Number>
    void Vector<Number>::exchange_finish(const bool forward) const
    {
      const Utilities::MPI::Partitioner &part = *partitioner;
      if (Utilities::MPI::n_mpi_processes(part.get_mpi_communicator()) == 1)
        return;
      internal::ExchangePattern &p = *pattern;
      AssertThrow(
          p.in_flight == this && p.forward == forward,
          ExcMessage(forward ? "GPU::Vector::update_ghost_values_finish() "
                               "without update_ghost_values_start() on this "
                               "vector"
                             : "GPU::Vector::compress_finish() without "
                               "compress_start() on this vector"));
      p.in_flight    = nullptr;
      const int ierr = MPI_Waitall(static_cast<int>(p.requests.size()),
                                   p.requests.data(),
                                   MPI_STATUSES_IGNORE);
      AssertThrowMPI(ierr);

      const std::size_t   n_import = part.n_import_indices();
      const std::size_t   n_ghost  = part.n_ghost_indices();
      const Backend       backend  = values.backend();
      const bool          staged  = backend == Backend::cuda && !cuda_aware_mpi;
      Number             *packed  = reinterpret_cast<Number *>(p.packed.data());
      Number             *x       = values.data();
      const unsigned int *indices = p.import_indices.data();
      if (forward)
      {
        if (staged)
          Memory::copy_to_backend(
              backend,
              x + part.locally_owned_size(),
              p.host_receive.get(n_ghost * sizeof(Number), true),
              n_ghost * sizeof(Number));
      }
      else
      {
        if (staged)
          Memory::copy_to_backend(
              backend,
              packed,
              p.host_send.get(n_import * sizeof(Number), true),
              n_import * sizeof(Number));
        internal::unpack_add(n_import, indices, packed, x);
      }
    }

    template <typename Number>
    void Vector<Number>::copy_locally_owned_data_from(
        const LinearAlgebra::distributed::Vector<Number, MemorySpace::Host>
            &host_vector)
    {
      AssertThrow(host_vector.size() == size() &&
                      host_vector.locally_owned_size() == locally_owned_size(),
                  ExcVectorLayoutMismatch(size(),
                                          host_vector.size(),
                                          locally_owned_size(),
                                          host_vector.locally_owned_size()));
      Memory::copy_to_backend(values.backend(),
                              values.data(),
                              host_vector.begin(),
                              locally_owned_size() * sizeof(Number));
    }

    template <typename Number>
    void Vector<Number>::copy_locally_owned_data_to(
        LinearAlgebra::distributed::Vector<Number, MemorySpace::Host>
            &host_vector) const
    {
      AssertThrow(host_vector.size() == size() &&
                      host_vector.locally_owned_size() == locally_owned_size(),
                  ExcVectorLayoutMismatch(size(),
                                          host_vector.size(),
                                          locally_owned_size(),
                                          host_vector.locally_owned_size()));
      Memory::copy_to_host(values.backend(),
                           host_vector.begin(),
                           values.data(),
                           locally_owned_size() * sizeof(Number));
    }

    template <typename Number>
    Number *Vector<Number>::get_values()
    {
      return values.data();
    }

    template <typename Number>
    const Number *Vector<Number>::get_values() const
    {
      return values.data();
    }

    template <typename Number>
    const std::shared_ptr<const Utilities::MPI::Partitioner> &
    Vector<Number>::get_partitioner() const
    {
      return partitioner;
    }

    template <typename Number>
    MPI_Comm Vector<Number>::get_mpi_communicator() const
    {
      return partitioner->get_mpi_communicator();
    }

    template <typename Number>
    Backend Vector<Number>::backend() const
    {
      return values.backend();
    }

    template <typename Number>
    void Vector<Number>::set_cuda_aware_mpi(const bool use)
    {
      cuda_aware_mpi = use;
    }

    template <typename Number>
    std::size_t Vector<Number>::memory_consumption() const
    {
      return sizeof(*this) + values.memory_consumption();
    }

    template <typename Number>
    void Vector<Number>::print(std::ostream      &out,
                               const unsigned int precision,
                               const bool         scientific) const
    {
      std::vector<Number> host(values.size());
      Memory::copy_to_host(values.backend(),
                           host.data(),
                           values.data(),
                           locally_owned_size() * sizeof(Number));
      const auto old_flags     = out.flags();
      const auto old_precision = out.precision(precision);
      if (scientific)
        out.setf(std::ios::scientific, std::ios::floatfield);
      else
        out.setf(std::ios::fixed, std::ios::floatfield);
      for (std::size_t i = 0; i < locally_owned_size(); ++i)
        out << host[i] << (i + 1 < locally_owned_size() ? ' ' : '\n');
      out.flags(old_flags);
      out.precision(old_precision);
    }

    template class Vector<float>;
    template class Vector<double>;
    template void Vector<float>::reinit(const Vector<double> &, const bool);
    template void Vector<double>::reinit(const Vector<float> &, const bool);
    template void Vector<float>::reinit(const Vector<float> &, const bool);
    template void Vector<double>::reinit(const Vector<double> &, const bool);
    template void
    Vector<float>::copy_locally_owned_data_from(const Vector<double> &);
    template void
    Vector<double>::copy_locally_owned_data_from(const Vector<float> &);
    template void
    Vector<float>::copy_locally_owned_data_from(const Vector<float> &);
    template void
    Vector<double>::copy_locally_owned_data_from(const Vector<double> &);
  } // namespace GPU

  namespace internal
  {
    namespace AffineConstraintsImplementation
    {
      namespace
      {
        template <typename Number>
        void
        set_zero_constrained(const std::vector<types::global_dof_index> &cm,
                             GPU::Vector<Number>                        &vec)
        {
          const auto               &part = *vec.get_partitioner();
          std::vector<unsigned int> local;
          for (const auto i : cm)
            if (part.in_local_range(i))
              local.push_back(part.global_to_local(i));
          GPU::Array<unsigned int> indices;
          indices.copy_from(local);
          const unsigned int *idx = indices.data();
          Number             *x   = vec.get_values();
          GPU::parallel_for("AffineConstraints::set_zero",
                            local.size(),
                            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                            { x[idx[j]] = Number(); });
          vec.compress(VectorOperation::insert);
        }
      } // namespace

      template <>
      void set_zero_all(const std::vector<types::global_dof_index> &cm,
                        GPU::Vector<float>                         &vec)
      {
        set_zero_constrained(cm, vec);
      }

      template <>
      void set_zero_all(const std::vector<types::global_dof_index> &cm,
                        GPU::Vector<double>                        &vec)
      {
        set_zero_constrained(cm, vec);
      }
    } // namespace AffineConstraintsImplementation

    namespace PreconditionChebyshevImplementation
    {
      namespace
      {
        template <typename Number>
        void fill_high_frequency(GPU::Vector<Number> &vector)
        {
          const types::global_dof_index first =
              vector.get_partitioner()->local_range().first;
          Number *x = vector.get_values();
          GPU::parallel_for("PreconditionChebyshev::set_initial_guess",
                            vector.locally_owned_size(),
                            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                            { x[i] = Number((first + i) % 11); });
          vector.add(-vector.mean_value());
        }
      } // namespace

      template <>
      void set_initial_guess(GPU::Vector<float> &vector)
      {
        fill_high_frequency(vector);
      }

      template <>
      void set_initial_guess(GPU::Vector<double> &vector)
      {
        fill_high_frequency(vector);
      }
    } // namespace PreconditionChebyshevImplementation
  }   // namespace internal
} // namespace dealii
