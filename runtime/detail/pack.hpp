// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Pack and unpack of strided blocks (Adlib's strGather / strScatter).
///
/// @verbatim
///   pack_block<T>(space, memory, block, buffer)     buffer[0..count) <- block of memory
///   unpack_block<T>(space, memory, block, buffer)   block of memory <- buffer[0..count)
///   copy_block<T>(space, dst, dst_block, src, src_block)   equal extents
///   unpack_block<T>(space, memory, block, buffer, adlib::op::add)   memory += buffer
/// @endverbatim
///
/// All three are one operation: an element-by-element copy between two blocks
/// of equal extents, walked in C order (a pack buffer is the dense block of
/// the same extents).  They run as Kokkos kernels in `space` and do not fence
/// (the caller fences once before handing buffers to MPI).  Host execution
/// spaces walk the blocks row by row with an odometer (no integer division per
/// element; the inner loop is a plain contiguous or strided copy the compiler
/// vectorises); device spaces run one thread per element and decode the
/// multi-index.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/detail/pack_walk.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/strided_block.hpp>

namespace adlib::detail {

// The device kernels of copy_block are named functors, not KOKKOS_LAMBDAs:
// a combine operation whose type is local to a function (a user's
// KOKKOS_LAMBDA given to op::combine) may not appear in the template
// arguments of a function that defines an extended device lambda (nvcc
// rejects it), but it may be a functor's template argument.

/// One thread per element: dst's element p combined with src's element p
/// (C order of the blocks).
template <class T, class Combine>
struct CopyBlockElement {
  T* dst;             ///< destination memory
  StridedBlock to;    ///< its block
  const T* src;       ///< source memory
  StridedBlock from;  ///< its block, of the same extents
  Combine combine;    ///< how each element is applied
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    combine(dst[detail::element_offset(to, p)], src[detail::element_offset(from, p)]);
  }
};

/// The same walked by one thread in C order of the source: a destination
/// whose elements repeat then combines every value deterministically.
template <class T, class Combine>
struct CopyBlockInOrder {
  T* dst;              ///< destination memory
  StridedBlock to;     ///< its block (not injective)
  const T* src;        ///< source memory
  StridedBlock from;   ///< its block, of the same extents
  std::int64_t count;  ///< elements
  Combine combine;     ///< how each element is applied
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const {
    for (std::int64_t p = 0; p < count; ++p)
      combine(dst[detail::element_offset(to, p)], src[detail::element_offset(from, p)]);
  }
};

/// Element-by-element copy between two blocks of equal extents (the blocks
/// are not normalised separately: they must keep matching dimensions), each
/// arriving element applied to its target with `combine` (runtime/
/// combine.hpp; replace by default).  The walk follows the destination's
/// memory order, so writes are sequential whatever order the blocks were
/// declared in.  Under a combining operation, a destination block whose
/// elements may repeat (a zero or overlapping stride) is walked by one
/// thread, in C order of the source, so that repeated targets combine every
/// value deterministically.
template <class T, class ExecSpace, class Combine = op::Replace>
void copy_block(const ExecSpace& space, T* dst, const StridedBlock& dst_block, const T* src,
                const StridedBlock& src_block, Combine combine = {}) {
  const std::int64_t n = src_block.count();
  if (n == 0) return;
  // Replacing needs no order (any of the repeated values is a valid
  // result), so only combining copies pay for the test.
  if (!op::is_replace<Combine>() && !dst_block.injective()) {
    const CopyBlockInOrder<T, Combine> in_order{dst, dst_block, src, src_block, n, combine};
    if constexpr (detail::runs_on_host<ExecSpace>())
      in_order(0);  // one thread either way: no parallel region
    else
      Kokkos::parallel_for("adlib::copy_in_order", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
                           in_order);
    return;
  }
  StridedBlock d = dst_block, s = src_block;
  order_together_by(d, s);
  if constexpr (detail::runs_on_host<ExecSpace>()) {
    if (s.rank == 0) {
      combine(dst[d.offset], src[s.offset]);
      return;
    }
    // The row copy is chosen once for the whole walk: contiguous rows are
    // one memcpy each with nothing else in the loop (deciding per row cost
    // about 20 ns a row: 10 us of H3D-256's 110).
    const int r = s.rank;
    const std::int64_t inner = s.extents[r - 1];
    const std::int64_t to_step = d.strides[r - 1], from_step = s.strides[r - 1];
    if constexpr (op::is_replace<Combine>()) {
      if (to_step == 1 && from_step == 1) {
        const auto bytes = static_cast<std::size_t>(inner) * sizeof(T);
        detail::walk_rows(space, dst, d, src, s, [=](T* to, const T* from) {
          std::memcpy(static_cast<void*>(to), static_cast<const void*>(from), bytes);
        });
        return;
      }
      detail::walk_rows(space, dst, d, src, s, [=](T* to, const T* from) {
        detail::copy_row(to, to_step, from, from_step, inner);
      });
    } else {
      detail::walk_rows(space, dst, d, src, s, [=](T* to, const T* from) {
        for (std::int64_t i = 0; i < inner; ++i) combine(to[i * to_step], from[i * from_step]);
      });
    }
  } else {
    Kokkos::parallel_for("adlib::copy", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                         CopyBlockElement<T, Combine>{dst, d, src, s, combine});
  }
}

