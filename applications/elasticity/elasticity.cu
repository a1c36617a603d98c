// Linear elasticity on a cantilever beam (step-8's equations, matrix-free):
// -div(2 mu eps(u) + lambda div(u) I) = rho g on (0, L) x (0, 1)^2,
// clamped (u = 0) at x = 0, free elsewhere, gravity along the last axis.
// The operator is GPU::MatrixFreeOperator with GPU::ElasticityOperation,
// one definition run on deal.II's CPU MatrixFree ("cpu"), on GPU::MatrixFree
// ("gpu", CUDA or the host backend), or on both ("both": the same problem
// twice, then the difference of the solutions and the speedup). CG with
// a geometric multigrid V-cycle (GPU::MatrixFreeMultigrid, the same
// operation on every level) or with Chebyshev-Jacobi; the tip deflection is
// printed next to Euler-Bernoulli beam theory, q L^4 / (8 E I).
//
//   elasticity [elasticity.prm] [--device=cuda|host]
//   mpirun -np N elasticity ...
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
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/affine_constraints.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/la_parallel_vector.h>
#include <deal.II/lac/precondition.h>
#include <deal.II/lac/solver_cg.h>
#include <deal.II/numerics/data_out.h>

#include "../application_main.h"
#include "../backend_comparison.h"
#include <iomanip>

using namespace dealii;

namespace Elasticity
{
  struct Parameters : Applications::CommonParameters
  {
    unsigned int              dim    = 3;
    unsigned int              degree = 2;
    std::vector<unsigned int> refinements;
    std::string               precision;
    double                    length         = 8;
    double                    youngs         = 1e3;
    double                    poisson_ratio  = 0.3;
    double                    load           = 1;
    double                    tolerance      = 1e-8;
    unsigned int              max_iterations = 100000;
    /** multigrid or chebyshev. */
    std::string  preconditioner;
    unsigned int chebyshev_degree = 4;
    double       smoothing_range  = 30;
    bool         write_vtu        = true;
    std::string  output_directory;

    void declare(ParameterHandler &prm)
    {
      prm.declare_entry(
          "Dimension", "3", Patterns::Integer(3, 3), "3 only: the beam is 3D");
      prm.declare_entry("Degree",
                        "2",
                        Patterns::Integer(1, 4),
                        "FE_Q degree of each displacement component (1 to 4)");
      prm.declare_entry("Refinements",
                        "1, 2, 3",
                        Patterns::List(Patterns::Integer(0, 10)),
                        "Global refinements of the beam's L x 1 (x 1) unit "
                        "cells, one solve each");
      prm.declare_entry("Precision",
                        "double",
                        Patterns::Selection("double|float"),
                        "Number type of the operator, vectors and solver");
      prm.declare_entry("Length", "8", Patterns::Double(1), "Beam length L");
      prm.declare_entry("Young's modulus", "1e3", Patterns::Double(0));
      prm.declare_entry("Poisson's ratio", "0.3", Patterns::Double(0, 0.499));
      prm.declare_entry("Load",
                        "1",
                        Patterns::Double(),
                        "rho g, a force per volume along -e_dim");
      prm.declare_entry("Solver tolerance",
                        "1e-8",
                        Patterns::Double(0),
                        "CG stops at this residual relative to the "
                        "right-hand side");
      prm.declare_entry("Max iterations", "100000", Patterns::Integer(1));
      prm.declare_entry("Preconditioner",
                        "multigrid",
                        Patterns::Selection("multigrid|chebyshev"),
                        "The geometric multigrid V-cycle (subsection "
                        "Multigrid) or Chebyshev-Jacobi (the Chebyshev "
                        "entries)");
      prm.declare_entry("Chebyshev degree", "4", Patterns::Integer(1));
      prm.declare_entry("Chebyshev smoothing range", "30", Patterns::Double(1));
      prm.declare_entry("Write VTU", "true", Patterns::Bool());
      prm.declare_entry("Output directory", ".", Patterns::DirectoryName());
      declare_common(prm, "gpu");
    }

