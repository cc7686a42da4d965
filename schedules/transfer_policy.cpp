// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/schedules/transfer_policy.hpp>

#include <cstdlib>

#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {

// A normalised block walks its elements in rows: runs of consecutive
// elements along its last dimension (one element when that dimension is
// strided).  Row length and the distance from one row's start to the next,
// in elements (0 when the block is one row).
struct Rows {
  std::int64_t length = 1, pitch = 0;
};
Rows rows_of(const StridedBlock& b) {
  if (b.rank == 0) return {1, 0};
  const int last = b.rank - 1;
  if (b.strides[last] != 1) return {1, std::llabs(b.strides[last])};
  return {b.extents[last], b.rank > 1 ? std::llabs(b.strides[last - 1]) : 0};
}

}  // namespace

bool uses_datatype(const PeerMessage& m, std::size_t element_size, const TransferPolicy& policy) {
  if (m.direct || m.blocks.empty()) return false;
  switch (policy.method) {
    case TransferMethod::pack:
      return false;
    case TransferMethod::datatype:
      return true;
    case TransferMethod::automatic:
      break;
  }
  const auto size = static_cast<std::int64_t>(element_size);
  // A long list of blocks makes a large type for little gain: those are
  // packed (the plan fuses regular runs, so halos and tiles stay short).
  constexpr std::size_t kMaxBlocks = 64;
  if (m.blocks.size() > kMaxBlocks) return false;
  // Rows shorter than a cache line, each on a page of its own, is where a
  // pack (a TLB miss and a cache line per row) loses to MPI's engine.  A
  // pitch that is a multiple of 2 KiB keeps every row in one or two
  // positions of its page, so all rows compete for the same cache sets:
  // there Open MPI's engine measured 1.1-3x slower than packing, and such
  // messages stay packed.  Rows of a cache line or longer pack at memory
  // speed; they travel as a datatype only in messages small enough that
  // the packed message's transport costs more than the engine (the
  // configuration's dense_datatype_max_bytes, measured per machine).
  // Anything else (short rows closer than a page) is packed.
  bool scattered = true, long_rows = true;
  for (const StridedBlock& b : m.blocks) {
    const Rows r = rows_of(b);
    const std::int64_t pitch = r.pitch * size;
    const bool short_row = r.length * size < kCacheLineBytes;
    long_rows = long_rows && !short_row;
    scattered = scattered && short_row && pitch >= kPageBytes && pitch % (kPageBytes / 2) != 0;
  }
  const std::int64_t bytes = m.count * size;
  if (scattered) return bytes >= policy.datatype_min_bytes;
  return long_rows && bytes > 0 && bytes <= policy.dense_datatype_max_bytes;
}

}  // namespace adlib
