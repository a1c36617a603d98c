// Kernel-based operators for the solver and multigrid tests: the 1D
// finite-difference Laplacian -u'' on (0, 1) with zero Dirichlet values,
// N interior points split evenly over the MPI ranks, and linear
// interpolation between nested grids. Include from .cu files only.
#ifndef dealii_gpu_tests_stencil_operator_h
#define dealii_gpu_tests_stencil_operator_h

#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/index_set.h>
#include <deal.II/base/mg_level_object.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/multigrid/mg_base.h>

#include <memory>

namespace Stencil
{
  using namespace dealii;

  // Owned range [begin, end) of rank r for n entries.
  inline std::pair<unsigned int, unsigned int> owned_range(const unsigned int n,
                                                           const MPI_Comm comm)
  {
    const unsigned int r = Utilities::MPI::this_mpi_process(comm);
    const unsigned int p = Utilities::MPI::n_mpi_processes(comm);
    return {static_cast<unsigned int>((std::uint64_t(n) * r) / p),
            static_cast<unsigned int>((std::uint64_t(n) * (r + 1)) / p)};
  }

  // Partitioner with ghosts at both ends of the owned range.
  inline std::shared_ptr<const Utilities::MPI::Partitioner>
  make_partitioner(const unsigned int n, const MPI_Comm comm)
  {
    const auto range = owned_range(n, comm);
    IndexSet   owned(n), ghosts(n);
    owned.add_range(range.first, range.second);
    if (range.first > 0 && range.first < range.second)
      ghosts.add_index(range.first - 1);
    if (range.second < n && range.first < range.second)
      ghosts.add_index(range.second);
    return std::make_shared<Utilities::MPI::Partitioner>(owned, ghosts, comm);
  }

  template <typename Number>
  class LaplaceOperator : public Subscriptor
  {
  public:
    using value_type = Number;
    using VectorType = GPU::Vector<Number>;

    LaplaceOperator() = default;

    explicit LaplaceOperator(const unsigned int n,
                             const MPI_Comm     comm = MPI_COMM_WORLD)
    {
      reinit(n, comm);
    }

    void reinit(const unsigned int n_points,
                const MPI_Comm     comm = MPI_COMM_WORLD)
    {
      n           = n_points;
      partitioner = make_partitioner(n, comm);
    }

    void initialize_dof_vector(VectorType &v) const { v.reinit(partitioner); }

    types::global_dof_index m() const { return n; }

    types::global_dof_index n_points() const { return n; }

    Number diagonal_entry() const
    {
      const Number h = Number(1) / (n + 1);
      return Number(2) / (h * h);
    }

    // Matrix entry (i, j); deal.II's Chebyshev setup needs it to compile.
    Number el(const types::global_dof_index i,
              const types::global_dof_index j) const
    {
      const Number h = Number(1) / (n + 1);
      return i == j                       ? diagonal_entry()
             : (i + 1 == j || j + 1 == i) ? -Number(1) / (h * h)
                                          : Number();
    }

    // dst = A src: the kernel reads the neighbours across rank boundaries
    // from the ghost entries of src.
    void vmult(VectorType &dst, const VectorType &src) const
    {
      const bool had_ghosts = src.has_ghost_elements();
      if (!had_ghosts)
        src.update_ghost_values();
      const auto range = std::make_pair(partitioner->local_range().first,
                                        partitioner->local_range().second);
      const unsigned int begin   = range.first;
      const unsigned int n_owned = range.second - range.first;
      const unsigned int left    = n_owned;
      const unsigned int right   = n_owned + (begin > 0 ? 1 : 0);
      const unsigned int n_total = n;
      const Number       h       = Number(1) / (n + 1);
      const Number       scale   = Number(1) / (h * h);
      const Number      *x       = src.get_values();
      Number            *y       = dst.get_values();
      GPU::parallel_for(
          "LaplaceOperator::vmult",
          n_owned,
          [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
          {
            const unsigned int g = begin + i;
            const Number xl = g == 0 ? Number() : i == 0 ? x[left] : x[i - 1];
            const Number xr = g + 1 == n_total   ? Number()
                              : i + 1 == n_owned ? x[right]
                                                 : x[i + 1];
            y[i]            = scale * (Number(2) * x[i] - xl - xr);
          });
      if (!had_ghosts)
        src.zero_out_ghost_values();
    }

    void Tvmult(VectorType &dst, const VectorType &src) const
    {
      vmult(dst, src);
    }

    void vmult_add(VectorType &dst, const VectorType &src) const
    {
      VectorType tmp;
      tmp.reinit(dst, true);
      vmult(tmp, src);
      dst += tmp;
    }

    void Tvmult_add(VectorType &dst, const VectorType &src) const
    {
      vmult_add(dst, src);
    }

    // Inverse diagonal for Jacobi and Chebyshev smoothing.
    void compute_inverse_diagonal(VectorType &inverse_diagonal) const
    {
      initialize_dof_vector(inverse_diagonal);
      inverse_diagonal = Number(1) / diagonal_entry();
    }

    std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;

  private:
    unsigned int n = 0;
  };

