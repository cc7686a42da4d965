// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// MessageExecutor: what a BlockMessSchedule does once built, the actor
/// beside its plan (as Tpetra's Distributor sits on DistributorPlan and
/// DistributorActor).
///
/// The schedule (block_mess_schedule.hpp) declares, builds and agrees; the
/// executor runs the built plan, many times.  For each kind of execution
/// (direction, element size, number of arrays, combining or not) it makes a
/// MessageRoute once and keeps it; it holds the message buffers
/// (MessageBuffers), the persistent requests (RequestSets, which make
/// them), the copy kernels (RouteCopies) and the execution between start()
/// and finish() (PendingExecution).  One execution:
///
///   start():  post every receive; pack (with the local copies that read the
///             same rows); stage to the host if messages are staged; post the
///             sends; the remaining local copies while messages fly.
///   finish(): wait for each message (as it arrives, or in peer order when
///             combining, so that sums come out the same every run), check
///             its size, unstage and unpack it; the merged index walk; wait
///             for the sends.
///
/// Everything that must agree across ranks (the plan, the tag, the
/// arguments of a checked execution) is the schedule's business, settled
/// before the executor posts anything.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/shipped_types.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include <adlib/schedules/detail/message_buffers.hpp>
#include <adlib/schedules/detail/message_route.hpp>
#include <adlib/schedules/detail/pending_execution.hpp>
#include <adlib/schedules/detail/request_sets.hpp>
#include <adlib/schedules/detail/route_copies.hpp>
#include <adlib/schedules/transfer_policy.hpp>

namespace adlib::detail {

/// Runs a built BlockMessagePlan (see the file overview).  Neither copyable
/// nor movable: persistent requests point into its buffers, and it refers to
/// its schedule's communicator and plan, which must outlive it.
template <class MemorySpace>
class MessageExecutor {
 public:
  /// Request sets kept (least recently used evicted).
  static constexpr std::size_t kRequestSetsKept = RequestSets::kKept;

  /// An executor of `plan` over `comm`, moving messages as `policy` says,
  /// staged through host buffers if `staged`.
  MessageExecutor(const Comm& comm, const BlockMessagePlan& plan, const TransferPolicy& policy,
                  bool staged)
      : comm_(comm), plan_(plan), policy_(policy), staged_(staged) {}
  MessageExecutor(const MessageExecutor&) = delete;
  MessageExecutor& operator=(const MessageExecutor&) = delete;
  /// Completes an execution still in flight, then frees the requests and
  /// datatypes.
  ~MessageExecutor() { release(); }

  /// Once the plan is built: the memory space's copies of its index lists,
  /// where the index kernels run there (`forced`: forced staging).  May
  /// throw (an allocation); the schedule agrees on the outcome.
  void prepare_index_lists(bool forced) { copies_.prepare(plan_, forced); }
  /// Once the ranks agreed: the message tag, and whether every peer shares
  /// this rank's node (RouteMemory).
  void connect(int tag, bool peers_on_node) {
    tag_ = tag;
    peers_on_node_ = peers_on_node;
  }

  /// How messages travel.
  const TransferPolicy& policy() const { return policy_; }
  /// Changes how messages travel; the routes and requests made for the old
  /// choice go.  Not while an execution is in flight.
  void set_policy(const TransferPolicy& policy) {
    policy_ = policy;
    requests_.clear();
    routes_.clear();
  }
  /// Staged through host buffers?
  bool staged() const { return staged_; }
  /// Between start() and finish()?
  bool in_flight() const { return pending_.in_flight(); }
  /// Does message `m` travel in place in forward executions of one array of
  /// `element_size`-byte elements?
  bool in_place(const PeerMessage& m, std::size_t element_size) const {
    const MessageRoute& r = route(RouteKind{Direction::forward, element_size, 1, false});
    for (const auto* list : {&r.incoming(), &r.outgoing()})
      for (const RoutedMessage& routed : *list)
        if (routed.message == &m) return routed.in_place;
    return false;
  }
  /// Allocates the buffers of forward executions of one array of T now.
  template <class T>
  void reserve() {
    reserve_buffers(route(RouteKind{Direction::forward, sizeof(T), 1, false}));
  }

