// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/directory.hpp>

#include <mpi.h>

#include <algorithm>
#include <limits>
#include <type_traits>
#include <utility>

#include <adlib/runtime/detail/huge_pages.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/owner_groups.hpp>
#include <adlib/runtime/sparse_exchange.hpp>

namespace adlib {

namespace {

// Ids per directory interval: ceil(bound / P), at least 1.
std::int64_t interval_length_of(std::int64_t bound, int ranks) {
  return std::max<std::int64_t>(1, (bound + ranks - 1) / ranks);
}

// The interval of an id, id / length, by a multiplication where a double
// holds the ids exactly: a division costs 20-40 cycles, most of the
// arithmetic of a registration.  Intervals number fewer than 2^31 (one per
// rank), so the product is off by at most one, corrected here.
class IntervalOf {
 public:
  explicit IntervalOf(std::int64_t length)
      : length_(length), inverse_(1.0 / static_cast<double>(length)) {}
  std::int64_t operator()(std::int64_t id) const {
    if (id >= kExact) return id / length_;
    auto k = static_cast<std::int64_t>(static_cast<double>(id) * inverse_);
    if (k * length_ > id)
      --k;
    else if ((k + 1) * length_ <= id)
      ++k;
    return k;
  }

 private:
  static constexpr std::int64_t kExact = std::int64_t(1) << 52;
  std::int64_t length_;
  double inverse_;
};

// The positions of `ids` grouped by destination rank (stable within a rank),
// as one message skeleton per destination: the ranks in ascending order and,
// for each, the positions of the ids that go there.  A counting sort over
// the ranks named, O(n).
struct Grouped {
  std::vector<int> ranks;          ///< ascending
  std::vector<std::size_t> begin;  ///< first slot of ranks[k] in `order`, plus an end
  std::vector<std::size_t> order;  ///< positions into the ids, grouped
};

template <class RankOf>
Grouped group_by_rank(std::size_t count, RankOf rank_of) {
  OwnerGroups groups;
  for (std::size_t i = 0; i < count; ++i)
    if (const int r = rank_of(i); r >= 0) groups.count(r);
  groups.close_counting();
  Grouped g;
  g.order.resize(groups.total());
  for (std::size_t i = 0; i < count; ++i)
    if (const int r = rank_of(i); r >= 0) g.order[groups.place(r)] = i;
  for (const std::size_t k : groups.by_ascending_owner()) {  // stretches in this order
    g.ranks.push_back(groups.owner(k));
    g.begin.push_back(groups.begin(k));
  }
  g.begin.push_back(groups.total());
  return g;
}

// `count` ids spread over a range of `range` values, about as many values as
// ids: a bitmap of the range, or a counting sort over it, costs O(count)
// where sorting costs O(count log count).
bool dense(std::int64_t range, std::size_t count) {
  return range <= 4 * static_cast<std::int64_t>(count) + 64;
}

// Are `ids` (not empty) distinct and non-negative, as found cheaply where
// most of them are one strictly ascending stretch (an LFRic local order:
// the owned ids ascending, then each halo depth's)?  The others, few, are
// sorted and searched in it; false where that does not settle it (a
// negative id, a repeat, or too many others), and the general check
// decides and words the error.  A bitmap over the range of 2^22 ids was a
// tenth of a DepthHalo's set-up.
bool distinct_by_ascending_stretch(const std::vector<std::int64_t>& ids) {
  std::size_t begin = 0, longest_begin = 0, longest_end = 1;
  for (std::size_t i = 1; i <= ids.size(); ++i) {
    if (i < ids.size() && ids[i] > ids[i - 1]) continue;
    if (i - begin > longest_end - longest_begin) {
      longest_begin = begin;
      longest_end = i;
    }
    begin = i;
  }
  // Every id is non-negative if the lowest of the stretch (its first) and
  // the others are.
  if (ids[longest_begin] < 0) return false;
  const std::size_t others = ids.size() - (longest_end - longest_begin);
  if (others == 0) return true;
  if (others > ids.size() / 16) return false;
  std::vector<std::int64_t> rest(ids.begin(),
                                 ids.begin() + static_cast<std::ptrdiff_t>(longest_begin));
  rest.insert(rest.end(), ids.begin() + static_cast<std::ptrdiff_t>(longest_end), ids.end());
  std::sort(rest.begin(), rest.end());
  if (rest.front() < 0 || std::adjacent_find(rest.begin(), rest.end()) != rest.end()) return false;
  // Ascending questions: each search starts where the last one ended.
  auto from = ids.begin() + static_cast<std::ptrdiff_t>(longest_begin);
  const auto end = ids.begin() + static_cast<std::ptrdiff_t>(longest_end);
  for (const std::int64_t id : rest) {
    from = std::lower_bound(from, end, id);
    if (from != end && *from == id) return false;
  }
  return true;
}

}  // namespace

std::string distinct_ids_error(const std::vector<std::int64_t>& ids, const char* what) {
  // The usual list (mostly one ascending stretch) is settled in one pass;
  // any other, or an error, is looked at again below.
  if (ids.empty() || distinct_by_ascending_stretch(ids)) return {};
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0)
      return std::string(what) + " holds the negative id " + std::to_string(ids[i]) +
             " at position " + std::to_string(i);
  const auto [low, high] = std::minmax_element(ids.begin(), ids.end());
  if (dense(*high - *low + 1, ids.size())) {
    std::vector<bool> seen(static_cast<std::size_t>(*high - *low + 1), false);
    for (const std::int64_t id : ids) {
      auto bit = seen[static_cast<std::size_t>(id - *low)];
      if (bit)
        return std::string(what) + " lists the id " + std::to_string(id) +
               " twice (ids must be distinct on each rank)";
      bit = true;
    }
    return {};
  }
  std::vector<std::int64_t> sorted(ids);
  std::sort(sorted.begin(), sorted.end());
  const auto twice = std::adjacent_find(sorted.begin(), sorted.end());
  if (twice != sorted.end())
    return std::string(what) + " lists the id " + std::to_string(*twice) +
           " twice (ids must be distinct on each rank)";
  return {};
}