/// The most copies one copy_blocks_sharing_source() call takes.
constexpr int kMaxSharedSourceCopies = 8;

/// Several copies whose source blocks have the same extents and strides and
/// differ only in offset (a pack and a local copy reading alternate elements
/// or tiles of the same rows): the sources are walked once, in chunks that
/// stay in cache while every copy takes its part, instead of once per copy.
/// targets[k] / target_blocks[k] receive the elements of source_blocks[k].
/// At most kMaxSharedSourceCopies copies (count) at once.
template <class T, class ExecSpace>
void copy_blocks_sharing_source(const ExecSpace& space, const T* src,
                                const StridedBlock* source_blocks, T* const* targets,
                                const StridedBlock* target_blocks, int count);

/// Copies the elements of `block` of `memory` to buffer[0, block.count()), in
/// the block's C order (a message's layout).
template <class T, class ExecSpace>
void pack_block(const ExecSpace& space, const T* memory, const StridedBlock& block, T* buffer) {
  const StridedBlock b = block.normalized();
  copy_block<T>(space, buffer, detail::dense_like(b), memory, b);
}

/// The inverse of pack_block(): buffer[0, block.count()) into `block` of
/// `memory`, each element applied with `combine` (replace by default).
template <class T, class ExecSpace, class Combine = op::Replace>
void unpack_block(const ExecSpace& space, T* memory, const StridedBlock& block, const T* buffer,
                  Combine combine = {}) {
  const StridedBlock b = block.normalized();
  copy_block<T>(space, memory, b, buffer, detail::dense_like(b), combine);
}

template <class T, class ExecSpace>
void copy_blocks_sharing_source(const ExecSpace& space, const T* src,
                                const StridedBlock* source_blocks, T* const* targets,
                                const StridedBlock* target_blocks, int count) {
  if constexpr (!detail::runs_on_host<ExecSpace>()) {
    // Devices gain nothing from the shared walk: one thread per element.
    for (int k = 0; k < count; ++k)
      copy_block<T>(space, targets[k], target_blocks[k], src, source_blocks[k]);
  } else {
    if (count <= 0 || source_blocks[0].count() == 0) return;
    // One shared walk order (the source's memory order) and shared fusion:
    // the source and every target keep matching dimensions.
    StridedBlock source = source_blocks[0];
    StridedBlock target[kMaxSharedSourceCopies];
    std::int64_t source_offset[kMaxSharedSourceCopies];
    T* target_base[kMaxSharedSourceCopies];
    for (int k = 0; k < count; ++k) {
      target[k] = target_blocks[k];
      source_offset[k] = source_blocks[k].offset;
      target_base[k] = targets[k];
    }
    detail::order_all_by_first(source, target, count);
    const int r = source.rank;
    if (r == 0) {
      for (int k = 0; k < count; ++k) target_base[k][target[k].offset] = src[source_offset[k]];
      return;
    }
    const std::int64_t inner = source.extents[r - 1], sstep = source.strides[r - 1];
    const std::int64_t outer = r == 1 ? 1 : source.extents[0];
    std::int64_t rows_per_outer = 1;
    for (int d = 1; d < r - 1; ++d) rows_per_outer *= source.extents[d];
    constexpr std::int64_t kChunk = 512;  // elements per copy before the next copy's turn
    detail::host_for("adlib::copy_shared_source", space, outer, source.count() * count,
                     [=](std::int64_t o) {
                       std::int64_t index[kMaxBlockRank] = {};
                       std::int64_t so = r > 1 ? o * source.strides[0] : 0;
                       std::int64_t to[kMaxSharedSourceCopies];
                       for (int k = 0; k < count; ++k)
                         to[k] = target[k].offset + (r > 1 ? o * target[k].strides[0] : 0);
                       for (std::int64_t row = 0; row < rows_per_outer; ++row) {
                         for (std::int64_t c = 0; c < inner; c += kChunk) {
                           const std::int64_t n = inner - c < kChunk ? inner - c : kChunk;
                           for (int k = 0; k < count; ++k) {
                             const std::int64_t tstep = target[k].strides[r - 1];
                             detail::copy_row(target_base[k] + to[k] + c * tstep, tstep,
                                              src + source_offset[k] + so + c * sstep, sstep, n);
                           }
                         }
                         for (int d = r - 2; d >= 1; --d) {
                           so += source.strides[d];
                           for (int k = 0; k < count; ++k) to[k] += target[k].strides[d];
                           if (++index[d] < source.extents[d]) break;
                           so -= source.strides[d] * source.extents[d];
                           for (int k = 0; k < count; ++k)
                             to[k] -= target[k].strides[d] * target[k].extents[d];
                           index[d] = 0;
                         }
                       }
                     });
  }
}

}  // namespace adlib::detail
