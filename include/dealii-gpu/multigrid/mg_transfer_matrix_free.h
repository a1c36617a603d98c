// GPU::MGTransferMatrixFree: prolongation, restriction and the copies
// between the global vector and the multigrid levels, on the device, for
// deal.II's Multigrid and PreconditionMG on GPU::Vector.
#ifndef dealii_gpu_multigrid_mg_transfer_matrix_free_h
#define dealii_gpu_multigrid_mg_transfer_matrix_free_h

#include <dealii-gpu/base/config.h>
#include <dealii-gpu/base/exceptions.h>
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/setup_timer.h>
#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/multigrid/mg_constrained_dofs.h>

#include <deal.II/base/mg_level_object.h>
#include <deal.II/base/partitioner.h>
#include <deal.II/base/smartpointer.h>
#include <deal.II/multigrid/mg_base.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <memory>
#include <vector>

namespace dealii
{
  template <int dim, int spacedim>
  class DoFHandler;

  namespace GPU
  {
    namespace internal
    {
      class DevicePartitioners;
      struct TransferLattices;
    } // namespace internal

    /** The element or mesh is not supported by GPU::MGTransferMatrixFree. */
    DeclException1(ExcNotSupportedByMGTransfer,
                   std::string,
                   << "GPU::MGTransferMatrixFree does not support this: "
                   << arg1);

    /**
     * Transfer between the levels of a multigrid hierarchy and between the
     * global (active) vector and the levels, with deal.II's interface and
     * semantics of MGTransferMatrixFree (local smoothing: uniform meshes and
     * adaptive ones, whose levels cover only part of the domain), for
     * FE_Q(k) and FESystem(FE_Q(k), n), k = 1..8, on a Triangulation or a
     * parallel::distributed::Triangulation with a multigrid hierarchy.
     *
     * prolongate() works per coarse cell on the device: the cell's values
     * are interpolated to the (2k + 1)^dim points of its children with one
     * 1D pass per direction (sum factorization), weighted by the inverse of
     * the number of coarse cells that share each fine DoF, and added to
     * the fine vector. restrict_and_add() is its transpose. DoFs on the
     * Dirichlet boundary of the coarse level (MGConstrainedDoFs) are read
     * as zero and receive nothing, as in deal.II.
     *
     * copy_to_mg() and copy_from_mg() copy the values of the active cells
     * of each level, leaving out the refinement-edge DoFs, with index lists
     * on the device; DoFs whose level and active owners differ go through
     * ghost entries.
     *
     * Level vectors are laid out by the partitioners given to build() (the
     * level operators', so that the operators accept them) or by the
     * transfer's own; where the transfer needs ghost entries those lack, it
     * works on ghosted copies.
     */
    template <int dim, typename Number>
    class MGTransferMatrixFree : public MGTransferBase<Vector<Number>>
    {
    public:
      using VectorType = Vector<Number>;

      MGTransferMatrixFree() = default;

      /** With the boundary and refinement-edge DoFs of the levels
       *  (deal.II's or GPU::MGConstrainedDoFs, which must outlive this). */
      explicit MGTransferMatrixFree(
          const dealii::MGConstrainedDoFs &mg_constrained_dofs);

      explicit MGTransferMatrixFree(
          const GPU::MGConstrainedDoFs &mg_constrained_dofs);

      void initialize_constraints(
          const dealii::MGConstrainedDoFs &mg_constrained_dofs);

      void
      initialize_constraints(const GPU::MGConstrainedDoFs &mg_constrained_dofs);

      void clear();

      /**
       * Build the index lists and weights. @p external_partitioners, one
       * per level (or empty), lay out the level vectors; pass the level
       * operators' (e.g. MatrixFree::get_vector_partitioner()). The
       * triangulation must have its multigrid hierarchy (for
       * parallel::distributed::Triangulation, construct_multigrid_hierarchy).
       */
      void build(
          const DoFHandler<dim, dim> &dof_handler,
          const std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
              &external_partitioners = {});

      /** dst = P src, from level to_level - 1 to to_level. */
      void prolongate(const unsigned int to_level,
                      VectorType        &dst,
                      const VectorType  &src) const override;

      /** dst += P src. */
      void prolongate_and_add(const unsigned int to_level,
                              VectorType        &dst,
                              const VectorType  &src) const override;

      /** dst += P^T src, from level from_level to from_level - 1. */
      void restrict_and_add(const unsigned int from_level,
                            VectorType        &dst,
                            const VectorType  &src) const override;

      /** Each level's vector laid out and set to the values of the global
       *  vector @p src on the level's active cells (refinement-edge DoFs
       *  left out), zero elsewhere. */
      template <typename Number2, int spacedim>
      void copy_to_mg(const DoFHandler<dim, spacedim> &dof_handler,
                      MGLevelObject<VectorType>       &dst,
                      const Vector<Number2>           &src) const;

