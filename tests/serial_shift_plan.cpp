// SPDX-License-Identifier: BSD-3-Clause
// plan_shift and plan_skew for simulated process counts, all ranks in one
// process on communicator-less grids.  Every rank's plan is computed, then
// the exchange is run on a memory model of every rank:
//
//  - each rank's source memory holds, at every element, its linear position
//    in the (sectioned) array, decoded through the reference model of
//    test_layouts.hpp (never the library's inquiries), and -1 in ghost cells
//    and elements outside the section;
//  - each rank's sends read that memory into one stream per (sender,
//    receiver) pair, in plan order; each rank's receives take the values of
//    the stream from their sender in plan order, so a stream must be used up
//    exactly (same element count on both ends, in the same order, which is
//    what the executor relies on); no cell is written twice;
//  - the vacated blocks are marked as filled, and must touch only cells no
//    message wrote.
//
// The destination memory is then compared, cell by cell, with the serial
// reference dst[..., i, ...] = src[..., i + amount, ...] (Fortran's sign):
// wrapped in cyclic mode, the fill mark in end_off mode and untouched in keep
// mode where i + amount leaves the extent, untouched in ghost cells and
// outside the section.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <adlib/collectives/shift_plan.hpp>
#include <adlib/ranges/block_range.hpp>
#include <adlib/ranges/collapsed_range.hpp>
#include "block_reference.hpp"
#include "sanitizer_scale.hpp"
#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_shift_plan {

namespace {

using adlib::Index;
using adlib::ShiftMode;
using adlib::ShiftPlan;
using adlib_test::Kind;
using adlib_test::Rng;
using adlib_test::SectionDecoder;
using adlib_test::SideSpec;

// Destination cells no message and no fill wrote, and cells filled.
constexpr Index kUntouched = -2;
constexpr Index kFilled = -3;

const ShiftMode kModes[] = {ShiftMode::cyclic, ShiftMode::end_off, ShiftMode::keep};

// Everything a simulation found wrong, reported once per configuration.
struct Verdict {
  std::vector<std::string> problems;
  void fail(const std::string& what) {
    if (problems.size() < 8) problems.push_back(what);
  }
  bool ok() const { return problems.empty(); }
  std::string text() const {
    std::string all;
    for (const auto& p : problems) all += "\n    " + p;
    return all;
  }
};

struct Stats {
  Index moved = 0, filled = 0, remote = 0;  // elements received, filled, received from a peer
};

// The amount along `dim` of the destination element at section multi-index
// `index` (constant for a shift, per other position for a skew).
using AmountAt = std::function<Index(const std::vector<Index>& index)>;
using PlanOf = std::function<ShiftPlan(const adlib::ArrayLayout& layout, int me)>;

// The reference: what destination cell `k` (linear section position) holds
// after the shift: a source position, kFilled or kUntouched.
Index reference(const std::vector<Index>& shape, Index k, int dim, ShiftMode mode,
                const AmountAt& amount_at) {
  std::vector<Index> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = k % shape[d];
    k /= shape[d];
  }
  const Index n = shape[dim];
  Index j = index[dim] + amount_at(index);
  if (mode == ShiftMode::cyclic) {
    j = ((j % n) + n) % n;
  } else if (j < 0 || j >= n) {
    return mode == ShiftMode::end_off ? kFilled : kUntouched;
  }
  index[dim] = j;
  return adlib_test::linear_index(shape, index);
}

