// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/directory.hpp>

#include <mpi.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include <adlib/runtime/error.hpp>
#include <adlib/runtime/sparse_exchange.hpp>

namespace adlib {

namespace {

// Ids per directory interval: ceil(bound / P), at least 1.
std::int64_t interval_length(std::int64_t bound, int ranks) {
  return std::max<std::int64_t>(1, (bound + ranks - 1) / ranks);
}

// The positions of `ids` grouped by destination rank (stable within a rank),
// as one message skeleton per destination: the ranks in ascending order and,
// for each, the positions of the ids that go there.  A counting sort over
// the ranks named (a hash map of them: nothing of size P), O(n).
struct Grouped {
  std::vector<int> ranks;          ///< ascending
  std::vector<std::size_t> begin;  ///< first slot of ranks[k] in `order`, plus an end
  std::vector<std::size_t> order;  ///< positions into the ids, grouped
};

template <class RankOf>
Grouped group_by_rank(std::size_t count, RankOf rank_of) {
  std::unordered_map<int, std::size_t> group_of;
  std::vector<int> ranks;
  std::vector<std::size_t> counts;
  int last = -1;
  std::size_t last_group = 0;
  // Runs of one rank (sorted lists, a rank's interval) skip the lookup.
  const auto group = [&](int r) {
    if (r != last) {
      const auto [it, fresh] = group_of.emplace(r, ranks.size());
      if (fresh) {
        ranks.push_back(r);
        counts.push_back(0);
      }
      last = r;
      last_group = it->second;
    }
    return last_group;
  };
  for (std::size_t i = 0; i < count; ++i) {
    const int r = rank_of(i);
    if (r >= 0) ++counts[group(r)];
  }
  std::vector<std::size_t> ascending(ranks.size());
  std::iota(ascending.begin(), ascending.end(), std::size_t(0));
  std::sort(ascending.begin(), ascending.end(),
            [&](std::size_t a, std::size_t b) { return ranks[a] < ranks[b]; });
  Grouped g;
  std::vector<std::size_t> next(ranks.size());
  std::size_t total = 0;
  for (const std::size_t k : ascending) {
    g.ranks.push_back(ranks[k]);
    g.begin.push_back(total);
    next[k] = total;
    total += counts[k];
  }
  g.begin.push_back(total);
  g.order.resize(total);
  last = -1;
  for (std::size_t i = 0; i < count; ++i) {
    const int r = rank_of(i);
    if (r >= 0) g.order[next[group(r)]++] = i;
  }
  return g;
}

// `count` ids spread over a range of `range` values, about as many values as
// ids: a bitmap of the range, or a counting sort over it, costs O(count)
// where sorting costs O(count log count).
bool dense(std::int64_t range, std::size_t count) {
  return range <= 4 * static_cast<std::int64_t>(count) + 64;
}

}  // namespace

std::string distinct_ids_error(const std::vector<std::int64_t>& ids, const char* what) {
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0)
      return std::string(what) + " holds the negative id " + std::to_string(ids[i]) +
             " at position " + std::to_string(i);
  if (ids.empty()) return {};
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
    : comm_(comm), holding_(holding), operation_(operation) {
  // Negative ids here; an id repeated on one rank is found where the
  // directory sorts its entries anyway (below), not by sorting every list.
  std::string error;
  for (std::size_t i = 0; i < ids.size() && error.empty(); ++i)
    if (ids[i] < 0)
      error = "the ids registered hold the negative id " + std::to_string(ids[i]) +
              " at position " + std::to_string(i);
  if (error.empty() && holding != Holding::one_to_one && holding != Holding::shared)
    error =
        "holding is " + std::to_string(static_cast<int>(holding)) + ", not one of adlib::Holding's";

  // The bound and the verdict in one reduction; the agreement that gives
  // every rank the same message runs only when some rank failed.
  std::int64_t mine[2] = {0, error.empty() ? 0 : 1}, all[2];
  for (const std::int64_t id : ids) mine[0] = std::max(mine[0], id + 1);
  ADLIB_MPI(MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, comm.get()), operation);
  if (all[1] != 0) agree_on_errors(comm, error, 0, operation);
  id_bound_ = all[0];

