// Per-cell transfer kernels shared by GPU::MGTransferMatrixFree (h: a
// cell's (k+1)^dim values to its children's (2k+1)^dim lattice) and
// GPU::MGTransferP (p: (k_c+1)^dim values to (k+1)^dim on the same cell):
// sum-factorized 1D interpolations, weighted scatter with atomics.
#ifndef dealii_gpu_source_multigrid_transfer_kernels_h
#define dealii_gpu_source_multigrid_transfer_kernels_h

#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/matrix_free/matrix_free.h>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // The view of one transfer a kernel gets: per cell and component
      // n_coarse_1d^dim coarse and n_fine_1d^dim fine local indices
      // (constrained_dof_flag: read as zero, not written).
      template <typename Number>
      struct TransferCells
      {
        unsigned int        n_coarse_1d;
        unsigned int        n_fine_1d;
        unsigned int        n_components;
        const unsigned int *coarse_indices;
        const unsigned int *fine_indices;
        const Number       *weights;
        // n_fine_1d x n_coarse_1d: the coarse 1D basis at the fine points.
        const Number *prolongation_1d;
      };

      template <int dim>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
      power(const unsigned int n)
      {
        return dim == 1 ? n : (dim == 2 ? n * n : n * n * n);
      }

      // One 1D pass in a direction of a tensor of extents (before, n_in,
      // after) into (before, n_out, after): out = M in along the middle
      // index, M = P (n_out fine) or P^T (n_out coarse).
      template <typename Number>
      DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE void
      transfer_pass(const TeamMember  &team,
                    const Number      *P,
                    const unsigned int n_coarse,
                    const bool         transpose,
                    const unsigned int before,
                    const unsigned int n_in,
                    const unsigned int n_out,
                    const unsigned int after,
                    const Number      *in,
                    Number            *out)
      {
        team.for_each<false>(before * n_out * after,
                             [&](const unsigned int p)
                             {
                               const unsigned int b = p % before;
                               const unsigned int i = (p / before) % n_out;
                               const unsigned int a = p / (before * n_out);
                               const Number *x   = in + b + before * n_in * a;
                               Number        sum = Number();
                               for (unsigned int j = 0; j < n_in; ++j)
                                 sum += (transpose ? P[j * n_coarse + i]
                                                   : P[i * n_coarse + j]) *
                                        x[before * j];
                               out[p] = sum;
                             });
        team.barrier<false>();
      }

      // Scratch: two tensors of n_fine_1d^dim entries (no intermediate is
      // larger) and the 1D matrix.
      template <int dim, typename Number>
      std::size_t transfer_scratch_bytes(const TransferCells<Number> &data)
      {
        return (2 * power<dim>(data.n_fine_1d) +
                data.n_fine_1d * data.n_coarse_1d) *
               sizeof(Number);
      }

      // Prolongation (Restrict = false): dst += W P src, from each coarse
      // cell's values to its fine lattice; restriction (true): its
      // transpose, dst += P^T W src. One 1D pass a direction: pass d maps
      // extents (out_1d^d, in_1d, in_1d^(dim-1-d)) to (out_1d^d, out_1d,
      // in_1d^(dim-1-d)).
      template <int dim, typename Number, bool Restrict>
      struct TransferCellsKernel
      {
        TransferCells<Number> data;
        const Number         *src;
        Number               *dst;

        DEAL_II_GPU_HOST_DEVICE void operator()(const TeamMember &team) const
        {
          const unsigned int cell   = team.team_index();
          const unsigned int n1     = data.n_coarse_1d;
          const unsigned int nf     = data.n_fine_1d;
          const unsigned int nc     = power<dim>(n1);
          const unsigned int nfc    = power<dim>(nf);
          const unsigned int n_in   = Restrict ? nfc : nc;
          const unsigned int n_out  = Restrict ? nc : nfc;
          const unsigned int in_1d  = Restrict ? nf : n1;
          const unsigned int out_1d = Restrict ? n1 : nf;
          Number            *a      = team.scratch<Number>();
          Number            *b      = a + nfc;
          Number            *P      = b + nfc;
          team.for_each<false>(nf * n1,
                               [&](const unsigned int i)
                               { P[i] = data.prolongation_1d[i]; });
          for (unsigned int c = 0; c < data.n_components; ++c)
          {
            const unsigned int *coarse =
                data.coarse_indices +
                (std::size_t(cell) * data.n_components + c) * nc;
            const unsigned int *fine =
                data.fine_indices +
                (std::size_t(cell) * data.n_components + c) * nfc;
            const unsigned int *in_indices  = Restrict ? fine : coarse;
            const unsigned int *out_indices = Restrict ? coarse : fine;
            // W is applied on the fine side: before restriction, after
            // prolongation.
            team.for_each<false>(n_in,
                                 [&](const unsigned int i)
                                 {
                                   const unsigned int index = in_indices[i];
                                   a[i] = (index & constrained_dof_flag)
                                              ? Number()
                                          : Restrict
                                              ? data.weights[index] * src[index]
                                              : src[index];
                                 });
            team.barrier<false>();
            // Literal extents where they are 1: the compiler drops the
            // divisions in transfer_pass.
            transfer_pass(
                team, P, n1, Restrict, 1, in_1d, out_1d, n_in / in_1d, a, b);
            Number *result = b;
            if (dim > 1)
            {
              transfer_pass(team,
                            P,
                            n1,
                            Restrict,
                            out_1d,
                            in_1d,
                            out_1d,
                            n_in / (in_1d * in_1d),
                            b,
                            a);
              result = a;
            }
            if (dim > 2)
            {
              transfer_pass(team,
                            P,
                            n1,
                            Restrict,
                            out_1d * out_1d,
                            in_1d,
                            out_1d,
                            1,
                            a,
                            b);
              result = b;
            }
            team.for_each<false>(n_out,
                                 [&](const unsigned int p)
                                 {
                                   const unsigned int index = out_indices[p];
                                   if (!(index & constrained_dof_flag))
                                     atomic_add(dst + index,
                                                Restrict ? result[p]
                                                         : data.weights[index] *
                                                               result[p]);
                                 });
            team.barrier<false>();
          }
        }
      };

      template <int dim, typename Number>
      using ProlongateCells = TransferCellsKernel<dim, Number, false>;

      template <int dim, typename Number>
      using RestrictCells = TransferCellsKernel<dim, Number, true>;

      template <int dim, typename Number, typename Kernel>
      void run_transfer(const char                  *name,
                        const unsigned int           n_cells,
                        const TransferCells<Number> &data,
                        const Kernel                &kernel)
      {
        // About one thread per fine point, in whole warps, at most 256.
        const unsigned int n_points = power<dim>(data.n_fine_1d);
        unsigned int       threads  = 1;
        while (threads < n_points && threads < 32)
          threads *= 2;
        if (n_points > 32)
          threads = std::min(256u, (n_points + 31) / 32 * 32);
        parallel_for_teams(name,
                           n_cells,
                           TeamShape{threads, 1, 1},
                           transfer_scratch_bytes<dim, Number>(data),
                           kernel,
                           threads <= 32 ? 128 / threads : 1);
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
