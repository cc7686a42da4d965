// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// DataSchedule: Adlib's remote-access schedule on elements ("words").  Each
/// rank lists the elements it wants from other ranks' memory, or wants to
/// combine into it, and only it knows that list; the owners learn it at build
/// time through one sparse exchange (schedules/data_plan.hpp).  Built once,
/// executed many times on any memory of the planned shapes.
///
/// @code
///   // Rank r wants element 5 of rank (r + 1) % P's block, into position 0 of
///   // its own vector, and element 2 of its own block into position 1.
///   std::vector<adlib::ElementRequest> wanted = {{(r + 1) % P, 5, 0}, {r, 2, 1}};
///   adlib::DataSchedule<Kokkos::HostSpace> fetch(comm, wanted, adlib::RemoteAccess::read);
///   fetch.prepare<double>();
///   fetch.execute_read(out.data(), out.size(), block.data(), block.size());
///
///   adlib::DataSchedule<Kokkos::HostSpace> add(comm, wanted, adlib::RemoteAccess::write);
///   add.execute_write(block.data(), block.size(), values.data(), values.size(), adlib::op::add);
/// @endcode
///
/// A read copies each owner's element into the requester's memory; an element
/// requested several times travels once and is copied locally to its other
/// positions after the messages arrive (repeats()).  A write combines each
/// requester's value into the owner's element with a combine operation
/// (runtime/combine.hpp); every value travels, and the owner applies its own
/// contributions first, then other ranks' in rank order, each rank's in the
/// order of its local offsets, so combining writes are reproducible bitwise.  Requests to
/// the rank itself are local copies, without MPI.
///
/// Finding owners is the caller's business: collectives/ resolves global
/// subscripts with the layout's Range inquiries (Gather, Scatter).  The
/// executor underneath is a BlockMessSchedule of index-list messages
/// (schedule()); over device memory its index lists run as device kernels
/// (runtime/detail/device_index_list.hpp).  What every negotiated schedule does
/// with its executor (the access check, start, finish and the inquiries) is
/// schedules/negotiated_schedule.hpp, shared with BlockDataSchedule; this
/// file adds the negotiation over elements and the fan-out of repeats.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/schedules/data_plan.hpp>
#include <adlib/schedules/negotiated_schedule.hpp>

namespace adlib {

namespace detail {

/// The fan-out kernel of a read: local[to] = local[from] for each pair.  The
/// targets are distinct and never a source, so the copies are independent.
template <class T, class FanOutView>
struct ApplyFanOut {
  T* local;            ///< the requester's memory
  FanOutView fan_out;  ///< the copies
  /// One copy.
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const {
    local[fan_out(i).to] = local[fan_out(i).from];
  }
};

}  // namespace detail

/// A negotiated remote-access schedule (see the file overview).  Neither
/// copyable nor movable (its executor is not).  Its members besides the
/// constructors, start_read(), finish() and repeats() are
/// NegotiatedSchedule's (schedules/negotiated_schedule.hpp).
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class DataSchedule : public NegotiatedSchedule<DataSchedule<MemorySpace>, MemorySpace> {
  using Base = NegotiatedSchedule<DataSchedule<MemorySpace>, MemorySpace>;

 public:
  /// Collective over `comm`: negotiates and builds the schedule of this
  /// rank's `requests` (owners of `comm`, offsets in the owners' and this
  /// rank's memory; for a read, distinct local offsets).  Every rank agrees
  /// first, in one MPI_Allreduce, on the requests' validity, on `access`, on
  /// `caller_error` and on `caller_fingerprint` (a caller's own arguments:
  /// Gather and Scatter pass their layout, element type and combine
  /// operation): bad input on any rank is the same adlib::Error on every rank.
  DataSchedule(const Comm& comm, const std::vector<ElementRequest>& requests, RemoteAccess access,
               const Configuration& config = Configuration::environment(),
               const char* operation = "DataSchedule", const std::string& caller_error = {},
               std::uint64_t caller_fingerprint = 0)
      : DataSchedule(comm, StoredRequests(requests), access, config, operation, caller_error,
                     caller_fingerprint) {}
  /// The same with requests read from `requests` a chunk at a time (a caller
  /// that computes them need not store them all).
  DataSchedule(const Comm& comm, const RequestSource& requests, RemoteAccess access,
               const Configuration& config = Configuration::environment(),
               const char* operation = "DataSchedule", const std::string& caller_error = {},
               std::uint64_t caller_fingerprint = 0)
      : Base(access, "DataSchedule") {
    SparseExchangeStatistics negotiation;
    // Without merged walks, nothing gains from messages in the owner's
    // order, and the requester's order walks the requester's memory upwards
    // instead (data_plan.hpp).
    DataPlan plan = negotiate_data_plan(
        comm, requests, access, operation, caller_error, caller_fingerprint, &negotiation,
        config.merge_index_walks ? MessageOrder::owner : MessageOrder::requester);
    fan_out_count_ = plan.fan_out.size();
    if (fan_out_count_ > 0) fan_out_copies_ = to_view(plan.fan_out);
    this->build(comm, std::move(plan.exchange), negotiation, config, plan.local_extent);
  }

  /// A read (RemoteAccess::read): local[local_offset] = owner's
  /// owned[owner_offset] for every request.  `local` holds `local_span`
  /// elements of this rank, `owned` the `owned_span` elements this rank owns.
  /// start() posts the messages and does the local copies; `local` must not
  /// be read before finish(), which also copies the repeats.
  template <class T>
  void start_read(T* local, std::size_t local_span, const T* owned, std::size_t owned_span) {
    Base::start_read(local, local_span, owned, owned_span);
    local_ = local;
    fan_out_ = fan_out_count_ > 0 ? &apply_fan_out<T> : nullptr;
  }
  /// Completes the execution in flight (a read's fan-out included).
  void finish() {
    Base::finish();
    if (fan_out_) fan_out_(*this);
    fan_out_ = nullptr;
  }

  /// Requests of a read that repeat an earlier one: copied locally, not sent.
  std::size_t repeats() const { return fan_out_count_; }

 private:
  using FanOutView = Kokkos::View<FanOut*, MemorySpace>;

  static FanOutView to_view(const std::vector<FanOut>& copies) {
    FanOutView view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::DataSchedule::fan_out"),
                    copies.size());
    Kokkos::View<const FanOut*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
        copies.data(), copies.size());
    Kokkos::deep_copy(view, host);
    return view;
  }

  template <class T>
  static void apply_fan_out(DataSchedule& self) {
    using execution_space = typename Base::execution_space;
    Kokkos::parallel_for(
        "adlib::DataSchedule::fan_out",
        Kokkos::RangePolicy<execution_space>(0, self.fan_out_count_),
        detail::ApplyFanOut<T, FanOutView>{static_cast<T*>(self.local_), self.fan_out_copies_});
    execution_space().fence();
  }

  std::size_t fan_out_count_ = 0;
  FanOutView fan_out_copies_;
  void* local_ = nullptr;                     ///< a read's memory, while in flight
  void (*fan_out_)(DataSchedule&) = nullptr;  ///< the typed fan-out of the read in flight
};

}  // namespace adlib
