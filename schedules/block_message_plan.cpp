// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/schedules/block_message_plan.hpp>

#include <algorithm>
#include <climits>
#include <utility>

#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {

constexpr const char* kOperation = "BlockMessSchedule";

// Empty when the request is valid, else why not.
std::string request_error(int peer, const StridedBlock& block, int process_count) {
  if (peer < 0 || peer >= process_count)
    return "peer " + std::to_string(peer) + " is outside the communicator of " +
           std::to_string(process_count) + " ranks";
  if (block.rank < 0 || block.rank > kMaxBlockRank)
    return "block rank " + std::to_string(block.rank) + " is out of range";
  for (int d = 0; d < block.rank; ++d)
    if (block.extents[d] < 0) return "negative extent in block " + block.to_string();
  if (block.count() > 0 && block.lowest_offset() < 0)
    return "block " + block.to_string() + " reaches below the start of local memory";
  return {};
}

LocalCopy normalize_pair(LocalCopy pair) {
  normalize_together(pair.send_side, pair.recv_side);
  return pair;
}

// Pairs with equal shapes whose offsets advance by constants on both sides
// become one pair with an outer dimension.
std::vector<LocalCopy> fuse_pairs(const std::vector<LocalCopy>& pairs) {
  std::vector<LocalCopy> out;
  size_t i = 0;
  while (i < pairs.size()) {
    const LocalCopy& first = pairs[i];
    size_t j = i + 1;
    std::int64_t send_delta = 0, recv_delta = 0;
    if (j < pairs.size() && first.send_side.rank < kMaxBlockRank) {
      send_delta = pairs[j].send_side.offset - first.send_side.offset;
      recv_delta = pairs[j].recv_side.offset - first.recv_side.offset;
      while (j < pairs.size() && same_shape(pairs[j].send_side, first.send_side) &&
             same_shape(pairs[j].recv_side, first.recv_side) &&
             pairs[j].send_side.offset - pairs[j - 1].send_side.offset == send_delta &&
             pairs[j].recv_side.offset - pairs[j - 1].recv_side.offset == recv_delta)
        ++j;
    }
    if (j - i > 1) {
      const auto extent = static_cast<std::int64_t>(j - i);
      out.push_back(normalize_pair({first.send_side.with_outer_dimension(extent, send_delta),
                                    first.recv_side.with_outer_dimension(extent, recv_delta)}));
    } else {
      out.push_back(first);
    }
    i = j;
  }
  return out;
}

// Requests must be sorted by peer (stable); each becomes a block of its
// peer's message, then blocks are fused further.
template <class Requests>
std::vector<PeerMessage> merge_by_peer(const Requests& requests) {
  std::vector<PeerMessage> messages;
  for (const auto& r : requests) {
    StridedBlock block = r.materialize();
    if (messages.empty() || messages.back().peer != r.peer) {
      PeerMessage m;
      m.peer = r.peer;
      messages.push_back(std::move(m));
    }
    messages.back().count += block.count();
    messages.back().blocks.push_back(block);
  }
  for (auto& m : messages) m.blocks = fuse_blocks(m.blocks);
  return messages;
}

// Index requests sorted by peer (stable) join their peer's message (made if
// the peer has no blocks), after its blocks: one IndexList per message.
template <class IndexRequests>
void attach_indices(std::vector<PeerMessage>& messages, IndexRequests& requests) {
  std::vector<PeerMessage> merged;
  merged.reserve(messages.size() + requests.size());
  std::size_t b = 0, i = 0;
  while (b < messages.size() || i < requests.size()) {
    const int peer =
        b < messages.size() && (i == requests.size() || messages[b].peer <= requests[i].peer)
            ? messages[b].peer
            : requests[i].peer;
    PeerMessage m;
    if (b < messages.size() && messages[b].peer == peer) m = std::move(messages[b++]);
    m.peer = peer;
    // One list for the peer (the common case) is used as it is; several are
    // concatenated first.
    std::vector<std::int64_t> offsets;
    std::int64_t min_run = kMinIndexRun;
    if (i < requests.size() && requests[i].peer == peer &&
        (i + 1 == requests.size() || requests[i + 1].peer != peer)) {
      min_run = requests[i].min_run;
      offsets = std::move(requests[i++].offsets);
    } else {
      for (; i < requests.size() && requests[i].peer == peer; ++i) {
        min_run = std::min(min_run, requests[i].min_run);
        offsets.insert(offsets.end(), requests[i].offsets.begin(), requests[i].offsets.end());
      }
    }
    if (!offsets.empty()) {
      m.indices = IndexList::from(std::move(offsets), min_run);
      m.count += m.indices.count;
    }
    merged.push_back(std::move(m));
  }
  messages = std::move(merged);
}

