// Error paths: each must throw a deal.II exception that says what is wrong.
#include <dealii-gpu/base/memory.h>
#include <dealii-gpu/base/parallel.h>
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/la_parallel_vector.h>

#include <gtest/gtest.h>

using namespace dealii;

namespace
{
  template <typename F>
  std::string message_of(const F &f)
  {
    try
    {
      f();
    }
    catch (const ExceptionBase &e)
    {
      return e.what();
    }
    return "";
  }
} // namespace

TEST(Errors, UnknownBackendIsNamed)
{
  const std::string what = message_of([] { GPU::Device::initialize("rocm"); });
  EXPECT_NE(what.find("'rocm'"), std::string::npos) << what;
}

TEST(Errors, MismatchedSizes)
{
  GPU::Vector<double> a(10), b(11);
  const std::string   what = message_of([&] { a.add(1., b); });
  EXPECT_NE(what.find("global sizes 10 and 11"), std::string::npos) << what;
  EXPECT_NE(message_of([&] { a.sadd(1., 1., b); }), "");
  EXPECT_NE(message_of([&] { (void)(a * b); }), "");
  LinearAlgebra::distributed::Vector<double> host(12);
  EXPECT_NE(message_of([&] { a.copy_locally_owned_data_from(host); }), "");
  EXPECT_NE(message_of([&] { a.copy_locally_owned_data_to(host); }), "");
}

TEST(Errors, OutOfMemoryReportsSizes)
{
  const std::size_t huge = std::size_t(1) << 52; // 4 PiB
  const std::string what =
      message_of([&] { GPU::Array<double> a(huge / sizeof(double)); });
  EXPECT_NE(what.find("4503599627370496 bytes"), std::string::npos) << what;
  if (GPU::Device::backend() == GPU::Backend::cuda)
  {
    EXPECT_NE(what.find("are free"), std::string::npos) << what;
  }
  // The backend keeps working after the failed allocation.
  GPU::Vector<double> v(5);
  v = 1.;
  EXPECT_EQ(v.l1_norm(), 5.);
}

TEST(Errors, CudaErrorNamesCallFileAndLine)
{
  const std::string what = message_of(
      []
      {
        dealii::GPU::internal::throw_cuda_error(
            2, "cudaMalloc(&p, n)", "file.cu", 42, "f");
      });
  EXPECT_NE(what.find("cudaMalloc(&p, n)"), std::string::npos) << what;
  EXPECT_NE(what.find("file.cu"), std::string::npos) << what;
  EXPECT_NE(what.find("42"), std::string::npos) << what;
}

TEST(Errors, TeamTooLarge)
{
  const std::string what = message_of(
      []
      {
        GPU::parallel_for_teams("too large",
                                1,
                                GPU::TeamShape{64, 32, 1},
                                0,
                                [](const GPU::TeamMember &) {});
      });
  EXPECT_NE(what.find("1 to 1024 threads"), std::string::npos) << what;
}

TEST(Errors, ElementOutsideLayout)
{
  GPU::Vector<double> v(10);
  EXPECT_NE(message_of([&] { v(10) = 1.; }), "");
}
