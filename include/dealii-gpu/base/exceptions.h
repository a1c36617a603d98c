// Exceptions of dealii-gpu and the macros that check every CUDA call.
#ifndef dealii_gpu_base_exceptions_h
#define dealii_gpu_base_exceptions_h

#include <dealii-gpu/base/config.h>

#include <deal.II/base/exceptions.h>

#include <cstddef>
#include <string>

namespace dealii
{
  namespace GPU
  {
    /**
     * A CUDA runtime call or kernel launch failed. deal.II's ExceptionBase
     * adds the file, line and function where it was raised.
     */
    DeclException3(ExcCudaError,
                   std::string,
                   std::string,
                   std::string,
                   << "The CUDA call\n    " << arg1 << "\nfailed with " << arg2
                   << ": " << arg3);

    /**
     * A device allocation did not fit into the free device memory.
     */
    DeclException4(ExcOutOfDeviceMemory,
                   std::string,
                   std::size_t,
                   std::size_t,
                   std::size_t,
                   << "Out of device memory on " << arg1 << ": asked for "
                   << arg2 << " bytes (" << arg2 / (1024. * 1024.)
                   << " MiB) while " << arg3 << " bytes ("
                   << arg3 / (1024. * 1024.) << " MiB) of " << arg4
                   << " bytes are free.");

    /**
     * A host-backend allocation failed.
     */
    DeclException1(ExcOutOfHostMemory,
                   std::size_t,
                   << "Out of host memory: asked for " << arg1 << " bytes ("
                   << arg1 / (1024. * 1024.) << " MiB).");

    /**
     * The CUDA backend is selected but the code cannot use it.
     */
    DeclException1(ExcCudaNotAvailable,
                   std::string,
                   << "The CUDA backend cannot be used: " << arg1);

    /**
     * Two objects that must live on the same backend do not.
     */
    DeclException2(ExcBackendMismatch,
                   std::string,
                   std::string,
                   << "Objects on different backends: " << arg1 << " and "
                   << arg2 << ". Create both after Device::initialize().");

    /**
     * Two vectors whose layouts (global size, locally owned range and
     * ghost indices) must agree do not.
     */
    DeclException4(ExcVectorLayoutMismatch,
                   std::size_t,
                   std::size_t,
                   std::size_t,
                   std::size_t,
                   << "Vector layouts do not match: global sizes " << arg1
                   << " and " << arg2 << ", locally owned sizes " << arg3
                   << " and " << arg4 << ".");

    namespace internal
    {
      /** Throws ExcCudaError for a failed call; used by the macros below. */
      [[noreturn]] void throw_cuda_error(int         error_code,
                                         const char *call,
                                         const char *file,
                                         int         line,
                                         const char *function);

      /** Throws ExcCudaError for a failed call of a CUDA library (cuSPARSE,
       *  cuBLAS): @p name says the library and status, @p text is the
       *  library's description of it. */
      [[noreturn]] void throw_cuda_library_error(const std::string &name,
                                                 const std::string &text,
                                                 const char        *call,
                                                 const char        *file,
                                                 int                line,
                                                 const char        *function);
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

/**
 * Checks the return code of a CUDA runtime call and throws
 * GPU::ExcCudaError naming the call, file and line if it failed.
 */
#define DEAL_II_GPU_CUDA_CHECK(call)                                           \
  do                                                                           \
  {                                                                            \
    const int dealii_gpu_error_code_ = static_cast<int>(call);                 \
    if (dealii_gpu_error_code_ != 0)                                           \
      ::dealii::GPU::internal::throw_cuda_error(                               \
          dealii_gpu_error_code_, #call, __FILE__, __LINE__, __func__);        \
  } while (false)

/**
 * Checks a kernel launch (cudaGetLastError()); with DEALII_GPU_SYNC=1 in the
 * environment also waits for the kernel so that faults name the launch.
 */
#define DEAL_II_GPU_CHECK_LAUNCH(kernel_name)                                  \
  do                                                                           \
  {                                                                            \
    DEAL_II_GPU_CUDA_CHECK(cudaGetLastError());                                \
    if (::dealii::GPU::internal::synchronize_after_launch())                   \
    {                                                                          \
      const int dealii_gpu_error_code_ =                                       \
          static_cast<int>(cudaDeviceSynchronize());                           \
      if (dealii_gpu_error_code_ != 0)                                         \
        ::dealii::GPU::internal::throw_cuda_error(                             \
            dealii_gpu_error_code_,                                            \
            (std::string("kernel ") + (kernel_name)).c_str(),                  \
            __FILE__,                                                          \
            __LINE__,                                                          \
            __func__);                                                         \
    }                                                                          \
  } while (false)

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** True when DEALII_GPU_SYNC=1 asks for a synchronize per launch. */
      bool synchronize_after_launch();
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
