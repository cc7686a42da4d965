// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Persistent request sets of a BlockMessSchedule and the cache that keeps
/// them.
///
/// A RequestSet is one persistent receive per incoming message and one
/// persistent send per outgoing message of a route, bound to the memory the
/// messages travel through: the pack buffers, or, for messages in place,
/// the user's arrays (a set then serves only those arrays).  The cache keeps
/// up to RequestSets::kKept sets and evicts the least recently used, so a
/// code that cycles through a few fields (array pairs) never rebuilds its
/// requests and one that cycles through many stays bounded.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <list>
#include <utility>
#include <vector>

#include <adlib/runtime/block_datatype.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/message_route.hpp>

namespace adlib {

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

  /// The set bound to `key`, created by `make(set)` (which fills its requests)
  /// if there is none.  Returned by reference; valid until the next call.
  template <class Make>
  RequestSet& find_or_make(const RequestSetKey& key, Make&& make) {
    for (auto it = sets_.begin(); it != sets_.end(); ++it)
      if (it->key == key) {
        it->last_use = ++clock_;
        return *it;
      }
    if (sets_.size() >= kKept) {
      auto oldest = sets_.begin();
      for (auto it = sets_.begin(); it != sets_.end(); ++it)
        if (it->last_use < oldest->last_use) oldest = it;
      free(*oldest);
      sets_.erase(oldest);
    }
    sets_.emplace_back();
    RequestSet& set = sets_.back();
    set.key = key;
    set.last_use = ++clock_;
    try {
      make(set);
    } catch (...) {
      free(set);
      sets_.pop_back();
      throw;
    }
    return set;
  }

  /// Frees every set (unless MPI is finalised).
  void clear() {
    for (auto& set : sets_) free(set);
    sets_.clear();
  }
  /// Sets held now.
  std::size_t size() const { return sets_.size(); }

 private:
  static void free(RequestSet& set) {
    int finalized = 0;
    ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
    if (finalized) return;
    for (auto* list : {&set.incoming, &set.outgoing})
      for (auto& r : *list)
        if (r != MPI_REQUEST_NULL) ADLIB_MPI_CLEANUP(MPI_Request_free(&r));
  }

  std::list<RequestSet> sets_;  ///< a list: a set's address is stable while it lives
  std::uint64_t clock_ = 0;
};

}  // namespace adlib
