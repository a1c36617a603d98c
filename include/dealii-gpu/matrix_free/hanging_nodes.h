// Hanging-node constraints of FE_Q resolved inside the cell kernel.
//
// A cell next to a coarser cell stores, at the positions of its constrained
// face or edge, the DoF indices of the coarse DoFs at the same positions of
// its parent cell. read_dof_values() then interpolates the coarse values to
// the fine positions, one direction at a time, with the 1D interpolation
// from the parent interval to the child half (child 0 or 1). Integration
// applies the transposed passes in reverse order. A per-cell mask says which
// faces and edges are constrained and where the cell sits in its parent.
#ifndef dealii_gpu_matrix_free_hanging_nodes_h
#define dealii_gpu_matrix_free_hanging_nodes_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/parallel.h>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      namespace HangingNodes
      {
        // Mask bits: bit d is the cell's position in its parent in
        // direction d (0 or 1); bit 3 + d: the face normal to d on the side
        // of that position is constrained; bit 6 + d (3D): the edge along d
        // on the parent's edge through the cell is constrained (and neither
        // face containing it).
        constexpr unsigned int face_bit(const unsigned int d)
        {
          return 1u << (3 + d);
        }

        constexpr unsigned int edge_bit(const unsigned int d)
        {
          return 1u << (6 + d);
        }

        constexpr unsigned int constraint_bits = 0x1f8u;

        DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
        child_position(const unsigned int mask, const unsigned int d)
        {
          return (mask >> d) & 1u;
        }

        /**
         * Whether the line of DoFs along direction @p d through the
         * lexicographic position @p p lies on a constrained face or edge.
         */
        template <int dim>
        DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE bool
        line_is_constrained(const unsigned int  mask,
                            const unsigned int  d,
                            const unsigned int *p,
                            const unsigned int  degree)
        {
          for (unsigned int e = 0; e < dim; ++e)
            if (e != d && (mask & face_bit(e)) != 0 &&
                p[e] == child_position(mask, e) * degree)
              return true;
          if (dim == 3 && (mask & edge_bit(d)) != 0)
          {
            const unsigned int e1 = (d + 1) % 3, e2 = (d + 2) % 3;
            return p[e1] == child_position(mask, e1) * degree &&
                   p[e2] == child_position(mask, e2) * degree;
          }
          return false;
        }

        /** Whether any line along @p d is constrained. */
        template <int dim>
        DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE bool
        direction_is_constrained(const unsigned int mask, const unsigned int d)
        {
          for (unsigned int e = 0; e < dim; ++e)
            if (e != d && (mask & face_bit(e)) != 0)
              return true;
          return dim == 3 && (mask & edge_bit(d)) != 0;
        }

        /**
         * Apply the hanging-node interpolation (or, with @p transpose, its
         * transpose) to the DoF values @p v of one component, in
         * lexicographic order, in place; @p buffer holds n_dofs_1d^dim
         * entries. @p interpolation holds the two 1D matrices
         * [child * n^2 + i * n + j]: value at fine point i from coarse
         * point j. Every team of the block must call it (it has barriers);
         * a team with mask 0 leaves its values unchanged.
         */
        template <int  dim,
                  int  n_dofs_1d,
                  bool transpose,
                  bool may_be_serial,
                  typename Number>
        DEAL_II_GPU_HOST_DEVICE void interpolate(const TeamMember  &team,
                                                 const unsigned int mask,
                                                 const Number *interpolation,
                                                 Number       *v,
                                                 Number       *buffer)
        {
          constexpr unsigned int n = n_dofs_1d, degree = n_dofs_1d - 1;
          const auto             pass = [&](const unsigned int step)
          {
            const unsigned int d = transpose ? dim - 1 - step : step;
            // Uniform over the block: skip the pass only if no team needs it.
            if (!team.barrier_or<may_be_serial>(
                    direction_is_constrained<dim>(mask, d)))
              return;
            const Number *M = interpolation + child_position(mask, d) * n * n;
            team.for_each<may_be_serial>(
                n,
                n,
                dim == 3 ? n : 1,
                [&](unsigned int i, unsigned int j, unsigned int k)
                {
                  const unsigned int p[3]   = {i, j, k};
                  const unsigned int index  = i + n * (j + n * k);
                  const unsigned int stride = d == 0 ? 1 : d == 1 ? n : n * n;
                  if (line_is_constrained<dim>(mask, d, p, degree))
                  {
                    const unsigned int pd    = p[d];
                    const unsigned int start = index - pd * stride;
                    Number             sum   = Number();
                    for (unsigned int m = 0; m < n; ++m)
                      sum += (transpose ? M[m * n + pd] : M[pd * n + m]) *
                             v[start + m * stride];
                    buffer[index] = sum;
                  }
                  else
                    buffer[index] = v[index];
                });
            team.barrier<may_be_serial>();
            team.for_each<may_be_serial>(n * n * (dim == 3 ? n : 1),
                                         [&](unsigned int i)
                                         { v[i] = buffer[i]; });
            team.barrier<may_be_serial>();
          };
          if constexpr (may_be_serial)
          {
            // Unrolled, so that a serial team's indices are constants (its
            // scratch then stays in registers).
#ifdef __CUDA_ARCH__
#  pragma unroll
#endif
            for (unsigned int step = 0; step < dim; ++step)
              pass(step);
          }
          else
            for (unsigned int step = 0; step < dim; ++step)
              pass(step);
        }
      } // namespace HangingNodes
    }   // namespace internal
  }     // namespace GPU
} // namespace dealii

#endif
