// Each MPI rank's speed at once, all ranks running together: a compute
// loop, the first write of a fresh 512 MB array (page faults) and again,
// and a read. Run on the GPU machine's host to tell slow cores from uneven
// work in the set-up's per-rank spread (doc/benchmarks.md, Time to
// solution). Standalone:
//   mpicc -D_GNU_SOURCE -O2 core_speed.c -o core_speed
//   mpirun -np 16 --bind-to core ./core_speed
#include <mpi.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
static double
now(void)
{
  return MPI_Wtime();
}
int
main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = (size_t)64 << 20; // 512 MB of doubles
  double      *a = malloc(n * sizeof(double));
  for (int rep = 0; rep < 3; ++rep)
  {
    MPI_Barrier(MPI_COMM_WORLD);
    double        t = now();
    unsigned long x = rank + 1;
    for (long i = 0; i < 300000000L; ++i)
      x = x * 6364136223846793005UL + 1442695040888963407UL;
    double compute = now() - t;
    MPI_Barrier(MPI_COMM_WORLD);
    t = now();
    for (size_t i = 0; i < n; ++i)
      a[i] = (double)i; // first touch in rep 0
    double touch = now() - t;
    t            = now();
    double s     = 0;
    for (size_t i = 0; i < n; ++i)
      s += a[i];
    double sweep   = now() - t;
    double mine[4] = {compute, touch, sweep, (double)sched_getcpu()},
           all[4 * 64];
    MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0)
    {
      printf("rep %d (x %lu s %g)\nrank cpu compute[s] write[s] read[s]\n",
             rep,
             x & 1,
             s > 0 ? 1. : 0.);
      for (int r = 0; r < size; ++r)
        printf("%4d %3.0f %8.3f %8.3f %8.3f\n",
               r,
               all[4 * r + 3],
               all[4 * r],
               all[4 * r + 1],
               all[4 * r + 2]);
    }
  }
  free(a);
  MPI_Finalize();
}
