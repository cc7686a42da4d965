// SPDX-License-Identifier: BSD-3-Clause
// Broadcast of DistArray sections against serial references computed from
// global indices.  Random layouts of 1 to 3 dimensions (every Range kind,
// ghosts, uneven and empty blocks, grids smaller than the world, replicated
// arrays) are drawn from a seed every rank knows; each section is drawn
// inside the elements of one random owner (strided, negative strides, single
// elements, empty), with the reference model of test_layouts.hpp.  Every
// ghost cell holds a poison value, and every process outside the group a
// destination that must stay untouched.  Every broadcast algorithm gives the
// same answer; the owner sits at every position; other groups, unstructured
// ranges (sections that are no strided box in the owner's memory) and misuse
// (an error on every rank) have tests of their own.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <adlib/collectives/broadcast.hpp>
#include <adlib/ranges/collapsed_range.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/ranges/unstructured_range.hpp>
#include "expect_error_everywhere.hpp"
#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_broadcast {

namespace {

using adlib::Index;
using adlib::Triplet;
using adlib_test::Kind;
using adlib_test::RangeSpec;
using adlib_test::Rng;
using adlib_test::SideSpec;
using Space = Kokkos::DefaultExecutionSpace::memory_space;

template <int Rank>
using Array = adlib::DistArray<std::int64_t, Rank, Space>;
template <int Rank>
using View = typename adlib::Broadcast<std::int64_t, Rank, Space>::view_type;

constexpr std::int64_t kPoison = -1000000;  // ghost cells and unused elements
constexpr std::int64_t kUntouched = -777;   // destinations outside the group

// The element at global index tuple g of a parent of `shape`, times `scale`.
std::int64_t value_at(const std::vector<Index>& g, const std::vector<Index>& shape, int scale) {
  Index l = 0;
  for (std::size_t d = 0; d < g.size(); ++d) l = l * shape[d] + g[d];
  return (l + 1) * scale;
}

// A whole array of `parent` filled with value_at (ghosts poisoned).
template <int Rank>
Array<Rank> make_whole(const adlib::ArrayLayout& parent, int scale) {
  Array<Rank> whole(parent);
  Kokkos::deep_copy(whole.local_view(), kPoison);
  const std::vector<Index> shape = parent.shape();
  whole.fill([&](const std::array<Index, Rank>& p) {
    return value_at(std::vector<Index>(p.begin(), p.end()), shape, scale);
  });
  return whole;
}

template <int Rank, std::size_t... I>
View<Rank> make_view(const std::vector<Index>& shape, std::index_sequence<I...>) {
  View<Rank> v("destination", static_cast<std::size_t>(shape[I])...);
  Kokkos::deep_copy(v, kUntouched);
  return v;
}
template <int Rank>
View<Rank> make_view(const std::vector<Index>& shape) {
  return make_view<Rank>(shape, std::make_index_sequence<Rank>{});
}

// Does `got` (the section's shape, C order) hold the section `triplets` of
// a parent of `parent_shape` (member), or is it empty or kUntouched
// everywhere (not)?
template <class V>
void expect_section(const V& got, const std::vector<Triplet>& triplets,
                    const std::vector<Index>& parent_shape, int scale, bool member,
                    const std::string& what) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  const int rank = static_cast<int>(triplets.size());
  Index n = 1;
  for (const Triplet& t : triplets) n *= t.count();
  if (member) {
    ASSERT_EQ(static_cast<Index>(host.size()), n) << what;
  }
  n = static_cast<Index>(host.size());  // outside the group: empty, or untouched
  int wrong = 0;
  for (Index l = 0; l < n && wrong < 3; ++l) {
    std::vector<Index> g(static_cast<std::size_t>(rank));
    Index rest = l;
    for (int d = rank - 1; d >= 0; --d) {
      const Index c = triplets[static_cast<std::size_t>(d)].count();
      g[static_cast<std::size_t>(d)] = triplets[static_cast<std::size_t>(d)].at(rest % c);
      rest /= c;
    }
    const std::int64_t expected = member ? value_at(g, parent_shape, scale) : kUntouched;
    if (host.data()[l] != expected) {
      ++wrong;
      ADD_FAILURE() << what << ": element " << l << " is " << host.data()[l] << ", expected "
                    << expected;
    }
  }
}

