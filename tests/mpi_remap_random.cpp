// SPDX-License-Identifier: BSD-3-Clause
// Randomised Remap over MPI_COMM_WORLD with a fixed seed (every rank draws
// the same configurations).  Covers every pair of Range kinds, arrays of rank
// 1..4, extents not divisible by P and smaller than P, sections with strides
// +-1..+-3 (and 4, -5) on either side, source and destination on different grids
// ({P}, {1,P}, {P,1}, 2x2, grids smaller than the communicator), restricted
// groups and replication on both sides.
//
// Reference: the source parent holds double(C-order linear index of the
// global index) (+ 0.25 * repetition); the destination is poisoned to -1
// first.  After a remap, every element of the destination's local memory
// (ghosts and elements outside the section included) is compared with the
// value computed from global indices through the independent reference
// model in test_layouts.hpp: the source element at the same section position,
// or -1 where the destination section does not reach.  Each configuration
// executes the same schedule several times (execute, start/finish, a second
// pair of arrays of the same layouts, then the first pair again).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <sstream>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_remap_random {

namespace {

using adlib::Index;
using adlib::Triplet;
using adlib_test::Kind;
using adlib_test::random_shape;
using adlib_test::Rng;
using adlib_test::SideSpec;

// Grids over MPI_COMM_WORLD with at most `axes` axes: the whole
// communicator in different shapes, and grids smaller than it.
std::vector<std::vector<int>> world_grids(int P, int axes) {
  std::vector<std::vector<int>> g{{P}};
  if (axes >= 2) {
    g.push_back({1, P});
    g.push_back({P, 1});
  }
  if (P > 1) g.push_back({P - 1});
  if (P > 2) g.push_back({2});
  if (P > 1) g.push_back({1});
  if (P == 4 && axes >= 2) {
    g.push_back({2, 2});
    g.push_back({2, 2});  // twice: the interesting one
  }
  if (axes >= 3) {
    g.push_back({1, P, 1});
    if (P >= 2) g.push_back({2, 1, P / 2});
  }
  return g;
}

template <int R>
std::array<Triplet, R> to_array(const std::vector<Triplet>& v) {
  std::array<Triplet, R> a;
  for (int d = 0; d < R; ++d) a[d] = v[d];
  return a;
}

// Collects mismatches of one configuration; reports the first few.
struct Problems {
  int count = 0;
  std::string first;
  void add(const std::string& what) {
    if (count++ < 3) first += "\n    " + what;
  }
};

template <int R>
class Config {
 public:
  using Array = adlib::DistArray<double, R>;

  Config(const adlib::Comm& comm, const SideSpec& dst, const SideSpec& src)
      : comm_(comm),
        dst_spec_(dst),
        src_spec_(src),
        dst_grid_(comm, dst.grid_shape),
        src_grid_(comm, src.grid_shape) {}

