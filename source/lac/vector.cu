// GPU::Vector: storage, element-wise kernels and reductions (the ghost
// exchange: vector_exchange.cu). This file is compiled by nvcc with the
// CUDA backend and as C++ without it.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/mpi.h>
#include <deal.II/lac/la_parallel_vector.h>

#include "vector_exchange.h"

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
      namespace
      {
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
} // namespace dealii
