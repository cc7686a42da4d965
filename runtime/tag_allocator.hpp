// SPDX-License-Identifier: BSD-3-Clause
// Tags for concurrently live schedules on one communicator.
//
// Each schedule leases one tag for its whole life, so several schedules can be in
// flight at once without their messages matching each other.  Tags are handed
// out lowest-free-first and returned when the lease dies; because schedules are
// built and destroyed collectively (in the same order on every rank), every rank
// hands the same tag to the same schedule without any communication.
#pragma once

#include <memory>
#include <set>

namespace adlib {

class TagAllocator {
 public:
  // Tags are taken from [first, upper_bound]; upper_bound is MPI_TAG_UB.
  TagAllocator(int first, int upper_bound);

  int acquire();          // throws adlib::Error when every tag is in use
  void release(int tag);  // returns a tag to the pool
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
