#include <dealii-gpu/multigrid/mg_coarse_direct.h>

#include <deal.II/lac/la_parallel_vector.h>

#include <algorithm>
#include <type_traits>

namespace dealii
{
  namespace GPU
  {
    template <typename Number>
    using HostVector = LinearAlgebra::distributed::Vector<Number>;

    template <typename Number, typename VectorType>
    void MGCoarseGridHost<Number, VectorType>::reinit_host(
        const std::string &solver_name,
        const IndexSet    &owned,
        const MPI_Comm     communicator,
        const unsigned int level)
    {
      name         = solver_name;
      coarse_level = level;
      host_src.reinit(owned, communicator);
      host_dst.reinit(owned, communicator);
    }

    template <typename Number, typename VectorType>
    void MGCoarseGridHost<Number, VectorType>::operator()(
        const unsigned int level, VectorType &dst, const VectorType &src) const
    {
      AssertThrow(level == coarse_level,
                  ExcMessage(name + " was built for level " +
                             std::to_string(coarse_level) + ", called on " +
                             std::to_string(level)));
      AssertThrow(src.locally_owned_size() == host_src.locally_owned_size() &&
                      dst.locally_owned_size() == host_src.locally_owned_size(),
                  ExcMessage(name + ": vector of the wrong size"));
      if constexpr (std::is_same_v<VectorType, HostVector<Number>>)
      {
        std::copy(src.begin(),
                  src.begin() + src.locally_owned_size(),
                  host_src.begin());
        host_dst = 0.;
        solve(host_dst, host_src);
        std::copy(host_dst.begin(), host_dst.end(), dst.begin());
      }
      else
      {
        HostVector<Number> staging(src.get_partitioner());
        src.copy_locally_owned_data_to(staging);
        std::copy(staging.begin(),
                  staging.begin() + staging.locally_owned_size(),
                  host_src.begin());
        host_dst = 0.;
        solve(host_dst, host_src);
        std::copy(host_dst.begin(), host_dst.end(), staging.begin());
        dst.copy_locally_owned_data_from(staging);
      }
    }

    template <typename Number, typename VectorType>
    void MGCoarseGridDirect<Number, VectorType>::initialize(
        const TrilinosWrappers::SparseMatrix &coarse_matrix,
        const unsigned int                    level)
    {
      matrix.copy_from(coarse_matrix);
      this->reinit_host("MGCoarseGridDirect",
                        matrix.locally_owned_range_indices(),
                        matrix.get_mpi_communicator(),
                        level);
      solver = std::make_unique<TrilinosWrappers::SolverDirect>(control);
      solver->initialize(matrix);
    }

    template <typename Number, typename VectorType>
    void MGCoarseGridDirect<Number, VectorType>::solve(
        TrilinosWrappers::MPI::Vector       &dst,
        const TrilinosWrappers::MPI::Vector &src) const
    {
      solver->solve(dst, src);
    }

    template class MGCoarseGridHost<float>;
    template class MGCoarseGridHost<double>;
    template class MGCoarseGridHost<float, HostVector<float>>;
    template class MGCoarseGridHost<double, HostVector<double>>;
    template class MGCoarseGridDirect<float>;
    template class MGCoarseGridDirect<double>;
    template class MGCoarseGridDirect<float, HostVector<float>>;
    template class MGCoarseGridDirect<double, HostVector<double>>;
  } // namespace GPU
} // namespace dealii