// Which messages MPI may use in place (one contiguous block); every message
// must fit an MPI count.  Where the others sit in the pack buffers is each
// route's business (message_route.hpp).
void mark_direct(std::vector<PeerMessage>& messages) {
  for (auto& m : messages) {
    m.direct = m.indices.count == 0 && m.blocks.size() == 1 && m.blocks[0].contiguous();
    if (m.count > INT_MAX)
      throw Error("a message to or from rank " + std::to_string(m.peer) + " holds " +
                      std::to_string(m.count) + " elements, more than an MPI count can express",
                  world_rank_or_unknown(), kOperation);
  }
}

}  // namespace

namespace {

// One pass: runs of equally shaped blocks with a constant offset step become
// one block with an extra outer dimension.
std::vector<StridedBlock> fuse_pass(const std::vector<StridedBlock>& normal) {
  std::vector<StridedBlock> out;
  size_t i = 0;
  while (i < normal.size()) {
    size_t j = i + 1;
    std::int64_t delta = 0;
    if (j < normal.size() && normal[i].rank < kMaxBlockRank) {
      delta = normal[j].offset - normal[i].offset;
      while (j < normal.size() && same_shape(normal[j], normal[i]) &&
             normal[j].offset - normal[j - 1].offset == delta)
        ++j;
    }
    if (j - i > 1)
      out.push_back(
          normal[i].with_outer_dimension(static_cast<std::int64_t>(j - i), delta).normalized());
    else
      out.push_back(normal[i]);
    i = j;
  }
  return out;
}

}  // namespace

std::vector<StridedBlock> fuse_blocks(const std::vector<StridedBlock>& blocks) {
  std::vector<StridedBlock> normal;
  normal.reserve(blocks.size());
  for (const auto& b : blocks)
    if (b.count() > 0) normal.push_back(b.normalized());
  // Each pass can enable the next (tiles fuse into rows of tiles, rows of
  // tiles into planes); stop when nothing fuses any more.
  while (normal.size() > 1) {
    std::vector<StridedBlock> fused = fuse_pass(normal);
    if (fused.size() == normal.size()) break;
    normal = std::move(fused);
  }
  return normal;
}

StridedBlock BlockMessagePlan::Request::materialize() const {
  return repeat > 1 ? base.with_outer_dimension(repeat, delta).normalized() : base;
}

void BlockMessagePlan::append(std::vector<Request>& requests, int peer, const StridedBlock& block) {
  const StridedBlock b = block.normalized();
  if (!requests.empty()) {
    Request& last = requests.back();
    if (last.peer == peer && last.base.rank < kMaxBlockRank && same_shape(last.base, b)) {
      const std::int64_t step = b.offset - last.base.offset;
      if (last.repeat == 1 && step != 0) {
        last.delta = step;
        last.repeat = 2;
        return;
      }
      if (last.repeat > 1 && step == last.repeat * last.delta) {
        ++last.repeat;
        return;
      }
    }
  }
  requests.push_back(Request{peer, b, 1, 0});
}

void BlockMessagePlan::send(int peer, const StridedBlock& block) {
  if (built_) throw Error("send() after build()", world_rank_or_unknown(), kOperation);
  if (!error_.empty()) return;
  error_ = request_error(peer, block, process_count_);
  if (!error_.empty()) return;
  if (block.count() == 0) return;
  send_required_ = std::max(send_required_, block.highest_offset() + 1);
  if (peer == my_rank_)
    self_send_requests_.push_back(block);
  else
    append(send_requests_, peer, block);
}

void BlockMessagePlan::recv(int peer, const StridedBlock& block) {
  if (built_) throw Error("recv() after build()", world_rank_or_unknown(), kOperation);
  if (!error_.empty()) return;
  error_ = request_error(peer, block, process_count_);
  if (!error_.empty()) return;
  if (block.count() == 0) return;
  recv_required_ = std::max(recv_required_, block.highest_offset() + 1);
  if (peer == my_rank_)
    self_recv_requests_.push_back(block);
  else
    append(recv_requests_, peer, block);
}

std::string BlockMessagePlan::index_error(int peer, const std::vector<std::int64_t>& offsets,
                                          int process_count) {
  if (peer < 0 || peer >= process_count)
    return "peer " + std::to_string(peer) + " is outside the communicator of " +
           std::to_string(process_count) + " ranks";
  for (std::int64_t o : offsets)
    if (o < 0) return "index list with offset " + std::to_string(o) + ", below local memory";
  return {};
}

void BlockMessagePlan::send_indices(int peer, std::vector<std::int64_t> offsets,
                                    std::int64_t min_run) {
  if (built_) throw Error("send_indices() after build()", world_rank_or_unknown(), kOperation);
  if (!error_.empty()) return;
  error_ = index_error(peer, offsets, process_count_);
  if (!error_.empty() || offsets.empty()) return;
  has_indices_ = true;
  send_required_ = std::max(send_required_, *std::max_element(offsets.begin(), offsets.end()) + 1);
  if (peer != my_rank_)
    send_index_requests_.push_back({peer, std::move(offsets), min_run});
  else if (self_send_offsets_.empty())
    self_send_offsets_ = std::move(offsets);
  else
    self_send_offsets_.insert(self_send_offsets_.end(), offsets.begin(), offsets.end());
}

