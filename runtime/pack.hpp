// Pack and unpack of strided blocks (Adlib's strGather / strScatter).
//
//   pack_block<T>(space, memory, block, buffer)     buffer[0..count) <- block of memory
//   unpack_block<T>(space, memory, block, buffer)   block of memory <- buffer[0..count)
//   copy_block<T>(space, dst, dst_block, src, src_block)   equal extents
//
// They run as Kokkos kernels in `space`; they do not fence (the caller fences
// once before handing buffers to MPI).  Host execution spaces walk the block
// row by row with an odometer (no integer division per element, the inner
// loop is a plain strided or contiguous copy the compiler vectorises); device
// spaces launch one thread per element and decode the multi-index.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "runtime/strided_block.hpp"

namespace adlib {
namespace detail {

template <class ExecSpace>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
}

// Host walk: calls row(memory_offset, buffer_offset) for every innermost row
// of a block whose outermost index is `outer` (rank >= 1).
template <class RowFunction>
inline void for_each_row(const StridedBlock& b, std::int64_t outer, RowFunction&& row) {
  const int r = b.rank;
  const std::int64_t inner = b.extents[r - 1];
  std::int64_t rows_per_outer = 1;
  for (int d = 1; d < r - 1; ++d) rows_per_outer *= b.extents[d];
  std::int64_t index[kMaxBlockRank] = {};
  std::int64_t offset = b.offset + outer * b.strides[0];
  std::int64_t position = outer * rows_per_outer * inner;
  if (r == 1) {
    row(b.offset, 0);
    return;
  }
  for (std::int64_t k = 0; k < rows_per_outer; ++k) {
    row(offset, position);
    position += inner;
    // Odometer over dimensions r-2 .. 1.
    for (int d = r - 2; d >= 1; --d) {
      offset += b.strides[d];
      if (++index[d] < b.extents[d]) break;
      offset -= b.strides[d] * b.extents[d];
      index[d] = 0;
    }
  }
}

// Device walk helper: memory offset of the element at C-order position p.
KOKKOS_INLINE_FUNCTION std::int64_t element_offset(const StridedBlock& b, std::int64_t p) {
  std::int64_t offset = b.offset;
  for (int d = b.rank - 1; d >= 0; --d) {
    const std::int64_t i = p % b.extents[d];
    p /= b.extents[d];
    offset += i * b.strides[d];
  }
  return offset;
}

}  // namespace detail

template <class T, class ExecSpace>
void pack_block(const ExecSpace& space, const T* memory, const StridedBlock& block, T* buffer) {
  const StridedBlock b = block.normalized();
  const std::int64_t n = b.count();
  if (n == 0) return;
  if (b.rank == 0) {
    Kokkos::parallel_for(
        "adlib::pack0", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
        KOKKOS_LAMBDA(std::int64_t) { buffer[0] = memory[b.offset]; });
    return;
  }
  if constexpr (detail::runs_on_host<ExecSpace>()) {
    const std::int64_t inner = b.extents[b.rank - 1], step = b.strides[b.rank - 1];
    const std::int64_t outer = b.rank == 1 ? 1 : b.extents[0];
    Kokkos::parallel_for("adlib::pack", Kokkos::RangePolicy<ExecSpace>(space, 0, outer),
                         [=](std::int64_t o) {
                           detail::for_each_row(b, o, [&](std::int64_t from, std::int64_t to) {
                             const T* __restrict__ source = memory + from;
                             T* __restrict__ target = buffer + to;
                             if (step == 1) {
                               for (std::int64_t i = 0; i < inner; ++i) target[i] = source[i];
                             } else {
                               for (std::int64_t i = 0; i < inner; ++i)
                                 target[i] = source[i * step];
                             }
                           });
                         });
  } else {
    Kokkos::parallel_for(
        "adlib::pack", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(std::int64_t p) { buffer[p] = memory[detail::element_offset(b, p)]; });
  }
}