// Simulates every rank 0..P-1 of the shift `plan_of` plans on `spec`'s
// layout (see the file comment).
Verdict simulate(const SideSpec& spec, int P, int dim, ShiftMode mode, const AmountAt& amount_at,
                 const PlanOf& plan_of, Stats* stats = nullptr) {
  Verdict v;
  const adlib::ProcessGrid grid(spec.grid_shape);
  const adlib::ArrayLayout layout = adlib_test::make_parent(spec, grid).section(spec.section);
  std::vector<ShiftPlan> plans;
  std::vector<SectionDecoder> decoders;
  for (int r = 0; r < P; ++r) {
    plans.push_back(plan_of(layout, r));
    decoders.emplace_back(spec, r);
  }
  // Sends: one stream of source positions per (sender, receiver).
  std::map<std::pair<int, int>, std::vector<Index>> streams;
  for (int r = 0; r < P; ++r)
    for (const auto& pb : plans[r].exchange.sends) {
      if (pb.peer < 0 || pb.peer >= P) {
        v.fail("rank " + std::to_string(r) + " sends to peer " + std::to_string(pb.peer));
        return v;
      }
      for (std::int64_t o : adlib_test::offsets_of(pb.block)) {
        const Index k = decoders[r](o);
        if (k < 0) {
          v.fail("rank " + std::to_string(r) + " sends offset " + std::to_string(o) +
                 ", no element of its section, in " + pb.block.to_string());
          return v;
        }
        streams[{r, pb.peer}].push_back(k);
      }
    }
  // Receives: each takes the next values of its sender's stream.
  std::map<std::pair<int, int>, size_t> used;
  std::vector<std::vector<Index>> memory(P);
  for (int q = 0; q < P; ++q) {
    std::vector<Index>& dst = memory[q];
    dst.assign(static_cast<size_t>(decoders[q].size()), kUntouched);
    auto cell = [&](std::int64_t o, const char* what) -> Index* {
      if (o < 0 || o >= static_cast<std::int64_t>(dst.size())) {
        v.fail("rank " + std::to_string(q) + " " + what + " offset " + std::to_string(o) +
               " outside its memory of " + std::to_string(dst.size()));
        return nullptr;
      }
      if (dst[o] != kUntouched) {
        v.fail("rank " + std::to_string(q) + " " + what + " offset " + std::to_string(o) +
               ", already written");
        return nullptr;
      }
      return &dst[o];
    };
    for (const auto& pb : plans[q].exchange.recvs) {
      if (pb.peer < 0 || pb.peer >= P) {
        v.fail("rank " + std::to_string(q) + " receives from peer " + std::to_string(pb.peer));
        return v;
      }
      const std::vector<Index>& stream = streams[{pb.peer, q}];
      size_t& at = used[{pb.peer, q}];
      for (std::int64_t o : adlib_test::offsets_of(pb.block)) {
        if (at == stream.size()) {
          v.fail("rank " + std::to_string(q) + " receives more than the " +
                 std::to_string(stream.size()) + " elements rank " + std::to_string(pb.peer) +
                 " sends it");
          return v;
        }
        Index* c = cell(o, "receives into");
        if (!c) return v;
        *c = stream[at++];
        if (stats) ++(pb.peer == q ? stats->moved : stats->remote);
      }
    }
    if (mode != ShiftMode::end_off && !plans[q].vacated.empty())
      v.fail("rank " + std::to_string(q) + " has vacated blocks in " +
             adlib::shift_mode_name(mode) + " mode");
    for (const adlib::StridedBlock& b : plans[q].vacated)
      for (std::int64_t o : adlib_test::offsets_of(b)) {
        Index* c = cell(o, "fills");
        if (!c) return v;
        *c = kFilled;
        if (stats) ++stats->filled;
      }
  }
  for (const auto& [pair, stream] : streams)
    if (used[pair] != stream.size())
      v.fail("rank " + std::to_string(pair.first) + " sends " + std::to_string(stream.size()) +
             " elements to rank " + std::to_string(pair.second) + ", which receives " +
             std::to_string(used[pair]));
  if (!v.ok()) return v;
  // Every cell of every rank against the serial reference.
  const std::vector<Index> shape = spec.shape();
  for (int q = 0; q < P; ++q)
    for (size_t o = 0; o < memory[q].size(); ++o) {
      const Index k = decoders[q](static_cast<std::int64_t>(o));
      const Index want = k < 0 ? kUntouched : reference(shape, k, dim, mode, amount_at);
      if (memory[q][o] != want) {
        std::ostringstream s;
        s << "rank " << q << " offset " << o << " (position " << k << ") holds " << memory[q][o]
          << ", expected " << want << " (" << kUntouched << ": untouched, " << kFilled
          << ": filled)";
        v.fail(s.str());
      }
    }
  return v;
}

// An amount for an extent n: 0, +-1, +-(n-1), +-n, beyond the extent, or
// anything in between.
Index random_amount(Rng& rng, Index n) {
  switch (rng.uniform(0, 5)) {
    case 0:
      return 0;
    case 1:
      return rng.chance(50) ? 1 : -1;
    case 2:
      return (rng.chance(50) ? 1 : -1) * (n + rng.uniform(-1, 1));
    case 3:
      return (rng.chance(50) ? 1 : -1) * (n + rng.uniform(2, 2 * n + 3));
    default:
      return rng.uniform(-n - 1, n + 1);
  }
}

