// SPDX-License-Identifier: BSD-3-Clause
// The example of docs/depth_halo.md: a ring of cells with scrambled global
// ids, dealt to the ranks in uneven arcs, halos of depth 1 and 2 by
// distance along the ring; an exchange by depth with dirty tracking,
// several fields, columns of levels, the reverse accumulation and the owned
// sum, each checked against the values computed from the global ids.
#include <adlib/adlib.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr std::int64_t kCells = 40;

// Cell c's global id: an affine bijection of 0 .. kCells-1 (ids carry no
// geometry, as in a real unstructured mesh).
std::int64_t id_of(std::int64_t cell) {
  return (cell * 7 + 3) % kCells;
}

// Rank r of P owns the arc [first(r), first(r + 1)) of the ring.
std::int64_t first(int r, int P) {
  return kCells * r * (r + 1) / (P * (P + 1));
}

bool holds(bool condition, const char* what) {
  if (!condition) std::printf("wrong: %s\n", what);
  return condition;
}

}  // namespace

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), P = comm.size();
  const std::int64_t begin = first(me, P), end = first(me + 1, P);

  // This rank's owned ids, then the ids one and two cells beyond its arc
  // (none when it owns the whole ring or nothing).
  std::vector<std::int64_t> owned, depth1, depth2;
  for (std::int64_t c = begin; c < end; ++c) owned.push_back(id_of(c));
  const std::int64_t arc = end - begin;
  for (std::int64_t d = 1; d <= 2 && arc > 0 && arc + 2 * d <= kCells; ++d) {
    auto& depth = d == 1 ? depth1 : depth2;
    depth.push_back(id_of((begin - d + kCells) % kCells));
    depth.push_back(id_of((end - 1 + d) % kCells));
  }

  // Each cell holds a column of 3 levels; level k of cell id g is 10 g + k.
  const adlib::Index levels = 3;
  adlib::UnstructuredLayout layout(comm, owned, {depth1, depth2}, levels);
  adlib::UnstructuredField<double> u(layout), v(layout);
  auto value = [](std::int64_t id, adlib::Index k) { return double(10 * id + k); };
  auto fill_owned = [&](const adlib::UnstructuredField<double>& f) {
    // (entry, level); owned entries first; written on the host through a mirror
    auto view = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.local_view());
    for (adlib::Index e = 0; e < layout.owned_count(); ++e)
      for (adlib::Index k = 0; k < levels; ++k) view(e, k) = value(layout.id(e), k);
    Kokkos::deep_copy(f.local_view(), view);
  };
  fill_owned(u);
  fill_owned(v);

  adlib::DepthHalo halo(u);  // collective: owners found, schedules built once
  halo.execute(1, u);        // depth 1 of u filled; u clean to depth 1
  halo.execute(2, u, v);     // u brings depth 2 only, v depths 1 and 2
  halo.execute(2, u);        // clean: nothing is sent

  bool ok = holds(!u.is_dirty(2) && !v.is_dirty(1), "fields clean after the exchange");
  auto uv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.local_view());
  for (adlib::Index e = layout.owned_count(); e < layout.entries(); ++e)
    for (adlib::Index k = 0; k < levels; ++k)
      ok &= holds(uv(e, k) == value(layout.id(e), k), "halo value from its owner");

  // The same layout from LFRic's form: every local id in local order and
  // where each part ends; the list is taken over, not copied.
  std::vector<std::int64_t> local_ids = layout.ids();
  std::vector<adlib::Index> depth_end = {layout.halo_end(0), layout.halo_end(1),
                                         layout.halo_end(2)};
  const auto same = adlib::UnstructuredLayout::from_local_ids(comm, std::move(local_ids),
                                                              std::move(depth_end), levels);
  ok &= holds(same.ids() == layout.ids() && same.halo_end(1) == layout.halo_end(1),
              "the same layout from the local order");

  u.set_dirty();  // owners changed their values: every depth is stale
  ok &= holds(u.is_dirty(1), "dirty after set_dirty()");

  // Reverse: every rank's depth-1 halo values are added into their owners.
  const double before = adlib::global_sum(u);
  halo.accumulate(1, u, adlib::op::add);
  Kokkos::deep_copy(uv, u.local_view());
  double halo_total = 0;  // what this rank's depth-1 entries hold
  for (adlib::Index e = layout.owned_count(); e < layout.halo_end(1); ++e)
    for (adlib::Index k = 0; k < levels; ++k) halo_total += uv(e, k);
  double added = 0;
  MPI_Allreduce(&halo_total, &added, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  ok &= holds(adlib::global_sum(u) == before + added, "accumulate adds each halo value once");

  int all = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (me == 0) std::printf("depth_halo_example: %s\n", every ? "ok" : "FAILED");
  return every ? 0 : 1;
}
