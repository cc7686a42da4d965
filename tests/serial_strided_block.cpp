// SPDX-License-Identifier: BSD-3-Clause
// StridedBlock algebra and the pack kernels, against brute-force enumeration
// of element offsets: normalized(), fuse_blocks() and with_outer_dimension()
// must keep the element sequence (it is the message layout), contiguous(),
// lowest/highest_offset() must describe it, and pack / unpack / copy must
// move exactly those elements in that order.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <set>
#include <vector>

#include <adlib/runtime/detail/pack.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/strided_block.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include "block_reference.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_strided_block {

namespace {

using adlib::StridedBlock;
using adlib_test::Offsets;

// Kokkos for the pack kernels (gtest_main initialises nothing).
class KokkosEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    if (!Kokkos::is_initialized()) Kokkos::initialize();
  }
  void TearDown() override {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  }
};
::testing::Environment* const kokkos_environment =
    ::testing::AddGlobalTestEnvironment(new KokkosEnvironment);

using adlib_test::offsets_of;

Offsets concat(const std::vector<StridedBlock>& blocks) {
  Offsets out;
  for (const auto& b : blocks) {
    const Offsets o = offsets_of(b);
    out.insert(out.end(), o.begin(), o.end());
  }
  return out;
}

// A random block: extents 0..4 (often 1), strides that sometimes continue
// the next dimension (so normalisation has something to fuse), sometimes
// negative or zero, offset chosen so no element is below 0.
StridedBlock random_block(adlib_test::Rng& rng, int rank, bool allow_empty = true,
                          bool allow_zero_stride = true) {
  StridedBlock b;
  b.rank = rank;
  for (int d = rank - 1; d >= 0; --d) {
    b.extents[d] = rng.chance(20) ? 1 : rng.uniform(allow_empty && rng.chance(10) ? 0 : 1, 4);
    if (d + 1 < rank && rng.chance(40))
      b.strides[d] = b.strides[d + 1] * b.extents[d + 1];  // continues: fusable
    else
      b.strides[d] = rng.uniform(allow_zero_stride ? -12 : 1, 12);
    if (!allow_zero_stride && b.strides[d] == 0) b.strides[d] = 1;
    if (rng.chance(25)) b.strides[d] = -b.strides[d];
  }
  b.offset = 0;
  if (b.count() > 0) b.offset = -b.lowest_offset() + rng.uniform(0, 5);
  return b;
}

bool injective(const StridedBlock& b) {
  const Offsets o = offsets_of(b);
  return std::set<std::int64_t>(o.begin(), o.end()).size() == o.size();
}

TEST(SerialStridedBlock, MakeCountAndText) {
  const StridedBlock b = StridedBlock::make(5, {2, 3}, {10, -1});
  EXPECT_EQ(b.rank, 2);
  EXPECT_EQ(b.count(), 6);
  EXPECT_EQ(offsets_of(b), (Offsets{5, 4, 3, 15, 14, 13}));
  EXPECT_EQ(b.lowest_offset(), 3);
  EXPECT_EQ(b.highest_offset(), 15);
  EXPECT_EQ(StridedBlock::make(7, {}, {}).count(), 1);  // rank 0: one element
  EXPECT_THROW(StridedBlock::make(0, {1, 2}, {1}), adlib::Error);
  EXPECT_THROW(StridedBlock::make(0, {1, 1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1, 1}),
               adlib::Error);
  EXPECT_NE(b.to_string().find("offset 5"), std::string::npos);
}

TEST(SerialStridedBlock, NormalizedKeepsTheSequenceWithMinimalRank) {
  adlib_test::Rng rng(1);
  for (int trial = 0; trial < 20000; ++trial) {
    const StridedBlock b = random_block(rng, static_cast<int>(rng.uniform(0, 6)));
    SCOPED_TRACE(b.to_string());
    const StridedBlock n = b.normalized();
    ASSERT_EQ(offsets_of(n), offsets_of(b)) << "normalised " << n.to_string();
    EXPECT_EQ(n.count(), b.count());
    if (b.count() == 0) {
      EXPECT_EQ(n.rank, 1);
      EXPECT_EQ(n.extents[0], 0);
      continue;
    }
    // Nothing left to drop or fuse.
    for (int d = 0; d < n.rank; ++d) EXPECT_NE(n.extents[d], 1) << n.to_string();
    for (int d = 0; d + 1 < n.rank; ++d)
      EXPECT_NE(n.strides[d], n.strides[d + 1] * n.extents[d + 1]) << n.to_string();
    EXPECT_EQ(offsets_of(n.normalized()), offsets_of(n));
    // The extreme offsets describe the sequence.
    const Offsets o = offsets_of(b);
    EXPECT_EQ(b.lowest_offset(), *std::min_element(o.begin(), o.end()));
    EXPECT_EQ(b.highest_offset(), *std::max_element(o.begin(), o.end()));
    // contiguous(): consecutive increasing offsets.
    bool consecutive = true;
    for (size_t i = 1; i < o.size(); ++i) consecutive = consecutive && o[i] == o[i - 1] + 1;
    EXPECT_EQ(b.contiguous(), consecutive);
  }
}

