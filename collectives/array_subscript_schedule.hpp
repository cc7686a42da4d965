// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// What the array forms of Gather and Scatter share (collectives/
/// array_gather.hpp, collectives/array_scatter.hpp): a DataSchedule planned
/// from subscript arrays (and an optional mask) aligned with one array and
/// indexing the other, and the layout check of every execution.  The two
/// differ only in direction: an ArrayGather reads the source it indexes into
/// the destination it is aligned with; an ArrayScatter combines the source it
/// is aligned with into the destination it indexes, with a combine
/// operation.  The derived classes keep that, and their typed arrays.
///
/// @code
///   // An ArrayGather's constructor: the subscripts index the source and are
///   // aligned with the destination (an ArrayScatter's: RemoteAccess::write,
///   // "ArrayScatter", op::fingerprint<Combine>()).
///   : ArraySubscriptSchedule<T, MemorySpace>(dst, src, subscripts, mask, RemoteAccess::read,
///                                            "ArrayGather", 0, config) {}
///   // Its start():
///   this->agree_to_execute_on(dst, src, "ArrayGather::execute");
///   this->schedule_->start_read(dst.local_view().data(), dst.local_view().span(),
///                               src.local_view().data(), src.local_view().span());
/// @endcode
///
/// Construction is collective over the indexed array's communicator: every
/// rank copies the subscripts and the mask of the elements it holds to the
/// host (index-list schedules run in host memory spaces only for now, as
/// schedules/data_schedule.hpp says), resolves them to element requests
/// (collectives/array_subscripts.hpp, the pure planning), and the
/// DataSchedule negotiates with the owners and agrees on the layouts, the
/// element type, the combine operation, the mask's presence and the
/// configuration.
///
/// Users name ArrayGather or ArrayScatter, never ArraySubscriptSchedule; it
/// is in namespace adlib, not adlib::detail, because the API reference
/// leaves detail out, and with it the members ArrayGather and ArrayScatter
/// inherit.
#pragma once

#include <Kokkos_Core.hpp>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <adlib/collectives/array_subscripts.hpp>
#include <adlib/collectives/detail/planned_schedule.hpp>
#include <adlib/collectives/runs_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
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

/// The planned access of the elements that subscript arrays name, read or
/// written (see the file overview): the base of ArrayGather and
/// ArrayScatter, with their construction, inquiries and execution check.
template <class T, class MemorySpace>
class ArraySubscriptSchedule : public RunsSchedule<MemorySpace, DataSchedule<MemorySpace>> {
 public:
  /// The number of requests this rank makes: an ArrayGather's destination
  /// elements (held, mask true), an ArrayScatter's contributions (one per
  /// replica of the target).
  std::size_t size() const { return count_; }
  /// The layout every destination must have.
  const ArrayLayout& destination_layout() const { return destination_; }
  /// The layout every source must have.
  const ArrayLayout& source_layout() const { return source_; }
  /// What the build-time negotiation cost this rank.
  const SparseExchangeStatistics& negotiation() const { return this->schedule_->negotiation(); }

 protected:
  /// Plans `access` (collective): a read of `source` into `destination`,
  /// the subscripts aligned with the destination and indexing the source; or
  /// a write of `source` into `destination`, the subscripts aligned with the
  /// source and indexing the destination.  `mask`: null for none.  `name`:
  /// the collective, which errors name; `combine`: op::fingerprint of a
  /// write's combine operation (0 for a read), which every rank must pass
  /// alike.
  template <int Rank, std::size_t Count>
  ArraySubscriptSchedule(const ArrayLayout& destination, const ArrayLayout& source,
                         const std::array<DistArray<Index, Rank, MemorySpace>, Count>& subscripts,
                         const DistArray<bool, Rank, MemorySpace>* mask, RemoteAccess access,
                         const char* name, std::uint64_t combine, const Configuration& config)
      : RunsSchedule<MemorySpace, DataSchedule<MemorySpace>>(config),
        destination_(destination),
        source_(source),
        name_(name) {
    const bool read = access == RemoteAccess::read;
    const ArrayLayout& indexed = read ? source : destination;
    const ArrayLayout& aligned = read ? destination : source;
    const ResolvedSubscripts resolved = detail::resolve_array_form(
        indexed, aligned, subscripts, mask, access, config.error, read ? "destination" : "source");
    count_ = resolved.requests.size();
    // Named, so that a rank passing other arguments is told which (one
    // MPI_Allreduce when all agree; the DataSchedule agrees on its own plan).
    std::vector<AgreedArgument> arguments{agreed_layout("destination layout", destination),
                                          agreed_layout("source layout", source)};
    for (const auto& s : subscripts)
      arguments.push_back(agreed_layout("subscripts' layout", s.layout()));
    arguments.push_back(mask ? agreed_layout("mask", mask->layout())
                             : AgreedArgument{"mask", 0, [] { return std::string("none"); }});
    arguments.push_back(agreed_element_type<T>());
    arguments.push_back(agreed_combine(combine));
    arguments.push_back(agreed_configuration(config));
    agree_on_arguments(indexed.group().grid().comm(), resolved.error, arguments, name);
    // Agreed above: every rank reaches here with the same arguments and no
    // error, so the DataSchedule agrees on its plan alone.
    this->schedule_ = std::make_unique<DataSchedule<MemorySpace>>(
        indexed.group().grid().comm(), resolved.requests, access,
        detail::inner_configuration(config), name);
    this->schedule_->template prepare<T>();
  }

  /// Before an execution posts anything: this rank's verdict on the arrays
  /// passed (planned layouts: fine; sharing memory: refused, see overlap()),
  /// then RunsSchedule::agree_to_execute over the two arrays, `operation`
  /// and `combine` as it takes them.
  template <int DestinationRank, int SourceRank>
  void agree_to_execute_on(const DistArray<T, DestinationRank, MemorySpace>& destination,
                           const DistArray<T, SourceRank, MemorySpace>& source,
                           const char* operation, std::uint64_t combine = 0) const {
    std::string error;
    if (overlap(destination, source))
      error = std::string("destination and source share memory; an ") + name_ +
              " reads and writes elements in message order, so it would read elements it had "
              "already overwritten: use a separate destination";
    else if (destination.layout() != destination_)
      error = "destination has layout " + destination.layout().describe() + " but the " + name_ +
              " was built for " + destination_.describe();
    else if (source.layout() != source_)
      error = "source has layout " + source.layout().describe() + " but the " + name_ +
              " was built for " + source_.describe();
    this->agree_to_execute(error, 2, operation, combine);
  }

 private:
  /// Do `destination` and `source` overlap: the same allocation, as
  /// overlapping sections (or views of other numbers of dimensions)?  Such
  /// an execution would read elements it had already overwritten.  The same
  /// answer on every rank, since it compares allocations, not pointers.
  template <int DestinationRank, int SourceRank>
  static bool overlap(const DistArray<T, DestinationRank, MemorySpace>& destination,
                      const DistArray<T, SourceRank, MemorySpace>& source) {
    if (!destination.shares_allocation_with(source)) return false;
    if constexpr (DestinationRank == SourceRank)
      return destination.layout().overlaps(source.layout());
    return true;
  }

  ArrayLayout destination_, source_;
  std::size_t count_ = 0;
  const char* name_;  ///< "ArrayGather" or "ArrayScatter", for errors
};

}  // namespace adlib
