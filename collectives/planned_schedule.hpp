// From a plan to a schedule: what every collective built on BlockMessSchedule
// does with the blocks its planner enumerated.
#pragma once

#include <memory>

#include "collectives/remap_plan.hpp"
#include "runtime/comm.hpp"
#include "schedules/block_mess_schedule.hpp"

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

}  // namespace adlib
