// GPU::MGTransferMatrixFree: the transfer and copy kernels on the device
// (the set-up: mg_transfer_matrix_free_build.cu).
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/matrix_free/matrix_free.h>
#include <dealii-gpu/multigrid/mg_transfer_matrix_free.h>

#include <deal.II/base/mpi.h>
#include <deal.II/distributed/tria_base.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_tools.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include "../base/parallel_selection.h"
#include "transfer_kernels.h"
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <numeric>
#include <type_traits>
#include <utility>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      template <typename NumberDst, typename NumberSrc>
      void copy_indexed(const Array<unsigned int> &to,
                        const Array<unsigned int> &from,
                        NumberDst                 *dst,
                        const NumberSrc           *src,
                        const bool                 add)
      {
        const unsigned int *t = to.data();
        const unsigned int *f = from.data();
        if (add)
          parallel_for("MGTransferMatrixFree::copy (add)",
                       to.size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                       { dst[t[i]] += NumberDst(src[f[i]]); });
        else
          parallel_for("MGTransferMatrixFree::copy",
                       to.size(),
                       [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                       { dst[t[i]] = NumberDst(src[f[i]]); });
      }

      template void copy_indexed(const Array<unsigned int> &,
                                 const Array<unsigned int> &,
                                 float *,
                                 const float *,
                                 const bool);
      template void copy_indexed(const Array<unsigned int> &,
                                 const Array<unsigned int> &,
                                 float *,
                                 const double *,
                                 const bool);
      template void copy_indexed(const Array<unsigned int> &,
                                 const Array<unsigned int> &,
                                 double *,
                                 const float *,
                                 const bool);
      template void copy_indexed(const Array<unsigned int> &,
                                 const Array<unsigned int> &,
                                 double *,
                                 const double *,
                                 const bool);
    } // namespace internal

    template <int dim, typename Number>
    const std::shared_ptr<const Utilities::MPI::Partitioner> &
    MGTransferMatrixFree<dim, Number>::get_level_partitioner(
        const unsigned int level) const
    {
      AssertIndexRange(level, level_partitioners.size());
      return level_partitioners[level];
    }

    template <int dim, typename Number>
    const Vector<Number> &
    MGTransferMatrixFree<dim, Number>::ghosted_input(const unsigned int level,
                                                     const VectorType  &v) const
    {
      AssertThrow(v.locally_owned_size() ==
                      transfer_partitioners[level]->locally_owned_size(),
                  ExcVectorLayoutMismatch(
                      v.size(),
                      transfer_partitioners[level]->size(),
                      v.locally_owned_size(),
                      transfer_partitioners[level]->locally_owned_size()));
      const VectorType *input = &v;
      if (v.get_partitioner() != transfer_partitioners[level])
      {
        transfer_vectors[level].copy_locally_owned_data_from(v);
        input = &transfer_vectors[level];
      }
      input->update_ghost_values();
      return *input;
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::prolongate_add_internal(
        const unsigned int to_level,
        VectorType        &dst,
        const VectorType  &src,
        const bool         add) const
    {
      AssertThrow(to_level >= 1 && to_level < n_levels,
                  ExcNotSupportedByMGTransfer(
                      "prolongation to level " + std::to_string(to_level) +
                      " of 0.." + std::to_string(n_levels - 1)));
      AssertThrow(dst.locally_owned_size() ==
                      transfer_partitioners[to_level]->locally_owned_size(),
                  ExcVectorLayoutMismatch(
                      dst.size(),
                      transfer_partitioners[to_level]->size(),
                      dst.locally_owned_size(),
                      transfer_partitioners[to_level]->locally_owned_size()));
      const VectorType &coarse = ghosted_input(to_level - 1, src);
      const bool        direct =
          dst.get_partitioner() == transfer_partitioners[to_level];
      VectorType &fine = direct ? dst : transfer_vectors[to_level];
      if (!direct || !add)
        fine = Number();
      else
        fine.zero_out_ghost_values();
      prolongate_cells(to_level, coarse.get_values(), fine.get_values());
      fine.compress(VectorOperation::add);
      if (!direct)
      {
        if (add)
          dst += fine;
        else
          dst.copy_locally_owned_data_from(fine);
      }
    }

    namespace
    {
      // The kernels' view of the transfer between a level and the one
      // below (FE_Q(k): k + 1 coarse and 2k + 1 fine points a direction).
      template <typename Number, typename LevelTransfer>
      internal::TransferCells<Number>
      level_cells(const LevelTransfer &t,
                  const unsigned int   degree,
                  const unsigned int   n_components,
                  const Array<Number> &prolongation_1d)
      {
        return {degree + 1,
                2 * degree + 1,
                n_components,
                t.coarse_indices.data(),
                t.fine_indices.data(),
                t.weights.data(),
                prolongation_1d.data()};
      }
    } // namespace

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::prolongate_cells(
        const unsigned int to_level, const Number *coarse, Number *fine) const
    {
      const auto data = level_cells(
          transfers[to_level], degree, n_components, prolongation_1d);
      internal::run_transfer<dim, Number>(
          "MGTransferMatrixFree::prolongate",
          transfers[to_level].n_coarse_cells,
          data,
          internal::ProlongateCells<dim, Number>{data, coarse, fine});
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::restrict_cells(
        const unsigned int from_level, const Number *fine, Number *coarse) const
    {
      const auto data = level_cells(
          transfers[from_level], degree, n_components, prolongation_1d);
      internal::run_transfer<dim, Number>(
          "MGTransferMatrixFree::restrict_and_add",
          transfers[from_level].n_coarse_cells,
          data,
          internal::RestrictCells<dim, Number>{data, fine, coarse});
    }

    template <int dim, typename Number>
    void
    MGTransferMatrixFree<dim, Number>::prolongate(const unsigned int to_level,
                                                  VectorType        &dst,
                                                  const VectorType  &src) const
    {
      prolongate_add_internal(to_level, dst, src, false);
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::prolongate_and_add(
        const unsigned int to_level,
        VectorType        &dst,
        const VectorType  &src) const
    {
      prolongate_add_internal(to_level, dst, src, true);
    }

    template <int dim, typename Number>
    void MGTransferMatrixFree<dim, Number>::restrict_and_add(
        const unsigned int from_level,
        VectorType        &dst,
        const VectorType  &src) const
    {
      AssertThrow(from_level >= 1 && from_level < n_levels,
                  ExcNotSupportedByMGTransfer(
                      "restriction from level " + std::to_string(from_level) +
                      " of 0.." + std::to_string(n_levels - 1)));
      AssertThrow(
          dst.locally_owned_size() ==
              transfer_partitioners[from_level - 1]->locally_owned_size(),
          ExcVectorLayoutMismatch(
              dst.size(),
              transfer_partitioners[from_level - 1]->size(),
              dst.locally_owned_size(),
              transfer_partitioners[from_level - 1]->locally_owned_size()));
      const VectorType &fine = ghosted_input(from_level, src);
      const bool        direct =
          dst.get_partitioner() == transfer_partitioners[from_level - 1];
      VectorType &coarse = direct ? dst : transfer_vectors[from_level - 1];
      if (direct)
        coarse.zero_out_ghost_values();
      else
        coarse = Number();
      restrict_cells(from_level, fine.get_values(), coarse.get_values());
      coarse.compress(VectorOperation::add);
      if (!direct)
        dst += coarse;
    }

    template <int dim, typename Number>
    std::size_t MGTransferMatrixFree<dim, Number>::memory_consumption() const
    {
      std::size_t bytes = prolongation_1d.memory_consumption() +
                          global_copy_vector.memory_consumption();
      for (const auto &t : transfers)
        bytes += t.coarse_indices.memory_consumption() +
                 t.fine_indices.memory_consumption() +
                 t.weights.memory_consumption();
      for (const auto &c : copies)
        bytes += c.to_level.memory_consumption() +
                 c.to_level_source.memory_consumption() +
                 c.from_level.memory_consumption() +
                 c.from_level_source.memory_consumption();
      for (const auto &v : transfer_vectors)
        bytes += v.memory_consumption();
      for (const auto &v : copy_vectors)
        bytes += v.memory_consumption();
      return bytes;
    }

    template class MGTransferMatrixFree<2, float>;
    template class MGTransferMatrixFree<2, double>;
    template class MGTransferMatrixFree<3, float>;
    template class MGTransferMatrixFree<3, double>;
  } // namespace GPU
} // namespace dealii