    void parse(ParameterHandler &prm)
    {
      dim    = prm.get_integer("Dimension");
      degree = prm.get_integer("Degree");
      refinements.clear();
      for (const auto &s : Utilities::split_string_list(prm.get("Refinements")))
        refinements.push_back(Utilities::string_to_int(s));
      precision      = prm.get("Precision");
      length         = prm.get_double("Length");
      youngs         = prm.get_double("Young's modulus");
      poisson_ratio  = prm.get_double("Poisson's ratio");
      load           = prm.get_double("Load");
      tolerance      = prm.get_double("Solver tolerance");
      max_iterations = prm.get_integer("Max iterations");
      preconditioner = prm.get("Preconditioner");
      parse_common(prm);
      chebyshev_degree = prm.get_integer("Chebyshev degree");
      smoothing_range  = prm.get_double("Chebyshev smoothing range");
      write_vtu        = prm.get_bool("Write VTU");
      output_directory = prm.get("Output directory");
    }
  };

  using Applications::Result;

  // Solve on one backend: the operator, the load vector (the mass operator
  // without constraints applied to the interpolated gravity, which is exact
  // for a constant load), CG with the multigrid V-cycle or Chebyshev-Jacobi.
  template <int dim,
            int degree,
            typename Number,
            GPU::MatrixFreeBackend backend>
  Result solve(const Parameters                &param,
               const DoFHandler<dim>           &dof_handler,
               const AffineConstraints<double> &constraints,
               ConditionalOStream              &pcout)
  {
    using Operation =
        GPU::ElasticityOperation<GPU::Constant<Number>, GPU::Constant<Number>>;
    using Operator =
        GPU::MatrixFreeOperator<dim, degree, dim, Number, Operation, backend>;
    using Load =
        GPU::MatrixFreeOperator<dim,
                                degree,
                                dim,
                                Number,
                                GPU::MassOperation<GPU::Constant<Number>>,
                                backend>;
    using VectorType = typename Operator::VectorType;
    using HostVector = LinearAlgebra::distributed::Vector<Number>;
    const double E = param.youngs, nu = param.poisson_ratio;
    const double mu     = E / (2 * (1 + nu)),
                 lambda = E * nu / ((1 + nu) * (1 - 2 * nu));

    Result result;
    result.name = GPU::to_string(backend);
    Timer          timer;
    MappingQ1<dim> mapping;
    Operator       op;
    op.reinit(mapping,
              dof_handler,
              constraints,
              Operation{{Number(lambda)}, {Number(mu)}});
    pcout << "  " << GPU::to_string(backend) << ": operator set up"
          << std::endl;

    // b = M g with the unconstrained mass matrix, zero on the clamp.
    VectorType b, u;
    op.initialize_dof_vector(b);
    op.initialize_dof_vector(u);
    {
      AffineConstraints<double> none;
      none.close();
      Load load;
      load.reinit(mapping, dof_handler, none, {{Number(1)}});
      // FE_Q is nodal: a constant load interpolates to its value at the
      // DoFs of the last component.
      HostVector    gravity(op.get_matrix_free().get_vector_partitioner());
      ComponentMask last(dim, false);
      last.set(dim - 1, true);
      for (const auto i : DoFTools::extract_dofs(dof_handler, last))
        gravity(i) = Number(-param.load);
      VectorType g_backend;
      load.initialize_dof_vector(g_backend);
      g_backend.copy_locally_owned_data_from(gravity);
      VectorType full;
      load.initialize_dof_vector(full);
      load.vmult(full, g_backend);
      // The operator's vectors have its own ghost layout.
      HostVector host(op.get_matrix_free().get_vector_partitioner());
      if constexpr (backend == GPU::MatrixFreeBackend::gpu)
        full.copy_locally_owned_data_to(host);
      else
        host.copy_locally_owned_data_from(full);
      constraints.set_zero(host);
      b.copy_locally_owned_data_from(host);
    }

    using Chebyshev =
        PreconditionChebyshev<Operator, VectorType, DiagonalMatrix<VectorType>>;
    Chebyshev                                                      chebyshev;
    GPU::MatrixFreeMultigrid<dim, degree, dim, Operation, backend> multigrid;
    if (param.preconditioner == "multigrid")
      multigrid.initialize(
          op, mapping, dof_handler, {0}, op.get_operation(), param.multigrid);
    else
    {
      typename Chebyshev::AdditionalData data;
      data.preconditioner = std::make_shared<DiagonalMatrix<VectorType>>();
      op.compute_inverse_diagonal(data.preconditioner->get_vector());
      data.degree              = param.chebyshev_degree;
      data.smoothing_range     = param.smoothing_range;
      data.eig_cg_n_iterations = 20;
      chebyshev.initialize(op, data);
    }
    GPU::Device::synchronize();
    result.setup = Utilities::MPI::max(timer.wall_time(), MPI_COMM_WORLD);

    timer.restart();
    SolverControl control(param.max_iterations, param.tolerance * b.l2_norm());
    SolverCG<VectorType> cg(control);
    if (param.preconditioner == "multigrid")
      cg.solve(op, u, b, multigrid);
    else
      cg.solve(op, u, b, chebyshev);
    GPU::Device::synchronize();
    result.solve      = Utilities::MPI::max(timer.wall_time(), MPI_COMM_WORLD);
    result.iterations = control.last_step();
    pcout << "  " << GPU::to_string(backend) << ": " << result.iterations
          << " CG iterations, " << result.solve << " s";
    if (param.preconditioner == "multigrid")
      pcout << " (coarse "
            << GPU::to_string(multigrid.get_additional_data().coarse_solver)
            << ")";
    pcout << std::endl;

    IndexSet relevant;
    DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
    Applications::copy_solution(u, dof_handler, relevant, result.u);
    return result;
  }

