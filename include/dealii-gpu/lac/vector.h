// Distributed vector in the memory of the active backend.
#ifndef dealii_gpu_lac_vector_h
#define dealii_gpu_lac_vector_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/memory.h>

#include <deal.II/base/index_set.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/numbers.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/base/subscriptor.h>
#include <deal.II/lac/vector_operation.h>

#include <memory>
#include <vector>

namespace dealii
{
  namespace LinearAlgebra
  {
    namespace distributed
    {
      template <typename Number, typename MemorySpace>
      class Vector;
    }
  } // namespace LinearAlgebra

  namespace GPU
  {
    namespace internal
    {
      /** Device copies of a partitioner's import indices, shared by vectors. */
      struct ExchangePattern;
    } // namespace internal

    /**
     * A vector distributed over MPI ranks by a Utilities::MPI::Partitioner,
     * with its values in device memory under the CUDA backend and in host
     * memory under the host backend. Locally owned entries come first, then
     * the ghost entries in the partitioner's order, as in
     * LinearAlgebra::distributed::Vector.
     *
     * It provides what deal.II's solvers and preconditioners ask of a vector
     * (SolverCG, SolverGMRES, GrowingVectorMemory, DiagonalMatrix,
     * PreconditionChebyshev, Multigrid, PreconditionMG). Operations work on
     * the locally owned entries; reductions are over all ranks. Vectors in a
     * binary operation must have the same layout, else
     * ExcVectorLayoutMismatch is thrown.
     *
     * Ghost exchange packs on the device and sends through MPI, staged
     * through host buffers unless CUDA-aware MPI is switched on with
     * set_cuda_aware_mpi(true) (or DEALII_GPU_CUDA_AWARE_MPI=1).
     */
    template <typename Number>
    class Vector : public Subscriptor
    {
    public:
      using value_type = Number;
      using real_type  = typename numbers::NumberTraits<Number>::real_type;
      using size_type  = types::global_dof_index;

      /** Proxy for element access from host code; each access copies. */
      class ElementAccess
      {
      public:
        ElementAccess(Number *pointer, Backend backend)
            : pointer(pointer), backend(backend)
        {
        }
                       operator Number() const;
        ElementAccess &operator=(const Number value);
        ElementAccess &operator+=(const Number value);

      private:
        Number *pointer;
        Backend backend;
      };

      /** Empty vector on the current backend. */
      Vector();

      Vector(const Vector &other);

      Vector(Vector &&other) noexcept;

      /** Serial vector of size n (all entries owned, no ghosts). */
      explicit Vector(const size_type n);

      /** Vector laid out by a partitioner, zeroed. */
      explicit Vector(const std::shared_ptr<const Utilities::MPI::Partitioner>
                          &partitioner);

      ~Vector() override;

      /** Serial layout of size n; zeroed unless omit_zeroing_entries. */
      void reinit(const size_type n, const bool omit_zeroing_entries = false);

      /** Layout from a partitioner (owned + ghost indices), zeroed. */
      void reinit(const std::shared_ptr<const Utilities::MPI::Partitioner>
                      &partitioner);

      /** Same layout as another vector (of any number type). */
      template <typename Number2>
      void reinit(const Vector<Number2> &other,
                  const bool             omit_zeroing_entries = false);

      /** Copy: reinitializes the layout if it differs. */
      Vector &operator=(const Vector &other);

      Vector &operator=(Vector &&other) noexcept;

      /** Copy with conversion (e.g. double to float for mixed precision). */
      template <typename Number2>
      void copy_locally_owned_data_from(const Vector<Number2> &other);

      /** Set all locally owned entries to s (s == 0 also zeroes ghosts). */
      Vector &operator=(const Number s);

      Vector &operator*=(const Number factor);

      Vector &operator/=(const Number factor);

      Vector &operator+=(const Vector &v);

      Vector &operator-=(const Vector &v);

      /** this += a (every owned entry). */
      void add(const Number a);

      /** this += a * v. */
      void add(const Number a, const Vector &v);

      /** this += a * v + b * w. */
      void
      add(const Number a, const Vector &v, const Number b, const Vector &w);

      /** this = s * this + a * v. */
      void sadd(const Number s, const Number a, const Vector &v);

      /** this = s * this + v. */
      void sadd(const Number s, const Vector &v);

      /** this = a * v. */
      void equ(const Number a, const Vector &v);

      /** this = a * v + b * w. */
      void
      equ(const Number a, const Vector &v, const Number b, const Vector &w);

      /** this[i] *= v[i] (diagonal scaling). */
      void scale(const Vector &v);

      /** Dot product over all ranks. */
      Number operator*(const Vector &v) const;

      /** this += a * v, then return this * w, in one pass. */
      Number add_and_dot(const Number a, const Vector &v, const Vector &w);

      real_type l1_norm() const;

      real_type l2_norm() const;

