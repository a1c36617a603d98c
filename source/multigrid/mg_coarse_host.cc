#include <dealii-gpu/multigrid/mg_coarse_direct.h>

#include <deal.II/lac/la_parallel_vector.h>

#include <algorithm>

namespace dealii
{
  namespace GPU
  {
    template <typename Number>
    void MGCoarseGridHost<Number>::reinit_host(const std::string &solver_name,
                                               const IndexSet    &owned,
                                               const MPI_Comm     communicator,
                                               const unsigned int level)
    {
      name         = solver_name;
      coarse_level = level;
      host_src.reinit(owned, communicator);
      host_dst.reinit(owned, communicator);
    }

    template <typename Number>
    void MGCoarseGridHost<Number>::operator()(const unsigned int    level,
                                              Vector<Number>       &dst,
                                              const Vector<Number> &src) const
    {
      AssertThrow(level == coarse_level,
                  ExcMessage(name + " was built for level " +
                             std::to_string(coarse_level) + ", called on " +
                             std::to_string(level)));
      AssertThrow(src.locally_owned_size() == host_src.locally_owned_size() &&
                      dst.locally_owned_size() == host_src.locally_owned_size(),
                  ExcMessage(name + ": vector of the wrong size"));
      LinearAlgebra::distributed::Vector<Number, MemorySpace::Host> staging(
          src.get_partitioner());
      src.copy_locally_owned_data_to(staging);
      std::copy(staging.begin(),
                staging.begin() + staging.locally_owned_size(),
                host_src.begin());
      host_dst = 0.;
      solve(host_dst, host_src);
      std::copy(host_dst.begin(), host_dst.end(), staging.begin());
      dst.copy_locally_owned_data_from(staging);
    }

    template <typename Number>
    void MGCoarseGridDirect<Number>::initialize(
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

    template <typename Number>
    void MGCoarseGridDirect<Number>::solve(
        TrilinosWrappers::MPI::Vector       &dst,
        const TrilinosWrappers::MPI::Vector &src) const
    {
      solver->solve(dst, src);
    }

    template class MGCoarseGridHost<float>;
    template class MGCoarseGridHost<double>;
    template class MGCoarseGridDirect<float>;
    template class MGCoarseGridDirect<double>;
  } // namespace GPU
} // namespace dealii
