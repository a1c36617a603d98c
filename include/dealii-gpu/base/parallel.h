// Kernels written once, run on either backend.
//
// A kernel is a functor called once per *team* (a CUDA thread block, or one
// iteration of a loop on the host). Inside, work is expressed as loops over
// the team's threads (TeamMember::for_each) separated by TeamMember::barrier(),
// with team scratch memory (CUDA shared memory) to pass data between loops.
// doc/architecture.md lists the rules a kernel must follow so that both
// backends give the same result.
#ifndef dealii_gpu_base_parallel_h
#define dealii_gpu_base_parallel_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/team_member.h>

#ifdef DEAL_II_GPU_COMPILING_CUDA
#  include <cuda_runtime.h>
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** Host scratch for team kernels, kept between launches. */
      void *host_team_scratch(const std::size_t bytes);

      /**
       * Device buffer of at least @p bytes for partial sums of reductions,
       * and its pinned host mirror for the result.
       */
      void *device_reduction_buffer(const std::size_t bytes);

      void *host_reduction_result();

      [[noreturn]] void throw_not_compiled_for_cuda(const char *kernel_name);

      /** Check a team launch against the device limits. */
      void check_team_launch(const char        *kernel_name,
                             const TeamShape   &shape,
                             const std::size_t  scratch_bytes,
                             const unsigned int teams_per_block = 1);

      // Most threads a block of parallel_for_thread_teams() may have: its
      // kernel may then use all 255 registers a thread can have.
      constexpr unsigned int max_thread_teams_per_block = 256;