  // Runs one configuration.  `variant` (0..7) picks: bit 0, fill the source
  // through its section or its parent; bits 0-1 == 2, a one-shot remap
  // first; == 3, the schedule built from layouts; bit 2, sections taken in
  // two steps.
  void run(int variant, Problems& problems) {
    const int me = comm_.rank();
    Array dst = allocate(dst_spec_, dst_grid_), src = allocate(src_spec_, src_grid_);
    Array dst2 = allocate(dst_spec_, dst_grid_), src2 = allocate(src_spec_, src_grid_);
    for (const auto* pair : {&dst, &src}) {
      const SideSpec& spec = pair == &dst ? dst_spec_ : src_spec_;
      const auto e = spec.local_extents(me);
      for (int d = 0; d < R; ++d)
        if (static_cast<Index>(pair->local_view().extent(d)) != e[d])
          problems.add("local extent " + std::to_string(pair->local_view().extent(d)) +
                       " in dimension " + std::to_string(d) + ", expected " + std::to_string(e[d]));
    }
    // Variants 4..7 take each section in two steps, through the reversed
    // array (sections of sections compose).
    const bool two_step = variant >= 4;
    auto section = [two_step](const Array& a, const SideSpec& s) {
      if (!two_step) return a.section(to_array<R>(s.section));
      std::vector<Triplet> reversed, inner;
      for (int d = 0; d < R; ++d) {
        const Index n = s.ranges[d].extent;
        const Triplet& t = s.section[d];
        reversed.push_back(Triplet{n - 1, 0, -1});
        // Global g is position n - 1 - g of the reversed array.
        inner.push_back(t.count() == 0 ? Triplet::empty()
                                       : Triplet{n - 1 - t.lo, n - 1 - t.last(), -t.stride});
      }
      return a.section(to_array<R>(reversed)).section(to_array<R>(inner));
    };
    const Array d1 = section(dst, dst_spec_), s1 = section(src, src_spec_);
    const Array d2 = section(dst2, dst_spec_), s2 = section(src2, src_spec_);

    const bool fill_section = variant % 2 == 1;
    const int start_variant = variant % 4;
    prepare(dst, src, s1, fill_section, 0);
    if (start_variant == 2) {
      // One-shot first: plan, execute, drop.
      adlib::remap(d1, s1);
      check(dst, 0, "one-shot remap", problems);
      check_source(src, fill_section, 0, "one-shot remap", problems);
      prepare(dst, src, s1, fill_section, 0);
    }
    std::unique_ptr<adlib::Remap<double, R>> remap;
    if (start_variant == 3)
      remap = std::make_unique<adlib::Remap<double, R>>(d1.layout(), s1.layout());
    else
      remap = std::make_unique<adlib::Remap<double, R>>(d1, s1);
    remap->execute(d1, s1);
    check(dst, 0, "execute #1", problems);
    // gather_all (collective) sees the same section values everywhere.
    const std::vector<double> all = adlib::gather_all(d1);
    std::array<Index, R> p{};
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i] != value_at_position(p, 0))
        problems.add("gather_all element " + std::to_string(i) + " is " + std::to_string(all[i]));
      for (int d = R - 1; d >= 0; --d) {
        if (++p[d] < dst_spec_.section[d].count()) break;
        p[d] = 0;
      }
    }
    if (static_cast<Index>(all.size()) != d1.layout().size())
      problems.add("gather_all returned " + std::to_string(all.size()) + " elements");

    prepare(dst, src, s1, fill_section, 1);
    remap->start(d1, s1);
    remap->finish();
    check(dst, 1, "start/finish", problems);

    // Another pair of arrays with the same layouts: the schedule serves
    // them too, and must leave the first pair alone.
    prepare(dst2, src2, s2, !fill_section, 2);
    remap->execute(d2, s2);
    check(dst2, 2, "second arrays", problems);
    check(dst, 1, "first arrays after executing on the second", problems);

    // Back to the first pair, without poisoning: stale values must be overwritten.
    prepare_source(src, s1, fill_section, 3);
    remap->execute(d1, s1);
    check(dst, 3, "execute #3 (first arrays again)", problems);
    check_source(src, fill_section, 3, "execute #3", problems);

    // Backwards with add: every destination element goes back into the
    // source element it came from, once (one replica of a replicated
    // destination counts), and every replica of a replicated source gets it.
    prepare_source(src, s1, fill_section, 4);
    Kokkos::deep_copy(dst.local_view(), -1.0);
    Array d = d1;
    d.fill([&](const std::array<Index, R>& p) { return contribution(p); });
    remap->reverse(s1, d1, adlib::op::add);
    check_source(src, fill_section, 4, "reverse with add", problems, true);
    // Again, through the two halves, with max: every contribution exceeds
    // the source values, so the source section takes the contributions.
    prepare_source(src, s1, fill_section, 5);
    remap->start_reverse(s1, d1, adlib::op::max);
    // Finished through the base every collective shares: it must complete
    // the schedule start_reverse() started (with replicated layouts, a
    // second one), not the forward one.
    static_cast<adlib::RunsSchedule<typename Array::memory_space>&>(*remap).finish();
    check_source(src, fill_section, 5, "reverse with max", problems, false, true);
  }

 private:
  static Array allocate(const SideSpec& spec, const adlib::ProcessGrid& grid) {
    return Array(adlib_test::make_parent(spec, grid));
  }

  // The source value of the parent element with global indices g.
  double value(const std::array<Index, R>& g, int rep) const {
    Index linear = 0;
    for (int d = 0; d < R; ++d) linear = linear * src_spec_.ranges[d].extent + g[d];
    return double(linear) + 0.25 * rep;
  }
  // ... and of the element at position p of the source section.
  double value_at_position(const std::array<Index, R>& p, int rep) const {
    std::array<Index, R> g;
    for (int d = 0; d < R; ++d) g[d] = src_spec_.section[d].at(p[d]);
    return value(g, rep);
  }

  // What the destination element at section position p contributes back
  // (an integer above every source value, so sums and maxima are exact).
  double contribution(const std::array<Index, R>& p) const {
    Index linear = 0;
    for (int d = 0; d < R; ++d) linear = linear * dst_spec_.section[d].count() + p[d];
    return 1.0e6 + double(linear);
  }

  void prepare_source(const Array& src_parent, const Array& src_section, bool fill_section,
                      int rep) const {
    Kokkos::deep_copy(src_parent.local_view(), -2.0);
    if (fill_section) {
      // Through the section: fill() hands out section positions.
      Array s = src_section;
      s.fill([&](const std::array<Index, R>& p) { return value_at_position(p, rep); });
    } else {
      Array s = src_parent;
      s.fill([&](const std::array<Index, R>& g) { return value(g, rep); });
    }
  }
  void prepare(const Array& dst_parent, const Array& src_parent, const Array& src_section,
               bool fill_section, int rep) const {
    Kokkos::deep_copy(dst_parent.local_view(), -1.0);
    prepare_source(src_parent, src_section, fill_section, rep);
  }

  // Calls f(local multi-index, value) for every element of the local memory.
  template <class F>
  static void for_each_memory(const Array& a, F&& f) {
    auto host = Kokkos::create_mirror_view(a.local_view());
    Kokkos::deep_copy(host, a.local_view());
    std::array<Index, R> extent, at{};
    Index total = 1;
    for (int d = 0; d < R; ++d) {
      extent[d] = static_cast<Index>(host.extent(d));
      total *= extent[d];
    }
    const double* data = host.data();
    for (Index i = 0; i < total; ++i) {
      f(at, data[i]);  // LayoutRight: offset i is the C-order multi-index `at`
      for (int d = R - 1; d >= 0; --d) {
        if (++at[d] < extent[d]) break;
        at[d] = 0;
      }
    }
  }

  static std::string where(const std::array<Index, R>& at) {
    std::string s = "(";
    for (int d = 0; d < R; ++d) s += (d ? "," : "") + std::to_string(at[d]);
    return s + ")";
  }

  // Every element of the destination's local memory against the reference.
  void check(const Array& dst_parent, int rep, const char* when, Problems& problems) const {
    const int me = comm_.rank();
    const auto tables = dst_spec_.local_index_tables(me);
    for_each_memory(dst_parent, [&](const std::array<Index, R>& local, double v) {
      std::array<Index, R> p;
      bool covered = true;
      for (int d = 0; d < R; ++d) {
        p[d] = tables.position[d][local[d]];
        covered = covered && p[d] >= 0;
      }
      const double want = covered ? value_at_position(p, rep) : -1.0;
      if (v != want) {
        std::ostringstream s;
        s << when << ": rank " << me << " local " << where(local) << " holds " << v << ", expected "
          << want;
        problems.add(s.str());
      }
    });
    // The library's own view of the section must agree (positions it hands
    // out are section positions).
    const Array section = dst_parent.section(to_array<R>(dst_spec_.section));
    section.host_mirror().for_each_local([&](const std::array<Index, R>& p, double v) {
      if (v != value_at_position(p, rep))
        problems.add(std::string(when) + ": for_each_local position " + where(p) + " holds " +
                     std::to_string(v));
    });
  }

  // The source is read only by execute(); reverse() adds each section
  // element's contribution (`added`) or takes the maximum (`maximum`).
  void check_source(const Array& src_parent, bool fill_section, int rep, const char* when,
                    Problems& problems, bool added = false, bool maximum = false) const {
    const auto tables = src_spec_.local_index_tables(comm_.rank());
    for_each_memory(src_parent, [&](const std::array<Index, R>& local, double v) {
      std::array<Index, R> g, p;
      bool owned = true, in_section = true;
      for (int d = 0; d < R; ++d) {
        g[d] = tables.global[d][local[d]];
        owned = owned && g[d] >= 0;
        p[d] = tables.position[d][local[d]];
        in_section = in_section && p[d] >= 0;
      }
      double want = owned && (in_section || !fill_section) ? value(g, rep) : -2.0;
      if (owned && in_section && added) want += contribution(p);
      if (owned && in_section && maximum) want = contribution(p);
      if (v != want)
        problems.add(std::string(when) + ": source changed at local " + where(local) + ": " +
                     std::to_string(v) + " instead of " + std::to_string(want));
    });
  }

  const adlib::Comm& comm_;
  const SideSpec &dst_spec_, &src_spec_;
  adlib::ProcessGrid dst_grid_, src_grid_;
};