Directory::Directory(const Comm& comm, const std::vector<std::int64_t>& ids, Holding holding,
                     const char* operation)
    : Directory(comm, ids.data(), ids.size(), holding, operation) {}

Directory::Directory(const Comm& comm, const std::int64_t* ids, std::size_t count, Holding holding,
                     const char* operation)
    : comm_(comm), holding_(holding), operation_(operation) {
  // One pass without a branch per id for the bounds and the order (the
  // registration below takes ascending lists their own way).  Negative ids
  // are an error here; an id repeated on one rank is found where the
  // directory stores its entries anyway (below), not by sorting every list.
  std::int64_t lowest = count > 0 ? ids[0] : 0, highest = count > 0 ? ids[0] : -1;
  bool ascending = true;
  for (std::size_t i = 1; i < count; ++i) {
    lowest = std::min(lowest, ids[i]);
    highest = std::max(highest, ids[i]);
    ascending &= ids[i] >= ids[i - 1];
  }
  std::string error;
  for (std::size_t i = 0; lowest < 0 && i < count && error.empty(); ++i)
    if (ids[i] < 0)
      error = "the ids registered hold the negative id " + std::to_string(ids[i]) +
              " at position " + std::to_string(i);
  if (error.empty() && holding != Holding::one_to_one && holding != Holding::shared)
    error =
        "holding is " + std::to_string(static_cast<int>(holding)) + ", not one of adlib::Holding's";

  // The bound, the verdict and the longest list in one reduction; the
  // agreement that gives every rank the same message runs only when some
  // rank failed.
  std::int64_t mine[3] = {std::max<std::int64_t>(highest + 1, 0), error.empty() ? 0 : 1,
                          static_cast<std::int64_t>(count)},
               all[3];
  ADLIB_MPI(MPI_Allreduce(mine, all, 3, MPI_INT64_T, MPI_MAX, comm.get()), operation);
  if (all[1] != 0) agree_on_errors(comm, error, 0, operation);
  id_bound_ = all[0];

  // Each id travels as its offset in its interval and its position: two
  // 32-bit words where every rank's offsets and positions fit (half the
  // bytes, and half the memory to touch), else two 64-bit ones.
  constexpr std::int64_t kWord32 = std::int64_t(1) << 32;
  const bool narrow = interval_length() < kWord32 && all[2] < kWord32;
  const std::string twice = narrow ? register_ids<std::uint32_t>(ids, count, ascending)
                                   : register_ids<std::int64_t>(ids, count, ascending);
  agree_on_errors(comm, twice, 0, operation);
}

