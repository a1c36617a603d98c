// internal::PartitionerView and to_local_indices: owned indices by
// subtraction, ghosts by their place in the sorted ghost list after the
// owned ones, flags added, strided input, and an exception for an index
// that is neither owned nor a ghost.
#include <dealii-gpu/base/memory.h>

#include <deal.II/base/exceptions.h>

#include "../../source/lac/device_partitioner.h"
#include <gtest/gtest.h>
#include <vector>

using namespace dealii;

namespace
{
  // Owned [10, 20), ghosts 3, 25, 40, 99.
  struct Layout
  {
    Layout()
    {
      ghosts.copy_from(std::vector<types::global_dof_index>{3, 25, 40, 99});
      view = GPU::internal::PartitionerView{10, 10, 4, ghosts.data()};
    }
    GPU::Array<types::global_dof_index> ghosts;
    GPU::internal::PartitionerView      view;
  };
} // namespace

TEST(DevicePartitioner, LocalIndices)
{
  const Layout layout;
  // (global, local), stored as pairs: the stride 2 reads every other one.
  const std::vector<types::global_dof_index> pairs{
      10, 0, 19, 9, 3, 10, 25, 11, 40, 12, 99, 13, 15, 5};
  GPU::Array<types::global_dof_index> global;
  global.copy_from(pairs);
  std::vector<unsigned char> host_flags(14, 0);
  host_flags[9] = host_flags[12] = 1;
  GPU::Array<unsigned char> flags;
  flags.copy_from(host_flags);
  constexpr unsigned int   flag = 1u << 31;
  GPU::Array<unsigned int> local(pairs.size() / 2);
  GPU::internal::to_local_indices("test",
                                  layout.view,
                                  local.size(),
                                  global.data(),
                                  2,
                                  local.data(),
                                  flags.data(),
                                  flag);
  std::vector<unsigned int> result;
  local.copy_to(result);
  for (std::size_t i = 0; i < result.size(); ++i)
  {
    const unsigned int expected = pairs[2 * i + 1];
    EXPECT_EQ(result[i], host_flags[expected] ? (expected | flag) : expected)
        << "global " << pairs[2 * i];
  }
}

TEST(DevicePartitioner, MissingIndexThrows)
{
  const Layout layout;
  for (const types::global_dof_index missing : {0u, 9u, 20u, 26u, 100u})
  {
    GPU::Array<types::global_dof_index> global;
    global.copy_from(std::vector<types::global_dof_index>{12, missing});
    GPU::Array<unsigned int> local(2);
    EXPECT_THROW(GPU::internal::to_local_indices(
                     "test", layout.view, 2, global.data(), 1, local.data()),
                 ExceptionBase)
        << "global " << missing;
  }
}