// Counts how often the features that make shifts hard come up, so that the
// random tests keep exercising them.
struct Coverage {
  std::map<std::string, int> seen;
  void note(const SideSpec& s, int P, int dim, ShiftMode mode, Index amount) {
    const Index n = s.shape()[dim];
    bool replicated = false, restricted = false, negative = false, strided = false, empty = false,
         ghosts = false, cyclic_kind = false;
    for (size_t a = 0; a < s.grid_shape.size(); ++a) {
      bool used = false;
      for (const auto& r : s.ranges) used = used || r.axis == static_cast<int>(a);
      replicated = replicated || (!used && s.fixed[a] < 0 && s.grid_shape[a] > 1);
      restricted = restricted || (s.fixed[a] >= 0 && s.grid_shape[a] > 1);
    }
    for (int d = 0; d < s.rank(); ++d) {
      const auto& t = s.section[d];
      negative = negative || (t.count() > 1 && t.stride < 0);
      strided = strided || (t.count() > 1 && (t.stride > 1 || t.stride < -1));
      ghosts = ghosts || s.ranges[d].ghost_low > 0 || s.ranges[d].ghost_high > 0;
      for (int c = 0; c < s.ranges[d].processes; ++c)
        empty = empty || s.ranges[d].local_count(c) == 0;
    }
    const Kind kind = s.ranges[dim].kind;
    cyclic_kind = kind == Kind::cyclic || kind == Kind::block_cyclic;
    seen["replicated"] += replicated;
    seen["restricted group"] += restricted;
    seen["negative stride"] += negative;
    seen["stride >= 2"] += strided;
    seen["ghosts"] += ghosts;
    seen["empty local block"] += empty;
    seen["grid smaller than P"] += s.grid_size() < P;
    seen["cyclic kind shifted"] += cyclic_kind;
    seen[std::string("mode ") + adlib::shift_mode_name(mode)] += 1;
    seen["amount 0"] += amount == 0;
    seen["negative amount"] += amount < 0;
    seen["|amount| >= extent"] += n > 0 && (amount >= n || amount <= -n);
  }
  void expect_at_least(int count, size_t features) const {
    for (const auto& [feature, times] : seen) EXPECT_GE(times, count) << feature;
    EXPECT_EQ(seen.size(), features);
  }
};

// A random layout of rank 1..3 over a grid of at most P processes.
SideSpec random_layout(Rng& rng, int P) {
  const int rank = static_cast<int>(rng.uniform(1, 3));
  const Index max_extent = rank == 1 ? 30 : rank == 2 ? 10 : 5;
  const auto shape = adlib_test::random_shape(rng, rank, max_extent);
  return adlib_test::random_side(rng, shape, adlib_test::random_grid(rng, P, 3), std::nullopt);
}

std::string describe(const SideSpec& spec, int P, int dim, ShiftMode mode) {
  return "P=" + std::to_string(P) + " " + spec.describe() + " dim " + std::to_string(dim) +
         " mode " + adlib::shift_mode_name(mode);
}

PlanOf shift_by(Index amount, int dim, ShiftMode mode) {
  return [=](const adlib::ArrayLayout& layout, int me) {
    return adlib::plan_shift(layout, amount, dim, mode, me);
  };
}