std::int64_t Directory::interval_length() const {
  return interval_length_of(id_bound_, comm_.size());
}

namespace {

// How a registration message lists its entries, in its first word:
//  kPairs:  (offset in the interval, position) pairs follow;
//  kBitmap: the first position, the lowest offset rounded down to a
//           multiple of 32, then a bitmap of the offsets from it, 32 to a
//           word: the k-th set bit is the entry at position first + k (a
//           stretch of strictly ascending ids; 32-bit words only).
// A bitmap goes where it is the shorter, in a one-to-one directory: a
// rank's ids dense in an interval (UH-2048-d2: 2^20 ids over 2^21 offsets,
// 64 Ki words against 2 Mi), where the pairs and the table of the
// interval's size they filled were a third of a DepthHalo's set-up.
constexpr std::uint32_t kPairs = 0, kBitmap = 1;
constexpr std::size_t kBitmapHeader = 3;
constexpr std::int64_t kBitsPerWord = 32;

int lowest_set_bit(std::uint32_t bits) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctz(bits);
#else
  int b = 0;
  for (; !(bits & 1u); bits >>= 1) ++b;
  return b;
#endif
}

// Bits set in a word, by halves (no popcnt instruction is assumed, and
// the library's count is a call per word).
std::uint32_t set_bits(std::uint32_t bits) {
  bits = bits - ((bits >> 1) & 0x55555555u);
  bits = (bits & 0x33333333u) + ((bits >> 2) & 0x33333333u);
  bits = (bits + (bits >> 4)) & 0x0F0F0F0Fu;
  return (bits * 0x01010101u) >> 24;
}

// Words of a bitmap message for offsets [first, last] of an interval: bit
// 0 is the offset `low`, first rounded down to a multiple of 32.
struct BitmapSpan {
  std::int64_t low = 0;
  std::size_t words = 0;
};
BitmapSpan bitmap_span(std::int64_t first, std::int64_t last) {
  const std::int64_t low = first / kBitsPerWord * kBitsPerWord;
  return {low, static_cast<std::size_t>((last - low) / kBitsPerWord + 1)};
}

// Entries ids[begin, end) (all in the interval from `base`, spanning
// `span`) as a bitmap message, if they ascend strictly; false and `values`
// empty if an id repeats (it then goes as pairs, for keep_entries to
// report).
bool fill_bitmap(const std::int64_t* ids, std::size_t begin, std::size_t end, std::int64_t base,
                 const BitmapSpan& span, std::vector<std::uint32_t>& values) {
  detail::reserve_huge(values, kBitmapHeader + span.words);
  values.assign(kBitmapHeader + span.words, 0);
  values[0] = kBitmap;
  values[1] = static_cast<std::uint32_t>(begin);
  values[2] = static_cast<std::uint32_t>(span.low);
  std::uint32_t* const bitmap = values.data() + kBitmapHeader;
  for (std::size_t i = begin; i < end; ++i) {
    const auto bit = static_cast<std::size_t>(ids[i] - base - span.low);
    std::uint32_t& word = bitmap[bit / kBitsPerWord];
    const std::uint32_t mask = std::uint32_t(1) << (bit % kBitsPerWord);
    if (word & mask) {
      values.clear();
      return false;
    }
    word |= mask;
  }
  return true;
}

