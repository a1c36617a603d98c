// The main() the applications share: MPI, the parameter file (the first
// argument that is not an option), the backend (--device=NAME or
// DEALII_GPU_DEVICE override the file's "Backend"), the run for the
// dimension and degree the file names, and errors as a message and exit
// code 1.
#ifndef dealii_gpu_applications_application_main_h
#define dealii_gpu_applications_application_main_h

#include <dealii-gpu/base/device.h>

#include <deal.II/base/mpi.h>
#include <deal.II/base/parameter_handler.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <type_traits>

namespace Applications
{
  using namespace dealii;

  /**
   * Call run(std::integral_constant<int, dim>, std::integral_constant<int,
   * degree>) for dim in {2, 3} and degree in 1..4 as @p param says
   * (members dim, degree), where the build compiles that pair (CMake's
   * DEAL_II_GPU_APPLICATION_CASES, a bit mask here: bit 4 (dim - 2) +
   * degree - 1).
   */
  template <typename Parameters, typename Run>
  void dispatch(const Parameters &param, const Run &run)
  {
#ifndef DEAL_II_GPU_APPLICATION_CASES
#  define DEAL_II_GPU_APPLICATION_CASES 0xff
#endif
    bool ran   = false;
    auto case_ = [&](auto dim, auto degree)
    {
      constexpr unsigned int bit = 4 * (dim() - 2) + degree() - 1;
      if constexpr (((DEAL_II_GPU_APPLICATION_CASES >> bit) & 1) != 0)
        if (param.dim == dim() && param.degree == degree())
        {
          run(dim, degree);
          ran = true;
        }
    };
    auto with_dim = [&](auto dim)
    {
      case_(dim, std::integral_constant<int, 1>());
      case_(dim, std::integral_constant<int, 2>());
      case_(dim, std::integral_constant<int, 3>());
      case_(dim, std::integral_constant<int, 4>());
    };
    with_dim(std::integral_constant<int, 2>());
    with_dim(std::integral_constant<int, 3>());
    AssertThrow(ran,
                ExcMessage("Dimension " + std::to_string(param.dim) +
                           " and degree " + std::to_string(param.degree) +
                           " are not compiled in this build: the degree must "
                           "be 1 to 4, and CMake's "
                           "DEAL_II_GPU_APPLICATION_CASES must list " +
                           std::to_string(param.dim) + ":" +
                           std::to_string(param.degree) + "."));
  }

  /**
   * The whole main(): @p Parameters has declare(ParameterHandler &),
   * parse(ParameterHandler &) and the members dim, degree, backend; @p run
   * is called as in dispatch().
   */
  template <typename Parameters, typename Run>
  int main(int argc, char **argv, const std::string &name, const Run &run)
  {
    try
    {
      Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
      ParameterHandler                 prm;
      Parameters                       param;
      param.declare(prm);
      std::string file;
      bool        device_on_command_line = false;
      for (int i = 1; i < argc; ++i)
      {
        const std::string arg = argv[i];
        if (arg.rfind("--device", 0) == 0)
          device_on_command_line = true;
        else if (arg.rfind("--", 0) != 0)
          file = arg;
      }
      if (!file.empty())
        prm.parse_input(file);
      param.parse(prm);
      if (device_on_command_line || std::getenv("DEALII_GPU_DEVICE") != nullptr)
        GPU::Device::initialize(argc, argv);
      else
        GPU::Device::initialize(param.backend);
      dispatch(param, [&](auto dim, auto degree) { run(param, dim, degree); });
    }
    catch (const std::exception &e)
    {
      std::cerr << name << " failed:\n" << e.what() << std::endl;
      return 1;
    }
    return 0;
  }
} // namespace Applications

#endif
