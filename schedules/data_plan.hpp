// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The plan of a remote-access schedule (Adlib's DataSchedule): each rank
/// lists the elements it wants to read from, or write into, other ranks'
/// memory, and only it knows that list.  The owners learn what to send, or
/// what to expect, at build time through one sparse exchange
/// (runtime/sparse_exchange.hpp: non-blocking consensus, nothing of size P on
/// any rank).
///
/// A request names the owner, the element's offset in the owner's local
/// memory and the offset in the requester's local memory (an output position
/// for a read, a value's position for a write).  Finding the owner is the
/// caller's business (collectives/ asks the layout's Range inquiries), so this
/// layer knows nothing of distributions.
///
///  1. plan_data_requests (pure): the requests grouped by owner, one message
///     per owner, a rank's requests to itself (a local copy) too, sorted by
///     the owner's offsets (so the owner reads or combines into its memory
///     upwards) or, in MessageOrder::requester, by the requester's;
///  2. negotiate_data_plan (collective): those messages go to the owners, and
///     each owner lists what it received as index-list sends
///     (ExchangePlan::send_indices) to the requester.
///
/// Reads fetch an element asked for several times once: it arrives at the
/// lowest local offset that asked and is copied locally to the others
/// afterwards (DataPlan::fan_out).  Writes send every request, repeats
/// included: the owner combines each contribution into its target, those
/// aimed at one target in increasing order of their local offsets (for a
/// Scatter of a value list: list order), so any combine operation, user
/// operations that are not associative included, gives the same result in
/// every run.
///
/// Cost: O(n) time (one read into a list per owner, a radix sort by offset,
/// or for Gather's reads a bitmap of the owner offsets instead) and
/// about 17 bytes of memory per request at the peak (each owner's list, which
/// becomes its message in place, and its receive list; the bitmap at most 8
/// more, 1 in GA1), requests read in chunks from a RequestSource; nothing
/// depends on the number of ranks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// The order of the messages of a remote-access schedule.  Either way one
/// end of each message walks its memory upwards and the other jumps; which
/// is cheaper depends on the CPU (Configuration::merge_index_walks chooses,
/// per machine).
enum class MessageOrder {
  owner,     ///< by the owner's offsets: the owner walks upwards (and merged walks apply)
  requester  ///< by the requester's offsets: the requester walks upwards
};

/// What a remote-access schedule does with the elements its rank requests.
enum class RemoteAccess {
  read,  ///< local[local_offset] = owner's memory[owner_offset]; a repeat is fetched once
  write  ///< owner's memory[owner_offset] op= local[local_offset]; every request travels
};

/// One element requested: who owns it, where it lives there, and where it
/// lives (or goes) here.
struct ElementRequest {
  int owner = -1;                 ///< the owning rank of the communicator
  std::int64_t owner_offset = 0;  ///< element offset in the owner's local memory
  std::int64_t local_offset = 0;  ///< element offset in the requester's local memory
};

/// Requests produced a chunk at a time, so that a caller with millions of
/// requests (a Gather's subscripts) need not store them all: planning reads
/// them once, chunk by chunk (once more, to check them, unless
/// valid_by_construction(); once more where an owner offset reaches 2^31
/// or a local offset 2^32).
class RequestSource {
 public:
  /// How many requests there are.
  virtual std::size_t size() const = 0;
  /// out[0, count) = requests first, ..., first + count - 1 (always the same
  /// requests for the same positions).
  virtual void fill(std::size_t first, std::size_t count, ElementRequest* out) const = 0;
  /// True when every request names an owner of the communicator and
  /// non-negative offsets by construction (its producer checked its own
  /// input), so negotiate_data_plan need not read the requests once more to
  /// check them: finding an owner is most of a request's planning cost.
  virtual bool valid_by_construction() const { return false; }

 protected:
  ~RequestSource() = default;
};

