// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Direction: which way an execution of a schedule moves data.  A schedule
/// is planned once from send blocks to receive blocks; executing it
/// backward reverses every message (the transpose of the forward map: what
/// Remap::reverse and the accumulation of ghost cells into their owners do).
#pragma once

namespace adlib {

/// Which way an execution moves data: forward from the send blocks of `src` to
/// the receive blocks of `dst`, backward the other way.
enum class Direction { forward, backward };

}  // namespace adlib
