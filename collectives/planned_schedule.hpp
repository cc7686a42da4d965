// SPDX-License-Identifier: BSD-3-Clause
// From a plan to a schedule: what every collective built on BlockMessSchedule
// does with the blocks its planner enumerated.
#pragma once

#include <memory>

#include <adlib/collectives/remap_plan.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

// Declares a plan's blocks in plan order (the order is the message layout,
// identical on both ends of every message).
template <class MemorySpace>
void declare(BlockMessSchedule<MemorySpace>& schedule, const RemapPlan& plan) {
  for (const auto& b : plan.sends) schedule.send(b.peer, b.block);
  for (const auto& b : plan.recvs) schedule.recv(b.peer, b.block);
}

// A built schedule for `plan` (collective), with its buffers allocated for T.
template <class T, class MemorySpace>
std::unique_ptr<BlockMessSchedule<MemorySpace>> build_schedule(const Comm& comm,
                                                               const RemapPlan& plan) {
  auto schedule = std::make_unique<BlockMessSchedule<MemorySpace>>(comm);
  declare(*schedule, plan);
  schedule->build();
  schedule->template prepare<T>();
  return schedule;
}

// What every collective that runs one BlockMessSchedule offers besides its
// own start(): completion, the schedule for inspection, and the transfer
// choice.  The derived class builds `schedule_` in its constructor.
template <class MemorySpace>
class RunsSchedule {
 public:
  void finish() { schedule_->finish(); }
  const BlockMessSchedule<MemorySpace>& schedule() const { return *schedule_; }
  // Pack or MPI datatype per message (see transfer_policy.hpp); the
  // environment's choice until set.  Not while an execution is in flight.
  void set_transfer(const TransferPolicy& policy) { schedule_->set_transfer(policy); }

 protected:
  std::unique_ptr<BlockMessSchedule<MemorySpace>> schedule_;
};

}  // namespace adlib
