// Team functors on either backend against plain host loops: scratch memory
// shared between loops separated by barriers, 3D thread loops with more or
// fewer points than threads, several teams a block or a warp, atomics, sums
// and maxima.
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>

#include "../tests.h"
#include <vector>

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  LogInit                          log;

  std::uint64_t seed = 42;

  // Each team: load its m^3 points into scratch, barrier, then every point
  // writes the sum of its x-neighbours (periodic) read from scratch, then
  // barrier, then the reversed order. A missing barrier, a wrong thread
  // mapping or teams of one block or warp sharing scratch change the result.
  // Shapes: one team a block with fewer threads than points; 27 and 8
  // threads packed into warps (warp barriers); 64 threads, two a block.
  struct Case
  {
    GPU::TeamShape shape;
    unsigned int   teams_per_block;
    unsigned int   m;
  };
  for (const Case &c : {Case{{4, 4, 2}, 1, 5},
                        Case{{3, 3, 3}, 2, 3},
                        Case{{2, 2, 2}, 7, 3},
                        Case{{4, 4, 4}, 2, 4}})
  {
    const unsigned int  n_teams = 37, m = c.m;
    const unsigned int  points = m * m * m;
    std::vector<double> input(n_teams * points);
    for (double &v : input)
      v = random_value(seed);
    GPU::Array<double> in, out;
    in.copy_from(input);
    out.resize(input.size());
    const double *x = in.data();
    double       *y = out.data();
    GPU::parallel_for_teams(
        "team test",
        n_teams,
        c.shape,
        2 * points * sizeof(double),
        [=] DEAL_II_GPU_HOST_DEVICE(const GPU::TeamMember &team)
        {
          double       *s  = team.scratch<double>();
          double       *t  = team.scratch<double>(points * sizeof(double));
          const double *xt = x + team.team_index() * points;
          team.for_each(m,
                        m,
                        m,
                        [&](unsigned int i, unsigned int j, unsigned int k)
                        { s[i + m * (j + m * k)] = xt[i + m * (j + m * k)]; });
          team.barrier();
          team.for_each(m,
                        m,
                        m,
                        [&](unsigned int i, unsigned int j, unsigned int k)
                        {
                          const unsigned int l = (i + m - 1) % m,
                                             r = (i + 1) % m;
                          t[i + m * (j + m * k)] =
                              s[l + m * (j + m * k)] + s[r + m * (j + m * k)];
                        });
          team.barrier();
          team.for_each(points,
                        [&](unsigned int q) {
                          y[team.team_index() * points + q] = t[points - 1 - q];
                        });
        },
        c.teams_per_block);
    std::vector<double> result;
    out.copy_to(result);
    double max_error = 0;
    for (unsigned int cell = 0; cell < n_teams; ++cell)
      for (unsigned int q = 0; q < points; ++q)
      {
        const unsigned int p = points - 1 - q, i = p % m, jk = p / m;
        const double ref = input[cell * points + (i + m - 1) % m + m * jk] +
                           input[cell * points + (i + 1) % m + m * jk];
        max_error =
            max_keep_nan(max_error, std::abs(result[cell * points + q] - ref));
      }
    deallog << "team kernel with scratch and barriers, team " << c.shape.x
            << "x" << c.shape.y << "x" << c.shape.z << ", " << c.teams_per_block
            << " a block, " << points << " points: max error " << max_error
            << std::endl;
  }

  // Atomic histogram: 10000 entries into 7 bins.
  GPU::Array<double>  bins(7);
  std::vector<double> zero(7, 0.);
  bins.copy_from(zero);
  double *b = bins.data();
  GPU::parallel_for("histogram",
                    10000,
                    [=] DEAL_II_GPU_HOST_DEVICE(std::size_t i)
                    { GPU::atomic_add(&b[i % 7], 1.); });
  std::vector<double> histogram;
  bins.copy_to(histogram);
  deallog << "histogram";
  for (const double h : histogram)
    deallog << ' ' << h;
  deallog << std::endl;

  // Reductions over lengths around the block and chunk sizes.
  for (const std::size_t n : {1ul, 255ul, 256ul, 257ul, 1000ul, 123457ul})
  {
    std::vector<double> values(n);
    for (double &v : values)
      v = random_value(seed) - 0.5;
    GPU::Array<double> device_values;
    device_values.copy_from(values);
    const double *v   = device_values.data();
    const double  sum = GPU::parallel_sum(
        "sum", n, [=] DEAL_II_GPU_HOST_DEVICE(std::size_t i) { return v[i]; });
    const double max =
        GPU::parallel_max("max",
                          n,
                          [=] DEAL_II_GPU_HOST_DEVICE(std::size_t i)
                          { return v[i] < 0 ? -v[i] : v[i]; });
    double ref_sum = 0, ref_max = 0, sum_abs = 0;
    for (const double value : values)
    {
      ref_sum += value;
      sum_abs += std::abs(value);
      ref_max = max_keep_nan(ref_max, std::abs(value));
    }
    // Both sums round differently; bound the difference by eps * sum |v|.
    deallog << "n=" << n << " sum agrees: "
            << (std::abs(sum - ref_sum) <= 1e-14 * sum_abs ? "yes" : "no")
            << " max exact: " << (max == ref_max ? "yes" : "no") << std::endl;
  }
}
