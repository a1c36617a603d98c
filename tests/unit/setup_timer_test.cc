// GPU::SetupTimer (steps summed by name, progress lines) and
// GPU::parallel_for_chunks (every index once, on several threads, the
// first exception rethrown, loops inside loops and loops of two threads at
// once on the kept workers).
#include <dealii-gpu/base/setup_timer.h>

#include <deal.II/base/exceptions.h>

#include <atomic>
#include <chrono>
#include <gtest/gtest.h>
#include <mutex>
#include <set>
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

TEST(ParallelForChunks, SeveralThreadsNestedAndConcurrentLoops)
{
  GPU::set_n_setup_threads(4);
  // Chunks that take a while: the workers share them.
  std::mutex                    mutex;
  std::set<std::thread::id>     ids;
  std::vector<std::atomic<int>> visits(64 * 50);
  for (auto &v : visits)
    v = 0;
  GPU::parallel_for_chunks(
      64,
      1,
      [&](const std::size_t begin, const std::size_t end)
      {
        {
          std::lock_guard<std::mutex> lock(mutex);
          ids.insert(std::this_thread::get_id());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        // A loop inside the loop: on this thread, every index once.
        GPU::parallel_for_chunks(50,
                                 7,
                                 [&](const std::size_t b, const std::size_t e)
                                 {
                                   for (std::size_t i = b; i < e; ++i)
                                     ++visits[begin * 50 + i];
                                 });
        EXPECT_EQ(end, begin + 1);
      });
  EXPECT_GT(ids.size(), 1u);
  for (const auto &v : visits)
    ASSERT_EQ(v, 1);

  // Two threads' loops at once: one has the workers, the other runs alone.
  std::vector<std::atomic<int>> a(100000), b(100000);
  for (auto *w : {&a, &b})
    for (auto &v : *w)
      v = 0;
  const auto loop = [](std::vector<std::atomic<int>> &w)
  {
    for (unsigned int r = 0; r < 20; ++r)
      GPU::parallel_for_chunks(
          w.size(),
          1000,
          [&](const std::size_t begin, const std::size_t end)
          {
            for (std::size_t i = begin; i < end; ++i)
              ++w[i];
          });
  };
  std::thread other(loop, std::ref(b));
  loop(a);
  other.join();
  for (auto *w : {&a, &b})
    for (const auto &v : *w)
      ASSERT_EQ(v, 20);
  GPU::set_n_setup_threads(0);
}
