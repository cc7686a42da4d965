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
/// memory.
#pragma once

#include <Kokkos_Core.hpp>
#include <array>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/collectives/array_subscripts.hpp>
#include <adlib/collectives/planned_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/schedules/data_schedule.hpp>

namespace adlib {

namespace detail {

/// Host copies of this rank's local blocks of the subscript arrays and of the
/// mask (create_mirror_view_and_copy: no copy for host memory), and what
/// resolve_array_subscripts reads of them.
template <int Rank, std::size_t Count, class MemorySpace>
class HostSubscriptCopies {
 public:
  /// The subscript arrays.
  using subscripts_type = std::array<DistArray<Index, Rank, MemorySpace>, Count>;
  /// The mask.
  using mask_type = DistArray<bool, Rank, MemorySpace>;

  /// Copies what this rank holds of `subscripts` and of `mask` (null: none).
  HostSubscriptCopies(const subscripts_type& subscripts, const mask_type* mask) {
    for (std::size_t d = 0; d < Count; ++d) {
      const auto& a = subscripts[d];
      indices_[d] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
      held_.data.push_back(indices_[d].data());
      held_.strides.push_back(a.layout().local_strides(a.process_rank()));
      layouts_.push_back(a.layout());
    }
    if (mask) {
      mask_ = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mask->local_view());
      held_.mask = mask_.data();
      held_.mask_strides = mask->layout().local_strides(mask->process_rank());
      mask_layout_.push_back(mask->layout());
    }
  }
  /// What resolve_array_subscripts reads.
  const HostSubscripts& held() const { return held_; }
  /// The subscript arrays' layouts.
  const std::vector<ArrayLayout>& layouts() const { return layouts_; }
  /// The mask's layout, or null.
  const ArrayLayout* mask_layout() const {
    return mask_layout_.empty() ? nullptr : &mask_layout_[0];
  }

 private:
  using IndexCopy = decltype(Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(),
      std::declval<typename DistArray<Index, Rank, MemorySpace>::view_type>()));
  using MaskCopy = decltype(Kokkos::create_mirror_view_and_copy(
      Kokkos::HostSpace(), std::declval<typename mask_type::view_type>()));
  std::array<IndexCopy, Count> indices_;
  MaskCopy mask_;
  HostSubscripts held_;
  std::vector<ArrayLayout> layouts_, mask_layout_;
};

/// Rank `me`'s requests of an array gather or scatter, or its error (the
/// configuration's, the arguments', or the subscripts').
template <int Rank, std::size_t Count, class MemorySpace>
ResolvedSubscripts resolve_array_form(
    const ArrayLayout& indexed, const ArrayLayout& aligned,
    const std::array<DistArray<Index, Rank, MemorySpace>, Count>& subscripts,
    const DistArray<bool, Rank, MemorySpace>* mask, RemoteAccess access,
    const std::string& caller_error, const char* what) {
  const int me = indexed.group().grid().comm().rank();
  ResolvedSubscripts out;
  const HostSubscriptCopies<Rank, Count, MemorySpace> copies(subscripts, mask);
  out.error = caller_error.empty() ? check_array_arguments(indexed, aligned, copies.layouts(),
                                                           copies.mask_layout(), me, what)
                                   : caller_error;
  // An unstructured indexed dimension: its owners are located first, every
  // rank taking part (collective), whatever its own verdict.
  std::vector<std::unordered_map<Index, Owner>> located;
  if (!indexed.plannable_locally())
    located = locate_subscript_owners(indexed, aligned, copies.held(), me, out.error.empty());
  if (out.error.empty())
    out = resolve_array_subscripts(indexed, aligned, copies.held(), me, access, located);
  return out;
}

}  // namespace detail

/// A planned array gather (see the file overview): construct once
/// (collective), execute many times.  `DstRank`: the rank of the destination,
/// the subscript arrays and the mask; `SrcRank`: the source's rank, and the
/// number of subscript arrays.
template <class T, int DstRank, int SrcRank,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class ArrayGather : public RunsSchedule<MemorySpace, DataSchedule<MemorySpace>> {
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
    std::string error;
    if (dst.layout() != destination_)
      error = "destination has layout " + dst.layout().describe() +
              " but the ArrayGather was built for " + destination_.describe();
    else if (src.layout() != source_)
      error = "source has layout " + src.layout().describe() +
              " but the ArrayGather was built for " + source_.describe();
    this->agree_to_execute(error, 2, "ArrayGather::execute");
    this->schedule_->start_read(dst.local_view().data(), dst.local_view().span(),
                                src.local_view().data(), src.local_view().span());
  }

  /// The number of destination elements this rank gathers (held, mask true).
  std::size_t size() const { return count_; }
  /// Gathered elements whose source element an earlier one already fetched:
  /// copied locally, not sent.
  std::size_t repeats() const { return this->schedule_->repeats(); }
  /// The layout every destination must have.
  const ArrayLayout& destination_layout() const { return destination_; }
  /// The layout every source must have.
  const ArrayLayout& source_layout() const { return source_; }
  /// What the build-time negotiation cost this rank.
  const SparseExchangeStatistics& negotiation() const { return this->schedule_->negotiation(); }

 private:
  ArrayGather(const ArrayLayout& dst, const ArrayLayout& src, const subscripts_type& subscripts,
              const mask_type* mask, const Configuration& config)
      : RunsSchedule<MemorySpace, DataSchedule<MemorySpace>>(config),
        destination_(dst),
        source_(src) {
    const ResolvedSubscripts resolved = detail::resolve_array_form(
        src, dst, subscripts, mask, RemoteAccess::read, config.error, "destination");
    count_ = resolved.requests.size();
    const std::uint64_t fingerprint =
        detail::hash_mix(detail::hash_mix(detail::hash_mix(dst.fingerprint(), src.fingerprint()),
                                          element_and_configuration_fingerprint<T>(config)),
                         mask ? 1u : 0u);
    this->schedule_ = std::make_unique<DataSchedule<MemorySpace>>(
        src.group().grid().comm(), resolved.requests, RemoteAccess::read,
        inner_configuration(config), "ArrayGather", resolved.error, fingerprint);
    this->schedule_->template prepare<T>();
  }

  ArrayLayout destination_, source_;
  std::size_t count_ = 0;
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
