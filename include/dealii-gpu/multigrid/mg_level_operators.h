// GPU::MGLevelOperator and GPU::MGInterfaceOperator: the level operator of
// local smoothing on adaptively refined meshes (refinement-edge DoFs as
// identity rows) and the interface (edge) matrices between a level and the
// coarser active cells around it, for deal.II's Multigrid.
#ifndef dealii_gpu_multigrid_mg_level_operators_h
#define dealii_gpu_multigrid_mg_level_operators_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/smartpointer.h>
#include <deal.II/base/subscriptor.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /** buffer[i] = values[indices[i]]. */
      template <typename Number>
      void gather_entries(const Array<unsigned int> &indices,
                          const Number              *values,
                          Number                    *buffer);

      /** values[indices[i]] = buffer[i]. */
      template <typename Number>
      void scatter_entries(const Array<unsigned int> &indices,
                           const Number              *buffer,
                           Number                    *values);

      /** values[indices[i]] = value. */
      template <typename Number>
      void fill_entries(const Array<unsigned int> &indices,
                        const Number               value,
                        Number                    *values);
    } // namespace internal

    /**
     * A level operator for local smoothing: @p OperatorType (any operator
     * with vmult, initialize_dof_vector and compute_inverse_diagonal, its
     * Dirichlet rows already identity) with the level's refinement-edge DoFs
     * (MGConstrainedDoFs::get_refinement_edge_indices()) also treated as
     * constrained: read as zero and identity rows, as deal.II's
     * MatrixFreeOperators::Base does. On a level without refinement edge it
     * is the operator itself. It also provides the two halves of the
     * interface matrix that MGInterfaceOperator hands to Multigrid.
     *
     * vmult() zeroes the edge entries of src for the operator and restores
     * them afterwards, so src must not be shared with another thread.
     */
    template <typename OperatorType>
    class MGLevelOperator : public Subscriptor
    {
    public:
      using VectorType = typename OperatorType::VectorType;
      using value_type = typename OperatorType::value_type;
      using size_type  = types::global_dof_index;

      /** @p op must outlive this object. */
      void initialize(const OperatorType      &op,
                      const MGConstrainedDoFs &mg_constrained_dofs,
                      const unsigned int       level)
      {
        operator_ptr = &op;
        VectorType vector;
        op.initialize_dof_vector(vector);
        const auto &partitioner = *vector.get_partitioner();
        IndexSet edge = mg_constrained_dofs.get_refinement_edge_indices(level);
        edge.set_size(partitioner.size());
        edge = edge & partitioner.locally_owned_range();
        std::vector<unsigned int> local;
        local.reserve(edge.n_elements());
        for (const auto i : edge)
          if (!mg_constrained_dofs.is_boundary_index(level, i))
            local.push_back(partitioner.global_to_local(i));
        edge_indices.copy_from(local);
        saved_values.resize(local.size());
        edge_values.resize(local.size());
        n_global_edge_dofs = Utilities::MPI::sum<types::global_dof_index>(
            local.size(), partitioner.get_mpi_communicator());
      }

      /** Whether any rank's level has refinement-edge DoFs. */
      bool has_refinement_edge() const { return n_global_edge_dofs > 0; }

      void initialize_dof_vector(VectorType &vector) const
      {
        get_operator().initialize_dof_vector(vector);
      }

      /** dst = A src with the edge DoFs constrained (dst = src there). */
      void vmult(VectorType &dst, const VectorType &src) const
      {
        if (!has_refinement_edge())
        {
          get_operator().vmult(dst, src);
          return;
        }
        EdgeZeroed zeroed(*this, src);
        get_operator().vmult(dst, src);
        zeroed.restore();
        internal::scatter_entries(
            edge_indices, saved_values.data(), dst.get_values());
      }

      void Tvmult(VectorType &dst, const VectorType &src) const
      {
        vmult(dst, src);
      }

      void vmult_add(VectorType &dst, const VectorType &src) const
      {
        add_product(dst, src, &MGLevelOperator::vmult);
      }

      void Tvmult_add(VectorType &dst, const VectorType &src) const
      {
        add_product(dst, src, &MGLevelOperator::vmult);
      }

      /** The operator's inverse diagonal, 1 on the edge DoFs. */
      void compute_inverse_diagonal(VectorType &inverse_diagonal) const
      {
        get_operator().compute_inverse_diagonal(inverse_diagonal);
        internal::fill_entries(
            edge_indices, value_type(1), inverse_diagonal.get_values());
      }

      /**
       * Interface matrix, restriction half: dst = A_{E,N} src, the rows of
       * the edge DoFs E applied to src without its edge entries (zero in
       * every other row).
       */
      void vmult_interface_down(VectorType &dst, const VectorType &src) const
      {
        if (!has_refinement_edge())
        {
          dst = value_type();
          return;
        }
        {
          EdgeZeroed zeroed(*this, src);
          get_operator().vmult(dst, src);
        }
        internal::gather_entries(
            edge_indices, dst.get_values(), edge_values.data());
        dst = value_type();
        internal::scatter_entries(
            edge_indices, edge_values.data(), dst.get_values());
      }

      /**
       * Interface matrix, prolongation half: dst = A_{N,E} src, the
       * operator applied to the edge entries of src only, zero in the edge
       * rows.
       */
      void vmult_interface_up(VectorType &dst, const VectorType &src) const
      {
        if (!has_refinement_edge())
        {
          dst = value_type();
          return;
        }
        if (edge_only.size() != src.size())
          initialize_dof_vector(edge_only);
        else
          edge_only = value_type();
        internal::gather_entries(
            edge_indices, src.get_values(), edge_values.data());
        internal::scatter_entries(
            edge_indices, edge_values.data(), edge_only.get_values());
        get_operator().vmult(dst, edge_only);
        internal::fill_entries(edge_indices, value_type(), dst.get_values());
      }

      size_type m() const { return get_operator().m(); }

      size_type n() const { return get_operator().n(); }

      /** Not available for a matrix-free operator. */
      value_type el(const size_type i, const size_type j) const
      {
        return get_operator().el(i, j);
      }

      const OperatorType &get_operator() const
      {
        Assert(operator_ptr != nullptr, ExcNotInitialized());
        return *operator_ptr;
      }

      /** Device bytes of the edge lists and buffers (not the operator). */
      std::size_t memory_consumption() const
      {
        return edge_indices.memory_consumption() +
               saved_values.memory_consumption() +
               edge_values.memory_consumption() +
               edge_only.memory_consumption() +
               product_buffer.memory_consumption();
      }

    private:
      // Saves src's edge entries and zeroes them (ghosts refreshed where
      // src carries them); restore() or the destructor puts them back.
      class EdgeZeroed
      {
      public:
        EdgeZeroed(const MGLevelOperator &op, const VectorType &src)
            : op(op), src(const_cast<VectorType &>(src)),
              had_ghosts(src.has_ghost_elements())
        {
          internal::gather_entries(
              op.edge_indices, this->src.get_values(), op.saved_values.data());
          internal::fill_entries(
              op.edge_indices, value_type(), this->src.get_values());
          if (had_ghosts)
            this->src.update_ghost_values();
        }

        void restore()
        {
          if (restored)
            return;
          restored = true;
          internal::scatter_entries(
              op.edge_indices, op.saved_values.data(), src.get_values());
          if (had_ghosts)
            src.update_ghost_values();
        }

        ~EdgeZeroed() { restore(); }

      private:
        const MGLevelOperator &op;
        VectorType            &src;
        const bool             had_ghosts;
        bool                   restored = false;
      };

      void add_product(VectorType       &dst,
                       const VectorType &src,
                       void (MGLevelOperator::*product)(VectorType &,
                                                        const VectorType &)
                           const) const
      {
        if (product_buffer.size() != dst.size())
          product_buffer.reinit(dst, true);
        (this->*product)(product_buffer, src);
        dst += product_buffer;
      }

      SmartPointer<const OperatorType> operator_ptr;
      // Local indices of the locally owned edge DoFs that are not
      // Dirichlet DoFs (those are identity rows of the operator already).
      Array<unsigned int>       edge_indices;
      mutable Array<value_type> saved_values;
      mutable Array<value_type> edge_values;
      mutable VectorType        edge_only;
      mutable VectorType        product_buffer;
      types::global_dof_index   n_global_edge_dofs = 0;
    };

    /**
     * The interface matrix of a level for deal.II's
     * Multigrid::set_edge_matrices(): vmult() is
     * MGLevelOperator::vmult_interface_down(), Tvmult() is
     * MGLevelOperator::vmult_interface_up() (deal.II's
     * MatrixFreeOperators::MGInterfaceOperator for GPU::MGLevelOperator).
     */
    template <typename LevelOperatorType>
    class MGInterfaceOperator : public Subscriptor
    {
    public:
      using VectorType = typename LevelOperatorType::VectorType;
      using value_type = typename LevelOperatorType::value_type;
      using size_type  = types::global_dof_index;

      /** @p level_operator must outlive this object. */
      void initialize(const LevelOperatorType &level_operator)
      {
        level_operator_ptr = &level_operator;
      }

      void vmult(VectorType &dst, const VectorType &src) const
      {
        get_level_operator().vmult_interface_down(dst, src);
      }

      void Tvmult(VectorType &dst, const VectorType &src) const
      {
        get_level_operator().vmult_interface_up(dst, src);
      }

      void vmult_add(VectorType &dst, const VectorType &src) const
      {
        if (!get_level_operator().has_refinement_edge())
          return;
        reinit_buffer(dst);
        vmult(buffer, src);
        dst += buffer;
      }

      void Tvmult_add(VectorType &dst, const VectorType &src) const
      {
        if (!get_level_operator().has_refinement_edge())
          return;
        reinit_buffer(dst);
        Tvmult(buffer, src);
        dst += buffer;
      }

      void initialize_dof_vector(VectorType &vector) const
      {
        get_level_operator().initialize_dof_vector(vector);
      }

      size_type m() const { return get_level_operator().m(); }

      size_type n() const { return get_level_operator().n(); }

      const LevelOperatorType &get_level_operator() const
      {
        Assert(level_operator_ptr != nullptr, ExcNotInitialized());
        return *level_operator_ptr;
      }

    private:
      void reinit_buffer(const VectorType &like) const
      {
        if (buffer.size() != like.size())
          buffer.reinit(like, true);
      }

      SmartPointer<const LevelOperatorType> level_operator_ptr;
      mutable VectorType                    buffer;
    };
  } // namespace GPU
} // namespace dealii

#endif
