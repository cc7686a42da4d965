// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// ArrayScatter: the array form of Adlib's Scatter, the mirror of ArrayGather:
/// `dst[subs_0[i], ..., subs_{R-1}[i]] = combine(dst[...], src[i])` for every
/// element i of `src` where `mask[i]` is true, with one subscript array per
/// dimension of `dst` (and the optional mask) distributed like `src`.
///
/// @code
///   adlib::DistArray<double, 2> histogram(grid, {adlib::block(n), adlib::block(m)});
///   adlib::DistArray<double, 1> weights(line, {adlib::cyclic(k)});
///   adlib::DistArray<adlib::Index, 1> bx(line, {adlib::cyclic(k)}), by(line, {adlib::cyclic(k)});
///   adlib::ArrayScatter add(histogram, weights, std::array{bx, by});  // op::add by default
///   add.execute(histogram, weights);      // histogram[bx[i], by[i]] += weights[i]
///   adlib::scatter(histogram, weights, std::array{bx, by}, mask, adlib::op::max);  // one-shot
/// @endcode
///
/// Every contribution travels, repeated targets included, and is combined
/// into its target with the combine operation (runtime/combine.hpp: op::add
/// by default, op::replace, op::min, op::max, op::product, op::combine(f)),
/// in the order of schedules/data_schedule.hpp: an owner applies its own
/// contributions first, then the other ranks' in rank order, each rank's in C
/// order of its local positions, so a combining scatter gives the same result
/// in every run, bitwise.  With op::replace an element that several ranks
/// write ends up as one of those ranks' last contribution to it.
///
/// Replicated arrays.  Every replica of a replicated `dst` receives every
/// contribution, so the replicas stay equal.  Of a replicated `src` (and its
/// subscripts and mask), only replica 0 of each element (the first of
/// ArrayLayout::ranks_holding) contributes, so each element of `src` counts
/// once; the other replicas' copies are not read.
///
/// Construction is collective and agrees across ranks on the layouts, the
/// element type, the combine operation and the configuration; subscripts
/// out of range, subscript arrays or a mask not distributed like `src`, or a
/// padded `dst` of rank > 1 are the same adlib::Error on every rank, before
/// any message (collectives/array_gather.hpp says more).  That construction,
/// the layout check and the inquiries are shared with ArrayGather
/// (collectives/array_subscript_schedule.hpp).
#pragma once

#include <Kokkos_Core.hpp>
#include <array>
#include <cstddef>
#include <type_traits>

#include <adlib/collectives/array_subscript_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/configuration.hpp>

namespace adlib {

/// A planned array scatter (see the file overview): construct once
/// (collective), execute many times.  `DstRank`: the destination's rank and
/// the number of subscript arrays; `SrcRank`: the rank of the source, the
/// subscript arrays and the mask.  size(), destination_layout(),
/// source_layout() and negotiation() are ArraySubscriptSchedule's, shared
/// with ArrayGather.
template <class T, int DstRank, int SrcRank,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space, class Combine = op::Add>
class ArrayScatter : public ArraySubscriptSchedule<T, MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "ArrayScatter moves elements as bytes");

 public:
  /// The arrays it combines into.
  using destination_type = DistArray<T, DstRank, MemorySpace>;
  /// The arrays of values.
  using source_type = DistArray<T, SrcRank, MemorySpace>;
  /// One subscript array per destination dimension, distributed like the source.
  using subscripts_type =
      std::array<DistArray<Index, SrcRank, MemorySpace>, static_cast<std::size_t>(DstRank)>;
  /// Which source elements contribute, distributed like the source.
  using mask_type = DistArray<bool, SrcRank, MemorySpace>;

  /// Plans dst[subscripts(i)] combine= src[i] for every element i of arrays
  /// of `src`'s layout into arrays of `dst`'s layout.  Collective; the
  /// element type, layouts, operation and `config` must agree on every rank.
  ArrayScatter(const destination_type& dst, const source_type& src,
               const subscripts_type& subscripts, Combine combine = {},
               const Configuration& config = Configuration::environment())
      : ArrayScatter(dst.layout(), src.layout(), subscripts, nullptr, combine, config) {}
  /// The same where `mask` is true only.
  ArrayScatter(const destination_type& dst, const source_type& src,
               const subscripts_type& subscripts, const mask_type& mask, Combine combine = {},
               const Configuration& config = Configuration::environment())
      : ArrayScatter(dst.layout(), src.layout(), subscripts, &mask, combine, config) {}

  /// dst[subscripts(i)] combine= src[i] where the mask is true; `dst` and
  /// `src` must have the planned layouts.
  void execute(const destination_type& dst, const source_type& src) {
    start(dst, src);
    this->finish();
  }
  /// execute() in two halves: neither `dst` nor `src` may be touched before
  /// finish().
  void start(const destination_type& dst, const source_type& src) {
    this->agree_to_execute_on(dst, src, "ArrayScatter::execute", op::fingerprint(combine_));
    this->schedule_->start_write(dst.local_view().data(), dst.local_view().span(),
                                 static_cast<const T*>(src.local_view().data()),
                                 src.local_view().span(), combine_);
  }

  /// The combine operation.
  const Combine& combine() const { return combine_; }

 private:
  ArrayScatter(const ArrayLayout& dst, const ArrayLayout& src, const subscripts_type& subscripts,
               const mask_type* mask, Combine combine, const Configuration& config)
      : ArraySubscriptSchedule<T, MemorySpace>(dst, src, subscripts, mask, RemoteAccess::write,
                                               "ArrayScatter", op::fingerprint(combine), config),
        combine_(combine) {}

  Combine combine_;
};

