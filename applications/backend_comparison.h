// What the applications share for "Backend = cpu|gpu|both": the parameters
// every application has, the result of one backend's solve, the copy of its
// solution into a deal.II vector, and the comparison of the two backends'
// solutions.
#ifndef dealii_gpu_applications_backend_comparison_h
#define dealii_gpu_applications_backend_comparison_h

#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/multigrid/multigrid_data.h>
#include <dealii-gpu/operators/matrix_free_backend.h>

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/exceptions.h>
#include <deal.II/base/index_set.h>
#include <deal.II/base/parameter_handler.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/lac/la_parallel_vector.h>

#include <string>
#include <type_traits>

namespace Applications
{
  using namespace dealii;

  /**
   * The entries of every application: "Backend" (cpu, gpu, both),
   * "Device" (where GPU::MatrixFree runs), "Print timings" and the
   * subsection "Multigrid". An application's Parameters derive from it.
   */
  struct CommonParameters
  {
    /** Where GPU::MatrixFree runs (auto, cuda, host): "Device". */
    std::string backend;
    /** cpu, gpu or both: "Backend". */
    std::string        run_on;
    bool               print_timings = true;
    GPU::MultigridData multigrid;

    static void declare_common(ParameterHandler  &prm,
                               const std::string &default_backend)
    {
      prm.declare_entry("Backend",
                        default_backend,
                        Patterns::Selection("cpu|gpu|both"),
                        "deal.II's CPU MatrixFree, GPU::MatrixFree, or both "
                        "(then the difference and the speedup)");
      prm.declare_entry("Device",
                        "auto",
                        Patterns::Selection("auto|cuda|host"),
                        "Where GPU::MatrixFree runs; --device=NAME on the "
                        "command line overrides it");
      prm.declare_entry("Print timings",
                        "true",
                        Patterns::Bool(),
                        "false: the table leaves out the times (for a "
                        "comparable output)");
      prm.enter_subsection("Multigrid");
      GPU::MultigridData::declare_parameters(prm);
      prm.leave_subsection();
    }

    void parse_common(ParameterHandler &prm)
    {
      run_on        = prm.get("Backend");
      backend       = prm.get("Device");
      print_timings = prm.get_bool("Print timings");
      prm.enter_subsection("Multigrid");
      multigrid.parse_parameters(prm);
      prm.leave_subsection();
    }
  };

  /** One backend's set-up and solve. */
  struct Result
  {
    std::string                                name;
    LinearAlgebra::distributed::Vector<double> u;
    double                                     setup      = 0;
    double                                     solve      = 0;
    unsigned int                               iterations = 0;
  };

  /** result = the owned entries of a backend's vector @p u, with the
   *  DoFHandler's ghost layout (ghosts updated). */
  template <int dim, typename VectorType>
  void copy_solution(const VectorType                           &u,
                     const DoFHandler<dim>                      &dof_handler,
                     const IndexSet                             &relevant,
                     LinearAlgebra::distributed::Vector<double> &result)
  {
    result.reinit(dof_handler.locally_owned_dofs(),
                  relevant,
                  dof_handler.get_communicator());
    if constexpr (std::is_same_v<VectorType,
                                 GPU::Vector<typename VectorType::value_type>>)
    {
      LinearAlgebra::distributed::Vector<typename VectorType::value_type> host(
          u.get_partitioner());
      u.copy_locally_owned_data_to(host);
      for (unsigned int i = 0; i < result.locally_owned_size(); ++i)
        result.local_element(i) = host.local_element(i);
    }
    else
      for (unsigned int i = 0; i < result.locally_owned_size(); ++i)
        result.local_element(i) = u.local_element(i);
    result.update_ghost_values();
  }

  /**
   * Both backends solved the same problem to the same tolerance: a relative
   * difference above @p bound means that they differ (an exception); else
   * prints the difference and the GPU's speedups.
   */
  inline void compare_backends(const Result       &cpu,
                               const Result       &gpu,
                               const double        bound,
                               ConditionalOStream &pcout)
  {
    LinearAlgebra::distributed::Vector<double> difference(gpu.u);
    difference -= cpu.u;
    const double relative = difference.l2_norm() / cpu.u.l2_norm();
    AssertThrow(relative <= bound,
                ExcMessage("the CPU and GPU solutions differ by " +
                           std::to_string(relative) + " (more than " +
                           std::to_string(bound) + ")"));
    pcout << "  both: |u_gpu - u_cpu| / |u_cpu| = " << relative
          << ", GPU speedup: solve " << cpu.solve / gpu.solve << "x, set-up "
          << cpu.setup / gpu.setup << "x" << std::endl;
  }
} // namespace Applications

#endif