// One message per directory interval that `ids` (ascending) reach: an
// interval's ids are one stretch of the list, found by a binary search and
// written in one loop, with no group lookup per id (an LFRic local order
// lists its owned ids ascending; the grouping below was a third of a
// DepthHalo's set-up), as a bitmap where `bitmaps` allows it and it is
// the shorter.
template <class Word>
std::vector<SparseMessage<Word>> messages_of_ascending(const std::int64_t* ids, std::size_t count,
                                                       std::int64_t length,
                                                       const IntervalOf& interval_of,
                                                       bool bitmaps) {
  std::vector<SparseMessage<Word>> outgoing;
  for (std::size_t begin = 0; begin < count;) {
    const std::int64_t interval = interval_of(ids[begin]);
    const std::int64_t base = interval * length;
    const auto end =
        static_cast<std::size_t>(std::lower_bound(ids + begin, ids + count, base + length) - ids);
    SparseMessage<Word>& message = outgoing.emplace_back();
    message.peer = static_cast<int>(interval);
    const std::size_t pair_words = 1 + 2 * (end - begin);
    if constexpr (std::is_same<Word, std::uint32_t>::value) {
      const BitmapSpan span = bitmap_span(ids[begin] - base, ids[end - 1] - base);
      if (bitmaps && kBitmapHeader + span.words < pair_words &&
          fill_bitmap(ids, begin, end, base, span, message.values)) {
        begin = end;
        continue;
      }
    }
    detail::reserve_huge(message.values, pair_words);
    message.values.push_back(static_cast<Word>(kPairs));
    for (std::size_t i = begin; i < end; ++i) {
      message.values.push_back(static_cast<Word>(ids[i] - base));
      message.values.push_back(static_cast<Word>(i));
    }
    begin = end;
  }
  return outgoing;
}

// The same for ids in any order: two passes, counting then filling one
// message per interval's rank, in ascending rank (no list of positions in
// between).
template <class Word>
std::vector<SparseMessage<Word>> messages_of_any(const std::int64_t* ids, std::size_t count,
                                                 std::int64_t length,
                                                 const IntervalOf& interval_of) {
  OwnerGroups groups;
  for (std::size_t i = 0; i < count; ++i) groups.count(static_cast<int>(interval_of(ids[i])));
  groups.close_counting();
  const std::vector<std::size_t> ascending = groups.by_ascending_owner();
  std::vector<SparseMessage<Word>> outgoing(ascending.size());
  std::vector<std::size_t> message_of(ascending.size());
  for (std::size_t m = 0; m < ascending.size(); ++m) {
    const std::size_t g = ascending[m];
    message_of[g] = m;
    outgoing[m].peer = groups.owner(g);
    detail::reserve_huge(outgoing[m].values, 1 + 2 * (groups.end(g) - groups.begin(g)));
    outgoing[m].values.push_back(static_cast<Word>(kPairs));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t interval = interval_of(ids[i]);
    std::vector<Word>& values =
        outgoing[message_of[groups.number(static_cast<int>(interval))]].values;
    values.push_back(static_cast<Word>(ids[i] - interval * length));
    values.push_back(static_cast<Word>(i));
  }
  return outgoing;
}

}  // namespace

template <class Word>
std::string Directory::register_ids(const std::int64_t* ids, std::size_t count, bool ascending) {
  const std::int64_t length = interval_length();
  const IntervalOf interval_of(length);
  // Each id travels to its interval's rank as (offset in the interval,
  // position), or in a bitmap, the messages in ascending rank.
  auto outgoing = ascending ? messages_of_ascending<Word>(ids, count, length, interval_of,
                                                          holding_ == Holding::one_to_one)
                            : messages_of_any<Word>(ids, count, length, interval_of);
  auto received = exchange_sparse(comm_, std::move(outgoing), operation_, nullptr, std::string(),
                                  static_cast<std::uint64_t>(holding_) + 1);
  return keep_entries(std::move(received));
}

namespace {

// The smallest id registered twice in an interval, and by whom; its words
// are the error every rank reports.
class Conflict {
 public:
  void offer(std::int64_t id, int one_rank, int other_rank) {
    if (id >= id_) return;
    id_ = id;
    first_ = std::min(one_rank, other_rank);
    second_ = std::max(one_rank, other_rank);
  }
  std::string describe() const {
    if (id_ == std::numeric_limits<std::int64_t>::max()) return {};
    if (first_ == second_)
      return "rank " + std::to_string(first_) + " lists the id " + std::to_string(id_) +
             " twice (ids must be distinct on each rank)";
    return "the id " + std::to_string(id_) + " is held by rank " + std::to_string(first_) +
           " and by rank " + std::to_string(second_) +
           " (a one-to-one directory: each id on one rank)";
  }

