// Pack and unpack of strided blocks (Adlib's strGather / strScatter).
//
//   pack_block<T>(space, memory, block, buffer)     buffer[0..count) <- block of memory
//   unpack_block<T>(space, memory, block, buffer)   block of memory <- buffer[0..count)
//   copy_block<T>(space, dst, dst_block, src, src_block)   equal extents
//
// All three are one operation: an element-by-element copy between two blocks
// of equal extents, walked in C order (a pack buffer is the dense block of
// the same extents).  They run as Kokkos kernels in `space` and do not fence
// (the caller fences once before handing buffers to MPI).  Host execution
// spaces walk the blocks row by row with an odometer (no integer division per
// element; the inner loop is a plain contiguous or strided copy the compiler
// vectorises); device spaces run one thread per element and decode the
// multi-index.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "runtime/strided_block.hpp"

namespace adlib {
namespace detail {

template <class ExecSpace>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
}

// Memory offset of the element at C-order position p (device walk).
KOKKOS_INLINE_FUNCTION std::int64_t element_offset(const StridedBlock& b, std::int64_t p) {
  std::int64_t offset = b.offset;
  for (int d = b.rank - 1; d >= 0; --d) {
    const std::int64_t i = p % b.extents[d];
    p /= b.extents[d];
    offset += i * b.strides[d];
  }
  return offset;
}

// The dense block with `b`'s extents: where b's elements sit in a buffer.
inline StridedBlock dense_like(const StridedBlock& b) {
  StridedBlock dense = b;
  dense.offset = 0;
  std::int64_t stride = 1;
  for (int d = b.rank - 1; d >= 0; --d) {
    dense.strides[d] = stride;
    stride *= b.extents[d];
  }
  return dense;
}

template <class T>
inline void copy_row(T* __restrict__ to, std::int64_t to_step, const T* __restrict__ from,
                     std::int64_t from_step, std::int64_t n) {
  // Separate loops so that each common case is a loop the compiler vectorises.
  if (to_step == 1 && from_step == 1) {
    for (std::int64_t i = 0; i < n; ++i) to[i] = from[i];
  } else if (to_step == 1) {
    for (std::int64_t i = 0; i < n; ++i) to[i] = from[i * from_step];
  } else if (from_step == 1) {
    for (std::int64_t i = 0; i < n; ++i) to[i * to_step] = from[i];
  } else {
    for (std::int64_t i = 0; i < n; ++i) to[i * to_step] = from[i * from_step];
  }
}

}  // namespace detail

// Element-by-element copy between two blocks of equal extents (the blocks
// are not normalised separately: they must keep matching dimensions).
template <class T, class ExecSpace>
void copy_block(const ExecSpace& space, T* dst, const StridedBlock& dst_block, const T* src,
                const StridedBlock& src_block) {
  const std::int64_t n = src_block.count();
  if (n == 0) return;
  const StridedBlock d = dst_block, s = src_block;
  if constexpr (detail::runs_on_host<ExecSpace>()) {
    if (s.rank == 0) {
      dst[d.offset] = src[s.offset];
      return;
    }
    const int r = s.rank;
    const std::int64_t inner = s.extents[r - 1];
    const std::int64_t outer = r == 1 ? 1 : s.extents[0];
    std::int64_t rows_per_outer = 1;
    for (int k = 1; k < r - 1; ++k) rows_per_outer *= s.extents[k];
    // Parallel over the outermost dimension; an odometer over the middle ones.
    Kokkos::parallel_for(
        "adlib::copy", Kokkos::RangePolicy<ExecSpace>(space, 0, outer), [=](std::int64_t o) {
          std::int64_t index[kMaxBlockRank] = {};
          std::int64_t so = s.offset + (r > 1 ? o * s.strides[0] : 0);
          std::int64_t dof = d.offset + (r > 1 ? o * d.strides[0] : 0);
          for (std::int64_t row = 0; row < rows_per_outer; ++row) {
            detail::copy_row(dst + dof, d.strides[r - 1], src + so, s.strides[r - 1], inner);
            for (int k = r - 2; k >= 1; --k) {
              so += s.strides[k];
              dof += d.strides[k];
              if (++index[k] < s.extents[k]) break;
              so -= s.strides[k] * s.extents[k];
              dof -= d.strides[k] * d.extents[k];
              index[k] = 0;
            }
          }
        });
  } else {
    Kokkos::parallel_for(
        "adlib::copy", Kokkos::RangePolicy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(std::int64_t p) {
          dst[detail::element_offset(d, p)] = src[detail::element_offset(s, p)];
        });
  }
}

template <class T, class ExecSpace>
void pack_block(const ExecSpace& space, const T* memory, const StridedBlock& block, T* buffer) {
  const StridedBlock b = block.normalized();
  copy_block<T>(space, buffer, detail::dense_like(b), memory, b);
}

template <class T, class ExecSpace>
void unpack_block(const ExecSpace& space, T* memory, const StridedBlock& block, const T* buffer) {
  const StridedBlock b = block.normalized();
  copy_block<T>(space, memory, b, buffer, detail::dense_like(b));
}

}  // namespace adlib
