// SPDX-License-Identifier: BSD-3-Clause
// IndexList (runtime/index_list.hpp) and index-list messages in
// BlockMessagePlan: the element sequence survives the compact form (runs of
// consecutive offsets, stretches of single ones) whatever the input, the
// plan memory stays within 8 bytes per single element, repeats are
// detected, and a peer's message carries its blocks then its index lists.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <adlib/runtime/detail/device_index_list.hpp>
#include <adlib/runtime/detail/index_list_kernels.hpp>
#include <adlib/runtime/detail/pack.hpp>
#include <adlib/runtime/index_list.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_index_list {

namespace {

using adlib::IndexList;
using Offsets = std::vector<std::int64_t>;

Offsets random_offsets(adlib_test::Rng& rng) {
  Offsets out;
  const auto pieces = rng.uniform(0, 6);
  for (std::int64_t p = 0; p < pieces; ++p) {
    if (rng.chance(40)) {
      const auto first = rng.uniform(0, 500), n = rng.uniform(1, 30);  // a run, maybe long
      for (std::int64_t k = 0; k < n; ++k) out.push_back(first + k);
    } else {
      const auto n = rng.uniform(1, 12);
      for (std::int64_t k = 0; k < n; ++k) out.push_back(rng.uniform(0, 500));
    }
  }
  return out;
}

// The one layout from() may choose: every maximal stretch of at least
// `min_run` consecutive offsets is a run, everything between runs is one
// stretch of singles (kept in order), and the positions add up.
void expect_canonical_segments(const IndexList& list, const Offsets& offsets,
                               std::int64_t min_run) {
  min_run = std::max<std::int64_t>(min_run, 2);
  std::int64_t position = 0, singles = 0;
  for (std::size_t k = 0; k < list.segments.size(); ++k) {
    const IndexList::Segment& s = list.segments[k];
    ASSERT_EQ(s.position, position) << "segment " << k;
    ASSERT_GT(s.count, 0) << "segment " << k;
    const auto at = [&](std::int64_t i) { return offsets[static_cast<std::size_t>(i)]; };
    if (s.run) {
      ASSERT_GE(s.count, min_run);
      ASSERT_EQ(s.first, at(position));
      for (std::int64_t i = 1; i < s.count; ++i) {
        ASSERT_EQ(at(position + i), s.first + i);
      }
      if (position > 0) {
        ASSERT_NE(at(position - 1) + 1, at(position)) << "run " << k << " starts late";
      }
      const std::int64_t end = position + s.count;
      if (end < list.count) {
        ASSERT_NE(at(end - 1) + 1, at(end)) << "run " << k << " ends early";
      }
    } else {
      ASSERT_EQ(s.first, singles) << "segment " << k;
      if (k > 0) {
        ASSERT_TRUE(list.segments[k - 1].run) << "two stretches of singles in a row";
      }
      std::int64_t streak = 1;
      for (std::int64_t i = 1; i < s.count; ++i) {
        streak = at(position + i) == at(position + i - 1) + 1 ? streak + 1 : 1;
        ASSERT_LT(streak, min_run) << "a run left among singles, segment " << k;
      }
      singles += s.count;
    }
    position += s.count;
  }
  ASSERT_EQ(position, list.count);
  ASSERT_EQ(static_cast<std::int64_t>(list.singles.size()), singles);
}

TEST(SerialIndexList, KeepsTheSequenceAndItsRepeats) {
  adlib_test::Rng rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    const Offsets offsets = random_offsets(rng);
    const IndexList list = IndexList::from(offsets);
    ASSERT_EQ(list.offsets(), offsets);
    ASSERT_EQ(list.count, static_cast<std::int64_t>(offsets.size()));
    expect_canonical_segments(list, offsets, adlib::kMinIndexRun);
    std::vector<std::int64_t> sorted = offsets;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(list.repeats, std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end());
    // 8 bytes per element outside runs, plus one segment per stretch.
    std::int64_t singles = 0;
    for (const auto& s : list.segments) {
      if (!s.run) singles += s.count;
      if (s.run) {
        ASSERT_GE(s.count, adlib::kMinIndexRun);
      }
    }
    ASSERT_EQ(static_cast<std::int64_t>(list.singles.size()), singles);
  }
  // A long list in which each offset follows the one before it at a coin
  // toss (a Gather's requester side at two ranks): rare runs among singles.
  Offsets coin(100000);
  for (std::size_t k = 1; k < coin.size(); ++k)
    coin[k] = coin[k - 1] + (rng.chance(50) ? 1 : rng.uniform(2, 5));
  const IndexList tossed = IndexList::from(coin);
  ASSERT_EQ(tossed.offsets(), coin);
  expect_canonical_segments(tossed, coin, adlib::kMinIndexRun);
  EXPECT_GT(tossed.segments.size(), 100u);
  // A long run costs one segment; scattered offsets cost 8 bytes each.
  Offsets run(10000);
  for (std::int64_t k = 0; k < 10000; ++k) run[k] = 7 + k;
  EXPECT_EQ(IndexList::from(run).segments.size(), 1u);
  EXPECT_TRUE(IndexList::from(run).singles.empty());
  Offsets scattered(10000);
  for (std::int64_t k = 0; k < 10000; ++k) scattered[k] = 3 * k;
  EXPECT_LE(IndexList::from(scattered).bytes(), 10000 * 8 + 64);
}

