// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/schedules/block_data_plan.hpp>

#include <algorithm>
#include <utility>

#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/owner_groups.hpp>

namespace adlib {

namespace {

// Empty when `block` is one a BlockMessSchedule accepts, else why not.
std::string block_error(const StridedBlock& block) {
  if (block.rank < 0 || block.rank > kMaxBlockRank)
    return "block rank " + std::to_string(block.rank) + " is outside [0, " +
           std::to_string(kMaxBlockRank) + "]";
  for (int d = 0; d < block.rank; ++d)
    if (block.extents[d] < 0) return "block " + block.to_string() + " has a negative extent";
  if (block.count() > 0 && block.lowest_offset() < 0)
    return "block " + block.to_string() + " reaches below the start of local memory";
  return {};
}

// Tells BlockDataSchedule's negotiation from DataSchedule's: both send
// int64 words, so without it a rank of one and a rank of the other would agree.
constexpr std::uint64_t kBlockPlanSalt = 0x426c6f636b4461ull;  // "BlockDa"

}  // namespace

std::string check_block_requests(const std::vector<BlockRequest>& requests, int comm_size) {
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const BlockRequest& r = requests[k];
    const std::string request = "block request " + std::to_string(k);
    if (r.owner < 0 || r.owner >= comm_size)
      return request + " names owner " + std::to_string(r.owner) + ", outside [0, " +
             std::to_string(comm_size) + ")";
    std::string error = block_error(r.owner_block);
    if (!error.empty()) return request + ": owner " + error;
    error = block_error(r.local_block);
    if (!error.empty()) return request + ": local " + error;
    if (r.owner_block.count() != r.local_block.count())
      return request + " pairs " + std::to_string(r.owner_block.count()) +
             " elements of the owner with " + std::to_string(r.local_block.count()) +
             " local elements";
  }
  return {};
}

BlockDataRequests plan_block_requests(const std::vector<BlockRequest>& requests) {
  // 1. Count the requests (those of no element dropped) per owner
  // (runtime/owner_groups.hpp).
  OwnerGroups groups;
  for (const BlockRequest& r : requests)
    if (r.local_block.count() > 0) groups.count(r.owner);
  groups.close_counting();
  const std::size_t kept = groups.total();

  // 2. Group them (a stable counting sort: request order within an owner).
  std::vector<std::size_t> grouped(kept);
  for (std::size_t k = 0; k < requests.size(); ++k)
    if (requests[k].local_block.count() > 0) grouped[groups.place(requests[k].owner)] = k;

  // 3. One message per owner, in ascending owner order.
  const std::vector<std::size_t> order = groups.by_ascending_owner();
  BlockDataRequests out;
  out.to_owners.reserve(order.size());
  out.plan.recvs.reserve(kept);
  for (const std::size_t g : order) {
    SparseMessage<std::int64_t> message{groups.owner(g), {}};
    std::size_t words = 0;
    for (std::size_t i = groups.begin(g); i < groups.end(g); ++i)
      words += 2 + 2 * static_cast<std::size_t>(requests[grouped[i]].owner_block.normalized().rank);
    message.values.reserve(words);
    for (std::size_t i = groups.begin(g); i < groups.end(g); ++i) {
      const BlockRequest& r = requests[grouped[i]];
      // Normalised: fewer words, the same elements in the same order.
      append_block_words(message.values, r.owner_block.normalized());
      out.plan.recvs.push_back({r.owner, r.local_block});
    }
    out.to_owners.push_back(std::move(message));
  }
  return out;
}

void add_block_owner_side(ExchangePlan& exchange,
                          const std::vector<SparseMessage<std::int64_t>>& received) {
  for (const SparseMessage<std::int64_t>& m : received) {
    std::size_t position = 0;
    while (position < m.values.size())
      exchange.sends.push_back({m.peer, read_block_words(m.values, position)});
  }
}

ExchangePlan negotiate_block_data_plan(const Comm& comm, const std::vector<BlockRequest>& requests,
                                       RemoteAccess access, const char* operation,
                                       const std::string& caller_error,
                                       std::uint64_t caller_fingerprint,
                                       SparseExchangeStatistics* statistics) {
  std::string error = caller_error;
  if (error.empty()) error = check_block_requests(requests, comm.size());
  // A rank with bad input sends nothing; the exchange's agreement makes
  // every rank throw before any message is posted.
  BlockDataRequests planned;
  if (error.empty()) planned = plan_block_requests(requests);
  std::uint64_t fingerprint = detail::hash_mix(caller_fingerprint, kBlockPlanSalt);
  fingerprint = detail::hash_mix(fingerprint, static_cast<std::uint64_t>(access) + 1);
  add_block_owner_side(planned.plan, exchange_sparse(comm, std::move(planned.to_owners), operation,
                                                     statistics, error, fingerprint));
  return std::move(planned.plan);
}

void append_block_words(std::vector<std::int64_t>& words, const StridedBlock& block) {
  words.push_back(block.offset);
  words.push_back(block.rank);
  for (int d = 0; d < block.rank; ++d) words.push_back(block.extents[d]);
  for (int d = 0; d < block.rank; ++d) words.push_back(block.strides[d]);
}

StridedBlock read_block_words(const std::vector<std::int64_t>& words, std::size_t& position) {
  const auto malformed = [&](const std::string& why) {
    return Error(
        "a block request message is malformed at word " + std::to_string(position) + ": " + why,
        world_rank_or_unknown(), "BlockDataSchedule");
  };
  if (words.size() - position < 2) throw malformed("it ends inside a block");
  StridedBlock block;
  block.offset = words[position];
  const std::int64_t rank = words[position + 1];
  if (rank < 0 || rank > kMaxBlockRank) throw malformed("block rank " + std::to_string(rank));
  block.rank = static_cast<int>(rank);
  if (words.size() - position - 2 < 2 * static_cast<std::size_t>(rank))
    throw malformed("it ends inside a block");
  const std::int64_t* extents = words.data() + position + 2;
  for (int d = 0; d < block.rank; ++d) {
    block.extents[d] = extents[d];
    block.strides[d] = extents[block.rank + d];
  }
  position += 2 + 2 * static_cast<std::size_t>(rank);
  return block;
}

}  // namespace adlib
