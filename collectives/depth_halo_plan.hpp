// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The planning behind DepthHalo, in pure functions (no MPI), so each step is
/// tested serially:
///
///  1. the halo entries' owners come from a Directory of the owned ids
///     (collective, runtime/directory.hpp); unowned_halo_error() names a halo
///     id that no rank owns;
///  2. depth_requests(): the entries of one depth as element requests (read
///     the owner's entry into the halo entry), which negotiate_data_plan
///     (schedules/data_plan.hpp) turns into that depth's ExchangePlan, in
///     entries;
///  3. depth_range_plan(): the exchange of depths clean+1 .. depth, one
///     message per peer: the depths' lists joined in depth order and
///     expanded to columns of values.  A list that is one run of
///     consecutive offsets (a neighbour's whole share of a depth, in LFRic's
///     order; a column) becomes a contiguous block, which MPI reads or writes
///     in place.
#pragma once

#include <string>
#include <vector>

#include <adlib/ranges/unstructured_layout.hpp>
#include <adlib/runtime/directory.hpp>
#include <adlib/schedules/data_plan.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// Empty when every halo entry of `layout` has an owner in `located` (the
/// Directory's answer for the halo ids, in local order from owned_count()),
/// else the reason, naming the first unowned id and its depth.
std::string unowned_halo_error(const UnstructuredLayout& layout,
                               const std::vector<IdLocation>& located);

/// The halo entries of depth `d` (1 <= d <= layout.depth()) as reads: owner
/// and owner's entry from `located`, local entry its position here.  In
/// entries (not values).
std::vector<ElementRequest> depth_requests(const UnstructuredLayout& layout,
                                           const std::vector<IdLocation>& located, int d);

/// The exchange that brings depths clean+1 .. depth up to date, in memory
/// offsets of values, from `levels` (levels[d - 1]: depth d's plan in
/// entries, as negotiate_data_plan made it).  One entry per peer and side:
/// the depths' lists joined in depth order, each entry expanded to its
/// `column` values, contiguous lists as blocks.  0 <= clean < depth <=
/// levels.size().
ExchangePlan depth_range_plan(const std::vector<ExchangePlan>& levels, int clean, int depth,
                              Index column);

}  // namespace adlib
