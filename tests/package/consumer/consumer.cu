// Squares 1..10 in a kernel of its own and sums them with GPU::Vector.
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/vector.h>

#include <iostream>

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  dealii::GPU::Device::initialize(argc, argv);
  dealii::GPU::Vector<double> v(10);
  double                     *x = v.get_values();
  dealii::GPU::parallel_for("square",
                            10,
                            [=] DEAL_II_GPU_HOST_DEVICE(const std::size_t i)
                            { x[i] = double(i + 1) * (i + 1); });
  std::cout << "sum of squares " << v.l1_norm() << ": "
            << (v.l1_norm() == 385. ? "yes" : "no") << std::endl;
}
