// cpu_vs_gpu: the mass operation, both backends, degrees 1-8.
#include "cpu_vs_gpu_problems.h"

namespace CEED
{
  void run_mass(const Settings &settings, std::ostream &csv)
  {
    run_problem<MassProblem>(settings, csv);
  }
} // namespace CEED
