// One benchmark problem (a CEED BP, or an operation of cpu_vs_gpu) at one
// degree on one backend: the mesh sizes from Settings::min_dofs to
// max_dofs, then CG with the inverse diagonal for a fixed number of
// iterations (rate DoFs x iterations / s) or operator applications only
// (Settings::vmult_only: rate DoFs / s), a table line and a CSV row per
// size. Included by the ceed_bps_<n>.cu and cpu_vs_gpu_<n>.cu files only.
#ifndef dealii_gpu_benchmarks_ceed_bps_problem_h
#define dealii_gpu_benchmarks_ceed_bps_problem_h

#include <dealii-gpu/operators/matrix_free_operator.h>
#include <dealii-gpu/operators/operations.h>

#include <deal.II/base/timer.h>
#include <deal.II/distributed/tria.h>
#include <deal.II/dofs/dof_tools.h>
#include <deal.II/fe/fe_q.h>
#include <deal.II/fe/fe_system.h>
#include <deal.II/fe/mapping_q1.h>
#include <deal.II/grid/grid_generator.h>
#include <deal.II/lac/diagonal_matrix.h>
#include <deal.II/lac/solver_cg.h>

#include "benchmark_timing.h"
#include "ceed_bps.h"
#include <cmath>
#include <iomanip>
#include <iostream>
#include <string>
#include <type_traits>

namespace CEED
{
  // Elements per direction of the meshes: 2^r and 3 2^r.
  inline std::vector<unsigned int> elements_per_direction()
  {
    std::vector<unsigned int> n;
    for (unsigned int p = 1; p <= 2048; p *= 2)
    {
      n.push_back(2 * p);
      n.push_back(3 * p);
    }
    return n;
  }

  // The DiagonalMatrix under another type, for which deal.II's SolverCG
  // runs its generic iteration (--generic-cg).
  template <typename VectorType>
  struct GenericJacobi
  {
    const DiagonalMatrix<VectorType> &diagonal;
    void vmult(VectorType &dst, const VectorType &src) const
    {
      diagonal.vmult(dst, src);
    }
  };

  // The operation, components and quadrature of BP1-BP6. A problem P has
  // name(), Operation, operation(), n_components, n_q_points_1d<k>,
  // lobatto and dirichlet (zero boundary values, else none).
  template <unsigned int bp>
  struct Problem
  {
    static_assert(bp >= 1 && bp <= 6, "BP1-BP6");
    static constexpr bool         mass         = bp <= 2;
    static constexpr bool         dirichlet    = !mass;
    static constexpr unsigned int n_components = bp % 2 == 1 ? 1 : 3;
    static constexpr bool         lobatto      = bp >= 5;
    using Operation =
        std::conditional_t<mass, GPU::MassOperation<>, GPU::LaplaceOperation<>>;
    template <int degree>
    static constexpr int n_q_points_1d = lobatto ? degree + 1 : degree + 2;
    static std::string   name() { return "BP" + std::to_string(bp); }
    static Operation     operation() { return {{1.}}; }
  };

