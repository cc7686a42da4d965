// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Implementation detail of the hang watchdog (runtime/watchdog.hpp): the
/// waits every schedule makes go through these, which are the plain MPI
/// calls while the watchdog is off and a test loop with a deadline, a
/// published record and a report while it is on.
///
/// What a wait is for (its WaitSubject) is described by a callable that runs
/// only when the watchdog is on, so the unwatched path builds nothing.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace adlib {
namespace detail {

/// What a wait waits for, as the report names it.
struct WaitSubject {
  std::string operation;          ///< the collective, e.g. "WriteHalo::execute"
  std::string step;               ///< what in it, e.g. "messages" or "agreement on the arguments"
  MPI_Comm comm = MPI_COMM_NULL;  ///< the communicator the wait is on
  /// The rank (in `comm`) each request waits on; empty: a collective call,
  /// which waits on every rank of `comm`.
  std::vector<int> peers;
  int tag = -1;  ///< the messages' tag (-1: not told)
};

/// The watchdog's state as waits test it: -1 before the settings are read,
/// 0 off, 1 on (watchdog.cpp keeps it in step with the settings).
extern int watchdog_state;
/// Reads the settings (the first time) and returns whether the watchdog is on.
bool read_watchdog_state();
/// Is the watchdog on?  One load and a comparison, inline: every wait asks.
inline bool watchdog_enabled() {
  return watchdog_state >= 0 ? watchdog_state == 1 : read_watchdog_state();
}

/// The user-level collective the next execution belongs to (a string
/// literal), set by the collectives before they start their schedule and
/// taken (and cleared) by the executor that starts: its waits then report
/// "WriteHalo::execute" rather than the schedule underneath.
void name_next_execution(const char* operation);
/// The name set since the last call (nullptr: none), cleared.
const char* take_execution_name();

/// The watched forms of MPI_Waitall, MPI_Waitany and MPI_Wait (used when the
/// watchdog is on): same results, or a report and the configured action
/// once the wait exceeds the timeout.
int watched_waitall_on(int count, MPI_Request* requests, MPI_Status* statuses,
                       const WaitSubject& subject);
int watched_waitany_on(int count, MPI_Request* requests, int* index, MPI_Status* status,
                       const WaitSubject& subject);

/// MPI_Waitall, watched when the watchdog is on; `describe()` returns the
/// WaitSubject and runs only then.
template <class Describe>
int watched_waitall(int count, MPI_Request* requests, MPI_Status* statuses,
                    const Describe& describe) {
  if (!watchdog_enabled()) return MPI_Waitall(count, requests, statuses);
  return watched_waitall_on(count, requests, statuses, describe());
}
/// MPI_Waitany, watched when the watchdog is on.
template <class Describe>
int watched_waitany(int count, MPI_Request* requests, int* index, MPI_Status* status,
                    const Describe& describe) {
  if (!watchdog_enabled()) return MPI_Waitany(count, requests, index, status);
  return watched_waitany_on(count, requests, index, status, describe());
}
/// MPI_Wait, watched when the watchdog is on.
template <class Describe>
int watched_wait(MPI_Request* request, MPI_Status* status, const Describe& describe) {
  if (!watchdog_enabled()) return MPI_Wait(request, status);
  return watched_waitall_on(1, request, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status,
                            describe());
}

/// MPI_Allreduce, or (watchdog on) MPI_Iallreduce and a watched wait.  The
/// choice must be the same on every rank (a nonblocking collective never
/// matches a blocking one): callers agree on watchdog_enabled() first.
int watched_allreduce(const void* input, void* output, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm, const char* operation, const char* step);
/// MPI_Bcast, or (watchdog on) MPI_Ibcast and a watched wait; the same
/// proviso.
int watched_bcast(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  const char* operation, const char* step);
/// MPI_Iallreduce and a watched wait whatever the setting: for the
/// agreements, which are what would tell ranks that their settings differ.
int nonblocking_allreduce(const void* input, void* output, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, const char* operation, const char* step);

/// Cancels the receives among `requests` that have not completed and
/// completes the cancellation (one that matched meanwhile completes
/// normally): after a timeout that raises, so that no message lands later in
/// memory that the unwinding frees.
void cancel_pending_receives(int count, MPI_Request* requests);

/// For a loop that tests its own requests (the sparse exchange): constructed
/// before the loop, check() once per iteration.  Does nothing while the
/// watchdog is off.
class WatchedLoop {
 public:
  template <class Describe>
  explicit WatchedLoop(const Describe& describe) {
    if (watchdog_enabled()) begin(describe());
  }
  WatchedLoop(const WatchedLoop&) = delete;
  WatchedLoop& operator=(const WatchedLoop&) = delete;
  ~WatchedLoop();
  /// Reports and acts once the loop has run longer than the timeout.
  void check() {
    if (watching_) check_deadline();
  }

 private:
  void begin(WaitSubject subject);
  void check_deadline();
  bool watching_ = false;
  double started_ = 0;
  WaitSubject subject_;
};

/// Made by the first Comm over all of MPI_COMM_WORLD while the watchdog is
/// on (collective over MPI_COMM_WORLD): the window of wait records.
void open_watchdog_window_if_needed(MPI_Comm comm_over_world);

}  // namespace detail
}  // namespace adlib