  // Level l has 2^(l+1) - 1 interior points. Prolongation is linear
  // interpolation P; restriction is R = P^T / 2 (full weighting), which makes
  // the finite-difference coarse operator the Galerkin one, A_H = R A_h P.
  // Serial only: the kernels read neighbours from the locally owned part.
  template <typename Number>
  class Transfer : public MGTransferBase<GPU::Vector<Number>>
  {
  public:
    using VectorType = GPU::Vector<Number>;

    explicit Transfer(const MGLevelObject<LaplaceOperator<Number>> &operators)
        : operators(&operators)
    {
    }

    void prolongate(const unsigned int to_level,
                    VectorType        &dst,
                    const VectorType  &src) const override
    {
      dst = Number();
      prolongate_and_add(to_level, dst, src);
    }

    void prolongate_and_add(const unsigned int to_level,
                            VectorType        &dst,
                            const VectorType  &src) const override
    {
      const unsigned int n_fine   = dst.size();
      const unsigned int n_coarse = src.size();
      Number            *y        = dst.get_values();
      const Number      *x        = src.get_values();
      (void)to_level;
      GPU::parallel_for("Transfer::prolongate",
                        n_fine,
                        [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                        {
                          if (i % 2 == 1)
                            y[i] += x[i / 2];
                          else
                          {
                            const unsigned int j = i / 2;
                            const Number left    = j > 0 ? x[j - 1] : Number();
                            const Number right = j < n_coarse ? x[j] : Number();
                            y[i] += Number(0.5) * (left + right);
                          }
                        });
    }

    void restrict_and_add(const unsigned int from_level,
                          VectorType        &dst,
                          const VectorType  &src) const override
    {
      const unsigned int n_coarse = dst.size();
      Number            *y        = dst.get_values();
      const Number      *x        = src.get_values();
      (void)from_level;
      (void)n_coarse;
      GPU::parallel_for("Transfer::restrict_and_add",
                        n_coarse,
                        [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t j)
                        {
                          y[j] += Number(0.5) * x[2 * j + 1] +
                                  Number(0.25) * (x[2 * j] + x[2 * j + 2]);
                        });
    }

    template <int dim>
    void copy_to_mg(const DoFHandler<dim> &,
                    MGLevelObject<VectorType> &dst,
                    const VectorType          &src) const
    {
      for (unsigned int l = dst.min_level(); l <= dst.max_level(); ++l)
        (*operators)[l].initialize_dof_vector(dst[l]);
      dst[dst.max_level()] = src;
    }

    template <int dim>
    void copy_from_mg(const DoFHandler<dim> &,
                      VectorType                      &dst,
                      const MGLevelObject<VectorType> &src) const
    {
      dst = src[src.max_level()];
    }

    template <int dim>
    void copy_from_mg_add(const DoFHandler<dim> &,
                          VectorType                      &dst,
                          const MGLevelObject<VectorType> &src) const
    {
      dst += src[src.max_level()];
    }

  private:
    const MGLevelObject<LaplaceOperator<Number>> *operators;
  };
} // namespace Stencil

#endif
