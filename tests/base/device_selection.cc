// Backend selection: the command line wins over the environment, unknown
// names and changes of backend after initialization throw, and the default
// is CUDA exactly when a device is visible.
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/base/exceptions.h>

#include "../tests.h"

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  std::ofstream                    logfile("output");
  deallog.attach(logfile);

  deallog << "initialized before first use: "
          << (GPU::Device::is_initialized() ? "yes" : "no") << std::endl;

  try
  {
    GPU::Device::initialize("opencl");
    deallog << "unknown backend accepted" << std::endl;
  }
  catch (const ExceptionBase &e)
  {
    deallog << "unknown backend refused: "
            << (std::string(e.what()).find("'opencl'") != std::string::npos
                    ? "names it"
                    : "does not name it")
            << std::endl;
  }

  // The default: CUDA exactly when built with it and a device is visible.
  const bool expect_cuda =
      GPU::Device::cuda_compiled() && GPU::Device::n_cuda_devices() > 0;
  const char *env = std::getenv("DEALII_GPU_DEVICE");
  GPU::Device::initialize(argc, argv);
  const bool chosen_as_expected =
      env != nullptr
          ? GPU::to_string(GPU::Device::backend()) == env
          : (GPU::Device::backend() == GPU::Backend::cuda) == expect_cuda;
  deallog << "backend chosen as expected: "
          << (chosen_as_expected ? "yes" : "no") << std::endl;
  announce_backend();

  // Same choice again: accepted. The other backend: refused.
  GPU::Device::initialize(GPU::to_string(GPU::Device::backend()));
  deallog << "same backend again accepted" << std::endl;
  const std::string other =
      GPU::Device::backend() == GPU::Backend::cuda ? "host" : "cuda";
  try
  {
    GPU::Device::initialize(other);
    deallog << "change of backend accepted" << std::endl;
  }
  catch (const ExceptionBase &)
  {
    deallog << "change of backend refused" << std::endl;
  }
  deallog << "multiprocessors >= 1: "
          << (GPU::Device::n_multiprocessors() >= 1 ? "yes" : "no")
          << std::endl;
  deallog.detach();
}
