// SPDX-License-Identifier: BSD-3-Clause
// Support for the planning tests that simulate every rank of a process count
// in one process (serial_remap_plan.cpp, serial_shift_plan.cpp):
//
//  - SectionDecoder: local memory offset of one rank -> linear position in
//    the section a SideSpec describes, through the reference model of
//    test_layouts.hpp (never the library's inquiries), so a plan's blocks can
//    be checked against global indices;
//  - random_grid / random_shape: the process grids and array shapes the
//    random trials draw.
#pragma once

#include <cstdint>
#include <vector>

#include "test_layouts.hpp"

namespace adlib_test {

// Decodes local memory of one side on one rank to linear section positions.
class SectionDecoder {
 public:
  SectionDecoder(const SideSpec& spec, int rank) : spec_(spec) {
    extents_ = spec.local_extents(rank);
    shape_ = spec.shape();
    total_ = spec.holds(rank) ? 1 : 0;
    for (Index e : extents_) total_ *= e;
    // Per dimension: local position -> section position (or -1).
    positions_ = spec.local_index_tables(rank).position;
  }
  // Linear section position of the element at `offset`, or -1 when that is
  // no element of this rank's share of the section.
  Index operator()(std::int64_t offset) const {
    if (offset < 0 || offset >= total_) return -1;
    Index linear = 0, scale = 1;
    for (int d = spec_.rank(); d-- > 0;) {
      const Index k = positions_[d][offset % extents_[d]];
      if (k < 0) return -1;
      offset /= extents_[d];
      linear += k * scale;
      scale *= shape_[d];
    }
    return linear;
  }
  // The number of elements of this rank's local allocation (ghosts included;
  // 0 when it holds no data).
  Index size() const { return total_; }

 private:
  const SideSpec& spec_;
  std::vector<Index> extents_, shape_;
  std::vector<std::vector<Index>> positions_;
  Index total_ = 0;
};

// A random grid of at most P processes and at most `axes` axes (often all
// P, sometimes fewer so that some ranks hold nothing).
inline std::vector<int> random_grid(Rng& rng, int P, int axes) {
  int size = rng.chance(65) ? P : static_cast<int>(rng.uniform(1, P));
  const int n = static_cast<int>(rng.uniform(1, axes));
  std::vector<int> shape(n, 1);
  for (int a = 0; a + 1 < n; ++a) {
    std::vector<int> divisors;
    for (int k = 1; k <= size; ++k)
      if (size % k == 0) divisors.push_back(k);
    shape[a] = rng.pick(divisors);
    size /= shape[a];
  }
  shape[n - 1] = size;
  // Shuffle the axes so the big one is not always last.
  for (int a = n - 1; a > 0; --a) std::swap(shape[a], shape[rng.uniform(0, a)]);
  return shape;
}

// `rank` extents in 1 .. max_extent, now and then 0.
inline std::vector<Index> random_shape(Rng& rng, int rank, Index max_extent) {
  std::vector<Index> shape;
  for (int d = 0; d < rank; ++d) shape.push_back(rng.chance(4) ? 0 : rng.uniform(1, max_extent));
  return shape;
}

}  // namespace adlib_test
