// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Remap's plan when a layout has a dimension that range arithmetic cannot
/// enumerate for other processes (an UnstructuredRange: each process knows
/// its own indices only).
///
/// plan_remap (remap_plan.hpp) intersects what every process holds, from the
/// layouts alone, without messages.  Here each rank instead lists the
/// destination elements it holds and asks for them, as a gather does:
///
///  1. along each dimension, the section positions this rank holds of the
///     destination are turned into the source's global indices and located
///     with Range::locate (collective for an unstructured source dimension,
///     local arithmetic otherwise): the owning coordinate and the local
///     position there.  One call per dimension, over the distinct positions
///     of that dimension, not one per element;
///  2. each destination element becomes an element request (DataPlan: the
///     serving replica of the source, the offset in its memory, the offset
///     in this rank's destination memory); a replicated source is read from
///     this rank's own copy when it holds one, else from replica (rank mod
///     replicas), as Gather does;
///  3. negotiate_data_plan tells every owner what to send (one sparse
///     exchange, nothing of size P).
///
/// The plan is in index lists (runs of consecutive offsets travel as rows).
/// Owners' offsets are computed by the requesting ranks from the owners'
/// local allocations, so a padded source (DistArray::wrap with a larger
/// leading dimension) is refused, on every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/schedules/data_plan.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// One rank's element requests of a negotiated Remap, or the reason it
/// cannot make them.
struct RemapRequests {
  std::vector<ElementRequest> requests;  ///< empty when error is set
  std::string error;                     ///< this rank's verdict (a padded source)
};
/// Collective over `comm`: the element requests of this rank for dst <- src
/// (steps 1 and 2 of the file overview), or, with none, the reason they
/// cannot be made.  Every rank calls it, each dimension's locate() in turn,
/// even a rank that holds nothing of dst.
RemapRequests negotiated_remap_requests(const ArrayLayout& dst, const ArrayLayout& src,
                                        const Comm& comm);

/// Collective over `comm`: this rank's whole plan of dst <- src by
/// negotiation, with one agreement on the requests, `caller_error` and
/// `caller_fingerprint` inside the sparse exchange.
ExchangePlan negotiate_remap_plan(const ArrayLayout& dst, const ArrayLayout& src, const Comm& comm,
                                  const std::string& caller_error = {},
                                  std::uint64_t caller_fingerprint = 0);

/// Collective over `comm` when a layout is not plannable locally: Remap's
/// plan either way (plan_remap when both layouts are plannable locally,
/// without messages; negotiate_remap_plan otherwise).
ExchangePlan remap_exchange_plan(const ArrayLayout& dst, const ArrayLayout& src, const Comm& comm);

}  // namespace adlib
