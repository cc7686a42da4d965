// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// BlockMessSchedule: Adlib's point-to-point schedule over strided blocks.
///
/// @code
///   adlib::BlockMessSchedule<Kokkos::HostSpace> s(comm);
///   s.send(peer, adlib::StridedBlock::make(offset, {rows, cols}, {ld, 1}));
///   s.recv(peer, ...);
///   s.build();                  // local: sort, merge per peer, fuse, plan copies
///   for (int step = 0; ...) s.execute(dst_view, src_view);   // many times
/// @endcode
///
/// Both ends must declare the blocks of one message in the same element order
/// (their extents may split differently); build() merges all blocks for one
/// peer into one message.  Execution posts every receive first, packs and
/// sends, performs local copies while messages fly, and unpacks each message
/// as it arrives.  start() returns after the local copies; finish() completes.
/// Persistent MPI requests are created on first use for a given pair of
/// arrays and element type and reused afterwards.  The forward direction moves
/// data from the send blocks (in `src`) to the receive blocks (in `dst`); the
/// backward direction moves it the other way (receive blocks of `src` to send
/// blocks of `dst`), Adlib's gather / scatter pair.
///
/// A message that is not one contiguous block is packed into a buffer, or,
/// between host memories, described to MPI as a derived datatype over the
/// user's memory (see transfer_policy.hpp: long messages of short rows, such
/// as column halos, go faster that way); set_transfer() or the environment
/// choose.
///
/// Buffers live in MemorySpace.  When that space is not host-accessible and
/// MPI is not GPU-aware (Configuration::gpu_aware_mpi, ADLIB_GPU_AWARE_MPI,
/// false by default), messages are staged through host mirrors; otherwise MPI
/// reads and writes the buffers (and contiguous user memory) directly.  A
/// fence precedes every hand-over to MPI.
///
/// The Configuration (runtime/configuration.hpp) is taken at construction,
/// from the environment unless given, and build() makes every rank agree on
/// it.  In checked mode (Configuration::checked, ADLIB_CHECKED=1) start()
/// first agrees across ranks on the element size, the number of arrays and
/// the direction (one MPI_Allreduce), so a rank that calls differently throws
/// with every other rank instead of hanging; checked starts are collective
/// calls, made in the same order on every rank (the agreement includes the
/// schedule's tag, so starting different schedules is an error too).  Whatever the mode, finish()
/// checks the size of every message it receives: a message of another size
/// (a peer that executed with another element type or number of arrays) is
/// an adlib::Error on the receiving rank rather than an abort or wrong data.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/detail/staging.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/node_topology.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include <adlib/schedules/detail/message_executor.hpp>
#include <adlib/schedules/direction.hpp>
#include <adlib/schedules/exchange_plan.hpp>
#include <adlib/schedules/transfer_policy.hpp>

namespace adlib {

/// Point-to-point schedule over strided blocks (see the file overview): declare
/// with send() / recv() (or declare() a whole ExchangePlan), build() once
/// (collective), execute many times.  Neither copyable nor movable:
/// persistent requests point into its buffers.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class BlockMessSchedule {
 public:
  /// Where the pack buffers live (the arrays' memory space).
  using memory_space = MemorySpace;
  /// Where the copy kernels run.
  using execution_space = typename MemorySpace::execution_space;

  /// An empty schedule over `comm` (no communication until build()).
  explicit BlockMessSchedule(const Comm& comm,
                             const Configuration& config = Configuration::environment())
      : comm_(comm),
        config_(config),
        plan_(comm.rank(), comm.size()),
        executor_(comm_, plan_, TransferPolicy::from(config),
                  detail::stages_through_host<MemorySpace>(config)) {}
  BlockMessSchedule(const BlockMessSchedule&) = delete;
  BlockMessSchedule& operator=(const BlockMessSchedule&) = delete;
  /// Completes an execution still in flight, then frees the persistent
  /// requests and datatypes (the tag lease goes with the object).
  ~BlockMessSchedule() = default;

