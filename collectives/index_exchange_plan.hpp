// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// plan_gather / plan_scatter: the plan of a Gather or Scatter whose
/// subscripts only the requesting rank knows (Adlib's remote access, the
/// vector form of a solver's gather: each rank lists global indices of a 1-D
/// distributed array).
///
/// Only the requester knows what it needs; the owners learn it at build time
/// through one sparse exchange (runtime/sparse_exchange.hpp, non-blocking
/// consensus: no message counts of size P anywhere):
///  1. the requester finds the owner of each subscript with the layout's
///     Range inquiries (Range::owner) and groups its requests by owner;
///  2. it sends every owner ONE message, the owner-local element offsets it
///     wants (itself included: a local request is a message to itself, which
///     the exchange copies without MPI);
///  3. each owner lists what it received as index-list sends
///     (ExchangePlan::send_indices) to the requester; the requester lists the
///     matching receives (recv_indices) into its output positions.
///
/// Replicated arrays.  A gather reads one replica of each element: the
/// requester itself when it holds a copy, else the replica numbered
/// (requester mod replicas) in the order of ArrayLayout::ranks_holding (the
/// rule of Remap's replicated sources).  A scatter writes every replica, so
/// the replicas stay equal.
///
/// Duplicates.  A gather sends a request made several times once (per owner,
/// the distinct offsets in increasing order); the value arrives at the first
/// output position that asked for it and is fanned out locally to the others
/// (IndexPlan::fan_out, applied after the schedule).  A scatter sends every
/// contribution, duplicates included, in list order: the owner combines each
/// of them into its target, so any combine operation is right, user
/// operations that are not associative included, and no scratch copy of the
/// values is needed.
///
/// The pieces are pure functions of the layout (plan_requests,
/// add_owner_side), tested for simulated process counts in one process;
/// plan_index_exchange adds the argument agreement and the exchange.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// Which side of remote access a plan serves (they differ in replicas and
/// duplicates; see the file overview).
enum class IndexAccess {
  gather,  ///< out[k] = a[idx[k]]: one replica read, duplicate requests sent once
  scatter  ///< a[idx[k]] op= v[k]: every replica written, every contribution sent
};

/// One local copy of a gather's fan-out: out[to] = out[from], after the
/// schedule has delivered out[from].
struct FanOut {
  std::int64_t to = 0;    ///< a repeated request's output position
  std::int64_t from = 0;  ///< the position that received the value
};

/// One rank's plan of a Gather or Scatter: the ExchangePlan for the executor
/// (send memory: the distributed array's local block; receive memory: the
/// rank's output, or values, vector) and a gather's local fan-out.
struct IndexPlan {
  ExchangePlan exchange;        ///< index lists only (no blocks)
  std::vector<FanOut> fan_out;  ///< gather only: copies after the schedule, any order
};

/// The requester's half of a plan, before the exchange: the messages to the
/// owners and the receives and fan-out they imply.
struct IndexRequests {
  /// One per owner, ascending peer: the owner-local offsets wanted, in
  /// message order.
  std::vector<SparseMessage<std::int64_t>> to_owners;
  /// exchange.recv_indices (one entry per owner, matching to_owners) and fan_out.
  IndexPlan plan;
};

/// Empty when every subscript lies in [0, layout.extent(0)) and the layout
/// is 1-D, else the reason (naming the first bad subscript and its position).
std::string check_subscripts(const ArrayLayout& layout, const std::vector<Index>& subscripts);

/// The rank that serves subscript `subscript` to `requester` in a gather:
/// itself when it holds a copy, else replica (requester mod replicas).
/// Subscripts are positions of the layout (of its section, for a section).
int gather_owner(const ArrayLayout& layout, Index subscript, int requester);

/// Rank `me`'s requests for `subscripts` of the 1-D `layout` (checked by
/// check_subscripts).  Costs O(n log n) for n subscripts (times the replicas
/// for a scatter) and memory O(n): nothing depends on the number of ranks.
IndexRequests plan_requests(const ArrayLayout& layout, const std::vector<Index>& subscripts, int me,
                            IndexAccess access);

/// The owner's half: every received request (sender, offsets) becomes
/// exchange.send_indices(sender, offsets), in the order received.
void add_owner_side(ExchangePlan& exchange, std::vector<SparseMessage<std::int64_t>> received);

/// Collective over the layout's communicator: rank `me`'s whole plan.  Every
/// rank agrees first (one MPI_Allreduce) on check_subscripts, on
/// `caller_error` and on `caller_fingerprint` (the caller's element type,
/// combine operation and configuration), so bad input on any rank throws the
/// same adlib::Error on every rank before any message is posted; then one
/// sparse exchange.  `statistics`, when given, receives the exchange's costs.
IndexPlan plan_index_exchange(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                              IndexAccess access, const char* operation,
                              const std::string& caller_error = {},
                              std::uint64_t caller_fingerprint = 0,
                              SparseExchangeStatistics* statistics = nullptr);

/// plan_index_exchange for a gather (collective).
inline IndexPlan plan_gather(const ArrayLayout& layout, const std::vector<Index>& subscripts) {
  return plan_index_exchange(layout, subscripts, IndexAccess::gather, "plan_gather");
}
/// plan_index_exchange for a scatter (collective).
inline IndexPlan plan_scatter(const ArrayLayout& layout, const std::vector<Index>& subscripts) {
  return plan_index_exchange(layout, subscripts, IndexAccess::scatter, "plan_scatter");
}

}  // namespace adlib
