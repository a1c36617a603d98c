// BP1 and BP2 (mass, Gauss with k + 2 points), both backends, degrees 1-8.
#include "ceed_bps_problem.h"

namespace CEED
{
  void run_bp1_bp2(const unsigned int bp,
                   const Settings    &settings,
                   std::ostream      &csv)
  {
    if (bp == 1)
      run_bp<1>(settings, csv);
    else
      run_bp<2>(settings, csv);
  }
} // namespace CEED
