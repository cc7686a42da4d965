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
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/located.hpp>
#include <adlib/runtime/mpi_operation.hpp>
#include <adlib/runtime/node_topology.hpp>
#include <adlib/schedules/collective_plan.hpp>
#include <adlib/schedules/detail/collective_runner.hpp>

namespace adlib {

namespace detail {

/// The all-reduce under every reduction schedule: its algorithm and MPI
/// operation over a CollectiveRunner (agreement, topology, staging and
/// executor, shared with the broadcasts).
template <class T, class Op, class MemorySpace>
class AllReduce {
 public:
  /// Collective over `members`; `local_error` (empty when fine) and
  /// `fingerprint` come from the schedule above and join the agreement.
  AllReduce(const Comm& members, std::int64_t count, const Op& op, const Configuration& config,
            const char* operation, std::string local_error, std::uint64_t fingerprint)
      : runner_(members, count, operation) {
    runner_.agree(Runner::argument_error(std::move(local_error), config, count, "reduction"),
                  hash_mix(fingerprint, op::fingerprint(op)), config);
    const NodeTopology nodes =
        runner_.topology(config.reduction == ReductionAlgorithm::automatic ||
                             config.reduction == ReductionAlgorithm::node_aware,
                         config);
    algorithm_ =
        choose_reduction(config, count * static_cast<std::int64_t>(sizeof(T)), members.size(),
                         static_cast<int>(nodes.leaders.size()), nodes.largest_node);
    std::optional<CollectivePlan> plan;
    if (algorithm_ == ReductionAlgorithm::mpi)
      mpi_op_ = std::make_unique<MpiOperation<T, Op>>(op);
    else
      plan = plan_allreduce(algorithm_, members.rank(), members.size(), count, nodes);
    runner_.prepare(config, !mpi_op_ || mpi_op_->predefined_by_mpi(), std::move(plan), op,
                    config.collective_piece_bytes);
  }

  /// Reduces the `count` elements at `data` (MemorySpace) in place.
  void run(T* data) const { run(data, data); }
  /// Reduces the `count` elements at `input` into `output` (both in
  /// MemorySpace; the same pointer: in place).
  void run(const T* input, T* output) const {
    runner_.run(input, output, true, true, [this](const T* in, T* out) {
      auto scope = mpi_op_->scope();
      ADLIB_MPI(detail::watched_allreduce(in == out ? MPI_IN_PLACE : in, out,
                                          static_cast<int>(runner_.count()), runner_.type(),
                                          mpi_op_->get(), runner_.comm().get(), runner_.operation(),
                                          "MPI_Allreduce"),
                runner_.operation());
    });
  }

  /// The algorithm chosen at construction.
  ReductionAlgorithm algorithm() const { return algorithm_; }
  /// Is the vector staged through host memory?
  bool staged() const { return runner_.staged(); }
  /// Elements per execution.
  std::int64_t count() const { return runner_.count(); }
  /// The members.
  const Comm& comm() const { return runner_.comm(); }
  /// The tag of its messages.
  int tag() const { return runner_.tag(); }

 private:
  using Runner = CollectiveRunner<T, Op, MemorySpace>;

  Runner runner_;
  ReductionAlgorithm algorithm_ = ReductionAlgorithm::mpi;
  std::unique_ptr<MpiOperation<T, Op>> mpi_op_;
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
