// SPDX-License-Identifier: BSD-3-Clause
// Reverse accumulation in practice: finite-element assembly of a load
// vector over a block-distributed line of nodes (every rank adds its
// elements' contributions into its local nodes, ghost nodes included, then
// WriteHalo::accumulate adds each ghost node into its owner), other combine
// operations, and Remap::reverse (contributions made in another
// distribution combined back into the source).  Every owned value is
// checked against the global indices; the exit code says whether all checks
// passed.  Runs at any number of ranks.
#include <mpi.h>

#include <array>
#include <cstdio>

#include <adlib/adlib.hpp>

using adlib::Index;

// True on every rank when every element of `a` this rank owns equals
// expected(global index) (collective).
template <class T, class Expected>
bool holds(const adlib::DistArray<T, 1>& a, Expected expected) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
  const adlib::LocalBox<1> owned = a.owned_box();
  int wrong = 0, wrong_anywhere = 0;
  for (Index l = owned.begin(0); l < owned.end(0); ++l)
    if (host(l) != expected(owned.global(0, l))) ++wrong;
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, a.comm().get());
  return wrong_anywhere == 0;
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  bool ok = true;
  {
    // Nodes 0 .. n-1 of a line, one ghost node on each side of every block;
    // element e joins nodes e and e + 1.
    adlib::ProcessGrid line(comm, {comm.size()});
    const Index n = 4 * comm.size() + 3;
    adlib::DistArray<double, 1> load(line, {adlib::block(n).ghosts(1)});
    adlib::WriteHalo halo(load);

    // Assembly: every rank takes the elements whose first node it owns and
    // adds half of each element's load (1.0) into both of its nodes.  The
    // second node of the last element may be a ghost node.
    Kokkos::deep_copy(load.local_view(), 0.0);  // ghost nodes too
    const adlib::LocalBox<1> owned = load.owned_box();
    auto v = load.local_view();
    Kokkos::parallel_for(
        "assemble", Kokkos::RangePolicy<>(owned.begin(0), owned.end(0)), KOKKOS_LAMBDA(Index l) {
          if (owned.global(0, l) + 1 < n) {  // element (g, g + 1) exists
            v(l) += 0.5;
            v(l + 1) += 0.5;
          }
        });
    Kokkos::fence();
    halo.accumulate(load, adlib::op::add);  // ghost nodes added into their owners
    ok = holds(load, [&](Index g) { return g == 0 || g == n - 1 ? 0.5 : 1.0; }) && ok;

    // Other operations: the largest value any rank holds for a node.
    Kokkos::deep_copy(load.local_view(), 0.0);
    load.fill([](const std::array<Index, 1>& g) { return double(g[0] % 3); });
    halo.accumulate(load, adlib::op::max);  // the ghost copies hold 0 here: nothing changes
    ok = holds(load, [](Index g) { return double(g % 3); }) && ok;

    // Remap::reverse: contributions computed in a cyclic distribution, added
    // back into the block-distributed source they were copied from.
    adlib::DistArray<double, 1> x(line, {adlib::block(n)});
    adlib::DistArray<double, 1> y(line, {adlib::cyclic(n)});
    adlib::Remap to_cyclic(y, x);
    x.fill([](const std::array<Index, 1>& g) { return double(g[0]); });
    to_cyclic.execute(y, x);                  // y[g] = x[g]
    to_cyclic.reverse(x, y, adlib::op::add);  // x[g] += y[g]
    ok = holds(x, [](Index g) { return 2.0 * double(g); }) && ok;
  }
  if (comm.rank() == 0) std::printf("accumulate_example: %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
