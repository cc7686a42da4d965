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