// How many ranks of the world say yes.
int count_everywhere(bool yes) {
  int mine = yes ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

// A section of range `r` inside the elements of one coordinate: a random
// start among them, a random stride, as long as that coordinate owns the
// elements (a single element now and then, empty when the range is).
Triplet section_of_one_owner(Rng& rng, const RangeSpec& r) {
  if (r.extent == 0) return Triplet::empty();
  std::vector<int> holders;
  for (int c = 0; c < r.processes; ++c)
    if (r.local_count(c) > 0) holders.push_back(c);
  const int c = rng.pick(holders);
  std::vector<Index> owned;
  for (Index g = 0; g < r.extent; ++g)
    if (r.owner(g).coord == c) owned.push_back(g);
  const Index first = rng.pick(owned);
  const Index period = r.interval() ? 1 : r.tile() * r.processes;
  const Index stride =
      rng.pick(std::vector<Index>{1, -1, 1, -1, 2, -2, 3, period, -period, 2 * period, period + 1});
  const Index wanted = rng.chance(10) ? 1 : rng.uniform(2, 9);
  Index n = 1;
  for (; n < wanted; ++n) {
    const Index g = first + n * stride;
    if (g < 0 || g >= r.extent || r.owner(g).coord != c) break;
  }
  return Triplet{first, first + (n - 1) * stride, stride};
}

// A random layout of `shape` whose section has a single owner.
SideSpec random_spec(Rng& rng, const std::vector<Index>& shape, int P, Kind first_kind) {
  adlib_test::GenOptions options;
  options.section_percent = 0;
  SideSpec spec =
      adlib_test::random_side(rng, shape, adlib_test::random_grid(rng, P, 3), first_kind, options);
  spec.section.clear();
  for (const RangeSpec& r : spec.ranges) spec.section.push_back(section_of_one_owner(rng, r));
  spec.sectioned = true;
  return spec;
}

template <int Rank>
std::array<Triplet, Rank> as_array(const std::vector<Triplet>& v) {
  std::array<Triplet, Rank> a;
  for (int d = 0; d < Rank; ++d) a[d] = v[static_cast<std::size_t>(d)];
  return a;
}

template <int Rank>
void run_config(const adlib::Comm& comm, const SideSpec& spec, const adlib::Configuration& config) {
  adlib::ProcessGrid grid(comm, spec.grid_shape);
  const adlib::ArrayLayout parent = adlib_test::make_parent(spec, grid);
  const std::vector<Index> parent_shape = parent.shape();
  const bool member = parent.holds_data(comm.rank());
  const Array<Rank> a = make_whole<Rank>(parent, 1), b = make_whole<Rank>(parent, 3);
  const Array<Rank> sa = a.section(as_array<Rank>(spec.section));
  const Array<Rank> sb = b.section(as_array<Rank>(spec.section));
  const std::vector<Index> shape = sa.layout().shape();

  adlib::Broadcast<std::int64_t, Rank, Space> broadcast(sa.layout(), config);
  EXPECT_EQ(broadcast.member(), member);
  EXPECT_EQ(count_everywhere(broadcast.owner()), 1) << "one process sends";
  View<Rank> into = make_view<Rank>(shape);
  for (int repeat = 0; repeat < 2; ++repeat) {
    broadcast.execute(sa, into);
    expect_section(into, spec.section, parent_shape, 1, member, "execute");
    // Another array of the same layout, through the same schedule.
    broadcast.execute(sb, into);
    expect_section(into, spec.section, parent_shape, 3, member, "second array");
  }
  expect_section(broadcast.execute(sa), spec.section, parent_shape, 1, member, "execute(section)");
  expect_section(adlib::broadcast(sb), spec.section, parent_shape, 3, member, "one-shot");
  if (sa.layout().size() != 1) return;
  // One element: the scalar forms.
  std::vector<Index> g;
  for (const Triplet& t : spec.section) g.push_back(t.lo);
  const std::int64_t expected = member ? value_at(g, parent_shape, 1) : 0;
  EXPECT_EQ(broadcast.value(sa), expected);
  if constexpr (Rank == 1) {
    EXPECT_EQ(adlib::broadcast_value(a, g[0]), expected);
  }
  if constexpr (Rank == 2) {
    EXPECT_EQ(adlib::broadcast_value(a, g[0], g[1]), expected);
  }
  if constexpr (Rank == 3) {
    EXPECT_EQ(adlib::broadcast_value(a, g[0], g[1], g[2]), expected);
  }
}

void run_any_rank(const adlib::Comm& comm, const SideSpec& spec,
                  const adlib::Configuration& config) {
  switch (spec.rank()) {
    case 1:
      return run_config<1>(comm, spec, config);
    case 2:
      return run_config<2>(comm, spec, config);
    default:
      return run_config<3>(comm, spec, config);
  }
}

std::vector<Index> random_shape(Rng& rng, int rank) {
  std::vector<Index> shape;
  for (int d = 0; d < rank; ++d)
    shape.push_back(rng.chance(5) ? 0 : rng.uniform(1, rank == 1 ? 40 : rank == 2 ? 14 : 7));
  return shape;
}

TEST(Broadcast, RandomSectionsAgainstTheReference) {
  adlib::Comm comm(MPI_COMM_WORLD);
  Rng rng(20240612);
  const adlib::Configuration config = adlib::Configuration::environment();
  for (int i = 0; i < 120; ++i) {
    const int rank = 1 + i % 3;
    const SideSpec spec =
        random_spec(rng, random_shape(rng, rank), comm.size(), adlib_test::kind_at(i / 3));
    SCOPED_TRACE("config " + std::to_string(i) + ": " + spec.describe());
    run_any_rank(comm, spec, config);
    if (count_everywhere(::testing::Test::HasFailure()) > 0) return;
  }
}

TEST(Broadcast, EveryAlgorithmGivesTheSameAnswer) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (adlib::BroadcastAlgorithm algorithm :
       {adlib::BroadcastAlgorithm::automatic, adlib::BroadcastAlgorithm::mpi,
        adlib::BroadcastAlgorithm::binomial_tree, adlib::BroadcastAlgorithm::node_aware}) {
    Rng rng(78);
    adlib::Configuration config = adlib::Configuration::environment();
    config.broadcast = algorithm;
    config.ranks_per_node = 2;
    for (int i = 0; i < 12; ++i) {
      const int rank = 1 + i % 3;
      const SideSpec spec =
          random_spec(rng, random_shape(rng, rank), comm.size(), adlib_test::kind_at(i));
      SCOPED_TRACE(std::string(adlib::algorithm_name(algorithm)) + " config " + std::to_string(i) +
                   ": " + spec.describe());
      run_any_rank(comm, spec, config);
      if (count_everywhere(::testing::Test::HasFailure()) > 0) return;
    }
  }
}

