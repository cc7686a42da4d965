// SPDX-License-Identifier: BSD-3-Clause
// The planning of ArrayGather and ArrayScatter (resolve_array_subscripts,
// check_array_arguments) for simulated process counts in one process: every
// simulated rank's local blocks of the subscript arrays and the mask are
// filled from global positions through the reference model of
// test_layouts.hpp, its requests are resolved, and each request is decoded
// back (SectionDecoder: local offset -> global position, never the
// library's inquiries): a request's local offset must be an element the rank
// holds, with its mask true, and its owner offset must be, in the owner's
// memory, the element its subscripts name.  Every held, unmasked element
// asks once (a gather, from the serving replica of the vector form's rule)
// or once per replica of its target (a scatter, from replica 0 of a
// replicated source only).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <adlib/collectives/array_subscripts.hpp>

#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_array_subscripts {

namespace {

using adlib::Index;
using adlib::RemoteAccess;
using adlib_test::Rng;
using adlib_test::SectionDecoder;
using adlib_test::SideSpec;

Index element_count(const std::vector<Index>& shape) {
  Index n = 1;
  for (Index e : shape) n *= e;
  return n;
}
std::vector<Index> unlinear(Index l, const std::vector<Index>& shape) {
  std::vector<Index> p(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    p[d] = l % shape[d];
    l /= shape[d];
  }
  return p;
}

// Ranks holding linear section position `a` of `spec`, ascending.
std::vector<int> holders(const SideSpec& spec, int P, Index a) {
  const std::vector<Index> p = unlinear(a, spec.shape());
  std::vector<int> out;
  for (int h = 0; h < P; ++h) {
    bool all = spec.holds(h);
    for (int d = 0; all && d < spec.rank(); ++d)
      all = spec.ranges[d].owner(spec.section[d].at(p[d])).coord == spec.coordinate(h, d);
    if (all) out.push_back(h);
  }
  return out;
}

// One simulated rank's packed local block of an array aligned with `spec`,
// element at linear section position a set to value(a).
template <class T, class F>
std::vector<T> local_block(const SideSpec& spec, int r, F&& value) {
  const SectionDecoder decode(spec, r);
  std::vector<T> block(static_cast<std::size_t>(decode.size()), T{});
  for (Index o = 0; o < decode.size(); ++o) {
    const Index a = decode(o);
    if (a >= 0) block[static_cast<std::size_t>(o)] = value(a);
  }
  return block;
}
std::vector<Index> packed_strides(const SideSpec& spec, int r) {
  const std::vector<Index> e = spec.local_extents(r);
  std::vector<Index> s(e.size(), 1);
  for (std::size_t d = e.size(); d-- > 1;) s[d - 1] = s[d] * std::max<Index>(e[d], 1);
  return s;
}

void check(Rng& rng, int trial) {
  const int P = static_cast<int>(rng.uniform(1, 7));
  const int aligned_rank = static_cast<int>(rng.uniform(1, 2));
  const int indexed_rank = static_cast<int>(rng.uniform(1, 3));
  SideSpec aligned, indexed;
  for (;;) {
    aligned = adlib_test::random_side(rng, adlib_test::random_shape(rng, aligned_rank, 7),
                                      adlib_test::random_grid(rng, P, 2), std::nullopt);
    indexed = adlib_test::random_side(rng, adlib_test::random_shape(rng, indexed_rank, 6),
                                      adlib_test::random_grid(rng, P, 2), std::nullopt);
    if (element_count(aligned.shape()) == 0 || element_count(indexed.shape()) > 0) break;
  }
  const Index na = element_count(aligned.shape()), ni = element_count(indexed.shape());
  std::vector<Index> target(static_cast<std::size_t>(na));
  for (Index& t : target) t = rng.uniform(0, ni - 1);
  std::vector<char> mask(static_cast<std::size_t>(na), 1);
  const bool masked = rng.chance(50);
  if (masked)
    for (char& m : mask) m = rng.chance(60) ? 1 : 0;
  SCOPED_TRACE("trial " + std::to_string(trial) + " P=" + std::to_string(P) + " aligned " +
               aligned.describe() + " indexed " + indexed.describe());

  const adlib::ProcessGrid agrid(aligned.grid_shape), igrid(indexed.grid_shape);
  const adlib::ArrayLayout alayout =
      adlib_test::make_parent(aligned, agrid).section(aligned.section);
  const adlib::ArrayLayout ilayout =
      adlib_test::make_parent(indexed, igrid).section(indexed.section);
  const std::vector<Index> ishape = indexed.shape();

  for (RemoteAccess access : {RemoteAccess::read, RemoteAccess::write}) {
    // (aligned position, serving or target rank) -> times asked, over all ranks.
    std::map<std::pair<Index, int>, int> asked;
    for (int r = 0; r < P; ++r) {
      std::vector<std::vector<Index>> subs;
      adlib::HostSubscripts held;
      for (int d = 0; d < indexed_rank; ++d)
        subs.push_back(local_block<Index>(aligned, r,
                                          [&](Index a) { return unlinear(target[a], ishape)[d]; }));
      for (int d = 0; d < indexed_rank; ++d) {
        held.data.push_back(subs[d].data());
        held.strides.push_back(packed_strides(aligned, r));
      }
      const std::vector<char> mask_block =
          local_block<char>(aligned, r, [&](Index a) { return mask[a]; });
      std::unique_ptr<bool[]> mask_bools(new bool[mask_block.size() + 1]);
      for (std::size_t o = 0; o < mask_block.size(); ++o) mask_bools[o] = mask_block[o] != 0;
      if (masked) {
        held.mask = mask_bools.get();
        held.mask_strides = packed_strides(aligned, r);
      }
      ASSERT_EQ(adlib::check_array_arguments(ilayout, alayout,
                                             std::vector<adlib::ArrayLayout>(
                                                 static_cast<std::size_t>(indexed_rank), alayout),
                                             masked ? &alayout : nullptr, r, "destination"),
                "");
      const adlib::ResolvedSubscripts resolved =
          adlib::resolve_array_subscripts(ilayout, alayout, held, r, access);
      ASSERT_EQ(resolved.error, "");
      const SectionDecoder mine(aligned, r);
      for (const adlib::ElementRequest& q : resolved.requests) {
        const Index a = mine(q.local_offset);
        ASSERT_GE(a, 0) << "rank " << r << " asks into offset " << q.local_offset
                        << " that holds no element";
        EXPECT_TRUE(mask[a]) << "a masked-out element asks";
        ASSERT_TRUE(q.owner >= 0 && q.owner < P);
        EXPECT_EQ(SectionDecoder(indexed, q.owner)(q.owner_offset), target[a])
            << "rank " << r << " position " << a << " asks the wrong element of " << q.owner;
        ++asked[{a, q.owner}];
        if (access == RemoteAccess::read) {
          const auto h = holders(indexed, P, target[a]);
          const bool has = std::find(h.begin(), h.end(), r) != h.end();
          EXPECT_EQ(q.owner, has ? r : h[static_cast<std::size_t>(r) % h.size()]);
        }
      }
    }
    // Every unmasked element: a gather asks once per holder of it (each
    // replica fills its copy); a scatter once per replica of its target,
    // from its first holder only.
    std::size_t expected = 0;
    for (Index a = 0; a < na; ++a) {
      if (!mask[a]) continue;
      const auto h = holders(aligned, P, a);
      if (h.empty()) continue;
      if (access == RemoteAccess::read) {
        expected += h.size();
      } else {
        for (int owner : holders(indexed, P, target[a])) {
          ++expected;
          EXPECT_EQ((asked[{a, owner}]), 1) << "position " << a << " to replica " << owner;
        }
      }
    }
    std::size_t total = 0;
    for (const auto& e : asked) total += static_cast<std::size_t>(e.second);
    EXPECT_EQ(total, expected) << (access == RemoteAccess::read ? "gather" : "scatter");
  }
}

TEST(ArraySubscripts, RandomLayoutsAtSimulatedProcessCounts) {
  Rng rng(20261123);
  for (int trial = 0; trial < 300; ++trial) {
    check(rng, trial);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ArraySubscripts, BadArgumentsAreNamed) {
  const adlib::ProcessGrid grid(std::vector<int>{3});
  const adlib::ArrayLayout block(adlib::Group(grid),
                                 {std::make_shared<adlib::BlockRange>(6, grid.dim(0))});
  const adlib::ArrayLayout cyclic(adlib::Group(grid),
                                  {std::make_shared<adlib::CyclicRange>(6, grid.dim(0))});
  const adlib::ArrayLayout matrix(adlib::Group(grid),
                                  {std::make_shared<adlib::BlockRange>(6, grid.dim(0)),
                                   std::make_shared<adlib::CollapsedRange>(4)});
  EXPECT_EQ(adlib::check_array_arguments(matrix, block, {block, block}, &block, 0, "destination"),
            "");
  EXPECT_EQ(adlib::check_array_arguments(matrix, block, {block}, nullptr, 0, "destination"),
            "1 subscript arrays for an indexed array of rank 2");
  EXPECT_NE(adlib::check_array_arguments(matrix, block, {block, cyclic}, nullptr, 0, "destination")
                .find("subscript array 1 has layout"),
            std::string::npos);
  EXPECT_NE(adlib::check_array_arguments(matrix, block, {block, block}, &cyclic, 0, "destination")
                .find("the mask has layout"),
            std::string::npos);
  EXPECT_NE(adlib::check_array_arguments(matrix.with_storage(1, {2, 5}), block, {block, block},
                                         nullptr, 1, "destination")
                .find("padded"),
            std::string::npos);
  // Rank 1 holds positions 2 and 3 of the block layout; its packed blocks.
  const Index rows[] = {5, 6}, cols[] = {0, 3};
  adlib::HostSubscripts held;
  held.data = {rows, cols};
  held.strides = {{1}, {1}};
  const auto bad = adlib::resolve_array_subscripts(matrix, block, held, 1, RemoteAccess::read);
  EXPECT_EQ(bad.error, "subscript 6 of dimension 0 at position (3) is outside [0, 6)");
  EXPECT_TRUE(bad.requests.empty());
  const bool mask[] = {true, false};
  held.mask = mask;
  held.mask_strides = {1};
  const auto fine = adlib::resolve_array_subscripts(matrix, block, held, 1, RemoteAccess::read);
  EXPECT_EQ(fine.error, "");
  ASSERT_EQ(fine.requests.size(), 1u);
  EXPECT_EQ(fine.requests[0].owner, 2);         // row 5: rank 2's block (rows 4, 5)
  EXPECT_EQ(fine.requests[0].owner_offset, 4);  // its local row 1, column 0
  EXPECT_EQ(fine.requests[0].local_offset, 0);
}

}  // namespace

}  // namespace serial_array_subscripts