 private:
  std::int64_t id_ = std::numeric_limits<std::int64_t>::max();
  int first_ = -1, second_ = -1;
};

}  // namespace

bool Directory::BitmapHolding::holds(std::int64_t offset) const {
  if (offset < low) return false;
  const auto bit = static_cast<std::size_t>(offset - low);
  const std::size_t w = bit / kBitsPerWord;
  return w < words.size() && ((words[w] >> (bit % kBitsPerWord)) & 1u) != 0;
}

std::int64_t Directory::BitmapHolding::position(std::int64_t offset) const {
  const auto bit = static_cast<std::size_t>(offset - low);
  const std::size_t w = bit / kBitsPerWord;
  std::int64_t before = ids_before_block[w / kWordsPerBlock];
  for (std::size_t k = w / kWordsPerBlock * kWordsPerBlock; k < w; ++k)
    before += set_bits(words[k]);
  const std::uint32_t below = (std::uint32_t(1) << (bit % kBitsPerWord)) - 1;
  return first_position + before + set_bits(words[w] & below);
}

template <class Word>
std::string Directory::keep_entries(std::vector<SparseMessage<Word>> received) {
  const std::int64_t length = interval_length();
  const std::int64_t first = static_cast<std::int64_t>(comm_.rank()) * length;
  Conflict conflict;

  // Bitmaps are kept as they came (messages in ascending rank, so bitmaps_
  // is too), with a count of set bits per block for locate(); their
  // messages are left empty, and the pairs below skip them.
  if constexpr (std::is_same<Word, std::uint32_t>::value) {
    for (auto& m : received) {
      if (m.values.empty() || m.values[0] != kBitmap) continue;
      BitmapHolding& h = bitmaps_.emplace_back();
      h.rank = m.peer;
      h.first_position = m.values[1];
      h.low = m.values[2];
      m.values.erase(m.values.begin(), m.values.begin() + kBitmapHeader);
      h.words = std::move(m.values);
      m.values.clear();
      h.ids_before_block.resize((h.words.size() + BitmapHolding::kWordsPerBlock - 1) /
                                BitmapHolding::kWordsPerBlock);
      std::uint32_t before = 0;
      for (std::size_t w = 0; w < h.words.size(); ++w) {
        if (w % BitmapHolding::kWordsPerBlock == 0)
          h.ids_before_block[w / BitmapHolding::kWordsPerBlock] = before;
        before += set_bits(h.words[w]);
      }
      bitmap_entries_ += before;
    }
  }
  std::size_t count = 0;
  for (const auto& m : received) count += m.values.empty() ? 0 : (m.values.size() - 1) / 2;

  // Pairs, dense and one-to-one: each id straight into its slot, a conflict
  // found as it lands (the messages come in ascending rank, so the first
  // holder of an id is its lowest).
  if (std::is_same<Word, std::uint32_t>::value && holding_ == Holding::one_to_one && count > 0 &&
      dense(length, count)) {
    detail::reserve_huge(slots_, static_cast<std::size_t>(length));
    slots_.resize(static_cast<std::size_t>(length));
    slot_entries_ = count;
    for (const auto& m : received) {
      const auto holder = static_cast<std::uint32_t>(m.peer) + 1;
      for (std::size_t k = 1; k + 1 < m.values.size(); k += 2) {
        Slot& slot = slots_[static_cast<std::size_t>(m.values[k])];
        if (slot.holder_plus_one == 0)
          slot = {holder, static_cast<std::uint32_t>(m.values[k + 1])};
        else
          conflict.offer(first + static_cast<std::int64_t>(m.values[k]),
                         static_cast<int>(slot.holder_plus_one) - 1, m.peer);
      }
    }
  } else {
    // Pairs sorted by (id, rank).  Dense ids: a counting sort over this
    // rank's interval, stable, senders in ascending rank.  Otherwise each
    // sender's message is sorted on its own (often it already is) and the
    // senders' runs merged, O(n log senders).
    const auto by_id_then_rank = [](const Entry& a, const Entry& b) {
      return a.id != b.id ? a.id < b.id : a.rank < b.rank;
    };
    const bool counting = count > 0 && count < (std::size_t(1) << 32) && dense(length, count);
    if (counting) {
      std::vector<std::uint32_t> start(static_cast<std::size_t>(length) + 1, 0);
      for (const auto& m : received)
        for (std::size_t k = 1; k + 1 < m.values.size(); k += 2)
          ++start[static_cast<std::size_t>(m.values[k]) + 1];
      for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
      detail::reserve_huge(entries_, count);
      entries_.resize(count);
      for (const auto& m : received)
        for (std::size_t k = 1; k + 1 < m.values.size(); k += 2)
          entries_[start[static_cast<std::size_t>(m.values[k])]++] = {
              first + static_cast<std::int64_t>(m.values[k]),
              static_cast<std::int64_t>(m.values[k + 1]), m.peer};
    } else {
      detail::reserve_huge(entries_, count);
      std::vector<std::size_t> run_begin;
      for (const auto& m : received) {
        if (m.values.empty()) continue;
        run_begin.push_back(entries_.size());
        for (std::size_t k = 1; k + 1 < m.values.size(); k += 2)
          entries_.push_back({first + static_cast<std::int64_t>(m.values[k]),
                              static_cast<std::int64_t>(m.values[k + 1]), m.peer});
        const auto run = entries_.begin() + static_cast<std::ptrdiff_t>(run_begin.back());
        if (!std::is_sorted(run, entries_.end(), by_id_then_rank))
          std::sort(run, entries_.end(), by_id_then_rank);
      }
      run_begin.push_back(entries_.size());
      for (std::size_t width = 1; width + 1 < run_begin.size(); width *= 2)
        for (std::size_t r = 0; r + width + 1 < run_begin.size(); r += 2 * width) {
          const std::size_t last = std::min(r + 2 * width, run_begin.size() - 1);
          std::inplace_merge(entries_.begin() + static_cast<std::ptrdiff_t>(run_begin[r]),
                             entries_.begin() + static_cast<std::ptrdiff_t>(run_begin[r + width]),
                             entries_.begin() + static_cast<std::ptrdiff_t>(run_begin[last]),
                             by_id_then_rank);
        }
    }
    // An id twice from one rank, or (one-to-one) from two ranks: the first
    // such neighbours are the smallest id.
    for (std::size_t k = 1; k < entries_.size(); ++k) {
      const Entry &a = entries_[k - 1], &b = entries_[k];
      if (a.id != b.id || (a.rank != b.rank && holding_ != Holding::one_to_one)) continue;
      conflict.offer(a.id, static_cast<int>(a.rank), static_cast<int>(b.rank));
      break;
    }
  }

  // Bitmaps (one-to-one only) against each other, through their union over
  // the offsets they span (a bit per offset: an eighth of a byte; only
  // their span, since a dense cluster may sit in a long sparse interval),
  // and against the pairs.
  if (!bitmaps_.empty()) {
    const auto lowest_holder = [&](std::int64_t offset) {
      for (const BitmapHolding& h : bitmaps_)
        if (h.holds(offset)) return h.rank;
      return -1;
    };
    std::int64_t span_low = bitmaps_.front().low, span_end = span_low;
    for (const BitmapHolding& h : bitmaps_) {
      span_low = std::min(span_low, h.low);
      span_end =
          std::max(span_end, h.low + static_cast<std::int64_t>(h.words.size()) * kBitsPerWord);
    }
    std::vector<std::uint32_t> held(static_cast<std::size_t>((span_end - span_low) / kBitsPerWord),
                                    0);
    for (const BitmapHolding& h : bitmaps_) {
      std::uint32_t* const under = held.data() + (h.low - span_low) / kBitsPerWord;
      for (std::size_t w = 0; w < h.words.size(); ++w) {
        if (const std::uint32_t both = under[w] & h.words[w]; both != 0) {
          const std::int64_t offset =
              h.low + static_cast<std::int64_t>(w) * kBitsPerWord + lowest_set_bit(both);
          conflict.offer(first + offset, lowest_holder(offset), h.rank);
        }
        under[w] |= h.words[w];
      }
    }
    for (const auto& m : received)
      for (std::size_t k = 1; k + 1 < m.values.size(); k += 2) {
        const auto offset = static_cast<std::int64_t>(m.values[k]);
        if (offset < span_low || offset >= span_end) continue;
        const auto bit = static_cast<std::size_t>(offset - span_low);
        if ((held[bit / kBitsPerWord] >> (bit % kBitsPerWord)) & 1u)
          conflict.offer(first + offset, lowest_holder(offset), m.peer);
      }
  }
  return conflict.describe();
}