void BlockMessagePlan::recv_indices(int peer, std::vector<std::int64_t> offsets,
                                    std::int64_t min_run) {
  if (built_) throw Error("recv_indices() after build()", world_rank_or_unknown(), kOperation);
  if (!error_.empty()) return;
  error_ = index_error(peer, offsets, process_count_);
  if (!error_.empty() || offsets.empty()) return;
  has_indices_ = true;
  recv_required_ = std::max(recv_required_, *std::max_element(offsets.begin(), offsets.end()) + 1);
  if (peer != my_rank_)
    recv_index_requests_.push_back({peer, std::move(offsets), min_run});
  else if (self_recv_offsets_.empty())
    self_recv_offsets_ = std::move(offsets);
  else
    self_recv_offsets_.insert(self_recv_offsets_.end(), offsets.begin(), offsets.end());
}

void BlockMessagePlan::build() {
  if (built_) throw Error("build() called twice", world_rank_or_unknown(), kOperation);
  if (!error_.empty()) throw Error(error_, world_rank_or_unknown(), kOperation);
  std::int64_t self_send_count = 0, self_recv_count = 0;
  for (const auto& b : self_send_requests_) self_send_count += b.count();
  for (const auto& b : self_recv_requests_) self_recv_count += b.count();
  if (self_send_count != self_recv_count)
    throw Error("blocks sent to self hold " + std::to_string(self_send_count) +
                    " elements but blocks received from self hold " +
                    std::to_string(self_recv_count),
                world_rank_or_unknown(), kOperation);
  local_count_ = self_send_count;
  if (self_send_offsets_.size() != self_recv_offsets_.size())
    throw Error("index lists sent to self hold " + std::to_string(self_send_offsets_.size()) +
                    " elements but index lists received from self hold " +
                    std::to_string(self_recv_offsets_.size()),
                world_rank_or_unknown(), kOperation);

  // Collectives declare one peer after another, so this is usually sorted
  // already; a stable sort keeps each peer's blocks in declaration order.
  auto by_peer = [](const Request& a, const Request& b) { return a.peer < b.peer; };
  for (auto* requests : {&send_requests_, &recv_requests_})
    if (!std::is_sorted(requests->begin(), requests->end(), by_peer))
      std::stable_sort(requests->begin(), requests->end(), by_peer);
  auto index_by_peer = [](const IndexRequest& a, const IndexRequest& b) { return a.peer < b.peer; };
  for (auto* requests : {&send_index_requests_, &recv_index_requests_})
    if (!std::is_sorted(requests->begin(), requests->end(), index_by_peer))
      std::stable_sort(requests->begin(), requests->end(), index_by_peer);
  sends_ = merge_by_peer(send_requests_);
  recvs_ = merge_by_peer(recv_requests_);
  attach_indices(sends_, send_index_requests_);
  attach_indices(recvs_, recv_index_requests_);
  mark_direct(sends_);
  mark_direct(recvs_);
  local_index_sends_ = IndexList::from(std::move(self_send_offsets_));
  local_index_recvs_ = IndexList::from(std::move(self_recv_offsets_));

  // Pair self-blocks one to one when their extents agree (the usual case:
  // both sides were enumerated from the same pieces); otherwise stage.
  auto& self_sends = self_send_requests_;
  auto& self_recvs = self_recv_requests_;
  local_staged_ = self_sends.size() != self_recvs.size();
  for (size_t i = 0; !local_staged_ && i < self_sends.size(); ++i)
    local_staged_ = !same_extents(self_sends[i], self_recvs[i]);
  if (local_staged_) {
    self_sends_ = fuse_blocks(self_sends);
    self_recvs_ = fuse_blocks(self_recvs);
  } else {
    std::vector<LocalCopy> pairs;
    pairs.reserve(self_sends.size());
    for (size_t i = 0; i < self_sends.size(); ++i)
      pairs.push_back(normalize_pair({self_sends[i], self_recvs[i]}));
    // Fuse to a fixed point, as for messages.
    while (pairs.size() > 1) {
      std::vector<LocalCopy> fused = fuse_pairs(pairs);
      if (fused.size() == pairs.size()) break;
      pairs = std::move(fused);
    }
    local_copies_ = std::move(pairs);
  }
  for (auto* v : {&send_requests_, &recv_requests_}) std::vector<Request>().swap(*v);
  for (auto* v : {&send_index_requests_, &recv_index_requests_})
    std::vector<IndexRequest>().swap(*v);
  for (auto* v : {&self_send_offsets_, &self_recv_offsets_}) std::vector<std::int64_t>().swap(*v);
  for (auto* v : {&self_send_requests_, &self_recv_requests_}) std::vector<StridedBlock>().swap(*v);
  built_ = true;
}

std::int64_t BlockMessagePlan::send_count() const {
  std::int64_t n = 0;
  for (const auto& m : sends_) n += m.count;
  return n;
}

std::int64_t BlockMessagePlan::recv_count() const {
  std::int64_t n = 0;
  for (const auto& m : recvs_) n += m.count;
  return n;
}

}  // namespace adlib
