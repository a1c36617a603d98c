// cpu_vs_gpu: the convection-diffusion operation, both backends, degrees 1-8.
#include "cpu_vs_gpu_problems.h"

namespace CEED
{
  void run_convection_diffusion(const Settings &settings, std::ostream &csv)
  {
    run_problem<ConvectionDiffusionProblem>(settings, csv);
  }
} // namespace CEED