  template <typename P, int degree, GPU::MatrixFreeBackend backend>
  void run(const Settings &settings, std::ostream &csv)
  {
    constexpr int dim   = 3;
    constexpr int n_q   = P::template n_q_points_1d<degree>;
    using Operator      = GPU::MatrixFreeOperator<dim,
                                             degree,
                                             P::n_components,
                                             double,
                                             typename P::Operation,
                                             backend,
                                             n_q>;
    using VectorType    = typename Operator::VectorType;
    const MPI_Comm comm = MPI_COMM_WORLD;
    const bool     root = Utilities::MPI::this_mpi_process(comm) == 0;
    for (const unsigned int n : elements_per_direction())
    {
      const double dofs =
          std::pow(double(degree) * n + 1, dim) * P::n_components;
      if (dofs < settings.min_dofs)
        continue;
      if (dofs > settings.max_dofs)
        break;
      try
      {
        // A coarse mesh of at most 3^3 cells refined globally: p4est's trees
        // stay few. Its time (deal.II's mesh, DoFs and constraints) is
        // printed apart: at 1e7 DoFs and more it is most of a row's.
        Timer                                     mesh_timer;
        parallel::distributed::Triangulation<dim> tria(comm);
        unsigned int                              coarse = n, refinements = 0;
        while (coarse > 3)
        {
          coarse /= 2;
          ++refinements;
        }
        GridGenerator::subdivided_hyper_cube(tria, coarse, 0., 1.);
        tria.refine_global(refinements);
        DoFHandler<dim> dof_handler(tria);
        if (P::n_components == 1)
          dof_handler.distribute_dofs(FE_Q<dim>(degree));
        else
          dof_handler.distribute_dofs(
              FESystem<dim>(FE_Q<dim>(degree), P::n_components));
        IndexSet relevant;
        DoFTools::extract_locally_relevant_dofs(dof_handler, relevant);
        AffineConstraints<double> constraints(relevant);
        if (P::dirichlet)
          DoFTools::make_zero_boundary_constraints(dof_handler, constraints);
        constraints.close();
        const double mesh = Utilities::MPI::max(mesh_timer.wall_time(), comm);

        Timer                             timer;
        Operator                          op;
        typename Operator::AdditionalData data;
        data.quadrature = P::lobatto ? GPU::QuadratureRule::gauss_lobatto
                                     : GPU::QuadratureRule::gauss;
        op.reinit(
            MappingQ1<dim>(), dof_handler, constraints, P::operation(), data);
        DiagonalMatrix<VectorType> jacobi;
        if (!settings.vmult_only)
          op.compute_inverse_diagonal(jacobi.get_vector());
        GPU::Device::synchronize();
        const double setup = Utilities::MPI::max(timer.wall_time(), comm);

        VectorType x, b;
        op.initialize_dof_vector(x);
        op.initialize_dof_vector(b);
        // b = A u with u = 1 would be solved in one CG step on the mass
        // problems (D^-1 M 1 is constant on the uniform box): |r| then
        // comes out as 0 and the solve stops after one iteration. The
        // inverse diagonal varies between node types.
        VectorType reference(b);
        reference = 1.;
        if (!settings.vmult_only)
          reference = jacobi.get_vector();
        op.vmult(b, reference);
        unsigned int iterations = 1;
        double       solve      = 0;
        if (settings.vmult_only)
          solve = median_seconds(
              settings.repetitions, [&]() { op.vmult(x, b); }, 10);
        else
          solve = median_seconds(
              settings.repetitions,
              [&]()
              {
                x = 0.;
                IterationNumberControl control(settings.iterations, 1e-300);
                SolverCG<VectorType>   cg(control);
                if (settings.generic_cg)
                  cg.solve(op, x, b, GenericJacobi<VectorType>{jacobi});
                else
                  cg.solve(op, x, b, jacobi);
                iterations = control.last_step();
              });
        if (!settings.vmult_only && iterations != settings.iterations &&
            Utilities::MPI::this_mpi_process(comm) == 0)
          std::cerr << "warning: CG stopped after " << iterations << " of "
                    << settings.iterations << " iterations\n";
        const double rate = dofs * iterations / solve;
        // Ceiling: the least bytes one CG iteration moves per DoF over the
        // copy bandwidth: the operator's src and dst (16) and the vector
        // work, 136 in deal.II's generic CG (preconditioner 24, r.z 16, p
        // update 24, p.Ap 16, x update 24, r update with its norm 32), 88
        // in the fused one on GPU::Vector (x, r and p updates 56 on
        // average, seven sums 32). The operator's own data (indices,
        // geometry) is printed beside it: how much of it a kernel reads
        // depends on the operation (mass reads JxW, not the inverse
        // Jacobians).
        const bool fused = std::is_same_v<VectorType, GPU::Vector<double>> &&
                           !settings.generic_cg;
        const double operator_bytes =
            double(Utilities::MPI::sum(op.memory_consumption(), comm)) / dofs;
        const double least_bytes =
            settings.vmult_only ? 16. : (fused ? 88. : 136.) + 16.;
        const double       ceiling = settings.bandwidth / least_bytes;
        const unsigned int ranks   = Utilities::MPI::n_mpi_processes(comm);
        if (root)
        {
          std::cout << std::setw(8) << std::left << P::name() << std::right
                    << std::setw(3) << degree << std::setw(5)
                    << GPU::to_string(backend) << std::setw(4) << ranks
                    << std::setw(11) << tria.n_global_active_cells()
                    << std::setw(12) << dof_handler.n_dofs() << std::setw(5)
                    << iterations << std::setw(9) << std::setprecision(3)
                    << mesh << std::setw(9) << setup << std::setw(10) << solve
                    << std::setw(11) << rate << std::setw(11) << ceiling
                    << std::setw(6) << std::setprecision(2)
                    << 100. * rate / ceiling << " %" << std::setw(9)
                    << std::setprecision(3) << operator_bytes << std::endl;
          csv << P::name() << ',' << degree << ',' << GPU::to_string(backend)
              << ',' << ranks << ',' << tria.n_global_active_cells() << ','
              << dof_handler.n_dofs() << ',' << iterations << ',' << mesh << ','
              << setup << ',' << solve << ',' << rate << ',' << least_bytes
              << ',' << operator_bytes << ',' << settings.bandwidth << ','
              << ceiling << std::endl;
        }
      }
      catch (const std::exception &e)
      {
        // Out of device memory, typically: the next degree may fit.
        if (root)
          std::cout << P::name() << " k=" << degree << ": stopped at " << dofs
                    << " DoFs: " << e.what() << std::endl;
        break;
      }
    }
  }

  // run<bp, degree, backend> for the degrees of the settings, 1..8 as
  // far as compiled.
  template <typename P, GPU::MatrixFreeBackend backend, int... k>
  void run_degrees(const Settings &settings,
                   std::ostream   &csv,
                   std::integer_sequence<int, k...>)
  {
    for (const unsigned int degree : settings.degrees)
      (
          [&]()
          {
            if constexpr (is_compiled(k + 1))
              if (degree == k + 1)
                run<P, k + 1, backend>(settings, csv);
          }(),
          ...);
  }

  template <typename P>
  void run_problem(const Settings &settings, std::ostream &csv)
  {
    if (settings.backend == GPU::MatrixFreeBackend::gpu)
      run_degrees<P, GPU::MatrixFreeBackend::gpu>(
          settings, csv, std::make_integer_sequence<int, 8>());
    else
      run_degrees<P, GPU::MatrixFreeBackend::cpu>(
          settings, csv, std::make_integer_sequence<int, 8>());
  }

  template <unsigned int bp>
  void run_bp(const Settings &settings, std::ostream &csv)
  {
    run_problem<Problem<bp>>(settings, csv);
  }
} // namespace CEED

#endif
