// A team of a team kernel (parallel.h): its threads' loops, barriers and
// scratch memory, on either backend, and the atomics kernels use.
#ifndef dealii_gpu_base_team_member_h
#define dealii_gpu_base_team_member_h

#include <dealii-gpu/base/config.h>

#ifdef DEAL_II_GPU_COMPILING_CUDA
#  include <cuda_runtime.h>
#endif

#include <cstddef>

namespace dealii
{
  namespace GPU
  {
    /** Shape of a team: threads in x, y, z (x * y * z <= 1024). */
    struct TeamShape
    {
      unsigned int x = 1;
      unsigned int y = 1;
      unsigned int z = 1;

      DEAL_II_GPU_HOST_DEVICE unsigned int size() const { return x * y * z; }
    };

    /**
     * Handle a team functor receives: which team it is, its scratch memory,
     * loops over its threads and barriers.
     */
    class TeamMember
    {
    public:
      /** Longest loop a serial team unrolls on CUDA: the dim * 27 entries
       *  of the largest cells that run one thread per cell. */
      static constexpr unsigned int max_serial_unroll = 81;

      /**
       * @p rank: this thread's index in the team (device only);
       * @p warp_team: the team lives inside one warp, so its barriers are
       * warp barriers; @p serial: the team is one device thread that runs
       * all of the team's loops itself, as the host does (see
       * parallel_for_thread_teams).
       */
      DEAL_II_GPU_HOST_DEVICE
      TeamMember(const unsigned int team,
                 const TeamShape   &shape,
                 void              *scratch,
                 const bool         active    = true,
                 const unsigned int rank      = 0,
                 const bool         warp_team = false,
                 const bool         serial    = false)
          : team(team), shape(shape), scratch_memory(scratch), active(active),
            rank(rank), warp_team(warp_team), serial(serial)
      {
      }

      /** Index of this team in [0, n_teams). */
      DEAL_II_GPU_HOST_DEVICE unsigned int team_index() const { return team; }

      DEAL_II_GPU_HOST_DEVICE const TeamShape &team_shape() const
      {
        return shape;
      }

      /** Whether the team is one thread that runs all of its loops (see
       *  parallel_for_thread_teams), on the device or on the host.
       *
       *  The template argument @p may_be_serial of this function and of the
       *  loops and barriers below: false promises that the team is never
       *  serial, so the serial code is not compiled. The serial path in every
       *  team kernel made the CUDA test build about 8 times slower. */
      template <bool may_be_serial = true>
      DEAL_II_GPU_HOST_DEVICE bool is_serial() const
      {
        return may_be_serial && serial;
      }

      /** Team scratch memory (shared memory on CUDA), at a byte offset. */
      template <typename T>
      DEAL_II_GPU_HOST_DEVICE T *
      scratch(const std::size_t byte_offset = 0) const
      {
        return reinterpret_cast<T *>(static_cast<char *>(scratch_memory) +
                                     byte_offset);
      }

      /**
       * Call f(i) for every i in [0, n). On CUDA the thread of rank t in the
       * team takes i = t, t + team size, ...; on the host all i run in
       * order. The calls must not depend on each other.
       */
      template <bool may_be_serial = true, typename F>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      for_each(const unsigned int n, const F &f) const
      {
#ifdef __CUDA_ARCH__
        if (is_serial<may_be_serial>())
        {
          // Unrolled where n is known at compile time, so that scratch
          // indices become constants and the scratch can live in registers.
          // Only loops as short as those of the cells that run serially:
          // unrolling longer loops multiplies the compile time (nvcc 13).
          if (n <= max_serial_unroll)
          {
#  pragma unroll
            for (unsigned int i = 0; i < n; ++i)
              f(i);
          }
          else
            for (unsigned int i = 0; i < n; ++i)
              f(i);
          return;
        }
        if (!active)
          return;
        const unsigned int n_threads = shape.size();
        for (unsigned int i = rank; i < n; i += n_threads)
          f(i);
#else
        for (unsigned int i = 0; i < n; ++i)
          f(i);
#endif
      }