  /// Posts an execution of `arrays` arrays (dst[k] <- src[k], combined with
  /// `combine`) and returns after the local copies.  The arguments were
  /// checked (and, checked mode, agreed) by the schedule.
  template <class T, class Combine>
  void start(T* const* dst, const T* const* src, int arrays, Direction direction,
             const Combine& combine);
  /// Completes the execution in flight: every request is complete when it
  /// returns or throws.
  void finish() { pending_.complete(*this); }

 private:
  static constexpr const char* kOperation = "BlockMessSchedule";
  using Pending = PendingExecution<MessageExecutor>;

  /// The route of `kind`, made on first use and kept (a handful of kinds
  /// per schedule: direction x element size x arrays x combining).
  const MessageRoute& route(const RouteKind& kind) const;
  void reserve_buffers(const MessageRoute& route);
  template <class T>
  RequestSet& requests_for(const MessageRoute& route, void* dst, const void* src);
  void post(std::vector<MPI_Request>& requests);
  /// finish() for the element type and combine operation start() was given.
  template <class T, class Combine>
  static void finish_typed(MessageExecutor& self, const Pending& pending);
  void release();

  const Comm& comm_;
  const BlockMessagePlan& plan_;
  TransferPolicy policy_;
  bool staged_;
  int tag_ = -1;
  /// The collective the execution in flight belongs to, as the hang
  /// watchdog's report names it (detail::name_next_execution).
  const char* execution_name_ = kOperation;
  /// Every peer shares this rank's node (see RouteMemory).
  bool peers_on_node_ = false;

