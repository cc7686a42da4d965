// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// How a message between host memories travels: packed into a contiguous
/// buffer by adlib's copy kernels, or described to MPI as a derived datatype
/// over the user's memory (MPI's datatype engine then reads or writes the
/// elements itself, with no buffer and no separate pack or unpack pass).
///
/// Packing wins for short messages, long contiguous rows (one memcpy per
/// row, fused with the local copies that read the same rows) and dense
/// strided data; the datatype wins for long messages of scattered short
/// rows, such as the column halos of a row-major array (Open MPI 4.1, a
/// column of 8192 doubles each way: 245 us packed, 194 us as a datatype; 512
/// doubles: 4.0 vs 4.9 us; docs/block_mess_schedule.md has the table).  Each
/// end of a message chooses on its own: the type signatures agree.
///
/// @verbatim
///   automatic  the datatype for a message of at least `datatype_min_bytes`
///              whose rows are all shorter than a cache line and at least a
///              page apart, at a pitch that is not a multiple of 2 KiB (the
///              column halo of a wide row-major array: packing it costs a
///              TLB miss per element); anything denser packs at memory speed
///              and stays packed, except that a message whose rows are all
///              a cache line or longer travels as a datatype when it has
///              at most `dense_datatype_max_bytes` (0 by default; where
///              Open MPI's single copy makes a packed message of tens of
///              KiB slower than its datatype engine, scripts/tune raises it)
///   pack       every message that is not one contiguous block is packed
///   datatype   every message that is not one contiguous block uses a datatype
/// @endverbatim
///
/// The default comes from the schedule's Configuration (runtime/
/// configuration.hpp), itself from the environment unless given:
/// `ADLIB_TRANSFER=auto|pack|datatype`, `ADLIB_DATATYPE_MIN_BYTES=<bytes>`
/// (default 16384) and `ADLIB_DENSE_DATATYPE_MAX_BYTES=<bytes>` (default 0).  Memory that the host
/// cannot address (device memory) is always packed.
#pragma once

#include <cstddef>
#include <cstdint>

#include <adlib/runtime/configuration.hpp>
#include <adlib/schedules/block_message_plan.hpp>

namespace adlib {

/// The part of a Configuration that chooses how host messages travel (see the
/// file overview).
struct TransferPolicy {
  // The defaults are Configuration's: a policy given to set_transfer() with
  // only a method keeps the configuration's other built-in choices.
  TransferMethod method = Configuration::kDefaultTransfer;  ///< automatic, pack or datatype
  /// The automatic rule's size threshold.
  std::int64_t datatype_min_bytes = Configuration::kDefaultDatatypeMinBytes;
  /// Index-list messages of one array share one walk over it
  /// (Configuration::merge_index_walks).
  bool merge_index_walks = Configuration::kDefaultMergeIndexWalks;
  /// The automatic rule's limit for dense messages
  /// (Configuration::dense_datatype_max_bytes; 0: they are packed).
  std::int64_t dense_datatype_max_bytes = Configuration::kDefaultDenseDatatypeMaxBytes;

  /// The policy of a configuration (its transfer, datatype_min_bytes,
  /// merge_index_walks and dense_datatype_max_bytes).
  static TransferPolicy from(const Configuration& config) {
    return TransferPolicy{config.transfer, config.datatype_min_bytes, config.merge_index_walks,
                          config.dense_datatype_max_bytes};
  }
  /// The policy ADLIB_TRANSFER and ADLIB_DATATYPE_MIN_BYTES ask for now (the
  /// defaults above where they are unset), parsed afresh; throws adlib::Error
  /// for a value it does not accept.
  static TransferPolicy from_environment() { return from(Configuration::from_environment()); }
};

/// The units of the automatic rule: rows shorter than a cache line, each on
/// a page of its own, are "scattered short rows".
constexpr std::int64_t kCacheLineBytes = 64;
constexpr std::int64_t kPageBytes = 4096;  ///< see kCacheLineBytes

/// Does `m` travel as a derived datatype over host memory under `policy`?
/// Never for a direct message (one contiguous block: MPI uses the memory as
/// it is).
bool uses_datatype(const PeerMessage& m, std::size_t element_size, const TransferPolicy& policy);

}  // namespace adlib