TEST(SerialShiftPlan, HandWorkedEndOffShift) {
  // N = 7 in blocks {0, 1, 2} and {3, 4, 5, 6}, dst[i] = src[i + 1]:
  // rank 0 keeps 1, 2 and gets 3 from rank 1; rank 1 keeps 4, 5, 6 and
  // fills its last element (global 6, local offset 3).
  const adlib::ProcessGrid grid({2});
  const adlib::ArrayLayout layout(adlib::Group(grid),
                                  {std::make_shared<adlib::BlockRange>(7, grid.dim(0))});
  auto count_from = [](const std::vector<adlib::PeerBlock>& blocks, int peer) {
    Index n = 0;
    for (const auto& pb : blocks)
      if (pb.peer == peer) n += pb.block.count();
    return n;
  };
  const ShiftPlan zero = adlib::plan_shift(layout, 1, 0, ShiftMode::end_off, 0);
  EXPECT_EQ(count_from(zero.exchange.recvs, 0), 2);
  EXPECT_EQ(count_from(zero.exchange.recvs, 1), 1);
  EXPECT_EQ(count_from(zero.exchange.sends, 1), 0);
  EXPECT_TRUE(zero.vacated.empty());
  const ShiftPlan one = adlib::plan_shift(layout, 1, 0, ShiftMode::end_off, 1);
  EXPECT_EQ(count_from(one.exchange.sends, 0), 1);
  ASSERT_EQ(one.vacated.size(), 1u);
  EXPECT_EQ(adlib_test::offsets_of(one.vacated[0]), adlib_test::Offsets{3});
  // Keep mode plans the same messages and fills nothing.
  const ShiftPlan kept = adlib::plan_shift(layout, 1, 0, ShiftMode::keep, 1);
  EXPECT_EQ(kept.exchange.sends.size(), one.exchange.sends.size());
  EXPECT_TRUE(kept.vacated.empty());
  // A simulated rank outside the grid plans nothing.
  const ShiftPlan outside = adlib::plan_shift(layout, 1, 0, ShiftMode::end_off, 5);
  EXPECT_TRUE(outside.exchange.sends.empty() && outside.exchange.recvs.empty());
  EXPECT_TRUE(outside.vacated.empty());
}

TEST(SerialShiftPlan, ArgumentChecks) {
  const adlib::ProcessGrid grid({2});
  const adlib::ArrayLayout layout(adlib::Group(grid),
                                  {std::make_shared<adlib::BlockRange>(6, grid.dim(0)),
                                   std::make_shared<adlib::CollapsedRange>(4)});
  EXPECT_EQ(adlib::check_shift(layout, 1, ShiftMode::keep), "");
  EXPECT_NE(adlib::check_shift(layout, 2, ShiftMode::keep).find("out of range"), std::string::npos);
  EXPECT_NE(adlib::check_shift(layout, -1, ShiftMode::cyclic).find("out of range"),
            std::string::npos);
  EXPECT_NE(adlib::check_shift(layout, 0, static_cast<ShiftMode>(7)).find("not one of"),
            std::string::npos);
  EXPECT_FALSE(adlib::is_valid_shift_mode(static_cast<ShiftMode>(7)));
  EXPECT_STREQ(adlib::shift_mode_name(static_cast<ShiftMode>(7)), "?");
  EXPECT_STREQ(adlib::shift_mode_name(ShiftMode::end_off), "end_off");
  // A skew along 0 has one amount per position of dimension 1.
  EXPECT_EQ(adlib::check_skew(layout, 4, 0, ShiftMode::cyclic), "");
  EXPECT_EQ(adlib::check_skew(layout, 6, 1, ShiftMode::cyclic), "");
  EXPECT_NE(adlib::check_skew(layout, 6, 0, ShiftMode::cyclic).find("expected 4"),
            std::string::npos);
  EXPECT_NE(adlib::check_skew(layout, 4, 3, ShiftMode::cyclic).find("out of range"),
            std::string::npos);
}

TEST(SerialShiftPlan, EveryKindModeAndAmountInOneDimension) {
  // Every Range kind on the shifted dimension, with and without sections, at
  // 1 to 5 processes (extents below P: empty blocks), every mode, every
  // amount from -(n + 2) to n + 2.
  Rng rng(8);
  int configs = 0, failures = 0;
  for (int P = 1; P <= 5; ++P)
    for (int k = 0; k < adlib_test::kKindCount; ++k)
      for (int rep = 0; rep < 4 && failures < 10; ++rep) {
        adlib_test::GenOptions opt;
        opt.section_percent = rep < 2 ? 0 : 100;
        const std::vector<Index> shape{rep == 0 ? rng.uniform(0, P) : rng.uniform(1, 13)};
        const SideSpec spec = adlib_test::random_side(
            rng, shape, adlib_test::random_grid(rng, P, 2), adlib_test::kind_at(k), opt);
        const Index n = shape[0];
        for (ShiftMode mode : kModes)
          for (Index amount = -n - 2; amount <= n + 2; ++amount) {
            const Verdict v = simulate(
                spec, P, 0, mode, [=](const std::vector<Index>&) { return amount; },
                shift_by(amount, 0, mode));
            ++configs;
            if (!v.ok()) {
              ++failures;
              ADD_FAILURE() << describe(spec, P, 0, mode) << " amount " << amount << v.text();
            }
          }
      }
  EXPECT_GT(configs, 5 * 6 * 4 * 3 * 3);
}