  // Each id, with its position, to the rank of its interval.
  const Grouped groups =
      group_by_rank(ids.size(), [&](std::size_t i) { return directory_rank(ids[i]); });
  std::vector<SparseMessage<std::int64_t>> outgoing(groups.ranks.size());
  for (std::size_t k = 0; k < groups.ranks.size(); ++k) {
    outgoing[k].peer = groups.ranks[k];
    outgoing[k].values.reserve(2 * (groups.begin[k + 1] - groups.begin[k]));
    for (std::size_t s = groups.begin[k]; s < groups.begin[k + 1]; ++s) {
      outgoing[k].values.push_back(ids[groups.order[s]]);
      outgoing[k].values.push_back(static_cast<std::int64_t>(groups.order[s]));
    }
  }
  const auto received = exchange_sparse(comm, outgoing, operation, nullptr, std::string(),
                                        static_cast<std::uint64_t>(holding) + 1);
  // Sorted by (id, rank).  Dense ids (the common case: a mesh numbered
  // 0 .. N-1): a counting sort over this rank's interval, stable, senders in
  // ascending rank.  Otherwise each sender's message is sorted on its own
  // (often it already is) and the senders' runs merged, O(n log senders).
  const auto by_id_then_rank = [](const Entry& a, const Entry& b) {
    return a.id != b.id ? a.id < b.id : a.rank < b.rank;
  };
  std::size_t count = 0;
  for (const auto& m : received) count += m.values.size() / 2;
  const std::int64_t length = interval_length(id_bound_, comm.size());
  const std::int64_t first = static_cast<std::int64_t>(comm.rank()) * length;
  const bool counting = count > 0 && count < (std::size_t(1) << 32) && dense(length, count);
  if (counting) {
    std::vector<std::uint32_t> start(static_cast<std::size_t>(length) + 1, 0);
    for (const auto& m : received)
      for (std::size_t k = 0; k < m.values.size(); k += 2)
        ++start[static_cast<std::size_t>(m.values[k] - first) + 1];
    for (std::size_t k = 1; k < start.size(); ++k) start[k] += start[k - 1];
    entries_.resize(count);
    for (const auto& m : received)
      for (std::size_t k = 0; k + 1 < m.values.size(); k += 2)
        entries_[start[static_cast<std::size_t>(m.values[k] - first)]++] = {
            m.values[k], m.values[k + 1], m.peer};
  } else {
    entries_.reserve(count);
    std::vector<std::size_t> run_begin;
    for (const auto& m : received) {
      run_begin.push_back(entries_.size());
      for (std::size_t k = 0; k + 1 < m.values.size(); k += 2)
        entries_.push_back({m.values[k], m.values[k + 1], m.peer});
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

  // An id twice from one rank, or (one-to-one) from two ranks.
  std::string twice;
  for (std::size_t k = 1; k < entries_.size() && twice.empty(); ++k) {
    const Entry &a = entries_[k - 1], &b = entries_[k];
    if (a.id != b.id) continue;
    if (a.rank == b.rank)
      twice = "rank " + std::to_string(a.rank) + " lists the id " + std::to_string(a.id) +
              " twice (ids must be distinct on each rank)";
    else if (holding == Holding::one_to_one)
      twice = "the id " + std::to_string(a.id) + " is held by rank " + std::to_string(a.rank) +
              " and by rank " + std::to_string(b.rank) +
              " (a one-to-one directory: each id on one rank)";
  }
  agree_on_errors(comm, twice, 0, operation);
}

int Directory::directory_rank(std::int64_t id) const {
  if (id < 0 || id >= id_bound_) return -1;
  return static_cast<int>(id / interval_length(id_bound_, comm_.size()));
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
  const auto asked = exchange_sparse(comm_, questions, operation_, nullptr, error,
                                     static_cast<std::uint64_t>(holding_) + 1);

  // Each question answered with (rank, position) in the order asked.
  std::vector<SparseMessage<std::int64_t>> answers(asked.size());
  for (std::size_t k = 0; k < asked.size(); ++k) {
    answers[k].peer = asked[k].peer;
    answers[k].values.reserve(2 * asked[k].values.size());
    for (const std::int64_t id : asked[k].values) {
      const auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                                       [](const Entry& e, std::int64_t v) { return e.id < v; });
      const bool found = it != entries_.end() && it->id == id;
      answers[k].values.push_back(found ? it->rank : -1);
      answers[k].values.push_back(found ? it->position : 0);
    }
  }
  const auto replies = exchange_sparse(comm_, answers, operation_);

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
