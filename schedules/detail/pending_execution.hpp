// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// PendingExecution: the state of a BlockMessSchedule execution between
/// start() and finish(), and the order of the two.
///
/// start() posts the messages and records here what finish() will need: the
/// route and request set in use, the destination arrays, the combine
/// operation, and the typed finish that knows the element type.  The
/// schedule itself is not a template of the element type (one schedule
/// serves every type), so the type lives only in that finish function and
/// in the combine operation, held type-erased until finish() reads it back.
/// Kept apart from the schedule so that the sequencing rules (one execution
/// at a time, finish() only after start(), the execution over when finish()
/// returns or throws) are stated once.
#pragma once

#include <any>
#include <cstddef>
#include <vector>

#include <adlib/schedules/detail/message_route.hpp>
#include <adlib/schedules/detail/request_sets.hpp>

namespace adlib::detail {

/// The execution in flight of an executor of type `Owner` (see the file
/// overview).
template <class Owner>
class PendingExecution {
 public:
  /// The typed second half of an execution: completes the requests of
  /// `pending` and unpacks into its destinations.
  using Finish = void (*)(Owner& owner, const PendingExecution& pending);

  /// Between begin() and complete()?
  bool in_flight() const { return finish_ != nullptr; }

  /// Records an execution just started: `arrays` destination arrays, the
  /// route and requests it posted, the combine operation and the typed
  /// finish.  The destination list keeps its capacity, so repeated
  /// executions allocate nothing here.
  template <class T, class Combine>
  void begin(const MessageRoute& route, RequestSet& requests, T* const* destinations, int arrays,
             const Combine& combine, Finish finish) {
    destinations_.assign(destinations, destinations + arrays);
    combine_ = combine;
    route_ = &route;
    requests_ = &requests;
    finish_ = finish;
  }

  /// Runs the typed finish; the execution is over when it returns or throws.
  /// Call only while in_flight().
  void complete(Owner& owner) {
    struct Over {
      PendingExecution& pending;
      ~Over() {
        pending.finish_ = nullptr;
        pending.route_ = nullptr;
        pending.requests_ = nullptr;
      }
    } over{*this};
    finish_(owner, *this);
  }

  /// The route the execution follows.
  const MessageRoute& route() const { return *route_; }
  /// Its persistent requests.
  RequestSet& requests() const { return *requests_; }
  /// The arrays finish() writes into, as the element type of the finish.
  template <class T>
  T* destination(std::size_t k) const {
    return static_cast<T*>(destinations_[k]);
  }
  /// How many arrays the execution moves.
  std::size_t arrays() const { return destinations_.size(); }
  /// The combine operation given to start().
  template <class Combine>
  const Combine& combine() const {
    return *std::any_cast<Combine>(&combine_);
  }

 private:
  std::vector<void*> destinations_;
  std::any combine_;
  const MessageRoute* route_ = nullptr;
  RequestSet* requests_ = nullptr;
  Finish finish_ = nullptr;
};

}  // namespace adlib::detail
