// SPDX-License-Identifier: BSD-3-Clause
// Whole-array reductions: a 2-D array distributed by blocks of rows and
// cyclically over columns, reduced with one ArrayReduction planned once
// (sum, maxval, maxloc, dot, a masked sum, count), with the one-shot
// functions, and each rank's own values combined in one line (max_over,
// sum_over, reduce_over).  Every rank checks the results against closed
// forms.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cstdio>

#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const adlib::Index n = 30, m = 7;
  int wrong = 0;
  {
    using Position = std::array<adlib::Index, 2>;
    adlib::ProcessGrid grid(comm, {comm.size(), 1});
    adlib::DistArray<double, 2> u(grid, {adlib::block(n).ghosts(1), adlib::cyclic(m)});
    adlib::DistArray<bool, 2> wet(grid, {adlib::block(n).ghosts(1), adlib::cyclic(m)});
    u.fill([&](const Position& g) { return double(g[0] * m + g[1]); });
    wet.fill([](const Position& g) { return g[1] == 0; });

    // Planned once for u's layout; each call is collective and gives the
    // same bits on every rank.
    adlib::ArrayReduction reduce(u);
    const double total = reduce.sum(u);  // ghosts never count
    const double peak = reduce.maxval(u);
    const adlib::Located<double, 2> where = reduce.maxloc(u);  // {n - 1, m - 1}
    const double norm2 = reduce.dot(u, u);
    const double wet_total = reduce.sum(u, wet);  // where wet is true
    const adlib::Index wet_cells = reduce.count(wet);

    // One-shot forms plan, reduce and drop the plan.
    const double again = adlib::sum(u);
    const bool any_wet = adlib::any(wet);

    const double cells = double(n * m);
    double squares = 0, first_column = 0;
    for (adlib::Index k = 0; k < n * m; ++k) squares += double(k) * double(k);
    for (adlib::Index i = 0; i < n; ++i) first_column += double(i * m);
    if (total != cells * (cells - 1) / 2 || again != total) ++wrong;
    if (peak != cells - 1 || where.location[0] != n - 1 || where.location[1] != m - 1) ++wrong;
    if (norm2 != squares || wet_total != first_column || wet_cells != n || !any_wet) ++wrong;

    // A section reduces like a whole array: every other row, reversed.
    const auto rows = u.section({adlib::Triplet{n - 1, 0, -2}, adlib::Triplet::all(m)});
    const adlib::Located<double, 2> low = adlib::minloc(rows);  // row n - 1 - 2 * 14
    if (low.value != double((n - 1 - 2 * 14) * m) || low.location[0] != 14) ++wrong;

    // One value per rank, combined over the grid in one line: each rank
    // reduces what it owns, then max_over / sum_over / reduce_over combine
    // the ranks.  A rank that owns nothing passes the operation's identity
    // (Kokkos::Max leaves lowest() in peak_here for an empty box).
    const adlib::LocalBox<2> owned = u.owned_box();
    const auto values = u.local_view();
    double peak_here = 0;
    Kokkos::parallel_reduce(
        "peak",
        Kokkos::MDRangePolicy<Kokkos::Rank<2>>({owned.begin(0), owned.begin(1)},
                                               {owned.end(0), owned.end(1)}),
        KOKKOS_LAMBDA(adlib::Index i, adlib::Index j, double& peak) {
          if (values(i, j) > peak) peak = values(i, j);
        },
        Kokkos::Max<double>(peak_here));
    const double peak_everywhere = adlib::max_over(grid, peak_here);       // = reduce.maxval(u)
    const adlib::Index owned_cells = adlib::sum_over(grid, owned.size());  // n * m
    const adlib::Index fewest = adlib::reduce_over(grid, owned.size(), adlib::op::min);
    if (peak_everywhere != peak || owned_cells != n * m || fewest * comm.size() > n * m) ++wrong;
  }
  if (comm.rank() == 0) std::printf(wrong ? "reductions: WRONG\n" : "reductions: ok\n");
  return wrong ? 1 : 0;
}