      /**
       * Call f(i, j, k) for all i < nx, j < ny, k < nz. On CUDA the points
       * are numbered i + nx (j + ny k) and dealt out like for_each(n), so a
       * team with as many threads as points has one thread per point, the
       * threads of a smaller index space are the first ranks, and extents
       * known at compile time turn the index arithmetic into multiplications.
       */
      template <bool may_be_serial = true, typename F>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      for_each(const unsigned int nx,
               const unsigned int ny,
               const unsigned int nz,
               const F           &f) const
      {
#ifdef __CUDA_ARCH__
        if (is_serial<may_be_serial>())
        {
          if (nx * ny * nz <= max_serial_unroll)
          {
#  pragma unroll
            for (unsigned int k = 0; k < nz; ++k)
#  pragma unroll
              for (unsigned int j = 0; j < ny; ++j)
#  pragma unroll
                for (unsigned int i = 0; i < nx; ++i)
                  f(i, j, k);
          }
          else
            for (unsigned int k = 0; k < nz; ++k)
              for (unsigned int j = 0; j < ny; ++j)
                for (unsigned int i = 0; i < nx; ++i)
                  f(i, j, k);
          return;
        }
        if (!active)
          return;
        const unsigned int n_threads = shape.size();
        for (unsigned int p = rank; p < nx * ny * nz; p += n_threads)
          f(p % nx, (p / nx) % ny, p / (nx * ny));
#else
        for (unsigned int k = 0; k < nz; ++k)
          for (unsigned int j = 0; j < ny; ++j)
            for (unsigned int i = 0; i < nx; ++i)
              f(i, j, k);
#endif
      }

      /**
       * All writes of the team before the barrier are visible to all its
       * threads after it. Call it from every thread (never inside for_each
       * or a branch that depends on the thread).
       */
      template <bool may_be_serial = true>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void barrier() const
      {
#ifdef __CUDA_ARCH__
        if (is_serial<may_be_serial>())
          return;
        if (warp_team)
          __syncwarp();
        else
          __syncthreads();
#endif
      }

      /**
       * A barrier that also tells whether @p condition holds for any thread
       * of the barrier's scope: the thread block, or the warp for teams of
       * at most 32 threads, which may hold several teams (see
       * parallel_for_teams). Use it to decide on a branch that contains
       * barriers: such a branch must be taken by the whole scope.
       */
      template <bool may_be_serial = true>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE bool
      barrier_or(const bool condition) const
      {
#ifdef __CUDA_ARCH__
        if (is_serial<may_be_serial>())
          return condition;
        if (warp_team)
          return __any_sync(0xffffffffu, condition && active) != 0;
        return __syncthreads_or(condition && active) != 0;
#else
        return condition;
#endif
      }

    private:
      unsigned int team;
      TeamShape    shape;
      void        *scratch_memory;
      // False for the padding threads of a grouped launch: their for_each
      // loops do nothing, team_index() is a valid index.
      bool         active;
      unsigned int rank;
      bool         warp_team;
      bool         serial;
    };

    /** Atomic *address += value on the device, a plain add on the host. */
    template <typename Number>
    DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
    atomic_add(Number *address, const Number value)
    {
#ifdef __CUDA_ARCH__
      atomicAdd(address, value);
#else
      *address += value;
#endif
    }

    /** Atomic fetch-and-add on the device (returns the old value), a plain
     *  one on the host. */
    DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
    fetch_add(unsigned int *address, const unsigned int value)
    {
#ifdef __CUDA_ARCH__
      return atomicAdd(address, value);
#else
      const unsigned int old = *address;
      *address += value;
      return old;
#endif
    }
  } // namespace GPU
} // namespace dealii

#endif
