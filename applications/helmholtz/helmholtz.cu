// The step-64 problem on GPU::MatrixFree: -div(grad u) + a(x) u = 1 on
// (-1, 1)^dim with u = 0 on the boundary and a(x) = 10 / (0.05 + 2 |x|^2),
// solved with deal.II's SolverCG preconditioned by GPU::MultigridPreconditioner
// (the reaction term on every level) or, for comparison, by the inverse
// diagonal computed on the device. Each refinement is also solved with
// deal.II's CPU MatrixFree (up to a size limit) and the two solutions are
// compared.
//
//   helmholtz [helmholtz.prm] [--device=cuda|host]
//   mpirun -np N helmholtz ...
#include <dealii-gpu/base/device.h>
#include <dealii-gpu/lac/vector.h>
#include <dealii-gpu/multigrid/multigrid_preconditioner.h>
#include <dealii-gpu/operators/laplace_operator.h>
#include <dealii-gpu/operators/source_cell.h>

#include <deal.II/base/conditional_ostream.h>
#include <deal.II/base/parameter_handler.h>
#include <deal.II/base/quadrature_lib.h>
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
#include <deal.II/matrix_free/fe_evaluation.h>
#include <deal.II/matrix_free/matrix_free.h>
#include <deal.II/matrix_free/tools.h>
#include <deal.II/numerics/data_out.h>

#include "../application_main.h"
#include <iomanip>

using namespace dealii;

namespace Helmholtz
{
  struct Parameters
  {
    unsigned int              dim    = 3;
    unsigned int              degree = 3;
    std::vector<unsigned int> refinements;
    std::string               backend;
    std::string               preconditioner;
    GPU::MultigridData        multigrid;
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
      prm.declare_entry("Backend",
                        "auto",
                        Patterns::Selection("auto|cuda|host"),
                        "--device=NAME on the command line overrides it");
      prm.declare_entry("Preconditioner",
                        "multigrid",
                        Patterns::Selection("multigrid|jacobi"),
                        "Of the GPU solve: a V-cycle, or the inverse diagonal");
      prm.declare_entry(
          "Solver tolerance",
          "1e-10",
          Patterns::Double(0),
          "CG stops at this residual relative to the right-hand side");
      prm.declare_entry(
          "CPU reference up to DoFs",
          "2e6",
          Patterns::Double(0),
          "Solve with deal.II's CPU MatrixFree too, up to this size");
      prm.declare_entry("Write VTU", "true", Patterns::Bool());
      prm.declare_entry("VTU up to DoFs", "3e6", Patterns::Double(0));
      prm.declare_entry("Output directory", ".", Patterns::DirectoryName());
      prm.enter_subsection("Multigrid");
      GPU::MultigridData::declare_parameters(prm);
      prm.leave_subsection();
    }