  /// Declares `block` of the send memory to go to `peer` (forward direction).
  void send(int peer, const StridedBlock& block) { plan_.send(peer, block); }
  /// Declares `block` of the receive memory to come from `peer` (forward
  /// direction).
  void recv(int peer, const StridedBlock& block) { plan_.recv(peer, block); }
  /// Declares every block of `plan`, in plan order (the order is the message
  /// layout, identical on both ends of every message).
  void declare(const ExchangePlan& plan) {
    for (const auto& b : plan.sends) send(b.peer, b.block);
    for (const auto& b : plan.recvs) recv(b.peer, b.block);
    for (const auto& i : plan.send_indices) send_indices(i.peer, i.offsets, i.min_run);
    for (const auto& i : plan.recv_indices) recv_indices(i.peer, i.offsets, i.min_run);
  }
  /// declare() taking the plan's index lists over instead of copying them.
  void declare(ExchangePlan&& plan) {
    for (const auto& b : plan.sends) send(b.peer, b.block);
    for (const auto& b : plan.recvs) recv(b.peer, b.block);
    for (auto& i : plan.send_indices) send_indices(i.peer, std::move(i.offsets), i.min_run);
    for (auto& i : plan.recv_indices) recv_indices(i.peer, std::move(i.offsets), i.min_run);
  }
  /// Declares the elements at `offsets` of the send memory, in that order, to
  /// go to `peer` after its blocks (an index-list message, Adlib's
  /// MessSchedule); runs of `min_run` consecutive offsets travel as rows.
  void send_indices(int peer, std::vector<std::int64_t> offsets,
                    std::int64_t min_run = kMinIndexRun) {
    plan_.send_indices(peer, std::move(offsets), min_run);
  }
  /// Declares the elements at `offsets` of the receive memory, in that order,
  /// to come from `peer` after its blocks.
  void recv_indices(int peer, std::vector<std::int64_t> offsets,
                    std::int64_t min_run = kMinIndexRun) {
    plan_.recv_indices(peer, std::move(offsets), min_run);
  }
  /// Collective: every rank's declarations are checked and the verdict is
  /// agreed, with the configuration and the schedule's tag (the lowest free on
  /// every rank), in one MPI_Allreduce, so an invalid send() or recv() on any
  /// rank throws the same adlib::Error on every rank before a message is
  /// posted.
  ///
  /// With `check_peers` (default: the configuration's, ADLIB_CHECK_PEERS), build()
  /// also checks that both ends of every message agree on its element
  /// count, so that declarations that do not pair up (a send nobody
  /// receives, counts that differ) fail here on every rank instead of
  /// hanging or truncating at execution.  It costs one MPI_Alltoall of
  /// counts and a second MPI_Allreduce, O(P) time and memory per rank: a
  /// debugging aid, off by default (adlib's own collectives plan both ends
  /// consistently by construction; their tests pass with it on).
  void build() { build(config_.check_peers); }
  /// build() with the peer check on or off regardless of the configuration.
  void build(bool check_peers);
  /// The environment's ADLIB_CHECK_PEERS (Configuration::environment()).
  static bool peer_check_requested() { return Configuration::environment().check_peers; }
  /// Allocates the buffers of forward executions over elements of type T now
  /// rather than at the first execution (a schedule whose element type is
  /// known at construction pays for its memory at set-up, like every other
  /// plan).
  template <class T>
  void prepare() {
    if (!plan_.built()) throw Error("prepare() before build()", comm_.rank(), "BlockMessSchedule");
    executor_.template reserve<T>();
  }

