// SPDX-License-Identifier: BSD-3-Clause
// WriteHalo in practice: ghost-extended ranges, the full halo of a 2-D grid
// with a stencil overlapping the exchange (start / finish), explicit widths,
// boundaries and stencils, ghosts on irregular and collapsed ranges, widths
// wider than a neighbour's block, ghosts wider than the extent, the mirror
// boundary, reuse across arrays, and what happens on
// bad input.  Every local cell (ghosts included) is checked against the
// global indices; the exit code says whether all checks passed.  Runs at any
// number of ranks.
#include <mpi.h>

#include <array>
#include <cstdio>
#include <memory>
#include <vector>

#include <adlib/adlib.hpp>

using adlib::Boundary;
using adlib::Index;
using View2 = adlib::DistArray<double, 2>::view_type;

// The value of global element g: 1 + its C-order linear index (never 0, the
// value of a freshly allocated cell that no exchange has written).
template <int Rank>
double value_of(const adlib::DistArray<double, Rank>& a,
                const std::array<Index, std::size_t(Rank)>& g) {
  Index linear = 0;
  for (int d = 0; d < Rank; ++d) linear = linear * a.extent(d) + g[d];
  return double(linear + 1);
}

// True on every rank when every element of `a` this rank owns equals
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

// True on every rank when every local cell of `a`, ghost cells included,
// holds what the halo `h` puts there (collective): value_of(g) for an owned
// element and for a ghost copy of g that the exchange reaches (wrapped
// around where the boundary is cyclic, reflected where it is mirror), 0 for
// a ghost cell it leaves alone.  The owned box gives each local cell's
// global index (unwrapped for ghost cells).
template <int Rank>
bool cells_hold(const adlib::DistArray<double, Rank>& a, const adlib::HaloWidths& h) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
  const adlib::LocalBox<Rank> owned = a.owned_box();
  int wrong = 0, wrong_anywhere = 0;
  for (std::size_t flat = 0; a.holds_data() && flat < host.span(); ++flat) {
    std::array<Index, Rank> g{};
    Index rest = Index(flat);
    int ghost_dimensions = 0;
    bool reached = true;
    for (int d = Rank - 1; d >= 0; --d) {
      const Index local = rest % Index(host.extent(d));
      rest /= Index(host.extent(d));
      const Index n = a.extent(d);
      g[d] = owned.global(d, local);
      if (owned.contains(d, local)) continue;  // owned along d
      ++ghost_dimensions;
      const bool within = local < owned.begin(d) ? local >= owned.begin(d) - h.low[d]
                                                 : local < owned.end(d) + h.high[d];
      if (!within || h.modes[d] == Boundary::skip) reached = false;
      if (g[d] < 0 || g[d] >= n) {
        if (h.modes[d] == Boundary::cyclic) g[d] = (g[d] % n + n) % n;
        if (h.modes[d] == Boundary::mirror) g[d] = g[d] < 0 ? -g[d] : 2 * (n - 1) - g[d];
        if (g[d] < 0 || g[d] >= n) reached = false;  // edge, or reflected outside too
      }
    }
    if (ghost_dimensions > 1 && h.stencil == adlib::Stencil::faces) reached = false;
    if (host.data()[flat] != (reached ? value_of(a, g) : 0.0)) ++wrong;
  }
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, a.comm().get());
  return wrong_anywhere == 0;
}