      /** @p dst set to the level values on the active cells of each level
       *  (zero elsewhere, e.g. at hanging nodes). */
      template <typename Number2, int spacedim>
      void copy_from_mg(const DoFHandler<dim, spacedim> &dof_handler,
                        Vector<Number2>                 &dst,
                        const MGLevelObject<VectorType> &src) const;

      /** As copy_from_mg(), adding to @p dst. */
      template <typename Number2, int spacedim>
      void copy_from_mg_add(const DoFHandler<dim, spacedim> &dof_handler,
                            Vector<Number2>                 &dst,
                            const MGLevelObject<VectorType> &src) const;

      /** The layout of level @p level's vectors. */
      const std::shared_ptr<const Utilities::MPI::Partitioner> &
      get_level_partitioner(const unsigned int level) const;

      unsigned int min_level() const { return 0; }

      unsigned int max_level() const { return n_levels - 1; }

      /** Device and host bytes of the index lists, weights and vectors. */
      std::size_t memory_consumption() const;

      /** Seconds of build()'s steps. */
      const SetupTimer &get_setup_timer() const { return setup_timer; }

    protected:
      /**
       * The per-cell part of prolongate(): fine += W P coarse on the
       * transfer vectors' local entries (owned and ghost) of level @p
       * to_level and the level below. MGTransferSparseMatrix replaces it.
       */
      virtual void prolongate_cells(const unsigned int to_level,
                                    const Number      *coarse,
                                    Number            *fine) const;

      /** The per-cell part of restrict_and_add(): coarse += P^T W fine. */
      virtual void restrict_cells(const unsigned int from_level,
                                  const Number      *fine,
                                  Number            *coarse) const;

      // Transfer between level l - 1 and l (entry l; entry 0 unused).
      struct LevelTransfer
      {
        unsigned int n_coarse_cells = 0;
        // Per coarse cell, per component: local indices into the coarse
        // level's transfer vector ((k + 1)^dim, constrained_dof_flag on
        // Dirichlet DoFs) and into the fine one ((2k + 1)^dim).
        Array<unsigned int> coarse_indices;
        Array<unsigned int> fine_indices;
        // Per local entry of the fine transfer vector: 1 / (coarse cells
        // that share it).
        Array<Number> weights;
      };

      unsigned int               n_levels     = 0;
      unsigned int               degree       = 0;
      unsigned int               n_components = 0;
      Array<Number>              prolongation_1d;
      std::vector<LevelTransfer> transfers;
      std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
          transfer_partitioners;

    private:
      SetupTimer setup_timer;

      // Copies between the global vector and one level.
      struct LevelCopy
      {
        // Level entries (owned) <- global entries (owned or ghost in
        // global_copy_partitioner).
        Array<unsigned int> to_level;
        Array<unsigned int> to_level_source;
        // Global entries (owned) <- level entries (owned or ghost in
        // partitioner).
        Array<unsigned int>                                from_level;
        Array<unsigned int>                                from_level_source;
        std::shared_ptr<const Utilities::MPI::Partitioner> partitioner;
        // Whether any rank reads ghost entries of the level vector.
        bool needs_ghosts = false;
      };

      // build()'s last steps: the copies between the global vector and
      // the levels, from the children's lattices of its first.
      void build_copies(const DoFHandler<dim, dim>          &dof_handler,
                        const internal::TransferLattices    &lattices,
                        const std::vector<const IndexSet *> &edge_dofs,
                        internal::DevicePartitioners &device_partitioners);

      // The vector the transfer reads level @p level from: @p v itself if
      // it has the transfer's layout, else a ghosted copy.
      const VectorType &ghosted_input(const unsigned int level,
                                      const VectorType  &v) const;

      void prolongate_add_internal(const unsigned int to_level,
                                   VectorType        &dst,
                                   const VectorType  &src,
                                   const bool         add) const;

      template <typename Number2>
      void copy_from_mg_internal(Vector<Number2>                 &dst,
                                 const MGLevelObject<VectorType> &src) const;

      // One of them, or neither.
      SmartPointer<const dealii::MGConstrainedDoFs> mg_constrained_dofs;
      SmartPointer<const GPU::MGConstrainedDoFs>    gpu_mg_constrained_dofs;
      std::vector<LevelCopy>                        copies;
      std::vector<std::shared_ptr<const Utilities::MPI::Partitioner>>
                                                         level_partitioners;
      std::shared_ptr<const Utilities::MPI::Partitioner> global_partitioner;
      std::shared_ptr<const Utilities::MPI::Partitioner>
                                      global_copy_partitioner;
      bool                            global_copy_needs_ghosts = false;
      mutable std::vector<VectorType> transfer_vectors;
      mutable std::vector<VectorType> copy_vectors;
      mutable VectorType              global_copy_vector;
    };

