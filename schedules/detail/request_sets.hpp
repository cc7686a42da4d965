// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Persistent request sets of a BlockMessSchedule and the cache that keeps
/// them.
///
/// A RequestSet is one persistent receive per incoming message and one
/// persistent send per outgoing message of a route, bound to the memory the
/// messages travel through: the pack buffers, or, for messages in place,
/// the user's arrays (a set then serves only those arrays), directly or
/// through a derived datatype over the message's blocks.  The sets make
/// their own requests (request_sets.cpp), from the route and a
/// RequestBinding, so that no executor writes MPI_*_init calls.  The cache keeps
/// up to RequestSets::kKept sets and evicts the least recently used, so a
/// code that cycles through a few fields (array pairs) never rebuilds its
/// requests and one that cycles through many stays bounded.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <vector>

#include <adlib/runtime/block_datatype.hpp>
#include <adlib/schedules/detail/message_route.hpp>

namespace adlib::detail {

/// What a request set is bound to: a route, an element datatype, and the
/// arrays' addresses where a message travels in place (else null).
struct RequestSetKey {
  const MessageRoute* route = nullptr;       ///< the route its messages follow
  MPI_Datatype element = MPI_DATATYPE_NULL;  ///< the element datatype
  const void* dst = nullptr;                 ///< destination array (only with in-place arrivals)
  const void* src = nullptr;                 ///< source array (only with in-place departures)
  /// Same binding?
  bool operator==(const RequestSetKey& o) const {
    return route == o.route && element == o.element && dst == o.dst && src == o.src;
  }
};

/// Where one message's request reads or writes, and as what.
struct RequestTarget {
  void* address = nullptr;                ///< buffer or user memory
  int count = 0;                          ///< of `type`
  MPI_Datatype type = MPI_DATATYPE_NULL;  ///< element, or a datatype over the blocks
};

/// The memory and the channel a new request set is bound to, beside its key.
struct RequestBinding {
  unsigned char* incoming_buffer = nullptr;  ///< where arrivals not in place land (MPI's view)
  unsigned char* outgoing_buffer = nullptr;  ///< where departures not in place are packed
  void* dst = nullptr;                       ///< the destination array (in-place arrivals)
  const void* src = nullptr;                 ///< the source array (in-place departures)
  std::size_t element_size = 0;              ///< bytes per element
  int tag = -1;                              ///< the schedule's message tag
  MPI_Comm comm = MPI_COMM_NULL;             ///< the schedule's communicator
};

/// The persistent requests of one binding (see the file overview).
struct RequestSet {
  RequestSetKey key;                    ///< what it is bound to
  std::vector<MPI_Request> incoming;    ///< receives, in route().incoming() order
  std::vector<MPI_Request> outgoing;    ///< sends, in route().outgoing() order
  std::vector<RequestTarget> expected;  ///< what each receive expects (finish() checks)
  std::vector<Datatype> types;          ///< datatypes of in-place messages, alive with the requests
  std::uint64_t last_use = 0;           ///< for the least-recently-used eviction
};

/// Bounded cache of request sets (see the file overview).
class RequestSets {
 public:
  /// Sets kept before the least recently used is evicted.
  static constexpr std::size_t kKept = 16;

  RequestSets() = default;
  RequestSets(const RequestSets&) = delete;
  RequestSets& operator=(const RequestSets&) = delete;
  ~RequestSets() { clear(); }

  /// The set bound to `key`, made from `binding` if there is none: one
  /// persistent receive per route().incoming() message, one persistent send
  /// per route().outgoing() message.  Returned by reference; valid until the
  /// next call.  A failure leaves no set and no request behind.
  RequestSet& find_or_make(const RequestSetKey& key, const RequestBinding& binding);

  /// Frees every set (unless MPI is finalised).
  void clear() {
    for (auto& set : sets_) free(set);
    sets_.clear();
  }
  /// Sets held now.
  std::size_t size() const { return sets_.size(); }

 private:
  static void make(RequestSet& set, const RequestBinding& binding);
  static void free(RequestSet& set);

  std::list<RequestSet> sets_;  ///< a list: a set's address is stable while it lives
  std::uint64_t clock_ = 0;
};

}  // namespace adlib::detail
