// SPDX-License-Identifier: BSD-3-Clause
// Runtime pieces that need no MPI: the tag allocator and the pack kernels,
// checked element by element against a direct evaluation of the block's
// address formula.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <adlib/runtime/detail/huge_pages.hpp>
#include <adlib/runtime/detail/pack.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/owner_groups.hpp>
#include <adlib/runtime/tag_allocator.hpp>
#include <adlib/version.hpp>
#include "block_reference.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_runtime {

namespace {

TEST(TagAllocator, LowestFreeFirstAndRecycled) {
  adlib::TagAllocator tags(1, 4);
  EXPECT_EQ(tags.acquire(), 1);
  EXPECT_EQ(tags.acquire(), 2);
  EXPECT_EQ(tags.acquire(), 3);
  tags.release(2);
  EXPECT_EQ(tags.live_count(), 2);
  EXPECT_EQ(tags.acquire(), 2);  // recycled before fresh ones
  EXPECT_EQ(tags.acquire(), 4);
  EXPECT_THROW(tags.acquire(), adlib::Error);  // never past the upper bound
  tags.release(4);
  tags.release(4);  // a double release must not hand the tag out twice
  EXPECT_EQ(tags.acquire(), 4);
  EXPECT_THROW(tags.acquire(), adlib::Error);
}

TEST(TagAllocator, TakeAChosenTag) {
  adlib::TagAllocator tags(1, 200);
  EXPECT_EQ(tags.acquire(), 1);
  tags.take(5);  // 2..4 stay free
  EXPECT_TRUE(tags.in_use(5));
  EXPECT_THROW(tags.take(5), adlib::Error);
  EXPECT_THROW(tags.take(0), adlib::Error);
  EXPECT_THROW(tags.take(201), adlib::Error);
  EXPECT_EQ(tags.acquire(), 2);
  tags.take(3);
  EXPECT_EQ(tags.acquire(), 4);
  EXPECT_EQ(tags.acquire(), 6);
  std::uint64_t mask[2];
  tags.take(1 + 64 + 3);  // bit 3 of the second word
  tags.usage_mask(1, mask, 2);
  EXPECT_EQ(mask[0], std::uint64_t{0x3f});  // tags 1..6
  EXPECT_EQ(mask[1], std::uint64_t{1} << 3);
  tags.release(3);
  tags.usage_mask(1, mask, 1);
  EXPECT_EQ(mask[0], std::uint64_t{0x3b});
  EXPECT_EQ(tags.acquire(), 3);  // released tags are reused first
}

TEST(TagAllocator, EmptyRangeRejected) {
  EXPECT_THROW(adlib::TagAllocator(5, 4), adlib::Error);
}

const auto reference_offsets = adlib_test::offsets_of;

adlib::StridedBlock random_block(std::mt19937& rng, std::int64_t& memory_needed) {
  adlib::StridedBlock b;
  b.rank = std::uniform_int_distribution<int>(0, 4)(rng);
  std::int64_t span = 1;
  // Inner dimensions first so outer strides can step over them (or not).
  for (int d = b.rank - 1; d >= 0; --d) {
    b.extents[d] = std::uniform_int_distribution<int>(0, 4)(rng);
    const int kind = std::uniform_int_distribution<int>(0, 3)(rng);
    std::int64_t stride = kind == 0 ? span : span * std::uniform_int_distribution<int>(1, 3)(rng);
    if (kind == 3) stride = -stride;  // negative strides walk downwards
    b.strides[d] = stride;
    span = span + std::abs(stride) * (b.extents[d] > 0 ? b.extents[d] : 1);
  }
  b.offset = span;  // leaves room below for negative strides
  memory_needed = 2 * span + 1;
  return b;
}

TEST(Pack, RandomBlocksMatchReference) {
  std::mt19937 rng(12345);
  Kokkos::DefaultHostExecutionSpace space;
  for (int trial = 0; trial < 500; ++trial) {
    std::int64_t needed = 0;
    const adlib::StridedBlock b = random_block(rng, needed);
    const auto offsets = reference_offsets(b);
    std::vector<double> memory(needed);
    for (std::int64_t i = 0; i < needed; ++i) memory[i] = double(i);
    std::vector<double> buffer(offsets.size() + 1, -1.0);
    adlib::detail::pack_block<double>(space, memory.data(), b, buffer.data());
    space.fence();
    for (size_t p = 0; p < offsets.size(); ++p)
      ASSERT_EQ(buffer[p], double(offsets[p])) << b.to_string() << " element " << p;
    ASSERT_EQ(buffer[offsets.size()], -1.0) << "pack wrote past the block";

    // Unpack a distinct value per element; everything else stays untouched.
    std::vector<double> target(needed, -2.0), values(offsets.size());
    for (size_t p = 0; p < values.size(); ++p) values[p] = 1000.0 + double(p);
    adlib::detail::unpack_block<double>(space, target.data(), b, values.data());
    space.fence();
    std::vector<double> expected(needed, -2.0);
    for (size_t p = 0; p < offsets.size(); ++p) expected[offsets[p]] = values[p];
    ASSERT_EQ(target, expected) << b.to_string();

    // copy_block between the block and a contiguous block of equal extents.
    adlib::StridedBlock dense = b;
    dense.offset = 0;
    std::int64_t s = 1;
    for (int d = b.rank - 1; d >= 0; --d) {
      dense.strides[d] = s;
      s *= b.extents[d];
    }
    std::vector<double> copied(offsets.size() + 1, -3.0);
    adlib::detail::copy_block<double>(space, copied.data(), dense, memory.data(), b);
    space.fence();
    for (size_t p = 0; p < offsets.size(); ++p) ASSERT_EQ(copied[p], double(offsets[p]));
    ASSERT_EQ(copied[offsets.size()], -3.0);
  }
}

// Copies that share a source shape and walk together must write exactly what
// the same copies made one by one write (targets of several shapes, and
// chunking over inner extents longer than one chunk).
TEST(Pack, SharedSourceWalkMatchesSeparateCopies) {
  std::mt19937 rng(4242);
  Kokkos::DefaultHostExecutionSpace space;
  for (int trial = 0; trial < 300; ++trial) {
    std::int64_t needed = 0;
    adlib::StridedBlock shape = random_block(rng, needed);
    if (trial % 10 == 0) shape = adlib::StridedBlock::make(3, {1500}, {2});  // long inner rows
    const int copies =
        std::uniform_int_distribution<int>(1, adlib::detail::kMaxSharedSourceCopies)(rng);
    std::vector<adlib::StridedBlock> sources, targets;
    std::int64_t source_span = 0;
    for (int k = 0; k < copies; ++k) {
      adlib::StridedBlock s = shape;
      s.offset = shape.offset + k;  // interleaved reads of the same rows
      sources.push_back(s);
      source_span = std::max(source_span, s.count() > 0 ? s.highest_offset() + 1 : 0);
      adlib::StridedBlock t = s;  // a target of the same extents, own strides
      std::int64_t stride = 1;
      for (int d = t.rank - 1; d >= 0; --d) {
        t.strides[d] = (k % 2 == 0 ? 1 : 2) * stride;
        stride *= std::max<std::int64_t>(t.extents[d], 1) * (k % 2 == 0 ? 1 : 2);
      }
      t.offset = 0;
      targets.push_back(t);
    }
    std::vector<double> source(source_span + needed);
    for (size_t i = 0; i < source.size(); ++i) source[i] = double(i);
    std::vector<std::vector<double>> together(copies), separate(copies);
    std::vector<double*> bases;
    for (int k = 0; k < copies; ++k) {
      const std::int64_t span = targets[k].count() > 0 ? targets[k].highest_offset() + 1 : 1;
      together[k].assign(span, -1.0);
      separate[k].assign(span, -1.0);
      bases.push_back(together[k].data());
      adlib::detail::copy_block<double>(space, separate[k].data(), targets[k], source.data(),
                                        sources[k]);
    }
    adlib::detail::copy_blocks_sharing_source<double>(space, source.data(), sources.data(),
                                                      bases.data(), targets.data(), copies);
    space.fence();
    for (int k = 0; k < copies; ++k) ASSERT_EQ(together[k], separate[k]) << shape.to_string();
  }
}

// The advice changes how memory is backed, never what it holds: vectors
// reserved through it, below and above the advice threshold and at
// unaligned starts, keep every value written; a vector with room keeps its
// memory; null and tiny ranges are accepted.
TEST(HugePages, AdvisedMemoryHoldsWhatIsWritten) {
  adlib::detail::advise_huge_pages(nullptr, std::size_t(64) << 20);
  adlib::detail::advise_huge_pages(&adlib::detail::kHugePageAdviceBytes, 1);
  const std::size_t big = adlib::detail::kHugePageAdviceBytes / sizeof(std::int64_t);
  for (const std::size_t count : {std::size_t(0), std::size_t(1), big - 1, 3 * big + 5}) {
    std::vector<std::int64_t> v;
    adlib::detail::reserve_huge(v, count);
    EXPECT_GE(v.capacity(), count);
    for (std::size_t k = 0; k < count; ++k) v.push_back(static_cast<std::int64_t>(k * 7 + 1));
    for (std::size_t k = 0; k < count; ++k)
      ASSERT_EQ(v[k], static_cast<std::int64_t>(k * 7 + 1)) << "count " << count << " at " << k;
    const std::int64_t* before = v.data();
    adlib::detail::reserve_huge(v, count / 2);  // room already: nothing moves
    EXPECT_EQ(v.data(), before);
  }
  // An unaligned interior range of a large buffer.
  std::vector<char> bytes(3 * adlib::detail::kHugePageAdviceBytes);
  adlib::detail::advise_huge_pages(bytes.data() + 12345, bytes.size() - 20000);
  for (std::size_t k = 0; k < bytes.size(); k += 4093) bytes[k] = static_cast<char>(k % 127);
  for (std::size_t k = 0; k < bytes.size(); k += 4093)
    ASSERT_EQ(bytes[k], static_cast<char>(k % 127));
}

// OwnerGroups is a stable counting sort by owner: its slots hold the
// requests as std::stable_sort by owner orders them, each group's stretch
// [begin, end) holds exactly its owner's requests, and the stretches follow
// one another by ascending owner - with owners met in any order (here
// descending, random, one owner, none, and owners beyond the small cache).
TEST(OwnerGroups, SlotsAreAStableSortByOwner) {
  std::mt19937 random(2026);
  std::vector<std::vector<int>> cases = {{}, {5}, {3, 3, 3}, {9, 7, 7, 2, 9, 0, 2}};
  for (const int owners : {4, 70, 1000}) {
    std::uniform_int_distribution<int> pick(0, owners - 1);
    std::vector<int> requests(5000);
    for (int& owner : requests) owner = pick(random);
    cases.push_back(requests);
  }
  for (const std::vector<int>& owner_of : cases) {
    adlib::OwnerGroups groups;
    for (const int owner : owner_of) groups.count(owner);
    groups.close_counting();
    ASSERT_EQ(groups.total(), owner_of.size());
    std::vector<std::size_t> slots(owner_of.size());
    for (std::size_t k = 0; k < owner_of.size(); ++k) slots[groups.place(owner_of[k])] = k;

    std::vector<std::size_t> expected(owner_of.size());
    for (std::size_t k = 0; k < expected.size(); ++k) expected[k] = k;
    std::stable_sort(expected.begin(), expected.end(),
                     [&](std::size_t a, std::size_t b) { return owner_of[a] < owner_of[b]; });
    EXPECT_EQ(slots, expected);

    std::size_t next = 0;
    int previous_owner = -1;
    for (const std::size_t g : groups.by_ascending_owner()) {
      const int owner = groups.owner(g);
      EXPECT_GT(owner, previous_owner);
      previous_owner = owner;
      EXPECT_EQ(groups.begin(g), next);
      EXPECT_EQ(groups.number(owner), g);
      for (std::size_t slot = groups.begin(g); slot < groups.end(g); ++slot)
        EXPECT_EQ(owner_of[slots[slot]], owner);
      next = groups.end(g);
    }
    EXPECT_EQ(next, owner_of.size());
  }
}

TEST(StridedBlock, NormalizeKeepsElementSequence) {
  std::mt19937 rng(777);
  for (int trial = 0; trial < 500; ++trial) {
    std::int64_t needed = 0;
    const adlib::StridedBlock b = random_block(rng, needed);
    const adlib::StridedBlock n = b.normalized();
    ASSERT_LE(n.rank, b.rank > 0 ? b.rank : 1);
    ASSERT_EQ(reference_offsets(b), reference_offsets(n))
        << b.to_string() << " -> " << n.to_string();
    if (b.count() > 0) {
      const auto offs = reference_offsets(b);
      ASSERT_EQ(b.lowest_offset(), *std::min_element(offs.begin(), offs.end()));
      ASSERT_EQ(b.highest_offset(), *std::max_element(offs.begin(), offs.end()));
    }
  }
}

}  // namespace

// The generated header, the library and the CMake project version agree.
TEST(Version, HeaderLibraryAndProjectAgree) {
  const adlib::Version v = adlib::version();
  EXPECT_EQ(v.major, ADLIB_VERSION_MAJOR);
  EXPECT_EQ(v.minor, ADLIB_VERSION_MINOR);
  EXPECT_EQ(v.patch, ADLIB_VERSION_PATCH);
  EXPECT_STREQ(adlib::version_string(), ADLIB_VERSION_STRING);
  EXPECT_STREQ(ADLIB_VERSION_STRING, ADLIB_TEST_PROJECT_VERSION);
  EXPECT_EQ(ADLIB_VERSION, v.major * 10000 + v.minor * 100 + v.patch);
}

}  // namespace serial_runtime
