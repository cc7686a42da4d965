// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// RedxSchedule: an all-reduce of a vector over the members of a
/// communicator (Adlib's RedxSchedule), built once and executed many times;
/// Redx2Schedule: the same for a value with its location (MAXLOC / MINLOC).
///
/// @code
///   adlib::RedxSchedule<double> sum(comm, n);                  // op::add by default
///   sum.execute(x.data());              // x (n values here) = the sum over every member
///   adlib::RedxSchedule<double, adlib::op::Max, Kokkos::HostSpace> top(comm, 1, adlib::op::max);
///   double largest = top.reduce(mine);  // one value, from and to the host
/// @endcode
///
/// The constructor is collective over `members`: it checks its arguments,
/// agrees with every member on them (count, element type, operation and the
/// whole Configuration: a mismatch is an adlib::Error on every member, not a
/// hang), leases a tag and picks the algorithm once
/// (Configuration::reduction; see collective_plan.hpp for the automatic
/// choice).  Execution posts only the plan's messages, allocates nothing,
/// and leaves the same bits on every member, run after run, for a fixed
/// member count and algorithm.  Operations must be associative and
/// commutative (all built-in ones are; a user's op::combine must be too).
///
/// Memory: values live in `MemorySpace`.  Host-accessible memory and,
/// with Configuration::gpu_aware_mpi, device memory go to MPI directly and
/// are combined by kernels in the memory space; otherwise (and always with
/// Configuration::force_staging, which is how machines without a GPU test
/// this path) the vector is staged through a host buffer allocated at
/// construction, reduced there, and copied back.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/detail/staging.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/located.hpp>
#include <adlib/runtime/mpi_operation.hpp>
#include <adlib/runtime/node_topology.hpp>
#include <adlib/schedules/collective_executor.hpp>
#include <adlib/schedules/collective_plan.hpp>

namespace adlib {

namespace detail {

/// What every reduction schedule shares: the agreement at construction,
/// the algorithm, the staging decision and the executor of a contiguous
/// vector of `count` elements in MemorySpace.
template <class T, class Op, class MemorySpace>
class AllReduce {
 public:
  /// Collective over `members`; `local_error` (empty when fine) and
  /// `fingerprint` come from the schedule above and join the agreement.
  AllReduce(const Comm& members, std::int64_t count, const Op& op, const Configuration& config,
            const char* operation, std::string local_error, std::uint64_t fingerprint)
      : comm_(members), count_(count), operation_(operation) {
    static_assert(std::is_trivially_copyable<T>::value, "reduced elements travel as bytes");
    if (local_error.empty()) local_error = config.error;
    if (local_error.empty() && (count < 0 || count > INT_MAX))
      local_error = "a reduction of " + std::to_string(count) +
                    " elements (from 0 to INT_MAX elements per schedule)";
    std::uint64_t h = hash_mix(fingerprint, static_cast<std::uint64_t>(count));
    h = hash_mix(h, element_fingerprint<T>());
    h = hash_mix(h, op::fingerprint<Op>());
    h = hash_mix(h, config.fingerprint());
    tag_ = members.lease_agreed_tag(local_error, h, operation);
    // Every member holds the same configuration now, so either all or none
    // of them ask for the nodes (collective the first time).
    const bool may_use_nodes = config.reduction == ReductionAlgorithm::automatic ||
                               config.reduction == ReductionAlgorithm::node_aware;
    const NodeTopology nodes = may_use_nodes ? node_topology(members, config.ranks_per_node)
                                             : consecutive_nodes(members.rank(), members.size(), 1);
    algorithm_ =
        choose_reduction(config, count * static_cast<std::int64_t>(sizeof(T)), members.size(),
                         static_cast<int>(nodes.leaders.size()), nodes.largest_node);
    types_ = std::make_unique<ElementTypes>();
    const MPI_Datatype type = types_->of<T>();
    if (algorithm_ == ReductionAlgorithm::mpi) mpi_op_ = std::make_unique<MpiOperation<T, Op>>(op);
    staged_ = stages_through_host<MemorySpace>(config, !mpi_op_ || mpi_op_->predefined_by_mpi());
    if (staged_ && count > 0)
      staging_ = Kokkos::View<T*, Kokkos::HostSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::RedxSchedule::staging"),
          static_cast<std::size_t>(count));
    if (algorithm_ != ReductionAlgorithm::mpi) {
      CollectivePlan plan =
          plan_allreduce(algorithm_, members.rank(), members.size(), count, nodes);
      if (staged_)
        host_.emplace(std::move(plan), count, op, members.get(), tag_.tag(), type,
                      config.collective_piece_bytes);
      else
        direct_.emplace(std::move(plan), count, op, members.get(), tag_.tag(), type,
                        config.collective_piece_bytes);
    }
  }

