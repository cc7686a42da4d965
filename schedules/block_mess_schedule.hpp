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
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

#include <adlib/runtime/block_datatype.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/pack.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include <adlib/schedules/transfer_policy.hpp>

namespace adlib {

/// Which way an execution moves data: forward from the send blocks of `src` to
/// the receive blocks of `dst`, backward the other way.
enum class Direction { forward, backward };

/// Point-to-point schedule over strided blocks (see the file overview): declare
/// with send() / recv(), build() once (collective), execute many times.
/// Neither copyable nor movable: persistent requests point into its buffers.
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
  /// Frees the persistent requests and datatypes (the tag lease goes with the
  /// object).
  ~BlockMessSchedule() { release_mpi_objects(); }

  /// Declares `block` of the send memory to go to `peer` (forward direction).
  void send(int peer, const StridedBlock& block) { plan_.send(peer, block); }
  /// Declares `block` of the receive memory to come from `peer` (forward
  /// direction).
  void recv(int peer, const StridedBlock& block) { plan_.recv(peer, block); }
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
  void build(bool check_peers) {
    std::string error = config_.error;
    if (error.empty() && plan_.built()) error = "build() called twice";
    try {
      if (error.empty()) plan_.build();
    } catch (const Error& e) {
      error = e.message();
    }
    const std::uint64_t fingerprint =
        detail::hash_mix(config_.fingerprint(), check_peers ? 1u : 0u);
    tag_ = comm_.lease_agreed_tag(error, fingerprint, "BlockMessSchedule");
    // Every plan is valid: now the two ends of each message.
    if (check_peers) agree_on_errors(comm_, check_peer_counts(), 0, "BlockMessSchedule");
  }
  /// The environment's ADLIB_CHECK_PEERS (Configuration::environment()).
  static bool peer_check_requested() { return Configuration::environment().check_peers; }
  /// Allocates the pack buffers for elements of type T now rather than at the
  /// first execution (a schedule whose element type is known at construction
  /// pays for its memory at set-up, like every other plan).
  template <class T>
  void prepare() {
    if (!plan_.built()) throw Error("prepare() before build()", comm_.rank(), "BlockMessSchedule");
    ensure_buffers(sizeof(T));
  }

  /// Posts receives, packs and sends, performs local copies, returns.
  template <class T>
  void start(T* dst, std::size_t dst_span, const T* src, std::size_t src_span,
             Direction direction = Direction::forward);
  /// Waits for every message and unpacks; `dst` must not be read before.
  void finish();
  /// start() then finish().
  template <class T>
  void execute(T* dst, std::size_t dst_span, const T* src, std::size_t src_span,
               Direction direction = Direction::forward) {
    start(dst, dst_span, src, src_span, direction);
    finish();
  }

  /// Several arrays of the same shape at once (dst[k] <- src[k]): one
  /// message per peer carries every array's elements, array 0's first, so K
  /// fields cost the messages of one.  Every message is packed.  With one
  /// array this is start() / execute().
  template <class T>
  void start_many(const std::vector<T*>& dst, std::size_t dst_span,
                  const std::vector<const T*>& src, std::size_t src_span,
                  Direction direction = Direction::forward);
  /// start_many() then finish().
  template <class T>
  void execute_many(const std::vector<T*>& dst, std::size_t dst_span,
                    const std::vector<const T*>& src, std::size_t src_span,
                    Direction direction = Direction::forward) {
    start_many(dst, dst_span, src, src_span, direction);
    finish();
  }

  /// Kokkos View overloads (any rank, contiguous span): start() and execute()
  /// on the Views' data and spans.
  template <class DstView, class SrcView>
  void start(const DstView& dst, const SrcView& src, Direction direction = Direction::forward) {
    static_assert(
        Kokkos::SpaceAccessibility<execution_space, typename DstView::memory_space>::accessible,
        "destination View must be accessible from the schedule's memory space");
    start(dst.data(), dst.span(), src.data(), src.span(), direction);
  }
  /// start() then finish() on Views.
  template <class DstView, class SrcView>
  void execute(const DstView& dst, const SrcView& src, Direction direction = Direction::forward) {
    start(dst, src, direction);
    finish();
  }

