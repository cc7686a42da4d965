// SPDX-License-Identifier: BSD-3-Clause
// Implementation detail of runtime/detail/pack.hpp: the row walks behind copy_block
// and copy_blocks_sharing_source.  Not part of the documented API.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include <adlib/runtime/strided_block.hpp>

namespace adlib {
namespace detail {

template <class ExecSpace>
constexpr bool runs_on_host() {
  return Kokkos::SpaceAccessibility<ExecSpace, Kokkos::HostSpace>::accessible;
}

// Elements below which a host kernel runs as a plain loop on the calling
// thread instead of a parallel region: sharing so little work costs more
// than it saves (the other threads must be woken, and where ranks
// outnumber the cores, as in the tests, each wake-up waits for a core:
// mpi_gather_scatter at 3 ranks of 2 OpenMP threads took 58 s with every
// copy a region, 0.3 s with one thread).
constexpr std::int64_t kMinThreadedElements = 4096;

// body(i) for i in [0, n) in the host execution space `space`: a kernel
// when the work (`elements`) is worth sharing among the space's threads,
// else a loop on the calling thread.  The host spaces adlib runs on
// (Serial, OpenMP, Threads) run kernels synchronously, so the two are the
// same but for the threads.
template <class ExecSpace, class Body>
void host_for(const char* name, const ExecSpace& space, std::int64_t n, std::int64_t elements,
              const Body& body) {
  if (n <= 1 || elements < kMinThreadedElements || space.concurrency() <= 1) {
    for (std::int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace>(space, 0, n), body);
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
  // Contiguous rows go to memcpy (libc's is faster than a plain loop for
  // the short rows of halos and tiles; elements are trivially copyable);
  // the strided cases are separate loops the compiler vectorises.
  if (to_step == 1 && from_step == 1) {
    std::memcpy(static_cast<void*>(to), static_cast<const void*>(from),
                static_cast<std::size_t>(n) * sizeof(T));
  } else if (to_step == 1) {
    for (std::int64_t i = 0; i < n; ++i) to[i] = from[i * from_step];
  } else if (from_step == 1) {
    for (std::int64_t i = 0; i < n; ++i) to[i * to_step] = from[i];
  } else {
    for (std::int64_t i = 0; i < n; ++i) to[i * to_step] = from[i * from_step];
  }
}

// order_together_by for one leading block and `count` partners: the same
// permutation (by the leading block's strides) and the same fusions for all.
inline void order_all_by_first(StridedBlock& lead, StridedBlock* partners, int count) {
  int perm[kMaxBlockRank];
  for (int d = 0; d < lead.rank; ++d) perm[d] = d;
  for (int i = 1; i < lead.rank; ++i)  // insertion sort: stable, rank <= 8
    for (int j = i;
         j > 0 && std::llabs(lead.strides[perm[j - 1]]) < std::llabs(lead.strides[perm[j]]); --j)
      std::swap(perm[j - 1], perm[j]);
  auto permute = [&](StridedBlock& b) {
    StridedBlock p = b;
    for (int d = 0; d < b.rank; ++d) {
      p.extents[d] = b.extents[perm[d]];
      p.strides[d] = b.strides[perm[d]];
    }
    b = p;
  };
  permute(lead);
  for (int k = 0; k < count; ++k) permute(partners[k]);
  // Drop extent-1 dimensions; fuse neighbours where every block allows it.
  int n = 0;
  for (int d = 0; d < lead.rank; ++d) {
    if (lead.extents[d] == 1) continue;
    bool fuse = n > 0 && lead.strides[n - 1] == lead.strides[d] * lead.extents[d];
    for (int k = 0; fuse && k < count; ++k)
      fuse = partners[k].strides[n - 1] == partners[k].strides[d] * partners[k].extents[d];
    auto place = [&](StridedBlock& b) {
      if (fuse) {
        b.extents[n - 1] *= b.extents[d];
        b.strides[n - 1] = b.strides[d];
      } else {
        b.extents[n] = b.extents[d];
        b.strides[n] = b.strides[d];
      }
    };
    place(lead);
    for (int k = 0; k < count; ++k) place(partners[k]);
    if (!fuse) ++n;
  }
  lead.rank = n;
  for (int k = 0; k < count; ++k) partners[k].rank = n;
}

// Calls copy_row(to, from) for every row (last dimension) of two ordered
// blocks of equal extents and rank >= 1, in parallel over the outermost
// dimension.  Blocks of rank 1 or 2 have one row per outer index; higher
// ranks walk the middle dimensions with an odometer.
template <class T, class ExecSpace, class CopyRow>
void walk_rows(const ExecSpace& space, T* dst, const StridedBlock& d, const T* src,
               const StridedBlock& s, CopyRow copy_row) {
  const int r = s.rank;
  const std::int64_t outer = r == 1 ? 1 : s.extents[0];
  if (r <= 2) {
    T* to = dst + d.offset;
    const T* from = src + s.offset;
    const std::int64_t to_pitch = r == 2 ? d.strides[0] : 0;
    const std::int64_t from_pitch = r == 2 ? s.strides[0] : 0;
    host_for("adlib::copy", space, outer, s.count(),
             [=](std::int64_t o) { copy_row(to + o * to_pitch, from + o * from_pitch); });
    return;
  }
  std::int64_t rows_per_outer = 1;
  for (int k = 1; k < r - 1; ++k) rows_per_outer *= s.extents[k];
  host_for("adlib::copy", space, outer, s.count(), [=](std::int64_t o) {
    std::int64_t index[kMaxBlockRank] = {};
    std::int64_t so = s.offset + o * s.strides[0];
    std::int64_t dof = d.offset + o * d.strides[0];
    for (std::int64_t row = 0; row < rows_per_outer; ++row) {
      copy_row(dst + dof, src + so);
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
}

}  // namespace detail

}  // namespace adlib