// A caller whose elements come in short units (a mesh's columns of a few
// values) lowers the run length: each unit is one row, the sequence intact.
TEST(SerialIndexList, ShorterRunsOnRequest) {
  adlib_test::Rng rng(5);
  for (int trial = 0; trial < 500; ++trial) {
    const Offsets offsets = random_offsets(rng);
    const std::int64_t min_run = rng.uniform(0, 9);
    const IndexList list = IndexList::from(offsets, min_run);
    ASSERT_EQ(list.offsets(), offsets);
    expect_canonical_segments(list, offsets, min_run);
    for (const auto& segment : list.segments) {
      if (segment.run) {
        ASSERT_GE(segment.count, std::max<std::int64_t>(min_run, 2));
      }
    }
  }
  const IndexList columns = IndexList::from({30, 31, 32, 3, 4, 5, 17}, 3);
  ASSERT_EQ(columns.segments.size(), 3u);
  EXPECT_TRUE(columns.segments[0].run && columns.segments[1].run && !columns.segments[2].run);
  EXPECT_EQ(columns.singles, (Offsets{17}));
  EXPECT_EQ(IndexList::from({30, 31, 32, 3, 4, 5, 17}).segments.size(), 1u);  // all singles
}

TEST(SerialIndexList, PackUnpackAndLocalCopyFollowTheList) {
  adlib_test::Rng rng(5);
  const Kokkos::DefaultHostExecutionSpace space;
  for (int trial = 0; trial < 300; ++trial) {
    const Offsets offsets = random_offsets(rng);
    const IndexList list = IndexList::from(offsets);
    std::vector<long long> memory(600), buffer(offsets.size());
    for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = 10 * static_cast<long long>(i);
    adlib::detail::pack_indices<long long>(space, memory.data(), list, buffer.data());
    for (std::size_t k = 0; k < offsets.size(); ++k) ASSERT_EQ(buffer[k], memory[offsets[k]]);
    // Unpack with add: every value counts, repeats included.
    std::vector<long long> target(600, 1), expected(600, 1);
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      buffer[k] = static_cast<long long>(k) + 1;
      expected[offsets[k]] += buffer[k];
    }
    adlib::detail::unpack_indices<long long>(space, target.data(), list, buffer.data(),
                                             adlib::op::add);
    ASSERT_EQ(target, expected);
    // A local copy between two lists of equal length and other shapes.
    Offsets reversed(offsets.rbegin(), offsets.rend());
    std::vector<long long> copy(600, -1), want(600, -1);
    for (std::size_t k = 0; k < offsets.size(); ++k) want[reversed[k]] = memory[offsets[k]];
    adlib::detail::copy_indices<long long>(space, copy.data(), IndexList::from(reversed),
                                           memory.data(), list);
    ASSERT_EQ(copy, want);
  }
}