  /// Routes by kind (a list: requests point at their route).  Mutable: a
  /// cache that const inquiries (in_place()) may fill.
  mutable std::list<MessageRoute> routes_;
  MessageBuffers<MemorySpace> buffers_;
  ElementTypes types_;
  RequestSets requests_;
  RouteCopies<MemorySpace> copies_;
  /// The execution between start() and finish(), if any.
  Pending pending_;
};

// ---------------------------------------------------------------------------
// Implementation

template <class MemorySpace>
const MessageRoute& MessageExecutor<MemorySpace>::route(const RouteKind& kind) const {
  for (const MessageRoute& r : routes_)
    if (r.kind() == kind) return r;
  const RouteMemory memory{staged_, host_reachable<MemorySpace>(), peers_on_node_,
                           host_loops_reach<MemorySpace>()};
  routes_.emplace_back(plan_, kind, policy_, memory);
  return routes_.back();
}

template <class MemorySpace>
void MessageExecutor<MemorySpace>::reserve_buffers(const MessageRoute& route) {
  const auto bytes = [&](std::int64_t elements) {
    return static_cast<std::size_t>(elements) * route.kind().element_size;
  };
  const typename MessageBuffers<MemorySpace>::Sizes sizes{bytes(route.incoming_buffer_count()),
                                                          bytes(route.outgoing_buffer_count()),
                                                          bytes(route.local_buffer_count())};
  // Buffers that move leave every request into them stale.
  if (buffers_.reserve(sizes, staged_)) requests_.clear();
}

template <class MemorySpace>
template <class T>
RequestSet& MessageExecutor<MemorySpace>::requests_for(const MessageRoute& route, void* dst,
                                                       const void* src) {
  const RequestSetKey key{&route, types_.of<T>(), route.any_incoming_in_place() ? dst : nullptr,
                          route.any_outgoing_in_place() ? src : nullptr};
  const RequestBinding binding{buffers_.incoming_for_mpi(staged_),
                               buffers_.outgoing_for_mpi(staged_),
                               dst,
                               src,
                               sizeof(T),
                               tag_,
                               comm_.get()};
  return requests_.find_or_make(key, binding);
}

template <class MemorySpace>
template <class T, class Combine>
void MessageExecutor<MemorySpace>::start(T* const* dst, const T* const* src, int arrays,
                                         Direction direction, const Combine& combine) {
  const MessageRoute& r =
      route(RouteKind{direction, sizeof(T), arrays, !op::is_replace<Combine>()});
  reserve_buffers(r);
  RequestSet& requests = requests_for<T>(r, dst[0], src[0]);
  const char* name = take_execution_name();
  execution_name_ = name ? name : kOperation;

  // Memory handed to MPI in place must be ready: kernels that wrote the
  // source, or still read the destination, complete first.
  if (r.any_incoming_in_place() || r.any_outgoing_in_place()) Kokkos::fence();
  post(requests.incoming);

  // Packs, together with the local copies that read the same rows.
  T* out = reinterpret_cast<T*>(buffers_.outgoing().data());
  bool packed = false;
  for (int k = 0; k < arrays; ++k)
    for (const SourceWalk& walk : r.walks())
      if (walk.packs) {
        copies_.run_walk(walk, dst[k], src[k], out, k, combine);
        packed = true;
      }
  for (int k = 0; k < arrays; ++k) {
    if (r.merges_index_departures()) {  // the local index copy included
      copies_.read_merged(r, dst[k], src[k], out, k, combine);
      packed = true;
      continue;
    }
    for (const IndexPack& pack : r.index_packs()) {
      copies_.pack_list(*pack.list, src[k], out + pack.buffer_offset + k * pack.array_stride);
      packed = true;
    }
  }
  // The pack kernels complete before MPI reads their buffer (or before it is
  // staged to the host twin, which deep_copy fences itself).
  if (packed) copies_.fence();
  if (staged_)
    buffers_.stage_out(0, static_cast<std::size_t>(r.outgoing_buffer_count()) * sizeof(T));
  post(requests.outgoing);

  // The remaining local copies overlap with the messages in flight.
  T* local = reinterpret_cast<T*>(buffers_.local().data());
  for (int k = 0; k < arrays; ++k) {
    for (const SourceWalk& walk : r.walks())
      if (!walk.packs) copies_.run_walk(walk, dst[k], src[k], out, k, combine);
    if (!r.local_reads().empty()) copies_.copy_locally_staged(r, dst[k], src[k], local, combine);
    if (r.local_index_reads().count == 0 || r.merges_index_departures()) continue;
    if (r.merges_index_arrivals())  // combined with the arrivals at finish()
      copies_.pack_list(r.local_index_reads(), src[k],
                        local + r.merged_local_offset() + k * r.local_index_reads().count);
    else
      copies_.copy_lists(dst[k], r.local_index_writes(), src[k], r.local_index_reads(), combine);
  }

  pending_.template begin<T>(r, requests, dst, arrays, combine, &finish_typed<T, Combine>);
}

template <class MemorySpace>
void MessageExecutor<MemorySpace>::post(std::vector<MPI_Request>& requests) {
  if (!requests.empty())
    ADLIB_MPI(MPI_Startall(static_cast<int>(requests.size()), requests.data()), kOperation);
}

template <class MemorySpace>
template <class T, class Combine>
void MessageExecutor<MemorySpace>::finish_typed(MessageExecutor& self, const Pending& pending) {
  RequestSet& requests = pending.requests();
  const MessageRoute& route = pending.route();
  const Combine& combine = pending.template combine<Combine>();
  const std::int64_t arrays = route.kind().arrays;
  T* in = reinterpret_cast<T*>(self.buffers_.incoming().data());
  const auto& arriving = route.incoming();
  // Replacing, each message is unpacked as it arrives.  Combining, in peer
  // order (each message waited for in turn; those that came earlier wait in
  // their buffers), so that floating-point sums come out bitwise the same in
  // every run.  A failed or mis-sized message is remembered and the others
  // still completed (so that no request is left active), then reported.
  const bool in_peer_order = route.kind().combining;
  std::string error;
  // What the hang watchdog reports of these waits (built only when it is on).
  const auto waiting_for_arrivals = [&] {
    WaitSubject subject{self.execution_name_, "messages", self.comm_.get(), {}, self.tag_};
    for (const RoutedMessage& routed : arriving) subject.peers.push_back(routed.message->peer);
    return subject;
  };
  for (std::size_t done = 0; done < arriving.size(); ++done) {
    int index = MPI_UNDEFINED;
    MPI_Status status;
    int code;
    try {
      if (in_peer_order) {
        index = static_cast<int>(done);
        code = watched_wait(&requests.incoming[done], &status, [&] {
          WaitSubject subject = waiting_for_arrivals();
          subject.peers = {subject.peers[done]};
          return subject;
        });
      } else {
        code = watched_waitany(static_cast<int>(requests.incoming.size()), requests.incoming.data(),
                               &index, &status, waiting_for_arrivals);
      }
    } catch (...) {  // the hang watchdog timed out (raise mode): nothing may land later
      cancel_pending_receives(static_cast<int>(requests.incoming.size()), requests.incoming.data());
      throw;
    }
    if (code != MPI_SUCCESS) {
      if (error.empty())
        error = mpi_error_message(code, "MPI_Waitany") +
                (index != MPI_UNDEFINED
                     ? " (the message from rank " + std::to_string(arriving[index].message->peer) +
                           "; do all ranks execute with the same element type and arrays?)"
                     : std::string());
      if (index == MPI_UNDEFINED) break;
      continue;
    }
    if (index == MPI_UNDEFINED) break;
    const RoutedMessage& routed = arriving[static_cast<std::size_t>(index)];
    const PeerMessage& m = *routed.message;
    int received = 0;
    const RequestTarget& expected = requests.expected[static_cast<std::size_t>(index)];
    if (MPI_Get_count(&status, expected.type, &received) != MPI_SUCCESS ||
        received != expected.count) {
      if (error.empty())
        error = "the message from rank " + std::to_string(m.peer) +
                " is shorter than this rank's schedule expects (do all ranks execute with the "
                "same element type and number of arrays?)";
      continue;
    }
    if (routed.in_place) continue;
    if (self.staged_)
      self.buffers_.stage_in(
          static_cast<std::size_t>(routed.buffer_offset) * sizeof(T),
          static_cast<std::size_t>(routed.buffer_offset + arrays * m.count) * sizeof(T));
    std::int64_t position = routed.buffer_offset;
    for (std::size_t k = 0; k < pending.arrays(); ++k) {
      T* const dst = pending.template destination<T>(k);
      for (const auto& block : m.blocks) {
        self.copies_.unpack(block, dst, in + position, combine);
        position += block.count();
      }
      if (m.indices.count > 0) {
        if (!route.merges_index_arrivals())
          self.copies_.unpack_list(m.indices, dst, in + position, combine);
        position += m.indices.count;
      }
    }
  }
  if (route.merges_index_arrivals() && error.empty()) {
    const T* local = reinterpret_cast<const T*>(self.buffers_.local().data());
    for (std::size_t k = 0; k < pending.arrays(); ++k)
      self.copies_.combine_merged(route, pending.template destination<T>(k), in, local,
                                  static_cast<int>(k), combine);
  }
  if (!requests.outgoing.empty()) {
    const int code = watched_waitall(
        static_cast<int>(requests.outgoing.size()), requests.outgoing.data(), MPI_STATUSES_IGNORE,
        [&] {
          WaitSubject subject{
              self.execution_name_, "its messages to be received", self.comm_.get(), {}, self.tag_};
          for (const RoutedMessage& routed : route.outgoing())
            subject.peers.push_back(routed.message->peer);
          return subject;
        });
    if (error.empty()) error = mpi_error_message(code, "MPI_Waitall");
  }
  self.copies_.fence();
  if (!error.empty()) {
    // MPI may have freed a request that failed (Open MPI does, persistent or
    // not): the request sets are rebuilt at the next execution.
    self.requests_.clear();
    throw Error(error, self.comm_.rank(), kOperation);
  }
}

template <class MemorySpace>
void MessageExecutor<MemorySpace>::release() {
  if (pending_.in_flight()) {
    // Destroyed mid-flight (an exception unwound past finish()): complete the
    // operation so MPI does not write into freed memory.
    try {
      finish();
    } catch (...) {
    }
  }
  requests_.clear();
  types_.release();
}

// ---------------------------------------------------------------------------
// Compiled once, in the library: the untyped members for host memory
// (message_executor.cpp), and every execution of the element types and
// combine operations the library ships (runtime/shipped_types.hpp,
// instances/).  A translation unit that executes one of them compiles only
// the schedule's few lines of start() and links the rest; other types,
// operations and memory spaces are instantiated where they are used.
/// @cond internal
#define ADLIB_MESSAGE_EXECUTOR_START(prefix, T, Combine)                      \
  prefix template void MessageExecutor<Kokkos::HostSpace>::start<T, Combine>( \
      T* const*, const T* const*, int, Direction, const Combine&);
#define ADLIB_MESSAGE_EXECUTOR_EXTERN(T, Combine) ADLIB_MESSAGE_EXECUTOR_START(extern, T, Combine)
#define ADLIB_MESSAGE_EXECUTOR_DEFINE(T, Combine) ADLIB_MESSAGE_EXECUTOR_START(, T, Combine)
/// @endcond
extern template class MessageExecutor<Kokkos::HostSpace>;
ADLIB_FOR_EACH_SHIPPED_COMBINE(ADLIB_MESSAGE_EXECUTOR_EXTERN)

}  // namespace adlib::detail