    namespace internal
    {
      // dst[to[i]] (+)= src[from[i]], converting the number type.
      template <typename NumberDst, typename NumberSrc>
      void copy_indexed(const Array<unsigned int> &to,
                        const Array<unsigned int> &from,
                        NumberDst                 *dst,
                        const NumberSrc           *src,
                        const bool                 add);
    } // namespace internal

    template <int dim, typename Number>
    template <typename Number2, int spacedim>
    void MGTransferMatrixFree<dim, Number>::copy_to_mg(
        const DoFHandler<dim, spacedim> &,
        MGLevelObject<VectorType> &dst,
        const Vector<Number2>     &src) const
    {
      AssertThrow(n_levels > 0,
                  ExcNotSupportedByMGTransfer("copy_to_mg() before build()"));
      AssertThrow(
          src.size() == global_partitioner->size() &&
              src.locally_owned_size() ==
                  global_partitioner->locally_owned_size(),
          ExcVectorLayoutMismatch(src.size(),
                                  global_partitioner->size(),
                                  src.locally_owned_size(),
                                  global_partitioner->locally_owned_size()));
      dst.resize(0, n_levels - 1);
      for (unsigned int l = 0; l < n_levels; ++l)
        dst[l].reinit(level_partitioners[l]);
      if (global_copy_needs_ghosts)
      {
        global_copy_vector.copy_locally_owned_data_from(src);
        global_copy_vector.update_ghost_values();
        for (unsigned int l = 0; l < n_levels; ++l)
          internal::copy_indexed(copies[l].to_level,
                                 copies[l].to_level_source,
                                 dst[l].get_values(),
                                 global_copy_vector.get_values(),
                                 false);
      }
      else
        for (unsigned int l = 0; l < n_levels; ++l)
          internal::copy_indexed(copies[l].to_level,
                                 copies[l].to_level_source,
                                 dst[l].get_values(),
                                 src.get_values(),
                                 false);
    }

    template <int dim, typename Number>
    template <typename Number2, int spacedim>
    void MGTransferMatrixFree<dim, Number>::copy_from_mg(
        const DoFHandler<dim, spacedim> &,
        Vector<Number2>                 &dst,
        const MGLevelObject<VectorType> &src) const
    {
      dst = Number2();
      copy_from_mg_internal(dst, src);
    }

    template <int dim, typename Number>
    template <typename Number2, int spacedim>
    void MGTransferMatrixFree<dim, Number>::copy_from_mg_add(
        const DoFHandler<dim, spacedim> &,
        Vector<Number2>                 &dst,
        const MGLevelObject<VectorType> &src) const
    {
      // Each owned global entry comes from one level: add level by level
      // into a zeroed copy, then to dst.
      Vector<Number2> values;
      values.reinit(dst);
      copy_from_mg_internal(values, src);
      dst += values;
    }

    template <int dim, typename Number>
    template <typename Number2>
    void MGTransferMatrixFree<dim, Number>::copy_from_mg_internal(
        Vector<Number2> &dst, const MGLevelObject<VectorType> &src) const
    {
      AssertThrow(n_levels > 0,
                  ExcNotSupportedByMGTransfer("copy_from_mg() before build()"));
      AssertThrow(
          dst.size() == global_partitioner->size() &&
              dst.locally_owned_size() ==
                  global_partitioner->locally_owned_size(),
          ExcVectorLayoutMismatch(dst.size(),
                                  global_partitioner->size(),
                                  dst.locally_owned_size(),
                                  global_partitioner->locally_owned_size()));
      AssertThrow(src.min_level() == 0 && src.max_level() == n_levels - 1,
                  ExcNotSupportedByMGTransfer(
                      "level vectors of levels " +
                      std::to_string(src.min_level()) + ".." +
                      std::to_string(src.max_level()) +
                      ", the transfer has 0.." + std::to_string(n_levels - 1)));
      for (unsigned int l = 0; l < n_levels; ++l)
      {
        AssertThrow(src[l].locally_owned_size() ==
                        level_partitioners[l]->locally_owned_size(),
                    ExcVectorLayoutMismatch(
                        src[l].size(),
                        level_partitioners[l]->size(),
                        src[l].locally_owned_size(),
                        level_partitioners[l]->locally_owned_size()));
        const Number *values = src[l].get_values();
        if (copies[l].partitioner != src[l].get_partitioner())
        {
          AssertThrow(copies[l].partitioner != level_partitioners[l],
                      ExcNotSupportedByMGTransfer(
                          "level vectors not laid out by "
                          "get_level_partitioner() (use copy_to_mg() or "
                          "the level operators' initialize_dof_vector())"));
          copy_vectors[l].copy_locally_owned_data_from(src[l]);
          copy_vectors[l].update_ghost_values();
          values = copy_vectors[l].get_values();
        }
        else if (copies[l].needs_ghosts)
          src[l].update_ghost_values();
        internal::copy_indexed(copies[l].from_level,
                               copies[l].from_level_source,
                               dst.get_values(),
                               values,
                               false);
      }
    }
  } // namespace GPU
} // namespace dealii

#endif