// next = the sum of the four neighbours of u, at the local cells of `box`.
void stencil(const View2& u, const View2& next, const adlib::LocalBox<2>& box) {
  if (box.empty()) return;
  Kokkos::parallel_for(
      "stencil",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({box.begin(0), box.begin(1)},
                                             {box.end(0), box.end(1)}),
      KOKKOS_LAMBDA(Index i, Index j) {
        next(i, j) = u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1);
      });
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  bool ok = true;

  // A 2-D grid of processes.  Rows carry one ghost cell on each side and
  // stop at the edges of the domain; columns carry one on each side and
  // wrap around.
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  const Index n = 12, m = 10;
  adlib::DistArray<double, 2> u(grid,
                                {adlib::block(n).ghosts(1), adlib::block(m).ghosts(1).periodic()});
  adlib::DistArray<double, 2> next(u.layout());
  u.fill([&](const auto& g) { return value_of(u, g); });

  // Every ghost cell, cyclic where the range is periodic, corners included.
  // The element type and rank come from u: a WriteHalo<double, 2>.
  adlib::WriteHalo halo(u);
  // The owned cells, split into those whose neighbours are all owned and
  // the four strips next to the ghosts (some empty on thin blocks).
  const adlib::LocalBox<2> owned = u.owned_box();
  const View2 uv = u.local_view(), nv = next.local_view();
  halo.start(u);                                 // messages posted, local copies done
  stencil(uv, nv, owned.interior(1));            // cells whose neighbours are all owned
  halo.finish();                                 // ghost cells filled
  const auto strips = owned.boundary_strips(1);  // then the cells next to the ghosts
  for (int k = 0; k < int(strips.size()); ++k) stencil(uv, nv, strips[k]);

  ok &= cells_hold(u, halo.halo());
  // Rows outside the domain are ghosts the edge boundary leaves alone: they
  // keep their 0 (a zero boundary condition); columns wrap around.
  auto u_at = [&](Index i, Index j) {
    return i < 0 || i >= n ? 0.0 : value_of(u, {i, (j + m) % m});
  };
  ok &= holds(next, [&](const auto& g) {
    return u_at(g[0] - 1, g[1]) + u_at(g[0] + 1, g[1]) + u_at(g[0], g[1] - 1) +
           u_at(g[0], g[1] + 1);
  });

  // One schedule serves every array of the planned layout.
  adlib::DistArray<double, 2> w(u.layout());
  w.fill([&](const auto& g) { return value_of(w, g); });
  halo.execute(w);
  ok &= cells_hold(w, halo.halo());
  adlib::write_halo(w);  // one-shot: plan, execute once, drop
  ok &= cells_hold(w, halo.halo());
  // Several arrays of the layout in one exchange: one message per peer
  // carries the halos of all of them.
  adlib::DistArray<double, 2> x(u.layout()), y(u.layout()), z(u.layout());
  for (auto* field : {&x, &y, &z}) field->fill([&](const auto& g) { return value_of(x, g); });
  halo.execute(x, y, z);
  for (auto* field : {&x, &y, &z}) ok &= cells_hold(*field, halo.halo());

  // What one exchange moves, summed over the ranks.
  const auto& plan = halo.schedule().plan();
  long moved[3] = {long(plan.send_messages().size()), long(plan.send_count()),
                   long(plan.local_count())};
  MPI_Allreduce(MPI_IN_PLACE, moved, 3, MPI_LONG, MPI_SUM, comm.get());
  if (comm.rank() == 0)
    std::printf("full halo of u: %ld messages, %ld elements sent, %ld copied locally\n", moved[0],
                moved[1], moved[2]);

  // Ghosts on any contiguous range (block, irregular_block, collapsed):
  // irregular row blocks of 4 and 1 elements, each with 2 ghost rows on each
  // side (a block of 1 row gets its ghosts from next-nearest processes), and
  // a collapsed, periodic column dimension with one ghost column on each side.
  adlib::ProcessGrid line(comm, {p});
  std::vector<Index> sizes(p);
  for (int c = 0; c < p; ++c) sizes[c] = c % 2 == 0 ? 4 : 1;
  adlib::DistArray<double, 2> b(line, {adlib::irregular_block(sizes).ghosts(2).periodic(),
                                       adlib::collapsed(m).ghosts(1).periodic()});

  // Explicit low / high widths, a Boundary per dimension, and the stencil.
  adlib::WriteHalo box(b);  // rows 2/2 and columns 1/1, cyclic, corners
  adlib::WriteHalo faces(b, {2, 1}, {1, 0}, {Boundary::cyclic, Boundary::edge},
                         adlib::Stencil::faces);
  adlib::WriteHalo columns_only(b, {0, 1}, {0, 1}, {Boundary::skip, Boundary::cyclic});
  for (adlib::WriteHalo<double, 2>* schedule : {&box, &faces, &columns_only}) {
    adlib::DistArray<double, 2> c(b.layout());  // a fresh array of b's layout
    c.fill([&](const auto& g) { return value_of(c, g); });
    schedule->execute(c);
    ok &= cells_hold(c, schedule->halo());
  }

  // Mirror boundary (PETSc's DM_BOUNDARY_MIRROR) and ghosts wider than the
  // extent: 3 rows with 4 ghost rows on each side.  With mirror the ghost
  // row at -k holds row k and the one at 2+k holds row 2-k, as far as the
  // reflection stays inside the rows; edge leaves every outside row alone.
  adlib::DistArray<double, 2> r(grid,
                                {adlib::block(3).ghosts(4), adlib::block(m).ghosts(1).periodic()});
  adlib::WriteHalo mirror(r, {4, 1}, {4, 1}, {Boundary::mirror, Boundary::cyclic});
  adlib::WriteHalo edge(r, {4, 1}, {4, 1}, {Boundary::edge, Boundary::cyclic});
  for (adlib::WriteHalo<double, 2>* schedule : {&mirror, &edge}) {
    adlib::DistArray<double, 2> c(r.layout());
    c.fill([&](const auto& g) { return value_of(c, g); });
    schedule->execute(c);
    ok &= cells_hold(c, schedule->halo());
  }
  // On one process (rank 0), 5 elements with 3 mirror ghosts on each side;
  // it prints global index:value, each value 1 + the index it copies.
  adlib::ProcessGrid solo(comm, {1});
  adlib::DistArray<double, 1> s(solo, {adlib::block(5).ghosts(3)});
  s.fill([&](const auto& g) { return value_of(s, g); });
  adlib::WriteHalo reflect(s, {3}, {3}, {Boundary::mirror});
  reflect.execute(s);
  ok &= cells_hold(s, reflect.halo());
  if (s.holds_data()) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.local_view());
    const adlib::LocalBox<1> all = s.ghost_box();
    std::printf("mirror:");
    for (Index l = all.begin(0); l < all.end(0); ++l)
      std::printf(" %lld:%g", static_cast<long long>(all.global(0, l)), host(l));
    std::printf("\n");
  }

  // Bad input throws the same adlib::Error on every rank.
  using Halo = adlib::WriteHalo<double, 2>;
  auto refused = [&](const char* what, auto&& attempt) {
    try {
      attempt();
      ok = false;
    } catch (const adlib::Error& e) {
      if (comm.rank() == 0) std::printf("%s: %s\n", what, e.message().c_str());
    }
  };
  refused("too wide", [&] { Halo(u, {2, 1}, {1, 1}, {Boundary::edge, Boundary::cyclic}); });
  refused("not periodic", [&] { Halo(u, {1, 1}, {1, 1}, {Boundary::cyclic, Boundary::cyclic}); });
  refused("section", [&] { Halo(u.section({adlib::Triplet{0, n - 1, 2}, {0, m - 1, 1}})); });
  if (p > 1)  // every rank must pass the same arguments
    refused("differ", [&] {
      Halo(u, {comm.rank() == 0 ? 1 : 0, 1}, {1, 1}, {Boundary::edge, Boundary::cyclic});
    });
  refused("execute", [&] { halo.execute(b); });  // not the planned layout

  if (comm.rank() == 0)
    std::printf("write_halo example: %s\n", ok ? "all checks passed" : "FAILED");
  return ok ? 0 : 1;
}
