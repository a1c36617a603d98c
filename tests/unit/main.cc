// GoogleTest main: MPI and the backend (DEALII_GPU_DEVICE or --device=).
#include <dealii-gpu/base/device.h>

#include <deal.II/base/mpi.h>

#include <gtest/gtest.h>
#include <iostream>

int
main(int argc, char **argv)
{
  dealii::Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  ::testing::InitGoogleTest(&argc, argv);
  dealii::GPU::Device::initialize(argc, argv);
  const bool root =
      dealii::Utilities::MPI::this_mpi_process(MPI_COMM_WORLD) == 0;
  if (!root)
  {
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  else
    std::cout << "backend: " << dealii::GPU::Device::description() << std::endl;
  const int result = RUN_ALL_TESTS();
  // A failure on any rank fails the run.
  return dealii::Utilities::MPI::max(result, MPI_COMM_WORLD);
}