TEST(Broadcast, OwnerAtEveryPosition) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid line(comm, {P});
  const Index n = 4 * P + 3;
  const Array<1> x = make_whole<1>(Array<1>(line, {adlib::block(n).ghosts(1)}).layout(), 1);
  // Rows of a block of rows: a row is contiguous, a column piece strided.
  adlib::ProcessGrid column(comm, {P, 1});
  const Index rows = 2 * P + 1, cols = 5;
  const Array<2> m =
      make_whole<2>(Array<2>(column, {adlib::block(rows), adlib::block(cols)}).layout(), 1);
  for (int q = 0; q < P; ++q) {
    SCOPED_TRACE("owner " + std::to_string(q));
    const Index lo = q * n / P, hi = (q + 1) * n / P - 1;  // q's block
    for (const Triplet& t : {Triplet{lo, hi, 1}, Triplet{hi, lo, -1}, Triplet{lo, hi, 2}}) {
      const Array<1> s = x.section({t});
      adlib::Broadcast from(s);
      EXPECT_EQ(from.owner(), comm.rank() == q);
      // Only the contiguous section travels from the array itself.
      if (from.owner()) {
        EXPECT_EQ(from.sends_in_place(), t.stride == 1 && t.count() > 1);
      }
      expect_section(from.execute(s), {t}, {n}, 1, true, "vector " + t.to_string());
    }
    const Index row = q * rows / P;
    const std::vector<Triplet> pieces[] = {
        {Triplet{row, row, 1}, Triplet::all(cols)},
        {Triplet{row, row, 1}, Triplet{cols - 1, 0, -2}},
        {Triplet{row, (q + 1) * rows / P - 1, 1}, Triplet{1, 3, 1}}};
    for (const auto& piece : pieces) {
      const Array<2> s = m.section({piece[0], piece[1]});
      expect_section(adlib::broadcast(s), piece, {rows, cols}, 1, true, "matrix");
    }
    EXPECT_EQ(adlib::broadcast_value(m, row, Index(2)), (row * cols + 2) + 1);
  }
}

