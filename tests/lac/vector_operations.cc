// Every GPU::Vector operation against deal.II's
// LinearAlgebra::distributed::Vector on the same random data, float and
// double, on 1 and 3 ranks (with ghosts in the layout).
#include <dealii-gpu/lac/vector.h>

#include <deal.II/lac/la_parallel_vector.h>

#include "../tests.h"

template <typename Number>
using HostVector = LinearAlgebra::distributed::Vector<Number>;

template <typename Number>
double
max_difference(const GPU::Vector<Number> &v, const HostVector<Number> &ref)
{
  HostVector<Number> copy(ref.get_partitioner());
  v.copy_locally_owned_data_to(copy);
  copy -= ref;
  return max_norm(copy) / std::max<double>(max_norm(ref), 1e-30);
}

template <typename Number>
void
test(const double tol)
{
  const MPI_Comm     comm  = MPI_COMM_WORLD;
  const unsigned int rank  = Utilities::MPI::this_mpi_process(comm);
  const unsigned int p     = Utilities::MPI::n_mpi_processes(comm);
  const unsigned int n     = 10007;
  const unsigned int begin = (n * rank) / p, end = (n * (rank + 1)) / p;
  IndexSet           owned(n), ghosts(n);
  owned.add_range(begin, end);
  ghosts.add_index((end + 3) % n);
  ghosts.add_index((begin + n - 5) % n);
  ghosts.subtract_set(owned);
  const auto partitioner =
      std::make_shared<Utilities::MPI::Partitioner>(owned, ghosts, comm);

  std::uint64_t                    seed = 1 + rank;
  std::vector<HostVector<Number>>  h(3, HostVector<Number>(partitioner));
  std::vector<GPU::Vector<Number>> d(3);
  for (unsigned int k = 0; k < 3; ++k)
  {
    for (const auto i : owned)
      h[k](i) = random_value(seed) - 0.3;
    d[k].reinit(partitioner);
    d[k].copy_locally_owned_data_from(h[k]);
  }
  const Number a = 0.7, b = -1.3, s = 2.1;
  unsigned int failures = 0;
  auto         check    = [&](const std::string &what, const double difference)
  {
    if (!(difference <= tol))
    {
      ++failures;
      deallog << "FAILED " << what << " relative difference " << difference
              << std::endl;
    }
  };

  check("copy in/out", max_difference(d[0], h[0]));
  d[0].add(a, d[1]);
  h[0].add(a, h[1]);
  check("add(a,v)", max_difference(d[0], h[0]));
  d[0].add(a, d[1], b, d[2]);
  h[0].add(a, h[1], b, h[2]);
  check("add(a,v,b,w)", max_difference(d[0], h[0]));
  d[0].add(b);
  h[0].add(b);
  check("add(a)", max_difference(d[0], h[0]));
  d[0].sadd(s, a, d[1]);
  h[0].sadd(s, a, h[1]);
  check("sadd(s,a,v)", max_difference(d[0], h[0]));
  d[0].sadd(s, d[2]);
  h[0].sadd(s, h[2]);
  check("sadd(s,v)", max_difference(d[0], h[0]));
  d[1].equ(b, d[2]);
  h[1].equ(b, h[2]);
  check("equ", max_difference(d[1], h[1]));
  d[0].scale(d[2]);
  h[0].scale(h[2]);
  check("scale", max_difference(d[0], h[0]));
  d[0] *= s;
  h[0] *= s;
  check("operator*=", max_difference(d[0], h[0]));
  d[0] /= s;
  h[0] /= s;
  check("operator/=", max_difference(d[0], h[0]));
  d[0] += d[1];
  h[0] += h[1];
  check("operator+=", max_difference(d[0], h[0]));
  d[0] -= d[2];
  h[0] -= h[2];
  check("operator-=", max_difference(d[0], h[0]));
  check("dot", relative_difference(d[0] * d[1], h[0] * h[1]));
  check("l1_norm", relative_difference(d[0].l1_norm(), h[0].l1_norm()));
  check("l2_norm", relative_difference(d[0].l2_norm(), h[0].l2_norm()));
  check("linfty_norm", relative_difference(max_norm(d[0]), max_norm(h[0])));
  check("mean_value",
        relative_difference(d[0].mean_value(), h[0].mean_value()));
  const Number dot_d = d[0].add_and_dot(a, d[1], d[2]);
  const Number dot_h = h[0].add_and_dot(a, h[1], h[2]);
  check("add_and_dot (dot)", relative_difference(dot_d, dot_h));
  check("add_and_dot (update)", max_difference(d[0], h[0]));
  // Aliased arguments, as in deal.II's GMRES: w = this, then v = this.
  check("add_and_dot (w = this)",
        relative_difference(d[0].add_and_dot(b, d[1], d[0]),
                            h[0].add_and_dot(b, h[1], h[0])));
  check("add_and_dot (w = this, update)", max_difference(d[0], h[0]));
  check("add_and_dot (v = this)",
        relative_difference(d[0].add_and_dot(a, d[0], d[2]),
                            h[0].add_and_dot(a, h[0], h[2])));
  d[0].sadd(s, a, d[0]);
  h[0].sadd(s, a, h[0]);
  check("sadd (v = this)", max_difference(d[0], h[0]));

  GPU::Vector<Number> copy(d[0]);
  check("copy constructor", max_difference(copy, h[0]));
  copy.swap(d[1]);
  check("swap", max_difference(d[1], h[0]));
  check("swap (the other side)", max_difference(copy, h[1]));
  d[1] = Number(0.25);
  h[1] = Number(0.25);
  check("operator=(scalar)", max_difference(d[1], h[1]));
  deallog << "all_zero after =0.25: " << (d[1].all_zero() ? "yes" : "no");
  d[1] = Number();
  deallog << ", after =0: " << (d[1].all_zero() ? "yes" : "no") << std::endl;
  deallog << "size " << d[0].size() << " owned elements match: "
          << (d[0].locally_owned_elements() == owned ? "yes" : "no")
          << std::endl;

  // Mixed precision copy.
  GPU::Vector<double> other_precision;
  other_precision.reinit(d[0]);
  other_precision.copy_locally_owned_data_from(d[0]);
  HostVector<double> reference(h[0].get_partitioner());
  reference = h[0];
  check("copy across precisions", max_difference(other_precision, reference));
  deallog << (sizeof(Number) == 4 ? "float" : "double") << ": "
          << (failures == 0 ? "all operations agree with deal.II"
                            : "some operations differ")
          << std::endl;
}

int
main(int argc, char **argv)
{
  Utilities::MPI::MPI_InitFinalize mpi(argc, argv, 1);
  MPILogInitAll                    log;
  test<double>(1e-13);
  test<float>(2e-5);
}