template <int R>
void run_one(const adlib::Comm& comm, const SideSpec& dst, const SideSpec& src, int variant,
             int& failures) {
  Problems problems;
  try {
    Config<R>(comm, dst, src).run(variant, problems);
  } catch (const adlib::Error& e) {
    // Argument errors are agreed on every rank, so continuing is safe.
    problems.add(std::string("adlib::Error: ") + e.what());
  }
  if (problems.count > 0) {
    ++failures;
    ADD_FAILURE() << "remap of rank " << R << ", variant " << variant << "\n  dst "
                  << dst.describe() << "\n  src " << src.describe() << "\n  " << problems.count
                  << " problem(s):" << problems.first;
  }
}

// Random configurations of array rank R; dimension 0's kinds cycle through
// every (source, destination) pair.
template <int R>
void run_random(std::uint64_t seed, int configs, Index max_extent) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  Rng rng(seed);
  const auto grids = world_grids(P, R == 1 ? 2 : 3);
  int failures = 0;
  for (int i = 0; i < configs && failures < 5; ++i) {
    const Kind src_kind = adlib_test::kind_at(i), dst_kind = adlib_test::kind_at(i / 6);
    // Extents below P now and then (empty local blocks), and now and then
    // long enough for several cycles of big block-cyclic tiles.
    const Index extent = rng.chance(15)   ? P
                         : rng.chance(10) ? (R <= 2 ? 8 : 2) * max_extent
                                          : max_extent;
    const auto shape = random_shape(rng, R, extent);
    const SideSpec src = adlib_test::random_side(rng, shape, rng.pick(grids), src_kind);
    const SideSpec dst =
        rng.chance(4) ? src : adlib_test::random_side(rng, shape, rng.pick(grids), dst_kind);
    run_one<R>(comm, dst, src, static_cast<int>(rng.uniform(0, 7)), failures);
  }
}