TEST(Broadcast, ReplicasAndOtherGroups) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  // Replicated over grid axis 0, distributed over axis 1.
  const std::vector<int> shape = P % 2 == 0 ? std::vector<int>{2, P / 2} : std::vector<int>{P, 1};
  adlib::ProcessGrid grid(comm, shape);
  const Index n = 23;
  const Array<1> a = make_whole<1>(Array<1>(grid, {adlib::cyclic(n).axis(1)}).layout(), 1);
  const int last = shape[1] - 1;           // the last coordinate along axis 1 holds ...
  const Triplet t{last, n - 1, shape[1]};  // ... these elements
  const Array<1> s = a.section({t});
  // The array's group: every process, replica 0 sends.
  adlib::Broadcast everyone(s);
  EXPECT_EQ(everyone.owner(), comm.rank() == grid.rank_of({0, last}));
  expect_section(everyone.execute(s), {t}, {n}, 1, true, "replicated");
  // The last row only: its own copy sends, the other rows take no part.
  const adlib::Group row = adlib::Group(grid).restrict(0, shape[0] - 1);
  adlib::Broadcast last_row(s, row);
  const bool in_row = row.contains(comm.rank());
  EXPECT_EQ(last_row.owner(), comm.rank() == grid.rank_of({shape[0] - 1, last}));
  View<1> into = make_view<1>({t.count()});
  last_row.execute(s, into);
  expect_section(into, {t}, {n}, 1, in_row, "last row");
  // An array on the first row only, sent to the whole grid: the processes
  // that hold none of it receive too.
  const adlib::Group first_row = adlib::Group(grid).restrict(0, 0);
  const Array<1> b = make_whole<1>(Array<1>(first_row, {adlib::block(n).axis(1)}).layout(), 1);
  const Array<1> piece = b.section({Triplet{0, n / shape[1] - 1, 1}});
  expect_section(adlib::broadcast(piece, adlib::Group(grid)), {Triplet{0, n / shape[1] - 1, 1}},
                 {n}, 1, true, "to the whole grid");
  // A grid smaller than the world: the ranks beyond it take no part.
  if (P > 1) {
    adlib::ProcessGrid small(comm, {P - 1});
    const Array<1> c = make_whole<1>(Array<1>(small, {adlib::block(n)}).layout(), 1);
    const Array<1> cs = c.section({Triplet{n - 1, n - 2, -1}});
    adlib::Broadcast part(cs);
    View<1> got = make_view<1>({2});
    part.execute(cs, got);
    expect_section(got, {Triplet{n - 1, n - 2, -1}}, {n}, 1, comm.rank() < P - 1, "small grid");
  }
}

