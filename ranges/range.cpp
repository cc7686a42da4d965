// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/range.hpp>

#include <adlib/runtime/error.hpp>

namespace adlib {

Range::Range(Index extent, std::optional<Dimension> dimension, Index ghost_low, Index ghost_high,
             bool periodic)
    : extent_(extent),
      dimension_(std::move(dimension)),
      ghost_low_(ghost_low),
      ghost_high_(ghost_high),
      periodic_(periodic) {
  if (extent < 0) throw Error("negative extent " + std::to_string(extent), -1, "Range");
  if (ghost_low < 0 || ghost_high < 0)
    throw Error("negative ghost width (" + std::to_string(ghost_low) + ", " +
                    std::to_string(ghost_high) + ")",
                -1, "Range");
}

Interval Range::owned_interval(int) const {
  throw Error(describe() + " does not give each process one interval of global indices", -1,
              "Range::owned_interval");
}

dap::DimensionData Range::dap_dimension(int coord) const {
  const Index low = ghost_low(), high = ghost_high();
  if (!dimension() && low == 0 && high == 0 && !periodic())
    return dap::DimensionData::undistributed();
  const char* operation = "dap::describe";
  if (!contiguous())
    throw Error(describe() +
                    " is neither contiguous, cyclic nor unstructured: no DAP dist_type "
                    "describes it",
                -1, operation);
  if (process_count() > 1 && low != high)
    throw Error("ghost widths " + std::to_string(low) + "/" + std::to_string(high) +
                    " differ, but the DAP wants the same communication padding on both sides "
                    "of a process boundary",
                -1, operation);
  // Owned [b, e) in adlib's indices; the buffer is [b - low, e + high), which
  // is [b, e + low + high) once the ghost cells at the domain's ends count as
  // boundary padding (DAP index = adlib index + low).
  const Interval owned = owned_interval(coord);
  dap::DimensionData out;
  out.dist_type = 'b';
  out.size = extent() + low + high;
  out.proc_grid_size = process_count();
  out.proc_grid_rank = coord;
  out.start = owned.begin;
  out.stop = owned.end + low + high;
  if (low || high) out.padding = std::array<std::int64_t, 2>{low, high};
  if (periodic()) out.periodic = true;
  return out;
}

void Range::owners_of(const Index* globals, std::size_t count, Owner* out) const {
  for (std::size_t i = 0; i < count; ++i) out[i] = owner(globals[i]);
}

std::vector<Owner> Range::locate(const std::vector<Index>& globals) const {
  std::vector<Owner> owners;
  owners.reserve(globals.size());
  for (const Index g : globals) owners.push_back(owner(g));
  return owners;
}

std::string Range::describe_common() const {
  std::string s = "N=" + std::to_string(extent_);
  if (dimension_)
    s += ", over " + dimension_->grid().describe() + " axis " + std::to_string(dimension_->axis());
  if (ghost_low_ || ghost_high_ || periodic_)
    s += ", ghosts " + std::to_string(ghost_low_) + "/" + std::to_string(ghost_high_) +
         (periodic_ ? " periodic" : "");
  return s;
}

void Range::check_coord(int coord, const char* operation) const {
  if (coord < 0 || coord >= process_count())
    throw Error("coordinate " + std::to_string(coord) + " outside 0.." +
                    std::to_string(process_count() - 1),
                -1, std::string("Range::") + operation);
}

void Range::check_global(Index global, const char* operation) const {
  if (global < 0 || global >= extent_)
    throw Error(
        "global index " + std::to_string(global) + " outside 0.." + std::to_string(extent_ - 1), -1,
        std::string("Range::") + operation);
}

}  // namespace adlib
