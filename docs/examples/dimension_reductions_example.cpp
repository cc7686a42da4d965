// SPDX-License-Identifier: BSD-3-Clause
// Reductions along one dimension: a schedule built once and executed many
// times, the result's layout (replicated over the reduced axis), MAXLOC,
// a mask, a section, the one-shot functions and a misuse.  Every result is
// checked against the global indices; the exit code says whether all checks
// passed.  Runs at any number of ranks.
#include <mpi.h>

#include <cstdint>
#include <cstdio>

#include <adlib/adlib.hpp>

using adlib::Index;

// True on every rank when every element of `r` this rank holds equals
// expected(position) (collective).
template <class U, class Expected>
bool holds(const adlib::DistArray<U, 1>& r, Expected expected) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), r.local_view());
  adlib::DistArray<U, 1, Kokkos::HostSpace> on_host(r, host);
  int wrong = 0, wrong_anywhere = 0;
  on_host.for_each_local([&](const auto& q, U value) { wrong += value != expected(q[0]); });
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, r.comm().get());
  return wrong_anywhere == 0;
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  bool ok = true;

  // A 12 x 5 matrix, rows distributed over a P x 1 grid: a[i][j] = i * 5 + j.
  const Index rows = 12, columns = 5;
  adlib::ProcessGrid grid(comm, {p, 1});
  adlib::DistArray<double, 2> a(grid, {adlib::block(rows), adlib::block(columns)});
  a.fill([&](const auto& g) { return double(g[0] * columns + g[1]); });

  // Built once (collective), executed many times: column sums, the sum
  // along dimension 0.  The result is a length-5 array laid out like a's
  // dimension 1, replicated over the grid's axis 0: every rank holds it.
  adlib::DimensionReduction down(a, 0);
  auto sums = down.make_result();
  for (int step = 0; step < 3; ++step) down.sum(sums, a);
  ok &= holds(sums, [&](Index j) { return double(columns * rows * (rows - 1) / 2 + rows * j); });

  // MAXLOC along dimension 1: the column of each row's largest element
  // (global index, the first one on ties), in an array of std::int64_t.
  adlib::DimensionReduction across(a, 1);
  auto where = across.make_result<std::int64_t>();
  across.maxloc(where, a);
  ok &= holds(where, [&](Index) { return std::int64_t(columns - 1); });

  // With a mask: only the even elements count.
  adlib::DistArray<bool, 2> even(a.layout());
  even.fill([&](const auto& g) { return (g[0] * columns + g[1]) % 2 == 0; });
  auto how_many = across.make_result<std::int64_t>();
  across.count(how_many, a, even);  // nonzero even elements per row
  ok &= holds(how_many, [&](Index i) {
    std::int64_t n = 0;
    for (Index j = 0; j < columns; ++j) n += (i * columns + j) % 2 == 0 && i * columns + j != 0;
    return n;
  });

  // Sections reduce to sections: the sum over every other row of columns 1..3.
  auto part = a.section({adlib::Triplet{0, rows - 1, 2}, adlib::Triplet{1, 3, 1}});
  adlib::DimensionReduction part_down(part, 0);
  auto part_sums = part_down.make_result();
  part_down.sum(part_sums, part);
  ok &= holds(part_sums, [&](Index k) {
    double s = 0;
    for (Index i = 0; i < rows; i += 2) s += double(i * columns + 1 + k);
    return s;
  });

  // One-shot functions plan, allocate, execute and drop the schedule.
  auto largest = adlib::maxval_dim(a, 0);
  ok &= holds(largest, [&](Index j) { return double((rows - 1) * columns + j); });

  // A result of the wrong layout is refused on every rank.
  try {
    down.sum(across.make_result(), a);
    ok = false;
  } catch (const adlib::Error& e) {
    if (comm.rank() == 0) std::printf("refused: %s\n", e.message().c_str());
  }

  if (comm.rank() == 0)
    std::printf("dimension reductions example: %s\n", ok ? "all checks passed" : "FAILED");
  return ok ? 0 : 1;
}