    void parse(ParameterHandler &prm)
    {
      dim    = prm.get_integer("Dimension");
      degree = prm.get_integer("Degree");
      refinements.clear();
      for (const auto &s : Utilities::split_string_list(prm.get("Refinements")))
        refinements.push_back(Utilities::string_to_int(s));
      backend          = prm.get("Backend");
      preconditioner   = prm.get("Preconditioner");
      tolerance        = prm.get_double("Solver tolerance");
      cpu_max_dofs     = prm.get_double("CPU reference up to DoFs");
      write_vtu        = prm.get_bool("Write VTU");
      vtu_max_dofs     = prm.get_double("VTU up to DoFs");
      output_directory = prm.get("Output directory");
      prm.enter_subsection("Multigrid");
      multigrid.parse_parameters(prm);
      prm.leave_subsection();
    }
  };

  template <int dim>
  double reaction(const Point<dim> &p)
  {
    return 10. / (0.05 + 2. * p.norm_square());
  }

  // The same operator on deal.II's CPU MatrixFree, for the reference solve.
  template <int dim, int degree>
  class CPUOperator : public Subscriptor
  {
  public:
    using VectorType = LinearAlgebra::distributed::Vector<double>;
    using FEEval     = FEEvaluation<dim, degree, degree + 1, 1, double>;

    void reinit(const Mapping<dim>              &mapping,
                const DoFHandler<dim>           &dof_handler,
                const AffineConstraints<double> &constraints)
    {
      typename dealii::MatrixFree<dim, double>::AdditionalData data;
      data.mapping_update_flags = update_values | update_gradients |
                                  update_JxW_values | update_quadrature_points;
      matrix_free.reinit(
          mapping, dof_handler, constraints, QGauss<1>(degree + 1), data);
    }

    void local_apply(FEEval &phi) const
    {
      phi.evaluate(EvaluationFlags::values | EvaluationFlags::gradients);
      for (unsigned int q = 0; q < phi.n_q_points; ++q)
      {
        const auto p = phi.quadrature_point(q);
        Point<dim> x;
        for (unsigned int d = 0; d < dim; ++d)
          x[d] = p[d][0];
        phi.submit_gradient(phi.get_gradient(q), q);
        phi.submit_value(reaction(x) * phi.get_value(q), q);
      }
      phi.integrate(EvaluationFlags::values | EvaluationFlags::gradients);
    }

    void vmult(VectorType &dst, const VectorType &src) const
    {
      const std::function<void(const dealii::MatrixFree<dim, double> &,
                               VectorType &,
                               const VectorType &,
                               const std::pair<unsigned int, unsigned int> &)>
          cell_operation =
              [this](const dealii::MatrixFree<dim, double>       &data,
                     VectorType                                  &dst,
                     const VectorType                            &src,
                     const std::pair<unsigned int, unsigned int> &range)
      {
        FEEval phi(data);
        for (unsigned int cell = range.first; cell < range.second; ++cell)
        {
          phi.reinit(cell);
          phi.read_dof_values(src);
          local_apply(phi);
          phi.distribute_local_to_global(dst);
        }
      };
      matrix_free.cell_loop(cell_operation, dst, src, true);
      for (const unsigned int i : matrix_free.get_constrained_dofs())
        dst.local_element(i) = src.local_element(i);
    }

    void compute_inverse_diagonal(VectorType &inverse) const
    {
      matrix_free.initialize_dof_vector(inverse);
      MatrixFreeTools::compute_diagonal(
          matrix_free, inverse, &CPUOperator::local_apply, this);
      for (const unsigned int i : matrix_free.get_constrained_dofs())
        inverse.local_element(i) = 1.;
      for (unsigned int i = 0; i < inverse.locally_owned_size(); ++i)
        inverse.local_element(i) = 1. / inverse.local_element(i);
    }

    void right_hand_side(VectorType &rhs) const
    {
      matrix_free.initialize_dof_vector(rhs);
      FEEval phi(matrix_free);
      for (unsigned int cell = 0; cell < matrix_free.n_cell_batches(); ++cell)
      {
        phi.reinit(cell);
        for (unsigned int q = 0; q < phi.n_q_points; ++q)
          phi.submit_value(make_vectorized_array(1.), q);
        phi.integrate(EvaluationFlags::values);
        phi.distribute_local_to_global(rhs);
      }
      rhs.compress(VectorOperation::add);
      for (const unsigned int i : matrix_free.get_constrained_dofs())
        rhs.local_element(i) = 0.;
    }

    dealii::MatrixFree<dim, double> matrix_free;
  };

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
          << ", on " << GPU::Device::description() << ", "
          << Utilities::MPI::n_mpi_processes(comm) << " MPI rank(s)"
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
      // p-coarsening builds its own FE_Q(1) level DoFs.
      if (multigrid && !param.multigrid.p_coarsening)
        dof_handler.distribute_mg_dofs();
      MappingQ1<dim> mapping;
      pcout << "refinement " << refinements << ": "
            << tria.n_global_active_cells() << " cells, "
            << dof_handler.n_dofs() << " DoFs ..." << std::endl;
      IndexSet relevant;
      DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
      AffineConstraints<double> constraints(relevant);
      DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
      constraints.close();
      const double setup_dealii = timer.wall_time();

      GPU::LaplaceOperator<dim, degree, double> op;
      op.reinit(
          mapping,
          dof_handler,
          constraints,
          [](const Point<dim> &) { return 1.; },
          &reaction<dim>);
      GPU::Vector<double> u, rhs;
      op.initialize_dof_vector(u);
      op.initialize_dof_vector(rhs);
      op.get_matrix_free().cell_loop(GPU::SourceCell<dim, degree>(), rhs, rhs);
      op.get_matrix_free().set_constrained_values(0., rhs);
      DiagonalMatrix<GPU::Vector<double>>       jacobi;
      GPU::MultigridPreconditioner<dim, degree> mg;
      if (multigrid)
        mg.initialize(
            mapping,
            dof_handler,
            {0},
            [](const Point<dim> &) { return 1.; },
            &reaction<dim>,
            param.multigrid);
      else
        op.compute_inverse_diagonal(jacobi.get_vector());
      GPU::Device::synchronize();
      const double setup = timer.wall_time();
      pcout << "  setup " << setup << " s: deal.II (mesh, DoFs, constraints) "
            << setup_dealii << " s, GPU operator (";
      if (Utilities::MPI::this_mpi_process(comm) == 0)
        op.get_setup_timer().print(std::cout);
      if (multigrid)
      {
        pcout << "), multigrid (";
        if (Utilities::MPI::this_mpi_process(comm) == 0)
          mg.get_setup_timer().print(std::cout);
      }
      pcout << "), right-hand side" << (multigrid ? " " : " and diagonal ")
            << setup - setup_dealii - op.get_setup_timer().total() -
                   mg.get_setup_timer().total()
            << " s" << std::endl;

      timer.restart();
      SolverControl control(10000, param.tolerance * rhs.l2_norm());
      control.log_result(false);
      SolverCG<GPU::Vector<double>> cg(control);
      if (multigrid)
        cg.solve(op, u, rhs, mg);
      else
        cg.solve(op, u, rhs, jacobi);
      GPU::Device::synchronize();
      const double solve = timer.wall_time();

      table.add_value("refinement", refinements);
      table.add_value("cells", tria.n_global_active_cells());
      table.add_value("DoFs", dof_handler.n_dofs());
      table.add_value("CG iterations", control.last_step());
      table.add_value("setup [s]", setup);
      table.add_value("deal.II setup [s]", setup_dealii);
      table.add_value("solve [s]", solve);
      table.add_value("solve DoFs/s",
                      dof_handler.n_dofs() * double(control.last_step()) /
                          solve);
      table.add_value("max|u|", u.linfty_norm());

      // Reference: the same problem with deal.II's CPU MatrixFree.
      if (dof_handler.n_dofs() <= param.cpu_max_dofs)
      {
        timer.restart();
        CPUOperator<dim, degree> cpu;
        cpu.reinit(mapping, dof_handler, constraints);
        LinearAlgebra::distributed::Vector<double> u_cpu, rhs_cpu;
        cpu.matrix_free.initialize_dof_vector(u_cpu);
        cpu.right_hand_side(rhs_cpu);
        DiagonalMatrix<LinearAlgebra::distributed::Vector<double>> cpu_jacobi;
        cpu.compute_inverse_diagonal(cpu_jacobi.get_vector());
        SolverControl cpu_control(10000, param.tolerance * rhs_cpu.l2_norm());
        cpu_control.log_result(false);
        SolverCG<LinearAlgebra::distributed::Vector<double>> cpu_cg(
            cpu_control);
        cpu_cg.solve(cpu, u_cpu, rhs_cpu, cpu_jacobi);
        LinearAlgebra::distributed::Vector<double> u_host(
            u_cpu.get_partitioner());
        u.copy_locally_owned_data_to(u_host);
        u_host -= u_cpu;
        table.add_value("CPU iterations", cpu_control.last_step());
        table.add_value("CPU solve [s]", timer.wall_time());
        table.add_value("rel. difference to CPU",
                        u_host.linfty_norm() / u_cpu.linfty_norm());
      }
      else
      {
        table.add_value("CPU iterations", std::string("-"));
        table.add_value("CPU solve [s]", std::string("-"));
        table.add_value("rel. difference to CPU", std::string("-"));
      }

      if (param.write_vtu && refinements == param.refinements.back() &&
          dof_handler.n_dofs() <= param.vtu_max_dofs)
      {
        LinearAlgebra::distributed::Vector<double> solution(
            dof_handler.locally_owned_dofs(), relevant, comm);
        u.copy_locally_owned_data_to(solution);
        solution.update_ghost_values();
        DataOut<dim> data_out;
        data_out.attach_dof_handler(dof_handler);
        data_out.add_data_vector(solution, "u");
        data_out.build_patches(mapping, degree);
        const std::string name =
            data_out.write_vtu_with_pvtu_record(param.output_directory + "/",
                                                "helmholtz_solution",
                                                refinements,
                                                comm,
                                                3);
        pcout << "wrote " << name << std::endl;
      }
    }
    table.set_scientific("solve DoFs/s", true);
    table.set_scientific("max|u|", true);
    table.set_precision("max|u|", 6);
    table.set_scientific("rel. difference to CPU", true);
    table.set_precision("setup [s]", 2);
    table.set_precision("deal.II setup [s]", 2);
    table.set_precision("solve [s]", 3);
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
