// Status checks of the CUDA libraries the kernels call (cuBLAS, cuSPARSE):
// a failed call throws naming the library, the status and its text, the
// call, file and line, as DEAL_II_GPU_CUDA_CHECK does for the runtime.
#ifndef dealii_gpu_source_base_library_check_h
#define dealii_gpu_source_base_library_check_h

#include <dealii-gpu/base/exceptions.h>

#include <string>

#define DEAL_II_GPU_LIBRARY_CHECK(call, success, library, status_text)         \
  do                                                                           \
  {                                                                            \
    const auto dealii_gpu_status_ = (call);                                    \
    if (dealii_gpu_status_ != (success))                                       \
      ::dealii::GPU::internal::throw_cuda_library_error(                       \
          std::string(library) + " status " +                                  \
              std::to_string(int(dealii_gpu_status_)),                         \
          status_text(dealii_gpu_status_),                                     \
          #call,                                                               \
          __FILE__,                                                            \
          __LINE__,                                                            \
          __func__);                                                           \
  } while (false)

#endif
