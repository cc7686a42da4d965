// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// OwnerGroups: the stable counting sort by owner that remote-access planners
/// (data_plan, block_data_plan) run over their requests, and Directory over
/// the ids it registers and looks up, with nothing of the size of the
/// communicator.
///
/// @code
///   adlib::OwnerGroups groups;
///   for (const auto& r : requests) groups.count(r.owner);    // pass 1
///   groups.close_counting();
///   for (const auto& r : requests) grouped[groups.place(r.owner)] = r;  // pass 2
///   for (std::size_t g : groups.by_ascending_owner())
///     use(groups.owner(g), groups.begin(g), groups.end(g));  // one owner's slots
/// @endcode
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <unordered_map>
#include <vector>

namespace adlib {

/// Requests grouped by owner (see the file overview).  Owners are numbered
/// in order of first appearance through a hash map of the owners named;
/// runs of one owner skip the lookup.
class OwnerGroups {
 public:
  /// Pass 1: one more request for `owner`.
  void count(int owner) { ++count_[group(owner)]; }
  /// Between the passes: the counts become each group's first slot, the
  /// groups laid out by ascending owner (so that the slots of pass 2 hold the
  /// requests sorted by owner, stable within one).
  void close_counting() {
    begin_.resize(count_.size());
    total_ = 0;
    for (const std::size_t g : by_ascending_owner()) {
      begin_[g] = total_;
      total_ += count_[g];
    }
    next_ = begin_;
  }
  /// Pass 2: the slot of `owner`'s next request (request order kept within
  /// an owner: the sort is stable).
  std::size_t place(int owner) { return next_[group(owner)]++; }

  /// The groups' numbers, by ascending owner.
  std::vector<std::size_t> by_ascending_owner() const {
    std::vector<std::size_t> order(owners_.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return owners_[a] < owners_[b]; });
    return order;
  }
  /// Without counting: the number of `owner`'s group, owners numbered in
  /// order of first appearance (for callers that keep each group's requests
  /// themselves; by_ascending_owner() and owner() apply, the slots do not).
  std::size_t number(int owner) { return group(owner); }
  /// Group g's owner.
  int owner(std::size_t g) const { return owners_[g]; }
  /// Group g's first slot (after close_counting(); the groups' stretches
  /// follow one another by ascending owner).
  std::size_t begin(std::size_t g) const { return begin_[g]; }
  /// One past group g's last slot (after close_counting()).
  std::size_t end(std::size_t g) const { return begin_[g] + count_[g]; }
  /// Requests counted in all (after close_counting()).
  std::size_t total() const { return total_; }

 private:
  std::size_t group(int owner) {
    // Requests in random order change owner at almost every request: a
    // small direct-mapped cache answers most of them without hashing (and
    // without emplace's node allocation, which it makes even for a key
    // already present).
    Recent& recent = recent_[static_cast<unsigned>(owner) % kRecent];
    if (recent.owner == owner) return recent.group;
    auto found = group_of_.find(owner);
    if (found == group_of_.end()) {
      found = group_of_.emplace(owner, owners_.size()).first;
      owners_.push_back(owner);
      count_.push_back(0);
    }
    recent = {owner, found->second};
    return found->second;
  }

  std::unordered_map<int, std::size_t> group_of_;
  std::vector<int> owners_;         ///< by group
  std::vector<std::size_t> count_;  ///< requests counted, by group
  std::vector<std::size_t> begin_;  ///< first slots, by group (after close_counting())
  std::vector<std::size_t> next_;   ///< pass 2: each group's next slot
  std::size_t total_ = 0;
  struct Recent {
    int owner = -1;
    std::size_t group = 0;
  };
  static constexpr unsigned kRecent = 64;
  Recent recent_[kRecent];
};

}  // namespace adlib
