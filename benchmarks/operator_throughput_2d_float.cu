// operator_throughput: the runs in 2D with float (all degrees compiled).
#include "operator_throughput.h"

template void
dispatch<2, float>(const unsigned int, const Parameters &, std::vector<Row> &);
