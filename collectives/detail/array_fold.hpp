// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The local half of a whole-array reduction: folding the elements this
/// process holds (of an array or a section, ghosts never included) into one
/// value, in the memory space's execution space.  ArrayReduction
/// (collectives/array_reduction.hpp) combines the processes' values.
///
/// The elements are numbered k = 0 .. count-1 in C order of their section
/// positions; a LocalWalk maps k to a memory offset and to the position tuple.
/// Along each dimension the held elements are either one arithmetic
/// progression in memory (the common case: stored as base and step) or an
/// explicit table (block-cyclic tiles), built once from the layout.  When
/// the whole walk is one progression (a contiguous local block, a section
/// with one stride) offsets come from k directly, with no division.
///
/// The fold cuts 0 .. count-1 into fixed chunks; each chunk is folded with
/// kLanes independent accumulators (so that additions overlap in the
/// pipeline and vectorise), the lanes are combined in a fixed tree order, and
/// the chunks' results are combined in chunk order.  The chunk size depends
/// only on the memory space, so the result has the same bits in every run
/// whatever the number of threads.
#pragma once

#include <Kokkos_Core.hpp>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/triplet.hpp>
#include <adlib/runtime/detail/complex_arithmetic.hpp>
#include <adlib/runtime/located.hpp>

namespace adlib {
namespace detail {

/// Independent accumulators per chunk.
constexpr int kLanes = 8;

/// How element k (C order of this process's held section positions) maps
/// to memory and to its position tuple (see the file overview).  Trivially
/// copyable: kernels capture it.
template <int Rank>
struct LocalWalk {
  Index count[Rank] = {};            ///< held elements along each dimension
  Index offset_base[Rank] = {};      ///< memory offset of the first (progressions)
  Index offset_step[Rank] = {};      ///< memory offset step (progressions)
  Index position_base[Rank] = {};    ///< section position of the first (progressions)
  Index position_step[Rank] = {};    ///< section position step (progressions)
  Index table[Rank] = {};            ///< -1: a progression; else the start in the tables
  const Index* offsets = nullptr;    ///< tables of memory offsets (memory space)
  const Index* positions = nullptr;  ///< tables of section positions (memory space)
  Index total = 0;                   ///< number of held elements
  bool flat = false;                 ///< is the whole walk one progression?
  Index flat_base = 0;               ///< its first offset
  Index flat_step = 0;               ///< its step

