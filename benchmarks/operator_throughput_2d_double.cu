// operator_throughput: the runs in 2D with double (all degrees compiled).
#include "operator_throughput.h"

template void
dispatch<2, double>(const unsigned int, const Parameters &, std::vector<Row> &);
