// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// BlockDataSchedule: Adlib's remote-access schedule on strided blocks.  Each
/// rank lists the blocks it wants from other ranks' memory, or wants to
/// combine into it, and only it knows that list; the owners learn it at build
/// time through one sparse exchange (schedules/block_data_plan.hpp).  Built
/// once, executed many times on any memory of the planned sizes.
///
/// @code
///   // Rank r reads column 2 of rank (r + 1) % P's 4 x 4 row-major matrix
///   // into its vector's first four elements.
///   std::vector<adlib::BlockRequest> wanted = {
///       {(r + 1) % P, adlib::StridedBlock::make(2, {4}, {4}),
///        adlib::StridedBlock::make(0, {4}, {1})}};
///   adlib::BlockDataSchedule<Kokkos::HostSpace> fetch(comm, wanted, adlib::RemoteAccess::read);
///   fetch.execute_read(column.data(), column.size(), matrix.data(), matrix.size());
/// @endcode
///
/// A read copies each owner's block into the requester's block (element k to
/// element k, in StridedBlock's C order; the shapes may differ).  The local
/// blocks of a read must not overlap (each local element receives one value;
/// not checked).  A write combines each requester's block into the owner's
/// with a combine operation (runtime/combine.hpp); every block travels, and
/// the owner applies its own contributions first, then other ranks' in rank
/// order, each rank's in its request order, so combining writes are
/// reproducible bitwise.  Requests to the rank itself are local copies,
/// without MPI.
///
/// The executor underneath is a BlockMessSchedule of block messages only
/// (schedule()), so unlike DataSchedule it runs in every memory space.  What
/// it does with that executor (the access check, start, finish and the
/// inquiries) is schedules/negotiated_schedule.hpp, shared with
/// DataSchedule; this file adds the negotiation over blocks.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/schedules/block_data_plan.hpp>
#include <adlib/schedules/exchange_plan.hpp>
#include <adlib/schedules/negotiated_schedule.hpp>

namespace adlib {

/// A negotiated remote-access schedule on blocks (see the file overview).
/// Neither copyable nor movable (its executor is not).  Its members besides
/// the constructor are NegotiatedSchedule's (schedules/
/// negotiated_schedule.hpp): prepare(), start_read(), start_write(),
/// finish(), execute_read(), execute_write() and the inquiries.
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class BlockDataSchedule : public NegotiatedSchedule<BlockDataSchedule<MemorySpace>, MemorySpace> {
  using Base = NegotiatedSchedule<BlockDataSchedule<MemorySpace>, MemorySpace>;

 public:
  /// Collective over `comm`: negotiates and builds the schedule of this
  /// rank's `requests` (owners of `comm`, blocks in the owners' and this
  /// rank's memory, equal element counts).  Every rank agrees first, in one
  /// MPI_Allreduce, on the requests' validity, on `access`, on `caller_error`
  /// and on `caller_fingerprint` (a caller's own arguments): bad input on any
  /// rank is the same adlib::Error on every rank.
  BlockDataSchedule(const Comm& comm, const std::vector<BlockRequest>& requests,
                    RemoteAccess access, const Configuration& config = Configuration::environment(),
                    const char* operation = "BlockDataSchedule",
                    const std::string& caller_error = {}, std::uint64_t caller_fingerprint = 0)
      : Base(access, "BlockDataSchedule") {
    SparseExchangeStatistics negotiation;
    ExchangePlan plan = negotiate_block_data_plan(comm, requests, access, operation, caller_error,
                                                  caller_fingerprint, &negotiation);
    // The executor checks the memory against every block of the plan, which
    // names every local element an execution touches: nothing to add.
    this->build(comm, std::move(plan), negotiation, config);
  }
};

}  // namespace adlib
