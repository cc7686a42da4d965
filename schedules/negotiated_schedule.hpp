// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// NegotiatedSchedule: what DataSchedule and BlockDataSchedule share.
/// Both are remote-access schedules: each rank's requests reach its owners
/// once, at build time, through a negotiation that yields an ExchangePlan,
/// and every execution then runs that plan on one BlockMessSchedule, a read
/// forward (owners send) and a write backward (requesters send, owners
/// combine).  This class holds the executor and what the negotiation cost,
/// refuses an execution of the access the schedule was not built for, and
/// forwards the rest; the derived class negotiates (over elements or over
/// blocks) and adds what its own plan needs (DataSchedule: the fan-out of
/// repeated reads).
///
/// @code
///   // In a derived class's constructor, after its negotiation:
///   SparseExchangeStatistics negotiation;
///   ExchangePlan plan = negotiate_block_data_plan(comm, requests, access, operation,
///                                                 caller_error, caller_fingerprint, &negotiation);
///   this->build(comm, std::move(plan), negotiation, config);
/// @endcode
///
/// The derived class is the first template argument, so that execute_read()
/// and execute_write() run the derived class's start and finish, a read's
/// fan-out included.  Users name DataSchedule or BlockDataSchedule, never
/// this class; it is in namespace adlib, not adlib::detail, because the API
/// reference leaves detail out, and with it the members listed here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>
#include <adlib/schedules/data_plan.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// The executor of a negotiated remote-access schedule and its forwarding
/// members (see the file overview): the base of DataSchedule and
/// BlockDataSchedule.  `Derived`: the schedule built on it.  Neither
/// copyable nor movable (its executor is not).
template <class Derived, class MemorySpace>
class NegotiatedSchedule {
 public:
  /// Where the memory it moves lives.
  using memory_space = MemorySpace;
  /// Where its copy kernels run.
  using execution_space = typename MemorySpace::execution_space;

  NegotiatedSchedule(const NegotiatedSchedule&) = delete;
  NegotiatedSchedule& operator=(const NegotiatedSchedule&) = delete;

  /// Allocates the message buffers for elements of type T now rather than at
  /// the first execution (optional).
  template <class T>
  void prepare() {
    schedule_->template prepare<T>();
  }

  /// A read (RemoteAccess::read): every request's local elements = the
  /// owner's elements of `owned`.  `local` holds `local_span` elements of
  /// this rank, `owned` the `owned_span` elements this rank owns.  start()
  /// posts the messages and does the local copies; `local` must not be read
  /// before finish().
  template <class T>
  void start_read(T* local, std::size_t local_span, const T* owned, std::size_t owned_span) {
    require(RemoteAccess::read, "start_read", local_span);
    schedule_->start(local, local_span, owned, owned_span);
  }
  /// A write (RemoteAccess::write): every request's owner elements =
  /// combine(owner elements, local elements), for every request of every
  /// rank (the derived class's overview says in which order).  `owned` must
  /// not be read before finish().
  template <class T, class Combine = op::Replace>
  void start_write(T* owned, std::size_t owned_span, const T* local, std::size_t local_span,
                   Combine combine = {}) {
    require(RemoteAccess::write, "start_write", local_span);
    schedule_->start(owned, owned_span, local, local_span, Direction::backward, combine);
  }
  /// Completes the execution in flight.
  void finish() { schedule_->finish(); }
  /// start_read() then finish().
  template <class T>
  void execute_read(T* local, std::size_t local_span, const T* owned, std::size_t owned_span) {
    derived().start_read(local, local_span, owned, owned_span);
    derived().finish();
  }
  /// start_write() then finish().
  template <class T, class Combine = op::Replace>
  void execute_write(T* owned, std::size_t owned_span, const T* local, std::size_t local_span,
                     Combine combine = {}) {
    derived().start_write(owned, owned_span, local, local_span, combine);
    derived().finish();
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

 protected:
  /// `name`: the derived class, which errors name as their operation.
  NegotiatedSchedule(RemoteAccess access, const char* name) : access_(access), name_(name) {}
  /// Protected: a NegotiatedSchedule is never destroyed as such.
  ~NegotiatedSchedule() = default;

  /// The derived constructor's last step (collective over `comm`): builds
  /// the executor of the negotiated `plan`.  `local_required`: the local
  /// elements every execution must provide beyond what the executor checks
  /// against the plan (DataSchedule's fan-out writes local positions the
  /// plan does not list); 0 where the executor's check is enough.
  void build(const Comm& comm, ExchangePlan plan, const SparseExchangeStatistics& negotiation,
             const Configuration& config, std::int64_t local_required = 0) {
    negotiation_ = negotiation;
    local_required_ = local_required;
    schedule_ = std::make_unique<BlockMessSchedule<MemorySpace>>(comm, config);
    schedule_->declare(std::move(plan));
    schedule_->build();
  }

 private:
  Derived& derived() { return static_cast<Derived&>(*this); }

  // Local unless the configuration is checked: then every rank agrees
  // first (one more MPI_Allreduce), so that a rank that calls the other
  // access, or passes too little memory, fails with the others instead of
  // leaving them in the executor's own agreement.
  void require(RemoteAccess access, const char* operation, std::size_t local_span) const {
    std::string error;
    if (access != access_)
      error = std::string(operation) + " on a schedule built for " +
              (access_ == RemoteAccess::read ? "reads" : "writes");
    else if (static_cast<std::int64_t>(local_span) < local_required_)
      error = "the local memory holds " + std::to_string(local_span) +
              " elements; the requests need " + std::to_string(local_required_);
    if (schedule_->configuration().checked)
      agree_on_errors(comm(), error, static_cast<std::uint64_t>(access) + 1, name_);
    else if (!error.empty())
      throw Error(error, comm().rank(), name_);
  }

  RemoteAccess access_;
  const char* name_;
  std::unique_ptr<BlockMessSchedule<MemorySpace>> schedule_;
  SparseExchangeStatistics negotiation_;
  std::int64_t local_required_ = 0;
};

}  // namespace adlib
