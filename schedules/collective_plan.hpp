// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The pure planning of adlib's all-reduce and broadcast algorithms: for one
/// member of a group, the list of exchanges (steps) that it makes, computed
/// without MPI, so that every algorithm can be simulated and checked for
/// any process count in one process (tests/serial_collective_plan.cpp).
///
/// @code
///   adlib::CollectivePlan plan = adlib::plan_allreduce(
///       adlib::ReductionAlgorithm::reduce_scatter_allgather, rank, size, count, nodes);
///   for (const adlib::CollectiveStep& step : plan.steps) { ... }   // what RedxSchedule runs
/// @endcode
///
/// A step sends `[send_begin, send_begin + send_count)` of the vector to
/// `send_peer` and receives `[receive_begin, receive_begin + receive_count)`
/// from `receive_peer` (either may be absent), then applies what arrived:
/// it replaces that part of the vector, or combines with it.  Combining
/// keeps track of which side holds the lower ranks' contributions, so the
/// recursive-doubling, reduce-scatter-allgather and node-aware plans (with
/// nodes of consecutive ranks) combine members in rank order: such plans are
/// correct for operations that are associative but not commutative.  The
/// ring, and node-aware plans over nodes whose ranks interleave, need a
/// commutative operation, as all of adlib's built-in ones are.  In every
/// plan each element's final value is computed once and then copied, or
/// computed identically on every member: all members end with the same bits.
#pragma once

#include <cstdint>
#include <vector>

#include <adlib/runtime/collective_algorithm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/node_topology.hpp>

namespace adlib {

/// What a step does with the elements it receives.
enum class Arrival {
  replace,              ///< they overwrite the received part of the vector
  combine_from_lower,   ///< part = arrived (x) part: the arrival holds lower ranks
  combine_from_higher,  ///< part = part (x) arrived: the arrival holds higher ranks
};

/// One exchange of a member (see the file overview).  Counts are elements.
struct CollectiveStep {
  int send_peer = -1;                  ///< member sent to, -1: no send
  std::int64_t send_begin = 0;         ///< first element sent
  std::int64_t send_count = 0;         ///< elements sent (0: nothing is posted)
  int receive_peer = -1;               ///< member received from, -1: no receive
  std::int64_t receive_begin = 0;      ///< where the arrival lands
  std::int64_t receive_count = 0;      ///< elements received (0: nothing is posted)
  Arrival arrival = Arrival::replace;  ///< what the arrival does
  /// The receiving member combines what this step sends (its step's arrival
  /// is not replace).  Such a message travels in pieces that the receiver
  /// combines one at a time while each is in cache; one that only replaces
  /// travels whole, one handshake instead of one per piece.  Both ends cut a
  /// message alike only if this matches the receiver's arrival.
  bool send_combined = false;
};

/// The steps of one member, in order.  Each step's send and receive are
/// posted together and complete before the next step starts.
struct CollectivePlan {
  std::vector<CollectiveStep> steps;  ///< in execution order
  /// The most elements any one step receives into scratch memory (combining
  /// steps): the executor's scratch size.
  std::int64_t scratch_count() const;
};

/// The steps of member `rank` of `size` for an all-reduce of `count`
/// elements with a concrete algorithm (not automatic, not mpi).  `nodes`
/// (members' nodes as `rank` sees them) is read by node_aware only.
CollectivePlan plan_allreduce(ReductionAlgorithm algorithm, int rank, int size, std::int64_t count,
                              const NodeTopology& nodes);

/// The steps of member `rank` of `size` for a broadcast of `count` elements
/// from member `root`, with a concrete algorithm (not automatic, not mpi).
/// `nodes` is read by node_aware only; `root_leader` is the leader of the
/// root's node there.
CollectivePlan plan_broadcast(BroadcastAlgorithm algorithm, int root, int rank, int size,
                              std::int64_t count, const NodeTopology& nodes, int root_leader);

/// The algorithm an all-reduce of `bytes` over `size` members on
/// `node_count` nodes (of at most `largest_node` members) runs: the forced
/// one, or the automatic choice (documented in docs/algorithm_selection.md):
/// - one member: nothing to exchange (any algorithm; recursive_doubling);
/// - several nodes with several members each and a short vector: node_aware;
/// - a short vector: mpi;
/// - a long vector over fewer than 4 members: recursive_doubling, and from
///   Configuration::reduction_split_bytes the ring;
/// - a long vector: reduce_scatter_allgather over a power-of-two count of
///   members, ring otherwise (when each of the P segments is long too).
ReductionAlgorithm choose_reduction(const Configuration& config, std::int64_t bytes, int size,
                                    int node_count, int largest_node);

/// The same for a broadcast:
/// - several nodes with several members each: node_aware;
/// - otherwise mpi.
BroadcastAlgorithm choose_broadcast(const Configuration& config, std::int64_t bytes, int size,
                                    int node_count, int largest_node);

}  // namespace adlib