// The device form's kernels (one thread per element, or per distinct target
// when offsets repeat) against the serial reference, with an operation that
// does not commute so that the order of repeated targets shows.
TEST(SerialIndexList, DeviceKernelsFollowTheListInOrder) {
  adlib_test::Rng rng(11);
  const Kokkos::DefaultExecutionSpace space;
  using Space = Kokkos::DefaultExecutionSpace::memory_space;
  // Order-sensitive, and kept below 2^63 by the modulus: long repeat chains
  // of 3 * target + value overflowed (UBSan in CI).
  constexpr long long kModulus = 1000003;
  const auto ordered = adlib::op::combine(
      [](long long& target, const long long& value) { target = (3 * target + value) % kModulus; });
  for (int trial = 0; trial < 300; ++trial) {
    const Offsets offsets = random_offsets(rng);
    const IndexList host_list = IndexList::from(offsets);
    const auto list = adlib::detail::DeviceIndexList<Space>::from(host_list);
    ASSERT_EQ(list.count, static_cast<std::int64_t>(offsets.size()));
    ASSERT_EQ(list.repeats, host_list.repeats);
    std::vector<long long> memory(600), buffer(offsets.size());
    for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = 10 * static_cast<long long>(i);
    adlib::detail::pack_indices<long long>(space, memory.data(), list, buffer.data());
    space.fence();
    for (std::size_t k = 0; k < offsets.size(); ++k) ASSERT_EQ(buffer[k], memory[offsets[k]]);
    for (std::size_t k = 0; k < offsets.size(); ++k) buffer[k] = static_cast<long long>(k) + 1;
    // Replace: the last value aimed at a target wins; the ordered operation:
    // every value, in list order.
    std::vector<long long> replaced(600, -1), want_replaced(600, -1);
    std::vector<long long> combined(600, 1), want_combined(600, 1);
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      want_replaced[offsets[k]] = buffer[k];
      want_combined[offsets[k]] = (3 * want_combined[offsets[k]] + buffer[k]) % kModulus;
    }
    adlib::detail::unpack_indices<long long>(space, replaced.data(), list, buffer.data());
    adlib::detail::unpack_indices<long long>(space, combined.data(), list, buffer.data(), ordered);
    space.fence();
    ASSERT_EQ(replaced, want_replaced);
    ASSERT_EQ(combined, want_combined);
    // A local copy into a list of other shape, combining in order.
    const Offsets reversed(offsets.rbegin(), offsets.rend());
    const auto source = adlib::detail::DeviceIndexList<Space>::from(IndexList::from(reversed));
    std::vector<long long> copy(600, 1), want(600, 1);
    for (std::size_t k = 0; k < offsets.size(); ++k)
      want[offsets[k]] = (3 * want[offsets[k]] + memory[reversed[k]]) % kModulus;
    adlib::detail::copy_indices<long long>(space, copy.data(), list, memory.data(), source,
                                           ordered);
    space.fence();
    ASSERT_EQ(copy, want);
  }
}

// combine_sorted_lists (one walk over memory for several sorted lists)
// against unpacking the lists one after the other, with an operation that
// does not commute: every target must meet its values list by list and in
// list order, however the lists' targets interleave, repeat, cluster or
// spread over more than one stretch of the walk.
TEST(SerialIndexList, SortedListsCombineAsIfUnpackedOneAfterTheOther) {
  adlib_test::Rng rng(17);
  const Kokkos::DefaultHostExecutionSpace space;
  // Order-sensitive, and kept below 2^63 by the modulus: long repeat chains
  // of 3 * target + value overflowed (UBSan in CI).
  constexpr long long kModulus = 1000003;
  const auto ordered = adlib::op::combine(
      [](long long& target, const long long& value) { target = (3 * target + value) % kModulus; });
  for (int trial = 0; trial < 300; ++trial) {
    // Spans below and well above one stretch (32 KiB: 4096 long longs).
    const std::int64_t span = rng.chance(50) ? rng.uniform(1, 200) : rng.uniform(1, 40000);
    const int count = static_cast<int>(rng.uniform(0, 5));
    std::vector<Offsets> targets(static_cast<std::size_t>(count));
    std::vector<std::vector<long long>> values(targets.size());
    std::vector<adlib::detail::SortedContributions> lists;
    long long next = 1;
    for (std::size_t l = 0; l < targets.size(); ++l) {
      const std::int64_t n = rng.chance(20) ? 0 : rng.uniform(1, 3000);
      const std::int64_t low = rng.uniform(0, span - 1);
      for (std::int64_t k = 0; k < n; ++k) targets[l].push_back(rng.uniform(low, span - 1));
      if (rng.chance(30))  // clustered: many repeats of a few targets
        for (auto& t : targets[l]) t = std::min(span - 1, low + t % 4);
      std::sort(targets[l].begin(), targets[l].end());
      for (std::size_t k = 0; k < targets[l].size(); ++k) values[l].push_back(next++ % 1000);
      lists.push_back({targets[l].data(), values[l].data(), n});
    }
    std::vector<long long> memory(static_cast<std::size_t>(span), 1), want(memory);
    for (std::size_t l = 0; l < targets.size(); ++l)
      for (std::size_t k = 0; k < targets[l].size(); ++k)
        want[targets[l][k]] = (3 * want[targets[l][k]] + values[l][k]) % kModulus;
    adlib::detail::SortedWalkSpace<adlib::detail::SortedContributions> work;
    adlib::detail::combine_sorted_lists<long long>(space, memory.data(), lists.data(), count, work,
                                                   ordered);
    ASSERT_EQ(memory, want) << "trial " << trial;
  }
}

