// cpu_vs_gpu: the laplace operation, both backends, degrees 1-8.
#include "cpu_vs_gpu_problems.h"

namespace CEED
{
  void run_laplace(const Settings &settings, std::ostream &csv)
  {
    run_problem<LaplaceProblem>(settings, csv);
  }
} // namespace CEED
