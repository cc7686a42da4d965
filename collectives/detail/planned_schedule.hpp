// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// From a plan to a schedule: what every collective built on BlockMessSchedule
/// does with the blocks its planner enumerated (the configuration of the
/// schedule under a collective, a built schedule from a plan).  Internals of collectives/.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <adlib/collectives/remap_plan.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib::detail {

/// The configuration of the BlockMessSchedule under a collective: the
/// collective's, less the checked mode (the collective agrees on its arrays
/// itself, which covers what the schedule would check).
inline Configuration inner_configuration(const Configuration& config) {
  Configuration inner = config;
  inner.checked = false;
  return inner;
}

/// A built schedule for `plan` (collective), with its buffers allocated for T.
template <class T, class MemorySpace>
std::unique_ptr<BlockMessSchedule<MemorySpace>> build_schedule(
    const Comm& comm, const ExchangePlan& plan,
    const Configuration& config = Configuration::environment()) {
  auto schedule =
      std::make_unique<BlockMessSchedule<MemorySpace>>(comm, inner_configuration(config));
  schedule->declare(plan);
  schedule->build();
  schedule->template prepare<T>();
  return schedule;
}

}  // namespace adlib::detail