// Lists long enough to split into pieces (index_list_kernels.hpp), in
// every shape the kernels treat apart: runs and singles, sorted or not,
// with or without repeats, clustered on a few targets.
Offsets long_offsets(adlib_test::Rng& rng, std::int64_t span) {
  Offsets out;
  const auto n = static_cast<std::size_t>(rng.uniform(0, 30000));
  const auto shape = rng.uniform(0, 3);
  if (shape == 0) {  // distinct, unsorted: a permutation's prefix
    Offsets all(static_cast<std::size_t>(span));
    for (std::int64_t k = 0; k < span; ++k) all[static_cast<std::size_t>(k)] = k;
    for (std::size_t k = 0; k < n && k + 1 < all.size(); ++k)
      std::swap(all[k], all[k + static_cast<std::size_t>(rng.uniform(
                                    0, static_cast<std::int64_t>(all.size() - k) - 1))]);
    all.resize(std::min(n, all.size()));
    return all;
  }
  while (out.size() < n) {
    if (rng.chance(30)) {
      const auto first = rng.uniform(0, span - 201), length = rng.uniform(8, 200);
      for (std::int64_t k = 0; k < length; ++k) out.push_back(first + k);
    } else {
      const auto length = rng.uniform(1, 500);
      for (std::int64_t k = 0; k < length; ++k) out.push_back(rng.uniform(0, span - 1));
    }
  }
  if (shape == 3)
    for (auto& t : out) t = t % 7 * 1000;  // a few targets, each many times
  if (rng.chance(50)) std::sort(out.begin(), out.end());
  return out;
}

