// GPU::MGLevelOperator and GPU::MGInterfaceOperator: the level operator of
// local smoothing on adaptively refined meshes (refinement-edge DoFs as
// identity rows) and the interface (edge) matrices between a level and the
// coarser active cells around it, for deal.II's Multigrid.
#ifndef dealii_gpu_multigrid_mg_level_operators_h
#define dealii_gpu_multigrid_mg_level_operators_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/base/memory_consumption.h>
#include <deal.II/base/mpi.h>
#include <deal.II/base/smartpointer.h>
#include <deal.II/base/subscriptor.h>
#include <deal.II/multigrid/mg_constrained_dofs.h>

#include <type_traits>
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

      template <typename VectorType>
      struct is_device_vector : std::false_type
      {
      };
      template <typename Number>
      struct is_device_vector<Vector<Number>> : std::true_type
      {
      };

      // The refinement-edge entries of level vectors: device kernels for
      // GPU::Vector, a host loop for deal.II's vectors (CPU backend).
      template <typename VectorType>
      class EdgeEntries
      {
      public:
        using Number                    = typename VectorType::value_type;
        static constexpr bool on_device = is_device_vector<VectorType>::value;
        template <typename T>
        using Storage = std::conditional_t<on_device, Array<T>, std::vector<T>>;

        void reinit(const std::vector<unsigned int> &local)
        {
          if constexpr (on_device)
            indices.copy_from(local);
          else
            indices = local;
          saved.resize(local.size());
          buffer.resize(local.size());
        }

        std::size_t size() const { return indices.size(); }

        // to = vector's edge entries (to: saved or buffer).
        void gather(const VectorType &vector, Storage<Number> &to) const
        {
          if constexpr (on_device)
            gather_entries(indices, vector.get_values(), to.data());
          else
            for (std::size_t i = 0; i < indices.size(); ++i)
              to[i] = vector.local_element(indices[i]);
        }

        void scatter(const Storage<Number> &from, VectorType &vector) const
        {
          if constexpr (on_device)
            scatter_entries(indices, from.data(), vector.get_values());
          else
            for (std::size_t i = 0; i < indices.size(); ++i)
              vector.local_element(indices[i]) = from[i];
        }

        void fill(const Number value, VectorType &vector) const
        {
          if constexpr (on_device)
            fill_entries(indices, value, vector.get_values());
          else
            for (const unsigned int i : indices)
              vector.local_element(i) = value;
        }

        std::size_t memory_consumption() const
        {
          if constexpr (on_device)
            return indices.memory_consumption() + saved.memory_consumption() +
                   buffer.memory_consumption();
          else
            return MemoryConsumption::memory_consumption(indices) +
                   MemoryConsumption::memory_consumption(saved) +
                   MemoryConsumption::memory_consumption(buffer);
        }

        Storage<unsigned int>   indices;
        mutable Storage<Number> saved;
        mutable Storage<Number> buffer;
      };
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
     * them afterwards, so src must not be shared with another thread. The
     * vectors are GPU::Vector (kernels) or deal.II's distributed vectors
     * (CPU backend of MatrixFreeOperator; a host loop).
     */
    template <typename OperatorType>
    class MGLevelOperator : public Subscriptor
    {
    public:
      using VectorType = typename OperatorType::VectorType;
      using value_type = typename OperatorType::value_type;
      using size_type  = types::global_dof_index;

      /** @p op must outlive this object; @p mg_constrained_dofs: deal.II's
       *  or GPU::MGConstrainedDoFs. */
      template <typename ConstrainedDoFs>
      void initialize(const OperatorType    &op,
                      const ConstrainedDoFs &mg_constrained_dofs,
                      const unsigned int     level)
      {
        operator_ptr = &op;
        VectorType vector;
        op.initialize_dof_vector(vector);
        const auto &partitioner = *vector.get_partitioner();
        IndexSet    edge_set =
            mg_constrained_dofs.get_refinement_edge_indices(level);
        edge_set.set_size(partitioner.size());
        edge_set = edge_set & partitioner.locally_owned_range();
        std::vector<unsigned int> local;
        local.reserve(edge_set.n_elements());
        for (const auto i : edge_set)
          if (!mg_constrained_dofs.is_boundary_index(level, i))
            local.push_back(partitioner.global_to_local(i));
        edge.reinit(local);
        n_global_edge_dofs = Utilities::MPI::sum<types::global_dof_index>(
            local.size(), partitioner.get_mpi_communicator());
        edge_indices = std::move(local);
      }

      /** The local indices of this rank's refinement-edge DoFs (not on
       *  the Dirichlet boundary). */
      const std::vector<unsigned int> &get_edge_indices() const
      {
        return edge_indices;
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
        this->edge.scatter(this->edge.saved, dst);
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
        edge.fill(value_type(1), inverse_diagonal);
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
        edge.gather(dst, edge.buffer);
        dst = value_type();
        edge.scatter(edge.buffer, dst);
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
        edge.gather(src, edge.buffer);
        edge.scatter(edge.buffer, edge_only);
        get_operator().vmult(dst, edge_only);
        edge.fill(value_type(), dst);
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
        return edge.memory_consumption() + edge_only.memory_consumption() +
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
          op.edge.gather(this->src, op.edge.saved);
          op.edge.fill(value_type(), this->src);
          if (had_ghosts)
            this->src.update_ghost_values();
        }

        void restore()
        {
          if (restored)
            return;
          restored = true;
          op.edge.scatter(op.edge.saved, src);
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
      internal::EdgeEntries<VectorType> edge;
      std::vector<unsigned int>         edge_indices;
      mutable VectorType                edge_only;
      mutable VectorType                product_buffer;
      types::global_dof_index           n_global_edge_dofs = 0;
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
