// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// MessageBuffers: the memory a BlockMessSchedule packs into and receives
/// into, one family for every kind of execution.
///
/// Three buffers in the arrays' memory space: outgoing (packed messages
/// about to be sent), incoming (messages received to be unpacked) and local
/// (self-data the plan could not pair block by block).  When messages are
/// staged (device memory without GPU-aware MPI, or forced staging), the
/// outgoing and incoming buffers have host twins that MPI reads and writes;
/// they are separate allocations even when the memory space is host memory,
/// so forced staging runs the copies a device run would.  The buffers only
/// grow (to the largest route used), and growing tells the caller, whose
/// persistent requests point into the old memory.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <adlib/runtime/detail/block_allocation.hpp>

namespace adlib::detail {

/// The pack buffers of one schedule (see the file overview).
template <class MemorySpace>
class MessageBuffers {
 public:
  /// Bytes in the arrays' memory space.
  using Bytes = Kokkos::View<unsigned char*, MemorySpace>;
  /// Bytes in host memory (the staging twins).
  using HostBytes = Kokkos::View<unsigned char*, Kokkos::HostSpace>;

  /// Sizes in bytes that one route needs.
  struct Sizes {
    std::size_t incoming = 0;  ///< bytes of the incoming buffer
    std::size_t outgoing = 0;  ///< bytes of the outgoing buffer
    std::size_t local = 0;     ///< bytes of the local buffer
  };

  /// Makes every buffer at least as large as `sizes` asks (host twins too
  /// when `staged`); true if any buffer moved (requests into it are stale).
  bool reserve(const Sizes& sizes, bool staged) {
    bool moved = grow(incoming_, sizes.incoming, "adlib::incoming");
    moved = grow(outgoing_, sizes.outgoing, "adlib::outgoing") || moved;
    grow(local_, sizes.local, "adlib::local");  // never handed to MPI
    if (staged) {
      moved = grow(incoming_host_, sizes.incoming, "adlib::incoming_host") || moved;
      moved = grow(outgoing_host_, sizes.outgoing, "adlib::outgoing_host") || moved;
    }
    return moved;
  }

  /// Packed messages to send (the arrays' memory space).
  const Bytes& outgoing() const { return outgoing_; }
  /// Messages received, to unpack (the arrays' memory space).
  const Bytes& incoming() const { return incoming_; }
  /// Self-data that could not be paired block by block.
  const Bytes& local() const { return local_; }
  /// Host twin of outgoing() (staged messages only).
  const HostBytes& outgoing_host() const { return outgoing_host_; }
  /// Host twin of incoming() (staged messages only).
  const HostBytes& incoming_host() const { return incoming_host_; }

  /// The memory MPI reads sends from: the host twin when staged.
  unsigned char* outgoing_for_mpi(bool staged) const {
    return staged ? outgoing_host_.data() : outgoing_.data();
  }
  /// The memory MPI receives into: the host twin when staged.
  unsigned char* incoming_for_mpi(bool staged) const {
    return staged ? incoming_host_.data() : incoming_.data();
  }

  /// Staging, before sends start: bytes [first, last) of outgoing() to its
  /// host twin (a deep_copy, which fences).
  void stage_out(std::size_t first, std::size_t last) const {
    if (first == last) return;
    const std::pair<std::size_t, std::size_t> range(first, last);
    Kokkos::deep_copy(Kokkos::subview(outgoing_host_, range), Kokkos::subview(outgoing_, range));
  }
  /// Staging, after a message arrived: bytes [first, last) of the host twin
  /// to incoming().
  void stage_in(std::size_t first, std::size_t last) const {
    if (first == last) return;
    const std::pair<std::size_t, std::size_t> range(first, last);
    Kokkos::deep_copy(Kokkos::subview(incoming_, range), Kokkos::subview(incoming_host_, range));
  }

 private:
  // Host buffers of 4 MiB and more in huge pages (block_allocation.hpp):
  // MPI's single copy pins the pages of every message it moves, one by
  // one, and a pack or unpack walks the whole buffer.
  template <class View>
  static bool grow(View& view, std::size_t bytes, const char* label) {
    if (bytes <= view.extent(0)) return false;
    view = allocate_block<View>(label, false, bytes);
    return true;
  }

  Bytes outgoing_, incoming_, local_;
  HostBytes outgoing_host_, incoming_host_;
};

}  // namespace adlib::detail