#ifdef DEAL_II_GPU_COMPILING_CUDA
      // Teams of more than 32 threads, several a block, one after another
      // in threadIdx.x; block barriers. No grid-stride loop (a grid holds
      // 2^31 - 1 blocks, more than any rank's cells), since its live state
      // across the functor costs registers.
      template <typename F>
      __global__ void team_kernel(const F            f,
                                  const unsigned int n_teams,
                                  const TeamShape    shape,
                                  const unsigned int scratch_stride)
      {
        extern __shared__ __align__(16) unsigned char team_scratch[];
        const unsigned int                            size = shape.size();
        const unsigned int                            g    = threadIdx.x / size;
        const unsigned int team   = blockIdx.x * (blockDim.x / size) + g;
        const bool         active = team < n_teams;
        f(TeamMember(active ? team : n_teams - 1,
                     shape,
                     team_scratch + g * scratch_stride,
                     active,
                     threadIdx.x - g * size));
      }

      // Teams of at most 32 threads: 32 / size of them in each warp, never
      // across two, so that their barriers are warp barriers. A warp
      // barrier leaves the other warps of the block running (block
      // barriers made 27-thread teams that straddle two warps wait for
      // each other).
      template <typename F>
      __global__ void warp_team_kernel(const F            f,
                                       const unsigned int n_teams,
                                       const TeamShape    shape,
                                       const unsigned int scratch_stride)
      {
        extern __shared__ __align__(16) unsigned char team_scratch[];
        const unsigned int                            size     = shape.size();
        const unsigned int                            per_warp = 32 / size;
        const unsigned int                            lane = threadIdx.x % 32;
        const unsigned int                            warp = threadIdx.x / 32;
        // Lanes past the last full team pad the warp: inactive, with the
        // last team's slot.
        const unsigned int sub  = min(lane / size, per_warp - 1);
        const unsigned int slot = warp * per_warp + sub;
        const unsigned int team =
            blockIdx.x * (blockDim.x / 32) * per_warp + slot;
        const bool active = lane < per_warp * size && team < n_teams;
        f(TeamMember(team < n_teams ? team : n_teams - 1,
                     shape,
                     team_scratch + slot * scratch_stride,
                     active,
                     lane - sub * size,
                     true));
      }

      // One team per thread; the team scratch is an array of the thread's
      // own, which the compiler keeps in registers where every index into
      // it is known at compile time.
      template <std::size_t scratch_bytes, typename F>
      __global__ void __launch_bounds__(max_thread_teams_per_block)
          thread_team_kernel(const F            f,
                             const unsigned int n_teams,
                             const TeamShape    shape)
      {
        const unsigned int team = blockIdx.x * blockDim.x + threadIdx.x;
        if (team >= n_teams)
          return;
        alignas(16) unsigned char scratch[scratch_bytes];
        f(TeamMember(team, shape, scratch, true, 0, false, true));
      }

      // One team per block. Written as a grid-stride loop: ptxas gives the
      // Q3 cell kernel 32 registers this way and 40 with a plain
      // `if (blockIdx.x < n_teams)` (H100, nvcc 13), and occupancy follows.
      template <typename F>
      __global__ void single_team_kernel(const F            f,
                                         const unsigned int n_teams,
                                         const TeamShape    shape)
      {
        extern __shared__ __align__(16) unsigned char team_scratch[];
        for (unsigned int team = blockIdx.x; team < n_teams; team += gridDim.x)
        {
          f(TeamMember(team, shape, team_scratch, true, threadIdx.x));
          if (team + gridDim.x < n_teams)
            __syncthreads();
        }
      }

      // Dynamic shared memory past the default 48 KiB for @p kernel.
      template <typename Kernel>
      void allow_shared_memory(Kernel *kernel, const std::size_t bytes)
      {
        if (bytes > 48 * 1024)
          DEAL_II_GPU_CUDA_CHECK(
              cudaFuncSetAttribute(kernel,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(bytes)));
      }

      template <typename F>
      __global__ void index_kernel(const F f, const std::size_t n)
      {
        const std::size_t i =
            static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        if (i < n)
          f(i);
      }

      constexpr unsigned int reduction_block_size = 256;

      template <typename Op>
      __device__ DEAL_II_GPU_FORCE_INLINE double
      block_reduce(double value, double *warp_values)
      {
        for (int offset = 16; offset > 0; offset /= 2)
          value =
              Op::combine(value, __shfl_down_sync(0xffffffffu, value, offset));
        if (threadIdx.x % 32 == 0)
          warp_values[threadIdx.x / 32] = value;
        __syncthreads();
        value = 0.;
        if (threadIdx.x < 32)
        {
          value = threadIdx.x < blockDim.x / 32 ? warp_values[threadIdx.x] : 0.;
          for (int offset = 16; offset > 0; offset /= 2)
            value = Op::combine(value,
                                __shfl_down_sync(0xffffffffu, value, offset));
        }
        return value;
      }

      // Op-reduction of f(i) over a grid-stride range: four independent
      // partial results per thread keep several loads in flight; one
      // partial result per block.
      template <typename Op, typename F>
      __global__ void __launch_bounds__(reduction_block_size)
          reduce_kernel(const F f, const std::size_t n, double *partials)
      {
        __shared__ double warp_values[reduction_block_size / 32];
        const std::size_t stride =
            static_cast<std::size_t>(gridDim.x) * blockDim.x;
        std::size_t i =
            static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (; i + 3 * stride < n; i += 4 * stride)
        {
          s0 = Op::combine(s0, f(i));
          s1 = Op::combine(s1, f(i + stride));
          s2 = Op::combine(s2, f(i + 2 * stride));
          s3 = Op::combine(s3, f(i + 3 * stride));
        }
        for (; i < n; i += stride)
          s0 = Op::combine(s0, f(i));
        const double value = block_reduce<Op>(
            Op::combine(Op::combine(s0, s1), Op::combine(s2, s3)), warp_values);
        if (threadIdx.x == 0)
          partials[blockIdx.x] = value;
      }

      template <typename Op>
      __global__ void reduce_partials_kernel(double            *partials,
                                             const unsigned int n)
      {
        __shared__ double warp_values[32];
        double            value = 0.;
        for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)
          value = Op::combine(value, partials[i]);
        value = block_reduce<Op>(value, warp_values);
        if (threadIdx.x == 0)
          partials[0] = value;
      }

      // Blocks of a grid-stride reduction over n entries: enough to fill the
      // device, one partial result each.
      inline unsigned int reduction_blocks(const std::size_t n)
      {
        const std::size_t wanted =
            (n + reduction_block_size - 1) / reduction_block_size;
        const std::size_t max_blocks = 8 * Device::n_multiprocessors();
        return static_cast<unsigned int>(wanted < max_blocks ? wanted
                                                             : max_blocks);
      }

      // Addition for block_reduce() (GPU::SumOp comes later in the file).
      struct Plus
      {
        static __device__ DEAL_II_GPU_FORCE_INLINE double
        combine(const double a, const double b)
        {
          return a + b;
        }
      };

      // N sums of a grid-stride range, f(i, s) adding into s[0..N): the
      // N partial results of block b at partials[k * gridDim.x + b].
      template <unsigned int N, typename F>
      __global__ void __launch_bounds__(reduction_block_size)
          sums_kernel(const F f, const std::size_t n, double *partials)
      {
        __shared__ double warp_values[reduction_block_size / 32];
        const std::size_t stride =
            static_cast<std::size_t>(gridDim.x) * blockDim.x;
        double s[N];
        for (unsigned int k = 0; k < N; ++k)
          s[k] = 0.;
        for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x +
                             threadIdx.x;
             i < n;
             i += stride)
          f(i, s);
        for (unsigned int k = 0; k < N; ++k)
        {
          const double value = block_reduce<Plus>(s[k], warp_values);
          if (threadIdx.x == 0)
            partials[k * gridDim.x + blockIdx.x] = value;
          // warp_values is reused by the next sum.
          __syncthreads();
        }
      }

      // Block k sums the n partials of sum k into result[k] (a template,
      // like every kernel of this header, for one definition per program).
      template <unsigned int N>
      __global__ void sums_partials_kernel(const double      *partials,
                                           const unsigned int n,
                                           double            *result)
      {
        __shared__ double warp_values[32];
        double            value = 0.;
        for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)
          value += partials[blockIdx.x * n + i];
        value = block_reduce<Plus>(value, warp_values);
        if (threadIdx.x == 0)
          result[blockIdx.x] = value;
      }
