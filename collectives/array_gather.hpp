// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// ArrayGather: the array form of Adlib's Gather,
/// `dst[i] = src[subs_0[i], ..., subs_{R-1}[i]]` for every element i of `dst`
/// where `mask[i]` is true, with one subscript array per dimension of `src`
/// (and the optional mask) distributed like `dst`.  `src` and `dst` may have
/// any ranks and distributions.
///
/// @code
///   adlib::DistArray<double, 2> src(grid, {adlib::block(n), adlib::cyclic(m)});
///   adlib::DistArray<double, 1> dst(line, {adlib::block(k)});
///   adlib::DistArray<adlib::Index, 1> rows(line, {adlib::block(k)}), cols(line,
///   {adlib::block(k)});
///   ...                                                   // fill rows, cols
///   adlib::ArrayGather fetch(dst, src, std::array{rows, cols});  // plan once (collective)
///   fetch.execute(dst, src);                             // dst[i] = src[rows[i], cols[i]]
///   adlib::gather(dst, src, std::array{rows, cols}, mask);  // one-shot, where mask[i]
/// @endcode
///
/// Construction is collective over the communicator: every rank reads the
/// subscripts of the elements it holds of `dst` (owned elements, not ghosts;
/// every replica of a replicated `dst` fills its own copy), tells their
/// owners what it needs with one sparse exchange, and builds a DataSchedule
/// (schedules/data_schedule.hpp; the pure planning is
/// collectives/array_subscripts.hpp).  A replicated `src` is read from this
/// rank's own copy when it has one, else from replica (rank mod replicas).
/// An element of `src` wanted by several elements of `dst` travels once.
/// Elements of `dst` where the mask is false are left unchanged.  The
/// subscripts are positions of `src` (of its section, for a section).
///
/// Errors, the same adlib::Error on every rank before any message: a
/// subscript out of range (its dimension, value and position in `dst`), a
/// subscript array or mask not distributed like `dst`, element types or
/// configurations that differ between ranks, a `src` of rank > 1 padded
/// (wrapped with a leading dimension larger than its local extent).  A wrong
/// number of subscript arrays does not compile.
///
/// The subscripts and the mask are read once, at construction, through host
/// copies (index-list schedules run in host memory spaces only for now, as
/// schedules/data_schedule.hpp says); afterwards any arrays of the planned layouts may be gathered,
/// as often as needed (`execute(dst, src)` checks the layouts).  `dst` and `src` must not share
/// memory.  That construction, the layout check and the inquiries are
/// shared with ArrayScatter (collectives/array_subscript_schedule.hpp).
#pragma once

#include <Kokkos_Core.hpp>
#include <array>
#include <cstddef>
#include <type_traits>

#include <adlib/collectives/array_subscript_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/configuration.hpp>

