// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The plan of the array forms of Gather and Scatter (Adlib's
/// `Gather(dst, src, subs..., mask)` and `Scatter`): subscript arrays, and an
/// optional mask, distributed like the array they are aligned with (the
/// destination of a gather, the source of a scatter), name for each element
/// of it one element of the indexed array (the source of a gather, the
/// destination of a scatter), of any rank.  Each rank turns the elements it
/// holds into element requests of a remote-access schedule
/// (schedules/data_plan.hpp), their owners found with the indexed layout's
/// Range inquiries, one dimension at a time.
///
/// Which elements request.  The elements this rank holds of the aligned
/// layout (owned, never ghosts), where the mask is true (or every one without
/// a mask), in C order of their local positions.  A gather requests for every
/// replica of a replicated destination (each fills its own copy).  A scatter
/// requests only from replica 0 of each element of a replicated source (in
/// the order of ArrayLayout::ranks_holding), so each contribution counts
/// once.
///
/// Who serves.  A gather reads one replica of each indexed element: this
/// rank's own copy when it holds one, else replica (requester mod replicas),
/// the rule of the vector form (gather_owner).  A scatter writes every
/// replica.
///
/// Offsets.  A request's local offset is the element's offset in the aligned
/// array's local memory (its strides: ghosts and padding included); its
/// owner offset is the indexed element's offset in the owner's memory, from
/// the owner's local allocation (so an indexed array of rank > 1 must not be
/// padded: check_array_arguments refuses it).
///
/// Everything here is pure (no messages): resolve_array_subscripts is tested
/// for simulated process counts in one process.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <adlib/collectives/index_exchange_plan.hpp>
#include <adlib/ranges/array_layout.hpp>
#include <adlib/schedules/data_plan.hpp>

namespace adlib {

/// This rank's local blocks of the subscript arrays and of the mask, readable
/// on the host (host mirrors of the arrays' local Views), with their strides.
struct HostSubscripts {
  std::vector<const Index*> data;           ///< one local block per indexed dimension
  std::vector<std::vector<Index>> strides;  ///< their local strides (ArrayLayout::local_strides)
  const bool* mask = nullptr;               ///< the mask's local block; null: no mask
  std::vector<Index> mask_strides;          ///< its local strides
};

/// Empty when the arguments of an array gather or scatter fit together on
/// rank `me`, else the reason: `subscripts` (one layout per dimension of
/// `indexed`) and `mask` (null: none) must have `aligned`'s distribution
/// (group, ranges, section: describe_distribution(); padding may differ), and
/// `indexed`, when of rank > 1, must not be padded on `me`.  `what` names
/// the aligned array in messages ("destination" or "source").
std::string check_array_arguments(const ArrayLayout& indexed, const ArrayLayout& aligned,
                                  const std::vector<ArrayLayout>& subscripts,
                                  const ArrayLayout* mask, int me, const char* what);

/// A rank's element requests, or the reason its arguments are wrong (with
/// no requests: the DataSchedule's agreement then makes every rank throw).
struct ResolvedSubscripts {
  std::vector<ElementRequest> requests;  ///< empty when error is set
  std::string error;                     ///< this rank's verdict on the arguments
};

/// Rank `me`'s element requests (see the file overview) for the subscripts
/// in `held`, read at the elements `me` holds of `aligned`, into (or from)
/// `indexed`; or, with no requests, the reason they are wrong: a subscript
/// outside its dimension's extent, named by its dimension, value and the
/// element's position.  `held.data` has one block per dimension of
/// `indexed`.  O(elements held) time and memory: nothing depends on the
/// number of ranks.
///
/// `located`, for an indexed layout that is not plannable locally (an
/// unstructured dimension), holds per dimension the owners of the
/// subscripts' global indices (locate_subscript_owners); it is not used
/// otherwise.
ResolvedSubscripts resolve_array_subscripts(
    const ArrayLayout& indexed, const ArrayLayout& aligned, const HostSubscripts& held, int me,
    RemoteAccess access, const std::vector<std::unordered_map<Index, Owner>>& located = {});

/// Collective over the indexed layout's communicator: per dimension of
/// `indexed`, the owners of the global indices that the valid subscripts
/// `me` holds name (masked elements and subscripts outside the extent
/// skipped), found with Range::locate, one call per dimension on every rank.
/// A rank whose arguments are wrong passes `take_part` false: it locates
/// nothing but still takes part.
std::vector<std::unordered_map<Index, Owner>> locate_subscript_owners(const ArrayLayout& indexed,
                                                                      const ArrayLayout& aligned,
                                                                      const HostSubscripts& held,
                                                                      int me, bool take_part);

}  // namespace adlib