TEST(RemapRandom, Rank1EveryKindPair) {
  run_random<1>(101, 576, 40);
}
TEST(RemapRandom, Rank2) {
  run_random<2>(202, 432, 13);
}
TEST(RemapRandom, Rank3) {
  run_random<3>(303, 288, 7);
}
TEST(RemapRandom, Rank4) {
  run_random<4>(404, 144, 4);
}

TEST(RemapRandom, ReplicatedBothSides) {
  // Both sides replicated over an axis no range uses: every destination
  // replica must receive every element (from some source replica).
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  Rng rng(505);
  int failures = 0;
  std::vector<std::vector<int>> grids{{1, P}, {P, 1}};
  if (P == 4) grids.push_back({2, 2});
  for (int i = 0; i < 96 && failures < 5; ++i) {
    adlib_test::GenOptions opt;
    opt.restrict_percent = i % 3 == 0 ? 60 : 0;
    const std::vector<Index> shape{rng.uniform(1, 30)};
    SideSpec src =
        adlib_test::random_side(rng, shape, rng.pick(grids), adlib_test::kind_at(i), opt);
    SideSpec dst =
        adlib_test::random_side(rng, shape, rng.pick(grids), adlib_test::kind_at(i / 6 + 1), opt);
    run_one<1>(comm, dst, src, i % 4, failures);
  }
}