TEST(Broadcast, UnstructuredSectionsAreGathered) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid grid(comm, {P, 1});
  // Process r holds the indices g = r mod P in a scrambled local order, so
  // a strided section of them is no strided box in its memory.
  const Index n = 5 * P + 2;
  std::vector<Index> mine;
  for (Index g = comm.rank(); g < n; g += P) mine.push_back(g);
  for (std::size_t k = 0; k + 2 < mine.size(); k += 3) std::swap(mine[k], mine[k + 2]);
  auto cells = std::make_shared<adlib::UnstructuredRange>(n, grid.dim(0), mine);
  auto across = std::make_shared<adlib::CollapsedRange>(3);
  Array<2> u(adlib::ArrayLayout(grid, {cells, across}));
  u.fill([&](const std::array<Index, 2>& g) {
    return value_at(std::vector<Index>{g[0], g[1]}, std::vector<Index>{n, 3}, 1);
  });
  for (int q = 0; q < P; ++q) {
    const std::vector<Triplet> t = {Triplet{q, n - 1, P}, Triplet{2, 0, -1}};
    const Array<2> s = u.section({t[0], t[1]});
    adlib::Broadcast from(s);
    EXPECT_EQ(from.owner(), comm.rank() == q);
    expect_section(from.execute(s), t, {n, 3}, 1, true, "unstructured, owner " + std::to_string(q));
  }
  if (P > 1)
    adlib_test::expect_error_everywhere(
        [&] {
          adlib::Broadcast spread(u.section({Triplet{0, 1, 1}, Triplet::all(3)}));
        },
        "has more than one owner");
}

TEST(Broadcast, MisuseIsAnErrorOnEveryRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid grid(comm, {P});
  const Array<1> a(grid, {adlib::block(20)}), c(grid, {adlib::cyclic(20)});
  adlib::Configuration checked = adlib::Configuration::environment();
  checked.checked = true;
  if (P > 1)
    adlib_test::expect_error_everywhere([&] { adlib::Broadcast both(a, checked); },
                                        "Remap the section into a replicated array");
  const Array<1> first = a.section({Triplet{0, 1, 1}}), other = c.section({Triplet{0, 0, 1}});
  adlib::Broadcast<std::int64_t, 1, Space> b(first.layout(), checked);
  adlib_test::expect_error_everywhere([&] { b.execute(other); }, "the Broadcast was built for");
  // Only one rank passes the wrong array, or a destination of the wrong size.
  adlib_test::expect_error_everywhere([&] { b.execute(comm.rank() == 0 ? a : first); },
                                      "the Broadcast was built for");
  View<1> right("right", 2), wrong("wrong", 3);
  adlib_test::expect_error_everywhere(
      [&] { b.execute(first, comm.rank() == P - 1 ? wrong : right); },
      "the destination must be a C-order View of the section's shape 2");
  adlib_test::expect_error_everywhere([&] { b.value(first); }, "a section of one element");
  adlib_test::expect_error_everywhere(
      [&] { adlib::Broadcast<std::int64_t, 2, Space> two(first.layout()); }, "layout of rank 1");
  if (P > 1) {
    // A group without the owner.
    const adlib::Group last = adlib::Group(grid).restrict(0, P - 1);
    adlib_test::expect_error_everywhere([&] { adlib::Broadcast none(first, last); },
                                        "holds no copy of the section");
  }
  b.execute(first, right);  // still usable
  expect_section(right, {Triplet{0, 1, 1}}, {20}, 0, true, "after the errors");
}

}  // namespace

}  // namespace mpi_broadcast
