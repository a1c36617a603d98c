// GPU::SetupTimer (steps summed by name, progress lines) and
// GPU::parallel_for_chunks (every index once, on several threads, the
// first exception rethrown).
#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/base/exceptions.h>

#include <atomic>
#include <gtest/gtest.h>
#include <sstream>
#include <thread>
#include <vector>

using namespace dealii;

TEST(SetupTimer, StepsSumByName)
{
  GPU::SetupTimer timer("level 2");
  timer.start("a");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  timer.start("b");
  timer.start("a");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  timer.stop();
  ASSERT_EQ(timer.steps().size(), 2u);
  EXPECT_EQ(timer.steps()[0].first, "a");
  EXPECT_GE(timer["a"], 0.04);
  EXPECT_LT(timer["b"], 0.02);
  EXPECT_EQ(timer["c"], 0.);
  GPU::SetupTimer sum;
  sum.add(timer);
  sum.add(timer);
  EXPECT_DOUBLE_EQ(sum["a"], 2 * timer["a"]);
  EXPECT_DOUBLE_EQ(sum.total(), 2 * timer.total());
  std::ostringstream line;
  sum.print(line);
  EXPECT_EQ(line.str().rfind("a ", 0), 0u);
}

TEST(SetupTimer, ProgressLinesOnlyForLongSteps)
{
  std::ostringstream out;
  GPU::set_setup_progress(&out);
  GPU::SetupTimer timer("level 1");
  timer.start("short");
  timer.stop();
  EXPECT_TRUE(out.str().empty());
  timer.start("long");
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  timer.stop();
  GPU::set_setup_progress(nullptr);
  EXPECT_NE(out.str().find("setup level 1: long"), std::string::npos);
}

TEST(ParallelForChunks, EveryIndexOnce)
{
  for (const unsigned int threads : {1u, 3u, 8u})
  {
    GPU::set_n_setup_threads(threads);
    EXPECT_EQ(GPU::n_setup_threads(), threads);
    std::vector<std::atomic<int>> visits(10007);
    for (auto &v : visits)
      v = 0;
    GPU::parallel_for_chunks(visits.size(),
                             100,
                             [&](const std::size_t begin, const std::size_t end)
                             {
                               EXPECT_LE(end - begin, 100u);
                               for (std::size_t i = begin; i < end; ++i)
                                 ++visits[i];
                             });
    for (const auto &v : visits)
      ASSERT_EQ(v, 1);
  }
  GPU::set_n_setup_threads(0);
  EXPECT_GE(GPU::n_setup_threads(), 1u);
}

TEST(ParallelForChunks, RethrowsTheException)
{
  GPU::set_n_setup_threads(4);
  EXPECT_THROW(GPU::parallel_for_chunks(
                   1000,
                   10,
                   [](const std::size_t begin, const std::size_t) {
                     AssertThrow(begin != 500, ExcMessage("chunk 50 fails"));
                   }),
               ExceptionBase);
  GPU::set_n_setup_threads(0);
}
