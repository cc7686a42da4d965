#include "schedules/block_message_plan.hpp"

#include <algorithm>
#include <climits>

#include "runtime/error.hpp"

namespace adlib {

namespace {

constexpr const char* kOperation = "BlockMessSchedule";

void check_request(int peer, const StridedBlock& block, int process_count) {
  if (peer < 0 || peer >= process_count)
    throw Error("peer " + std::to_string(peer) + " is outside the communicator of " +
                    std::to_string(process_count) + " ranks",
                world_rank_or_unknown(), kOperation);
  if (block.rank < 0 || block.rank > kMaxBlockRank)
    throw Error("block rank " + std::to_string(block.rank) + " is out of range",
                world_rank_or_unknown(), kOperation);
  for (int d = 0; d < block.rank; ++d)
    if (block.extents[d] < 0)
      throw Error("negative extent in block " + block.to_string(), world_rank_or_unknown(),
                  kOperation);
  if (block.count() > 0 && block.lowest_offset() < 0)
    throw Error("block " + block.to_string() + " reaches below the start of local memory",
                world_rank_or_unknown(), kOperation);
}

std::int64_t required_memory(const std::vector<StridedBlock>& blocks) {
  std::int64_t required = 0;
  for (const auto& b : blocks)
    if (b.count() > 0) required = std::max(required, b.highest_offset() + 1);
  return required;
}

// Both blocks of a local copy must drop and fuse the same dimensions, so they
// are normalised together.
LocalCopy normalize_pair(const LocalCopy& pair) {
  const StridedBlock &s = pair.send_side, &r = pair.recv_side;
  LocalCopy out;
  out.send_side.offset = s.offset;
  out.recv_side.offset = r.offset;
  int n = 0;
  for (int d = 0; d < s.rank; ++d) {
    if (s.extents[d] == 1) continue;
    if (n > 0 && out.send_side.strides[n - 1] == s.strides[d] * s.extents[d] &&
        out.recv_side.strides[n - 1] == r.strides[d] * r.extents[d]) {
      out.send_side.extents[n - 1] *= s.extents[d];
      out.recv_side.extents[n - 1] *= r.extents[d];
      out.send_side.strides[n - 1] = s.strides[d];
      out.recv_side.strides[n - 1] = r.strides[d];
      continue;
    }
    out.send_side.extents[n] = s.extents[d];
    out.recv_side.extents[n] = r.extents[d];
    out.send_side.strides[n] = s.strides[d];
    out.recv_side.strides[n] = r.strides[d];
    ++n;
  }
  out.send_side.rank = out.recv_side.rank = n;
  return out;
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

std::vector<PeerMessage> merge_by_peer(std::vector<std::pair<int, StridedBlock>> requests) {
  std::stable_sort(requests.begin(), requests.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<PeerMessage> messages;
  for (const auto& [peer, block] : requests) {
    if (block.count() == 0) continue;
    if (messages.empty() || messages.back().peer != peer) {
      PeerMessage m;
      m.peer = peer;
      messages.push_back(std::move(m));
    }
    messages.back().blocks.push_back(block);
    messages.back().count += block.count();
  }
  std::int64_t offset = 0, staging_offset = 0;
  for (auto& m : messages) {
    m.staging_offset = staging_offset;
    staging_offset += m.count;
    m.blocks = fuse_blocks(m.blocks);
    m.direct = m.blocks.size() == 1 && m.blocks[0].contiguous();
    if (m.count > INT_MAX)
      throw Error("a message to or from rank " + std::to_string(m.peer) + " holds " +
                      std::to_string(m.count) + " elements, more than an MPI count can express",
                  world_rank_or_unknown(), kOperation);
    if (!m.direct) {
      m.buffer_offset = offset;
      offset += m.count;
    }
  }
  return messages;
}

std::int64_t buffer_count(const std::vector<PeerMessage>& messages) {
  std::int64_t n = 0;
  for (const auto& m : messages)
    if (!m.direct) n += m.count;
  return n;
}

}  // namespace

std::vector<StridedBlock> fuse_blocks(const std::vector<StridedBlock>& blocks) {
  std::vector<StridedBlock> normal;
  normal.reserve(blocks.size());
  for (const auto& b : blocks)
    if (b.count() > 0) normal.push_back(b.normalized());
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

void BlockMessagePlan::send(int peer, const StridedBlock& block) {
  if (built_) throw Error("send() after build()", world_rank_or_unknown(), kOperation);
  send_requests_.push_back({peer, block});
}

void BlockMessagePlan::recv(int peer, const StridedBlock& block) {
  if (built_) throw Error("recv() after build()", world_rank_or_unknown(), kOperation);
  recv_requests_.push_back({peer, block});
}

void BlockMessagePlan::build(int my_rank, int process_count) {
  if (built_) throw Error("build() called twice", world_rank_or_unknown(), kOperation);
  std::vector<std::pair<int, StridedBlock>> remote_sends, remote_recvs;
  std::vector<StridedBlock> all_sends, all_recvs;
  for (const auto& r : send_requests_) {
    check_request(r.peer, r.block, process_count);
    all_sends.push_back(r.block);
    if (r.block.count() == 0) continue;
    if (r.peer == my_rank)
      self_sends_.push_back(r.block);
    else
      remote_sends.emplace_back(r.peer, r.block);
  }
  for (const auto& r : recv_requests_) {
    check_request(r.peer, r.block, process_count);
    all_recvs.push_back(r.block);
    if (r.block.count() == 0) continue;
    if (r.peer == my_rank)
      self_recvs_.push_back(r.block);
    else
      remote_recvs.emplace_back(r.peer, r.block);
  }
  send_required_ = required_memory(all_sends);
  recv_required_ = required_memory(all_recvs);

  std::int64_t self_send_count = 0, self_recv_count = 0;
  for (const auto& b : self_sends_) self_send_count += b.count();
  for (const auto& b : self_recvs_) self_recv_count += b.count();
  if (self_send_count != self_recv_count)
    throw Error("blocks sent to self hold " + std::to_string(self_send_count) +
                    " elements but blocks received from self hold " +
                    std::to_string(self_recv_count),
                world_rank_or_unknown(), kOperation);
  local_count_ = self_send_count;

  sends_ = merge_by_peer(std::move(remote_sends));
  recvs_ = merge_by_peer(std::move(remote_recvs));
  send_buffer_count_ = buffer_count(sends_);
  recv_buffer_count_ = buffer_count(recvs_);

  // Pair self-blocks one to one when their extents agree (the usual case:
  // both sides were enumerated from the same pieces); otherwise stage.
  local_staged_ = self_sends_.size() != self_recvs_.size();
  for (size_t i = 0; !local_staged_ && i < self_sends_.size(); ++i)
    local_staged_ = !same_extents(self_sends_[i], self_recvs_[i]);
  if (local_staged_) {
    self_sends_ = fuse_blocks(self_sends_);
    self_recvs_ = fuse_blocks(self_recvs_);
  } else {
    std::vector<LocalCopy> pairs;
    for (size_t i = 0; i < self_sends_.size(); ++i)
      pairs.push_back(normalize_pair({self_sends_[i], self_recvs_[i]}));
    local_copies_ = fuse_pairs(pairs);
    self_sends_.clear();
    self_recvs_.clear();
  }
  send_requests_.clear();
  send_requests_.shrink_to_fit();
  recv_requests_.clear();
  recv_requests_.shrink_to_fit();
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
