// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/watchdog.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {

WatchdogSettings& settings_in_force() {
  static WatchdogSettings settings =
      parse_watchdog_settings(std::getenv("ADLIB_TIMEOUT"), std::getenv("ADLIB_TIMEOUT_ACTION"));
  return settings;
}

double seconds_since_epoch() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", seconds);
  return text;
}

// What each rank publishes about its waits, in its part of the window: a
// plain record of fixed size that another rank reads with MPI_Get.  `opened`
// and `closed` are equal when the record is whole (a reader may catch it
// half written; it then says so).
struct WaitRecord {
  std::uint64_t opened;
  std::int32_t state;  // kNeverWaited, kWaiting, kDone
  std::int32_t unused;
  double since;         // system clock: when the wait began (kWaiting) or ended (kDone)
  std::uint64_t waits;  // watched waits begun so far
  char operation[56];
  char step[56];
  std::uint64_t closed;
};
constexpr std::int32_t kNeverWaited = 0, kWaiting = 1, kDone = 2;

WaitRecord local_record{};
WaitRecord* record = &local_record;  // the window's memory once it is open
MPI_Win record_window = MPI_WIN_NULL;

void copy_text(char* into, std::size_t capacity, const std::string& text) {
  const std::size_t length = std::min(capacity - 1, text.size());
  std::memcpy(into, text.data(), length);
  into[length] = '\0';
}

void publish_waiting(const detail::WaitSubject& subject) {
  WaitRecord& r = *record;
  r.opened = r.opened + 1;
  std::atomic_thread_fence(std::memory_order_release);
  r.state = kWaiting;
  r.since = seconds_since_epoch();
  ++r.waits;
  copy_text(r.operation, sizeof r.operation, subject.operation);
  copy_text(r.step, sizeof r.step, subject.step);
  std::atomic_thread_fence(std::memory_order_release);
  r.closed = r.opened;
}

void publish_done() {
  WaitRecord& r = *record;
  r.opened = r.opened + 1;
  std::atomic_thread_fence(std::memory_order_release);
  r.state = kDone;
  r.since = seconds_since_epoch();
  std::atomic_thread_fence(std::memory_order_release);
  r.closed = r.opened;
}

int world_rank() {
  int rank = -1, initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// The ranks in MPI_COMM_WORLD of `comm`'s ranks 0 .. size-1.
std::vector<int> world_ranks_of(MPI_Comm comm) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  std::vector<int> ranks(static_cast<std::size_t>(size)), in_world(ranks.size());
  for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = r;
  MPI_Group_translate_ranks(group, size, ranks.data(), world, in_world.data());
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return in_world;
}

// The records of `ranks` (in MPI_COMM_WORLD), read one-sidedly; empty, with
// the reason in `unavailable`, when there is no window.
std::vector<WaitRecord> read_records(const std::vector<int>& ranks, std::string& unavailable) {
  if (record_window == MPI_WIN_NULL) {
    unavailable =
        "the other ranks' states are not known: no adlib communicator over all of "
        "MPI_COMM_WORLD was made while the watchdog was on (set ADLIB_TIMEOUT before the "
        "program starts)";
    return {};
  }
  std::vector<WaitRecord> records(ranks.size());
  if (MPI_Win_lock_all(MPI_MODE_NOCHECK, record_window) != MPI_SUCCESS) {
    unavailable = "the other ranks' states could not be read (MPI_Win_lock_all failed)";
    return {};
  }
  for (std::size_t k = 0; k < ranks.size(); ++k)
    MPI_Get(&records[k], sizeof(WaitRecord), MPI_BYTE, ranks[k], 0, sizeof(WaitRecord), MPI_BYTE,
            record_window);
  MPI_Win_unlock_all(record_window);
  return records;
}

std::string describe_record(const WaitRecord& r, double now, double& seconds) {
  seconds = 0;
  if (r.opened != r.closed) return "changing its state (read while it was being written)";
  if (r.state == kNeverWaited) return "has not waited in adlib yet";
  seconds = std::max(0.0, now - r.since);
  const std::string where =
      std::string(r.operation) + (r.step[0] ? " (" + std::string(r.step) + ")" : "");
  if (r.state == kWaiting) return "waiting in " + where;
  return "not waiting in adlib (last waited in " + where + ")";
}

