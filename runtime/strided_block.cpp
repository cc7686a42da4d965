// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/strided_block.hpp>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include <adlib/runtime/error.hpp>

namespace adlib {

StridedBlock StridedBlock::make(std::int64_t offset, std::initializer_list<std::int64_t> extents,
                                std::initializer_list<std::int64_t> strides) {
  if (extents.size() != strides.size() || extents.size() > static_cast<size_t>(kMaxBlockRank))
    throw Error(
        "extents and strides must have equal length of at most " + std::to_string(kMaxBlockRank),
        -1, "StridedBlock");
  StridedBlock block;
  block.offset = offset;
  block.rank = static_cast<int>(extents.size());
  int d = 0;
  for (auto e : extents) block.extents[d++] = e;
  d = 0;
  for (auto s : strides) block.strides[d++] = s;
  return block;
}

std::int64_t StridedBlock::count() const {
  std::int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= extents[d];
  return n;
}

StridedBlock StridedBlock::normalized() const {
  StridedBlock out;
  out.offset = offset;
  if (count() == 0) {
    out.rank = 1;
    out.extents[0] = 0;
    out.strides[0] = 1;
    return out;
  }
  for (int d = 0; d < rank; ++d) {
    if (extents[d] == 1) continue;
    if (out.rank > 0 && out.strides[out.rank - 1] == strides[d] * extents[d]) {
      // The previous (outer) dimension steps exactly over this one: fuse.
      out.extents[out.rank - 1] *= extents[d];
      out.strides[out.rank - 1] = strides[d];
      continue;
    }
    out.extents[out.rank] = extents[d];
    out.strides[out.rank] = strides[d];
    ++out.rank;
  }
  return out;
}

bool StridedBlock::contiguous() const {
  const StridedBlock n = normalized();
  return n.rank == 0 || (n.rank == 1 && (n.strides[0] == 1 || n.extents[0] <= 1));
}

bool StridedBlock::injective() const {
  if (count() <= 1) return true;
  const StridedBlock b = normalized();
  std::int64_t strides[kMaxBlockRank], extents[kMaxBlockRank];
  for (int d = 0; d < b.rank; ++d) {
    strides[d] = b.strides[d] < 0 ? -b.strides[d] : b.strides[d];
    extents[d] = b.extents[d];
  }
  for (int i = 1; i < b.rank; ++i)  // insertion sort by stride, rank <= 8
    for (int j = i; j > 0 && strides[j - 1] > strides[j]; --j) {
      std::swap(strides[j - 1], strides[j]);
      std::swap(extents[j - 1], extents[j]);
    }
  std::int64_t span = 0;  // largest distance reached by the smaller dimensions
  for (int d = 0; d < b.rank; ++d) {
    if (strides[d] <= span) return false;
    span += strides[d] * (extents[d] - 1);
  }
  return true;
}

std::int64_t StridedBlock::lowest_offset() const {
  std::int64_t o = offset;
  for (int d = 0; d < rank; ++d)
    if (strides[d] < 0 && extents[d] > 0) o += strides[d] * (extents[d] - 1);
  return o;
}

std::int64_t StridedBlock::highest_offset() const {
  std::int64_t o = offset;
  for (int d = 0; d < rank; ++d)
    if (strides[d] > 0 && extents[d] > 0) o += strides[d] * (extents[d] - 1);
  return o;
}

StridedBlock StridedBlock::with_outer_dimension(std::int64_t extent, std::int64_t stride) const {
  if (rank >= kMaxBlockRank)
    throw Error("block rank would exceed " + std::to_string(kMaxBlockRank), -1, "StridedBlock");
  StridedBlock out;
  out.offset = offset;
  out.rank = rank + 1;
  out.extents[0] = extent;
  out.strides[0] = stride;
  for (int d = 0; d < rank; ++d) {
    out.extents[d + 1] = extents[d];
    out.strides[d + 1] = strides[d];
  }
  return out;
}

std::string StridedBlock::to_string() const {
  std::string s = "{offset " + std::to_string(offset) + ", extents [";
  for (int d = 0; d < rank; ++d) s += (d ? "," : "") + std::to_string(extents[d]);
  s += "], strides [";
  for (int d = 0; d < rank; ++d) s += (d ? "," : "") + std::to_string(strides[d]);
  return s + "]}";
}

void normalize_together(StridedBlock& a, StridedBlock& b) {
  StridedBlock x, y;
  x.offset = a.offset;
  y.offset = b.offset;
  int n = 0;
  for (int d = 0; d < a.rank; ++d) {
    if (a.extents[d] == 1) continue;
    if (n > 0 && x.strides[n - 1] == a.strides[d] * a.extents[d] &&
        y.strides[n - 1] == b.strides[d] * b.extents[d]) {
      x.extents[n - 1] *= a.extents[d];
      y.extents[n - 1] *= b.extents[d];
      x.strides[n - 1] = a.strides[d];
      y.strides[n - 1] = b.strides[d];
      continue;
    }
    x.extents[n] = a.extents[d];
    y.extents[n] = b.extents[d];
    x.strides[n] = a.strides[d];
    y.strides[n] = b.strides[d];
    ++n;
  }
  x.rank = y.rank = n;
  a = x;
  b = y;
}

namespace {
void walk_order(const StridedBlock& b, int* perm) {
  // Insertion sort, stable, by decreasing |stride|: rank <= 8, and no
  // allocation (std::stable_sort takes a temporary buffer), since copies
  // call this on every execution.
  for (int d = 0; d < b.rank; ++d) perm[d] = d;
  for (int i = 1; i < b.rank; ++i)
    for (int j = i; j > 0 && std::llabs(b.strides[perm[j - 1]]) < std::llabs(b.strides[perm[j]]);
         --j)
      std::swap(perm[j - 1], perm[j]);
}
}  // namespace

void order_together_by(StridedBlock& order, StridedBlock& other) {
  int perm[kMaxBlockRank] = {};
  walk_order(order, perm);
  StridedBlock a = order, b = other;
  for (int d = 0; d < order.rank; ++d) {
    a.extents[d] = order.extents[perm[d]];
    a.strides[d] = order.strides[perm[d]];
    b.extents[d] = other.extents[perm[d]];
    b.strides[d] = other.strides[perm[d]];
  }
  normalize_together(a, b);
  order = a;
  other = b;
}

bool same_walk_order(const StridedBlock& a, const StridedBlock& b) {
  if (a.rank != b.rank) return false;
  int pa[kMaxBlockRank] = {}, pb[kMaxBlockRank] = {};
  walk_order(a, pa);
  walk_order(b, pb);
  for (int d = 0; d < a.rank; ++d)
    if (a.extents[pa[d]] > 1 && pa[d] != pb[d]) return false;
  return true;
}

bool same_extents(const StridedBlock& a, const StridedBlock& b) {
  if (a.rank != b.rank) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.extents[d] != b.extents[d]) return false;
  return true;
}

bool same_shape(const StridedBlock& a, const StridedBlock& b) {
  if (!same_extents(a, b)) return false;
  for (int d = 0; d < a.rank; ++d)
    if (a.strides[d] != b.strides[d]) return false;
  return true;
}

}  // namespace adlib
