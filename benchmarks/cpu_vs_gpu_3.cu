// cpu_vs_gpu: the helmholtz operation, both backends, degrees 1-8.
#include "cpu_vs_gpu_problems.h"

namespace CEED
{
  void run_helmholtz(const Settings &settings, std::ostream &csv)
  {
    run_problem<HelmholtzProblem>(settings, csv);
  }
} // namespace CEED
