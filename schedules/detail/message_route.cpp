// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/schedules/detail/message_route.hpp>

#include <string>
#include <unordered_map>

#include <adlib/runtime/detail/pack.hpp>

namespace adlib::detail {

namespace {

// Routes each message of `messages`: in place where the memory and the
// policy allow it (and, for arrivals, where nothing combines), else at the
// next offset of its side's buffer, K copies in a row.
std::int64_t route_messages(const std::vector<PeerMessage>& messages, bool arriving,
                            const RouteKind& kind, const TransferPolicy& policy,
                            const RouteMemory& memory, std::vector<RoutedMessage>& out,
                            bool& any_in_place) {
  const bool may_be_in_place = !memory.staged && kind.arrays == 1 && !(arriving && kind.combining);
  std::int64_t offset = 0;
  any_in_place = false;
  out.clear();
  out.reserve(messages.size());
  for (const PeerMessage& m : messages) {
    RoutedMessage routed;
    routed.message = &m;
    if (may_be_in_place) {
      // Datatypes only over host memory: MPI's datatype engines walk device
      // memory element by element, if at all.
      routed.datatype =
          memory.host && m.indices.count == 0 && uses_datatype(m, kind.element_size, policy);
      routed.in_place = m.direct || routed.datatype;
    }
    if (!routed.in_place) {
      routed.buffer_offset = offset;
      offset += m.count * kind.arrays;
    }
    any_in_place = any_in_place || routed.in_place;
    out.push_back(routed);
  }
  return offset;
}

// The key that groups copies whose sources have one shape.
std::string shape_of(const StridedBlock& b) {
  std::string shape(reinterpret_cast<const char*>(&b.rank), sizeof b.rank);
  shape.append(reinterpret_cast<const char*>(b.extents), sizeof(std::int64_t) * b.rank);
  shape.append(reinterpret_cast<const char*>(b.strides), sizeof(std::int64_t) * b.rank);
  return shape;
}

// MessageRoute::merges_index_arrivals()'s rule.
bool merge_index_arrivals(const RouteKind& kind, const TransferPolicy& policy,
                          const RouteMemory& memory, const std::vector<RoutedMessage>& incoming,
                          const IndexList& local_reads, const IndexList& local_writes) {
  if (!policy.merge_index_walks || !kind.combining || !memory.host || !memory.host_loops ||
      memory.staged || !memory.peers_on_node)
    return false;
  // Targets the walk can interleave: single offsets, ascending.
  auto walkable = [](const IndexList& targets) { return targets.all_singles() && targets.sorted; };
  std::size_t lists = 0;
  if (local_writes.count > 0) {
    if (!walkable(local_writes)) return false;
    ++lists;
  }
  for (const RoutedMessage& routed : incoming) {
    const PeerMessage& m = *routed.message;
    if (routed.in_place || !m.blocks.empty() || !walkable(m.indices)) return false;
    ++lists;
  }
  return lists >= 2 && local_reads.count == local_writes.count;
}

// MessageRoute::merges_index_departures()'s rule (the arrivals not merged).
bool merge_index_departures(const TransferPolicy& policy, const RouteMemory& memory,
                            const std::vector<RoutedMessage>& outgoing,
                            const IndexList& local_reads, const IndexList& local_writes) {
  if (!policy.merge_index_walks || !memory.host || !memory.host_loops || memory.staged ||
      !memory.peers_on_node)
    return false;
  auto walkable = [](const IndexList& sources) { return sources.all_singles() && sources.sorted; };
  std::size_t lists = 0;
  if (local_reads.count > 0) {
    if (!walkable(local_reads) || !local_writes.all_singles()) return false;
    ++lists;
  }
  for (const RoutedMessage& routed : outgoing) {
    const PeerMessage& m = *routed.message;
    if (routed.in_place || !m.blocks.empty() || !walkable(m.indices)) return false;
    ++lists;
  }
  return lists >= 2 && local_reads.count == local_writes.count;
}

}  // namespace

MessageRoute::MessageRoute(const BlockMessagePlan& plan, const RouteKind& kind,
                           const TransferPolicy& policy, const RouteMemory& memory)
    : kind_(kind) {
  const bool forward = kind.direction == Direction::forward;
  const auto& arriving = forward ? plan.recv_messages() : plan.send_messages();
  const auto& leaving = forward ? plan.send_messages() : plan.recv_messages();
  incoming_buffer_count_ =
      route_messages(arriving, true, kind, policy, memory, incoming_, any_incoming_in_place_);
  outgoing_buffer_count_ =
      route_messages(leaving, false, kind, policy, memory, outgoing_, any_outgoing_in_place_);
  local_reads_ = forward ? &plan.local_send_blocks() : &plan.local_recv_blocks();
  local_writes_ = forward ? &plan.local_recv_blocks() : &plan.local_send_blocks();
  local_buffer_count_ = plan.local_copies_staged() ? plan.local_count() : 0;
  local_index_reads_ = forward ? &plan.local_index_sends() : &plan.local_index_recvs();
  local_index_writes_ = forward ? &plan.local_index_recvs() : &plan.local_index_sends();
  merges_index_arrivals_ = merge_index_arrivals(kind, policy, memory, incoming_,
                                                *local_index_reads_, *local_index_writes_);
  if (merges_index_arrivals_) {
    merged_local_offset_ = local_buffer_count_;
    local_buffer_count_ += local_index_reads_->count * kind.arrays;
  } else {
    merges_index_departures_ = merge_index_departures(policy, memory, outgoing_,
                                                      *local_index_reads_, *local_index_writes_);
  }

  std::vector<SourceCopy> copies;
  for (const RoutedMessage& routed : outgoing_) {
    if (routed.in_place) continue;
    const PeerMessage& m = *routed.message;
    std::int64_t position = routed.buffer_offset;
    for (const auto& block : m.blocks) {
      StridedBlock dense = detail::dense_like(block);
      dense.offset = position;
      copies.push_back({block, dense, true, m.count});
      position += block.count();
    }
    if (m.indices.count > 0) index_packs_.push_back({&m.indices, position, m.count});
  }
  if (!plan.local_copies_staged())
    for (const auto& c : plan.local_copies())
      copies.push_back(forward ? SourceCopy{c.send_side, c.recv_side, false, 0}
                               : SourceCopy{c.recv_side, c.send_side, false, 0});
  // Group by source shape, at most kMaxSharedSourceCopies per walk, keeping
  // the declaration order.  Only copies that read and write in the same
  // order share a walk (a copy whose target is walked in another order keeps
  // a walk of its own: copy_block then follows the target's order, where
  // sharing the source's order would scatter its writes), and a combining
  // local copy never does (the shared walk only replaces).
  std::unordered_map<std::string, std::size_t> open;  // shape -> walk that can take more
  for (const auto& c : copies) {
    const bool shareable =
        same_walk_order(c.source, c.target) && (c.into_buffer || !kind.combining);
    const std::string shape = shareable ? shape_of(c.source) : std::string();
    auto it = shareable ? open.find(shape) : open.end();
    std::size_t home;
    if (it != open.end() &&
        static_cast<int>(walks_[it->second].copies.size()) < kMaxSharedSourceCopies) {
      home = it->second;
    } else {
      walks_.emplace_back();
      home = walks_.size() - 1;
      if (shareable) open.insert_or_assign(shape, home);
    }
    walks_[home].copies.push_back(c);
    walks_[home].packs = walks_[home].packs || c.into_buffer;
  }
}

}  // namespace adlib::detail