  /// Memory offset of element k.
  KOKKOS_INLINE_FUNCTION Index offset(Index k) const {
    if (flat) return flat_base + k * flat_step;
    Index at = 0;
    for (int d = Rank - 1; d >= 0; --d) {
      const Index i = k % count[d];
      k /= count[d];
      at += table[d] < 0 ? offset_base[d] + i * offset_step[d] : offsets[table[d] + i];
    }
    return at;
  }
  /// Section position of element k along every dimension, into `out`.
  KOKKOS_INLINE_FUNCTION void position(Index k, std::int64_t* out) const {
    for (int d = Rank - 1; d >= 0; --d) {
      const Index i = k % count[d];
      k /= count[d];
      out[d] = table[d] < 0 ? position_base[d] + i * position_step[d] : positions[table[d] + i];
    }
  }
};

/// The walk of process `rank` over `layout` (nothing where it holds no data),
/// and the tables it needs, which the caller keeps alive in `tables`
/// (offsets first, then positions).
template <int Rank, class MemorySpace>
LocalWalk<Rank> make_walk(const ArrayLayout& layout, int rank,
                          Kokkos::View<Index*, MemorySpace>& tables) {
  LocalWalk<Rank> walk;
  if (!layout.holds_data(rank)) return walk;
  const std::vector<Index> strides = layout.local_strides(rank);
  std::vector<Index> offsets, positions;
  walk.total = 1;
  for (int d = 0; d < Rank; ++d) {
    // The range's canonical blocks, not the elements one by one: a block
    // distributed vector of 2^22 elements is one block, planned in O(1).
    std::vector<Block> blocks;
    const Triplet& t = layout.section_triplet(d);
    if (t.count() > 0) layout.range(d).owned_blocks(layout.coordinate(rank, d), t, blocks);
    Index n = 0;
    for (const Block& b : blocks) n += b.count;
    walk.count[d] = n;
    walk.total *= n;
    walk.table[d] = -1;
    if (n == 0) continue;
    // Position and local index of element i of block b.
    auto position = [&](const Block& b, Index i) {
      return (b.global_base + i * b.global_step - t.lo) / t.stride;
    };
    auto local = [&](const Block& b, Index i) { return b.local_base + i * b.local_step; };
    const Block& first = blocks.front();
    walk.position_base[d] = position(first, 0);
    walk.offset_base[d] = local(first, 0) * strides[d];
    // One progression: every element one step on from the one before.
    bool progression = true, stepped = false;
    Index position_step = 0, local_step = 0, last_position = 0, last_local = 0;
    bool any = false;
    for (const Block& b : blocks) {
      for (Index i : {Index(0), Index(1)}) {
        if (i >= b.count) break;
        if (any) {
          const Index dp = position(b, i) - last_position, dl = local(b, i) - last_local;
          if (!stepped) {
            position_step = dp;
            local_step = dl;
            stepped = true;
          } else if (dp != position_step || dl != local_step) {
            progression = false;
          }
        }
        any = true;
        last_position = position(b, i);
        last_local = local(b, i);
      }
      if (b.count > 2) {  // the rest of the block continues its own step
        if (b.count > 1 && (position(b, 1) - position(b, 0) != position_step ||
                            local(b, 1) - local(b, 0) != local_step))
          progression = false;
        last_position = position(b, b.count - 1);
        last_local = local(b, b.count - 1);
      }
    }
    if (progression) {
      walk.offset_step[d] = local_step * strides[d];
      walk.position_step[d] = position_step;
      continue;
    }
    walk.table[d] = static_cast<Index>(offsets.size());
    for (const Block& b : blocks)
      for (Index i = 0; i < b.count; ++i) {
        offsets.push_back(local(b, i) * strides[d]);
        positions.push_back(position(b, i));
      }
  }
  if (walk.total == 0) return walk;
  // One progression overall: every dimension with more than one element is a
  // progression whose step is the next such dimension's step times its count.
  walk.flat = true;
  Index inner_step = 0, inner_span = 0;
  for (int d = Rank - 1; d >= 0; --d) {
    walk.flat_base += walk.table[d] < 0 ? walk.offset_base[d] : offsets[walk.table[d]];
    if (walk.count[d] == 1) continue;
    if (walk.table[d] >= 0) {
      walk.flat = false;
      continue;
    }
    if (inner_span == 0)
      inner_step = walk.offset_step[d];
    else if (walk.offset_step[d] != inner_step * inner_span)
      walk.flat = false;
    inner_span = inner_span == 0 ? walk.count[d] : inner_span * walk.count[d];
  }
  walk.flat_step = inner_step;
  if (!offsets.empty()) {
    const std::size_t n = offsets.size();
    tables = Kokkos::View<Index*, MemorySpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::ArrayReduction::tables"), 2 * n);
    auto host = Kokkos::create_mirror_view(tables);
    for (std::size_t i = 0; i < n; ++i) {
      host(i) = offsets[i];
      host(n + i) = positions[i];
    }
    Kokkos::deep_copy(tables, host);
    walk.offsets = tables.data();
    walk.positions = tables.data() + n;
  }
  return walk;
}

/// Element sources: what element k at memory offset `at` contributes.

/// The array's element.
template <class T>
struct LoadElement {
  const T* data;  ///< the local block
  /// The element.
  KOKKOS_INLINE_FUNCTION T operator()(Index, Index at) const { return data[at]; }
};
/// conj(a) * b (Fortran's DOT_PRODUCT).
template <class T>
struct DotElement {
  const T* a;  ///< the first array's local block
  const T* b;  ///< the second's
  /// The term.
  KOKKOS_INLINE_FUNCTION T operator()(Index, Index at) const {
    T term = conjugate(a[at]);
    multiply_into(term, b[at]);
    return term;
  }
};
/// 1 where the mask holds, else 0.
struct CountElement {
  const bool* mask;  ///< the mask's local block
  /// The count of this element.
  KOKKOS_INLINE_FUNCTION std::int64_t operator()(Index, Index at) const { return mask[at] ? 1 : 0; }
};
/// The element with its position tuple (MAXLOC, MINLOC).
template <class T, int Rank>
struct LocatedElement {
  const T* data;         ///< the local block
  LocalWalk<Rank> walk;  ///< for the positions
  /// The element and where it is.
  KOKKOS_INLINE_FUNCTION Located<T, Rank> operator()(Index k, Index at) const {
    Located<T, Rank> v;
    v.value = data[at];
    walk.position(k, v.location);
    return v;
  }
};
/// Another source where the mask holds, the identity elsewhere.
template <class Source, class Value>
struct MaskedElement {
  Source source;     ///< what unmasked elements contribute
  const bool* mask;  ///< the mask's local block (the same offsets)
  Value identity;    ///< what masked-out elements contribute
  /// The contribution.
  KOKKOS_INLINE_FUNCTION Value operator()(Index k, Index at) const {
    return mask[at] ? source(k, at) : identity;
  }
};

/// How a chunk walks memory: consecutive offsets, one progression, or the
/// general walk.
enum class WalkKind { contiguous, strided, general };

/// Folds chunk c of the walk into partials[c] (see the file overview).
template <class Value, class Source, class Op, int Rank, WalkKind Kind>
struct FoldChunks {
  LocalWalk<Rank> walk;  ///< the elements
  Source source;         ///< what each contributes
  Op op;                 ///< how contributions combine
  Value identity;        ///< the operation's identity
  Value* partials;       ///< one result per chunk (memory space)
  Index chunk;           ///< elements per chunk

