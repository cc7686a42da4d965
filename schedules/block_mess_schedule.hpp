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
#include <any>
#include <climits>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <adlib/runtime/block_datatype.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/detail/staging.hpp>
#include <adlib/runtime/device_index_list.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/node_topology.hpp>
#include <adlib/runtime/pack.hpp>
#include <adlib/runtime/shipped_types.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include <adlib/schedules/exchange_plan.hpp>
#include <adlib/schedules/message_buffers.hpp>
#include <adlib/schedules/message_route.hpp>
#include <adlib/schedules/request_sets.hpp>
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
        policy_(TransferPolicy::from(config)) {}
  BlockMessSchedule(const BlockMessSchedule&) = delete;
  BlockMessSchedule& operator=(const BlockMessSchedule&) = delete;
  /// Completes an execution still in flight, then frees the persistent
  /// requests and datatypes (the tag lease goes with the object).
  ~BlockMessSchedule() { release_mpi_objects(); }

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
    reserve_buffers(route(RouteKind{Direction::forward, sizeof(T), 1, false}));
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
  const TransferPolicy& transfer() const { return policy_; }
  /// Does message `m` (one of plan()'s) travel in place, read or written by
  /// MPI in the user's memory without a pack buffer, in forward executions of
  /// one array with elements of `element_size` bytes?  Contiguous messages and
  /// datatype messages do, unless messages are staged.
  bool in_place(const PeerMessage& m, std::size_t element_size) const;
  /// Are messages staged through host buffers (device memory without
  /// GPU-aware MPI, or Configuration::force_staging)?  Decided at
  /// construction.
  bool staged() const { return staged_; }

  /// Request sets kept (least recently used evicted): a code that exchanges
  /// up to this many fields (or array pairs) in turn through one schedule
  /// never rebuilds its requests.
  static constexpr std::size_t kRequestSetsKept = RequestSets::kKept;

  /// The rank-local plan (the messages after build()).
  const BlockMessagePlan& plan() const { return plan_; }
  /// The communicator.
  const Comm& comm() const { return comm_; }
  /// The configuration taken at construction.
  const Configuration& configuration() const { return config_; }
  /// The message tag, agreed by build() (-1 before).
  int tag() const { return tag_.tag(); }
  /// Between start() and finish()?
  bool in_flight() const { return in_flight_; }

 private:
  static constexpr const char* kOperation = "BlockMessSchedule";

  /// The route of `kind`, made on first use and kept (a handful of kinds
  /// per schedule: direction x element size x arrays x combining).
  const MessageRoute& route(const RouteKind& kind) const;
  void reserve_buffers(const MessageRoute& route);
  template <class T>
  RequestSet& requests_for(const MessageRoute& route, void* dst, const void* src);

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
  template <class T, class Combine>
  void run_walk(const SourceWalk& walk, T* dst, const T* src, T* buffer, int array,
                const Combine& combine);
  template <class T, class Combine>
  void copy_locally_staged(const MessageRoute& route, T* dst, const T* src, const Combine& combine);
  template <class T, class Combine>
  static void finish_typed(BlockMessSchedule& self);
  /// The walk of MessageRoute::merges_index_arrivals(), once every message
  /// of the execution in flight has arrived.
  template <class T, class Combine>
  void combine_merged(const Combine& combine);
  /// The walk of MessageRoute::merges_index_departures() of `route` for
  /// array `array`: its packs into `buffer` and its local index copy into
  /// `dst`.
  template <class T, class Combine>
  void read_merged(const MessageRoute& route, T* dst, const T* src, T* buffer, int array,
                   const Combine& combine);
  void post(std::vector<MPI_Request>& requests);
  std::string check_peer_counts();
  /// Do index lists run as DeviceIndexList kernels (memory a host thread
  /// cannot address, or forced staging, which exercises them on the host)?
  /// The host kernels are compiled for host memory only.
  bool index_kernels_where_memory_lives() const {
    return !detail::host_reachable<MemorySpace>() || config_.force_staging;
  }
  void prepare_device_index_lists();
  template <class T>
  void pack_list(const IndexList& list, const T* memory, T* buffer) const;
  template <class T, class Combine>
  void unpack_list(const IndexList& list, T* memory, const T* buffer, const Combine& combine) const;
  template <class T, class Combine>
  void copy_lists(T* dst, const IndexList& dst_list, const T* src, const IndexList& src_list,
                  const Combine& combine) const;
  void release_mpi_objects();

  Comm comm_;
  Configuration config_;
  TagLease tag_;
  BlockMessagePlan plan_;
  TransferPolicy policy_;
  bool staged_ = detail::stages_through_host<MemorySpace>(config_);
  execution_space space_{};

  /// Routes by kind (a list: requests point at their route).  Mutable: a
  /// cache that const inquiries (in_place()) may fill.
  mutable std::list<MessageRoute> routes_;
  MessageBuffers<MemorySpace> buffers_;
  ElementTypes types_;
  RequestSets requests_;
  /// The plan's index lists in MemorySpace, by list (index_kernels_where_memory_lives()).
  std::unordered_map<const IndexList*, DeviceIndexList<MemorySpace>> device_lists_;

  /// The execution in flight: its route and requests, the arrays finish()
  /// unpacks into, the combine operation, and the typed finish.
  bool in_flight_ = false;
  const MessageRoute* active_route_ = nullptr;
  RequestSet* active_ = nullptr;
  std::vector<void*> pending_dst_;
  std::any pending_combine_;
  void (*pending_finish_)(BlockMessSchedule&) = nullptr;
  /// Every peer shares this rank's node (build(); see RouteMemory).
  bool peers_on_node_ = false;
  /// The lists and cursors of combine_merged (kept: no allocation per
  /// execution after the first).
  std::vector<SortedContributions> merged_lists_;
  std::vector<SortedReads> merged_reads_;
  std::vector<std::int64_t> merged_positions_;
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
  if (error.empty() && plan_.has_indices() && index_kernels_where_memory_lives()) {
    try {
      prepare_device_index_lists();
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
  peers_on_node_ =
      std::all_of(plan_.send_messages().begin(), plan_.send_messages().end(), on_node) &&
      std::all_of(plan_.recv_messages().begin(), plan_.recv_messages().end(), on_node);
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
const MessageRoute& BlockMessSchedule<MemorySpace>::route(const RouteKind& kind) const {
  for (const MessageRoute& r : routes_)
    if (r.kind() == kind) return r;
  const RouteMemory memory{staged_,
                           Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible,
                           peers_on_node_};
  routes_.emplace_back(plan_, kind, policy_, memory);
  return routes_.back();
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::reserve_buffers(const MessageRoute& route) {
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
bool BlockMessSchedule<MemorySpace>::in_place(const PeerMessage& m,
                                              std::size_t element_size) const {
  const MessageRoute& r = route(RouteKind{Direction::forward, element_size, 1, false});
  for (const auto* list : {&r.incoming(), &r.outgoing()})
    for (const RoutedMessage& routed : *list)
      if (routed.message == &m) return routed.in_place;
  return false;
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::set_transfer(const TransferPolicy& policy) {
  if (in_flight_)
    throw Error("set_transfer() while an execution is in flight", comm_.rank(), kOperation);
  policy_ = policy;
  // Requests and routes were made for the old choice.
  requests_.clear();
  routes_.clear();
}

template <class MemorySpace>
template <class T>
RequestSet& BlockMessSchedule<MemorySpace>::requests_for(const MessageRoute& route, void* dst,
                                                         const void* src) {
  const RequestSetKey key{&route, types_.of<T>(), route.any_incoming_in_place() ? dst : nullptr,
                          route.any_outgoing_in_place() ? src : nullptr};
  return requests_.find_or_make(key, [&](RequestSet& set) {
    const std::size_t size = sizeof(T);
    const auto arrays = static_cast<std::int64_t>(route.kind().arrays);
    // The pack buffer, the user's memory as it is (direct), or a datatype
    // over it.
    auto target = [&](const RoutedMessage& routed, unsigned char* memory, unsigned char* buffer) {
      const PeerMessage& m = *routed.message;
      if (!routed.in_place)
        return RequestTarget{buffer + routed.buffer_offset * static_cast<std::int64_t>(size),
                             static_cast<int>(arrays * m.count), key.element};
      if (!routed.datatype)
        return RequestTarget{memory + m.blocks[0].lowest_offset() * static_cast<std::int64_t>(size),
                             static_cast<int>(m.count), key.element};
      set.types.push_back(blocks_datatype(m.blocks, key.element, size));
      return RequestTarget{memory, 1, set.types.back().get()};
    };
    unsigned char* in = buffers_.incoming_for_mpi(staged_);
    unsigned char* out = buffers_.outgoing_for_mpi(staged_);
    for (const RoutedMessage& routed : route.incoming()) {
      const RequestTarget t = target(routed, static_cast<unsigned char*>(dst), in);
      MPI_Request r;
      ADLIB_MPI(MPI_Recv_init(t.address, t.count, t.type, routed.message->peer, tag_.tag(),
                              comm_.get(), &r),
                kOperation);
      set.incoming.push_back(r);
      set.expected.push_back(t);
    }
    // MPI only reads a send buffer; its C interface still takes void*.
    auto* source = static_cast<unsigned char*>(const_cast<void*>(src));
    for (const RoutedMessage& routed : route.outgoing()) {
      const RequestTarget t = target(routed, source, out);
      MPI_Request r;
      ADLIB_MPI(MPI_Send_init(t.address, t.count, t.type, routed.message->peer, tag_.tag(),
                              comm_.get(), &r),
                kOperation);
      set.outgoing.push_back(r);
    }
  });
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
  const MessageRoute& r =
      route(RouteKind{direction, sizeof(T), arrays, !op::is_replace<Combine>()});
  reserve_buffers(r);
  RequestSet& requests = requests_for<T>(r, dst[0], src[0]);

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
        run_walk<T>(walk, dst[k], src[k], out, k, combine);
        packed = true;
      }
  for (int k = 0; k < arrays; ++k) {
    if (r.merges_index_departures()) {  // the local index copy included
      read_merged<T>(r, dst[k], src[k], out, k, combine);
      packed = true;
      continue;
    }
    for (const IndexPack& pack : r.index_packs()) {
      pack_list<T>(*pack.list, src[k], out + pack.buffer_offset + k * pack.array_stride);
      packed = true;
    }
  }
  // The pack kernels complete before MPI reads their buffer (or before it is
  // staged to the host twin, which deep_copy fences itself).
  if (packed) space_.fence();
  if (staged_)
    buffers_.stage_out(0, static_cast<std::size_t>(r.outgoing_buffer_count()) * sizeof(T));
  post(requests.outgoing);

  // The remaining local copies overlap with the messages in flight.
  for (int k = 0; k < arrays; ++k) {
    for (const SourceWalk& walk : r.walks())
      if (!walk.packs) run_walk<T>(walk, dst[k], src[k], out, k, combine);
    if (!r.local_reads().empty()) copy_locally_staged<T>(r, dst[k], src[k], combine);
    if (r.local_index_reads().count == 0 || r.merges_index_departures()) continue;
    if (r.merges_index_arrivals())  // combined with the arrivals at finish()
      pack_list<T>(r.local_index_reads(), src[k],
                   reinterpret_cast<T*>(buffers_.local().data()) + r.merged_local_offset() +
                       k * r.local_index_reads().count);
    else
      copy_lists<T>(dst[k], r.local_index_writes(), src[k], r.local_index_reads(), combine);
  }

  pending_dst_.assign(dst, dst + arrays);  // keeps its capacity: no allocation per execution
  pending_combine_ = combine;
  active_route_ = &r;
  active_ = &requests;
  pending_finish_ = &finish_typed<T, Combine>;
  in_flight_ = true;
}

template <class MemorySpace>
std::string BlockMessSchedule<MemorySpace>::startable_error(std::size_t dst_span,
                                                            std::size_t src_span,
                                                            Direction direction) const {
  if (!plan_.built()) return "start() before build()";
  if (in_flight_) return "start() while a previous start() is not finished";
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
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::run_walk(const SourceWalk& walk, T* dst, const T* src,
                                              T* buffer, int array, const Combine& combine) {
  const int n = static_cast<int>(walk.copies.size());
  auto target_of = [&](const SourceCopy& c) {
    StridedBlock target = c.target;
    if (c.into_buffer) target.offset += array * c.array_stride;
    return target;
  };
  if (n == 1) {
    const SourceCopy& c = walk.copies.front();
    if (c.into_buffer)
      copy_block<T>(space_, buffer, target_of(c), src, c.source);
    else
      copy_block<T>(space_, dst, c.target, src, c.source, combine);
    return;
  }
  // Shared walks only replace: the route keeps combining local copies apart.
  StridedBlock sources[kMaxSharedSourceCopies], targets[kMaxSharedSourceCopies];
  T* bases[kMaxSharedSourceCopies];
  for (int k = 0; k < n; ++k) {
    sources[k] = walk.copies[k].source;
    targets[k] = target_of(walk.copies[k]);
    bases[k] = walk.copies[k].into_buffer ? buffer : dst;
  }
  copy_blocks_sharing_source<T>(space_, src, sources, bases, targets, n);
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::copy_locally_staged(const MessageRoute& route, T* dst,
                                                         const T* src, const Combine& combine) {
  T* local = reinterpret_cast<T*>(buffers_.local().data());
  std::int64_t position = 0;
  for (const auto& b : route.local_reads()) {
    pack_block<T>(space_, src, b, local + position);
    position += b.count();
  }
  position = 0;
  for (const auto& b : route.local_writes()) {
    unpack_block<T>(space_, dst, b, local + position, combine);
    position += b.count();
  }
  // The local buffer is reused by the next array of a batch.
  space_.fence();
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::post(std::vector<MPI_Request>& requests) {
  if (!requests.empty())
    ADLIB_MPI(MPI_Startall(static_cast<int>(requests.size()), requests.data()), kOperation);
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::finish() {
  if (!in_flight_) throw Error("finish() without start()", comm_.rank(), kOperation);
  // Every request is complete when finish_typed returns or throws.
  struct Done {
    BlockMessSchedule& self;
    ~Done() {
      self.in_flight_ = false;
      self.active_ = nullptr;
      self.active_route_ = nullptr;
    }
  } done{*this};
  pending_finish_(*this);
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::finish_typed(BlockMessSchedule& self) {
  RequestSet& requests = *self.active_;
  const MessageRoute& route = *self.active_route_;
  const Combine combine = std::any_cast<Combine>(self.pending_combine_);
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
  for (std::size_t done = 0; done < arriving.size(); ++done) {
    int index = MPI_UNDEFINED;
    MPI_Status status;
    int code;
    if (in_peer_order) {
      index = static_cast<int>(done);
      code = MPI_Wait(&requests.incoming[done], &status);
    } else {
      code = MPI_Waitany(static_cast<int>(requests.incoming.size()), requests.incoming.data(),
                         &index, &status);
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
    for (void* dst : self.pending_dst_) {
      for (const auto& block : m.blocks) {
        unpack_block<T>(self.space_, static_cast<T*>(dst), block, in + position, combine);
        position += block.count();
      }
      if (m.indices.count > 0) {
        if (!route.merges_index_arrivals())
          self.template unpack_list<T>(m.indices, static_cast<T*>(dst), in + position, combine);
        position += m.indices.count;
      }
    }
  }
  if (route.merges_index_arrivals() && error.empty()) self.template combine_merged<T>(combine);
  if (!requests.outgoing.empty()) {
    const int code = MPI_Waitall(static_cast<int>(requests.outgoing.size()),
                                 requests.outgoing.data(), MPI_STATUSES_IGNORE);
    if (error.empty()) error = mpi_error_message(code, "MPI_Waitall");
  }
  self.space_.fence();
  if (!error.empty()) {
    // MPI may have freed a request that failed (Open MPI does, persistent or
    // not): the request sets are rebuilt at the next execution.
    self.requests_.clear();
    throw Error(error, self.comm_.rank(), kOperation);
  }
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::combine_merged(const Combine& combine) {
  // Routes merge on host memory only (MessageRoute): the walk is a host loop,
  // compiled for host memory alone.
  if constexpr (detail::host_reachable<MemorySpace>()) {
    const MessageRoute& route = *active_route_;
    const IndexList& local = route.local_index_writes();
    const T* in = reinterpret_cast<const T*>(buffers_.incoming().data());
    const T* waiting =
        reinterpret_cast<const T*>(buffers_.local().data()) + route.merged_local_offset();
    for (std::size_t k = 0; k < pending_dst_.size(); ++k) {
      // This rank's contributions first, then each peer's in peer order: the
      // order of the unmerged execution.
      merged_lists_.clear();
      if (local.count > 0)
        merged_lists_.push_back({local.singles.data(),
                                 waiting + static_cast<std::int64_t>(k) * local.count,
                                 local.count});
      for (const RoutedMessage& routed : route.incoming()) {
        const PeerMessage& m = *routed.message;
        merged_lists_.push_back({m.indices.singles.data(),
                                 in + routed.buffer_offset + static_cast<std::int64_t>(k) * m.count,
                                 m.indices.count});
      }
      merged_positions_.resize(merged_lists_.size());
      combine_sorted_lists<T>(space_, static_cast<T*>(pending_dst_[k]), merged_lists_.data(),
                              static_cast<int>(merged_lists_.size()), merged_positions_.data(),
                              combine);
    }
  }
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::read_merged(const MessageRoute& route, T* dst, const T* src,
                                                 T* buffer, int array, const Combine& combine) {
  if constexpr (detail::host_reachable<MemorySpace>()) {  // as combine_merged()
    const IndexList& reads = route.local_index_reads();
    merged_reads_.clear();
    if (reads.count > 0)
      merged_reads_.push_back(
          {reads.singles.data(), dst, route.local_index_writes().singles.data(), reads.count});
    for (const IndexPack& pack : route.index_packs())
      merged_reads_.push_back({pack.list->singles.data(),
                               buffer + pack.buffer_offset + array * pack.array_stride, nullptr,
                               pack.list->count});
    merged_positions_.resize(merged_reads_.size());
    read_sorted_lists<T>(space_, src, merged_reads_.data(), static_cast<int>(merged_reads_.size()),
                         merged_positions_.data(), combine);
  }
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::prepare_device_index_lists() {
  auto add = [&](const IndexList& list) {
    if (list.count > 0) device_lists_.emplace(&list, DeviceIndexList<MemorySpace>::from(list));
  };
  for (const PeerMessage& m : plan_.send_messages()) add(m.indices);
  for (const PeerMessage& m : plan_.recv_messages()) add(m.indices);
  add(plan_.local_index_sends());
  add(plan_.local_index_recvs());
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::pack_list(const IndexList& list, const T* memory,
                                               T* buffer) const {
  if constexpr (detail::host_reachable<MemorySpace>())
    if (device_lists_.empty()) return pack_indices<T>(space_, memory, list, buffer);
  pack_indices<T>(space_, memory, device_lists_.at(&list), buffer);
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::unpack_list(const IndexList& list, T* memory, const T* buffer,
                                                 const Combine& combine) const {
  if constexpr (detail::host_reachable<MemorySpace>())
    if (device_lists_.empty()) return unpack_indices<T>(space_, memory, list, buffer, combine);
  unpack_indices<T>(space_, memory, device_lists_.at(&list), buffer, combine);
}

template <class MemorySpace>
template <class T, class Combine>
void BlockMessSchedule<MemorySpace>::copy_lists(T* dst, const IndexList& dst_list, const T* src,
                                                const IndexList& src_list,
                                                const Combine& combine) const {
  if constexpr (detail::host_reachable<MemorySpace>())
    if (device_lists_.empty())
      return copy_indices<T>(space_, dst, dst_list, src, src_list, combine);
  copy_indices<T>(space_, dst, device_lists_.at(&dst_list), src, device_lists_.at(&src_list),
                  combine);
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::release_mpi_objects() {
  if (in_flight_) {
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
// (block_mess_schedule.cpp), and every execution of the element types and
// combine operations the library ships (runtime/shipped_types.hpp,
// instances/).  A translation unit that executes one of them compiles only
// the few lines of start() and links the rest; other types, operations and
// memory spaces are instantiated where they are used, as before.
/// @cond internal
#define ADLIB_BLOCK_MESS_SCHEDULE_EXECUTION(prefix, T, Combine)                             \
  prefix template void BlockMessSchedule<Kokkos::HostSpace>::start_arrays<T, Combine>(      \
      T* const*, const T* const*, int, std::size_t, std::size_t, Direction, const Combine&, \
      std::string);
#define ADLIB_BLOCK_MESS_SCHEDULE_EXTERN(T, Combine) \
  ADLIB_BLOCK_MESS_SCHEDULE_EXECUTION(extern, T, Combine)
#define ADLIB_BLOCK_MESS_SCHEDULE_DEFINE(T, Combine) \
  ADLIB_BLOCK_MESS_SCHEDULE_EXECUTION(, T, Combine)
/// @endcond
extern template class BlockMessSchedule<Kokkos::HostSpace>;
ADLIB_FOR_EACH_SHIPPED_COMBINE(ADLIB_BLOCK_MESS_SCHEDULE_EXTERN)

}  // namespace adlib
