// Ghost exchange of GPU::Vector against deal.II's host vector with the same
// partitioner: update_ghost_values, compress(add) with ghosts shared by
// several ranks, compress(insert), zero_out_ghost_values.
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/la_parallel_vector.h>

#include "../tests.h"

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;

  const MPI_Comm     comm  = MPI_COMM_WORLD;
  const unsigned int rank  = Utilities::MPI::this_mpi_process(comm);
  const unsigned int p     = Utilities::MPI::n_mpi_processes(comm);
  const unsigned int n     = 1000;
  const unsigned int begin = (n * rank) / p, end = (n * (rank + 1)) / p;
  IndexSet           owned(n), ghosts(n);
  owned.add_range(begin, end);
  // Every rank reads entries 0..9 and a strided set of all others, so some
  // entries are ghosts on several ranks.
  ghosts.add_range(0, 10);
  for (unsigned int i = rank; i < n; i += 37)
    ghosts.add_index(i);
  ghosts.subtract_set(owned);
  const auto partitioner =
      std::make_shared<Utilities::MPI::Partitioner>(owned, ghosts, comm);

  LinearAlgebra::distributed::Vector<double> host(partitioner),
      copy(partitioner);
  GPU::Vector<double> v(partitioner);
  for (const auto i : owned)
    host(i) = 1. + i;
  v.copy_locally_owned_data_from(host);

  // update_ghost_values: every ghost must hold its owner's value.
  v.update_ghost_values();
  unsigned int wrong = 0;
  for (const auto i : ghosts)
    if (v(i) != 1. + i)
      ++wrong;
  deallog << "ghosts " << ghosts.n_elements()
          << ", wrong after update: " << wrong
          << ", has ghosts: " << (v.has_ghost_elements() ? "yes" : "no")
          << std::endl;

  // compress(add): ghosts add into their owners, as in deal.II.
  v    = 0.;
  host = 0.;
  for (const auto i : ghosts)
  {
    v(i)    = 0.5 + rank;
    host(i) = 0.5 + rank;
  }
  for (const auto i : owned)
  {
    v(i)    = 1.;
    host(i) = 1.;
  }
  v.compress(VectorOperation::add);
  host.compress(VectorOperation::add);
  v.copy_locally_owned_data_to(copy);
  copy -= host;
  deallog << "compress(add) difference to deal.II: " << max_norm(copy)
          << ", ghosts zeroed: " << (v.has_ghost_elements() ? "no" : "yes")
          << std::endl;
  double ghost_sum = 0;
  for (const auto i : ghosts)
    ghost_sum += std::abs(v(i));
  deallog << "ghost entries after compress: " << ghost_sum << std::endl;

  // compress(insert): owners keep their values.
  v.update_ghost_values();
  v.compress(VectorOperation::insert);
  v.copy_locally_owned_data_to(copy);
  copy -= host;
  deallog << "compress(insert) keeps owned values: "
          << (max_norm(copy) == 0. ? "yes" : "no") << std::endl;
  v.update_ghost_values();
  v.zero_out_ghost_values();
  ghost_sum = 0;
  for (const auto i : ghosts)
    ghost_sum += std::abs(v(i));
  deallog << "after zero_out_ghost_values: " << ghost_sum << std::endl;

  // Mismatched layouts are refused.
  GPU::Vector<double> other(n + 1);
  try
  {
    v.add(1., other);
    deallog << "mismatch accepted" << std::endl;
  }
  catch (const ExceptionBase &e)
  {
    deallog << "mismatched layout refused" << std::endl;
  }
}
