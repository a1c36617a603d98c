#include <dealii-gpu/operators/matrix_free_backend.h>

#include <deal.II/base/exceptions.h>
#include <deal.II/base/quadrature_lib.h>

#include <utility>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      constexpr std::pair<MatrixFreeBackend, const char *> backend_names[] = {
          {MatrixFreeBackend::cpu, "cpu"}, {MatrixFreeBackend::gpu, "gpu"}};
      constexpr std::pair<QuadratureRule, const char *> rule_names[] = {
          {QuadratureRule::gauss, "gauss"},
          {QuadratureRule::gauss_lobatto, "gauss-lobatto"}};

      template <typename Enum, std::size_t n>
      std::string name_of(const std::pair<Enum, const char *> (&names)[n],
                          const Enum value)
      {
        for (const auto &[known, name] : names)
          if (known == value)
            return name;
        return "unknown";
      }

      template <typename Enum, std::size_t n>
      Enum value_of(const std::pair<Enum, const char *> (&names)[n],
                    const std::string &name,
                    const char        *what)
      {
        std::string list;
        for (const auto &[value, known] : names)
        {
          if (name == known)
            return value;
          list += (list.empty() ? "" : ", ") + std::string(known);
        }
        AssertThrow(false,
                    ExcMessage("unknown " + std::string(what) + " '" + name +
                               "' (" + list + ")"));
        return names[0].first;
      }
    } // namespace

    std::string to_string(const MatrixFreeBackend backend)
    {
      return name_of(backend_names, backend);
    }

    MatrixFreeBackend matrix_free_backend_from_string(const std::string &name)
    {
      return value_of(backend_names, name, "matrix-free backend");
    }

    std::string to_string(const QuadratureRule rule)
    {
      return name_of(rule_names, rule);
    }

    QuadratureRule quadrature_rule_from_string(const std::string &name)
    {
      return value_of(rule_names, name, "quadrature rule");
    }

    Quadrature<1> make_quadrature(const QuadratureRule rule,
                                  const unsigned int   n_points)
    {
      if (rule == QuadratureRule::gauss)
        return QGauss<1>(n_points);
      AssertThrow(n_points >= 2,
                  ExcMessage("Gauss-Lobatto needs at least 2 points, not " +
                             std::to_string(n_points)));
      return QGaussLobatto<1>(n_points);
    }
  } // namespace GPU
} // namespace dealii
