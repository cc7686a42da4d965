// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/depth_halo_plan.hpp>

#include <map>

namespace adlib {

namespace {

// The depth of halo entry `e` (owned_count() <= e < entries()).
int depth_of(const UnstructuredLayout& layout, Index e) {
  int d = 1;
  while (e >= layout.halo_end(d)) ++d;
  return d;
}

// Appends entries `offsets`, each expanded to its column of values.
void append_columns(std::vector<std::int64_t>& values, const std::vector<std::int64_t>& offsets,
                    Index column) {
  values.reserve(values.size() + offsets.size() * static_cast<std::size_t>(column));
  for (const std::int64_t entry : offsets)
    for (Index k = 0; k < column; ++k) values.push_back(entry * column + k);
}

bool consecutive(const std::vector<std::int64_t>& offsets) {
  for (std::size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] != offsets[i - 1] + 1) return false;
  return true;
}

// One side of the plan: per peer (ascending), its lists of depths clean+1 ..
// depth joined, as a block when contiguous, else as an index list.
void join_side(const std::vector<ExchangePlan>& levels, int clean, int depth, Index column,
               std::vector<PeerIndices> ExchangePlan::*side, std::vector<PeerBlock>& blocks,
               std::vector<PeerIndices>& lists) {
  std::map<int, std::vector<std::int64_t>> by_peer;
  for (int d = clean + 1; d <= depth; ++d)
    for (const PeerIndices& list : levels[static_cast<std::size_t>(d - 1)].*side)
      append_columns(by_peer[list.peer], list.offsets, column);
  for (auto& [peer, offsets] : by_peer) {
    if (offsets.empty()) continue;
    if (consecutive(offsets))
      blocks.push_back(
          {peer,
           StridedBlock::make(offsets.front(), {static_cast<std::int64_t>(offsets.size())}, {1})});
    else  // each column one row, however short
      lists.push_back({peer, std::move(offsets), column > 1 ? column : kMinIndexRun});
  }
}

}  // namespace

std::string unowned_halo_error(const UnstructuredLayout& layout,
                               const std::vector<IdLocation>& located) {
  for (std::size_t i = 0; i < located.size(); ++i)
    if (located[i].rank < 0) {
      const Index e = layout.owned_count() + static_cast<Index>(i);
      return "the halo id " + std::to_string(layout.id(e)) + " (depth " +
             std::to_string(depth_of(layout, e)) + ") is owned by no rank";
    }
  return {};
}

std::vector<ElementRequest> depth_requests(const UnstructuredLayout& layout,
                                           const std::vector<IdLocation>& located, int d) {
  std::vector<ElementRequest> requests;
  const Index first = layout.halo_end(d - 1), last = layout.halo_end(d);
  requests.reserve(static_cast<std::size_t>(last - first));
  for (Index e = first; e < last; ++e) {
    const IdLocation& owner = located.at(static_cast<std::size_t>(e - layout.owned_count()));
    requests.push_back({owner.rank, owner.position, e});
  }
  return requests;
}

ExchangePlan depth_range_plan(const std::vector<ExchangePlan>& levels, int clean, int depth,
                              Index column) {
  ExchangePlan plan;
  join_side(levels, clean, depth, column, &ExchangePlan::send_indices, plan.sends,
            plan.send_indices);
  join_side(levels, clean, depth, column, &ExchangePlan::recv_indices, plan.recvs,
            plan.recv_indices);
  return plan;
}

}  // namespace adlib
