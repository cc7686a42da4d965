// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The plan of a Gather or Scatter from global subscripts that only the
/// requesting rank knows (the vector form of a solver's gather: each rank
/// lists global indices of a 1-D distributed array): the subscripts become
/// the element requests of a remote-access schedule (schedules/data_plan.hpp,
/// schedules/data_schedule.hpp), their owners found with the layout's Range
/// inquiries (Range::owner).
///
/// Replicated arrays.  A gather reads one replica of each element: the
/// requester itself when it holds a copy, else the replica numbered
/// (requester mod replicas) in the order of ArrayLayout::ranks_holding (the
/// rule of Remap's replicated sources).  A scatter writes every replica, so
/// the replicas stay equal.
///
/// Positions.  Request k's local offset is k: the position in the rank's
/// output (gather) or values (scatter) vector.
///
/// The pieces are pure functions of the layout (resolve_subscripts,
/// plan_requests), tested for simulated process counts in one process;
/// plan_index_exchange adds the argument agreement and the exchange.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/schedules/data_plan.hpp>

namespace adlib {

/// Empty when every subscript lies in [0, layout.extent(0)) and the layout
/// is 1-D, else the reason (naming the first bad subscript and its position).
std::string check_subscripts(const ArrayLayout& layout, const std::vector<Index>& subscripts);

/// The rank that serves subscript `subscript` to `requester` in a gather:
/// itself when it holds a copy, else replica (requester mod replicas).
/// Subscripts are positions of the layout (of its section, for a section).
int gather_owner(const ArrayLayout& layout, Index subscript, int requester);

/// Rank `me`'s element requests for `subscripts` of the 1-D `layout`
/// (checked by check_subscripts), resolved as the planner reads them (a
/// RequestSource: nothing stored per subscript).  Request k asks for
/// subscripts[k] into (or from) position k, of gather_owner for a read, of
/// every replica for a write (one request per replica, replicas of one
/// subscript adjacent).  Nothing depends on the number of ranks.
class SubscriptRequests final : public RequestSource {
 public:
  /// Refers to `layout` and `subscripts`, which must outlive this object.
  /// Collective over the layout's communicator when the layout is not
  /// plannable locally (an unstructured range: the owners are located
  /// through its directory, every rank calling); local arithmetic otherwise.
  SubscriptRequests(const ArrayLayout& layout, const std::vector<Index>& subscripts, int me,
                    RemoteAccess access);
  /// Subscripts times the replicas written (1 for a read).
  std::size_t size() const override { return subscripts_.size() * replicas_; }
  /// Resolves requests [first, first + count).
  void fill(std::size_t first, std::size_t count, ElementRequest* out) const override;
  /// True: owners come from the layout (ranks of its communicator) and
  /// offsets from its local maps, for subscripts the caller checked first
  /// (subscript_error; a rank with bad subscripts resolves none).
  bool valid_by_construction() const override { return true; }

 private:
  // The serving rank of each owning coordinate, remembered in a small
  // direct-mapped table (fixed size: nothing of the size of the process
  // count), because ArrayLayout::replica builds coordinate vectors on every
  // call and subscripts revisit the same few owners.
  struct CachedServer {
    int coord = -1;
    int rank = -1;
  };
  static constexpr std::size_t kServers = 1024;  // a power of two: % is a mask
  // The serving rank of `coord`: the cached answer when there is one (here,
  // inline, since fill() asks for every subscript), else cache_server's.
  int server(int coord) const {
    const CachedServer& cached = servers_[static_cast<std::size_t>(coord) % kServers];
    return cached.coord == coord ? cached.rank : cache_server(coord);
  }
  // Asks the layout for the serving rank of `coord` and remembers it.
  int cache_server(int coord) const;

  const ArrayLayout& layout_;
  const std::vector<Index>& subscripts_;
  int me_;
  RemoteAccess access_;
  std::size_t replicas_;
  mutable std::vector<CachedServer> servers_;
  std::vector<Owner> located_;  ///< an unstructured layout's owners, by subscript
};

/// All of SubscriptRequests' requests, stored (for tests and inspection).
std::vector<ElementRequest> resolve_subscripts(const ArrayLayout& layout,
                                               const std::vector<Index>& subscripts, int me,
                                               RemoteAccess access);

/// The requester's half of rank `me`'s plan (pure): plan_data_requests of
/// SubscriptRequests.
inline DataRequests plan_requests(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                                  int me, RemoteAccess access) {
  return plan_data_requests(SubscriptRequests(layout, subscripts, me, access), access);
}

/// This rank's verdict on a Gather's or Scatter's arguments: `caller_error`
/// when set, else check_subscripts.
std::string subscript_error(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                            const std::string& caller_error);

/// What a rank resolves: `subscripts` when `error` is empty, else none (a
/// rank with bad input asks for nothing; the agreement then makes every rank
/// throw before any message).
const std::vector<Index>& subscripts_to_resolve(const std::string& error,
                                                const std::vector<Index>& subscripts);

/// Collective over the layout's communicator: rank's whole plan, with one
/// agreement (MPI_Allreduce) on check_subscripts, `caller_error` and
/// `caller_fingerprint` (with the layout), so bad input on any rank throws
/// the same adlib::Error on every rank before any message is posted; then
/// one sparse exchange.  `statistics`, when given, receives its costs.
DataPlan plan_index_exchange(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                             RemoteAccess access, const char* operation,
                             const std::string& caller_error = {},
                             std::uint64_t caller_fingerprint = 0,
                             SparseExchangeStatistics* statistics = nullptr);

/// plan_index_exchange for a gather (collective).
inline DataPlan plan_gather(const ArrayLayout& layout, const std::vector<Index>& subscripts) {
  return plan_index_exchange(layout, subscripts, RemoteAccess::read, "plan_gather");
}
/// plan_index_exchange for a scatter (collective).
inline DataPlan plan_scatter(const ArrayLayout& layout, const std::vector<Index>& subscripts) {
  return plan_index_exchange(layout, subscripts, RemoteAccess::write, "plan_scatter");
}

}  // namespace adlib
