// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::exchange_sparse: every rank sends variable-length messages to the
/// ranks it chooses, and learns who sent to it, without any state of size P.
///
/// Why: schedules whose receivers cannot compute what they receive
/// (DataSchedule, Gather / Scatter with subscripts) negotiate at build time.
/// The requesting side knows whom it asks; the owners do not know who will
/// ask them.  The textbook answer, an MPI_Alltoall of message counts, costs
/// every rank O(P) memory and time even when it talks to two neighbours.  This
/// exchange is the non-blocking consensus (NBX) of Hoefler, Siebert and
/// Lumsdaine (PPoPP 2010), the algorithm of PETSc's
/// PetscCommBuildTwoSided_Ibarrier:
///  1. one MPI_Issend per destination (a synchronous send completes only
///     once the receiver has matched it);
///  2. probe for messages of any source and receive them as they come;
///  3. once this rank's own sends have all completed, enter an MPI_Ibarrier;
///  4. keep receiving until the barrier completes: every rank's sends were
///     then matched, so nothing is left in flight for anyone.
/// Cost per rank: one message per destination, the messages it receives, an
/// O(log P) barrier and one O(log P) MPI_Allreduce that agrees on the
/// arguments; memory proportional to the messages this rank sends and
/// receives, never to P.
///
/// @code
///   adlib::Comm comm(MPI_COMM_WORLD);
///   std::vector<adlib::SparseMessage<long>> requests = {{right, {1, 2, 3}}};
///   auto received = adlib::exchange_sparse(comm, requests);  // collective
///   for (const auto& m : received) use(m.peer, m.values);       // sorted by peer
/// @endcode
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/detail/huge_pages.hpp>

namespace adlib {

/// One message of a sparse exchange: its peer (the destination of an
/// outgoing message, the source of a received one) and its elements.
template <class T>
struct SparseMessage {
  int peer = -1;          ///< rank in the exchange's Comm
  std::vector<T> values;  ///< the message; may be empty
};

/// What one rank's part of an exchange_sparse cost (a test and diagnosis aid).
struct SparseExchangeStatistics {
  std::size_t messages_sent = 0;      ///< outgoing messages, one to itself included
  std::size_t messages_received = 0;  ///< received messages, one from itself included
  std::size_t bytes_sent = 0;         ///< payload bytes of the outgoing messages
  std::size_t bytes_received = 0;     ///< payload bytes of the received messages
  /// Most MPI requests this rank held at once: one per destination other than
  /// itself, plus the barrier.  Never depends on the number of ranks.
  std::size_t requests = 0;
};

/// The tag of exchange_sparse's messages on a Comm's duplicate.  It lies
/// below every tag a Comm leases to schedules (TagAllocator pools start at
/// 1), so an exchange never matches a message of a schedule in flight on the
/// same Comm.  Two exchanges in a row cannot mix either: each begins with an
/// MPI_Allreduce that no rank leaves before every rank has entered it, that
/// is, before every rank has left the previous exchange, whose barrier in
/// turn guarantees that all of its messages were received.
constexpr int sparse_exchange_tag = 0;

namespace detail {

/// One outgoing message as the untyped core sees it.
struct SparseSend {
  int peer;
  const void* data;
  std::size_t bytes;
};

/// Where the core puts a received message: the buffer of `bytes` bytes for
/// the message from `peer`.
class SparseInbox {
 public:
  virtual void* receive_into(int peer, std::size_t bytes) = 0;
  /// Delivers outgoing message `k`, this rank's message to itself, without
  /// MPI: moved where the caller gave its messages up (it is often a
  /// planner's largest, a Gather's own part, and a copy costs fresh pages'
  /// first touches), else copied.
  virtual void take_own(std::size_t k) = 0;

