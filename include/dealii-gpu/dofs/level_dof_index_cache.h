// The level DoF indices GPU::MatrixFree fetched for a level's cells, kept
// while a multigrid set-up builds its levels and transfer (library-internal).
#ifndef dealii_gpu_dofs_level_dof_index_cache_h
#define dealii_gpu_dofs_level_dof_index_cache_h

#include <deal.II/base/partitioner.h>
#include <deal.II/base/types.h>
#include <deal.II/dofs/dof_handler.h>

#include <map>
#include <memory>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      /**
       * deal.II 9.4 caches the active DoF indices of a cell, not its level
       * ones: get_mg_dof_indices() takes about 18 times as long as
       * get_dof_indices(). A multigrid set-up asks for the level DoFs of
       * every cell twice, for the level operator (DoFInfo) and for the
       * transfer. While a Scope is open for a DoFHandler, DoFInfo keeps the
       * indices it fetched for each level here (lexicographic, component
       * after component, as both use them) and the transfer reads them.
       * The set-up runs on one thread of a process; the set-up threads only
       * read.
       */
      template <int dim>
      class LevelDoFIndexCache
      {
      public:
        using CellIterator = typename DoFHandler<dim>::cell_iterator;

        /** The indices of one level's kept cells. */
        struct Level
        {
          unsigned int dofs_per_cell = 0;
          /** By a cell's index on the level: its row, or none. */
          std::vector<unsigned int>                  row_of_cell;
          std::unique_ptr<types::global_dof_index[]> indices;

          /** The kept indices of @p cell, or nullptr. */
          const types::global_dof_index *find(const CellIterator &cell) const
          {
            const auto index = static_cast<unsigned int>(cell->index());
            if (index >= row_of_cell.size() || row_of_cell[index] == none)
              return nullptr;
            return indices.get() +
                   std::size_t(row_of_cell[index]) * dofs_per_cell;
          }
        };

        /**
         * A level whose cells are all active (the finest of a uniform
         * mesh): the active DoF of each of its local level indices (owned,
         * then the ghosts of @p layout), invalid_dof_index where none. The
         * level operator's field gather finds them (on the host threads)
         * and the transfer's copies read them instead of visiting the
         * cells again.
         */
        struct ActiveDoFs
        {
          std::shared_ptr<const Utilities::MPI::Partitioner> layout;
          std::unique_ptr<types::global_dof_index[]>         of_local;
        };

        /** Collects for @p dof_handler from construction to destruction. */
        class Scope
        {
        public:
          explicit Scope(const DoFHandler<dim> &dof_handler)
              : dof_handler(&dof_handler),
                opened(registry().emplace(&dof_handler, Kept()).second)
          {
          }
          // An inner scope for the same DoFHandler leaves the outer's.
          ~Scope()
          {
            if (opened)
              registry().erase(dof_handler);
          }
          Scope(const Scope &)            = delete;
          Scope &operator=(const Scope &) = delete;

        private:
          const DoFHandler<dim> *dof_handler;
          const bool             opened;
        };

        /** Whether a Scope is open for @p dof_handler. */
        static bool collecting(const DoFHandler<dim> &dof_handler)
        {
          return registry().count(&dof_handler) == 1;
        }

        /** Keep @p indices ([c * dofs_per_cell + i]) of @p cells on @p
         *  level (if collecting). */
        static void keep(const DoFHandler<dim>           &dof_handler,
                         const unsigned int               level,
                         const std::vector<CellIterator> &cells,
                         const unsigned int               dofs_per_cell,
                         std::unique_ptr<types::global_dof_index[]> &&indices)
        {
          const auto it = registry().find(&dof_handler);
          if (it == registry().end())
            return;
          Level kept;
          kept.dofs_per_cell = dofs_per_cell;
          kept.row_of_cell.assign(
              dof_handler.get_triangulation().n_raw_cells(level), none);
          for (std::size_t c = 0; c < cells.size(); ++c)
            kept.row_of_cell[cells[c]->index()] = c;
          kept.indices             = std::move(indices);
          it->second.levels[level] = std::move(kept);
        }

        /** Keep the active DoFs of @p level (if collecting). */
        static void keep_active_dofs(
            const DoFHandler<dim> &dof_handler,
            const unsigned int     level,
            const std::shared_ptr<const Utilities::MPI::Partitioner> &layout,
            std::unique_ptr<types::global_dof_index[]>              &&of_local)
        {
          const auto it = registry().find(&dof_handler);
          if (it != registry().end())
            it->second.active[level] = ActiveDoFs{layout, std::move(of_local)};
        }

        /** What keep_active_dofs() kept for @p level, or nullptr. */
        static const ActiveDoFs *
        find_active_dofs(const DoFHandler<dim> &dof_handler,
                         const unsigned int     level)
        {
          const auto it = registry().find(&dof_handler);
          if (it == registry().end())
            return nullptr;
          const auto on_level = it->second.active.find(level);
          return on_level == it->second.active.end() ? nullptr
                                                     : &on_level->second;
        }

        /** Drop the level indices kept for @p dof_handler (their last
         *  reader is done; the active DoFs stay); the scope stays open. */
        static void release(const DoFHandler<dim> &dof_handler)
        {
          const auto it = registry().find(&dof_handler);
          if (it != registry().end())
            it->second.levels.clear();
        }

        /** What is kept for @p level of @p dof_handler, or nullptr. */
        static const Level *find(const DoFHandler<dim> &dof_handler,
                                 const unsigned int     level)
        {
          const auto it = registry().find(&dof_handler);
          if (it == registry().end())
            return nullptr;
          const auto on_level = it->second.levels.find(level);
          return on_level == it->second.levels.end() ? nullptr
                                                     : &on_level->second;
        }

      private:
        static constexpr unsigned int none = numbers::invalid_unsigned_int;

        struct Kept
        {
          std::map<unsigned int, Level>      levels;
          std::map<unsigned int, ActiveDoFs> active;
        };

        static std::map<const DoFHandler<dim> *, Kept> &registry()
        {
          static std::map<const DoFHandler<dim> *, Kept> kept;
          return kept;
        }
      };
    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