  /// How messages travel (pack or MPI datatype); the environment's choice
  /// until set.  Not while an execution is in flight.
  void set_transfer(const TransferPolicy& policy);
  /// The transfer policy in use.
  const TransferPolicy& transfer() const { return policy_; }
  /// Does message `m` (one of plan()'s) travel in place, read or written by
  /// MPI in the user's memory without a pack buffer, for elements of
  /// `element_size` bytes?  Contiguous messages and datatype messages do.
  bool in_place(const PeerMessage& m, std::size_t element_size) const;

  /// Request sets kept (least recently used evicted): a code that exchanges
  /// up to this many fields (or array pairs) in turn through one schedule
  /// never rebuilds its requests.
  static constexpr std::size_t kRequestSetsKept = 16;

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
  struct RequestSet {
    std::size_t element_size = 0;
    Direction direction = Direction::forward;
    const void* dst = nullptr;  ///< only when an in-place receive depends on it
    const void* src = nullptr;  ///< only when an in-place send depends on it
    int arrays = 1;             ///< > 1: a batch, every message packed in the batch buffers
    std::vector<MPI_Request> incoming, outgoing;
    /// What each incoming request expects: finish() checks every arrival.
    std::vector<std::pair<MPI_Datatype, int>> expected;
    std::vector<Datatype> types;  ///< of the datatype messages, alive with the requests
    std::uint64_t last_use = 0;
  };

  using Bytes = Kokkos::View<unsigned char*, MemorySpace>;
  using HostBytes = Kokkos::View<unsigned char*, Kokkos::HostSpace>;

  std::int64_t buffer_offset(const PeerMessage& m) const {
    return staged() ? m.staging_offset : m.buffer_offset;
  }
  bool staged() const {
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
      return false;
    } else {
      return !config_.gpu_aware_mpi;
    }
  }

  const std::vector<PeerMessage>& incoming(Direction d) const {
    return d == Direction::forward ? plan_.recv_messages() : plan_.send_messages();
  }
  const std::vector<PeerMessage>& outgoing(Direction d) const {
    return d == Direction::forward ? plan_.send_messages() : plan_.recv_messages();
  }

  MPI_Datatype element_type(std::size_t size);
  std::string check_peer_counts();
  void ensure_buffers(std::size_t element_size);
  RequestSet& requests_for(std::size_t element_size, Direction d, void* dst, const void* src);
  /// Where one message's request reads or writes, and as what.
  struct Target {
    void* address;
    int count;
    MPI_Datatype type;
  };
  /// Creates `set`'s persistent requests, one per message, at the targets
  /// the two functions give for an incoming and an outgoing message.
  template <class IncomingTarget, class OutgoingTarget>
  void init_requests(RequestSet& set, IncomingTarget&& in, OutgoingTarget&& out);
  static void free_requests(RequestSet& set);
  void release_requests();
  void release_mpi_objects();

  template <class T>
  static void finish_typed(BlockMessSchedule& self);
  /// Steps shared by start() and start_many().
  void check_startable() const;
  /// The checks before anything is posted; in checked mode agreed across ranks.
  template <class T>
  void agree_to_start(std::size_t dst_span, std::size_t src_span, Direction direction, int arrays,
                      const std::string& error);
  static void post(std::vector<MPI_Request>& requests);
  void hand_over(Bytes& buffer, HostBytes& host_mirror, bool written);
  template <class T>
  void mark_in_flight(RequestSet& requests);
  template <class T>
  void check_spans(std::size_t dst_span, std::size_t src_span, Direction direction) const;
  template <class T>
  void copy_locally_staged(T* dst, const T* src, Direction direction);
  void ensure_batch_buffers(std::size_t element_size, int arrays);
  RequestSet& batch_requests_for(std::size_t element_size, Direction d, int arrays);

  /// A copy that reads the source memory of an execution: a pack (into the
  /// buffer, at the dense block `target`) or a local copy (into `dst`).
  struct SourceCopy {
    StridedBlock source;
    StridedBlock target;
    bool into_buffer;
  };
  /// Copies whose sources have one shape, walked together (see
  /// copy_blocks_sharing_source); `packs` says whether it feeds a message.
  struct SourceWalk {
    std::vector<SourceCopy> copies;
    bool packs = false;
  };
  /// What executions in one direction with elements of one size do, decided
  /// once: which messages travel in place (direct or datatype: nothing to
  /// pack or unpack), and the source walks of the rest with the local copies.
  struct Route {
    std::size_t element_size = 0;  ///< 0: not decided yet
    std::vector<char> incoming_in_place, outgoing_in_place;
    bool any_incoming_in_place = false, any_outgoing_in_place = false;
    std::vector<SourceWalk> walks;
  };
  const Route& route(Direction d, std::size_t element_size);
  template <class T>
  void run_walk(const SourceWalk& walk, T* dst, const T* src, T* buffer);

  Comm comm_;
  Configuration config_;
  TagLease tag_;
  BlockMessagePlan plan_;
  execution_space space_{};

  /// Pack buffers of the send-side and receive-side messages (their roles swap
  /// with the direction), the local staging buffer, and host mirrors.
  std::size_t buffer_element_size_ = 0;
  Bytes send_side_, recv_side_, local_;
  HostBytes send_side_host_, recv_side_host_;

  /// Batch buffers (start_many): K copies of every message, all packed.
  std::size_t batch_element_size_ = 0;
  int batch_arrays_ = 0;
  Bytes batch_send_side_, batch_recv_side_;
  HostBytes batch_send_side_host_, batch_recv_side_host_;

  TransferPolicy policy_;

  Route routes_[2];  ///< forward, backward

  std::vector<std::pair<std::size_t, MPI_Datatype>> types_;
  std::vector<RequestSet> request_sets_;
  std::uint64_t use_counter_ = 0;

  bool in_flight_ = false;
  RequestSet* active_ = nullptr;
  std::vector<void*> pending_dst_;  ///< the arrays finish() unpacks into
  void (*pending_finish_)(BlockMessSchedule&) = nullptr;
};