/// Deduction guides: adlib::ArrayScatter s(dst, src, std::array{i, j}) adds;
/// with an operation after the subscripts (or the mask) it combines with it.
template <class T, int D, int R, class M, std::size_t N>
ArrayScatter(const DistArray<T, D, M>&, const DistArray<T, R, M>&,
             const std::array<DistArray<Index, R, M>, N>&) -> ArrayScatter<T, D, R, M, op::Add>;
/// See above.
template <class T, int D, int R, class M, std::size_t N, class Combine>
ArrayScatter(const DistArray<T, D, M>&, const DistArray<T, R, M>&,
             const std::array<DistArray<Index, R, M>, N>&, Combine)
    -> ArrayScatter<T, D, R, M, Combine>;
/// See above.
template <class T, int D, int R, class M, std::size_t N>
ArrayScatter(const DistArray<T, D, M>&, const DistArray<T, R, M>&,
             const std::array<DistArray<Index, R, M>, N>&, const DistArray<bool, R, M>&)
    -> ArrayScatter<T, D, R, M, op::Add>;
/// See above.
template <class T, int D, int R, class M, std::size_t N, class Combine>
ArrayScatter(const DistArray<T, D, M>&, const DistArray<T, R, M>&,
             const std::array<DistArray<Index, R, M>, N>&, const DistArray<bool, R, M>&, Combine)
    -> ArrayScatter<T, D, R, M, Combine>;

/// One-shot array scatter (collective): plan, dst[subscripts(i)] combine=
/// src[i], drop the schedule.
template <class T, int D, int R, class M, std::size_t N, class Combine = op::Add,
          class = std::enable_if_t<!std::is_same<Combine, DistArray<bool, R, M>>::value>>
void scatter(const DistArray<T, D, M>& dst, const DistArray<T, R, M>& src,
             const std::array<DistArray<Index, R, M>, N>& subscripts, Combine combine = {}) {
  static_assert(N == static_cast<std::size_t>(D), "one subscript array per destination dimension");
  ArrayScatter<T, D, R, M, Combine> schedule(dst, src, subscripts, combine);
  schedule.execute(dst, src);
}
/// The same where `mask` is true only.
template <class T, int D, int R, class M, std::size_t N, class Combine = op::Add>
void scatter(const DistArray<T, D, M>& dst, const DistArray<T, R, M>& src,
             const std::array<DistArray<Index, R, M>, N>& subscripts,
             const DistArray<bool, R, M>& mask, Combine combine = {}) {
  static_assert(N == static_cast<std::size_t>(D), "one subscript array per destination dimension");
  ArrayScatter<T, D, R, M, Combine> schedule(dst, src, subscripts, mask, combine);
  schedule.execute(dst, src);
}

}  // namespace adlib
