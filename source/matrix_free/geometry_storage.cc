#include <dealii-gpu/matrix_free/geometry_storage.h>

#include <deal.II/base/exceptions.h>

namespace dealii
{
  namespace GPU
  {
    namespace
    {
      constexpr std::pair<GeometryStorage, const char *> geometry_names[] = {
          {GeometryStorage::jacobians, "jacobians"},
          {GeometryStorage::points, "points"},
          {GeometryStorage::field, "field"},
          {GeometryStorage::automatic, "automatic"}};
    } // namespace

    std::string to_string(const GeometryStorage geometry)
    {
      for (const auto &[value, name] : geometry_names)
        if (value == geometry)
          return name;
      return "unknown";
    }

    GeometryStorage geometry_storage_from_string(const std::string &name)
    {
      for (const auto &[value, known] : geometry_names)
        if (name == known)
          return value;
      AssertThrow(false,
                  ExcMessage("unknown geometry storage '" + name +
                             "' (jacobians, points, field, automatic)"));
      return GeometryStorage::automatic;
    }
  } // namespace GPU
} // namespace dealii
