// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// CollectiveRunner: what every collective over a contiguous vector shares,
/// the all-reduce (detail::AllReduce, under RedxSchedule and
/// BlockRedxSchedule) and the broadcast (detail::VectorBroadcast, under
/// TreeSchedule and BlockTreeSchedule).
///
/// The collective above it checks its own arguments and picks its
/// algorithm; the runner does the rest, in this order:
/// - argument_error(): the caller's error, else the configuration's, else a
///   count outside 0 .. INT_MAX;
/// - agree(): one agreement over the members (the error on any member is the
///   same adlib::Error on every member; the count, the element type, the
///   configuration and the caller's fingerprint must match), which leases
///   the tag;
/// - topology(): the members' nodes, asked for only when the algorithm may
///   use them (every member holds the same configuration by then, so all of
///   them ask or none);
/// - prepare(): the staging decision (runtime/detail/staging.hpp), the host
///   buffer when staged, and the CollectiveExecutor of the plan, over host
///   memory when staged and over MemorySpace otherwise; no plan means MPI's
///   own collective runs;
/// - run(): executes, staging in and out when the decision says so.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/detail/staging.hpp>
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/node_topology.hpp>
#include <adlib/schedules/collective_plan.hpp>
#include <adlib/schedules/detail/collective_executor.hpp>

namespace adlib::detail {

/// Agreement, topology, staging and executor of a collective over `count`
/// contiguous elements of T in MemorySpace, combined with `Op` (op::Replace
/// for a broadcast).  See the file overview.
template <class T, class Op, class MemorySpace>
class CollectiveRunner {
  static_assert(std::is_trivially_copyable<T>::value, "collective elements travel as bytes");

 public:
  /// Over `members`, `count` elements per run; `operation` names the
  /// schedule in errors.  Local: nothing is agreed yet.
  CollectiveRunner(const Comm& members, std::int64_t count, const char* operation)
      : comm_(members), count_(count), operation_(operation) {}

  /// The first of: `caller_error`, the configuration's error, a count
  /// outside 0 .. INT_MAX ("a `what` of N elements").  Empty when fine.
  static std::string argument_error(std::string caller_error, const Configuration& config,
                                    std::int64_t count, const char* what) {
    if (caller_error.empty()) caller_error = config.error;
    if (caller_error.empty() && (count < 0 || count > INT_MAX))
      caller_error = std::string("a ") + what + " of " + std::to_string(count) +
                     " elements (from 0 to INT_MAX elements per schedule)";
    return caller_error;
  }

  /// Collective: agrees over the members on `local_error` and on the count,
  /// the element type, `config` and `fingerprint` (the caller's own
  /// arguments), and leases the tag.  Throws the same adlib::Error on every
  /// member when any of them has an error or a different fingerprint.
  void agree(const std::string& local_error, std::uint64_t fingerprint,
             const Configuration& config) {
    std::uint64_t h = hash_mix(fingerprint, static_cast<std::uint64_t>(count_));
    h = hash_mix(h, element_fingerprint<T>());
    h = hash_mix(h, config.fingerprint());
    // With the hang watchdog on, MPI's own collective is called in its
    // nonblocking form, which never matches the blocking one: the setting
    // must agree too.
    h = hash_mix(h, watchdog_enabled() ? 1u : 0u);
    tag_ = comm_.lease_agreed_tag(local_error, h, operation_);
  }

  /// The members' nodes when `may_use_nodes` (collective the first time),
  /// else every member a node of its own.  Call after agree(): every member
  /// then decides alike.
  NodeTopology topology(bool may_use_nodes, const Configuration& config) const {
    return may_use_nodes ? node_topology(comm_, config.ranks_per_node)
                         : consecutive_nodes(comm_.rank(), comm_.size(), 1);
  }

  /// Decides the staging (`mpi_works_on_device`: false when MPI itself
  /// must combine on the host), allocates the host buffer when staged, and
  /// builds the executor of `plan` (none: run() calls MPI's collective),
  /// messages cut into pieces of `piece_bytes` (0: whole).
  void prepare(const Configuration& config, bool mpi_works_on_device,
               std::optional<CollectivePlan> plan, const Op& op, std::int64_t piece_bytes) {
    staged_ = stages_through_host<MemorySpace>(config, mpi_works_on_device);
    if (staged_ && count_ > 0)
      staging_ = Kokkos::View<T*, Kokkos::HostSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing,
                             std::string("adlib::") + operation_ + "::staging"),
          static_cast<std::size_t>(count_));
    if (!plan) return;
    const MPI_Datatype type = types_->of<T>();
    if (staged_)
      host_.emplace(std::move(*plan), count_, op, comm_.get(), tag_.tag(), type, piece_bytes);
    else
      direct_.emplace(std::move(*plan), count_, op, comm_.get(), tag_.tag(), type, piece_bytes);
  }

  /// Runs the collective from `input` into `output` (count() elements each
  /// in MemorySpace; the same pointer: in place).  Staged, this member's
  /// input goes to the host buffer when `stage_in` and the result comes back
  /// when `stage_out` (a broadcast's root only sends, the others only
  /// receive).  Without an executor, `mpi_collective(input, output)` runs
  /// MPI's own collective on memory MPI may read, after a fence.
  template <class MpiCollective>
  void run(const T* input, T* output, bool stage_in, bool stage_out,
           const MpiCollective& mpi_collective) const {
    if (count_ == 0) return;
    name_next_execution(operation_);  // what the hang watchdog reports
    if (!staged_)
      return run_on(input, output, direct_, typename MemorySpace::execution_space(),
                    mpi_collective);
    const auto n = static_cast<std::size_t>(count_);
    if (stage_in)
      Kokkos::deep_copy(
          staging_,
          Kokkos::View<const T*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(input, n));
    run_on(staging_.data(), staging_.data(), host_, Kokkos::DefaultHostExecutionSpace(),
           mpi_collective);
    if (stage_out)
      Kokkos::deep_copy(
          Kokkos::View<T*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(output, n),
          staging_);
  }

  /// Is the vector staged through host memory?
  bool staged() const { return staged_; }
  /// Elements per run.
  std::int64_t count() const { return count_; }
  /// The members.
  const Comm& comm() const { return comm_; }
  /// The tag of its messages (after agree()).
  int tag() const { return tag_.tag(); }
  /// The schedule's name, for errors.
  const char* operation() const { return operation_; }
  /// The MPI datatype of T, for MPI's own collective.
  MPI_Datatype type() const { return types_->of<T>(); }

 private:
  template <class Executor, class ExecutionSpace, class MpiCollective>
  static void run_on(const T* input, T* output, const std::optional<Executor>& executor,
                     const ExecutionSpace& space, const MpiCollective& mpi_collective) {
    if (executor) return executor->run(input, output);
    space.fence();
    mpi_collective(input, output);
  }

  Comm comm_;
  TagLease tag_;
  std::int64_t count_ = 0;
  const char* operation_;
  bool staged_ = false;
  std::unique_ptr<ElementTypes> types_ = std::make_unique<ElementTypes>();
  Kokkos::View<T*, Kokkos::HostSpace> staging_;
  std::optional<CollectiveExecutor<T, Op, Kokkos::HostSpace>> host_;
  std::optional<CollectiveExecutor<T, Op, MemorySpace>> direct_;
};

}  // namespace adlib::detail
