// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// How dap::import reads the padding of a 'b' dimension (docs/dap.md,
/// "adlib's reading of the spec").  adlib's ghost widths are one (low, high)
/// pair for every process, the DAP's padding is per process, so the rule is
/// decided per dimension from the dictionaries of every process along it:
///
/// - **ghosts**, when one pair holds the padding of every process: every
///   interior low padding equals grid rank 0's, every interior high padding
///   equals the last grid rank's.  The buffer is the local block, the
///   padding its ghost cells (WriteHalo fills it), periodic as the
///   dictionary says.  With more than one process that is padding (w, w)
///   everywhere; over one process any (low, high).
/// - **owned part**, otherwise (the spec's example (4, 1) (1, 2) (2, 3)
///   (3, 0); communication padding that differs between process
///   boundaries; a process holding padding only): no ghosts.  Grid rank c's
///   local block is the part it owns, DAP indices [start + low_c, stop -
///   high_c); the padding around it stays the producer's memory, which no
///   adlib schedule reads or writes.
///
/// Either way the end paddings are boundary padding, outside adlib's
/// domain: n = size - (grid rank 0's low) - (the last grid rank's high), and
/// adlib index = DAP index - (grid rank 0's low).  The Range is block(n) when
/// the owned parts are BlockRange's, else irregular_block.
///
/// @code
///   adlib::dap::BlockDimension d;   // the spec's padding example
///   d.size = 21;
///   d.start = {0, 6, 10, 14};
///   d.stop = {8, 14, 20, 21};
///   d.padding_low = {4, 1, 2, 3};
///   d.padding_high = {1, 2, 3, 0};
///   adlib::dap::ImportedBlock b = adlib::dap::import_block(d);
///   // b.range: irregular_block({3, 5, 5, 4}); b.padding_is_ghosts: false;
///   // b.buffer_offset: {4, 1, 2, 3}
/// @endcode
#pragma once

#include <cstdint>
#include <vector>

#include <adlib/ranges/range_spec.hpp>

namespace adlib::dap {

/// A 'b' dimension as the DAP describes it: the whole dimension's keys, and
/// per grid coordinate along it the buffer's [start, stop) in DAP indices
/// and its padding.  The dictionaries must be valid DAP (dap_validation.hpp).
struct BlockDimension {
  /// 'size': adlib's extent plus the boundary padding at both ends.
  std::int64_t size = 0;
  /// 'periodic'.
  bool periodic = false;
  /// Per grid coordinate: the buffer's first DAP index ('start').
  std::vector<std::int64_t> start;
  /// Per grid coordinate: one past the buffer's last DAP index ('stop').
  std::vector<std::int64_t> stop;
  /// Per grid coordinate: the low 'padding' width.
  std::vector<std::int64_t> padding_low;
  /// Per grid coordinate: the high 'padding' width.
  std::vector<std::int64_t> padding_high;
};

/// The adlib Range of a 'b' dimension, and where each grid coordinate's
/// local block begins in its buffer.
struct ImportedBlock {
  /// block(n) or irregular_block(sizes); ghosts(low, high) when the padding
  /// is ghost cells; periodic() as the dictionaries say.
  RangeSpec range;
  /// Are the buffers' paddings adlib's ghost cells?  Otherwise the local
  /// blocks are the owned parts only.
  bool padding_is_ghosts = true;
  /// Per grid coordinate: buffer elements before the local block along the
  /// dimension (its low padding when the padding is not ghosts, else 0).
  std::vector<Index> buffer_offset;
};

/// The rule of the file overview.  Deterministic: every process that reads
/// the same dictionaries gets the same Range.
ImportedBlock import_block(const BlockDimension& dimension);

}  // namespace adlib::dap
