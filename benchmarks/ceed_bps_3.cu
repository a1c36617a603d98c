// BP5 and BP6 (Laplace, Gauss-Lobatto with k + 1 points), both backends,
// degrees 1-8.
#include "ceed_bps_problem.h"

namespace CEED
{
  void run_bp5_bp6(const unsigned int bp,
                   const Settings    &settings,
                   std::ostream      &csv)
  {
    if (bp == 5)
      run_bp<5>(settings, csv);
    else
      run_bp<6>(settings, csv);
  }
} // namespace CEED
