// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/dap_export.hpp>

#include <adlib/runtime/error.hpp>

namespace adlib::dap {

namespace {

[[noreturn]] void refuse(const std::string& why) {
  throw Error(why, -1, "dap::describe");
}

// The range's own answer (Range::dap_dimension), its refusal named by
// dimension.
DimensionData describe_dimension(const Range& range, int coord, int d) {
  try {
    return range.dap_dimension(coord);
  } catch (const Error& e) {
    refuse("dimension " + std::to_string(d) + ": " + e.message());
  }
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