      real_type norm_sqr() const;

      real_type linfty_norm() const;

      Number mean_value() const;

      /** True if every locally owned entry on every rank is zero. */
      bool all_zero() const;

      size_type size() const;

      /** Number of locally owned entries. */
      size_type locally_owned_size() const;

      IndexSet locally_owned_elements() const;

      /** Element access by global index (owned or ghost); slow, for tests. */
      ElementAccess operator()(const size_type global_index);

      Number operator()(const size_type global_index) const;

      void swap(Vector &other) noexcept;

      /** Fill the ghost entries from their owners. */
      void update_ghost_values() const;

      /**
       * Start filling the ghost entries: pack and post the messages, then
       * return, so that work not touching ghosts (cells inside the rank)
       * can run until update_ghost_values_finish(). Vectors sharing a
       * layout (reinit from one another) share the message buffers: only
       * one exchange among them can be in flight at a time.
       */
      void update_ghost_values_start() const;

      /** Wait for the messages of update_ghost_values_start(). */
      void update_ghost_values_finish() const;

      /**
       * VectorOperation::add: add the ghost entries into their owners'
       * entries and zero the ghosts. VectorOperation::insert: the owners
       * keep their values and the ghosts are zeroed.
       */
      void compress(const VectorOperation::values operation);

      /**
       * Start compress(): send the ghost entries to their owners and
       * return; the owned entries must not be written until
       * compress_finish() has added the received contributions.
       */
      void compress_start(const VectorOperation::values operation);

      /** Finish compress_start(): add what was received, zero the ghosts. */
      void compress_finish(const VectorOperation::values operation);

      /** Set the ghost entries to zero. */
      void zero_out_ghost_values() const;

      bool has_ghost_elements() const;

      /** Copy the locally owned entries of a deal.II host vector in. */
      void copy_locally_owned_data_from(
          const LinearAlgebra::distributed::Vector<Number, MemorySpace::Host>
              &host_vector);

      /** Copy the locally owned entries out to a deal.II host vector. */
      void copy_locally_owned_data_to(
          LinearAlgebra::distributed::Vector<Number, MemorySpace::Host>
              &host_vector) const;

      /** Values: owned entries, then ghosts; device memory under CUDA. */
      Number *get_values();

      const Number *get_values() const;

      const std::shared_ptr<const Utilities::MPI::Partitioner> &
      get_partitioner() const;

      MPI_Comm get_mpi_communicator() const;

      Backend backend() const;

      /** Use CUDA-aware MPI (device pointers to MPI) for ghost exchange. */
      void set_cuda_aware_mpi(const bool use);

      std::size_t memory_consumption() const;

      /** Print the locally owned entries (copied to the host). */
      void print(std::ostream      &out,
                 const unsigned int precision  = 3,
                 const bool         scientific = true) const;

    private:
      void check_compatible(const Vector &v) const;

      void exchange_start(const bool forward) const;

      void exchange_finish(const bool forward) const;

      std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
      std::shared_ptr<internal::ExchangePattern>         pattern;
      mutable Array<Number>                              values;
      mutable bool                                       ghosted = false;
      bool                                               cuda_aware_mpi;

      template <typename Number2>
      friend class Vector;
    };
  } // namespace GPU

  namespace internal
  {
    namespace AffineConstraintsImplementation
    {
      // AffineConstraints::set_zero() (used by deal.II's Chebyshev
      // eigenvalue estimate, among others) on GPU::Vector: a kernel zeroes
      // the locally owned constrained entries.
      template <class VectorType>
      void set_zero_all(const std::vector<types::global_dof_index> &cm,
                        VectorType                                 &vec);

      template <>
      void set_zero_all(const std::vector<types::global_dof_index> &cm,
                        GPU::Vector<float>                         &vec);

      template <>
      void set_zero_all(const std::vector<types::global_dof_index> &cm,
                        GPU::Vector<double>                        &vec);
    } // namespace AffineConstraintsImplementation

    namespace PreconditionChebyshevImplementation
    {
      // The start vector of deal.II's Chebyshev eigenvalue estimate. Its
      // generic version is the constant 1/sqrt(n), which holds little of
      // the high-frequency modes whose eigenvalue the smoother needs: the
      // estimate falls short on large meshes and the smoother amplifies
      // those modes. On GPU::Vector, as deal.II does for its own vectors:
      // (global index mod 11) minus its mean.
      template <typename VectorType>
      void set_initial_guess(VectorType &vector);

      template <>
      void set_initial_guess(GPU::Vector<float> &vector);

      template <>
      void set_initial_guess(GPU::Vector<double> &vector);
    } // namespace PreconditionChebyshevImplementation
  }   // namespace internal
} // namespace dealii

// deal.II's SolverCG with a DiagonalMatrix on this vector: every program
// that instantiates it must see the fused iteration.
#include <dealii-gpu/lac/solver_cg.h>

#endif
