// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// plan_remap: the message list of one rank for a Remap, from the two layouts
/// alone (no MPI, no allocation of array data), so it can be computed for any
/// simulated process count in one process.
///
/// Method (Adlib's sendLoop / recvLoop, made canonical): along every dimension
/// a Range decomposes each process's share of the section into canonical
/// runs; the elements that rank r sends to rank q along that dimension are the
/// pairwise intersections of r's source runs with q's destination runs (each
/// an arithmetic progression), sorted by first position.  The sender computes
/// them from its side and the receiver from its side and both get the same
/// list, so a message's layout needs no negotiation.  A message is the
/// Cartesian product of the per-dimension pieces, in lexicographic order of
/// pieces, each piece product being one strided block of local memory.
///
/// Replicated source data is sent by one replica per receiver: the receiver
/// itself when it holds a copy, else replica number (receiver mod replicas).
/// Replicated destinations receive every copy.
#pragma once

#include <string>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// Empty when a Remap from `src` to `dst` is valid, else the reason.
std::string check_remap_layouts(const ArrayLayout& dst, const ArrayLayout& src);

/// The blocks rank `me` sends and receives.  Layouts must pass
/// check_remap_layouts.
ExchangePlan plan_remap(const ArrayLayout& dst, const ArrayLayout& src, int me);

}  // namespace adlib