  /// Reduces the `count` elements at `data` (MemorySpace) in place.
  void run(T* data) const { run(data, data); }
  /// Reduces the `count` elements at `input` into `output` (both in
  /// MemorySpace; the same pointer: in place).
  void run(const T* input, T* output) const {
    if (count_ == 0) return;
    if (!staged_) return run_on(input, output, direct_, typename MemorySpace::execution_space());
    const auto n = static_cast<std::size_t>(count_);
    Kokkos::deep_copy(
        staging_,
        Kokkos::View<const T*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(input, n));
    run_on(staging_.data(), staging_.data(), host_, Kokkos::DefaultHostExecutionSpace());
    Kokkos::deep_copy(
        Kokkos::View<T*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(output, n),
        staging_);
  }

  /// The algorithm chosen at construction.
  ReductionAlgorithm algorithm() const { return algorithm_; }
  /// Is the vector staged through host memory?
  bool staged() const { return staged_; }
  /// Elements per execution.
  std::int64_t count() const { return count_; }
  /// The members.
  const Comm& comm() const { return comm_; }
  /// The tag of its messages.
  int tag() const { return tag_.tag(); }

 private:
  template <class Executor, class ExecutionSpace>
  void run_on(const T* input, T* data, const std::optional<Executor>& executor,
              const ExecutionSpace& space) const {
    if (executor) return executor->run(input, data);
    space.fence();
    auto scope = mpi_op_->scope();
    ADLIB_MPI(MPI_Allreduce(input == data ? MPI_IN_PLACE : input, data, static_cast<int>(count_),
                            types_->of<T>(), mpi_op_->get(), comm_.get()),
              operation_);
  }

  Comm comm_;
  TagLease tag_;
  std::int64_t count_ = 0;
  const char* operation_;
  ReductionAlgorithm algorithm_ = ReductionAlgorithm::mpi;
  bool staged_ = false;
  std::unique_ptr<ElementTypes> types_;
  std::unique_ptr<MpiOperation<T, Op>> mpi_op_;
  Kokkos::View<T*, Kokkos::HostSpace> staging_;
  std::optional<CollectiveExecutor<T, Op, Kokkos::HostSpace>> host_;
  std::optional<CollectiveExecutor<T, Op, MemorySpace>> direct_;
};

}  // namespace detail

/// An all-reduce of `count` elements over `members` (see the file overview).
template <class T, class Op = op::Add,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class RedxSchedule {
 public:
  /// The memory space of the vectors it reduces.
  using memory_space = MemorySpace;

  /// Collective over `members`: plans the all-reduce of `count` elements
  /// combined with `op`.
  RedxSchedule(const Comm& members, std::int64_t count, const Op& op = Op{},
               const Configuration& config = Configuration::environment())
      : core_(members, count, op, config, "RedxSchedule", {}, detail::hash_start()) {}

  /// Collective: `values` (count() elements in MemorySpace) becomes the
  /// combination of every member's `values`.
  void execute(T* values) const { core_.run(values); }
  /// Collective, out of place: `output` becomes the combination of every
  /// member's `input` (count() elements each, in MemorySpace); `input` is
  /// left as it was.  Cheaper than copying and reducing in place: the
  /// plans read the input until the output holds each part.
  void execute(const T* input, T* output) const { core_.run(input, output); }
  /// The same for a View of count() elements.
  template <class View>
  void execute(const View& values) const {
    static_assert(Kokkos::is_view<View>::value, "execute takes a pointer or a Kokkos::View");
    if (static_cast<std::int64_t>(values.span()) != core_.count() || !values.span_is_contiguous())
      throw Error("RedxSchedule of " + std::to_string(core_.count()) +
                      " elements given a View of span " + std::to_string(values.span()) +
                      (values.span_is_contiguous() ? "" : " (not contiguous)"),
                  core_.comm().rank(), "RedxSchedule::execute");
    core_.run(values.data());
  }
  /// Collective, for a one-element schedule over host memory: every
  /// member's `value` combined.
  T reduce(const T& value) const {
    static_assert(detail::host_reachable<MemorySpace>(),
                  "reduce() takes a host value: build the schedule over Kokkos::HostSpace");
    if (core_.count() != 1)
      throw Error(
          "reduce() needs a schedule of one element, this one has " + std::to_string(core_.count()),
          core_.comm().rank(), "RedxSchedule::reduce");
    T result = value;
    core_.run(&result);
    return result;
  }

  /// The algorithm chosen at construction.
  ReductionAlgorithm algorithm() const { return core_.algorithm(); }
  /// Is the vector staged through host memory?
  bool staged() const { return core_.staged(); }
  /// Elements per execution.
  std::int64_t count() const { return core_.count(); }
  /// The members' communicator.
  const Comm& comm() const { return core_.comm(); }

 private:
  detail::AllReduce<T, Op, MemorySpace> core_;
};

/// Adlib's Redx2Schedule: the all-reduce of values with their location
/// (Located<T, N>), keeping the largest (op::MaxLocation) or smallest
/// (op::MinLocation) value and, of equal ones, the first location.
template <class T, int N, class Op = op::MaxLocation,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
using Redx2Schedule = RedxSchedule<Located<T, N>, Op, MemorySpace>;

}  // namespace adlib
