// GPU::MGCoarseGridHost: what the host coarse solvers of a multigrid
// V-cycle share (GPU::MGCoarseGridAMG, GPU::MGCoarseGridDirect): the coarse
// vector (GPU::Vector, or deal.II's distributed vector on the CPU backend)
// copied to a Trilinos vector, solved there, copied back.
#ifndef dealii_gpu_multigrid_mg_coarse_host_h
#define dealii_gpu_multigrid_mg_coarse_host_h

#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/index_set.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/trilinos_vector.h>
#include <deal.II/multigrid/mg_base.h>

#include <string>

namespace dealii
{
  namespace GPU
  {
    /**
     * A coarse solver for deal.II's Multigrid on @p VectorType
     * (GPU::Vector<Number>, or LinearAlgebra::distributed::Vector<Number>
     * for the CPU backend's levels) that solves on the host: operator()
     * copies the level's locally owned entries to a Trilinos vector, calls
     * solve() and copies the result back, so it pays off only where the
     * host solve beats the device's iterations.
     */
    template <typename Number, typename VectorType = Vector<Number>>
    class MGCoarseGridHost : public MGCoarseGridBase<VectorType>
    {
    public:
      void operator()(const unsigned int level,
                      VectorType        &dst,
                      const VectorType  &src) const override;

    protected:
      /** @p name for the exceptions; the solves are on @p level with the
       *  locally owned level DoFs @p owned. */
      void reinit_host(const std::string &name,
                       const IndexSet    &owned,
                       const MPI_Comm     communicator,
                       const unsigned int level);

      /** dst = approximate inverse of the coarse matrix times src. */
      virtual void solve(TrilinosWrappers::MPI::Vector       &dst,
                         const TrilinosWrappers::MPI::Vector &src) const = 0;

    private:
      std::string                           name         = "MGCoarseGridHost";
      unsigned int                          coarse_level = 0;
      mutable TrilinosWrappers::MPI::Vector host_src, host_dst;
    };
  } // namespace GPU
} // namespace dealii

#endif
