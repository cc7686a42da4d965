// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/dap_block_padding.hpp>

namespace adlib::dap {

ImportedBlock import_block(const BlockDimension& dimension) {
  const auto& lows = dimension.padding_low;
  const auto& highs = dimension.padding_high;
  const auto p = static_cast<Index>(dimension.start.size());
  const Index boundary_low = lows.front(), boundary_high = highs.back();
  ImportedBlock out{block(0), true, std::vector<Index>(static_cast<size_t>(p), 0)};
  // Ghost widths are one pair: the interior paddings must be the ends'.  (The
  // validator made the two sides of each process boundary equal, so with
  // more than one process this is (w, w) everywhere.)
  for (Index c = 0; c < p; ++c)
    if ((c > 0 && lows[c] != boundary_low) || (c + 1 < p && highs[c] != boundary_high))
      out.padding_is_ghosts = false;
  // Grid rank c owns DAP indices [start + low_c, stop - high_c): adjacent
  // (the validator checked start_c+1 = stop_c - high_c - low_c+1), from
  // boundary_low to size - boundary_high.
  const Index n = dimension.size - boundary_low - boundary_high;
  std::vector<Index> sizes;
  bool regular = true;
  for (Index c = 0; c < p; ++c) {
    const Index first = dimension.start[c] + lows[c] - boundary_low;  // adlib's index
    sizes.push_back(dimension.stop[c] - dimension.start[c] - lows[c] - highs[c]);
    regular = regular && first == c * n / p && sizes.back() == (c + 1) * n / p - c * n / p;
    if (!out.padding_is_ghosts) out.buffer_offset[c] = lows[c];
  }
  out.range = regular ? block(n) : irregular_block(sizes);
  if (out.padding_is_ghosts && (boundary_low || boundary_high))
    out.range = out.range.ghosts(boundary_low, boundary_high);
  if (dimension.periodic) out.range = out.range.periodic();
  return out;
}

}  // namespace adlib::dap
