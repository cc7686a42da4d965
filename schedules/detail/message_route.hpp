// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// MessageRoute: what one kind of execution of a BlockMessSchedule does,
/// decided once from the plan (the copy program).
///
/// An execution is characterised by its direction, its element size, the
/// number of arrays it moves at once (K) and whether arrivals combine into
/// their targets rather than replace them.  For each such kind the route
/// says, per message, whether MPI reads or writes the user's memory in place
/// (one contiguous block, or a derived datatype over host memory) or goes
/// through a pack buffer, and where in that buffer; and it groups the copies
/// that read the source (packs and local copies) into walks that share their
/// source rows.  Forward and backward are resolved here, once: the route's
/// `incoming` are the messages an execution receives, whichever side of the
/// plan declared them.
///
/// Plain data over a BlockMessagePlan: no MPI and no Kokkos, so it is tested
/// serially (tests/serial_message_route.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <adlib/schedules/block_message_plan.hpp>
#include <adlib/schedules/direction.hpp>
#include <adlib/schedules/transfer_policy.hpp>

namespace adlib::detail {

/// The kind of execution a route is made for.
struct RouteKind {
  Direction direction = Direction::forward;  ///< forward or backward
  std::size_t element_size = 0;              ///< bytes per element
  int arrays = 1;                            ///< arrays moved at once (K)
  bool combining = false;                    ///< arrivals combine into their targets (not replace)
  /// Same kind?
  bool operator==(const RouteKind& other) const {
    return direction == other.direction && element_size == other.element_size &&
           arrays == other.arrays && combining == other.combining;
  }
};

/// Where the memory of the schedule's messages is, for a route.
struct RouteMemory {
  /// Messages are staged through host buffers (device memory without
  /// GPU-aware MPI, or the forced staging of Configuration::force_staging):
  /// every message is packed, none travels in place.
  bool staged = false;
  /// The arrays' memory is host memory (derived datatypes may walk it).
  bool host = true;
  /// Every peer of the schedule shares this rank's node: MPI moves its
  /// messages with the CPUs of the ranks (shared memory), so no message
  /// progresses while this rank computes.
  bool peers_on_node = false;
  /// adlib's host loops may walk it: host memory whose execution space runs
  /// on the host (managed device memory is host memory whose kernels run on
  /// the device).  The merged walks are such loops.
  bool host_loops = true;
};

/// One message as a route moves it.
struct RoutedMessage {
  const PeerMessage* message = nullptr;  ///< the plan's message (peer, blocks, count)
  bool in_place = false;                 ///< MPI reads or writes the user's memory: no buffer
  bool datatype = false;  ///< in place through a derived datatype (else one contiguous block)
  std::int64_t buffer_offset = 0;  ///< elements into its side's buffer (not in place)
};

/// A copy that reads the source memory of an execution: a pack into the
/// outgoing buffer (the dense block `target`, array k's part at
/// `target.offset + k * array_stride`) or a local copy into the destination
/// array (array k's copy into destination k).
struct SourceCopy {
  StridedBlock source;            ///< read from the source array
  StridedBlock target;            ///< written in the buffer or the destination array
  bool into_buffer = false;       ///< a pack (else a local copy)
  std::int64_t array_stride = 0;  ///< buffer elements between arrays' parts (packs)
};

/// Copies whose sources have one shape (extents and strides), walked together
/// so each source row is read once (runtime/detail/pack.hpp,
/// copy_blocks_sharing_source); `packs` says whether one of them feeds a
/// message.
struct SourceWalk {
  std::vector<SourceCopy> copies;  ///< at most kMaxSharedSourceCopies
  bool packs = false;              ///< one of the copies packs
};

/// The index-list part of an outgoing message, packed after its blocks
/// (array k's part at `buffer_offset + k * array_stride`).
struct IndexPack {
  const IndexList* list = nullptr;  ///< offsets in the source array
  std::int64_t buffer_offset = 0;   ///< where array 0's elements go in the buffer
  std::int64_t array_stride = 0;    ///< buffer elements between arrays' parts
};

/// The copy program of one kind of execution (see the file overview).
class MessageRoute {
 public:
  /// Decides everything for executions of `kind` over `plan` (built).
  MessageRoute(const BlockMessagePlan& plan, const RouteKind& kind, const TransferPolicy& policy,
               const RouteMemory& memory);

