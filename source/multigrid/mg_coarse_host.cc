#include <dealii-gpu/multigrid/mg_coarse_direct.h>

#include <deal.II/lac/dynamic_sparsity_pattern.h>
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

    template <typename Number>
    void probe_matrix(const Vector<Number>                              &layout,
                      const std::function<void(Vector<Number> &,
                                               const Vector<Number> &)> &vmult,
                      TrilinosWrappers::SparseMatrix                    &matrix,
                      const types::global_dof_index max_size)
    {
      const types::global_dof_index n = layout.size();
      AssertThrow(n <= max_size,
                  ExcMessage("The direct coarse solver of an operator "
                             "without an assembled form probes it with one "
                             "vmult a DoF: the coarse level's " +
                             std::to_string(n) + " DoFs are more than " +
                             std::to_string(max_size) +
                             "; choose chebyshev or cg_jacobi"));
      Vector<Number> x, y;
      x.reinit(layout.get_partitioner());
      y.reinit(layout.get_partitioner());
      const IndexSet owned = x.locally_owned_elements();
      LinearAlgebra::distributed::Vector<Number, MemorySpace::Host> column(
          layout.get_partitioner());
      DynamicSparsityPattern dsp(n, n, owned);
      std::vector<std::vector<std::pair<types::global_dof_index, double>>> rows(
          owned.n_elements());
      for (types::global_dof_index j = 0; j < n; ++j)
      {
        x = Number(0);
        if (owned.is_element(j))
          x(j) = Number(1);
        vmult(y, x);
        y.copy_locally_owned_data_to(column);
        for (unsigned int i = 0; i < rows.size(); ++i)
          if (column.local_element(i) != Number(0))
          {
            rows[i].emplace_back(j, column.local_element(i));
            dsp.add(owned.nth_index_in_set(i), j);
          }
      }
      matrix.reinit(owned, owned, dsp, layout.get_mpi_communicator());
      for (unsigned int i = 0; i < rows.size(); ++i)
        for (const auto &entry : rows[i])
          matrix.set(owned.nth_index_in_set(i), entry.first, entry.second);
      matrix.compress(VectorOperation::insert);
    }

    template void probe_matrix<float>(
        const Vector<float> &,
        const std::function<void(Vector<float> &, const Vector<float> &)> &,
        TrilinosWrappers::SparseMatrix &,
        const types::global_dof_index);
    template void probe_matrix<double>(
        const Vector<double> &,
        const std::function<void(Vector<double> &, const Vector<double> &)> &,
        TrilinosWrappers::SparseMatrix &,
        const types::global_dof_index);

    template class MGCoarseGridHost<float>;
    template class MGCoarseGridHost<double>;
    template class MGCoarseGridDirect<float>;
    template class MGCoarseGridDirect<double>;
  } // namespace GPU
} // namespace dealii
