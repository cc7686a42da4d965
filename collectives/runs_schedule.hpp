// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// RunsSchedule: what every collective that runs one precomputed schedule
/// offers its users besides its own start() and execute(): finish(), the
/// schedule for inspection, the transfer choice and the configuration; and,
/// for the collective itself, the agreement before an execution.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

/// What every collective that runs one schedule (a BlockMessSchedule, or a
/// DataSchedule for Gather and Scatter) offers besides its own start():
/// completion, the schedule for inspection, and the transfer choice.  The
/// derived class builds `schedule_` in its constructor.
template <class MemorySpace, class Schedule = BlockMessSchedule<MemorySpace>>
class RunsSchedule {
 public:
  /// The configuration the schedule was built with (agreed across ranks).
  const Configuration& configuration() const { return config_; }
  /// Completes the execution that start() (or Remap's start_reverse()) began.
  /// Not virtual and never hidden: a derived class that starts a schedule
  /// other than schedule() says so in running_, so finishing through this
  /// base finishes the right one.
  void finish() {
    Schedule* running = running_ ? running_ : schedule_.get();
    running_ = nullptr;
    running->finish();
  }
  /// The underlying schedule (its plan, tag, transfer choice).
  const Schedule& schedule() const { return *schedule_; }
  /// Pack or MPI datatype per message (see transfer_policy.hpp); the
  /// environment's choice until set.  Not while an execution is in flight.
  void set_transfer(const TransferPolicy& policy) { schedule_->set_transfer(policy); }

 protected:
  /// For derived classes, which build schedule_ themselves.
  explicit RunsSchedule(const Configuration& config) : config_(config) {}

  /// Before an execution posts anything: `error` is this rank's verdict on
  /// the arrays (empty: fine) and `arrays` how many it passes.  Unchecked, an
  /// error throws here only; in checked mode every rank agrees (one
  /// MPI_Allreduce) on the verdicts and on `arrays`, so a rank that passes
  /// another layout, or another number of arrays, makes every rank throw.
  /// Checked executions are collective calls: every rank starts the checked
  /// schedules of a communicator in the same order.
  ///
  /// `combine` fingerprints the combine operation of a reverse execution
  /// (op::fingerprint; 0 for a forward one), so that ranks combining
  /// differently disagree too.
  void agree_to_execute(const std::string& error, std::uint64_t arrays, const char* operation,
                        std::uint64_t combine = 0) const {
    detail::name_next_execution(operation);  // what the hang watchdog reports
    if (!config_.checked) {
      if (!error.empty()) throw Error(error, schedule_->comm().rank(), operation);
      return;
    }
    // The tag (agreed at construction) pins which schedule this is: ranks
    // that start different schedules at this point disagree.  Named, so that
    // the error says what differs ("combine: add on ranks 0, 2; max on rank
    // 1"); the same one MPI_Allreduce as a bare fingerprint when all agree.
    const auto tag = static_cast<std::uint64_t>(schedule_->tag());
    agree_on_arguments(
        schedule_->comm(), error,
        {{"arrays passed", arrays, [arrays] { return std::to_string(arrays); }},
         agreed_combine(combine),
         {"schedule", tag, [tag] { return "the one with tag " + std::to_string(tag); }}},
        operation);
  }

  /// The configuration the collective was made with.
  Configuration config_;
  /// The built schedule; set by the derived class's constructor.
  std::unique_ptr<Schedule> schedule_;
  /// The schedule the execution in flight started when it is not
  /// schedule_ (Remap's reverse of replicated layouts), for finish().
  Schedule* running_ = nullptr;
};

}  // namespace adlib
