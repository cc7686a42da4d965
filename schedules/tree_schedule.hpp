// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// TreeSchedule and BlockTreeSchedule: a broadcast from one member of a
/// communicator to every other (Adlib's TreeSchedule / BlockTreeSchedule),
/// built once and executed many times.
///
/// @code
///   adlib::TreeSchedule<double> from_two(comm, n, /*root=*/2);
///   from_two.execute(x.data());        // every member's x = member 2's x
///   adlib::BlockTreeSchedule<double> column(comm, /*root=*/0, my_block);
///   column.execute(a.data());          // each member's block = the root's block
/// @endcode
///
/// The constructor is collective over `members`: it agrees on the count,
/// the root, the element type and the Configuration (a mismatch is an
/// adlib::Error on every member), leases a tag and picks the algorithm
/// (Configuration::broadcast: MPI_Bcast, a binomial tree, or node-aware:
/// the root's node leader, then one leader per node, then a tree on each
/// node).  Memory handling is RedxSchedule's: direct where MPI can reach the
/// memory, otherwise (and under Configuration::force_staging) through a
/// host buffer allocated at construction.  A block that is not contiguous
/// is packed at the root and unpacked on the others.
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
#include <adlib/runtime/detail/pack.hpp>
#include <adlib/runtime/detail/staging.hpp>
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/node_topology.hpp>
#include <adlib/runtime/strided_block.hpp>
#include <adlib/schedules/collective_plan.hpp>
#include <adlib/schedules/detail/collective_runner.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace adlib {

namespace detail {

/// The broadcast under both broadcast schedules: its root and algorithm
/// over a CollectiveRunner (agreement, topology, staging and executor,
/// shared with the all-reduce).
template <class T, class MemorySpace>
class VectorBroadcast {
 public:
  /// Collective over `members`.
  VectorBroadcast(const Comm& members, std::int64_t count, int root, const Configuration& config,
                  const char* operation, std::string local_error, std::uint64_t fingerprint)
      : runner_(members, count, operation), root_(root) {
    local_error = Runner::argument_error(std::move(local_error), config, count, "broadcast");
    if (local_error.empty() && (root < 0 || root >= members.size()))
      local_error = "root " + std::to_string(root) + " is not a member (there are " +
                    std::to_string(members.size()) + ")";
    runner_.agree(local_error, hash_mix(fingerprint, static_cast<std::uint64_t>(root)), config);
    const NodeTopology nodes =
        runner_.topology(config.broadcast == BroadcastAlgorithm::automatic ||
                             config.broadcast == BroadcastAlgorithm::node_aware,
                         config);
    algorithm_ =
        choose_broadcast(config, count * static_cast<std::int64_t>(sizeof(T)), members.size(),
                         static_cast<int>(nodes.leaders.size()), nodes.largest_node);
    std::optional<CollectivePlan> plan;
    if (algorithm_ != BroadcastAlgorithm::mpi) {
      int root_leader = root;
      if (algorithm_ == BroadcastAlgorithm::node_aware) {
        // Only the root knows its node's leader: it tells everyone, once.
        root_leader = nodes.node_members.front();
        ADLIB_MPI(MPI_Bcast(&root_leader, 1, MPI_INT, root, members.get()), operation);
      }
      plan = plan_broadcast(algorithm_, root, members.rank(), members.size(), count, nodes,
                            root_leader);
    }
    runner_.prepare(config, true, std::move(plan), op::replace, 0);
  }

  /// Broadcasts the `count` elements at `data` (MemorySpace) from the root.
  void run(T* data) const {
    const bool root = runner_.comm().rank() == root_;
    runner_.run(data, data, root, !root, [this](const T*, T* out) {
      ADLIB_MPI(detail::watched_bcast(out, static_cast<int>(runner_.count()), runner_.type(), root_,
                                      runner_.comm().get(), runner_.operation(), "MPI_Bcast"),
                runner_.operation());
    });
  }

  /// The algorithm chosen at construction.
  BroadcastAlgorithm algorithm() const { return algorithm_; }
  /// Is the vector staged through host memory?
  bool staged() const { return runner_.staged(); }
  /// Elements per execution.
  std::int64_t count() const { return runner_.count(); }
  /// The root member.
  int root() const { return root_; }
  /// The members.
  const Comm& comm() const { return runner_.comm(); }

