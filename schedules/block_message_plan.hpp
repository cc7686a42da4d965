// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// BlockMessagePlan: the memory-layout half of a BlockMessSchedule.
///
/// It holds the send and receive requests a schedule was given (blocks of local
/// memory per peer) and, after build(), one message per peer with its blocks in
/// declaration order (that order *is* the message layout, so both ends must
/// declare a peer's blocks in the same element order), the self-blocks turned
/// into local copies, and buffer offsets for the messages that need packing.
/// It is plain data with no MPI and no Kokkos, so it can be built and inspected
/// for simulated process counts in one process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <adlib/runtime/index_list.hpp>
#include <adlib/runtime/strided_block.hpp>

namespace adlib {

/// One message of a built plan: every block exchanged with one peer in one
/// direction, in the order the elements travel.
struct PeerMessage {
  int peer = -1;                     ///< the other rank
  std::vector<StridedBlock> blocks;  ///< fused and normalised after build()
  IndexList indices;                 ///< elements given one by one, after the blocks
  std::int64_t count = 0;            ///< elements (blocks and indices)
  bool direct = false;               ///< one contiguous block: MPI reads/writes user memory
  /// Elements in the blocks (the indices follow them in the message).
  std::int64_t block_count() const { return count - indices.count; }
};

/// A local copy: `send_side` block of the send memory <-> `recv_side` block of
/// the receive memory, equal extents.
struct LocalCopy {
  /// The block read (forward direction).
  StridedBlock send_side;
  /// The block written (forward direction).
  StridedBlock recv_side;
};

/// The rank-local part of a BlockMessSchedule: the blocks declared per peer,
/// turned by build() into one message per peer and direction plus local copies.
/// No communication; usable without MPI for planning and tests.
class BlockMessagePlan {
 public:
  /// A plan of rank `my_rank` out of `process_count`.  Requests (send() and
  /// recv() below) are on the send memory (data leaving in the forward
  /// direction) and on the receive memory (data arriving in the forward
  /// direction); the peer is checked against `process_count`.
  explicit BlockMessagePlan(int my_rank = 0, int process_count = 1)
      : my_rank_(my_rank), process_count_(process_count) {}
  /// `block` of the send memory goes to `peer`.
  void send(int peer, const StridedBlock& block);
  /// `block` of the receive memory comes from `peer`.
  void recv(int peer, const StridedBlock& block);
  /// The elements at `offsets` of the send memory, in that order, go to
  /// `peer`, after its blocks (an index-list message).
  void send_indices(int peer, std::vector<std::int64_t> offsets,
                    std::int64_t min_run = kMinIndexRun);
  /// The elements at `offsets` of the receive memory, in that order, come
  /// from `peer`, after its blocks.
  void recv_indices(int peer, std::vector<std::int64_t> offsets,
                    std::int64_t min_run = kMinIndexRun);

  /// Sorts by peer (stable: the blocks of one peer keep their order), merges
  /// blocks per peer into one message, fuses runs of equally shaped blocks,
  /// separates self-messages into local copies and assigns buffer offsets.
  /// Throws adlib::Error for invalid requests (peer out of range, negative
  /// offsets, self-send and self-receive element counts that differ).  An
  /// invalid send() or recv() is recorded rather than thrown, so that a
  /// collective caller can agree on it at build() (see BlockMessSchedule).
  void build();
  /// The first invalid request, empty if none.
  const std::string& error() const { return error_; }
  /// Has build() run?
  bool built() const { return built_; }

  /// Messages to other ranks, by increasing peer (after build()).
  const std::vector<PeerMessage>& send_messages() const { return sends_; }
  /// Messages from other ranks, by increasing peer (after build()).
  const std::vector<PeerMessage>& recv_messages() const { return recvs_; }
  /// Self-messages paired block by block (after build()).
  const std::vector<LocalCopy>& local_copies() const { return local_copies_; }
  /// When the self-blocks could not be paired block by block (different
  /// splits of the same element sequence), local data goes through a buffer:
  /// these are then the blocks to pack (send side) and unpack (receive side).
  bool local_copies_staged() const { return local_staged_; }
  /// The staged self-blocks of the send side (see local_copies_staged()).
  const std::vector<StridedBlock>& local_send_blocks() const { return self_sends_; }
  /// The staged self-blocks of the receive side (see local_copies_staged()).
  const std::vector<StridedBlock>& local_recv_blocks() const { return self_recvs_; }
  /// Elements copied locally in blocks (self-messages).
  std::int64_t local_count() const { return local_count_; }
  /// Self index lists: the elements of the send memory read (forward) and of
  /// the receive memory written, element k to element k (empty lists if
  /// none).
  const IndexList& local_index_sends() const { return local_index_sends_; }
  /// See local_index_sends().
  const IndexList& local_index_recvs() const { return local_index_recvs_; }
  /// Does any message or local copy use index lists?
  bool has_indices() const { return has_indices_; }

  /// Elements of memory the send side must hold (highest offset touched + 1).
  std::int64_t send_memory_required() const { return send_required_; }
  /// Receive-side counterpart of send_memory_required().
  std::int64_t recv_memory_required() const { return recv_required_; }

  std::int64_t send_count() const;  ///< elements leaving for other ranks (forward)
  std::int64_t recv_count() const;  ///< elements arriving from other ranks (forward)

 private:
  /// Requests are fused as they arrive: a run of equally shaped blocks for
  /// the same peer whose offsets advance by a constant is kept as one base
  /// block repeated `repeat` times, so plans made of many regular tiles
  /// stay small from the start.
  struct Request {
    int peer;
    StridedBlock base;  ///< normalised
    std::int64_t repeat = 1;
    std::int64_t delta = 0;
    StridedBlock materialize() const;
  };
  static void append(std::vector<Request>& requests, int peer, const StridedBlock& block);
  std::vector<Request> send_requests_, recv_requests_;
  /// Self-blocks stay unfused until build(): they are paired block by block.
  std::vector<StridedBlock> self_send_requests_, self_recv_requests_;
  /// Index-list requests, per peer, raw until build().
  struct IndexRequest {
    int peer;
    std::vector<std::int64_t> offsets;
    std::int64_t min_run;
  };
  static std::string index_error(int peer, const std::vector<std::int64_t>& offsets,
                                 int process_count);
  std::vector<IndexRequest> send_index_requests_, recv_index_requests_;
  std::vector<std::int64_t> self_send_offsets_, self_recv_offsets_;
  IndexList local_index_sends_, local_index_recvs_;
  bool has_indices_ = false;
  std::vector<PeerMessage> sends_, recvs_;
  std::vector<LocalCopy> local_copies_;
  std::vector<StridedBlock> self_sends_, self_recvs_;
  bool local_staged_ = false;
  std::int64_t local_count_ = 0;
  std::int64_t send_required_ = 0, recv_required_ = 0;
  int my_rank_ = 0, process_count_ = 1;
  std::string error_;
  bool built_ = false;
};

/// Fuses consecutive blocks of equal shape whose offsets advance by a constant
/// into one block with an extra outer dimension, then normalises.  The element
/// sequence is unchanged.
std::vector<StridedBlock> fuse_blocks(const std::vector<StridedBlock>& blocks);

}  // namespace adlib
