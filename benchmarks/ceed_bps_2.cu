// BP3 and BP4 (Laplace, Gauss with k + 2 points), both backends, degrees 1-8.
#include "ceed_bps_problem.h"

namespace CEED
{
  void run_bp3_bp4(const unsigned int bp,
                   const Settings    &settings,
                   std::ostream      &csv)
  {
    if (bp == 3)
      run_bp<3>(settings, csv);
    else
      run_bp<4>(settings, csv);
  }
} // namespace CEED