// Every split into pieces gives the one-piece result bitwise, with an
// operation that does not commute, so that a target meeting its values out
// of list order, or from two pieces, shows.  On Serial the pieces run one
// after the other (the split itself is checked); on OpenMP they run
// threaded (scripts/test-openmp), where a race would show as well.
TEST(SerialIndexList, PiecesGiveTheOnePieceResult) {
  adlib_test::Rng rng(23);
  const Kokkos::DefaultHostExecutionSpace space;
  constexpr long long kModulus = 1000003;
  const auto ordered = adlib::op::combine(
      [](long long& target, const long long& value) { target = (3 * target + value) % kModulus; });
  constexpr std::int64_t span = 40000;
  for (int trial = 0; trial < 40; ++trial) {
    const Offsets offsets = long_offsets(rng, span);
    const Offsets other = long_offsets(rng, span);
    const IndexList list = IndexList::from(offsets);
    // A source list of the same length for the local copy.
    Offsets source(offsets.size());
    for (std::size_t k = 0; k < source.size(); ++k)
      source[k] = other.empty() ? static_cast<std::int64_t>(k) % span : other[k % other.size()];
    const IndexList source_list = IndexList::from(source);
    // The same lists as threaded builds plan them for combining: targets
    // grouped (IndexList::TargetGroups; from() plans none on Serial), and a
    // source of singles only, which the grouped copy reads by position.
    IndexList grouped = list;
    grouped.group_targets(static_cast<int>(rng.uniform(2, 9)));
    const IndexList source_singles =
        IndexList::from(source, std::numeric_limits<std::int64_t>::max());
    std::vector<long long> memory(span);
    for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = 10 * static_cast<long long>(i) + 1;
    std::vector<long long> values(offsets.size());
    for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<long long>(k % 9973);
    // The references: plain loops in list order.
    std::vector<long long> want_replaced(span, -1), want_combined(span, 1), want_copy(span, 1);
    for (std::size_t k = 0; k < offsets.size(); ++k) {
      want_replaced[offsets[k]] = values[k];
      want_combined[offsets[k]] = (3 * want_combined[offsets[k]] + values[k]) % kModulus;
      want_copy[offsets[k]] = (3 * want_copy[offsets[k]] + memory[source[k]]) % kModulus;
    }
    for (int pieces = 1; pieces <= 7; ++pieces) {
      const adlib::detail::IndexPieces split{pieces};
      // Pieces run in order on Serial, so a target split between two would
      // still meet its values in order here: check the split itself.
      for (int k = 1; list.sorted && list.repeats && k < pieces; ++k) {
        const std::int64_t start = adlib::detail::piece_start_keeping_repeats(list, pieces, k);
        if (start > 0 && start < list.count) {
          ASSERT_NE(offsets[start - 1], offsets[start]) << "a target's repeats in two pieces";
        }
      }
      std::vector<long long> buffer(offsets.size(), -7);
      adlib::detail::pack_indices<long long>(space, memory.data(), list, buffer.data(), split);
      space.fence();
      for (std::size_t k = 0; k < offsets.size(); ++k)
        ASSERT_EQ(buffer[k], memory[offsets[k]]) << "trial " << trial << " pieces " << pieces;
      std::vector<long long> replaced(span, -1), combined(span, 1), copy(span, 1);
      adlib::detail::unpack_indices<long long>(space, replaced.data(), list, values.data(),
                                               adlib::op::replace, split);
      adlib::detail::unpack_indices<long long>(space, combined.data(), list, values.data(), ordered,
                                               split);
      adlib::detail::copy_indices<long long>(space, copy.data(), list, memory.data(), source_list,
                                             ordered, split);
      space.fence();
      ASSERT_EQ(replaced, want_replaced) << "trial " << trial << " pieces " << pieces;
      ASSERT_EQ(combined, want_combined) << "trial " << trial << " pieces " << pieces;
      ASSERT_EQ(copy, want_copy) << "trial " << trial << " pieces " << pieces;
      std::vector<long long> grouped_combined(span, 1), grouped_copy(span, 1),
          grouped_run_copy(span, 1);
      adlib::detail::unpack_indices<long long>(space, grouped_combined.data(), grouped,
                                               values.data(), ordered, split);
      adlib::detail::copy_indices<long long>(space, grouped_copy.data(), grouped, memory.data(),
                                             source_singles, ordered, split);
      space.fence();
      ASSERT_EQ(grouped_combined, want_combined) << "trial " << trial << " pieces " << pieces;
      ASSERT_EQ(grouped_copy, want_copy) << "trial " << trial << " pieces " << pieces;
    }
    // A source that is one run (read by position as well).
    if (!offsets.empty() && static_cast<std::int64_t>(offsets.size()) <= span) {
      Offsets run(offsets.size());
      for (std::size_t k = 0; k < run.size(); ++k) run[k] = static_cast<std::int64_t>(k);
      std::vector<long long> want(span, 1), got(span, 1);
      for (std::size_t k = 0; k < offsets.size(); ++k)
        want[offsets[k]] = (3 * want[offsets[k]] + memory[k]) % kModulus;
      adlib::detail::copy_indices<long long>(space, got.data(), grouped, memory.data(),
                                             IndexList::from(run), ordered,
                                             adlib::detail::IndexPieces{4});
      space.fence();
      ASSERT_EQ(got, want) << "trial " << trial;
    }
  }
}

