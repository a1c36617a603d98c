// operator_throughput: the runs in 3D with double (all degrees compiled).
#include "operator_throughput.h"

template void
dispatch<3, double>(const unsigned int, const Parameters &, std::vector<Row> &);
