// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// What the vector forms of Gather and Scatter share (collectives/gather.hpp,
/// collectives/scatter.hpp): a DataSchedule planned from one rank's list of
/// global subscripts of a 1-D layout, and the layout check of every
/// execution.  The two differ only in direction (a Gather reads the owners'
/// elements, a Scatter combines into them) and in the combine operation,
/// which the derived classes keep.
///
/// @code
///   // A Gather's constructor; a Scatter's passes RemoteAccess::write, "Scatter"
///   // and op::fingerprint<Combine>().
///   Gather(const ArrayLayout& layout, const std::vector<Index>& subscripts,
///          const Configuration& config)
///       : SubscriptListSchedule<T, MemorySpace>(layout, subscripts, RemoteAccess::read, "Gather",
///                                               0, config) {}
///   // Its start(), after checking the caller's memory into `error`:
///   this->agree_to_execute_on(src, "source", error, "Gather::execute");
///   this->schedule_->start_read(out, this->size(), src.local_view().data(),
///                               src.local_view().span());
/// @endcode
///
/// Construction is collective over the layout's communicator: the subscripts
/// are checked (out of range on any rank: the same adlib::Error on every
/// rank, before any message), and the DataSchedule negotiates with the
/// owners and agrees on the layout, the element type, the combine operation
/// and the configuration (collectives/index_exchange_plan.hpp resolves the
/// owners).
///
/// Users name Gather or Scatter, never SubscriptListSchedule; it is in
/// namespace adlib, not adlib::detail, because the API reference leaves
/// detail out, and with it the members Gather and Scatter inherit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <adlib/collectives/detail/planned_schedule.hpp>
#include <adlib/collectives/index_exchange_plan.hpp>
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

/// Empty when `view` is a rank-1 View with unit stride and at least `count`
/// elements, else the reason.
template <class View>
std::string vector_view_error(const View& view, std::size_t count, const char* what) {
  if (view.extent(0) < count)
    return std::string(what) + " has " + std::to_string(view.extent(0)) + " elements, " +
           std::to_string(count) + " needed";
  if (view.extent(0) > 1 && view.stride(0) != 1)
    return std::string(what) + " must have unit stride (it has stride " +
           std::to_string(view.stride(0)) + ")";
  return {};
}

}  // namespace detail

/// The planned access of one rank's list of global subscripts of 1-D arrays
/// of one layout, read or written (see the file overview): the base of
/// Gather and Scatter, with their construction, inquiries and execution
/// check.
template <class T, class MemorySpace>
class SubscriptListSchedule : public RunsSchedule<MemorySpace, DataSchedule<MemorySpace>> {
 public:
  /// The number of subscripts on this rank (a Gather's output length, a
  /// Scatter's values per execution).
  std::size_t size() const { return count_; }
  /// The layout every array it reads or writes must have.
  const ArrayLayout& layout() const { return layout_; }
  /// What the build-time negotiation cost this rank (messages, bytes,
  /// requests: none of them depends on the number of ranks).
  const SparseExchangeStatistics& negotiation() const { return this->schedule_->negotiation(); }

 protected:
  /// Plans `access` of `subscripts` (positions of the layout, repeats
  /// allowed; each rank its own list, possibly empty) in arrays of `layout`,
  /// and allocates the buffers for T.  Collective.  `name`: the collective,
  /// which errors name; `combine`: op::fingerprint of a write's combine
  /// operation (0 for a read), which every rank must pass alike.
  SubscriptListSchedule(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                        RemoteAccess access, const char* name, std::uint64_t combine,
                        const Configuration& config)
      : RunsSchedule<MemorySpace, DataSchedule<MemorySpace>>(config),
        layout_(layout),
        count_(subscripts.size()),
        name_(name) {
    const Comm& comm = layout.group().grid().comm();
    const std::string error = subscript_error(layout, subscripts, config.error);
    // Named, so that a rank passing other arguments is told which (one
    // MPI_Allreduce when all agree; the DataSchedule agrees on its own plan).
    agree_on_arguments(comm, error,
                       {agreed_layout("layout", layout), agreed_element_type<T>(),
                        agreed_combine(combine), agreed_configuration(config)},
                       name);
    const SubscriptRequests requests(layout, subscripts_to_resolve(error, subscripts), comm.rank(),
                                     access);
    // Agreed above: every rank reaches here with the same arguments and no
    // error, so the DataSchedule agrees on its plan alone.
    this->schedule_ = std::make_unique<DataSchedule<MemorySpace>>(
        comm, requests, access, detail::inner_configuration(config), name);
    this->schedule_->template prepare<T>();
  }

  /// Before an execution posts anything: `error` is this rank's verdict on
  /// the caller's memory (empty: fine), to which a layout of `array` other
  /// than the planned one is added (`role`: "source" or "destination");
  /// then RunsSchedule::agree_to_execute over the one array, `operation`
  /// and `combine` as it takes them.
  void agree_to_execute_on(const DistArray<T, 1, MemorySpace>& array, const char* role,
                           std::string error, const char* operation,
                           std::uint64_t combine = 0) const {
    if (error.empty() && array.layout() != layout_)
      error = std::string(role) + " has layout " + array.layout().describe() + " but the " + name_ +
              " was built for " + layout_.describe();
    this->agree_to_execute(error, 1, operation, combine);
  }

 private:
  ArrayLayout layout_;
  std::size_t count_ = 0;
  const char* name_;  ///< "Gather" or "Scatter", for errors
};

}  // namespace adlib