TEST(SerialStridedBlock, OuterDimensionAndShapes) {
  adlib_test::Rng rng(2);
  for (int trial = 0; trial < 2000; ++trial) {
    const StridedBlock b = random_block(rng, static_cast<int>(rng.uniform(0, 7)));
    const std::int64_t extent = rng.uniform(0, 3), stride = rng.uniform(-20, 20);
    const StridedBlock o = b.with_outer_dimension(extent, stride);
    Offsets want;
    for (std::int64_t i = 0; i < extent; ++i)
      for (std::int64_t x : offsets_of(b)) want.push_back(x + i * stride);
    EXPECT_EQ(offsets_of(o), want) << b.to_string();
    EXPECT_EQ(o.rank, b.rank + 1);
  }
  StridedBlock full = StridedBlock::make(0, {1, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_THROW(full.with_outer_dimension(2, 1), adlib::Error);
  const auto a = StridedBlock::make(0, {2, 3}, {3, 1}), b = StridedBlock::make(9, {2, 3}, {3, 1});
  const auto c = StridedBlock::make(0, {2, 3}, {4, 1}), d = StridedBlock::make(0, {3, 2}, {2, 1});
  EXPECT_TRUE(adlib::same_shape(a, b));
  EXPECT_FALSE(adlib::same_shape(a, c));
  EXPECT_TRUE(adlib::same_extents(a, c));
  EXPECT_FALSE(adlib::same_extents(a, d));
  EXPECT_FALSE(adlib::same_extents(a, StridedBlock::make(0, {2, 3, 1}, {3, 1, 1})));
}

TEST(SerialStridedBlock, FuseBlocksKeepsTheConcatenatedSequence) {
  adlib_test::Rng rng(3);
  for (int trial = 0; trial < 5000; ++trial) {
    // Runs of equal blocks at a constant offset step (fusable), mixed with
    // arbitrary and empty blocks; ranks up to the maximum, where no outer
    // dimension can be added.
    std::vector<StridedBlock> blocks;
    const int runs = static_cast<int>(rng.uniform(0, 4));
    for (int r = 0; r < runs; ++r) {
      const int rank = rng.chance(10) ? adlib::kMaxBlockRank : static_cast<int>(rng.uniform(0, 3));
      StridedBlock b = random_block(rng, rank);
      const int copies = static_cast<int>(rng.uniform(1, 4));
      const std::int64_t delta = rng.uniform(-3, 30);
      for (int i = 0; i < copies; ++i) {
        blocks.push_back(b);
        b.offset += delta;
        if (b.offset < 0 || (b.count() > 0 && b.lowest_offset() < 0)) break;
      }
    }
    const auto fused = adlib::fuse_blocks(blocks);
    ASSERT_EQ(concat(fused), concat(blocks));
    std::size_t non_empty = 0;
    for (const auto& b : blocks) non_empty += b.count() > 0;
    EXPECT_LE(fused.size(), non_empty);
    for (const auto& b : fused) EXPECT_GT(b.count(), 0) << "empty blocks are dropped";
  }
  // Three rows of a 3 x 4 matrix, one after another: one contiguous block.
  const auto f =
      adlib::fuse_blocks({StridedBlock::make(0, {4}, {1}), StridedBlock::make(4, {4}, {1}),
                          StridedBlock::make(8, {4}, {1})});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].contiguous());
  EXPECT_EQ(f[0].count(), 12);
}

TEST(SerialPack, PackUnpackAndCopyMoveTheSequence) {
  adlib_test::Rng rng(4);
  Kokkos::DefaultHostExecutionSpace space;
  for (int trial = 0; trial < 3000; ++trial) {
    const StridedBlock b = random_block(rng, static_cast<int>(rng.uniform(0, 5)));
    const Offsets o = offsets_of(b);
    const std::int64_t size = o.empty() ? 1 : b.highest_offset() + 3;
    std::vector<double> memory(size), buffer(o.size() + 1, -5.0);
    for (std::int64_t i = 0; i < size; ++i) memory[i] = 100.0 + double(i);
    adlib::detail::pack_block<double>(space, memory.data(), b, buffer.data());
    space.fence();
    for (size_t i = 0; i < o.size(); ++i)
      ASSERT_EQ(buffer[i], 100.0 + double(o[i])) << b.to_string() << " element " << i;
    EXPECT_EQ(buffer[o.size()], -5.0) << "pack wrote past the block";
    if (!injective(b)) continue;  // unpack into repeated offsets: last write wins, skip
    std::vector<double> target(size, -1.0);
    for (size_t i = 0; i < o.size(); ++i) buffer[i] = 1000.0 + double(i);
    adlib::detail::unpack_block<double>(space, target.data(), b, buffer.data());
    space.fence();
    std::vector<double> want(size, -1.0);
    for (size_t i = 0; i < o.size(); ++i) want[o[i]] = 1000.0 + double(i);
    ASSERT_EQ(target, want) << b.to_string();
    // copy_block between two blocks of equal extents but different strides.
    StridedBlock c = random_block(rng, b.rank, false, false);
    for (int d = 0; d < b.rank; ++d) c.extents[d] = b.extents[d];
    c.offset = 0;
    if (c.count() > 0) c.offset = -c.lowest_offset() + rng.uniform(0, 3);
    if (!injective(c)) continue;
    const Offsets oc = offsets_of(c);
    const std::int64_t csize = oc.empty() ? 1 : c.highest_offset() + 1;
    std::vector<double> copy(csize, -1.0), copy_want(csize, -1.0);
    adlib::detail::copy_block<double>(space, copy.data(), c, memory.data(), b);
    space.fence();
    for (size_t i = 0; i < oc.size(); ++i) copy_want[oc[i]] = memory[o[i]];
    ASSERT_EQ(copy, copy_want) << c.to_string() << " <- " << b.to_string();
  }
}

}  // namespace

}  // namespace serial_strided_block
