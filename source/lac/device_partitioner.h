// A partitioner's global-to-local numbering in kernels (library-internal),
// so that set-up converts its index lists where they are used instead of
// on the host before the upload.
#ifndef dealii_gpu_source_lac_device_partitioner_h
#define dealii_gpu_source_lac_device_partitioner_h

#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/partitioner.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * What a kernel needs of a Utilities::MPI::Partitioner: its owned
       * range (deal.II's partitioners own one contiguous range) and its
       * ghosts, which it numbers after the owned entries in increasing
       * global order.
       */
      struct PartitionerView
      {
        types::global_dof_index        first;
        unsigned int                   n_owned;
        unsigned int                   n_ghosts;
        const types::global_dof_index *ghosts;

        /** The local index of @p g; n_owned + n_ghosts if it has none. */
        DEAL_II_GPU_HOST_DEVICE DEAL_II_GPU_FORCE_INLINE unsigned int
        local_index(const types::global_dof_index g) const
        {
          if (g >= first && g - first < n_owned)
            return static_cast<unsigned int>(g - first);
          unsigned int low = 0, high = n_ghosts;
          while (low < high)
          {
            const unsigned int middle = (low + high) / 2;
            if (ghosts[middle] < g)
              low = middle + 1;
            else
              high = middle;
          }
          return low < n_ghosts && ghosts[low] == g ? n_owned + low
                                                    : n_owned + n_ghosts;
        }
      };

      /** A partitioner's ghost list on the current backend. */
      class DevicePartitioner
      {
      public:
        explicit DevicePartitioner(const Utilities::MPI::Partitioner &p)
        {
          std::vector<types::global_dof_index> list;
          list.reserve(p.n_ghost_indices());
          for (const types::global_dof_index g : p.ghost_indices())
            list.push_back(g);
          ghosts.copy_from(list);
          view = PartitionerView{p.local_range().first,
                                 p.locally_owned_size(),
                                 p.n_ghost_indices(),
                                 ghosts.data()};
        }

        PartitionerView view;

      private:
        Array<types::global_dof_index> ghosts;
      };

      /** A DevicePartitioner for each partitioner asked for, made once. */
      class DevicePartitioners
      {
      public:
        const PartitionerView &view(const Utilities::MPI::Partitioner &p)
        {
          auto &entry = made[&p];
          if (!entry)
            entry = std::make_unique<DevicePartitioner>(p);
          return entry->view;
        }

      private:
        std::map<const Utilities::MPI::Partitioner *,
                 std::unique_ptr<DevicePartitioner>>
            made;
      };

      /**
       * local[i] = the local index of global[i * stride] in @p partitioner,
       * with @p flag added where flags (if given) is nonzero at that local
       * index. All arrays on the current backend. Throws where an index is
       * neither owned nor a ghost.
       */
      inline void to_local_indices(const char                    *name,
                                   const PartitionerView         &partitioner,
                                   const std::size_t              n,
                                   const types::global_dof_index *global,
                                   const unsigned int             stride,
                                   unsigned int                  *local,
                                   const unsigned char *flags = nullptr,
                                   const unsigned int   flag  = 0)
      {
        const unsigned int n_local = partitioner.n_owned + partitioner.n_ghosts;
        const double       missing = parallel_reduce<SumOp>(
            name,
            n,
            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i) -> double
            {
              const unsigned int l =
                  partitioner.local_index(global[i * stride]);
              if (l == n_local)
              {
                local[i] = l;
                return 1.;
              }
              local[i] = flags != nullptr && flags[l] != 0 ? (l | flag) : l;
              return 0.;
            });
        AssertThrow(missing == 0.,
                    ExcMessage(std::string(name) + ": " +
                               std::to_string(missing) +
                               " indices neither owned nor ghosts"));
      }
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
