// cpu_vs_gpu: the elasticity operation, both backends, degrees 1-8.
#include "cpu_vs_gpu_problems.h"

namespace CEED
{
  void run_elasticity(const Settings &settings, std::ostream &csv)
  {
    run_problem<ElasticityProblem>(settings, csv);
  }
} // namespace CEED