namespace adlib {

/// A planned array gather (see the file overview): construct once
/// (collective), execute many times.  `DstRank`: the rank of the destination,
/// the subscript arrays and the mask; `SrcRank`: the source's rank, and the
/// number of subscript arrays.  size(), destination_layout(),
/// source_layout() and negotiation() are ArraySubscriptSchedule's, shared
/// with ArrayScatter.
template <class T, int DstRank, int SrcRank,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class ArrayGather : public ArraySubscriptSchedule<T, MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "ArrayGather moves elements as bytes");

 public:
  /// The arrays it writes.
  using destination_type = DistArray<T, DstRank, MemorySpace>;
  /// The arrays it reads.
  using source_type = DistArray<T, SrcRank, MemorySpace>;
  /// One subscript array per source dimension, distributed like the destination.
  using subscripts_type =
      std::array<DistArray<Index, DstRank, MemorySpace>, static_cast<std::size_t>(SrcRank)>;
  /// Which destination elements are gathered, distributed like the destination.
  using mask_type = DistArray<bool, DstRank, MemorySpace>;

  /// Plans dst[i] = src[subscripts[0][i], ...] for every element i of
  /// arrays of `dst`'s layout, from arrays of `src`'s layout.  Collective;
  /// the element type, the layouts and `config` must be the same on every
  /// rank.
  ArrayGather(const destination_type& dst, const source_type& src,
              const subscripts_type& subscripts,
              const Configuration& config = Configuration::environment())
      : ArrayGather(dst.layout(), src.layout(), subscripts, nullptr, config) {}
  /// The same where `mask` is true only.
  ArrayGather(const destination_type& dst, const source_type& src,
              const subscripts_type& subscripts, const mask_type& mask,
              const Configuration& config = Configuration::environment())
      : ArrayGather(dst.layout(), src.layout(), subscripts, &mask, config) {}

  /// dst[i] = src[subscripts(i)] where the mask is true; `dst` and `src` must
  /// have the planned layouts.
  void execute(const destination_type& dst, const source_type& src) {
    start(dst, src);
    this->finish();
  }
  /// execute() in two halves: start() posts the messages and does the local
  /// copies; `dst` must not be read, nor `src` written, before finish().
  void start(const destination_type& dst, const source_type& src) {
    this->agree_to_execute_on(dst, src, "ArrayGather::execute");
    this->schedule_->start_read(dst.local_view().data(), dst.local_view().span(),
                                src.local_view().data(), src.local_view().span());
  }

  /// Gathered elements whose source element an earlier one already fetched:
  /// copied locally, not sent.
  std::size_t repeats() const { return this->schedule_->repeats(); }

 private:
  ArrayGather(const ArrayLayout& dst, const ArrayLayout& src, const subscripts_type& subscripts,
              const mask_type* mask, const Configuration& config)
      : ArraySubscriptSchedule<T, MemorySpace>(dst, src, subscripts, mask, RemoteAccess::read,
                                               "ArrayGather", 0, config) {}
};

/// Deduction guides: adlib::ArrayGather g(dst, src, std::array{i, j}) takes
/// T, the ranks and MemorySpace from the arrays.
template <class T, int D, int R, class M, std::size_t N>
ArrayGather(const DistArray<T, D, M>&, const DistArray<T, R, M>&,
            const std::array<DistArray<Index, D, M>, N>&) -> ArrayGather<T, D, R, M>;
/// See above (with a Configuration).
template <class T, int D, int R, class M, std::size_t N>
ArrayGather(const DistArray<T, D, M>&, const DistArray<T, R, M>&,
            const std::array<DistArray<Index, D, M>, N>&, const Configuration&)
    -> ArrayGather<T, D, R, M>;
/// See above (with a mask).
template <class T, int D, int R, class M, std::size_t N>
ArrayGather(const DistArray<T, D, M>&, const DistArray<T, R, M>&,
            const std::array<DistArray<Index, D, M>, N>&, const DistArray<bool, D, M>&)
    -> ArrayGather<T, D, R, M>;
/// See above (with a mask and a Configuration).
template <class T, int D, int R, class M, std::size_t N>
ArrayGather(const DistArray<T, D, M>&, const DistArray<T, R, M>&,
            const std::array<DistArray<Index, D, M>, N>&, const DistArray<bool, D, M>&,
            const Configuration&) -> ArrayGather<T, D, R, M>;

/// One-shot array gather (collective): plan, dst[i] = src[subscripts(i)],
/// drop the schedule.
template <class T, int D, int R, class M, std::size_t N>
void gather(const DistArray<T, D, M>& dst, const DistArray<T, R, M>& src,
            const std::array<DistArray<Index, D, M>, N>& subscripts) {
  static_assert(N == static_cast<std::size_t>(R), "one subscript array per source dimension");
  ArrayGather<T, D, R, M> schedule(dst, src, subscripts);
  schedule.execute(dst, src);
}
/// The same where `mask` is true only.
template <class T, int D, int R, class M, std::size_t N>
void gather(const DistArray<T, D, M>& dst, const DistArray<T, R, M>& src,
            const std::array<DistArray<Index, D, M>, N>& subscripts,
            const DistArray<bool, D, M>& mask) {
  static_assert(N == static_cast<std::size_t>(R), "one subscript array per source dimension");
  ArrayGather<T, D, R, M> schedule(dst, src, subscripts, mask);
  schedule.execute(dst, src);
}

}  // namespace adlib
