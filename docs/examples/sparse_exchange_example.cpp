// SPDX-License-Identifier: BSD-3-Clause
// exchange_sparse: the negotiation under schedules whose receivers do not
// know who will ask them.  Every rank needs a few elements of a
// block-distributed global array (indices it computes for itself), asks
// their owners, and the owners answer.  An owner learns who asked it from
// the exchange; no rank ever holds anything of size P.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>

#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), p = comm.size();
  const std::int64_t block = 10, n = block * p;  // rank r owns [10 r, 10 r + 10)
  auto owned_value = [](std::int64_t g) { return 100.0 * g; };

  // The indices this rank needs, grouped by owner: one request per owner.
  std::map<int, std::vector<std::int64_t>> wanted;
  for (std::int64_t k = 0; k < 4; ++k) {
    const std::int64_t g = (7 * me + 13 * k + 3) % n;
    wanted[static_cast<int>(g / block)].push_back(g);
  }
  std::vector<adlib::SparseMessage<std::int64_t>> requests;
  for (const auto& [owner, indices] : wanted) requests.push_back({owner, indices});

  // Collective: every owner receives the requests addressed to it, sorted by
  // the rank that asked, and learns the askers on the way.
  auto asked = adlib::exchange_sparse(comm, requests);

  // The owners answer each asker with the values, in the order asked.
  std::vector<adlib::SparseMessage<double>> answers;
  for (const auto& request : asked) {
    std::vector<double> values;
    for (std::int64_t g : request.values) values.push_back(owned_value(g));
    answers.push_back({request.peer, values});
  }
  auto answered = adlib::exchange_sparse(comm, answers);

  // Each answer comes from an owner asked above, one value per index asked.
  int wrong = 0;
  for (const auto& answer : answered) {
    const std::vector<std::int64_t>& indices = wanted.at(answer.peer);
    if (answer.values.size() != indices.size()) ++wrong;
    for (std::size_t i = 0; i < indices.size() && i < answer.values.size(); ++i)
      if (answer.values[i] != owned_value(indices[i])) ++wrong;
  }
  if (answered.size() != wanted.size()) ++wrong;
  int total = 0;
  ADLIB_MPI(MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, comm.get()), "example");
  if (me == 0)
    std::printf("sparse exchange on %d ranks: %s\n", p,
                total == 0 ? "every answer right" : "WRONG");
  return total == 0 ? 0 : 1;
}