template <class T, class ExecSpace>
void unpack_block(const ExecSpace& space, T* memory, const StridedBlock& block, const T* buffer) {
  const StridedBlock b = block.normalized();
  const std::int64_t n = b.count();
  if (n == 0) return;
  if (b.rank == 0) {
    Kokkos::parallel_for(
        "adlib::unpack0", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
        KOKKOS_LAMBDA(std::int64_t) { memory[b.offset] = buffer[0]; });
    return;
  }
  if constexpr (detail::runs_on_host<ExecSpace>()) {
    const std::int64_t inner = b.extents[b.rank - 1], step = b.strides[b.rank - 1];
    const std::int64_t outer = b.rank == 1 ? 1 : b.extents[0];
    Kokkos::parallel_for("adlib::unpack", Kokkos::RangePolicy<ExecSpace>(space, 0, outer),
                         [=](std::int64_t o) {
                           detail::for_each_row(b, o, [&](std::int64_t to, std::int64_t from) {
                             const T* __restrict__ source = buffer + from;
                             T* __restrict__ target = memory + to;
                             if (step == 1) {
                               for (std::int64_t i = 0; i < inner; ++i) target[i] = source[i];
                             } else {
                               for (std::int64_t i = 0; i < inner; ++i)
                                 target[i * step] = source[i];
                             }
                           });
                         });
  } else {
    Kokkos::parallel_for(
        "adlib::unpack", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(std::int64_t p) { memory[detail::element_offset(b, p)] = buffer[p]; });
  }
}

// Element-by-element copy between two blocks of equal extents (the blocks
// are not normalised separately: they must keep matching dimensions).
template <class T, class ExecSpace>
void copy_block(const ExecSpace& space, T* dst, const StridedBlock& dst_block, const T* src,
                const StridedBlock& src_block) {
  const std::int64_t n = src_block.count();
  if (n == 0) return;
  if constexpr (detail::runs_on_host<ExecSpace>()) {
    const StridedBlock d = dst_block, s = src_block;
    if (s.rank == 0) {
      dst[d.offset] = src[s.offset];
      return;
    }
    const std::int64_t inner = s.extents[s.rank - 1];
    const std::int64_t sstep = s.strides[s.rank - 1], dstep = d.strides[d.rank - 1];
    const std::int64_t outer = s.rank == 1 ? 1 : s.extents[0];
    Kokkos::parallel_for("adlib::copy", Kokkos::RangePolicy<ExecSpace>(space, 0, outer),
                         [=](std::int64_t o) {
                           // Walk both blocks with the same odometer: positions coincide.
                           std::int64_t index[kMaxBlockRank] = {};
                           std::int64_t rows = 1;
                           for (int k = 1; k < s.rank - 1; ++k) rows *= s.extents[k];
                           std::int64_t so = s.offset + (s.rank > 1 ? o * s.strides[0] : 0);
                           std::int64_t doff = d.offset + (d.rank > 1 ? o * d.strides[0] : 0);
                           for (std::int64_t r = 0; r < rows; ++r) {
                             const T* __restrict__ from = src + so;
                             T* __restrict__ to = dst + doff;
                             if (sstep == 1 && dstep == 1) {
                               for (std::int64_t i = 0; i < inner; ++i) to[i] = from[i];
                             } else {
                               for (std::int64_t i = 0; i < inner; ++i)
                                 to[i * dstep] = from[i * sstep];
                             }
                             for (int k = s.rank - 2; k >= 1; --k) {
                               so += s.strides[k];
                               doff += d.strides[k];
                               if (++index[k] < s.extents[k]) break;
                               so -= s.strides[k] * s.extents[k];
                               doff -= d.strides[k] * d.extents[k];
                               index[k] = 0;
                             }
                           }
                         });
  } else {
    const StridedBlock d = dst_block, s = src_block;
    Kokkos::parallel_for(
        "adlib::copy", Kokkos::RangePolicy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(std::int64_t p) {
          dst[detail::element_offset(d, p)] = src[detail::element_offset(s, p)];
        });
  }
}

}  // namespace adlib