// In place between disjoint sections of one array (refused only when they
// overlap): the destination section gets the source section's values, every
// other element, the source included, keeps its own.
template <int R>
void run_in_place(std::uint64_t seed, int configs) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  Rng rng(seed);
  const auto grids = world_grids(P, 2);
  adlib_test::GenOptions whole;
  whole.section_percent = 0;
  int failures = 0;
  for (int i = 0; i < configs && failures < 5; ++i) {
    std::vector<Index> shape = random_shape(rng, R, R == 1 ? 30 : 8);
    shape[0] = std::max<Index>(shape[0], 2);
    const SideSpec parent =
        adlib_test::random_side(rng, shape, rng.pick(grids), adlib_test::kind_at(i), whole);
    // Dimension 0 makes the sections disjoint; the others may overlap.
    const Index n0 = shape[0];
    Triplet a, b;
    switch (i % 3) {
      case 0: {  // even positions <- odd positions, maybe reversed
        const Index c = n0 / 2;
        a = Triplet{0, 2 * (c - 1), 2};
        b = rng.chance(50) ? Triplet{1, 2 * c - 1, 2} : Triplet{2 * c - 1, 1, -2};
        break;
      }
      case 1: {  // first c <- last c, reversed
        const Index c = rng.uniform(1, n0 / 2);
        a = Triplet{0, c - 1, 1};
        b = Triplet{n0 - 1, n0 - c, -1};
        break;
      }
      default: {  // residues 0 and 2 modulo 3
        const Index c = (n0 + 0) / 3;
        if (c == 0) {
          a = Triplet{0, 0, 1};
          b = Triplet{1, 1, 1};
        } else {
          a = Triplet{0, 3 * (c - 1), 3};
          b = Triplet{2, 2 + 3 * (c - 1), 3};
        }
      }
    }
    if (rng.chance(50)) std::swap(a, b);
    SideSpec dst = parent, src = parent;
    dst.sectioned = src.sectioned = true;
    dst.section[0] = a;
    src.section[0] = b;
    for (int d = 1; d < R; ++d) {
      const Index n = shape[d], c = rng.uniform(0, n);
      dst.section[d] = rng.chance(50) ? Triplet{0, c - 1, 1} : Triplet{n - 1, n - c, -1};
      src.section[d] = Triplet{n - c, n - 1, 1};
    }
    Problems problems;
    try {
      adlib::ProcessGrid grid(comm, parent.grid_shape);
      adlib::DistArray<double, R> x(adlib_test::make_parent(parent, grid));
      auto linear = [&](const std::array<Index, R>& g) {
        Index l = 0;
        for (int d = 0; d < R; ++d) l = l * parent.ranges[d].extent + g[d];
        return double(l);
      };
      Kokkos::deep_copy(x.local_view(), -2.0);
      x.fill(linear);
      const auto dst_section = x.section(to_array<R>(dst.section));
      const auto src_section = x.section(to_array<R>(src.section));
      adlib::Remap<double, R> remap(dst_section, src_section);
      for (int rep = 0; rep < 2; ++rep) {
        remap.execute(dst_section, src_section);
        auto host = Kokkos::create_mirror_view(x.local_view());
        Kokkos::deep_copy(host, x.local_view());
        const auto e = parent.local_extents(me);
        // dst is the parent with a section: the same ranges, so its tables
        // give the parent's global indices too.
        const auto tables = dst.local_index_tables(me);
        Index total = parent.holds(me) ? 1 : 0;
        for (Index n : e) total *= n;
        for (Index offset = 0; offset < total; ++offset) {
          std::array<Index, R> g, p;
          bool owned = true, covered = true;
          Index rest = offset;
          for (int d = R - 1; d >= 0; --d) {
            const Index l = rest % e[d];
            rest /= e[d];
            g[d] = tables.global[d][l];
            p[d] = tables.position[d][l];
            owned = owned && g[d] >= 0;
            covered = covered && p[d] >= 0;
          }
          std::array<Index, R> from = g;
          if (covered)
            for (int d = 0; d < R; ++d) from[d] = src.section[d].at(p[d]);
          const double want = owned ? linear(from) : -2.0;
          if (host.data()[offset] != want)
            problems.add("rep " + std::to_string(rep) + ": rank " + std::to_string(me) +
                         " offset " + std::to_string(offset) + " holds " +
                         std::to_string(host.data()[offset]) + ", expected " +
                         std::to_string(want));
        }
      }
    } catch (const adlib::Error& e) {
      problems.add(std::string("adlib::Error: ") + e.what());
    }
    if (problems.count > 0) {
      ++failures;
      ADD_FAILURE() << "in-place remap of rank " << R << "\n  dst " << dst.describe() << "\n  src "
                    << src.describe() << "\n  " << problems.count
                    << " problem(s):" << problems.first;
    }
  }
}

TEST(RemapRandom, InPlaceDisjointSections1D) {
  run_in_place<1>(606, 120);
}
TEST(RemapRandom, InPlaceDisjointSections2D) {
  run_in_place<2>(707, 120);
}

// Remap moves elements as bytes: other sizes than double's must work.
struct Cell {
  std::int32_t tag;
  double x, y;
};