#endif
    } // namespace internal

    namespace internal
    {
      // Teams of @p shape packed into one warp; 0 for teams larger than a
      // warp.
      inline unsigned int teams_per_warp(const TeamShape &shape)
      {
        return shape.size() <= 32 ? 32 / shape.size() : 0;
      }
    } // namespace internal

    /**
     * The CUDA kernels a parallel_for_teams() call compiles. Each launch
     * form is a kernel of its own, compiled for the functor; a caller that
     * knows its team size at compile time compiles only the one it uses
     * (a third of the device code and of its compile time).
     */
    enum class TeamKernels
    {
      /** Every form; the launch picks one from the shape at run time. */
      any,
      /**
       * Teams of at most 32 threads, packed into whole warps: teams_per_block
       * is rounded up to a multiple of 32 / size (at least one warp).
       */
      warp_packed,
      /** One team a block, of any size; teams_per_block must be 1. */
      one_per_block
    };

    /**
     * As parallel_for_teams(), but on CUDA each team is a single thread
     * that runs all of the team's loops (as the host does), @p
     * threads_per_block teams a block, and its @p scratch_bytes of scratch
     * are the thread's own array, not shared memory. There are no barriers
     * to wait for and, where the team's loops have extents known at compile
     * time (they are unrolled), the scratch stays in registers: for small
     * teams, such as the cells of low degree, that is cheaper than passing
     * the data between threads through shared memory. Larger scratch goes
     * to local memory.
     */
    template <std::size_t scratch_bytes, typename F>
    void parallel_for_thread_teams(const char        *name,
                                   const unsigned int n_teams,
                                   const TeamShape   &shape,
                                   const F           &f,
                                   const unsigned int threads_per_block = 128)
    {
      if (n_teams == 0)
        return;
      AssertThrow(
          threads_per_block >= 1 &&
              threads_per_block <= internal::max_thread_teams_per_block,
          ExcMessage(std::string(name) + ": " +
                     std::to_string(threads_per_block) +
                     " threads per block, at most " +
                     std::to_string(internal::max_thread_teams_per_block)));
      if (Device::backend() == Backend::cuda)
      {
#ifdef DEAL_II_GPU_COMPILING_CUDA
        const unsigned int n_blocks = (n_teams - 1) / threads_per_block + 1;
        internal::thread_team_kernel<scratch_bytes, F>
            <<<n_blocks, threads_per_block>>>(f, n_teams, shape);
        DEAL_II_GPU_CHECK_LAUNCH(name);
#else
        internal::throw_not_compiled_for_cuda(name);
#endif
      }
      else
      {
        // The same team code as on CUDA, so the host tests cover it.
        void *scratch = internal::host_team_scratch(scratch_bytes);
        for (unsigned int team = 0; team < n_teams; ++team)
          f(TeamMember(team, shape, scratch, true, 0, false, true));
      }
    }

    /**
     * Run the team functor @p f for teams 0, ..., n_teams - 1, each with
     * @p shape threads and @p scratch_bytes of team scratch memory.
     * f is called as f(const TeamMember &) and must be callable on host and
     * device (DEAL_II_GPU_HOST_DEVICE). @p name appears in error messages.
     *
     * On CUDA, @p teams_per_block teams share one thread block, which keeps
     * small teams from leaving the multiprocessors idle. Teams of at most 32
     * threads are then packed into warps (32 / size a warp, rounded up to
     * whole warps), and their barriers are warp barriers; larger teams use
     * block barriers. Either way a functor must pass the same barriers
     * whatever its team index is (branch with barrier_or()). @p kernels
     * limits the kernels compiled to one launch form (TeamKernels).
     */
    template <TeamKernels kernels = TeamKernels::any, typename F>
    void parallel_for_teams(const char        *name,
                            const unsigned int n_teams,
                            const TeamShape   &shape,
                            const std::size_t  scratch_bytes,
                            const F           &f,
                            const unsigned int teams_per_block = 1)
    {
      if (n_teams == 0)
        return;
      const unsigned int per_warp = internal::teams_per_warp(shape);
      AssertThrow(kernels != TeamKernels::warp_packed || per_warp > 0,
                  ExcMessage(std::string(name) + ": teams of " +
                             std::to_string(shape.size()) +
                             " threads launched as TeamKernels::warp_packed "
                             "(at most 32 threads)"));
      AssertThrow(kernels != TeamKernels::one_per_block || teams_per_block == 1,
                  ExcMessage(std::string(name) + ": " +
                             std::to_string(teams_per_block) +
                             " teams per block launched as "
                             "TeamKernels::one_per_block"));
      // Warp-packed launch: teams_per_block rounded up to whole warps.
      const bool packed =
          kernels == TeamKernels::warp_packed ||
          (kernels == TeamKernels::any && teams_per_block > 1 && per_warp > 0);
      const unsigned int n_warps =
          packed ? std::max(1u, (teams_per_block + per_warp - 1) / per_warp)
                 : 0;
      const std::size_t stride = (scratch_bytes + 15) / 16 * 16;
      // A warp of packed teams is checked as one 32-thread team.
      internal::check_team_launch(name,
                                  n_warps > 0 ? TeamShape{32, 1, 1} : shape,
                                  n_warps > 0 ? stride * per_warp
                                              : scratch_bytes,
                                  n_warps > 0 ? n_warps : teams_per_block);
      if (Device::backend() == Backend::cuda)
      {
#ifdef DEAL_II_GPU_COMPILING_CUDA
        const unsigned int teams_in_block =
            n_warps > 0 ? n_warps * per_warp : teams_per_block;
        const std::size_t  bytes    = stride * teams_in_block;
        const unsigned int n_blocks = (n_teams - 1) / teams_in_block + 1;
        AssertThrow(n_blocks <= 2147483647u,
                    ExcMessage(std::string(name) + ": too many teams"));
        // Only the kernels of the forms @p kernels allows are instantiated.
        if constexpr (kernels != TeamKernels::one_per_block)
          if (n_warps > 0)
          {
            internal::allow_shared_memory(internal::warp_team_kernel<F>, bytes);
            internal::warp_team_kernel<F><<<n_blocks, 32 * n_warps, bytes>>>(
                f, n_teams, shape, static_cast<unsigned int>(stride));
            DEAL_II_GPU_CHECK_LAUNCH(name);
            return;
          }
        if constexpr (kernels != TeamKernels::warp_packed)
          if (teams_per_block == 1)
          {
            internal::allow_shared_memory(internal::single_team_kernel<F>,
                                          bytes);
            internal::single_team_kernel<F>
                <<<n_blocks, shape.size(), bytes>>>(f, n_teams, shape);
            DEAL_II_GPU_CHECK_LAUNCH(name);
            return;
          }
        if constexpr (kernels == TeamKernels::any)
        {
          internal::allow_shared_memory(internal::team_kernel<F>, bytes);
          internal::team_kernel<F>
              <<<n_blocks, shape.size() * teams_per_block, bytes>>>(
                  f, n_teams, shape, static_cast<unsigned int>(stride));
          DEAL_II_GPU_CHECK_LAUNCH(name);
        }
#else
        internal::throw_not_compiled_for_cuda(name);
#endif
      }
      else
      {
        void *scratch = internal::host_team_scratch(scratch_bytes);
        for (unsigned int team = 0; team < n_teams; ++team)
          f(TeamMember(team, shape, scratch));
      }
    }

    /**
     * Call f(i) for i in [0, n), one thread per index on CUDA, a loop on
     * the host. The calls must be independent.
     */
    template <typename F>
    void parallel_for(const char *name, const std::size_t n, const F &f)
    {
      if (n == 0)
        return;
      if (Device::backend() == Backend::cuda)
      {
#ifdef DEAL_II_GPU_COMPILING_CUDA
        constexpr unsigned int block    = 256;
        const std::size_t      n_blocks = (n + block - 1) / block;
        AssertThrow(n_blocks < 2147483647u,
                    ExcMessage("parallel_for: range too large"));
        internal::index_kernel<F>
            <<<static_cast<unsigned int>(n_blocks), block>>>(f, n);
        DEAL_II_GPU_CHECK_LAUNCH(name);
#else
        internal::throw_not_compiled_for_cuda(name);
#endif
      }
      else
        for (std::size_t i = 0; i < n; ++i)
          f(i);
    }

    /** Combine operations for parallel_reduce(). */
    struct SumOp
    {
      static DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE double
      combine(const double a, const double b)
      {
        return a + b;
      }
    };

    /** Maximum; its identity 0 fits reductions of non-negative values. */
    struct MaxOp
    {
      static DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE double
      combine(const double a, const double b)
      {
        return a > b ? a : b;
      }
    };

    /**
     * Reduce f(i) over i in [0, n) with Op (SumOp or MaxOp, identity 0),
     * in double on both backends. This process only: reduce over MPI
     * yourself. The calls f(i) may also update data at index i (fused
     * update and reduction).
     */
    template <typename Op, typename F>
    double parallel_reduce(const char *name, const std::size_t n, const F &f)
    {
      if (n == 0)
        return 0.;
      if (Device::backend() == Backend::cuda)
      {
#ifdef DEAL_II_GPU_COMPILING_CUDA
        using namespace internal;
        const unsigned int n_blocks = reduction_blocks(n);
        double            *partials = static_cast<double *>(
            device_reduction_buffer(sizeof(double) * n_blocks));
        reduce_kernel<Op, F>
            <<<n_blocks, reduction_block_size>>>(f, n, partials);
        DEAL_II_GPU_CHECK_LAUNCH(name);
        reduce_partials_kernel<Op><<<1, 1024>>>(partials, n_blocks);
        DEAL_II_GPU_CHECK_LAUNCH(name);
        double *result = static_cast<double *>(host_reduction_result());
        DEAL_II_GPU_CUDA_CHECK(cudaMemcpy(
            result, partials, sizeof(double), cudaMemcpyDeviceToHost));
        return *result;
#else
        internal::throw_not_compiled_for_cuda(name);
#endif
      }
      else
      {
        // Blocked summation keeps the rounding error of long sums small,
        // close to the tree order of the device.
        double                total = 0.;
        constexpr std::size_t chunk = 256;
        for (std::size_t start = 0; start < n; start += chunk)
        {
          const std::size_t end = start + chunk < n ? start + chunk : n;
          double            s   = 0.;
          for (std::size_t i = start; i < end; ++i)
            s = Op::combine(s, f(i));
          total = Op::combine(total, s);
        }
        return total;
      }
    }

    /**
     * N sums in one pass over [0, n): f(i, s) adds its terms into s[0..N)
     * (double s[N]). In double on both backends, this process only, as
     * parallel_reduce().
     */
    template <unsigned int N, typename F>
    std::array<double, N>
    parallel_sums(const char *name, const std::size_t n, const F &f)
    {
      static_assert(N >= 1 && N <= 8, "1 to 8 sums (the result buffer)");
      std::array<double, N> total{};
      if (n == 0)
        return total;
      if (Device::backend() == Backend::cuda)
      {
#ifdef DEAL_II_GPU_COMPILING_CUDA
        using namespace internal;
        const unsigned int n_blocks = reduction_blocks(n);
        double            *partials = static_cast<double *>(
            device_reduction_buffer(sizeof(double) * (N * n_blocks + N)));
        sums_kernel<N, F><<<n_blocks, reduction_block_size>>>(f, n, partials);
        DEAL_II_GPU_CHECK_LAUNCH(name);
        sums_partials_kernel<N>
            <<<N, 1024>>>(partials, n_blocks, partials + N * n_blocks);
        DEAL_II_GPU_CHECK_LAUNCH(name);
        double *result = static_cast<double *>(host_reduction_result());
        DEAL_II_GPU_CUDA_CHECK(cudaMemcpy(result,
                                          partials + N * n_blocks,
                                          N * sizeof(double),
                                          cudaMemcpyDeviceToHost));
        for (unsigned int k = 0; k < N; ++k)
          total[k] = result[k];
#else
        internal::throw_not_compiled_for_cuda(name);
#endif
      }
      else
      {
        // Blocked, as parallel_reduce().
        constexpr std::size_t chunk = 256;
        for (std::size_t start = 0; start < n; start += chunk)
        {
          const std::size_t end = start + chunk < n ? start + chunk : n;
          double            s[N];
          for (unsigned int k = 0; k < N; ++k)
            s[k] = 0.;
          for (std::size_t i = start; i < end; ++i)
            f(i, s);
          for (unsigned int k = 0; k < N; ++k)
            total[k] += s[k];
        }
      }
      return total;
    }

    /** Sum of f(i) over [0, n); see parallel_reduce(). */
    template <typename F>
    double parallel_sum(const char *name, const std::size_t n, const F &f)
    {
      return parallel_reduce<SumOp>(name, n, f);
    }

    /** Maximum of non-negative f(i) over [0, n); 0 for n == 0. */
    template <typename F>
    double parallel_max(const char *name, const std::size_t n, const F &f)
    {
      return parallel_reduce<MaxOp>(name, n, f);
    }
  } // namespace GPU
} // namespace dealii

#endif
