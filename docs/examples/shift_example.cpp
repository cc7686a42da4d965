// SPDX-License-Identifier: BSD-3-Clause
// Shift in practice: a schedule built once and executed many times in each
// mode, with Fortran's sign (y[i] = x[i + amount]), EOSHIFT's fill value,
// the one-shot eoshift() and cshift(), start / finish, a Skew whose amount
// varies along the other dimension, and the refusal of an in-place shift.  Every result is checked
// against the global indices; the exit code says whether all checks passed.  Runs at any number of
// ranks.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <vector>

#include <adlib/adlib.hpp>

using adlib::Index;

// True on every rank when every element of `a` this rank holds equals
// expected(position) (collective).
template <int Rank, class Expected>
bool holds(const adlib::DistArray<double, Rank>& a, Expected expected) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
  adlib::DistArray<double, Rank, Kokkos::HostSpace> on_host(a, host);
  int wrong = 0, wrong_anywhere = 0;
  on_host.for_each_local([&](const auto& p, double value) {
    if (value != expected(p)) ++wrong;
  });
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, a.comm().get());
  return wrong_anywhere == 0;
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  bool ok = true;

  adlib::ProcessGrid line(comm, {comm.size()});
  const Index n = 12;
  auto blocks = std::make_shared<adlib::BlockRange>(n, line.dim(0));
  adlib::DistArray<double, 1> x(line, {blocks}), y(line, {blocks});
  x.fill([](const auto& g) { return double(g[0]); });

  // y[i] = x[i + 1], Fortran's sign: built once (collective, planned from
  // the layout), executed many times.  In keep mode y[n - 1], which nothing
  // shifts into, keeps its value.
  adlib::Shift next(y, x, 1, 0, adlib::ShiftMode::keep);
  y.fill([](const auto&) { return -1.0; });
  for (int step = 0; step < 10; ++step) next.execute(y, x);
  ok &= holds(y, [&](const auto& g) { return g[0] == n - 1 ? -1.0 : double(g[0] + 1); });

  // End-off shifts (EOSHIFT) fill what nothing shifts into with T{} (zero)
  // or a value of your choice; cyclic shifts (CSHIFT) wrap around.  Amounts
  // may exceed a local block or the extent.
  adlib::eoshift(y, x, -5, 0);  // y[i] = x[i - 5], 0 for i < 5
  ok &= holds(y, [&](const auto& g) { return g[0] >= 5 ? double(g[0] - 5) : 0.0; });
  adlib::EOShift previous(y, x, -5, 0, -1.0);  // the same, -1 for i < 5
  previous.execute(y, x);
  ok &= holds(y, [&](const auto& g) { return g[0] >= 5 ? double(g[0] - 5) : -1.0; });
  adlib::cshift(y, x, n + 2, 0);  // y[i] = x[(i + 2) mod n]
  ok &= holds(y, [&](const auto& g) { return double((g[0] + 2) % n); });

  // start() posts the messages and does the local copies; work that touches
  // neither array can run before finish().
  adlib::CShift around(y, x, 1, 0);
  around.start(y, x);
  double unrelated_work = 0.0;
  for (int i = 1; i <= 1000; ++i) unrelated_work += 1.0 / i;
  around.finish();
  ok &= holds(y, [&](const auto& g) { return double((g[0] + 1) % n); });
  ok &= unrelated_work > 0.0;

  // Skew: row r of a rows x columns matrix shifts cyclically by r along the
  // columns, b[r][j] = a[r][(j + r) mod columns] (amounts are indexed by the
  // other dimensions' positions).
  const Index rows = 4, columns = 6;
  adlib::ProcessGrid grid(comm, {1, comm.size()});
  adlib::DistArray<double, 2> a(grid, {std::make_shared<adlib::CollapsedRange>(rows),
                                       std::make_shared<adlib::CyclicRange>(columns, grid.dim(1))});
  adlib::DistArray<double, 2> b(a.layout());
  a.fill([&](const auto& g) { return double(g[0] * columns + g[1]); });
  const std::vector<Index> row_amounts = {0, 1, 2, 3};
  adlib::Skew skew(b, a, row_amounts, 1, adlib::ShiftMode::cyclic);
  skew.execute(b, a);
  ok &= holds(b, [&](const auto& g) { return double(g[0] * columns + (g[1] + g[0]) % columns); });

  // Shifting an array into itself is refused on every rank.
  try {
    adlib::cshift(x, x, 1, 0);
    ok = false;
  } catch (const adlib::Error& e) {
    if (comm.rank() == 0) std::printf("refused: %s\n", e.message().c_str());
  }

  if (comm.rank() == 0) std::printf("shift example: %s\n", ok ? "all checks passed" : "FAILED");
  return ok ? 0 : 1;
}