  /// Posts receives, packs and sends, performs local copies, returns.  Each
  /// arriving element is applied to its target with `combine` (runtime/
  /// combine.hpp: op::replace by default, op::add, op::min, ...), local
  /// copies included.
  template <class T, class Combine = op::Replace>
  void start(T* dst, std::size_t dst_span, const T* src, std::size_t src_span,
             Direction direction = Direction::forward, Combine combine = {}) {
    T* const dsts[1] = {dst};
    const T* const srcs[1] = {src};
    start_arrays<T>(dsts, srcs, 1, dst_span, src_span, direction, combine, std::string());
  }
  /// Waits for every message and unpacks; `dst` must not be read before.
  void finish();
  /// start() then finish().
  template <class T, class Combine = op::Replace>
  void execute(T* dst, std::size_t dst_span, const T* src, std::size_t src_span,
               Direction direction = Direction::forward, Combine combine = {}) {
    start(dst, dst_span, src, src_span, direction, combine);
    finish();
  }

  /// Several arrays of the same shape at once (dst[k] <- src[k]): one
  /// message per peer carries every array's elements, array 0's first, so K
  /// fields cost the messages of one.  Every message is packed.  With one
  /// array this is start() / execute().
  template <class T, class Combine = op::Replace>
  void start_many(const std::vector<T*>& dst, std::size_t dst_span,
                  const std::vector<const T*>& src, std::size_t src_span,
                  Direction direction = Direction::forward, Combine combine = {});
  /// start_many() then finish().
  template <class T, class Combine = op::Replace>
  void execute_many(const std::vector<T*>& dst, std::size_t dst_span,
                    const std::vector<const T*>& src, std::size_t src_span,
                    Direction direction = Direction::forward, Combine combine = {}) {
    start_many(dst, dst_span, src, src_span, direction, combine);
    finish();
  }

  /// Kokkos View overloads (any rank, contiguous span): start() and execute()
  /// on the Views' data and spans.
  template <class DstView, class SrcView, class Combine = op::Replace>
  void start(const DstView& dst, const SrcView& src, Direction direction = Direction::forward,
             Combine combine = {}) {
    static_assert(
        Kokkos::SpaceAccessibility<execution_space, typename DstView::memory_space>::accessible,
        "destination View must be accessible from the schedule's memory space");
    start(dst.data(), dst.span(), src.data(), src.span(), direction, combine);
  }
  /// start() then finish() on Views.
  template <class DstView, class SrcView, class Combine = op::Replace>
  void execute(const DstView& dst, const SrcView& src, Direction direction = Direction::forward,
               Combine combine = {}) {
    start(dst, src, direction, combine);
    finish();
  }

  /// How messages travel (pack or MPI datatype); the environment's choice
  /// until set.  Not while an execution is in flight.
  void set_transfer(const TransferPolicy& policy);
  /// The transfer policy in use.
  const TransferPolicy& transfer() const { return executor_.policy(); }
  /// Does message `m` (one of plan()'s) travel in place, read or written by
  /// MPI in the user's memory without a pack buffer, in forward executions of
  /// one array with elements of `element_size` bytes?  Contiguous messages and
  /// datatype messages do, unless messages are staged.
  bool in_place(const PeerMessage& m, std::size_t element_size) const {
    return executor_.in_place(m, element_size);
  }
  /// Are messages staged through host buffers (device memory without
  /// GPU-aware MPI, or Configuration::force_staging)?  Decided at
  /// construction.
  bool staged() const { return executor_.staged(); }

  /// Request sets kept (least recently used evicted): a code that exchanges
  /// up to this many fields (or array pairs) in turn through one schedule
  /// never rebuilds its requests.
  static constexpr std::size_t kRequestSetsKept =
      detail::MessageExecutor<MemorySpace>::kRequestSetsKept;

  /// The rank-local plan (the messages after build()).
  const BlockMessagePlan& plan() const { return plan_; }
  /// The communicator.
  const Comm& comm() const { return comm_; }
  /// The configuration taken at construction.
  const Configuration& configuration() const { return config_; }
  /// The message tag, agreed by build() (-1 before).
  int tag() const { return tag_.tag(); }
  /// Between start() and finish()?
  bool in_flight() const { return executor_.in_flight(); }

 private:
  static constexpr const char* kOperation = "BlockMessSchedule";

