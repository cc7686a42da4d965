// SPDX-License-Identifier: BSD-3-Clause
// Tags for concurrently live schedules on one communicator.
//
// Each schedule leases one tag for its whole life, so several schedules can be in
// flight at once without their messages matching each other.  The pool of one
// rank; schedules choose their tag together (Comm::lease_agreed_tag: the
// lowest tag free on every rank, found inside the constructor's agreement), so
// ranks may destroy schedules in different orders.  acquire() alone hands out
// this rank's lowest free tag, which matches other ranks only when every rank
// created and destroyed its leases in the same order.
#pragma once

#include <cstdint>
#include <memory>
#include <set>

namespace adlib {

class TagAllocator {
 public:
  // Tags are taken from [first, upper_bound]; upper_bound is MPI_TAG_UB.
  TagAllocator(int first, int upper_bound);

  int acquire();          // throws adlib::Error when every tag is in use
  void take(int tag);     // acquires this tag; throws adlib::Error if in use or out of range
  void release(int tag);  // returns a tag to the pool
  bool in_use(int tag) const { return in_use_.count(tag) != 0; }
  // Bit b of words[b / 64] set when tag first + b is in use (words.size() * 64 tags).
  void usage_mask(int first, std::uint64_t* words, int count) const;
  int first() const { return first_; }
  int live_count() const { return static_cast<int>(in_use_.size()); }
  int upper_bound() const { return upper_bound_; }

 private:
  int first_;
  int upper_bound_;
  int next_fresh_;
  std::set<int> released_;  // returned tags below next_fresh_, reused lowest first
  std::set<int> in_use_;
};

}  // namespace adlib