// from() groups an unsorted list with repeats for the host's threads, two
// groups per thread, and nothing else (the .threads4 run checks the
// threaded side; Serial plans none).
TEST(SerialIndexList, GroupsTargetsForTheHostThreads) {
  adlib_test::Rng rng(31);
  Offsets repeated(20000);
  for (auto& t : repeated) t = rng.uniform(0, 5000);
  const int threads = Kokkos::DefaultHostExecutionSpace().concurrency();
  const IndexList list = IndexList::from(repeated);
  ASSERT_TRUE(list.repeats);
  EXPECT_EQ(list.groups.count(), threads > 1 ? adlib::kTargetGroupsPerThread * threads : 0);
  if (list.groups.count() > 0) {
    EXPECT_EQ(list.groups.starts.back(), list.count);
    EXPECT_GE(list.bytes(), 12u * static_cast<std::size_t>(list.count));
  }
  Offsets sorted = repeated;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(IndexList::from(sorted).groups.count(), 0);  // sorted: pieces split by position
  Offsets distinct(20000);
  for (std::size_t k = 0; k < distinct.size(); ++k)
    distinct[k] = static_cast<std::int64_t>((k * 7919) % distinct.size());
  EXPECT_EQ(IndexList::from(distinct).groups.count(), 0);  // nothing repeats
  // Groups cover every entry once, each target in one group, list order kept.
  IndexList grouped = list;
  grouped.group_targets(5);
  ASSERT_EQ(grouped.groups.count(), 5);
  std::vector<std::int64_t> last_position(5001, -1);
  std::vector<int> group_of(5001, -1);
  for (int g = 0; g < 5; ++g)
    for (std::int64_t j = grouped.groups.starts[g]; j < grouped.groups.starts[g + 1]; ++j) {
      const std::int64_t t = grouped.groups.targets[j];
      const std::int64_t p = grouped.groups.positions[j];
      ASSERT_EQ(t, repeated[p]);
      ASSERT_TRUE(group_of[t] == -1 || group_of[t] == g) << "target " << t << " in two groups";
      group_of[t] = g;
      ASSERT_GT(p, last_position[t]) << "list order lost for target " << t;
      last_position[t] = p;
    }
  EXPECT_EQ(grouped.groups.starts.back(), grouped.count);
}

// The merged walks split memory into pieces: every split combines (and
// reads) exactly as one piece does.
TEST(SerialIndexList, MergedWalksInPiecesGiveTheOnePieceResult) {
  adlib_test::Rng rng(29);
  const Kokkos::DefaultHostExecutionSpace space;
  constexpr long long kModulus = 1000003;
  const auto ordered = adlib::op::combine(
      [](long long& target, const long long& value) { target = (3 * target + value) % kModulus; });
  for (int trial = 0; trial < 60; ++trial) {
    const std::int64_t span = rng.uniform(1, 60000);
    const int count = static_cast<int>(rng.uniform(0, 5));
    std::vector<Offsets> targets(static_cast<std::size_t>(count));
    std::vector<std::vector<long long>> values(targets.size());
    for (std::size_t l = 0; l < targets.size(); ++l) {
      const std::int64_t n = rng.chance(20) ? 0 : rng.uniform(1, 20000);
      const std::int64_t low = rng.uniform(0, span - 1);
      for (std::int64_t k = 0; k < n; ++k) targets[l].push_back(rng.uniform(low, span - 1));
      if (rng.chance(30))
        for (auto& t : targets[l]) t = std::min(span - 1, low + t % 4);
      std::sort(targets[l].begin(), targets[l].end());
      for (std::size_t k = 0; k < targets[l].size(); ++k)
        values[l].push_back(static_cast<long long>((l * 7919 + k) % 1000));
    }
    std::vector<long long> memory(static_cast<std::size_t>(span));
    for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = static_cast<long long>(i % 777);
    std::vector<long long> want(memory);
    for (std::size_t l = 0; l < targets.size(); ++l)
      for (std::size_t k = 0; k < targets[l].size(); ++k)
        want[targets[l][k]] = (3 * want[targets[l][k]] + values[l][k]) % kModulus;
    // Workspaces kept across calls, as RouteCopies keeps them: they grow
    // with the pieces, and stale parts must not leak into the next walk.
    adlib::detail::SortedWalkSpace<adlib::detail::SortedContributions> combine_work;
    adlib::detail::SortedWalkSpace<adlib::detail::SortedReads> read_work;
    for (const int pieces : {3, 1, 5, 2, 4}) {
      const adlib::detail::IndexPieces split{pieces};
      std::vector<adlib::detail::SortedContributions> lists;
      for (std::size_t l = 0; l < targets.size(); ++l)
        lists.push_back(
            {targets[l].data(), values[l].data(), static_cast<std::int64_t>(targets[l].size())});
      std::vector<long long> combined(memory);
      adlib::detail::combine_sorted_lists<long long>(space, combined.data(), lists.data(), count,
                                                     combine_work, ordered, split);
      space.fence();
      ASSERT_EQ(combined, want) << "trial " << trial << " pieces " << pieces;
      // Reads: every list but the first packs, the first copies into
      // distinct targets (its positions reversed).
      std::vector<std::vector<long long>> packed(targets.size());
      std::vector<long long> copied(static_cast<std::size_t>(span) + 20000, 5);
      std::vector<Offsets> copy_targets(targets.size());
      std::vector<adlib::detail::SortedReads> reads;
      for (std::size_t l = 0; l < targets.size(); ++l) {
        const auto n = static_cast<std::int64_t>(targets[l].size());
        packed[l].assign(targets[l].size(), -1);
        if (l == 0) {
          for (std::int64_t k = 0; k < n; ++k) copy_targets[l].push_back(n - 1 - k);
          reads.push_back({targets[l].data(), copied.data(), copy_targets[l].data(), n, false});
        } else {
          reads.push_back({targets[l].data(), packed[l].data(), nullptr, n, false});
        }
      }
      adlib::detail::read_sorted_lists<long long>(space, memory.data(), reads.data(), count,
                                                  read_work, ordered, split);
      space.fence();
      for (std::size_t l = 0; l < targets.size(); ++l) {
        const auto n = targets[l].size();
        for (std::size_t k = 0; k < n; ++k) {
          const long long read = memory[targets[l][k]];
          if (l == 0)
            ASSERT_EQ(copied[n - 1 - k], (3 * 5 + read) % kModulus) << "trial " << trial;
          else
            ASSERT_EQ(packed[l][k], read) << "trial " << trial;
        }
      }
    }
  }
}

