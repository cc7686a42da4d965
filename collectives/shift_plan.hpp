// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// plan_shift and plan_skew: the message list of one rank for a Shift (or
/// Skew), and the destination blocks it fills, from the layout alone (no MPI,
/// no array data), so they can be computed for any simulated process count in
/// one process.
///
/// @code
///   // What rank 17 of a million would send and receive for CSHIFT(a, 3):
///   adlib::ShiftPlan plan = adlib::plan_shift(layout, 3, 0, adlib::ShiftMode::cyclic, 17);
/// @endcode
///
/// dst[..., i, ...] = src[..., i + amount, ...] along dimension `dim`
/// (Fortran's sign).  Along that dimension a shift is one or two copies
/// between intervals of positions (cyclic: the part that stays in range and
/// the part that wraps) and, in end_off and keep modes, the interval nothing
/// shifts into.  Each copy is a remap between two sections of the one layout,
/// planned by plan_remap, and the plans are appended in the same order on
/// every rank, so the two ends of each message agree on its element order.
/// In end_off mode the vacated interval becomes ShiftPlan::vacated: the
/// owned destination elements (never ghost cells) that the caller fills.
/// Cost: that of plan_remap, O(neighbours) for the regular ranges, whatever
/// the process count.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/runtime/strided_block.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// What a shift does with the destination elements whose source position
/// i + amount falls outside the extent.
enum class ShiftMode {
  cyclic,   ///< the source position wraps around (Fortran's CSHIFT)
  end_off,  ///< they are set to the fill value, T{} by default (EOSHIFT)
  keep      ///< they keep their values
};

/// "cyclic", "end_off" or "keep"; "?" for a value outside the enumeration.
const char* shift_mode_name(ShiftMode mode);

/// False for a value outside the enumeration (a static_cast of a wrong
/// number): the shifts reject it with an adlib::Error on every rank.
bool is_valid_shift_mode(ShiftMode mode);

/// One rank's part of a shift: the messages (sends address the source's
/// local memory, receives the destination's) and, in end_off mode, the
/// blocks of the destination's local memory that nothing is received into
/// and that every execution sets to the fill value.
struct ShiftPlan {
  ExchangePlan exchange;              ///< what this rank sends and receives
  std::vector<StridedBlock> vacated;  ///< destination blocks to fill (end_off only)
};

/// Empty when a shift along `dim` in `mode` is valid for `layout` (any
/// amount is), else the reason.
std::string check_shift(const ArrayLayout& layout, int dim, ShiftMode mode);

/// Empty when a skew along `dim` in `mode` with `amount_count` amounts is
/// valid for `layout` (the table has one amount per position of the other
/// dimensions), else the reason.
std::string check_skew(const ArrayLayout& layout, std::size_t amount_count, int dim,
                       ShiftMode mode);

/// Rank `me`'s plan for dst[..., i, ...] = src[..., i + amount, ...] along
/// `dim`, both arrays of `layout` (the argument order of Shift's
/// constructor).  The arguments must pass check_shift.
ShiftPlan plan_shift(const ArrayLayout& layout, Index amount, int dim, ShiftMode mode, int me);

/// Rank `me`'s plan for a skew: the amount along `dim` is amounts[k], k the
/// linear C-order index of the positions of the other dimensions (`dim` left
/// out).  Consecutive positions of the innermost other dimension with equal
/// amounts are planned as one shift, and a constant table as one shift of the
/// whole array.  The arguments must pass check_skew.
ShiftPlan plan_skew(const ArrayLayout& layout, const std::vector<Index>& amounts, int dim,
                    ShiftMode mode, int me);

}  // namespace adlib