IdLocation Directory::locate_here(std::int64_t id, std::int64_t offset) const {
  if (!slots_.empty()) {
    const Slot& slot = slots_[static_cast<std::size_t>(offset)];
    if (slot.holder_plus_one != 0)
      return {static_cast<int>(slot.holder_plus_one) - 1, slot.position};
  } else {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                                     [](const Entry& e, std::int64_t v) { return e.id < v; });
    if (it != entries_.end() && it->id == id) return {static_cast<int>(it->rank), it->position};
  }
  // One-to-one (bitmaps are only sent then): at most one holder.
  for (const BitmapHolding& h : bitmaps_)
    if (h.holds(offset)) return {h.rank, h.position(offset)};
  return {};
}

int Directory::directory_rank(std::int64_t id) const {
  if (id < 0 || id >= id_bound_) return -1;
  return static_cast<int>(id / interval_length());
}

std::vector<IdLocation> Directory::locate(const std::vector<std::int64_t>& ids) const {
  std::string error;
  for (std::size_t i = 0; i < ids.size() && error.empty(); ++i)
    if (ids[i] < 0)
      error = "locate: the id at position " + std::to_string(i) + " is negative (" +
              std::to_string(ids[i]) + ")";

  // Ids beyond the bound are held by nobody: answered here, not sent.
  const Grouped groups = group_by_rank(error.empty() ? ids.size() : 0,
                                       [&](std::size_t i) { return directory_rank(ids[i]); });
  std::vector<SparseMessage<std::int64_t>> questions(groups.ranks.size());
  for (std::size_t k = 0; k < groups.ranks.size(); ++k) {
    questions[k].peer = groups.ranks[k];
    for (std::size_t s = groups.begin[k]; s < groups.begin[k + 1]; ++s)
      questions[k].values.push_back(ids[groups.order[s]]);
  }
  const auto asked = exchange_sparse(comm_, std::move(questions), operation_, nullptr, error,
                                     static_cast<std::uint64_t>(holding_) + 1);

  // Each question answered with (rank, position) in the order asked.
  const std::int64_t interval_first = static_cast<std::int64_t>(comm_.rank()) * interval_length();
  std::vector<SparseMessage<std::int64_t>> answers(asked.size());
  for (std::size_t k = 0; k < asked.size(); ++k) {
    answers[k].peer = asked[k].peer;
    answers[k].values.reserve(2 * asked[k].values.size());
    for (const std::int64_t id : asked[k].values) {
      const IdLocation where = locate_here(id, id - interval_first);
      answers[k].values.push_back(where.rank);
      answers[k].values.push_back(where.position);
    }
  }
  const auto replies = exchange_sparse(comm_, std::move(answers), operation_);

  std::vector<IdLocation> where(ids.size());
  for (const auto& reply : replies) {
    // Replies are sorted by peer, as the questions were.
    const auto k = static_cast<std::size_t>(
        std::lower_bound(groups.ranks.begin(), groups.ranks.end(), reply.peer) -
        groups.ranks.begin());
    const std::size_t first = groups.begin[k];
    for (std::size_t s = first; s < groups.begin[k + 1]; ++s) {
      const std::size_t a = 2 * (s - first);
      where[groups.order[s]] = {static_cast<int>(reply.values[a]), reply.values[a + 1]};
    }
  }
  return where;
}

}  // namespace adlib
