// The step-64 problem: -div(grad u) + a(x) u = 1 on (-1, 1)^dim with u = 0
// on the boundary and a(x) = 10 / (0.05 + 2 |x|^2), solved with deal.II's
// SolverCG preconditioned by a geometric multigrid V-cycle (the reaction
// term on every level) or, for comparison, by the inverse diagonal. The
// physics is one quadrature-point operation, GPU::HelmholtzOperation with
// a(x) evaluated at the points, run by GPU::MatrixFreeOperator and
// GPU::MatrixFreeMultigrid on deal.II's CPU MatrixFree ("cpu"), on
// GPU::MatrixFree ("gpu"), or on both ("both": the CPU up to a size limit,
// then the difference of the solutions and the speedup).
//
//   helmholtz [helmholtz.prm] [--device=cuda|host]
//   mpirun -np N helmholtz ...
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/multigrid/matrix_free_multigrid.h>
#include <dealii-gpu/operators/matrix_free_operator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/parameter_handler.h>
#include <deal.II/base/table_handler.h>
#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_handler.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/numerics/data_out.h>

#include "../application_main.h"
#include "../backend_comparison.h"
#include <iomanip>

using namespace dealii;

namespace Helmholtz
{
  struct Parameters : Applications::CommonParameters
  {
    unsigned int              dim    = 3;
    unsigned int              degree = 3;
    std::vector<unsigned int> refinements;
    std::string               preconditioner;
    double                    tolerance    = 1e-10;
    double                    cpu_max_dofs = 2e6;
    bool                      write_vtu    = true;
    double                    vtu_max_dofs = 3e6;
    std::string               output_directory;

    void declare(ParameterHandler &prm)
    {
      prm.declare_entry("Dimension", "3", Patterns::Integer(2, 3));
      prm.declare_entry(
          "Degree", "3", Patterns::Integer(1, 4), "FE_Q degree (1 to 4)");
      prm.declare_entry("Refinements",
                        "3, 4, 5",
                        Patterns::List(Patterns::Integer(0, 12)),
                        "Global refinements of the cube, one solve each");
      prm.declare_entry("Preconditioner",
                        "multigrid",
                        Patterns::Selection("multigrid|jacobi"),
                        "A V-cycle (subsection Multigrid), or the inverse "
                        "diagonal");
      prm.declare_entry(
          "Solver tolerance",
          "1e-10",
          Patterns::Double(0),
          "CG stops at this residual relative to the right-hand side");
      prm.declare_entry("CPU up to DoFs",
                        "2e6",
                        Patterns::Double(0),
                        "With Backend = both, solve on the CPU too up to "
                        "this size");
      prm.declare_entry("Write VTU", "true", Patterns::Bool());
      prm.declare_entry("VTU up to DoFs", "3e6", Patterns::Double(0));
      prm.declare_entry("Output directory", ".", Patterns::DirectoryName());
      declare_common(prm, "both");
    }

    void parse(ParameterHandler &prm)
    {
      dim    = prm.get_integer("Dimension");
      degree = prm.get_integer("Degree");
      refinements.clear();
      for (const auto &s : Utilities::split_string_list(prm.get("Refinements")))
        refinements.push_back(Utilities::string_to_int(s));
      preconditioner   = prm.get("Preconditioner");
      tolerance        = prm.get_double("Solver tolerance");
      cpu_max_dofs     = prm.get_double("CPU up to DoFs");
      write_vtu        = prm.get_bool("Write VTU");
      vtu_max_dofs     = prm.get_double("VTU up to DoFs");
      output_directory = prm.get("Output directory");
      parse_common(prm);
    }
  };

  // a(x) at a quadrature point of either backend, in its precision.
  struct Reaction
  {
    DEAL_II_GPU_PORTABLE_TEMPLATE
    template <typename Point>
    DEAL_II_GPU_HOST_DEVICE auto operator()(const Point &x) const
    {
      const auto r2 = GPU::squared_norm(x);
      using T       = std::decay_t<decltype(r2)>;
      return T(10.) / (T(0.05) + T(2.) * r2);
    }
  };

  using Operation = GPU::HelmholtzOperation<GPU::Constant<double>, Reaction>;
  using Applications::Result;

  // The operator, the preconditioner and CG on one backend.
  template <int dim, int degree, GPU::MatrixFreeBackend backend>
  Result solve(const Parameters                &param,
               const DoFHandler<dim>           &dof_handler,
               const AffineConstraints<double> &constraints,
               const IndexSet                  &relevant,
               ConditionalOStream              &pcout)
  {
    const MPI_Comm       comm             = dof_handler.get_communicator();
    const bool           multigrid_wanted = param.preconditioner == "multigrid";
    const MappingQ1<dim> mapping;
    const Operation      operation{{1.}, {}};
    Result               result;
    result.name = GPU::to_string(backend);
    Timer                                                               timer;
    GPU::MatrixFreeOperator<dim, degree, 1, double, Operation, backend> op;
    op.reinit(mapping, dof_handler, constraints, operation);
    using VectorType = typename decltype(op)::VectorType;
    VectorType u, rhs;
    op.initialize_dof_vector(u);
    op.initialize_dof_vector(rhs);
    op.apply_operation(GPU::SourceOperation<>{{1.}}, rhs, u);
    DiagonalMatrix<VectorType>                                   jacobi;
    GPU::MatrixFreeMultigrid<dim, degree, 1, Operation, backend> multigrid;
    if (multigrid_wanted)
      multigrid.initialize(
          op, mapping, dof_handler, {0}, operation, param.multigrid);
    else
      op.compute_inverse_diagonal(jacobi.get_vector());
    GPU::Device::synchronize();
    result.setup = Utilities::MPI::max(timer.wall_time(), comm);
    pcout << "  " << result.name << " setup " << result.setup
          << " s: operator (";
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      op.get_setup_timer().print(std::cout);
    if (multigrid_wanted)
    {
      pcout << "), multigrid (coarse "
            << GPU::to_string(multigrid.get_additional_data().coarse_solver)
            << "; ";
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        multigrid.get_setup_timer().print(std::cout);
    }
    pcout << ")" << std::endl;

    timer.restart();
    SolverControl control(10000, param.tolerance * rhs.l2_norm());
    control.log_result(false);
    SolverCG<VectorType> cg(control);
    if (multigrid_wanted)
      cg.solve(op, u, rhs, multigrid);
    else
      cg.solve(op, u, rhs, jacobi);
    GPU::Device::synchronize();
    result.solve      = Utilities::MPI::max(timer.wall_time(), comm);
    result.iterations = control.last_step();
    pcout << "  " << result.name << ": " << result.iterations
          << " CG iterations, " << result.solve << " s" << std::endl;
    Applications::copy_solution(u, dof_handler, relevant, result.u);
    return result;
  }

