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
/// (schedule()), so unlike DataSchedule it runs in every memory space.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/schedules/block_data_plan.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

/// A negotiated remote-access schedule on blocks (see the file overview).
/// Neither copyable nor movable (its executor is not).
template <class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class BlockDataSchedule {
 public:
  /// Where the memory it moves lives.
  using memory_space = MemorySpace;
  /// Where its copy kernels run.
  using execution_space = typename MemorySpace::execution_space;

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
      : access_(access) {
    ExchangePlan plan = negotiate_block_data_plan(comm, requests, access, operation, caller_error,
                                                  caller_fingerprint, &negotiation_);
    schedule_ = std::make_unique<BlockMessSchedule<MemorySpace>>(comm, config);
    schedule_->declare(std::move(plan));
    schedule_->build();
  }
  BlockDataSchedule(const BlockDataSchedule&) = delete;
  BlockDataSchedule& operator=(const BlockDataSchedule&) = delete;

  /// Allocates the message buffers of reads over elements of type T now
  /// rather than at the first execution (optional).
  template <class T>
  void prepare() {
    schedule_->template prepare<T>();
  }

  /// A read (RemoteAccess::read): every request's local block = the owner's
  /// block of `owned`, element by element.  `local` holds `local_span`
  /// elements of this rank, `owned` the `owned_span` elements this rank owns.
  /// start() posts the messages and does the local copies; `local` must not
  /// be read before finish().
  template <class T>
  void start_read(T* local, std::size_t local_span, const T* owned, std::size_t owned_span) {
    require(RemoteAccess::read, "start_read");
    schedule_->start(local, local_span, owned, owned_span);
  }
  /// A write (RemoteAccess::write): every request's owner block =
  /// combine(owner block, local block), element by element, for every request
  /// of every rank (see the file overview for the order).  `owned` must not
  /// be read before finish().
  template <class T, class Combine = op::Replace>
  void start_write(T* owned, std::size_t owned_span, const T* local, std::size_t local_span,
                   Combine combine = {}) {
    require(RemoteAccess::write, "start_write");
    schedule_->start(owned, owned_span, local, local_span, Direction::backward, combine);
  }
  /// Completes the execution in flight.
  void finish() { schedule_->finish(); }
  /// start_read() then finish().
  template <class T>
  void execute_read(T* local, std::size_t local_span, const T* owned, std::size_t owned_span) {
    start_read(local, local_span, owned, owned_span);
    finish();
  }
  /// start_write() then finish().
  template <class T, class Combine = op::Replace>
  void execute_write(T* owned, std::size_t owned_span, const T* local, std::size_t local_span,
                     Combine combine = {}) {
    start_write(owned, owned_span, local, local_span, combine);
    finish();
  }

  /// Read or write, as constructed.
  RemoteAccess access() const { return access_; }
  /// What the build-time negotiation cost this rank (messages, bytes,
  /// requests: none of them depends on the number of ranks).
  const SparseExchangeStatistics& negotiation() const { return negotiation_; }
  /// The executor underneath (its plan, tag, transfer choice).
  const BlockMessSchedule<MemorySpace>& schedule() const { return *schedule_; }
  /// The communicator.
  const Comm& comm() const { return schedule_->comm(); }
  /// The schedule's message tag.
  int tag() const { return schedule_->tag(); }
  /// Pack or MPI datatype per message; not while an execution is in flight.
  void set_transfer(const TransferPolicy& policy) { schedule_->set_transfer(policy); }

 private:
  // Local unless the configuration is checked: then every rank agrees
  // first (one more MPI_Allreduce), so that a rank that calls the other
  // access fails with the others instead of leaving them in the executor's
  // own agreement.
  void require(RemoteAccess access, const char* operation) const {
    std::string error;
    if (access != access_)
      error = std::string(operation) + " on a schedule built for " +
              (access_ == RemoteAccess::read ? "reads" : "writes");
    if (schedule_->configuration().checked)
      agree_on_errors(comm(), error, static_cast<std::uint64_t>(access_) + 1, "BlockDataSchedule");
    else if (!error.empty())
      throw Error(error, comm().rank(), "BlockDataSchedule");
  }

  RemoteAccess access_;
  std::unique_ptr<BlockMessSchedule<MemorySpace>> schedule_;
  SparseExchangeStatistics negotiation_;
};

}  // namespace adlib