// Ranks with the same state on one line, in the order of their lowest rank.
std::string describe_states(const std::vector<int>& ranks, const std::vector<WaitRecord>& records) {
  const double now = seconds_since_epoch();
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::vector<int>, double>> groups;
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    double seconds = 0;
    const std::string state = describe_record(records[k], now, seconds);
    auto found = groups.find(state);
    if (found == groups.end()) {
      order.push_back(state);
      groups[state] = {{ranks[k]}, seconds};
    } else {
      found->second.first.push_back(ranks[k]);
      found->second.second = std::max(found->second.second, seconds);
    }
  }
  std::string text;
  for (const std::string& state : order) {
    const auto& [members, seconds] = groups[state];
    text += "    " + std::string(members.size() == 1 ? "rank " : "ranks ") +
            describe_ranks(members) + ": ";
    if (state.rfind("waiting", 0) == 0)
      text += state + ", for " + seconds_text(seconds);
    else if (state.rfind("not waiting", 0) == 0)  // "... (last waited in X, until 2.0 s ago)"
      text += state.substr(0, state.size() - 1) + ", until " + seconds_text(seconds) + " ago)";
    else
      text += state;
    text += "\n";
  }
  return text;
}

// The ranks (in MPI_COMM_WORLD) whose requests among `requests` are still
// pending.
std::vector<int> pending_peers(const detail::WaitSubject& subject, int count, MPI_Request* requests,
                               const std::vector<int>& world_of) {
  std::vector<int> pending;
  for (int k = 0; k < count && static_cast<std::size_t>(k) < subject.peers.size(); ++k) {
    if (requests[k] == MPI_REQUEST_NULL) continue;
    int complete = 0;
    MPI_Request_get_status(requests[k], &complete, MPI_STATUS_IGNORE);
    const int peer = subject.peers[static_cast<std::size_t>(k)];
    if (!complete && peer >= 0 && static_cast<std::size_t>(peer) < world_of.size())
      pending.push_back(world_of[static_cast<std::size_t>(peer)]);
  }
  std::sort(pending.begin(), pending.end());
  pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
  return pending;
}

// The report, on stderr, then the configured action.
[[noreturn]] void time_out(const detail::WaitSubject& subject, double waited, int count,
                           MPI_Request* requests) {
  const WatchdogSettings settings = settings_in_force();
  const int me = world_rank();
  const std::vector<int> members = world_ranks_of(subject.comm);
  std::ostringstream text;
  text << "adlib watchdog: rank " << me << " has waited " << seconds_text(waited) << " in "
       << subject.operation << (subject.step.empty() ? "" : " (" + subject.step + ")")
       << ", past the timeout of " << seconds_text(settings.timeout_seconds)
       << " (ADLIB_TIMEOUT).  Ranks are those of MPI_COMM_WORLD.\n";
  const std::string communicator = std::string("its communicator (") +
                                   (members.size() == 1 ? "rank " : "ranks ") +
                                   describe_ranks(members) + ")";
  if (subject.peers.empty()) {
    text << "  It waits for every rank of " << communicator << ": a collective call.\n";
  } else {
    const std::vector<int> pending = pending_peers(subject, count, requests, members);
    text << "  It waits for messages from "
         << (pending.empty() ? std::string("(none pending any more)")
                             : (pending.size() == 1 ? "rank " : "ranks ") + describe_ranks(pending))
         << (subject.tag >= 0 ? " (tag " + std::to_string(subject.tag) + ")" : "") << " on "
         << communicator << ".\n";
  }
  std::string unavailable;
  const std::vector<WaitRecord> records = read_records(members, unavailable);
  if (records.empty())
    text << "  (" << unavailable << ")\n";
  else
    text << "  What the ranks of that communicator are doing:\n"
         << describe_states(members, records);
  text << "  A collective that some ranks do not call, or call in another order, waits for "
          "ever: look for branches on the rank and exceptions caught on some ranks only.\n"
       << "  Action: "
       << (settings.action == TimeoutAction::abort
               ? "abort (MPI_Abort); ADLIB_TIMEOUT_ACTION=raise throws adlib::Error instead."
               : "raise (adlib::Error on this rank; this schedule and its communicator must "
                 "not be used again).");
  const std::string report = text.str();
  std::fprintf(stderr, "%s\n", report.c_str());
  std::fflush(stderr);
  if (settings.action == TimeoutAction::abort) MPI_Abort(MPI_COMM_WORLD, 14);
  throw Error(report, me, subject.operation);
}

