// Ghost exchange with 3 ranks on a random ghost pattern, against deal.II's
// host vector with the same partitioner.
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/la_parallel_vector.h>

#include <gtest/gtest.h>
#include <random>

using namespace dealii;

namespace
{
  // Contiguous owned ranges over 3 ranks and n_picks random ghosts.
  std::shared_ptr<const Utilities::MPI::Partitioner> random_partitioner(
      const unsigned int n, const unsigned int n_picks, std::mt19937 &gen)
  {
    const MPI_Comm     comm = MPI_COMM_WORLD;
    const unsigned int p    = Utilities::MPI::n_mpi_processes(comm);
    const unsigned int r    = Utilities::MPI::this_mpi_process(comm);
    IndexSet           owned(n), ghosts(n);
    owned.add_range((n * r) / p, (n * (r + 1)) / p);
    std::uniform_int_distribution<unsigned int> pick(0, n - 1);
    for (unsigned int k = 0; k < n_picks; ++k)
      ghosts.add_index(pick(gen));
    ghosts.subtract_set(owned);
    return std::make_shared<Utilities::MPI::Partitioner>(owned, ghosts, comm);
  }
} // namespace

TEST(GhostExchange, RandomPatternMatchesDealII)
{
  if (Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) != 3)
    GTEST_SKIP() << "runs with 3 ranks";
  std::mt19937 gen(5 + Utilities::MPI::this_mpi_process(MPI_COMM_WORLD));
  const auto   partitioner = random_partitioner(30011, 2000, gen);

  LinearAlgebra::distributed::Vector<double> host(partitioner);
  GPU::Vector<double>                        v(partitioner);
  std::uniform_real_distribution<double>     dist(-1, 1);
  for (unsigned int i = 0;
       i < host.locally_owned_size() + partitioner->n_ghost_indices();
       ++i)
    host.local_element(i) = dist(gen);
  // Owned and ghost values go in; the ghost ones are contributions to add.
  std::vector<double> all(host.begin(),
                          host.begin() + host.locally_owned_size() +
                              partitioner->n_ghost_indices());
  {
    auto values = v.get_values();
    GPU::Memory::copy_to_backend(
        v.backend(), values, all.data(), all.size() * sizeof(double));
  }
  v.compress(VectorOperation::add);
  host.compress(VectorOperation::add);
  LinearAlgebra::distributed::Vector<double> result(partitioner);
  v.copy_locally_owned_data_to(result);
  result -= host;
  EXPECT_LE(result.linfty_norm(), 1e-15);

  host.update_ghost_values();
  v.update_ghost_values();
  std::vector<double> ghosts_gpu(partitioner->n_ghost_indices());
  GPU::Memory::copy_to_host(v.backend(),
                            ghosts_gpu.data(),
                            v.get_values() + v.locally_owned_size(),
                            ghosts_gpu.size() * sizeof(double));
  // compress(add) sums in another order than deal.II (atomics on the GPU),
  // so the owners' values, and the ghosts copied from them, agree to
  // round-off only.
  for (unsigned int g = 0; g < ghosts_gpu.size(); ++g)
    EXPECT_NEAR(ghosts_gpu[g],
                host.local_element(host.locally_owned_size() + g),
                1e-14);
}

// The split forms (start, other work, finish) give what the blocking
// calls give, and misuse (a second exchange on the same layout while one
// is in flight, finish without start) is refused.
TEST(GhostExchange, StartFinishMatchesBlockingCalls)
{
  if (Utilities::MPI::n_mpi_processes(MPI_COMM_WORLD) != 3)
    GTEST_SKIP() << "runs with 3 ranks";
  std::mt19937      gen(11 + Utilities::MPI::this_mpi_process(MPI_COMM_WORLD));
  const auto        partitioner = random_partitioner(9001, 700, gen);
  const std::size_t n_local =
      partitioner->locally_owned_size() + partitioner->n_ghost_indices();

  LinearAlgebra::distributed::Vector<double> host(partitioner);
  std::uniform_real_distribution<double>     dist(-1, 1);
  for (unsigned int i = 0; i < n_local; ++i)
    host.local_element(i) = dist(gen);
  std::vector<double> all(host.begin(), host.begin() + n_local);

  GPU::Vector<double> v(partitioner), w;
  w.reinit(v);
  GPU::Memory::copy_to_backend(
      v.backend(), v.get_values(), all.data(), n_local * sizeof(double));
  v.compress_start(VectorOperation::add);
  // w shares v's message buffers: no second exchange while one travels.
  EXPECT_THROW(w.update_ghost_values_start(), ExceptionBase);
  EXPECT_THROW(w.compress_finish(VectorOperation::add), ExceptionBase);
  v.compress_finish(VectorOperation::add);
  host.compress(VectorOperation::add);
  LinearAlgebra::distributed::Vector<double> result(partitioner);
  v.copy_locally_owned_data_to(result);
  result -= host;
  EXPECT_LE(result.linfty_norm(), 1e-15);

  host.update_ghost_values();
  v.update_ghost_values_start();
  EXPECT_FALSE(v.has_ghost_elements());
  v.update_ghost_values_finish();
  EXPECT_TRUE(v.has_ghost_elements());
  std::vector<double> ghosts_gpu(partitioner->n_ghost_indices());
  GPU::Memory::copy_to_host(v.backend(),
                            ghosts_gpu.data(),
                            v.get_values() + v.locally_owned_size(),
                            ghosts_gpu.size() * sizeof(double));
  for (unsigned int g = 0; g < ghosts_gpu.size(); ++g)
    EXPECT_NEAR(ghosts_gpu[g],
                host.local_element(host.locally_owned_size() + g),
                1e-14);
  EXPECT_THROW(v.update_ghost_values_finish(), ExceptionBase);
}