  /// The offset of element k.
  KOKKOS_INLINE_FUNCTION Index at(Index k) const {
    if (Kind == WalkKind::contiguous) return walk.flat_base + k;
    if (Kind == WalkKind::strided) return walk.flat_base + k * walk.flat_step;
    return walk.offset(k);
  }
  /// Folds chunk c.
  KOKKOS_INLINE_FUNCTION void operator()(Index c) const {
    const Index lo = c * chunk;
    const Index hi = lo + chunk < walk.total ? lo + chunk : walk.total;
    // Copies of the identity, not default-constructed lanes: std::complex's
    // constructors are host functions (runtime/detail/complex_arithmetic.hpp).
    static_assert(kLanes == 8, "the lanes below are listed one by one");
    Value lane[kLanes] = {identity, identity, identity, identity,
                          identity, identity, identity, identity};
    Index k = lo;
    for (; k + kLanes <= hi; k += kLanes)
      for (int l = 0; l < kLanes; ++l) op(lane[l], source(k + l, at(k + l)));
    for (int l = 0; k < hi; ++k, ++l) op(lane[l], source(k, at(k)));
    for (int width = kLanes / 2; width > 0; width /= 2)
      for (int l = 0; l < width; ++l) op(lane[l], lane[l + width]);
    partials[c] = lane[0];
  }
};

/// Combines partials[0 .. n) in order into partials[0] (one thread: for
/// memory the host cannot read).
template <class Value, class Op>
struct FoldPartials {
  Value* partials;  ///< the chunks' results
  Index n;          ///< how many
  Op op;            ///< how they combine
  /// Runs once.
  KOKKOS_INLINE_FUNCTION void operator()(Index) const {
    for (Index c = 1; c < n; ++c) op(partials[0], partials[c]);
  }
};

/// Elements per chunk in MemorySpace: long chunks on the host (a few
/// hundred per 2^21 elements), short ones on devices (many threads).
template <class MemorySpace>
constexpr Index chunk_elements() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible ? 8192 : 512;
}

/// The fold of `source` over `walk` with `op`, starting from `identity`;
/// `scratch` holds at least chunks(walk.total) Values.
template <class Value, class Op, int Rank, class MemorySpace, class Source>
Value fold(const LocalWalk<Rank>& walk, const Source& source, const Op& op, const Value& identity,
           void* scratch, const char* label) {
  using execution_space = typename MemorySpace::execution_space;
  constexpr Index chunk = chunk_elements<MemorySpace>();
  if (walk.total == 0) return identity;
  const Index chunks = (walk.total + chunk - 1) / chunk;
  auto* partials = static_cast<Value*>(scratch);
  const Kokkos::RangePolicy<execution_space, Kokkos::IndexType<Index>> policy(0, chunks);
  if (walk.flat && walk.flat_step == 1)
    Kokkos::parallel_for(label, policy,
                         FoldChunks<Value, Source, Op, Rank, WalkKind::contiguous>{
                             walk, source, op, identity, partials, chunk});
  else if (walk.flat)
    Kokkos::parallel_for(label, policy,
                         FoldChunks<Value, Source, Op, Rank, WalkKind::strided>{
                             walk, source, op, identity, partials, chunk});
  else
    Kokkos::parallel_for(label, policy,
                         FoldChunks<Value, Source, Op, Rank, WalkKind::general>{
                             walk, source, op, identity, partials, chunk});
  Value result = identity;
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
    execution_space().fence();
    for (Index c = 0; c < chunks; ++c) op(result, partials[c]);
  } else {
    Kokkos::parallel_for(label,
                         Kokkos::RangePolicy<execution_space, Kokkos::IndexType<Index>>(0, 1),
                         FoldPartials<Value, Op>{partials, chunks, op});
    Kokkos::View<Value, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> to(&result);
    Kokkos::View<Value, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> from(partials);
    Kokkos::deep_copy(to, from);
  }
  return result;
}

/// Bytes of scratch a fold of `total` elements of Values of `size` bytes needs.
template <class MemorySpace>
std::size_t scratch_bytes(Index total, std::size_t size) {
  constexpr Index chunk = chunk_elements<MemorySpace>();
  return static_cast<std::size_t>((total + chunk - 1) / chunk) * size;
}

}  // namespace detail
}  // namespace adlib
