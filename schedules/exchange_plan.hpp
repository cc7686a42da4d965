// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// ExchangePlan: the one currency between planners and the executor.
///
/// Every planner (Remap, Shift, WriteHalo and the rest of collectives/)
/// describes what one rank sends and receives as a list of (peer, block of
/// local memory) pairs; the executor (BlockMessSchedule) consumes that list,
/// merges it into one message per peer and runs it.  The order of a peer's
/// entries is the element order of its message, so both ends of a message
/// list their blocks in the same element order (their extents may split
/// differently).  Plain data, no MPI: planners are tested for simulated
/// process counts in one process.
#pragma once

#include <cstdint>
#include <vector>

#include <adlib/runtime/index_list.hpp>
#include <adlib/runtime/strided_block.hpp>

namespace adlib {

/// One entry of an ExchangePlan: a strided block of local memory and the
/// rank at the other end.
struct PeerBlock {
  int peer = -1;       ///< the receiver (in sends) or the sender (in recvs)
  StridedBlock block;  ///< the elements, in local memory
};

/// One entry of an ExchangePlan given element by element (Adlib's
/// MessSchedule, messages of words): element offsets of local memory, in the
/// order the elements travel, and the rank at the other end.  Offsets may
/// repeat (a gather that reads one element twice; a scatter whose
/// contributions combine into one target).
struct PeerIndices {
  int peer = -1;                      ///< the receiver (in sends) or the sender (in recvs)
  std::vector<std::int64_t> offsets;  ///< element offsets in local memory, message order
  /// Runs of at least this many consecutive offsets travel as rows
  /// (IndexList::from): lower it for elements that come in short units,
  /// such as columns of a few values, so each unit is one row.
  std::int64_t min_run = kMinIndexRun;
};

/// One rank's part of a communication pattern: the blocks and index lists it
/// sends (of the send memory, `src` in the forward direction) and receives (of
/// the receive memory, `dst`).  A peer's message carries its blocks first, in
/// list order, then its index lists, in list order: both ends of a message
/// list them so that the element sequences match.
struct ExchangePlan {
  std::vector<PeerBlock> sends;           ///< blocks of the send memory, per receiver
  std::vector<PeerBlock> recvs;           ///< blocks of the receive memory, per sender
  std::vector<PeerIndices> send_indices;  ///< index lists of the send memory, per receiver
  std::vector<PeerIndices> recv_indices;  ///< index lists of the receive memory, per sender

  /// Appends `other`'s entries after this plan's (a pattern made of several
  /// planned pieces, such as the sections of a Shift).
  void append(const ExchangePlan& other) {
    sends.insert(sends.end(), other.sends.begin(), other.sends.end());
    recvs.insert(recvs.end(), other.recvs.begin(), other.recvs.end());
    send_indices.insert(send_indices.end(), other.send_indices.begin(), other.send_indices.end());
    recv_indices.insert(recv_indices.end(), other.recv_indices.begin(), other.recv_indices.end());
  }
};

}  // namespace adlib
