// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Tags for concurrently live schedules on one communicator.
///
/// Each schedule leases one tag for its whole life, so several schedules can be in
/// flight at once without their messages matching each other.  The pool of one
/// rank; schedules choose their tag together (Comm::lease_agreed_tag: the
/// lowest tag free on every rank, found inside BlockMessSchedule::build()'s
/// agreement), so ranks may destroy schedules in different orders.  acquire()
/// alone hands out this rank's lowest free tag, which matches other ranks only
/// when every rank created and destroyed its leases in the same order.
#pragma once

#include <cstdint>
#include <memory>
#include <set>

namespace adlib {

/// One rank's pool of message tags (see the file overview); not thread-safe by
/// itself (Comm locks around it).
class TagAllocator {
 public:
  /// Tags are taken from [first, upper_bound]; upper_bound is MPI_TAG_UB.
  TagAllocator(int first, int upper_bound);

  int acquire();          ///< throws adlib::Error when every tag is in use
  void take(int tag);     ///< acquires this tag; throws adlib::Error if in use or out of range
  void release(int tag);  ///< returns a tag to the pool
  /// Is `tag` leased now?
  bool in_use(int tag) const { return in_use_.count(tag) != 0; }
  /// Bit b of words[b / 64] set when tag first + b is in use (count * 64 tags).
  void usage_mask(int first, std::uint64_t* words, int count) const;
  /// The lowest tag of the pool.
  int first() const { return first_; }
  /// Number of tags in use.
  int live_count() const { return static_cast<int>(in_use_.size()); }
  /// The highest tag of the pool.
  int upper_bound() const { return upper_bound_; }

 private:
  int first_;
  int upper_bound_;
  std::set<int> in_use_;  ///< every other tag of [first_, upper_bound_] is free
};

}  // namespace adlib
