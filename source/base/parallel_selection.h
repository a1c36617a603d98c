// Parallel selection for the set-up: the entries of a range, or the cells
// of a level, that pass a test, in order, on the set-up threads.
#ifndef dealii_gpu_source_base_parallel_selection_h
#define dealii_gpu_source_base_parallel_selection_h

#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/dofs/dof_handler.h>
#include <deal.II/grid/tria.h>
#include <deal.II/grid/tria_iterator.h>

#include <cstddef>
#include <numeric>
#include <vector>

namespace dealii
{
  namespace GPU
  {
    namespace internal
    {
      // Appends value(i) for the i in [0, n) with keep(i) to @p out, in the
      // order of i: each chunk of @p grain counts its entries, then writes
      // them from the sum of the counts before it (the same list on any
      // number of threads). value(i) is called once, after keep(i).
      template <typename Keep, typename Value, typename Out>
      void append_selected(const std::size_t n,
                           const std::size_t grain,
                           const Keep       &keep,
                           const Value      &value,
                           Out              &out)
      {
        const std::size_t        n_chunks = (n + grain - 1) / grain;
        std::vector<std::size_t> offset(n_chunks + 1, 0);
        parallel_for_chunks(n,
                            grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              std::size_t count = 0;
                              for (std::size_t i = begin; i < end; ++i)
                                count += keep(i) ? 1 : 0;
                              offset[begin / grain + 1] = count;
                            });
        std::partial_sum(offset.begin(), offset.end(), offset.begin());
        if (offset[n_chunks] == 0)
          return;
        const std::size_t start = out.size();
        out.resize(start + offset[n_chunks]);
        parallel_for_chunks(n,
                            grain,
                            [&](const std::size_t begin, const std::size_t end)
                            {
                              std::size_t pos = start + offset[begin / grain];
                              for (std::size_t i = begin; i < end; ++i)
                                if (keep(i))
                                  out[pos++] = value(i);
                            });
      }

      // The cells of @p level (only active ones if @p active_only) with
      // keep(cell), in the order of the level's cell iterators (by index).
      template <typename Iterator, int dim, typename Keep>
      std::vector<Iterator> cells_on_level(const DoFHandler<dim> &dof_handler,
                                           const unsigned int     level,
                                           const bool             active_only,
                                           const Keep            &keep)
      {
        std::vector<Iterator>     cells;
        const Triangulation<dim> &tria = dof_handler.get_triangulation();
        // A rank's triangulation may have fewer levels than the global one.
        if (level >= tria.n_levels())
          return cells;
        using Raw      = TriaRawIterator<typename Iterator::AccessorType>;
        const auto raw = [&](const std::size_t i)
        {
          return Raw(&tria,
                     static_cast<int>(level),
                     static_cast<int>(i),
                     &dof_handler);
        };
        append_selected(
            tria.n_raw_cells(level),
            4096,
            [&](const std::size_t i)
            {
              const Raw cell = raw(i);
              return cell->used() && !(active_only && cell->has_children()) &&
                     keep(Iterator(cell));
            },
            [&](const std::size_t i) { return Iterator(raw(i)); },
            cells);
        return cells;
      }

    } // namespace internal
  }   // namespace GPU
} // namespace dealii

#endif