// ---------------------------------------------------------------------------
// Implementation

template <class MemorySpace>
MPI_Datatype BlockMessSchedule<MemorySpace>::element_type(std::size_t size) {
  for (const auto& [s, type] : types_)
    if (s == size) return type;
  MPI_Datatype type;
  ADLIB_MPI(MPI_Type_contiguous(static_cast<int>(size), MPI_BYTE, &type), "BlockMessSchedule");
  ADLIB_MPI(MPI_Type_commit(&type), "BlockMessSchedule");
  types_.emplace_back(size, type);
  return type;
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
            "BlockMessSchedule");
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
void BlockMessSchedule<MemorySpace>::ensure_buffers(std::size_t element_size) {
  if (element_size <= buffer_element_size_) return;
  // Buffers move: every request that points into them is stale.
  release_requests();
  buffer_element_size_ = element_size;
  auto allocate = [&](const std::string& label, std::int64_t count) {
    return Bytes(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                 static_cast<std::size_t>(count) * element_size);
  };
  send_side_ = allocate("adlib::send_side", plan_.send_buffer_count(staged()));
  recv_side_ = allocate("adlib::recv_side", plan_.recv_buffer_count(staged()));
  local_ = allocate("adlib::local", plan_.local_copies_staged() ? plan_.local_count() : 0);
  if (staged()) {
    send_side_host_ =
        HostBytes(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("adlib::send_h")),
                  send_side_.extent(0));
    recv_side_host_ =
        HostBytes(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("adlib::recv_h")),
                  recv_side_.extent(0));
  }
}

template <class MemorySpace>
bool BlockMessSchedule<MemorySpace>::in_place(const PeerMessage& m,
                                              std::size_t element_size) const {
  if (staged()) return false;
  if (m.direct) return true;
  // Datatypes only over host memory: MPI's datatype engines walk device
  // memory element by element, if at all.
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible)
    return uses_datatype(m, element_size, policy_);
  return false;
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::set_transfer(const TransferPolicy& policy) {
  if (in_flight_)
    throw Error("set_transfer() while an execution is in flight", comm_.rank(),
                "BlockMessSchedule");
  policy_ = policy;
  // Requests and routes were made for the old choice.
  release_requests();
  routes_[0].element_size = routes_[1].element_size = 0;
}

