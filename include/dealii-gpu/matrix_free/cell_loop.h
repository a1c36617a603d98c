// GPU::MatrixFree::cell_loop(): runs a cell functor over the cell phases
// (MPI overlap, structured blocks, hanging nodes, geometry form) in kernels
// compiled for what the data hold. Comes with fe_evaluation.h; include
// from .cu files (kernels).
#ifndef dealii_gpu_matrix_free_cell_loop_h
#define dealii_gpu_matrix_free_cell_loop_h

#include <dealii-gpu/matrix_free/fe_evaluation.h>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // Runs the functor on cells [begin, end) in a kernel compiled for
      // what the data hold: without hanging nodes the hanging-node code is
      // dropped, and only one of the two geometry paths is kept, so that
      // neither costs registers (occupancy) where it is not used.
      // lists_only: no cell of [begin, end) lies in a structured block, so
      // the compiler drops the computed DoF indices (cell_dof_entry()),
      // which otherwise cost the one-thread-per-cell kernel registers and a
      // third of its speed; else each cell decides at run time.
      template <bool hanging,
                bool from_points,
                bool thread_per_cell,
                bool lists_only,
                int  dim,
                typename Number,
                typename Functor>
      void run_cells(const Functor                     &functor,
                     const MatrixFreeData<dim, Number> &data,
                     const unsigned int                 begin,
                     const unsigned int                 end,
                     const TeamShape                    shape,
                     const std::size_t                  scratch,
                     const unsigned int                 cells_per_block,
                     const Number                      *src,
                     Number                            *dst)
      {
        const auto cell = [=] DEAL_II_GPU_HOST_DEVICE(const TeamMember &team)
        {
          MatrixFreeData<dim, Number> known = data;
          // Without hanging nodes a scalar field's mapping field has no
          // node list (reinit()): the kernel then reads it through the DoF
          // indices it also reads the values with.
          if constexpr (!hanging)
          {
            known.hanging_masks = nullptr;
            if constexpr (Functor::n_components == 1)
              known.geometry_indices = nullptr;
          }
          known.jacobians_from_points = from_points ? 1 : 0;
          if constexpr (lists_only)
            known.n_structured_cells = 0;
          functor(team, begin + team.team_index(), known, src, dst);
        };
        if constexpr (thread_per_cell)
        {
          // The scratch size must be known at compile time here.
          (void)scratch;
          parallel_for_thread_teams<cell_scratch_bytes<dim, Number>(
              Functor::fe_degree,
              Functor::n_q_points_1d,
              Functor::n_components,
              from_points)>("MatrixFree::cell_loop",
                            end - begin,
                            shape,
                            cell,
                            cells_per_block);
        }
        else
        {
          // A team per cell, one thread a point: one launch form only
          // (reinit() picks cells_per_block to match it).
          constexpr unsigned int n_points =
              dim == 2 ? Functor::n_q_points_1d * Functor::n_q_points_1d
                       : Functor::n_q_points_1d * Functor::n_q_points_1d *
                             Functor::n_q_points_1d;
          parallel_for_teams<n_points <= 32 ? TeamKernels::warp_packed
                                            : TeamKernels::one_per_block>(
              "MatrixFree::cell_loop",
              end - begin,
              shape,
              scratch,
              cell,
              cells_per_block);
        }
      }

      // Whether one thread per cell is compiled for a functor: for the cells
      // reinit() allows it for (scalar 3D cells, few points; there, only
      // the kernels with the Jacobians from the points).
      // Functors without geometry need stored Jacobians (the merged tensor),
      // so they never run one thread per cell. Nor do functors that compute
      // a diagonal: a thread alone would take unit vectors, one cell
      // application per DoF, where a team per cell sums factors once.
      template <int dim, typename Functor>
      constexpr bool thread_per_cell_compiled()
      {
        return functor_uses_geometry<Functor>::value &&
               !functor_computes_diagonal<Functor>::value &&
               thread_per_cell_compiled<dim>(Functor::n_components,
                                             Functor::n_q_points_1d);
      }
    } // namespace internal

    template <int dim, typename Number>
    template <typename Functor>
    void MatrixFree<dim, Number>::cell_loop(const Functor        &functor,
                                            const Vector<Number> &src,
                                            Vector<Number>       &dst) const
    {
      internal::check_functor_constants(Functor::fe_degree,
                                        Functor::n_q_points_1d,
                                        Functor::n_components,
                                        data.fe_degree,
                                        data.n_q_points_1d,
                                        data.n_components);
      internal::check_geometry_available(
          internal::functor_uses_geometry<Functor>::value, geometry_kept);
      AssertThrow(
          src.size() == partitioner->size() &&
              dst.size() == partitioner->size() &&
              src.locally_owned_size() == partitioner->locally_owned_size() &&
              dst.locally_owned_size() == partitioner->locally_owned_size(),
          ExcVectorLayoutMismatch(src.size(),
                                  partitioner->size(),
                                  dst.locally_owned_size(),
                                  partitioner->locally_owned_size()));
      AssertThrow(src.get_partitioner()->n_ghost_indices() ==
                          partitioner->n_ghost_indices() &&
                      dst.get_partitioner()->n_ghost_indices() ==
                          partitioner->n_ghost_indices(),
                  ExcMessage("cell_loop needs vectors from "
                             "MatrixFree::initialize_dof_vector()"));
      const unsigned int nq = data.n_q_points_1d;
      const TeamShape    shape{nq, nq, dim == 3 ? nq : 1u};
      const std::size_t  scratch = internal::cell_scratch_bytes<dim, Number>(
          data.fe_degree,
          data.n_q_points_1d,
          data.n_components,
          data.jacobians_from_points != 0,
          internal::functor_computes_diagonal<Functor>::value);
      const MatrixFreeData<dim, Number> d = data;
      const Number                     *s = src.get_values();
      Number                           *t = dst.get_values();
      // Cells [begin, end) of one color.
      const bool per_cell = thread_per_cell;
      auto       run = [&](const unsigned int begin, const unsigned int end)
      {
        if (begin == end)
          return;
        const bool hanging = d.hanging_masks != nullptr;
        const bool points  = d.jacobians_from_points != 0;
        if constexpr (internal::thread_per_cell_compiled<dim, Functor>())
        {
          if (per_cell)
          {
            // reinit() allows one thread per cell only without hanging
            // nodes and with the Jacobians computed in the kernel.
            Assert(points && !hanging, ExcInternalError());
            // Structured cells come first (reinit()). They run one thread
            // per point, a kernel every functor compiles anyway: a second
            // per-cell kernel for them took about 10 of CI's 45 minutes, and
            // they are there for problem size, not for speed.
            const unsigned int split =
                std::min(std::max(begin, d.n_structured_cells), end);
            if (begin < split)
              internal::run_cells<false, true, false, false>(
                  functor,
                  d,
                  begin,
                  split,
                  shape,
                  scratch,
                  structured_cells_per_block,
                  s,
                  t);
            if (split < end)
              internal::run_cells<false, true, true, true>(functor,
                                                           d,
                                                           split,
                                                           end,
                                                           shape,
                                                           scratch,
                                                           cells_per_block,
                                                           s,
                                                           t);
            return;
          }
        }
        // Data laid out for one thread per cell (no hanging nodes, the
        // Jacobians from the points) run a diagonal functor a team per
        // cell, as they run their structured cells.
        if (per_cell && internal::functor_computes_diagonal<Functor>::value)
        {
          Assert(points && !hanging, ExcInternalError());
          internal::run_cells<false, true, false, false>(
              functor,
              d,
              begin,
              end,
              shape,
              scratch,
              structured_cells_per_block,
              s,
              t);
          return;
        }
        // reinit() allows one thread per cell only where it is compiled,
        // except for functors without geometry.
        AssertThrow(!per_cell,
                    ExcNotSupportedByMatrixFree(
                        "a cell functor with uses_geometry = false on data "
                        "with one thread per cell (reinit() with "
                        "CellThreads::per_quadrature_point for it)"));
        if (hanging && points)
          internal::run_cells<true, true, false, false>(
              functor, d, begin, end, shape, scratch, cells_per_block, s, t);
        else if (hanging)
          internal::run_cells<true, false, false, false>(
              functor, d, begin, end, shape, scratch, cells_per_block, s, t);
        else if (points)
          internal::run_cells<false, true, false, false>(
              functor, d, begin, end, shape, scratch, cells_per_block, s, t);
        else
          internal::run_cells<false, false, false, false>(
              functor, d, begin, end, shape, scratch, cells_per_block, s, t);
      };
      // Phases: cells away from other ranks while src's ghosts arrive,
      // cells touching ghosts, then the rest while dst's ghost
      // contributions travel. Kernels on one stream run in order, so cells
      // of different colors never run at the same time.
      const bool src_had_ghosts = src.has_ghost_elements();
      if (!src_had_ghosts)
      {
        if (overlap)
          src.update_ghost_values_start();
        else
          src.update_ghost_values();
      }
      for (const auto &phase : cell_phases)
        run(phase[0], phase[1]);
      if (overlap && !src_had_ghosts)
        src.update_ghost_values_finish();
      for (const auto &phase : cell_phases)
        run(phase[1], phase[2]);
      if (overlap)
      {
        dst.compress_start(VectorOperation::add);
        for (const auto &phase : cell_phases)
          run(phase[2], phase[3]);
        dst.compress_finish(VectorOperation::add);
      }
      else
      {
        for (const auto &phase : cell_phases)
          run(phase[2], phase[3]);
        dst.compress(VectorOperation::add);
      }
      if (!src_had_ghosts)
        src.zero_out_ghost_values();
    }
  } // namespace GPU
} // namespace dealii

#endif
