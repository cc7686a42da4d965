// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The plan of a remote-access schedule on blocks (Adlib's
/// BlockDataSchedule): each rank lists strided blocks it wants to read from,
/// or combine into, other ranks' memory, and only it knows that list.  The
/// owners learn it at build time through one sparse exchange
/// (runtime/sparse_exchange.hpp: non-blocking consensus, nothing of size P on
/// any rank), exactly as DataSchedule's owners learn element requests
/// (schedules/data_plan.hpp).
///
/// A request names the owner, a StridedBlock in the owner's local memory and
/// a StridedBlock of as many elements in the requester's local memory; the
/// k-th element of one (in StridedBlock's C order) pairs with the k-th of the
/// other, so the two blocks may have different shapes.
///
///  1. plan_block_requests (pure): the requests grouped by owner (ascending),
///     request order within an owner; one message per owner carrying the
///     owner-side blocks as int64 words (block_words), and the requester's
///     receive blocks (ExchangePlan::recvs);
///  2. negotiate_block_data_plan (collective): the messages go to the owners,
///     and each owner declares what it received as send blocks
///     (ExchangePlan::sends) to the requester, in the order received.
///
/// The plan is in the read direction (owners send, requesters receive); a
/// write runs it backwards, so every request travels and the owner combines
/// each contribution into its block, the requester's request order kept.
/// Unlike DataSchedule, a read does not look for repeated requests: blocks
/// rarely repeat, and finding partial overlaps would cost more than sending.
///
/// Cost: O(n) time in the n requests (a counting sort by owner), memory
/// proportional to the requests this rank makes and receives; nothing
/// depends on the number of ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/runtime/strided_block.hpp>
#include <adlib/schedules/data_plan.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// One block requested: who owns it, where it lives there, and where it
/// lives (or goes) here.
struct BlockRequest {
  int owner = -1;            ///< the owning rank of the communicator
  StridedBlock owner_block;  ///< elements in the owner's local memory
  StridedBlock local_block;  ///< as many elements in the requester's local memory
};

/// The requester's half of a block plan, before the exchange.
struct BlockDataRequests {
  /// One per owner, ascending owner: the owner-side blocks as words
  /// (block_words), request order.
  std::vector<SparseMessage<std::int64_t>> to_owners;
  /// recvs: the local blocks, grouped like to_owners (ascending owner,
  /// request order within one owner).
  ExchangePlan plan;
};

/// Empty when every request names an owner in [0, comm_size), two valid
/// blocks (rank 0 to kMaxBlockRank, no negative extent, no element below
/// offset 0) and equal element counts; else the reason, naming the first bad
/// request.
std::string check_block_requests(const std::vector<BlockRequest>& requests, int comm_size);

/// The requester's half (see the file overview), for valid requests.
/// Requests of no element are dropped: they send nothing, not even at
/// build time.
BlockDataRequests plan_block_requests(const std::vector<BlockRequest>& requests);

/// The owner's half: every block of every received message (sender, words)
/// becomes exchange.sends entry {sender, block}, in the order received.
/// Throws adlib::Error for words that are not a sequence of blocks.
void add_block_owner_side(ExchangePlan& exchange,
                          const std::vector<SparseMessage<std::int64_t>>& received);

/// Collective over `comm`: this rank's whole plan, with one agreement (inside
/// the sparse exchange, one MPI_Allreduce) on check_block_requests, on
/// `access`, on `caller_error` and on `caller_fingerprint`, so bad input on
/// any rank throws the same adlib::Error on every rank before any message is
/// posted.  `statistics`, when given, receives the exchange's costs.
ExchangePlan negotiate_block_data_plan(const Comm& comm, const std::vector<BlockRequest>& requests,
                                       RemoteAccess access, const char* operation,
                                       const std::string& caller_error = {},
                                       std::uint64_t caller_fingerprint = 0,
                                       SparseExchangeStatistics* statistics = nullptr);

/// The words a block travels as: offset, rank, the extents, the strides
/// (2 + 2 rank words).
void append_block_words(std::vector<std::int64_t>& words, const StridedBlock& block);

/// The block that starts at words[position], advancing `position` past it.
/// Throws adlib::Error when the words end early or name an invalid rank.
StridedBlock read_block_words(const std::vector<std::int64_t>& words, std::size_t& position);

}  // namespace adlib
