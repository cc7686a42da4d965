// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The hang watchdog: a collective that has waited too long says on stderr
/// what it waits for and what every other rank is doing, then aborts the job
/// or throws adlib::Error.
///
/// @code
///   // ADLIB_TIMEOUT=30 mpirun -np 4 ./solver         (30 s, then MPI_Abort)
///   // ADLIB_TIMEOUT=30 ADLIB_TIMEOUT_ACTION=raise ... (30 s, then adlib::Error)
///   adlib::set_watchdog({5.0, adlib::TimeoutAction::raise});  // the same from code,
///                                                             // on every rank alike
/// @endcode
///
/// Why: a collective that some ranks never call (a branch on the rank, an
/// exception caught on one rank only, collectives called in a different
/// order) waits forever, and a job that hangs says nothing.  Agreement turns
/// differing *arguments* into an error on every rank (docs/configuration.md);
/// only a timeout can turn a *missing* call into a report.
///
/// What is watched (each wait separately; the timeout counts from the start
/// of the wait): the agreement of every constructor and checked execution,
/// the messages of every schedule's execution (BlockMessSchedule under Remap,
/// Shift, WriteHalo, Gather, Scatter, the depth halos; the reduction and
/// broadcast schedules), the reductions' and broadcasts' MPI calls and the
/// sparse exchange behind the negotiated schedules.  What is not: the small
/// collectives a constructor makes after its agreement succeeded (topology,
/// directory, peer check), which every rank reaches once the agreement has
/// passed.
///
/// The report: which rank waited how long in which collective and step, the
/// ranks whose messages have not arrived (or "every rank of its
/// communicator" for a collective call), and, for each rank of that
/// communicator, what it is doing now: waiting in which adlib collective, or
/// not waiting in adlib and which collective it last waited in and how long
/// ago.  Every rank publishes that record in a small MPI window that the
/// waiting rank reads one-sidedly; the window is made when the first adlib
/// communicator over all of MPI_COMM_WORLD is made with the watchdog on (every
/// Grid over the world does), and freed when MPI finalises.  Without it the
/// report says so and lists what this rank knows.
///
/// Cost: off (the default), one test of a flag per wait.  On, each wait tests
/// its requests in a loop instead of blocking in MPI_Waitall (what Open MPI
/// does inside MPI_Waitall anyway), reads the clock and writes a record of
/// about 160 bytes; the reductions and broadcasts of MPI's own algorithm use
/// MPI_Iallreduce / MPI_Ibcast instead of the blocking calls.  Since a
/// nonblocking collective never matches a blocking one, the setting is part
/// of what reduction and broadcast schedules agree on at construction: it
/// must be the same on every rank.
#pragma once

#include <string>

namespace adlib {

/// What a timed-out wait does after its report.
enum class TimeoutAction {
  abort,  ///< MPI_Abort(MPI_COMM_WORLD): the job ends (the default)
  raise   ///< throws adlib::Error on the rank that timed out; the schedule and
          ///< its communicator must not be used again (requests stay posted)
};

/// The watchdog's settings: ADLIB_TIMEOUT=\<seconds\> (a positive decimal
/// number; 0 or unset: off) and ADLIB_TIMEOUT_ACTION=abort|raise.
struct WatchdogSettings {
  double timeout_seconds = 0;                   ///< 0: the watchdog is off
  TimeoutAction action = TimeoutAction::abort;  ///< after the report
  /// Is the watchdog on?
  bool enabled() const { return timeout_seconds > 0; }
};

/// The settings in force: those of the environment (read at the first call;
/// a malformed value is an adlib::Error naming the variable), or the last
/// set_watchdog()'s.
WatchdogSettings watchdog_settings();

/// Replaces the settings for this process.  Call it on every rank alike,
/// between collectives (see the file overview); the window that lets reports
/// show other ranks' states is made by the next adlib communicator made over
/// all of MPI_COMM_WORLD.
void set_watchdog(const WatchdogSettings& settings);

/// The settings `timeout` and `action` (texts of ADLIB_TIMEOUT and
/// ADLIB_TIMEOUT_ACTION; null or empty: unset) stand for; adlib::Error for a
/// malformed value.
WatchdogSettings parse_watchdog_settings(const char* timeout, const char* action);

/// "off", or "30 s, then abort".
std::string describe(const WatchdogSettings& settings);

}  // namespace adlib