 private:
  using Runner = CollectiveRunner<T, op::Replace, MemorySpace>;

  Runner runner_;
  int root_ = 0;
  BroadcastAlgorithm algorithm_ = BroadcastAlgorithm::mpi;
};

}  // namespace detail

/// A broadcast of `count` contiguous elements from member `root` (see the
/// file overview).
template <class T, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class TreeSchedule {
 public:
  /// The memory space of the vectors it broadcasts.
  using memory_space = MemorySpace;

  /// Collective over `members`: plans the broadcast of `count` elements
  /// from member `root`.
  TreeSchedule(const Comm& members, std::int64_t count, int root,
               const Configuration& config = Configuration::environment())
      : core_(members, count, root, config, "TreeSchedule", {}, detail::hash_start()) {}

  /// Collective: every member's `values` (count() elements in MemorySpace)
  /// becomes the root's.
  void execute(T* values) const { core_.run(values); }
  /// Collective, for a one-element schedule over host memory: the root's
  /// `value` on every member (others pass anything).
  T broadcast(const T& value) const {
    static_assert(detail::host_reachable<MemorySpace>(),
                  "broadcast() takes a host value: build the schedule over Kokkos::HostSpace");
    if (core_.count() != 1)
      throw Error("broadcast() needs a schedule of one element, this one has " +
                      std::to_string(core_.count()),
                  core_.comm().rank(), "TreeSchedule::broadcast");
    T result = value;
    core_.run(&result);
    return result;
  }

  /// The algorithm chosen at construction.
  BroadcastAlgorithm algorithm() const { return core_.algorithm(); }
  /// Is the vector staged through host memory?
  bool staged() const { return core_.staged(); }
  /// Elements per execution.
  std::int64_t count() const { return core_.count(); }
  /// The root member.
  int root() const { return core_.root(); }

 private:
  detail::VectorBroadcast<T, MemorySpace> core_;
};

/// A broadcast of the root's strided block into every member's block (see
/// the file overview); blocks hold the same number of elements, paired in
/// each block's C order.
template <class T, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class BlockTreeSchedule {
 public:
  /// The memory space of the blocks.
  using memory_space = MemorySpace;

  /// Collective over `members`: plans the broadcast of member `root`'s
  /// `block` into every member's `block` (offsets in elements of the memory
  /// given to execute()).
  BlockTreeSchedule(const Comm& members, int root, const StridedBlock& block,
                    const Configuration& config = Configuration::environment())
      : block_(block.normalized()),
        core_(members, block.count(), root, config, "BlockTreeSchedule", block_error(block),
              detail::hash_mix(detail::hash_start(), 2)) {
    if (!block_.contiguous() && block_.count() > 0)
      buffer_ = Kokkos::View<T*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::BlockTreeSchedule::buffer"),
          static_cast<std::size_t>(block_.count()));
  }

  /// Collective: every member's block of `memory` becomes the root's.
  void execute(T* memory) const {
    if (block_.count() == 0) return core_.run(nullptr);
    if (block_.contiguous()) return core_.run(memory + block_.lowest_offset());
    using execution_space = typename MemorySpace::execution_space;
    const bool root = core_.comm().rank() == core_.root();
    if (root) detail::pack_block(execution_space(), memory, block_, buffer_.data());
    core_.run(buffer_.data());
    if (!root) detail::unpack_block(execution_space(), memory, block_, buffer_.data());
    execution_space().fence();
  }

  /// The algorithm chosen at construction.
  BroadcastAlgorithm algorithm() const { return core_.algorithm(); }
  /// The block, normalised.
  const StridedBlock& block() const { return block_; }

 private:
  static std::string block_error(const StridedBlock& block) {
    if (block.count() > 0 && !block.injective())
      return "the block " + block.to_string() +
             " may visit an element twice: a broadcast target needs each element once";
    return {};
  }

  StridedBlock block_;
  detail::VectorBroadcast<T, MemorySpace> core_;
  Kokkos::View<T*, MemorySpace> buffer_;
};

}  // namespace adlib
