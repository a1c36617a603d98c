// GPU::Vector's ghost exchange: update_ghost_values() and compress() over
// MPI, packed on the backend, staged through page-locked host memory unless
// MPI is CUDA-aware. Compiled by nvcc with the CUDA backend and as C++
// without it.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/mpi.h>

#include "vector_exchange.h"

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
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
      } // namespace
    }   // namespace internal

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
      // Receives into or sends from @p base, one message a target rank.
      const auto post = [&](const auto &targets, char *base, const bool receive)
      {
        std::size_t offset = 0;
        for (const auto &target : targets)
        {
          p.requests.emplace_back();
          char     *buffer = base + offset * sizeof(Number);
          const int bytes  = static_cast<int>(target.second * sizeof(Number));
          const int ierr   = receive ? MPI_Irecv(buffer,
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
      };
      post(part.ghost_targets(), ghost_buffer, forward);
      post(part.import_targets(), import_buffer, !forward);
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

    template void Vector<float>::update_ghost_values() const;
    template void Vector<float>::update_ghost_values_start() const;
    template void Vector<float>::update_ghost_values_finish() const;
    template void Vector<float>::compress(const VectorOperation::values);
    template void Vector<float>::compress_start(const VectorOperation::values);
    template void Vector<float>::compress_finish(const VectorOperation::values);
    template void Vector<float>::zero_out_ghost_values() const;
    template bool Vector<float>::has_ghost_elements() const;
    template void Vector<float>::exchange_start(const bool) const;
    template void Vector<float>::exchange_finish(const bool) const;
    template void Vector<double>::update_ghost_values() const;
    template void Vector<double>::update_ghost_values_start() const;
    template void Vector<double>::update_ghost_values_finish() const;
    template void Vector<double>::compress(const VectorOperation::values);
    template void Vector<double>::compress_start(const VectorOperation::values);
    template void
    Vector<double>::compress_finish(const VectorOperation::values);
    template void Vector<double>::zero_out_ghost_values() const;
    template bool Vector<double>::has_ghost_elements() const;
    template void Vector<double>::exchange_start(const bool) const;
    template void Vector<double>::exchange_finish(const bool) const;
  } // namespace GPU
} // namespace dealii