template <class MemorySpace>
typename BlockMessSchedule<MemorySpace>::RequestSet& BlockMessSchedule<MemorySpace>::requests_for(
    std::size_t element_size, Direction d, void* dst, const void* src) {
  const Route& r = route(d, element_size);
  const void* dst_key = r.any_incoming_in_place ? dst : nullptr;
  const void* src_key = r.any_outgoing_in_place ? src : nullptr;
  for (auto& set : request_sets_)
    if (set.arrays == 1 && set.element_size == element_size && set.direction == d &&
        set.dst == dst_key && set.src == src_key) {
      set.last_use = ++use_counter_;
      return set;
    }
  // Keep a set per array (pair) a code cycles through, up to a limit; evict
  // the least recently used.
  if (request_sets_.size() >= kRequestSetsKept) {
    auto oldest = request_sets_.begin();
    for (auto it = request_sets_.begin(); it != request_sets_.end(); ++it)
      if (it->last_use < oldest->last_use) oldest = it;
    free_requests(*oldest);
    request_sets_.erase(oldest);
  }
  RequestSet set;
  set.element_size = element_size;
  set.direction = d;
  set.dst = dst_key;
  set.src = src_key;
  set.last_use = ++use_counter_;
  const MPI_Datatype type = element_type(element_size);
  const bool forward = d == Direction::forward;
  unsigned char* in_buffer = staged() ? (forward ? recv_side_host_ : send_side_host_).data()
                                      : (forward ? recv_side_ : send_side_).data();
  unsigned char* out_buffer = staged() ? (forward ? send_side_host_ : recv_side_host_).data()
                                       : (forward ? send_side_ : recv_side_).data();
  // The pack buffer, the user's memory as it is (direct), or a datatype over it.
  auto target = [&](const PeerMessage& m, bool in_place, unsigned char* memory,
                    unsigned char* buffer) {
    if (!in_place)
      return Target{buffer + buffer_offset(m) * element_size, static_cast<int>(m.count), type};
    if (m.direct)
      return Target{memory + m.blocks[0].lowest_offset() * element_size, static_cast<int>(m.count),
                    type};
    set.types.push_back(blocks_datatype(m.blocks, type, element_size));
    return Target{memory, 1, set.types.back().get()};
  };
  init_requests(
      set,
      [&](std::size_t k, const PeerMessage& m) {
        return target(m, r.incoming_in_place[k], static_cast<unsigned char*>(dst), in_buffer);
      },
      // MPI only reads a send buffer; its C interface still takes void*.
      [&](std::size_t k, const PeerMessage& m) {
        return target(m, r.outgoing_in_place[k],
                      static_cast<unsigned char*>(const_cast<void*>(src)), out_buffer);
      });
  request_sets_.push_back(std::move(set));
  return request_sets_.back();
}

