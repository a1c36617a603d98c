// operator_throughput: the runs in 3D with float (all degrees compiled).
#include "operator_throughput.h"

template void
dispatch<3, float>(const unsigned int, const Parameters &, std::vector<Row> &);