  template <int dim, int degree, typename Number>
  void run(const Parameters &param)
  {
    const MPI_Comm     comm = MPI_COMM_WORLD;
    ConditionalOStream pcout(std::cout,
                             Utilities::MPI::this_mpi_process(comm) == 0);
    const double       E = param.youngs;
    // Euler-Bernoulli: q L^4 / (8 E I), q = load x area, unit cross-section.
    const double beam_theory =
        param.load * std::pow(param.length, 4) / (8 * E / 12.);
    pcout << "elasticity: cantilever " << param.length << " x 1"
          << (dim == 3 ? " x 1" : "") << ", " << dim << "D, Q" << degree << "^"
          << dim << ", " << param.precision << ", CG with "
          << (param.preconditioner == "multigrid"
                  ? "a multigrid V-cycle (" + param.multigrid.description() +
                        ")"
                  : std::string("Chebyshev-Jacobi"))
          << ", backend " << param.run_on << " (" << GPU::Device::description()
          << "), beam theory tip deflection " << beam_theory << std::endl;
    TableHandler table;
    for (const unsigned int refinements : param.refinements)
    {
      Timer                                     timer;
      parallel::distributed::Triangulation<dim> tria(
          comm,
          Triangulation<dim>::limit_level_difference_at_vertices,
          parallel::distributed::Triangulation<
              dim>::construct_multigrid_hierarchy);
      std::vector<unsigned int> repetitions(dim, 1);
      repetitions[0] = static_cast<unsigned int>(param.length);
      Point<dim> corner;
      corner[0] = param.length;
      for (unsigned int d = 1; d < dim; ++d)
        corner[d] = 1;
      GridGenerator::subdivided_hyper_rectangle(
          tria, repetitions, Point<dim>(), corner, true);
      tria.refine_global(refinements);
      DoFHandler<dim> dof_handler(tria);
      dof_handler.distribute_dofs(FESystem<dim>(FE_Q<dim>(degree), dim));
      if (param.preconditioner == "multigrid")
        dof_handler.distribute_mg_dofs();
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      AffineConstraints<double> constraints(relevant);
      // The clamp: the face x = 0 (boundary id 0 with colorize).
      DoFTools::make_zero_boundary_constraints(dof_handler, 0, constraints);
      constraints.close();
      const double setup_dealii = Utilities::MPI::max(timer.wall_time(), comm);
      pcout << "refinement " << refinements << ": "
            << tria.n_global_active_cells() << " cells, "
            << dof_handler.n_dofs() << " DoFs, deal.II set-up " << setup_dealii
            << " s" << std::endl;

      std::vector<Result> solutions;
      if (param.run_on != "gpu")
        solutions.push_back(
            solve<dim, degree, Number, GPU::MatrixFreeBackend::cpu>(
                param, dof_handler, constraints, pcout));
      if (param.run_on != "cpu")
        solutions.push_back(
            solve<dim, degree, Number, GPU::MatrixFreeBackend::gpu>(
                param, dof_handler, constraints, pcout));

      // Tip deflection: the largest displacement along e_dim.
      const Result &last = solutions.back();
      double        tip  = 0;
      for (unsigned int i = 0; i < last.u.locally_owned_size(); ++i)
        tip = std::max(tip, std::abs(last.u.local_element(i)));
      tip = Utilities::MPI::max(tip, comm);
      for (const Result &s : solutions)
      {
        table.add_value("refinement", refinements);
        table.add_value("cells", tria.n_global_active_cells());
        table.add_value("DoFs", dof_handler.n_dofs());
        table.add_value("backend", s.name);
        table.add_value("CG its", s.iterations);
        if (param.print_timings)
        {
          table.add_value("deal.II setup [s]", setup_dealii);
          table.add_value("setup [s]", s.setup);
          table.add_value("solve [s]", s.solve);
          table.add_value("DoFs*its/s",
                          dof_handler.n_dofs() * double(s.iterations) /
                              s.solve);
        }
        table.add_value("max|u|", tip);
      }
      // Both solves reach the same residual with the same operator: far
      // more than the solver tolerance apart means the backends differ.
      if (solutions.size() == 2)
        Applications::compare_backends(solutions[0],
                                       solutions[1],
                                       std::is_same_v<Number, double> ? 1e-6
                                                                      : 1e-3,
                                       pcout);
      pcout << "  max |u| " << tip << " (beam theory " << beam_theory << ")"
            << std::endl;
      if (param.write_vtu && refinements == param.refinements.back())
      {
        DataOut<dim> data_out;
        data_out.attach_dof_handler(dof_handler);
        const std::vector<
            DataComponentInterpretation::DataComponentInterpretation>
            interpretation(
                dim, DataComponentInterpretation::component_is_part_of_vector);
        data_out.add_data_vector(last.u,
                                 std::vector<std::string>(dim, "displacement"),
                                 DataOut<dim>::type_dof_data,
                                 interpretation);
        data_out.build_patches(degree);
        const std::string name = data_out.write_vtu_with_pvtu_record(
            param.output_directory + "/", "elasticity", refinements, comm);
        pcout << "  wrote " << name << std::endl;
      }
    }
    if (param.print_timings)
    {
      table.set_precision("deal.II setup [s]", 3);
      table.set_precision("setup [s]", 3);
      table.set_precision("solve [s]", 3);
      table.set_scientific("DoFs*its/s", true);
    }
    table.set_precision("max|u|", 5);
    pcout << std::endl;
    if (Utilities::MPI::this_mpi_process(comm) == 0)
      table.write_text(std::cout, TableHandler::org_mode_table);
  }
} // namespace Elasticity

int
main(int argc, char **argv)
{
  return Applications::main<Elasticity::Parameters>(
      argc,
      argv,
      "elasticity",
      [](const Elasticity::Parameters &param,
         auto                          dim_constant,
         auto                          degree_constant)
      {
        constexpr int dim    = decltype(dim_constant)::value;
        constexpr int degree = decltype(degree_constant)::value;
        // A 3D beam: 2D is not compiled (each instance costs minutes of
        // nvcc time).
        if constexpr (dim == 3)
        {
          if (param.precision == "float")
            Elasticity::run<dim, degree, float>(param);
          else
            Elasticity::run<dim, degree, double>(param);
        }
      });
}