TEST(SerialShiftPlan, RandomLayoutsSmallProcessCounts) {
  // 1-D to 3-D, every kind, sections with strides +-1..+-5, ghosts,
  // restricted groups and replication, 1 to 8 simulated processes.
  Rng rng(2027);
  Coverage coverage;
  int failures = 0;
  Stats stats;
  for (int trial = 0; trial < 3000 && failures < 10; ++trial) {
    const int P = static_cast<int>(rng.uniform(1, 8));
    const SideSpec spec = random_layout(rng, P);
    const int dim = static_cast<int>(rng.uniform(0, spec.rank() - 1));
    const ShiftMode mode = kModes[rng.uniform(0, 2)];
    const Index amount = random_amount(rng, spec.shape()[dim]);
    coverage.note(spec, P, dim, mode, amount);
    const Verdict v = simulate(
        spec, P, dim, mode, [=](const std::vector<Index>&) { return amount; },
        shift_by(amount, dim, mode), &stats);
    if (!v.ok()) {
      ++failures;
      ADD_FAILURE() << "trial " << trial << " " << describe(spec, P, dim, mode) << " amount "
                    << amount << v.text();
    }
  }
  coverage.expect_at_least(100, 14);
  // The simulation must have moved data between ranks and filled elements.
  EXPECT_GT(stats.remote, 1000);
  EXPECT_GT(stats.filled, 1000);
}

TEST(SerialShiftPlan, SkewRandomTables) {
  // Tables that are constant (one shift of the whole array), in runs along
  // the innermost other dimension, or different everywhere.
  Rng rng(314);
  Coverage coverage;
  int failures = 0, varying = 0;
  for (int trial = 0; trial < 1500 && failures < 10; ++trial) {
    const int P = static_cast<int>(rng.uniform(1, 8));
    const SideSpec spec = random_layout(rng, P);
    const std::vector<Index> shape = spec.shape();
    const int dim = static_cast<int>(rng.uniform(0, spec.rank() - 1));
    const ShiftMode mode = kModes[rng.uniform(0, 2)];
    std::vector<Index> others;  // the extents of the other dimensions
    Index positions = 1;
    for (int d = 0; d < spec.rank(); ++d)
      if (d != dim) {
        others.push_back(shape[d]);
        positions *= shape[d];
      }
    const Index n = shape[dim];
    std::vector<Index> amounts(static_cast<size_t>(positions));
    const int style = static_cast<int>(rng.uniform(0, 2));
    const Index constant = random_amount(rng, n);
    for (Index& a : amounts) {
      if (style == 0)
        a = constant;
      else if (style == 1)
        a = rng.chance(70) && &a != amounts.data() ? *(&a - 1) : random_amount(rng, n);
      else
        a = random_amount(rng, n);
    }
    if (!amounts.empty()) coverage.note(spec, P, dim, mode, amounts.front());
    for (Index a : amounts) varying += a != amounts.front();
    ASSERT_EQ(adlib::check_skew(adlib_test::make_parent(spec, adlib::ProcessGrid(spec.grid_shape))
                                    .section(spec.section),
                                amounts.size(), dim, mode),
              "");
    const AmountAt amount_at = [&](const std::vector<Index>& index) {
      std::vector<Index> at;
      for (int d = 0; d < spec.rank(); ++d)
        if (d != dim) at.push_back(index[d]);
      return amounts[adlib_test::linear_index(others, at)];
    };
    const PlanOf plan_of = [&](const adlib::ArrayLayout& layout, int me) {
      return adlib::plan_skew(layout, amounts, dim, mode, me);
    };
    const Verdict v = simulate(spec, P, dim, mode, amount_at, plan_of);
    if (!v.ok()) {
      ++failures;
      std::string table;
      for (Index a : amounts) table += " " + std::to_string(a);
      ADD_FAILURE() << "trial " << trial << " " << describe(spec, P, dim, mode) << " amounts"
                    << table << v.text();
    }
  }
  coverage.expect_at_least(50, 14);
  EXPECT_GT(varying, 1000);
}