  /// The kind it was made for.
  const RouteKind& kind() const { return kind_; }
  /// Messages the execution receives, by increasing peer.
  const std::vector<RoutedMessage>& incoming() const { return incoming_; }
  /// Messages the execution sends, by increasing peer.
  const std::vector<RoutedMessage>& outgoing() const { return outgoing_; }
  /// Does any incoming (outgoing) message travel in place?  Then the request
  /// set depends on the destination (source) array's address.
  bool any_incoming_in_place() const { return any_incoming_in_place_; }
  /// See any_incoming_in_place().
  bool any_outgoing_in_place() const { return any_outgoing_in_place_; }
  /// Elements of the incoming buffer (all arrays).
  std::int64_t incoming_buffer_count() const { return incoming_buffer_count_; }
  /// Elements of the outgoing buffer (all arrays).
  std::int64_t outgoing_buffer_count() const { return outgoing_buffer_count_; }
  /// Packs and local copies, grouped by shared source (see SourceWalk).  The
  /// local copies are those of the plan when it pairs its self-blocks.
  const std::vector<SourceWalk>& walks() const { return walks_; }
  /// When the plan could not pair its self-blocks: the blocks read (from the
  /// source) and written (in the destination) through the local buffer, in
  /// this route's direction; empty otherwise.
  const std::vector<StridedBlock>& local_reads() const { return *local_reads_; }
  /// See local_reads().
  const std::vector<StridedBlock>& local_writes() const { return *local_writes_; }
  /// Elements of the local buffer: the staged local copies' (one array at
  /// a time), then the merged local index copy's values (every array).
  std::int64_t local_buffer_count() const { return local_buffer_count_; }
  /// The index lists to pack, after the walks (index-list messages).
  const std::vector<IndexPack>& index_packs() const { return index_packs_; }
  /// Self index lists: read from the source and written (combined) into the
  /// destination, element k to element k, in this route's direction.
  const IndexList& local_index_reads() const { return *local_index_reads_; }
  /// See local_index_reads().
  const IndexList& local_index_writes() const { return *local_index_writes_; }
  /// Do the arrivals and the local index copy combine in one walk over the
  /// destination after the last message has arrived, instead of each list
  /// on its own (the local copy during the flight, each message on
  /// arrival)?  Then each line of the destination is read and written once,
  /// not once per list that touches it.  Chosen for combining executions
  /// whose every incoming message and local index copy writes single
  /// offsets in ascending order (scattered contributions sorted by their
  /// owner, as a Scatter's), at least two such lists, host memory not
  /// staged, and every peer on this node: there the messages move only when
  /// this rank waits for them, so the local copy overlaps nothing and may as
  /// well wait too.  A SC1-sized walk (2^17 + 2^17 contributions into 16
  /// MiB) measured 920 us instead of 1145 us for two separate passes on the
  /// machine it was written on, but 2170-2530 us against 1410-1580 us on
  /// the 2-core AMD EPYC VMs, so the policy may turn it off
  /// (TransferPolicy::merge_index_walks, from the tuning file).
  bool merges_index_arrivals() const { return merges_index_arrivals_; }
  /// Do the packs of the outgoing messages and the local index copy read the
  /// source in one walk, at start()?  The mirror of merges_index_arrivals(),
  /// for the sending side: chosen when every outgoing message packs single
  /// offsets in ascending order and the local copy reads single offsets in
  /// ascending order (a Gather's reads, which the planner sorts by the
  /// owner's offsets, the requests to the rank itself included), at least two
  /// such lists, host memory not staged, every peer on this node, the
  /// arrivals not merged, and TransferPolicy::merge_index_walks.  Each line of the source is then
  /// read about once instead of once per list.
  bool merges_index_departures() const { return merges_index_departures_; }
  /// With merges_index_arrivals(): where in the local buffer the local index
  /// copy's values wait, packed at start() (array k's at this offset plus k
  /// times local_index_reads().count), so that start() still reads the whole
  /// source.
  std::int64_t merged_local_offset() const { return merged_local_offset_; }

 private:
  RouteKind kind_;
  std::vector<RoutedMessage> incoming_, outgoing_;
  bool any_incoming_in_place_ = false, any_outgoing_in_place_ = false;
  std::int64_t incoming_buffer_count_ = 0, outgoing_buffer_count_ = 0;
  std::vector<SourceWalk> walks_;
  const std::vector<StridedBlock>* local_reads_ = nullptr;
  const std::vector<StridedBlock>* local_writes_ = nullptr;
  std::int64_t local_buffer_count_ = 0;
  std::vector<IndexPack> index_packs_;
  const IndexList* local_index_reads_ = nullptr;
  const IndexList* local_index_writes_ = nullptr;
  bool merges_index_arrivals_ = false;
  bool merges_index_departures_ = false;
  std::int64_t merged_local_offset_ = 0;
};

}  // namespace adlib::detail