 protected:
  ~SparseInbox() = default;
};

/// The local argument check: empty when the messages are valid for a
/// communicator of `comm_size` ranks, else the reason.  `max_message_bytes`
/// is INT_MAX in exchange_sparse (tests pass a smaller one).
std::string sparse_exchange_error(const SparseSend* sends, std::size_t count, int comm_size,
                                  std::size_t max_message_bytes);

/// The untyped exchange behind exchange_sparse (see there); `fingerprint`
/// must be the same on every rank (the element type's and the caller's).
/// `caller_error`, when not empty, is this rank's verdict in the agreement.
SparseExchangeStatistics exchange_sparse_bytes(const Comm& comm, const SparseSend* sends,
                                               std::size_t count, std::uint64_t fingerprint,
                                               SparseInbox& inbox, const char* operation,
                                               const std::string& caller_error = {});

/// exchange_sparse's typed part.  `Messages` is std::vector<SparseMessage<T>>,
/// const unless the caller gives its messages up: then its message to this
/// rank is moved, not copied.
template <class T, class Messages>
std::vector<SparseMessage<T>> exchange_sparse_messages(const Comm& comm, Messages& outgoing,
                                                       const char* operation,
                                                       SparseExchangeStatistics* statistics,
                                                       const std::string& caller_error,
                                                       std::uint64_t caller_fingerprint) {
  static_assert(std::is_trivially_copyable<T>::value,
                "exchange_sparse sends the bytes of T: T must be trivially copyable");
  std::vector<SparseSend> sends;
  sends.reserve(outgoing.size());
  for (const SparseMessage<T>& m : outgoing)
    sends.push_back({m.peer, m.values.data(), m.values.size() * sizeof(T)});

  struct Inbox final : SparseInbox {
    Messages* outgoing = nullptr;
    std::vector<SparseMessage<T>> received;
    void* receive_into(int peer, std::size_t bytes) override {
      received.push_back({peer, {}});
      std::vector<T>& values = received.back().values;
      // Huge pages where it is large, advised before resize() first
      // touches it.
      reserve_huge(values, bytes / sizeof(T));
      values.resize(bytes / sizeof(T));
      return values.data();
    }
    void take_own(std::size_t k) override {
      if constexpr (std::is_const<Messages>::value) {
        const std::vector<T>& own = (*outgoing)[k].values;
        std::copy(own.begin(), own.end(),
                  static_cast<T*>(receive_into((*outgoing)[k].peer, own.size() * sizeof(T))));
      } else {
        received.push_back(std::move((*outgoing)[k]));
      }
    }
  } inbox;
  inbox.outgoing = &outgoing;
  const SparseExchangeStatistics costs = exchange_sparse_bytes(
      comm, sends.data(), sends.size(), hash_mix(element_fingerprint<T>(), caller_fingerprint),
      inbox, operation, caller_error);
  if (statistics) *statistics = costs;
  // Senders are distinct, so the order is the same whatever the arrival order.
  std::sort(inbox.received.begin(), inbox.received.end(),
            [](const SparseMessage<T>& a, const SparseMessage<T>& b) { return a.peer < b.peer; });
  return std::move(inbox.received);
}

}  // namespace detail

/// Collective over `comm`: sends each outgoing message to its peer and
/// returns every message this rank received, sorted by sender.
///
/// - A rank sends at most one message per peer (two messages to one peer are
///   an error: concatenate them), so it receives at most one per peer.
/// - A message may be empty (it is still delivered, with its sender), and may
///   go to this rank itself (copied locally, no MPI message; moved when the
///   caller gives `outgoing` up, the overload below).
/// - Every rank must call it with the same element type T (trivially
///   copyable); messages carry at most INT_MAX bytes each.
/// - A peer outside [0, comm.size()), two messages to one peer, an oversized
///   message or a different T on *any* rank makes every rank throw the same
///   adlib::Error before any message is posted.
/// - Safe beside schedules in flight on the same Comm and back to back with
///   other exchanges (see sparse_exchange_tag).
///
/// `operation` names the caller in error messages (e.g. "DataSchedule");
/// `statistics`, when given, receives this rank's costs.
///
/// A caller that must agree on its own arguments first (a schedule's
/// layouts, element type, combine operation) passes its verdict as
/// `caller_error` and what must match as `caller_fingerprint`: they join the
/// exchange's own agreement, so one MPI_Allreduce checks both.  A rank whose
/// caller_error is set may pass messages that are not meaningful (empty).
template <class T>
std::vector<SparseMessage<T>> exchange_sparse(const Comm& comm,
                                              const std::vector<SparseMessage<T>>& outgoing,
                                              const char* operation = "exchange_sparse",
                                              SparseExchangeStatistics* statistics = nullptr,
                                              const std::string& caller_error = {},
                                              std::uint64_t caller_fingerprint = 0) {
  return detail::exchange_sparse_messages<T>(comm, outgoing, operation, statistics, caller_error,
                                             caller_fingerprint);
}

/// As above, for a caller that gives its messages up: the one to this rank
/// itself is moved into the result instead of copied (`outgoing` is left
/// valid but unspecified).
template <class T>
std::vector<SparseMessage<T>> exchange_sparse(const Comm& comm,
                                              std::vector<SparseMessage<T>>&& outgoing,
                                              const char* operation = "exchange_sparse",
                                              SparseExchangeStatistics* statistics = nullptr,
                                              const std::string& caller_error = {},
                                              std::uint64_t caller_fingerprint = 0) {
  return detail::exchange_sparse_messages<T>(comm, outgoing, operation, statistics, caller_error,
                                             caller_fingerprint);
}

}  // namespace adlib
