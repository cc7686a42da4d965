// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::Comm: the library's own duplicate of a user communicator.
///
/// Why a duplicate: the library's messages must never match the application's.
/// Why only one: MPI_Comm_dup is collective and communicators are a scarce
/// resource, so every schedule over the same user communicator shares a single
/// duplicate (cached on the user communicator as an MPI attribute, the way
/// PETSc keeps its inner communicator).  The duplicate carries a TagAllocator,
/// so concurrently live schedules get distinct tags, and the error handler
/// MPI_ERRORS_RETURN, so an MPI error inside adlib becomes an adlib::Error
/// (every MPI call adlib makes goes through ADLIB_MPI) instead of aborting.
///
/// @code
///   adlib::Comm comm(MPI_COMM_WORLD);        // collective the first time only
///   adlib::TagLease tag = comm.lease_agreed_tag("", 0, "MySchedule");  // collective
/// @endcode
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <adlib/runtime/tag_allocator.hpp>

namespace adlib {

class Comm;

/// A tag held for as long as this object lives; movable, not copyable.
class TagLease {
 public:
  TagLease() = default;
  /// Takes over the lease; `other` holds no tag afterwards.
  TagLease(TagLease&& other) noexcept;
  /// Gives back the tag held so far and takes over `other`'s lease.
  TagLease& operator=(TagLease&& other) noexcept;
  TagLease(const TagLease&) = delete;
  TagLease& operator=(const TagLease&) = delete;
  ~TagLease();

  /// The leased tag, -1 for a default-constructed or moved-from lease.
  int tag() const { return tag_; }

 private:
  friend class Comm;
  struct State;
  TagLease(std::shared_ptr<State> state, int tag) : state_(std::move(state)), tag_(tag) {}
  void release() noexcept;  ///< gives the tag back (idempotent)
  std::shared_ptr<State> state_;
  int tag_ = -1;
};

/// A shared handle to the library's duplicate of a user communicator (see the
/// file overview); copies share the duplicate and its tag pool.
class Comm {
 public:
  /// The library duplicate of `user` (created collectively on first use).
  explicit Comm(MPI_Comm user = MPI_COMM_WORLD);

  MPI_Comm get() const;  ///< the duplicate: use it for every library message
  /// This process's rank in the communicator.
  int rank() const;
  /// Number of processes in the communicator.
  int size() const;
  /// This rank's lowest free tag, without communication: the same tag as on
  /// other ranks only if every rank leased and released tags in the same
  /// order.  Schedules use lease_agreed_tag() instead.
  TagLease lease_tag() const;
  /// Collective: agree_on_errors() (below) and, when every rank is fine, the
  /// lowest tag that is free on every rank, leased here, in the same single
  /// MPI_Allreduce (a second one only when the 512 lowest tags are all taken
  /// somewhere).  Ranks may release tags in any order.
  TagLease lease_agreed_tag(const std::string& local_error, std::uint64_t fingerprint,
                            const char* operation) const;
  /// How many tags of this rank's pool are leased now (tests check for leaks).
  int live_tags() const;

  /// Collective over the listed ranks of this communicator, and only them
  /// (every one passes the same list, which holds the caller): the library
  /// communicator of exactly those ranks, rank i of it being ranks[i] here.
  /// Made once per list (MPI_Comm_create_group) and kept for as long as this
  /// communicator lives, so a schedule over a sub-grid costs no
  /// communicator creation after the first.  The whole communicator, in
  /// order, is this Comm itself.
  Comm subset(const std::vector<int>& ranks) const;
  /// An object derived collectively from this communicator (a node
  /// topology, say) and kept with it under `key`, or null when none is.
  std::shared_ptr<const void> attachment(const std::string& key) const;
  /// Keeps `value` with this communicator under `key` (replacing any).
  void attach(const std::string& key, std::shared_ptr<const void> value) const;

  /// True when both wrap the same user communicator (hence the same duplicate).
  bool operator==(const Comm& other) const { return state_ == other.state_; }
  /// Not the same user communicator.
  bool operator!=(const Comm& other) const { return !(*this == other); }

  struct State;

 private:
  std::shared_ptr<State> state_;
};

/// Agreement on argument checks.  Every rank passes its local verdict (an empty
/// string when its arguments are fine) and a fingerprint of the arguments that
/// must be identical on every rank.  If any rank found an error, or the
/// fingerprints differ, every rank throws the same adlib::Error (the message of
/// the lowest failing rank).  One MPI_Allreduce when all is well.  A
/// fingerprint is a hash: schedules hash their layouts, parameters, element
/// type (detail::element_fingerprint) and Configuration into it.
void agree_on_errors(const Comm& comm, const std::string& local_error, std::uint64_t fingerprint,
                     const char* operation);

}  // namespace adlib