// BlockRange's owner of global index g among P blocks of N: [c*N/P, (c+1)*N/P).
int block_owner(Index g, Index N, int P) {
  int c = static_cast<int>(g * P / N);
  while (c > 0 && c * N / P > g) --c;
  while ((c + 1) * N / P <= g) ++c;
  return c;
}

TEST(SerialShiftPlan, OneRankOfAMillionProcessesPlansQuickly) {
  // A shift plans from range arithmetic: one rank of 10^6 (about 3 elements
  // each, so an amount of 7 reaches ranks 2 and 3 away, and the cyclic wrap
  // joins the last ranks to the first) plans in far less than a millisecond,
  // with a handful of peers, and its blocks are right: checked here from
  // the block formula, since simulating every rank is out of the question.
  const int P = 1000000;
  const Index N = 3000007, amount = 7;
  const adlib::ProcessGrid grid({P});
  const adlib::ArrayLayout layout(adlib::Group(grid),
                                  {std::make_shared<adlib::BlockRange>(N, grid.dim(0))});
  for (int me : {0, 1, P / 2, P - 2, P - 1})
    for (ShiftMode mode : kModes) {
      const std::string what =
          "rank " + std::to_string(me) + " mode " + adlib::shift_mode_name(mode);
      const auto t0 = std::chrono::steady_clock::now();
      const ShiftPlan plan = adlib::plan_shift(layout, amount, 0, mode, me);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      EXPECT_LT(seconds, adlib_test::kUnderSanitizer ? 1.0 : 0.05) << what;
      const Index start = me * N / P, count = (me + 1) * N / P - start;
      // Receives: every owned element once, in order per peer, from the
      // owner of its source; elements whose source leaves the extent are
      // filled (end_off) or untouched (keep).
      std::set<int> peers;
      std::set<Index> written;
      std::map<int, Index> last_from;
      for (const auto& pb : plan.exchange.recvs) {
        peers.insert(pb.peer);
        for (std::int64_t l : adlib_test::offsets_of(pb.block)) {
          ASSERT_TRUE(l >= 0 && l < count) << what << " receives into " << l;
          const Index g = start + l;
          Index s = g + amount;
          if (mode == ShiftMode::cyclic) s %= N;
          ASSERT_LT(s, N) << what << ": element " << g << " has no source";
          EXPECT_EQ(block_owner(s, N, P), pb.peer) << what << " element " << g;
          EXPECT_TRUE(written.insert(l).second) << what << " element " << g << " twice";
          auto [it, first] = last_from.emplace(pb.peer, s);
          EXPECT_TRUE(first || it->second < s) << what << ": out of order from " << pb.peer;
          it->second = s;
        }
      }
      for (const adlib::StridedBlock& b : plan.vacated)
        for (std::int64_t l : adlib_test::offsets_of(b)) {
          ASSERT_TRUE(l >= 0 && l < count) << what << " fills " << l;
          EXPECT_GE(start + l + amount, N) << what << " fills an element with a source";
          EXPECT_TRUE(written.insert(l).second) << what << " fills a received element";
        }
      const Index sourceless = std::max<Index>(0, std::min(count, start + count + amount - N));
      const Index expected_written = mode == ShiftMode::keep ? count - sourceless : count;
      EXPECT_EQ(static_cast<Index>(written.size()), expected_written) << what;
      // Sends: every owned element that is some element's source, to the
      // owner of that element.
      Index sent = 0;
      for (const auto& pb : plan.exchange.sends) {
        peers.insert(pb.peer);
        for (std::int64_t l : adlib_test::offsets_of(pb.block)) {
          ASSERT_TRUE(l >= 0 && l < count) << what << " sends " << l;
          Index t = start + l - amount;
          if (mode == ShiftMode::cyclic) t = (t + N) % N;
          ASSERT_GE(t, 0) << what << ": element " << start + l << " is nobody's source";
          EXPECT_EQ(block_owner(t, N, P), pb.peer) << what << " element " << start + l;
          ++sent;
        }
      }
      const Index unsent =
          mode == ShiftMode::cyclic ? 0 : std::max<Index>(0, std::min(count, amount - start));
      EXPECT_EQ(sent, count - unsent) << what;
      // O(neighbours): a few peers, and a plan of a few blocks.
      EXPECT_LE(peers.size(), 8u) << what;
      EXPECT_LE(plan.exchange.sends.size() + plan.exchange.recvs.size(), 16u) << what;
    }
}

}  // namespace

}  // namespace serial_shift_plan