template <class MemorySpace>
template <class IncomingTarget, class OutgoingTarget>
void BlockMessSchedule<MemorySpace>::init_requests(RequestSet& set, IncomingTarget&& in,
                                                   OutgoingTarget&& out) {
  const auto& arriving = incoming(set.direction);
  for (std::size_t k = 0; k < arriving.size(); ++k) {
    const Target t = in(k, arriving[k]);
    MPI_Request r;
    ADLIB_MPI(
        MPI_Recv_init(t.address, t.count, t.type, arriving[k].peer, tag_.tag(), comm_.get(), &r),
        "BlockMessSchedule");
    set.incoming.push_back(r);
    set.expected.emplace_back(t.type, t.count);
  }
  const auto& leaving = outgoing(set.direction);
  for (std::size_t k = 0; k < leaving.size(); ++k) {
    const Target t = out(k, leaving[k]);
    MPI_Request r;
    ADLIB_MPI(
        MPI_Send_init(t.address, t.count, t.type, leaving[k].peer, tag_.tag(), comm_.get(), &r),
        "BlockMessSchedule");
    set.outgoing.push_back(r);
  }
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::free_requests(RequestSet& set) {
  for (auto* list : {&set.incoming, &set.outgoing})
    for (auto& r : *list)
      if (r != MPI_REQUEST_NULL) ADLIB_MPI_CLEANUP(MPI_Request_free(&r));
}

template <class MemorySpace>
const typename BlockMessSchedule<MemorySpace>::Route& BlockMessSchedule<MemorySpace>::route(
    Direction d, std::size_t element_size) {
  Route& r = routes_[d == Direction::forward ? 0 : 1];
  if (r.element_size == element_size) return r;
  auto decide = [&](const std::vector<PeerMessage>& messages, std::vector<char>& flags) {
    flags.clear();
    for (const auto& m : messages) flags.push_back(in_place(m, element_size) ? 1 : 0);
    return std::find(flags.begin(), flags.end(), 1) != flags.end();
  };
  r.any_incoming_in_place = decide(incoming(d), r.incoming_in_place);
  r.any_outgoing_in_place = decide(outgoing(d), r.outgoing_in_place);
  std::vector<SourceCopy> copies;
  const auto& leaving = outgoing(d);
  for (std::size_t k = 0; k < leaving.size(); ++k) {
    const PeerMessage& m = leaving[k];
    if (r.outgoing_in_place[k]) continue;
    std::int64_t position = buffer_offset(m);
    for (const auto& block : m.blocks) {
      StridedBlock dense = detail::dense_like(block);
      dense.offset = position;
      copies.push_back({block, dense, true});
      position += block.count();
    }
  }
  if (!plan_.local_copies_staged())
    for (const auto& c : plan_.local_copies())
      copies.push_back(d == Direction::forward ? SourceCopy{c.send_side, c.recv_side, false}
                                               : SourceCopy{c.recv_side, c.send_side, false});
  // Group by source shape (rank, extents, strides), at most
  // kMaxSharedSourceCopies per walk, keeping the declaration order; only
  // copies that read and write in the same order share a walk.
  std::vector<SourceWalk>& walks = r.walks;
  walks.clear();
  std::unordered_map<std::string, std::size_t> open;  // shape -> walk that can take more
  for (const auto& c : copies) {
    const StridedBlock& b = c.source;
    std::string shape(reinterpret_cast<const char*>(&b.rank), sizeof b.rank);
    shape.append(reinterpret_cast<const char*>(b.extents), sizeof(std::int64_t) * b.rank);
    shape.append(reinterpret_cast<const char*>(b.strides), sizeof(std::int64_t) * b.rank);
    // A copy whose target is walked in another order than its source keeps
    // a walk of its own (copy_block then follows the target's order):
    // sharing the source's order would scatter its writes.
    const bool shareable = same_walk_order(c.source, c.target);
    auto it = shareable ? open.find(shape) : open.end();
    std::size_t home_index;
    if (it != open.end() &&
        static_cast<int>(walks[it->second].copies.size()) < kMaxSharedSourceCopies) {
      home_index = it->second;
    } else {
      walks.emplace_back();
      home_index = walks.size() - 1;
      if (shareable) open.insert_or_assign(shape, home_index);
    }
    SourceWalk& home = walks[home_index];
    home.copies.push_back(c);
    home.packs = home.packs || c.into_buffer;
  }
  r.element_size = element_size;
  return r;
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::run_walk(const SourceWalk& walk, T* dst, const T* src,
                                              T* buffer) {
  const int n = static_cast<int>(walk.copies.size());
  if (n == 1) {
    const SourceCopy& c = walk.copies.front();
    copy_block<T>(space_, c.into_buffer ? buffer : dst, c.target, src, c.source);
    return;
  }
  StridedBlock sources[kMaxSharedSourceCopies], targets[kMaxSharedSourceCopies];
  T* bases[kMaxSharedSourceCopies];
  for (int k = 0; k < n; ++k) {
    sources[k] = walk.copies[k].source;
    targets[k] = walk.copies[k].target;
    bases[k] = walk.copies[k].into_buffer ? buffer : dst;
  }
  copy_blocks_sharing_source<T>(space_, src, sources, bases, targets, n);
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::check_spans(std::size_t dst_span, std::size_t src_span,
                                                 Direction direction) const {
  const bool forward = direction == Direction::forward;
  const std::int64_t dst_needed =
      forward ? plan_.recv_memory_required() : plan_.send_memory_required();
  const std::int64_t src_needed =
      forward ? plan_.send_memory_required() : plan_.recv_memory_required();
  if (static_cast<std::int64_t>(dst_span) < dst_needed ||
      static_cast<std::int64_t>(src_span) < src_needed)
    throw Error("memory too small for the schedule: destination holds " + std::to_string(dst_span) +
                    " elements (needs " + std::to_string(dst_needed) + "), source holds " +
                    std::to_string(src_span) + " (needs " + std::to_string(src_needed) + ")",
                comm_.rank(), "BlockMessSchedule");
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::copy_locally_staged(T* dst, const T* src,
                                                         Direction direction) {
  const bool forward = direction == Direction::forward;
  T* local = reinterpret_cast<T*>(local_.data());
  const auto& from = forward ? plan_.local_send_blocks() : plan_.local_recv_blocks();
  const auto& to = forward ? plan_.local_recv_blocks() : plan_.local_send_blocks();
  std::int64_t position = 0;
  for (const auto& b : from) {
    pack_block<T>(space_, src, b, local + position);
    position += b.count();
  }
  position = 0;
  for (const auto& b : to) {
    unpack_block<T>(space_, dst, b, local + position);
    position += b.count();
  }
  // The staging buffer is reused by the next array of a batch.
  space_.fence();
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::ensure_batch_buffers(std::size_t element_size, int arrays) {
  ensure_buffers(element_size);  // the local staging buffer lives there
  if (element_size <= batch_element_size_ && arrays <= batch_arrays_) return;
  // Buffers move: every batch request set is stale.
  for (auto it = request_sets_.begin(); it != request_sets_.end();) {
    if (it->arrays > 1) {
      free_requests(*it);
      it = request_sets_.erase(it);
    } else {
      ++it;
    }
  }
  batch_element_size_ = std::max(batch_element_size_, element_size);
  batch_arrays_ = std::max(batch_arrays_, arrays);
  auto allocate = [&](const std::string& label, std::int64_t elements) {
    return Bytes(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
                 static_cast<std::size_t>(elements) * batch_element_size_ *
                     static_cast<std::size_t>(batch_arrays_));
  };
  batch_send_side_ = allocate("adlib::batch_send", plan_.send_count());
  batch_recv_side_ = allocate("adlib::batch_recv", plan_.recv_count());
  if (staged()) {
    batch_send_side_host_ = HostBytes(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("adlib::batch_send_h")),
        batch_send_side_.extent(0));
    batch_recv_side_host_ = HostBytes(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("adlib::batch_recv_h")),
        batch_recv_side_.extent(0));
  }
}

template <class MemorySpace>
typename BlockMessSchedule<MemorySpace>::RequestSet&
BlockMessSchedule<MemorySpace>::batch_requests_for(std::size_t element_size, Direction d,
                                                   int arrays) {
  for (auto& set : request_sets_)
    if (set.arrays == arrays && set.element_size == element_size && set.direction == d) {
      set.last_use = ++use_counter_;
      return set;
    }
  RequestSet set;
  set.element_size = element_size;
  set.direction = d;
  set.arrays = arrays;
  set.last_use = ++use_counter_;
  const MPI_Datatype type = element_type(element_size);
  const bool forward = d == Direction::forward;
  const bool stage = staged();
  unsigned char* in = stage ? (forward ? batch_recv_side_host_ : batch_send_side_host_).data()
                            : (forward ? batch_recv_side_ : batch_send_side_).data();
  unsigned char* out = stage ? (forward ? batch_send_side_host_ : batch_recv_side_host_).data()
                             : (forward ? batch_send_side_ : batch_recv_side_).data();
  // K consecutive copies of every message, all packed.
  const auto k = static_cast<std::int64_t>(arrays);
  auto packed_at = [&](unsigned char* buffer) {
    return [=](std::size_t, const PeerMessage& m) {
      return Target{buffer + k * m.staging_offset * static_cast<std::int64_t>(element_size),
                    static_cast<int>(k * m.count), type};
    };
  };
  init_requests(set, packed_at(in), packed_at(out));
  request_sets_.push_back(std::move(set));
  return request_sets_.back();
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::start_many(const std::vector<T*>& dst, std::size_t dst_span,
                                                const std::vector<const T*>& src,
                                                std::size_t src_span, Direction direction) {
  std::string error;
  if (dst.size() != src.size() || dst.empty())
    error = "start_many needs as many destinations as sources, at least one";
  if (dst.size() == 1) return start(dst[0], dst_span, src[0], src_span, direction);
  const int arrays = static_cast<int>(dst.size());
  for (const auto* list : {&incoming(direction), &outgoing(direction)})
    for (const auto& m : *list)
      if (error.empty() && static_cast<std::int64_t>(arrays) * m.count > INT_MAX)
        error = "a batch message would exceed an MPI count";
  agree_to_start<T>(dst_span, src_span, direction, arrays, error);
  ensure_batch_buffers(sizeof(T), arrays);
  RequestSet& requests = batch_requests_for(sizeof(T), direction, arrays);
  const bool forward = direction == Direction::forward;
  post(requests.incoming);
  T* out = reinterpret_cast<T*>((forward ? batch_send_side_ : batch_recv_side_).data());
  for (const auto& m : outgoing(direction)) {
    std::int64_t position = arrays * m.staging_offset;
    for (int k = 0; k < arrays; ++k)
      for (const auto& block : m.blocks) {
        pack_block<T>(space_, src[k], block, out + position);
        position += block.count();
      }
  }
  hand_over(forward ? batch_send_side_ : batch_recv_side_,
            forward ? batch_send_side_host_ : batch_recv_side_host_, true);
  post(requests.outgoing);
  for (int k = 0; k < arrays; ++k) {
    if (plan_.local_copies_staged()) {
      copy_locally_staged<T>(dst[k], src[k], direction);
    } else {
      for (const auto& c : plan_.local_copies())
        copy_block<T>(space_, dst[k], forward ? c.recv_side : c.send_side, src[k],
                      forward ? c.send_side : c.recv_side);
    }
  }
  pending_dst_.assign(dst.begin(), dst.end());
  mark_in_flight<T>(requests);
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::start(T* dst, std::size_t dst_span, const T* src,
                                           std::size_t src_span, Direction direction) {
  agree_to_start<T>(dst_span, src_span, direction, 1, std::string());
  const bool forward = direction == Direction::forward;

  ensure_buffers(sizeof(T));
  RequestSet& requests = requests_for(sizeof(T), direction, dst, src);
  post(requests.incoming);

  // Packs, together with the local copies that read the same rows.
  T* out_buffer = reinterpret_cast<T*>((forward ? send_side_ : recv_side_).data());
  const auto& walks = route(direction, sizeof(T)).walks;
  bool packed = false;
  for (const auto& walk : walks)
    if (walk.packs) {
      run_walk<T>(walk, dst, src, out_buffer);
      packed = true;
    }
  hand_over(forward ? send_side_ : recv_side_, forward ? send_side_host_ : recv_side_host_, packed);
  post(requests.outgoing);

  // The remaining local copies overlap with the messages in flight.
  for (const auto& walk : walks)
    if (!walk.packs) run_walk<T>(walk, dst, src, out_buffer);
  if (plan_.local_copies_staged()) copy_locally_staged<T>(dst, src, direction);

  pending_dst_.assign(1, dst);  // keeps its capacity: no allocation per execution
  mark_in_flight<T>(requests);
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::agree_to_start(std::size_t dst_span, std::size_t src_span,
                                                    Direction direction, int arrays,
                                                    const std::string& error) {
  std::string verdict = error;
  try {
    if (verdict.empty()) {
      check_startable();
      check_spans<T>(dst_span, src_span, direction);
    }
  } catch (const Error& e) {
    verdict = e.message();
  }
  if (!config_.checked) {
    if (!verdict.empty()) throw Error(verdict, comm_.rank(), "BlockMessSchedule");
    return;
  }
  std::uint64_t fingerprint = detail::hash_mix(detail::hash_start(), sizeof(T));
  fingerprint = detail::hash_mix(fingerprint, static_cast<std::uint64_t>(arrays));
  fingerprint = detail::hash_mix(fingerprint, direction == Direction::forward ? 0u : 1u);
  fingerprint = detail::hash_mix(fingerprint, static_cast<std::uint64_t>(tag_.tag()));
  agree_on_errors(comm_, verdict, fingerprint, "BlockMessSchedule::start");
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::check_startable() const {
  constexpr const char* op = "BlockMessSchedule";
  if (!plan_.built()) throw Error("start() before build()", comm_.rank(), op);
  if (in_flight_) throw Error("start() while a previous start() is not finished", comm_.rank(), op);
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::post(std::vector<MPI_Request>& requests) {
  if (!requests.empty())
    ADLIB_MPI(MPI_Startall(static_cast<int>(requests.size()), requests.data()),
              "BlockMessSchedule");
}

/// Before the sends start: the kernels that wrote the pack buffer (when
/// `written`) must be complete, and staged messages copied to their host
/// mirror.
template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::hand_over(Bytes& buffer, HostBytes& host_mirror,
                                               bool written) {
  const bool stage = staged();
  if (written || stage) space_.fence();
  if (stage) Kokkos::deep_copy(host_mirror, buffer);
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::mark_in_flight(RequestSet& requests) {
  in_flight_ = true;
  active_ = &requests;
  pending_finish_ = &finish_typed<T>;
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::finish() {
  if (!in_flight_) throw Error("finish() without start()", comm_.rank(), "BlockMessSchedule");
  // Every request is complete when finish_typed returns or throws.
  struct Done {
    BlockMessSchedule& self;
    ~Done() {
      self.in_flight_ = false;
      self.active_ = nullptr;
    }
  } done{*this};
  pending_finish_(*this);
}

template <class MemorySpace>
template <class T>
void BlockMessSchedule<MemorySpace>::finish_typed(BlockMessSchedule& self) {
  constexpr const char* op = "BlockMessSchedule";
  RequestSet& requests = *self.active_;
  const bool forward = requests.direction == Direction::forward;
  const bool stage = self.staged();
  // One array: its own buffers, direct messages already in place.  A batch of
  // K arrays: the batch buffers, K consecutive copies of every message.
  const bool batch = requests.arrays > 1;
  const std::int64_t arrays = requests.arrays;
  Bytes& in_bytes = batch ? (forward ? self.batch_recv_side_ : self.batch_send_side_)
                          : (forward ? self.recv_side_ : self.send_side_);
  HostBytes& in_host = batch ? (forward ? self.batch_recv_side_host_ : self.batch_send_side_host_)
                             : (forward ? self.recv_side_host_ : self.send_side_host_);
  T* in = reinterpret_cast<T*>(in_bytes.data());
  const auto& messages = self.incoming(requests.direction);
  const std::vector<char>& in_place = self.route(requests.direction, sizeof(T)).incoming_in_place;
  // Unpack each message as it arrives.  A failed or mis-sized message is
  // remembered and the others still completed (so that no request is left
  // active), then reported.
  std::string error;
  for (std::size_t done = 0; done < messages.size(); ++done) {
    int index = MPI_UNDEFINED;
    MPI_Status status;
    const int code = MPI_Waitany(static_cast<int>(requests.incoming.size()),
                                 requests.incoming.data(), &index, &status);
    if (code != MPI_SUCCESS) {
      if (error.empty())
        error = mpi_error_message(code, "MPI_Waitany") +
                (index != MPI_UNDEFINED
                     ? " (the message from rank " + std::to_string(messages[index].peer) +
                           "; do all ranks execute with the same element type and arrays?)"
                     : std::string());
      if (index == MPI_UNDEFINED) break;
      continue;
    }
    if (index == MPI_UNDEFINED) break;
    const PeerMessage& m = messages[index];
    int received = 0;
    const auto [type, count] = requests.expected[static_cast<std::size_t>(index)];
    if (MPI_Get_count(&status, type, &received) != MPI_SUCCESS || received != count) {
      if (error.empty())
        error = "the message from rank " + std::to_string(m.peer) +
                " is shorter than this rank's schedule expects (do all ranks execute with the "
                "same element type and number of arrays?)";
      continue;
    }
    if (!batch && in_place[index]) continue;
    std::int64_t position = batch ? arrays * m.staging_offset : self.buffer_offset(m);
    if (stage) {
      const auto first = static_cast<std::size_t>(position) * sizeof(T);
      const std::pair<std::size_t, std::size_t> range(
          first, first + static_cast<std::size_t>(arrays * m.count) * sizeof(T));
      Kokkos::deep_copy(Kokkos::subview(in_bytes, range), Kokkos::subview(in_host, range));
    }
    for (void* dst : self.pending_dst_)
      for (const auto& block : m.blocks) {
        unpack_block<T>(self.space_, static_cast<T*>(dst), block, in + position);
        position += block.count();
      }
  }
  if (!requests.outgoing.empty()) {
    const int code = MPI_Waitall(static_cast<int>(requests.outgoing.size()),
                                 requests.outgoing.data(), MPI_STATUSES_IGNORE);
    if (error.empty()) error = mpi_error_message(code, "MPI_Waitall");
  }
  self.space_.fence();
  if (!error.empty()) {
    // MPI may have freed a request that failed (Open MPI does, persistent or
    // not): the request sets are rebuilt at the next execution.
    self.release_requests();
    throw Error(error, self.comm_.rank(), op);
  }
}

template <class MemorySpace>
void BlockMessSchedule<MemorySpace>::release_requests() {
  int finalized = 0;
  ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
  if (!finalized)
    for (auto& set : request_sets_) free_requests(set);
  request_sets_.clear();
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
  release_requests();
  int finalized = 0;
  ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
  if (!finalized)
    for (auto& [size, type] : types_) ADLIB_MPI_CLEANUP(MPI_Type_free(&type));
  types_.clear();
}

}  // namespace adlib
