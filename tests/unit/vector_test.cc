// GPU::Vector operations against deal.II's host vector on random data.
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/la_parallel_vector.h>

#include <gtest/gtest.h>
#include <random>

using namespace dealii;

template <typename Number>
class VectorOps : public ::testing::Test
{
protected:
  using Host = LinearAlgebra::distributed::Vector<Number>;

  void SetUp() override
  {
    const MPI_Comm     comm = MPI_COMM_WORLD;
    const unsigned int r    = Utilities::MPI::this_mpi_process(comm);
    const unsigned int p    = Utilities::MPI::n_mpi_processes(comm);
    const unsigned int n    = 100003;
    IndexSet           owned(n), ghosts(n);
    owned.add_range((std::uint64_t(n) * r) / p,
                    (std::uint64_t(n) * (r + 1)) / p);
    partitioner =
        std::make_shared<Utilities::MPI::Partitioner>(owned, ghosts, comm);
    std::mt19937                           gen(17 + r);
    std::uniform_real_distribution<double> dist(-1., 1.);
    for (unsigned int k = 0; k < 3; ++k)
    {
      h[k].reinit(partitioner);
      for (unsigned int i = 0; i < h[k].locally_owned_size(); ++i)
        h[k].local_element(i) = dist(gen);
      d[k].reinit(partitioner);
      d[k].copy_locally_owned_data_from(h[k]);
    }
  }

  double difference(const GPU::Vector<Number> &v, const Host &ref) const
  {
    Host copy(partitioner);
    v.copy_locally_owned_data_to(copy);
    copy -= ref;
    return copy.linfty_norm() / ref.linfty_norm();
  }

  double tolerance() const { return sizeof(Number) == 8 ? 1e-14 : 1e-6; }

  std::shared_ptr<Utilities::MPI::Partitioner> partitioner;
  Host                                         h[3];
  GPU::Vector<Number>                          d[3];
};

using NumberTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(VectorOps, NumberTypes);

TYPED_TEST(VectorOps, Updates)
{
  auto &d = this->d;
  auto &h = this->h;
  d[0].add(0.5, d[1]);
  h[0].add(0.5, h[1]);
  EXPECT_LE(this->difference(d[0], h[0]), this->tolerance());
  d[0].sadd(-1.5, 2., d[2]);
  h[0].sadd(-1.5, 2., h[2]);
  EXPECT_LE(this->difference(d[0], h[0]), this->tolerance());
  d[1].equ(3., d[2]);
  h[1].equ(3., h[2]);
  EXPECT_LE(this->difference(d[1], h[1]), this->tolerance());
  d[0].scale(d[1]);
  h[0].scale(h[1]);
  EXPECT_LE(this->difference(d[0], h[0]), this->tolerance());
}

TYPED_TEST(VectorOps, Reductions)
{
  auto        &d   = this->d;
  auto        &h   = this->h;
  const double tol = this->tolerance() * 10;
  EXPECT_NEAR(d[0] * d[1], h[0] * h[1], tol * std::abs(h[0] * h[1]) + tol);
  EXPECT_NEAR(d[0].l2_norm(), h[0].l2_norm(), tol * h[0].l2_norm());
  EXPECT_NEAR(d[0].l1_norm(), h[0].l1_norm(), tol * h[0].l1_norm());
  EXPECT_EQ(d[0].linfty_norm(), h[0].linfty_norm());
  EXPECT_NEAR(d[0].mean_value(), h[0].mean_value(), tol);
  const double dd = d[0].add_and_dot(-0.25, d[1], d[2]);
  const double hd = h[0].add_and_dot(-0.25, h[1], h[2]);
  EXPECT_NEAR(dd, hd, tol * std::abs(hd) + tol);
  EXPECT_LE(this->difference(d[0], h[0]), this->tolerance());
  // w aliasing this: the dot product uses the updated entries.
  const double da = d[0].add_and_dot(0.5, d[1], d[0]);
  const double ha = h[0].add_and_dot(0.5, h[1], h[0]);
  EXPECT_NEAR(da, ha, tol * std::abs(ha));
  EXPECT_FALSE(d[0].all_zero());
  d[0] = 0;
  EXPECT_TRUE(d[0].all_zero());
}

TYPED_TEST(VectorOps, ReinitAndCopy)
{
  auto                  &d = this->d;
  GPU::Vector<TypeParam> a;
  a.reinit(d[0], true);
  EXPECT_EQ(a.size(), d[0].size());
  EXPECT_EQ(a.locally_owned_size(), d[0].locally_owned_size());
  a = d[0];
  EXPECT_LE(this->difference(a, this->h[0]), 0.);
  GPU::Vector<TypeParam> b(std::move(a));
  EXPECT_LE(this->difference(b, this->h[0]), 0.);
  EXPECT_EQ(a.size(), 0u);
  GPU::Vector<TypeParam> c(7);
  c = TypeParam(2);
  EXPECT_EQ(c.l1_norm(), 14);
  EXPECT_EQ(c.mean_value(), 2);
}
