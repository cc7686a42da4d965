// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// BlockRedxSchedule: an all-reduce of a strided block of local memory over
/// the members of a communicator (Adlib's BlockRedxSchedule): what a
/// reduction along one dimension of a distributed array runs on its partial
/// results.
///
/// @code
///   // Each member's 4 x 3 block with a row pitch of 10, combined by addition.
///   adlib::BlockRedxSchedule<double> sums(comm, adlib::StridedBlock::make(0, {4, 3}, {10, 1}));
///   sums.execute(partial.data());   // the block of `partial` now holds the sum over members
/// @endcode
///
/// Every member passes a block of the same number of elements (offsets and
/// strides may differ); elements pair up in each block's C order.  A
/// contiguous block is reduced in place; any other is packed into a buffer
/// allocated at construction and unpacked afterwards.  Everything else
/// (agreement, algorithm choice, staging, determinism) is RedxSchedule's.
#pragma once

#include <Kokkos_Core.hpp>
#include <string>

#include <adlib/runtime/detail/pack.hpp>
#include <adlib/runtime/strided_block.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace adlib {

/// An all-reduce of one strided block per member (see the file overview).
template <class T, class Op = op::Add,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class BlockRedxSchedule {
 public:
  /// The memory space of the blocks it reduces.
  using memory_space = MemorySpace;

  /// Collective over `members`: plans the all-reduce of `block` (offsets in
  /// elements of the memory given to execute()) combined with `op`.
  BlockRedxSchedule(const Comm& members, const StridedBlock& block, const Op& op = Op{},
                    const Configuration& config = Configuration::environment())
      : block_(block.normalized()),
        core_(members, block.count(), op, config, "BlockRedxSchedule", block_error(block),
              detail::hash_mix(detail::hash_start(), 2)) {
    if (!block_.contiguous() && block_.count() > 0)
      buffer_ = Kokkos::View<T*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::BlockRedxSchedule::buffer"),
          static_cast<std::size_t>(block_.count()));
  }

  /// Collective: the block of `memory` becomes the combination of every
  /// member's block.
  void execute(T* memory) const {
    if (block_.count() == 0) return core_.run(nullptr);
    if (block_.contiguous()) return core_.run(memory + block_.lowest_offset());
    using execution_space = typename MemorySpace::execution_space;
    detail::pack_block(execution_space(), memory, block_, buffer_.data());
    core_.run(buffer_.data());
    detail::unpack_block(execution_space(), memory, block_, buffer_.data());
    execution_space().fence();
  }

  /// The algorithm chosen at construction.
  ReductionAlgorithm algorithm() const { return core_.algorithm(); }
  /// Is the block staged through host memory?
  bool staged() const { return core_.staged(); }
  /// The block, normalised.
  const StridedBlock& block() const { return block_; }

 private:
  static std::string block_error(const StridedBlock& block) {
    if (block.count() > 0 && !block.injective())
      return "the block " + block.to_string() +
             " may visit an element twice: a reduction needs each element once";
    return {};
  }

  StridedBlock block_;
  detail::AllReduce<T, Op, MemorySpace> core_;
  Kokkos::View<T*, MemorySpace> buffer_;
};

/// Adlib's BlockRedx2Schedule: the all-reduce of a strided block of values
/// with their locations (Located<T, N>), keeping the largest
/// (op::MaxLocation) or smallest (op::MinLocation) value of each element
/// and, of equal ones, the first location.
template <class T, int N, class Op = op::MaxLocation,
          class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
using BlockRedx2Schedule = BlockRedxSchedule<Located<T, N>, Op, MemorySpace>;

}  // namespace adlib