TEST(RemapRandom, OtherElementTypes) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid rows(comm, {P, 1}), cols(comm, {1, P});
  const Index n0 = 19, n1 = 11;
  auto s0 = std::make_shared<adlib::BlockCyclicRange>(n0, rows.dim(0), 3);
  auto s1 = std::make_shared<adlib::CollapsedRange>(n1, adlib::Ghosts{1, 1, true});
  auto d0 = std::make_shared<adlib::CollapsedRange>(n0);
  auto d1 = std::make_shared<adlib::BlockRange>(n1, cols.dim(1), adlib::Ghosts{2, 1, false});
  // Destination reversed along both dimensions: dst(i, j) = src(n0-1-i, n1-1-j).
  const std::array<Triplet, 2> reverse{Triplet{n0 - 1, 0, -1}, Triplet{n1 - 1, 0, -1}};
  {
    adlib::DistArray<std::int64_t, 2> src(rows, {s0, s1}), dst(cols, {d0, d1});
    src.fill([&](auto g) { return std::int64_t{1} << 40 | (g[0] * n1 + g[1]); });
    Kokkos::deep_copy(dst.local_view(), -1);
    adlib::remap(dst.section(reverse), src);
    int bad = 0;
    dst.host_mirror().for_each_local([&](auto g, std::int64_t v) {
      bad += v != (std::int64_t{1} << 40 | ((n0 - 1 - g[0]) * n1 + (n1 - 1 - g[1])));
    });
    EXPECT_EQ(bad, 0);
  }
  {
    adlib::DistArray<Cell, 2> src(rows, {s0, s1}), dst(cols, {d0, d1});
    src.fill([&](auto g) { return Cell{int(g[0]), double(g[1]), double(g[0] * n1 + g[1])}; });
    adlib::Remap<Cell, 2> remap(dst.section(reverse), src);
    for (int rep = 0; rep < 2; ++rep) {
      remap.execute(dst.section(reverse), src);
      int bad = 0;
      dst.host_mirror().for_each_local([&](auto g, const Cell& c) {
        const Index i = n0 - 1 - g[0], j = n1 - 1 - g[1];
        bad += c.tag != int(i) || c.x != double(j) || c.y != double(i * n1 + j);
      });
      EXPECT_EQ(bad, 0) << "rep " << rep;
    }
  }
}

TEST(RemapRandom, OverlappingSchedulesFromOneSource) {
  // Two live schedules reading the same source, started together and
  // finished in reverse order: their messages must not be confused (each
  // schedule has its own tag), and both destinations must be right.
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid cols(comm, {1, P}), rows(comm, {P});
  const Index n0 = 23, n1 = 9;
  auto a0 = std::make_shared<adlib::BlockRange>(n0, cols.dim(1));
  auto a1 = std::make_shared<adlib::CollapsedRange>(n1);
  auto b0 = std::make_shared<adlib::CollapsedRange>(n0, adlib::Ghosts{1, 2, false});
  auto b1 = std::make_shared<adlib::CyclicRange>(n1, cols.dim(1));
  auto c0 = std::make_shared<adlib::BlockCyclicRange>(n0, rows.dim(0), 2);
  auto c1 = std::make_shared<adlib::CollapsedRange>(n1);
  adlib::DistArray<double, 2> a(cols, {a0, a1}), b(cols, {b0, b1}), c(rows, {c0, c1});
  adlib::Remap<double, 2> to_b(b, a), to_c(c, a);
  EXPECT_NE(to_b.schedule().tag(), to_c.schedule().tag());
  for (int step = 0; step < 20; ++step) {
    a.fill([&](auto g) { return double(g[0] * n1 + g[1]) + step; });
    Kokkos::deep_copy(b.local_view(), -1.0);
    Kokkos::deep_copy(c.local_view(), -1.0);
    to_b.start(b, a);
    to_c.start(c, a);
    if (step % 2) {
      to_b.finish();
      to_c.finish();
    } else {
      to_c.finish();
      to_b.finish();
    }
    int bad = 0;
    for (const auto* x : {&b, &c})
      x->host_mirror().for_each_local(
          [&](auto g, double v) { bad += v != double(g[0] * n1 + g[1]) + step; });
    // b's ghost cells are never written.
    auto host = Kokkos::create_mirror_view(b.local_view());
    Kokkos::deep_copy(host, b.local_view());
    for (size_t j = 0; j < host.extent(1); ++j)
      for (size_t i : {size_t{0}, host.extent(0) - 1, host.extent(0) - 2})
        bad += host(i, j) != -1.0;
    EXPECT_EQ(bad, 0) << "step " << step;
  }
}

}  // namespace

}  // namespace mpi_remap_random
