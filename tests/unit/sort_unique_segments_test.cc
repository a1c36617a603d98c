// internal::sort_unique_segments against std::sort and std::unique: empty
// segments, repeats, lengths around the team's chunks and past the team
// scratch (sorted in place).
#include <dealii-gpu/base/memory.h>

#include "../../source/lac/sort_unique_segments.h"
#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace dealii;

namespace
{
  void check(const std::vector<unsigned int> &lengths,
             const unsigned int               range,
             const unsigned int               seed)
  {
    std::mt19937                                gen(seed);
    std::uniform_int_distribution<unsigned int> value(0, range - 1);
    std::vector<unsigned int>                   offsets{0}, data;
    std::vector<unsigned int>                   expected_offsets{0}, expected;
    for (const unsigned int length : lengths)
    {
      std::vector<unsigned int> segment(length);
      for (auto &v : segment)
        v = value(gen);
      data.insert(data.end(), segment.begin(), segment.end());
      offsets.push_back(data.size());
      std::sort(segment.begin(), segment.end());
      segment.erase(std::unique(segment.begin(), segment.end()), segment.end());
      expected.insert(expected.end(), segment.begin(), segment.end());
      expected_offsets.push_back(expected.size());
    }
    GPU::Array<unsigned int> device_offsets, device_data;
    device_offsets.copy_from(offsets);
    device_data.copy_from(data);
    GPU::internal::sort_unique_segments(
        lengths.size(), device_offsets, device_data);
    device_offsets.copy_to(offsets);
    device_data.copy_to(data);
    EXPECT_EQ(offsets, expected_offsets);
    EXPECT_EQ(data, expected);
  }
} // namespace

TEST(SortUniqueSegments, ShortSegmentsWithRepeats)
{
  check({0, 1, 2, 3, 7, 8, 31, 32, 33, 0, 64, 100, 255, 257, 0}, 40, 1);
}

TEST(SortUniqueSegments, DistinctValues)
{
  check({5, 500, 1000, 1025}, 1u << 30, 2);
}

TEST(SortUniqueSegments, LongerThanTeamScratch)
{
  check({10, 8192, 8193, 20000, 3}, 5000, 3);
}

TEST(SortUniqueSegments, NoSegments)
{
  check({}, 10, 4);
}
