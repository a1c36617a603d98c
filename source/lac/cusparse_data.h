// The cuSPARSE descriptor and work buffer a GPU::SparseMatrix keeps (empty
// without CUDA); shared by the structure and the products.
#ifndef dealii_gpu_source_lac_cusparse_data_h
#define dealii_gpu_source_lac_cusparse_data_h

#include <dealii-gpu/base/memory.h>

#ifdef DEAL_II_GPU_COMPILING_CUDA
#  include <cusparse.h>
#endif

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
#ifdef DEAL_II_GPU_COMPILING_CUDA
      struct CusparseData
      {
        cusparseSpMatDescr_t matrix = nullptr;
        Array<char>          buffer;
        bool                 analysed = false;

        ~CusparseData()
        {
          if (matrix != nullptr)
            cusparseDestroySpMat(matrix);
        }
      };
#else
      struct CusparseData
      {
      };
#endif
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