  /// The one start() behind start() and start_many(): `arrays` arrays.
  template <class T, class Combine>
  void start_arrays(T* const* dst, const T* const* src, int arrays, std::size_t dst_span,
                    std::size_t src_span, Direction direction, const Combine& combine,
                    std::string error);
  /// The checks before anything is posted; in checked mode agreed across ranks.
  template <class T, class Combine>
  void agree_to_start(std::size_t dst_span, std::size_t src_span, Direction direction, int arrays,
                      std::string error);
  std::string startable_error(std::size_t dst_span, std::size_t src_span,
                              Direction direction) const;
  std::string check_peer_counts();

  Comm comm_;
  Configuration config_;
  TagLease tag_;
  BlockMessagePlan plan_;
  /// Runs the plan once built (declared last: it refers to comm_ and plan_).
  detail::MessageExecutor<MemorySpace> executor_;
};

// ---------------------------------------------------------------------------
// Implementation

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::build(bool check_peers) {
  std::string error = config_.error;
  if (error.empty() && plan_.built()) error = "build() called twice";
  try {
    if (error.empty()) plan_.build();
  } catch (const Error& e) {
    error = e.message();
  }
  if (error.empty()) {
    try {
      executor_.prepare_index_lists(config_.force_staging);
    } catch (const std::exception& e) {
      error = std::string("index lists for the memory space: ") + e.what();
    }
  }
  const std::uint64_t fingerprint = detail::hash_mix(config_.fingerprint(), check_peers ? 1u : 0u);
  tag_ = comm_.lease_agreed_tag(error, fingerprint, kOperation);
  // Which peers share this node (collective the first time per
  // communicator, then kept with it; after the agreement, which checked that
  // every rank holds the same configuration and so makes the same call).
  const NodeTopology& nodes = node_topology(comm_, config_.ranks_per_node);
  auto on_node = [&](const PeerMessage& m) {
    return std::binary_search(nodes.node_members.begin(), nodes.node_members.end(), m.peer);
  };
  executor_.connect(
      tag_.tag(),
      std::all_of(plan_.send_messages().begin(), plan_.send_messages().end(), on_node) &&
          std::all_of(plan_.recv_messages().begin(), plan_.recv_messages().end(), on_node));
  // Every plan is valid: now the two ends of each message.
  if (check_peers) agree_on_errors(comm_, check_peer_counts(), 0, kOperation);
}

