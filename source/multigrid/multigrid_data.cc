#include <dealii-gpu/multigrid/multigrid_data.h>
#include <dealii-gpu/multigrid/sparse_matrix_multigrid_data.h>

namespace dealii
{
  namespace GPU
  {
    void MultigridData::declare_parameters(ParameterHandler &prm)
    {
      const MultigridData defaults;
      prm.declare_entry("Smoother",
                        "chebyshev",
                        Patterns::Selection("chebyshev|jacobi"),
                        "Chebyshev around the diagonal, or damped Jacobi");
      prm.declare_entry("Smoothing degree",
                        std::to_string(defaults.smoothing_degree),
                        Patterns::Integer(1),
                        "Chebyshev degree, or the number of Jacobi steps");
      prm.declare_entry("Smoothing range",
                        "20",
                        Patterns::Double(1),
                        "Chebyshev smooths eigenvalues in [max/range, max]");
      prm.declare_entry("Jacobi relaxation",
                        "0",
                        Patterns::Double(0, 2),
                        "Damping of Jacobi; 0: 4/(3 lambda_max), estimated");
      prm.declare_entry(
          "Coarse solver",
          "automatic",
          Patterns::Selection("automatic|chebyshev|cg|amg|direct"),
          "Chebyshev or CG-Jacobi on the device, or CG with "
          "Trilinos ML AMG or Amesos KLU's direct solve on the "
          "host; automatic: direct for a small coarse level on "
          "several MPI ranks, else Chebyshev");
      prm.declare_entry("Coarse reduction",
                        "1e-3",
                        Patterns::Double(0, 1),
                        "Residual reduction of the coarse solver");
      prm.declare_entry("V-cycle precision",
                        "float",
                        Patterns::Selection("float|double"),
                        "Number type of the levels, transfer and smoothers");
      prm.declare_entry("p-coarsening",
                        "false",
                        Patterns::Bool(),
                        "Levels in FE_Q(1), reached from FE_Q(degree) on the "
                        "active cells");
      prm.declare_entry("Geometry storage",
                        "automatic",
                        Patterns::Selection("automatic|jacobians|points|field"),
                        "How the level operators keep the cell geometry: "
                        "stored Jacobians, quadrature points or the mapping "
                        "field; automatic picks the fastest measured (above "
                        "Q2 on curved cells without a reaction term: the "
                        "Jacobians merged with the coefficient)");
    }

    void MultigridData::parse_parameters(const ParameterHandler &prm)
    {
      smoother          = prm.get("Smoother") == "jacobi" ? Smoother::jacobi
                                                          : Smoother::chebyshev;
      smoothing_degree  = prm.get_integer("Smoothing degree");
      smoothing_range   = prm.get_double("Smoothing range");
      jacobi_relaxation = prm.get_double("Jacobi relaxation");
      const std::string coarse = prm.get("Coarse solver");
      coarse_solver            = coarse == "cg"       ? CoarseSolver::cg_jacobi
                                 : coarse == "amg"    ? CoarseSolver::amg
                                 : coarse == "direct" ? CoarseSolver::direct
                                 : coarse == "chebyshev" ? CoarseSolver::chebyshev
                                                         : CoarseSolver::automatic;
      coarse_reduction         = prm.get_double("Coarse reduction");
      precision                = prm.get("V-cycle precision") == "double"
                                     ? Precision::double_precision
                                     : Precision::single_precision;
      p_coarsening             = prm.get_bool("p-coarsening");
      geometry = geometry_storage_from_string(prm.get("Geometry storage"));
    }

    void SparseMatrixMultigridData::declare_parameters(ParameterHandler &prm)
    {
      MultigridData::declare_parameters(prm);
      prm.declare_entry("Smoother preconditioner",
                        "jacobi",
                        Patterns::Selection("jacobi|spai0|spai"),
                        "What each smoothing step applies to the residual: "
                        "the inverse diagonal, SPAI(0), or SPAI(1) (with "
                        "Smoother = jacobi)");
      prm.declare_entry("SpMV kernel",
                        "automatic",
                        Patterns::Selection("automatic|csr|ellpack"),
                        "Kernel of the level matrices' products: cuSPARSE "
                        "(automatic), the library's CSR, or ELLPACK-R");
      prm.declare_entry(
          "Restriction",
          "transposed product",
          Patterns::Selection("transposed product|stored transpose"),
          "The restriction as P's transposed product, or as "
          "a stored P^T");
    }

    void
    SparseMatrixMultigridData::parse_parameters(const ParameterHandler &prm)
    {
      MultigridData::parse_parameters(prm);
      const std::string m = prm.get("Smoother preconditioner");
      preconditioner      = m == "spai"    ? SmootherPreconditioner::spai
                            : m == "spai0" ? SmootherPreconditioner::spai0
                                           : SmootherPreconditioner::jacobi;
      using SpMV          = SparseMatrix<double>::SpMV;
      const std::string k = prm.get("SpMV kernel");
      spmv                = k == "csr"       ? SpMV::csr
                            : k == "ellpack" ? SpMV::ellpack_r
                                             : SpMV::automatic;
      using Restriction   = MGTransferSparseMatrix<2, double>::Restriction;
      restriction         = prm.get("Restriction") == "stored transpose"
                                ? Restriction::stored_transpose
                                : Restriction::transposed_product;
    }

    std::string to_string(const MultigridData::CoarseSolver coarse_solver)
    {
      using CoarseSolver = MultigridData::CoarseSolver;
      return coarse_solver == CoarseSolver::cg_jacobi   ? "cg"
             : coarse_solver == CoarseSolver::amg       ? "amg"
             : coarse_solver == CoarseSolver::direct    ? "direct"
             : coarse_solver == CoarseSolver::chebyshev ? "chebyshev"
                                                        : "automatic";
    }

    std::string MultigridData::description() const
    {
      std::string text = smoother == Smoother::jacobi ? "jacobi" : "chebyshev";
      text += "(" + std::to_string(smoothing_degree);
      if (smoother == Smoother::chebyshev &&
          smoothing_range != MultigridData().smoothing_range)
        text += ", range " + Utilities::to_string(smoothing_range);
      text += "), coarse " + to_string(coarse_solver);
      text += precision == Precision::double_precision ? ", double" : ", float";
      if (p_coarsening)
        text += ", p-coarsening to Q1";
      if (geometry != GeometryStorage::automatic)
        text += ", geometry " + to_string(geometry);
      return text;
    }
  } // namespace GPU
} // namespace dealii