TEST(SerialIndexList, KnowsWhetherItsOffsetsAreSortedSingles) {
  EXPECT_TRUE(IndexList::from({3, 3, 9, 40}).sorted);
  EXPECT_TRUE(IndexList::from({3, 3, 9, 40}).all_singles());
  EXPECT_FALSE(IndexList::from({3, 2}).sorted);
  EXPECT_FALSE(IndexList::from({1, 2, 3, 4, 5, 6, 7, 8, 20}).all_singles());  // a run
  EXPECT_FALSE(IndexList::from(Offsets{}).all_singles());
}

TEST(SerialIndexList, MessagesCarryBlocksThenIndexLists) {
  adlib::BlockMessagePlan plan(1, 3);
  plan.send_indices(2, {9, 4, 4});
  plan.send(2, adlib::StridedBlock::make(20, {3}, {1}));
  plan.send_indices(0, {1});
  plan.send_indices(2, {30, 31});
  plan.recv_indices(1, {5, 6});
  plan.send_indices(1, {7, 7});
  plan.build();
  ASSERT_EQ(plan.send_messages().size(), 2u);
  const auto& to0 = plan.send_messages()[0];
  EXPECT_EQ(to0.peer, 0);
  EXPECT_EQ(to0.count, 1);
  EXPECT_FALSE(to0.direct);
  const auto& to2 = plan.send_messages()[1];
  EXPECT_EQ(to2.peer, 2);
  EXPECT_EQ(to2.count, 3 + 5);
  EXPECT_EQ(to2.block_count(), 3);
  EXPECT_EQ(to2.indices.offsets(), (Offsets{9, 4, 4, 30, 31}));
  EXPECT_TRUE(to2.indices.repeats);
  EXPECT_EQ(plan.local_index_sends().offsets(), (Offsets{7, 7}));
  EXPECT_EQ(plan.local_index_recvs().offsets(), (Offsets{5, 6}));
  EXPECT_EQ(plan.send_memory_required(), 32);
  EXPECT_TRUE(plan.has_indices());

  adlib::BlockMessagePlan uneven(0, 2);
  uneven.send_indices(0, {1, 2});
  uneven.recv_indices(0, {3});
  EXPECT_THROW(uneven.build(), adlib::Error);
  adlib::BlockMessagePlan negative(0, 2);
  negative.send_indices(1, {-1});
  EXPECT_THROW(negative.build(), adlib::Error);
}

}  // namespace

}  // namespace serial_index_list