/// A RequestSource over requests already stored.
class StoredRequests final : public RequestSource {
 public:
  /// Refers to `requests`, which must outlive this object.
  explicit StoredRequests(const std::vector<ElementRequest>& requests) : requests_(requests) {}
  /// How many requests there are.
  std::size_t size() const override { return requests_.size(); }
  /// Copies requests [first, first + count).
  void fill(std::size_t first, std::size_t count, ElementRequest* out) const override {
    std::copy(requests_.begin() + static_cast<std::ptrdiff_t>(first),
              requests_.begin() + static_cast<std::ptrdiff_t>(first + count), out);
  }

 private:
  const std::vector<ElementRequest>& requests_;
};

/// One local copy after a read: local[to] = local[from], once the schedule
/// has delivered local[from].
struct FanOut {
  std::int64_t to = 0;    ///< a repeated request's local offset
  std::int64_t from = 0;  ///< the local offset that received the value
};

/// One rank's plan of a remote-access schedule: the ExchangePlan for the
/// executor, in the read direction (send memory: the owners' memory; receive
/// memory: the requesters'; a write runs it backwards), and a read's fan-out.
struct DataPlan {
  ExchangePlan exchange;          ///< index lists only (no blocks)
  std::vector<FanOut> fan_out;    ///< reads only: copies after the schedule, any order
  std::int64_t local_extent = 0;  ///< the largest local offset requested, plus one
};

/// The requester's half of a plan, before the exchange.
struct DataRequests {
  /// One per owner, ascending owner: the owner offsets wanted, message order.
  std::vector<SparseMessage<std::int64_t>> to_owners;
  /// exchange.recv_indices (one entry per owner, matching to_owners) and fan_out.
  DataPlan plan;
};

/// Empty when every request names an owner in [0, comm_size) and
/// non-negative offsets, else the reason (naming the first bad request).
std::string check_requests(const RequestSource& requests, int comm_size);
/// check_requests of stored requests.
inline std::string check_requests(const std::vector<ElementRequest>& requests, int comm_size) {
  return check_requests(StoredRequests(requests), comm_size);
}

/// The requester's half (see the file overview), for valid requests.  Local
/// offsets must be distinct for a read (each position receives one value).
/// Every group, the requests to the requester itself included, is in the
/// owner's offset order; in MessageOrder::requester, in the order of its
/// local offsets instead (a read's repeats found and fanned out alike).
DataRequests plan_data_requests(const RequestSource& requests, RemoteAccess access,
                                MessageOrder order = MessageOrder::owner);
/// plan_data_requests of stored requests.
inline DataRequests plan_data_requests(const std::vector<ElementRequest>& requests,
                                       RemoteAccess access,
                                       MessageOrder order = MessageOrder::owner) {
  return plan_data_requests(StoredRequests(requests), access, order);
}

/// The owner's half: every received request (sender, owner offsets) becomes
/// exchange.send_indices(sender, offsets), in the order received.
void add_owner_side(ExchangePlan& exchange, std::vector<SparseMessage<std::int64_t>> received);

/// Collective over `comm`: rank's whole plan, with one agreement (inside the
/// sparse exchange, one MPI_Allreduce) on check_requests, on `caller_error`
/// and on `caller_fingerprint` (what the caller needs every rank to agree
/// on: element type, combine operation, layouts), so bad input on any rank
/// throws the same adlib::Error on every rank before any message is posted.
/// `statistics`, when given, receives the exchange's costs; `order` is
/// plan_data_requests' (each requester's own: the owners send in whatever
/// order they are asked).
DataPlan negotiate_data_plan(const Comm& comm, const RequestSource& requests, RemoteAccess access,
                             const char* operation, const std::string& caller_error = {},
                             std::uint64_t caller_fingerprint = 0,
                             SparseExchangeStatistics* statistics = nullptr,
                             MessageOrder order = MessageOrder::owner);

}  // namespace adlib