// The published record of one watched wait, for as long as it lasts.
// The report and the action once a wait that began at `started` (steady
// clock) has lasted longer than the timeout: the one deadline check of
// Watch and WatchedLoop.
void time_out_if_late(const detail::WaitSubject& subject, double started, int count,
                      MPI_Request* requests) {
  const double waited = steady_seconds() - started;
  if (waited > settings_in_force().timeout_seconds) time_out(subject, waited, count, requests);
}

// The published record of one watched wait, for as long as it lasts.
class Watch {
 public:
  explicit Watch(const detail::WaitSubject& subject)
      : subject_(subject), started_(steady_seconds()) {
    publish_waiting(subject);
  }
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  ~Watch() { publish_done(); }
  void check(int count, MPI_Request* requests) const {
    time_out_if_late(subject_, started_, count, requests);
  }

 private:
  const detail::WaitSubject& subject_;
  double started_;
};

// Frees the window of records at MPI_Finalize, which deletes MPI_COMM_SELF's
// attributes first, on every rank: MPI_Win_free is collective.
int free_record_window(MPI_Comm, int, void*, void*) {
  if (record_window != MPI_WIN_NULL) {
    local_record = *record;
    record = &local_record;
    MPI_Win_free(&record_window);
  }
  return MPI_SUCCESS;
}

}  // namespace

WatchdogSettings parse_watchdog_settings(const char* timeout, const char* action) {
  WatchdogSettings settings;
  if (timeout && *timeout) {
    char* end = nullptr;
    const double seconds = std::strtod(timeout, &end);
    if (end == timeout || *end != '\0' || !(seconds >= 0) || seconds > 1e9)
      throw Error(std::string("ADLIB_TIMEOUT=") + timeout +
                      " is not a number of seconds (a decimal number, 0 for off, e.g. 30 or 0.5)",
                  -1, "watchdog");
    settings.timeout_seconds = seconds;
  }
  if (action && *action) {
    const std::string text = action;
    if (text == "abort")
      settings.action = TimeoutAction::abort;
    else if (text == "raise")
      settings.action = TimeoutAction::raise;
    else
      throw Error("ADLIB_TIMEOUT_ACTION=" + text + " is not one of abort, raise", -1, "watchdog");
  }
  return settings;
}

WatchdogSettings watchdog_settings() {
  return settings_in_force();
}

void set_watchdog(const WatchdogSettings& settings) {
  if (!(settings.timeout_seconds >= 0))
    throw Error("a negative or NaN timeout", -1, "set_watchdog");
  settings_in_force() = settings;
  detail::read_watchdog_state();
}

std::string describe(const WatchdogSettings& settings) {
  if (!settings.enabled()) return "off";
  return seconds_text(settings.timeout_seconds) + ", then " +
         (settings.action == TimeoutAction::abort ? "abort" : "raise");
}

