// SPDX-License-Identifier: BSD-3-Clause
// Reference enumeration of a strided block for the tests: the element
// offsets in C order (last index fastest), straight from the definition
// offset + sum_d i_d * strides[d], with nothing shared with the library's
// walkers.
#pragma once

#include <cstdint>
#include <vector>

#include <adlib/runtime/strided_block.hpp>

namespace adlib_test {

using Offsets = std::vector<std::int64_t>;

inline Offsets offsets_of(const adlib::StridedBlock& b) {
  Offsets out;
  if (b.count() == 0) return out;
  std::int64_t index[adlib::kMaxBlockRank] = {};
  while (true) {
    std::int64_t o = b.offset;
    for (int d = 0; d < b.rank; ++d) o += index[d] * b.strides[d];
    out.push_back(o);
    int d = b.rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < b.extents[d]) break;
      index[d] = 0;
    }
    if (d < 0) return out;
  }
}

}  // namespace adlib_test