/// Every rank tells every other how many elements it will send it; each
/// compares with what it declared to receive.  The first mismatch, as seen by
/// the receiver, is the error.
template <class MemorySpace>
std::string BlockMessSchedule<MemorySpace>::check_peer_counts() {
  const int p = comm_.size(), me = comm_.rank();
  std::vector<long long> sending(static_cast<std::size_t>(p), 0), receiving(sending.size(), 0);
  std::vector<long long> expected(sending.size(), 0);
  for (const auto& m : plan_.send_messages()) sending[static_cast<std::size_t>(m.peer)] = m.count;
  for (const auto& m : plan_.recv_messages()) expected[static_cast<std::size_t>(m.peer)] = m.count;
  ADLIB_MPI(MPI_Alltoall(sending.data(), 1, MPI_LONG_LONG, receiving.data(), 1, MPI_LONG_LONG,
                         comm_.get()),
            kOperation);
  for (int q = 0; q < p; ++q) {
    const auto k = static_cast<std::size_t>(q);
    if (q == me || receiving[k] == expected[k]) continue;
    return "rank " + std::to_string(q) + " sends " + std::to_string(receiving[k]) +
           " elements to rank " + std::to_string(me) + ", which declared " +
           std::to_string(expected[k]) + " to receive from it (ADLIB_CHECK_PEERS)";
  }
  return {};
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::set_transfer(const TransferPolicy& policy) {
  if (executor_.in_flight())
    throw Error("set_transfer() while an execution is in flight", comm_.rank(), kOperation);
  executor_.set_policy(policy);
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::start_many(const std::vector<T*>& dst, std::size_t dst_span,
                                                const std::vector<const T*>& src,
                                                std::size_t src_span, Direction direction,
                                                Combine combine) {
  std::string error;
  if (dst.size() != src.size() || dst.empty() || dst.size() > INT_MAX)
    error = "start_many needs as many destinations as sources, at least one";
  const int arrays = error.empty() ? static_cast<int>(dst.size()) : 1;
  for (const auto* list : {&plan_.send_messages(), &plan_.recv_messages()})
    for (const auto& m : *list)
      if (error.empty() && static_cast<std::int64_t>(arrays) * m.count > INT_MAX)
        error = "a batch message would exceed an MPI count";
  if (!error.empty()) {
    // Still agree (checked mode), with one array, so every rank throws.
    T* const none[1] = {nullptr};
    const T* const none_src[1] = {nullptr};
    start_arrays<T>(none, none_src, 1, dst_span, src_span, direction, combine, error);
    return;
  }
  start_arrays<T>(dst.data(), src.data(), arrays, dst_span, src_span, direction, combine,
                  std::string());
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::start_arrays(T* const* dst, const T* const* src, int arrays,
                                                  std::size_t dst_span, std::size_t src_span,
                                                  Direction direction, const Combine& combine,
                                                  std::string error) {
  agree_to_start<T, Combine>(dst_span, src_span, direction, arrays, std::move(error));
  executor_.start(dst, src, arrays, direction, combine);
}

template <class MemorySpace>
std::string BlockMessSchedule<MemorySpace>::startable_error(std::size_t dst_span,
                                                            std::size_t src_span,
                                                            Direction direction) const {
  if (!plan_.built()) return "start() before build()";
  if (executor_.in_flight()) return "start() while a previous start() is not finished";
  if (direction != Direction::forward && direction != Direction::backward)
    return "direction " + std::to_string(static_cast<int>(direction)) +
           " is not one of adlib::Direction's";
  const bool forward = direction == Direction::forward;
  const std::int64_t dst_needed =
      forward ? plan_.recv_memory_required() : plan_.send_memory_required();
  const std::int64_t src_needed =
      forward ? plan_.send_memory_required() : plan_.recv_memory_required();
  if (static_cast<std::int64_t>(dst_span) < dst_needed ||
      static_cast<std::int64_t>(src_span) < src_needed)
    return "memory too small for the schedule: destination holds " + std::to_string(dst_span) +
           " elements (needs " + std::to_string(dst_needed) + "), source holds " +
           std::to_string(src_span) + " (needs " + std::to_string(src_needed) + ")";
  return {};
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::agree_to_start(std::size_t dst_span, std::size_t src_span,
                                                    Direction direction, int arrays,
                                                    std::string error) {
  if (error.empty()) error = startable_error(dst_span, src_span, direction);
  if (!config_.checked) {
    if (!error.empty()) throw Error(error, comm_.rank(), kOperation);
    return;
  }
  std::uint64_t fingerprint =
      detail::hash_mix(detail::element_fingerprint<T>(), op::fingerprint<Combine>());
  fingerprint = detail::hash_mix(fingerprint, static_cast<std::uint64_t>(arrays));
  fingerprint = detail::hash_mix(fingerprint, direction == Direction::forward ? 0u : 1u);
  fingerprint = detail::hash_mix(fingerprint, static_cast<std::uint64_t>(tag_.tag()));
  agree_on_errors(comm_, error, fingerprint, "BlockMessSchedule::start");
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::finish() {
  if (!executor_.in_flight()) throw Error("finish() without start()", comm_.rank(), kOperation);
  executor_.finish();
}

// Compiled once, in the library, for host memory (block_mess_schedule.cpp);
// the executions themselves are MessageExecutor's (message_executor.hpp).
/// @cond internal
extern template class BlockMessSchedule<Kokkos::HostSpace>;
/// @endcond

}  // namespace adlib
