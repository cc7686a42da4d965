// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/dap_export.hpp>

#include <adlib/ranges/block_cyclic_range.hpp>
#include <adlib/ranges/unstructured_range.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib::dap {

namespace {

void refuse(const std::string& why) {
  throw Error(why, -1, "dap::describe");
}

DimensionData describe_dimension(const Range& range, int coord, int d) {
  DimensionData out;
  out.size = range.extent();
  out.proc_grid_size = range.process_count();
  out.proc_grid_rank = coord;
  const Index n = range.extent(), p = range.process_count();
  if (const auto* u = dynamic_cast<const UnstructuredRange*>(&range)) {
    out.dist_type = 'u';
    out.indices.assign(u->indices().begin(), u->indices().end());
    out.one_to_one = u->holding() == Holding::one_to_one;
    return out;
  }
  if (const auto* c = dynamic_cast<const BlockCyclicRange*>(&range)) {
    out.dist_type = 'c';
    const Index tile = ((coord - c->source()) % p + p) % p;
    out.start = tile > n / c->block_size() ? n : std::min(tile * c->block_size(), n);
    if (!dynamic_cast<const CyclicRange*>(&range)) out.block_size = c->block_size();
    return out;
  }
  const Index low = range.ghost_low(), high = range.ghost_high();
  if (!range.dimension() && low == 0 && high == 0 && !range.periodic())
    return DimensionData::undistributed();
  if (!range.contiguous())
    refuse("dimension " + std::to_string(d) + ": " + range.describe() +
           " is neither contiguous, cyclic nor unstructured: no DAP dist_type describes it");
  if (p > 1 && low != high)
    refuse("dimension " + std::to_string(d) + ": ghost widths " + std::to_string(low) + "/" +
           std::to_string(high) +
           " differ, but the DAP wants the same communication padding on both sides of a "
           "process boundary");
  // Owned [b, e) in adlib's indices; the buffer is [b - low, e + high), which
  // is [b, e + low + high) once the ghost cells at the domain's ends count as
  // boundary padding (DAP index = adlib index + low).
  const Interval owned = range.owned_interval(coord);
  out.dist_type = 'b';
  out.size = n + low + high;
  out.start = owned.begin;
  out.stop = owned.end + low + high;
  if (low || high) out.padding = std::array<std::int64_t, 2>{low, high};
  if (range.periodic()) out.periodic = true;
  return out;
}

}  // namespace

std::vector<DimensionData> describe_dimensions(const ArrayLayout& layout, int rank) {
  if (layout.is_section()) refuse("describe a whole array, not a section");
  const Group& group = layout.group();
  const ProcessGrid& grid = group.grid();
  for (int a = 0; a < grid.dimensions(); ++a)
    if (!group.is_free(a))
      refuse("the array is over part of " + grid.describe() +
             "; the DAP's process grid holds every process");
  bool in_order = grid.has_comm() && grid.size() == grid.comm().size();
  const std::vector<int> ranks = grid.ranks();
  for (size_t i = 0; in_order && i < ranks.size(); ++i) in_order = ranks[i] == static_cast<int>(i);
  if (!in_order)
    refuse(grid.describe() + " is not a grid over the whole communicator in rank order (" +
           std::to_string(grid.has_comm() ? grid.comm().size() : 0) + " processes)");
  std::vector<DimensionData> out;
  int next_axis = 0;
  for (int d = 0; d < layout.rank(); ++d) {
    const Range& range = layout.range(d);
    if (range.dimension()) {
      const int axis = range.dimension()->axis();
      for (; next_axis < axis; ++next_axis)
        if (grid.extent(next_axis) > 1)
          refuse("grid axis " + std::to_string(next_axis) + " has no dimension before dimension " +
                 std::to_string(d) +
                 " (an array replicated along an axis, or dimensions bound to the axes out of "
                 "order, have no DAP form)");
      if (axis < next_axis)
        refuse("dimension " + std::to_string(d) + " is bound to grid axis " + std::to_string(axis) +
               ", out of order (the DAP's grid follows the dimensions)");
      ++next_axis;
    }
    out.push_back(describe_dimension(range, layout.coordinate(rank, d), d));
  }
  for (; next_axis < grid.dimensions(); ++next_axis)
    if (grid.extent(next_axis) > 1)
      refuse("grid axis " + std::to_string(next_axis) +
             " has no dimension: the array is replicated along it, which the DAP cannot say");
  return out;
}

}  // namespace adlib::dap