namespace detail {

namespace {
const char* next_execution_name = nullptr;
}  // namespace

int watchdog_state = -1;

bool read_watchdog_state() {
  watchdog_state = settings_in_force().enabled() ? 1 : 0;
  return watchdog_state == 1;
}

void name_next_execution(const char* operation) {
  next_execution_name = operation;
}

const char* take_execution_name() {
  const char* name = next_execution_name;
  next_execution_name = nullptr;
  return name;
}

int watched_waitall_on(int count, MPI_Request* requests, MPI_Status* statuses,
                       const WaitSubject& subject) {
  Watch watch(subject);
  for (;;) {
    int done = 0;
    const int code = MPI_Testall(count, requests, &done, statuses);
    if (code != MPI_SUCCESS || done) return code;
    watch.check(count, requests);
  }
}

int watched_waitany_on(int count, MPI_Request* requests, int* index, MPI_Status* status,
                       const WaitSubject& subject) {
  Watch watch(subject);
  for (;;) {
    int done = 0;
    const int code = MPI_Testany(count, requests, index, &done, status);
    if (code != MPI_SUCCESS || done) return code;
    watch.check(count, requests);
  }
}

int nonblocking_allreduce(const void* input, void* output, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, const char* operation, const char* step) {
  if (!watchdog_enabled()) {
    MPI_Request request = MPI_REQUEST_NULL;
    const int code = MPI_Iallreduce(input, output, count, type, op, comm, &request);
    return code != MPI_SUCCESS ? code : MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  // Watched, the wait may end in an exception (raise mode) while the
  // collective is still posted, and the ranks that did enter it may still
  // deliver into its buffers: they are heap copies, kept for the rest of the
  // run if the wait is abandoned, never the caller's (often stack) memory.
  int size = 0;
  MPI_Type_size(type, &size);
  const std::size_t bytes = static_cast<std::size_t>(size) * static_cast<std::size_t>(count);
  auto buffers = std::make_unique<char[]>(2 * bytes + 1);
  char* const in = buffers.get();
  char* const out = buffers.get() + bytes;
  std::memcpy(in, input == MPI_IN_PLACE ? output : input, bytes);
  MPI_Request request = MPI_REQUEST_NULL;
  int code = MPI_Iallreduce(in, out, count, type, op, comm, &request);
  if (code != MPI_SUCCESS) return code;
  try {
    code = watched_waitall_on(1, &request, MPI_STATUSES_IGNORE,
                              WaitSubject{operation, step, comm, {}, -1});
  } catch (...) {
    static std::vector<std::unique_ptr<char[]>> abandoned;  // reachable: not a leak
    abandoned.push_back(std::move(buffers));
    throw;
  }
  if (code == MPI_SUCCESS) std::memcpy(output, out, bytes);
  return code;
}

int watched_allreduce(const void* input, void* output, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm, const char* operation, const char* step) {
  if (!watchdog_enabled()) return MPI_Allreduce(input, output, count, type, op, comm);
  return nonblocking_allreduce(input, output, count, type, op, comm, operation, step);
}

int watched_bcast(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  const char* operation, const char* step) {
  if (!watchdog_enabled()) return MPI_Bcast(data, count, type, root, comm);
  MPI_Request request = MPI_REQUEST_NULL;
  const int code = MPI_Ibcast(data, count, type, root, comm, &request);
  if (code != MPI_SUCCESS) return code;
  return watched_waitall_on(1, &request, MPI_STATUSES_IGNORE,
                            WaitSubject{operation, step, comm, {}, -1});
}

WatchedLoop::~WatchedLoop() {
  if (watching_) publish_done();
}

void cancel_pending_receives(int count, MPI_Request* requests) {
  for (int k = 0; k < count; ++k) {
    if (requests[k] == MPI_REQUEST_NULL) continue;
    int complete = 0;
    MPI_Request_get_status(requests[k], &complete, MPI_STATUS_IGNORE);
    if (complete) continue;
    MPI_Cancel(&requests[k]);
    MPI_Wait(&requests[k], MPI_STATUS_IGNORE);
  }
}

void WatchedLoop::begin(WaitSubject subject) {
  subject_ = std::move(subject);
  started_ = steady_seconds();
  watching_ = true;
  publish_waiting(subject_);
}

void WatchedLoop::check_deadline() {
  time_out_if_late(subject_, started_, 0, nullptr);
}

void open_watchdog_window_if_needed(MPI_Comm comm_over_world) {
  if (record_window != MPI_WIN_NULL) return;
  int size = 0, world = 0;
  MPI_Comm_size(comm_over_world, &size);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (size != world) return;
  // Every rank must take the same branch below (the window is collective):
  // the first communicator over the whole world checks that the setting
  // agrees, which also tells a rank whose environment differs.
  int on[2] = {watchdog_enabled() ? 1 : 0, watchdog_enabled() ? 0 : 1}, any[2] = {0, 0};
  ADLIB_MPI(MPI_Allreduce(on, any, 2, MPI_INT, MPI_MAX, comm_over_world), "watchdog");
  if (any[0] && any[1])
    throw Error(
        "the watchdog is on on some ranks and off on others (ADLIB_TIMEOUT or set_watchdog "
        "must be the same on every rank)",
        world_rank(), "watchdog");
  if (!any[0]) return;
  void* base = nullptr;
  ADLIB_MPI(
      MPI_Win_allocate(sizeof(WaitRecord), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &record_window),
      "watchdog");
  MPI_Win_set_errhandler(record_window, MPI_ERRORS_RETURN);
  std::memcpy(base, &local_record, sizeof(WaitRecord));
  record = static_cast<WaitRecord*>(base);
  int keyval = MPI_KEYVAL_INVALID;
  ADLIB_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_record_window, &keyval, nullptr),
            "watchdog");
  ADLIB_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr), "watchdog");
}

}  // namespace detail

}  // namespace adlib