  template <int dim, int degree>
  void run(const Parameters &param)
  {
    const MPI_Comm     comm = MPI_COMM_WORLD;
    ConditionalOStream pcout(std::cout,
                             Utilities::MPI::this_mpi_process(comm) == 0);
    const bool         multigrid = param.preconditioner == "multigrid";
    pcout << "helmholtz: -div(grad u) + a(x) u = 1, " << dim << "D, Q" << degree
          << ", CG with "
          << (multigrid ? "a multigrid V-cycle (" +
                              param.multigrid.description() + ")"
                        : std::string("the inverse diagonal"))
          << ", backend " << param.run_on << " (" << GPU::Device::description()
          << "), " << Utilities::MPI::n_mpi_processes(comm) << " MPI rank(s)"
          << std::endl;
    TableHandler table;
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      GPU::set_setup_progress(&std::cout);
    for (const unsigned int refinements : param.refinements)
    {
      Timer                                     timer;
      parallel::distributed::Triangulation<dim> tria(
          comm,
          Triangulation<dim>::limit_level_difference_at_vertices,
          multigrid
              ? parallel::distributed::Triangulation<
                    dim>::construct_multigrid_hierarchy
              : parallel::distributed::Triangulation<dim>::default_setting);
      GridGenerator::hyper_cube(tria, -1., 1.);
      tria.refine_global(refinements);
      FE_Q<dim>       fe(degree);
      DoFHandler<dim> dof_handler(tria);
      dof_handler.distribute_dofs(fe);
      if (multigrid)
        dof_handler.distribute_mg_dofs();
      pcout << "refinement " << refinements << ": "
            << tria.n_global_active_cells() << " cells, "
            << dof_handler.n_dofs() << " DoFs" << std::endl;
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      AffineConstraints<double> constraints(relevant);
      DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
      constraints.close();
      const double setup_dealii = Utilities::MPI::max(timer.wall_time(), comm);

      std::vector<Result> results;
      if (param.run_on == "cpu" || (param.run_on == "both" &&
                                    dof_handler.n_dofs() <= param.cpu_max_dofs))
        results.push_back(solve<dim, degree, GPU::MatrixFreeBackend::cpu>(
            param, dof_handler, constraints, relevant, pcout));
      if (param.run_on != "cpu")
        results.push_back(solve<dim, degree, GPU::MatrixFreeBackend::gpu>(
            param, dof_handler, constraints, relevant, pcout));
      if (results.size() == 2)
        Applications::compare_backends(results[0], results[1], 1e-6, pcout);
      const double max_u = results.back().u.linfty_norm();
      for (const Result &result : results)
      {
        table.add_value("refinement", refinements);
        table.add_value("cells", tria.n_global_active_cells());
        table.add_value("DoFs", dof_handler.n_dofs());
        table.add_value("backend", result.name);
        table.add_value("CG iterations", result.iterations);
        if (param.print_timings)
        {
          table.add_value("deal.II setup [s]", setup_dealii);
          table.add_value("setup [s]", result.setup);
          table.add_value("solve [s]", result.solve);
          table.add_value("solve DoFs/s", dof_handler.n_dofs() / result.solve);
        }
        table.add_value("max|u|", max_u);
      }

      if (param.write_vtu && refinements == param.refinements.back() &&
          dof_handler.n_dofs() <= param.vtu_max_dofs)
      {
        DataOut<dim> data_out;
        data_out.attach_dof_handler(dof_handler);
        data_out.add_data_vector(results.back().u, "u");
        data_out.build_patches(degree);
        const std::string name =
            data_out.write_vtu_with_pvtu_record(param.output_directory + "/",
                                                "helmholtz_solution",
                                                refinements,
                                                comm,
                                                3);
        pcout << "wrote " << name << std::endl;
      }
    }
    if (param.print_timings)
    {
      table.set_scientific("solve DoFs/s", true);
      table.set_precision("setup [s]", 2);
      table.set_precision("deal.II setup [s]", 2);
      table.set_precision("solve [s]", 3);
    }
    table.set_scientific("max|u|", true);
    table.set_precision("max|u|", 6);
    pcout << std::endl;
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      table.write_text(std::cout, TableHandler::org_mode_table);
  }
} // namespace Helmholtz

int
main(int argc, char **argv)
{
  return Applications::main<Helmholtz::Parameters>(
      argc,
      argv,
      "helmholtz",
      [](const Helmholtz::Parameters &param,
         auto                         dim_constant,
         auto                         degree_constant)
      {
        constexpr int dim    = decltype(dim_constant)::value;
        constexpr int degree = decltype(degree_constant)::value;
        Helmholtz::run<dim, degree>(param);
      });
}
