// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Remap: copy a distributed array into another of the same shape and any
/// distribution (Adlib's Remap).  Sections on either side, different process
/// grids over the same communicator, replicated destinations (every copy is
/// written) and replicated sources (one replica sends) all work.
///
/// @code
///   adlib::Remap to_columns(b, a);              // plan once (collective)
///   for (int step = 0; step < steps; ++step) {
///     ...                                       // update a
///     to_columns.execute(b, a);                 // b = a, many times
///   }
///   adlib::remap(b, a);                         // one-shot: plan, execute, drop
///   to_columns.reverse(a, b, adlib::op::add);   // a[i] += b[i]: contributions back
/// @endcode
///
/// The constructor plans from the layouts alone (plan_remap: range
/// arithmetic, no messages) and hands the blocks to a BlockMessSchedule; its
/// only communication is two small MPI_Allreduce calls (more with
/// Configuration::check_peers): the first makes every rank agree the
/// arguments are valid and identical, so bad input throws adlib::Error on
/// every rank, the second is BlockMessSchedule::build()'s agreement on the
/// schedule's tag.  Execution takes the arrays, checks that they have the planned
/// layouts (any arrays with those layouts will do) and runs the schedule.
///
/// A layout with an unstructured dimension (UnstructuredRange: each process
/// knows only its own indices) is planned by negotiation instead
/// (collectives/negotiated_remap_plan.hpp): the owners of the elements this
/// rank receives are located through the range's directory and told what to
/// send with one sparse exchange; the messages are then index lists.
///
/// The template arguments are deduced from the arrays (class template
/// argument deduction): `adlib::Remap r(y, x)` is a Remap<double, 1> for
/// DistArray<double, 1> arrays.
#pragma once

#include <memory>
#include <type_traits>

#include <adlib/collectives/detail/planned_schedule.hpp>
#include <adlib/collectives/negotiated_remap_plan.hpp>
#include <adlib/collectives/remap_plan.hpp>
#include <adlib/collectives/runs_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

/// A planned copy from arrays of one layout into arrays of another of the same
/// shape (see the file overview): construct once (collective), execute many
/// times.
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Remap : public RunsSchedule<MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "Remap moves elements as bytes");

 public:
  /// The arrays it copies between.
  using array_type = DistArray<T, Rank, MemorySpace>;

  /// `config`: transfer choice, checked mode (see runtime/configuration.hpp);
  /// the same on every rank.
  Remap(const array_type& dst, const array_type& src,
        const Configuration& config = Configuration::environment())
      : Remap(dst.layout(), src.layout(), overlap_error(dst, src), config) {}

  /// The same from the layouts alone (no arrays needed to plan).
  Remap(const ArrayLayout& dst, const ArrayLayout& src,
        const Configuration& config = Configuration::environment())
      : Remap(dst, src, std::string(), config) {}

  /// dst is written (Views are handles, hence const&, as in Kokkos::deep_copy).
  void execute(const array_type& dst, const array_type& src) {
    start(dst, src);
    this->finish();
  }
  /// start() returns once messages are posted and local copies done;
  /// neither array may be touched before finish().
  void start(const array_type& dst, const array_type& src) {
    if (this->running_)
      throw Error(
          "start() while the reverse execution start_reverse() began is in flight "
          "(finish() it first)",
          src_.group().grid().comm().rank(), "Remap::start");
    check_layouts(dst, src);
    this->schedule_->start(dst.local_view().data(), dst.local_view().span(),
                           src.local_view().data(), src.local_view().span());
  }

  /// The reverse of execute(), for assembly: every element of `dst` is
  /// combined with `combine` (op::add by default) into the element of `src`
  /// that execute() copies it from (PETSc's VecScatter in SCATTER_REVERSE
  /// with ADD_VALUES, Tpetra's Export).  `src` is written, `dst` only read.
  ///
  /// Replicated arrays: the replicas of a destination element are taken to
  /// hold equal values (as execute() leaves them), and ONE of them
  /// contributes (the one on the receiving rank when it holds a copy, else
  /// the replica numbered receiver mod replicas), so a sum counts each
  /// destination element once, however many replicas it has; every replica
  /// of a replicated source element receives the contributions.  Without
  /// replication this runs the schedule backwards; with it, a second
  /// schedule planned from `dst`'s layout to `src`'s, built (collectively)
  /// at the first call.
  template <class Combine = op::Add>
  void reverse(const array_type& src, const array_type& dst, Combine combine = {}) {
    start_reverse(src, dst, combine);
    this->finish();
  }
  /// reverse() in two halves; neither array may be touched before finish().
  template <class Combine = op::Add>
  void start_reverse(const array_type& src, const array_type& dst, Combine combine = {}) {
    // Built before any check of the arrays, so a rank whose arrays are
    // wrong still takes part in the collective build and no rank hangs.
    if (replicated_ && !reverse_schedule_)
      reverse_schedule_ = detail::build_schedule<T, MemorySpace>(
          src_.group().grid().comm(), remap_exchange_plan(src_, dst_, src_.group().grid().comm()),
          this->config_);
    check_layouts(dst, src, "Remap::reverse", op::fingerprint(combine));
    T* to = src.local_view().data();
    const T* from = dst.local_view().data();
    const std::size_t to_span = src.local_view().span(), from_span = dst.local_view().span();
    if (replicated_) {
      reverse_schedule_->start(to, to_span, from, from_span, Direction::forward, combine);
      this->running_ = reverse_schedule_.get();  // what finish() completes
    } else {
      this->schedule_->start(to, to_span, from, from_span, Direction::backward, combine);
    }
  }
  /// The layout execute() requires of `dst`.
  const ArrayLayout& destination_layout() const { return dst_; }
  /// The layout execute() requires of `src`.
  const ArrayLayout& source_layout() const { return src_; }

 private:
  /// Messages and local copies run in an order that ignores overlap, so an in-place
  /// remap between overlapping sections of one array would read elements it
  /// already overwrote.  Refused instead of silently wrong.
  static std::string overlap_error(const array_type& dst, const array_type& src) {
    if (dst.shares_allocation_with(src) && dst.layout().overlaps(src.layout()))
      return "source and destination are overlapping sections of the same array; remap into a "
             "separate array";
    return {};
  }

  Remap(const ArrayLayout& dst, const ArrayLayout& src, std::string error,
        const Configuration& config)
      : RunsSchedule<MemorySpace>(config), dst_(dst), src_(src) {
    const Comm& comm = src.group().grid().comm();
    if (error.empty()) error = config.error;
    if (error.empty()) error = check_remap_layouts(dst, src);
    if (error.empty() && dst.rank() != Rank)
      error = "layouts of rank " + std::to_string(dst.rank()) + " for a Remap of rank " +
              std::to_string(Rank);
    agree_on_arguments(
        comm, error,
        {agreed_layout("destination layout", dst), agreed_layout("source layout", src),
         agreed_element_type<T>(), agreed_configuration(config)},
        "Remap");
    this->schedule_ =
        detail::build_schedule<T, MemorySpace>(comm, remap_exchange_plan(dst, src, comm), config);
  }

  void check_layouts(const array_type& dst, const array_type& src,
                     const char* operation = "Remap::execute", std::uint64_t combine = 0) const {
    // Local check: passing an array of another layout on every rank gives
    // the same verdict everywhere without communication; on some ranks
    // only, checked mode makes every rank throw.
    std::string error = overlap_error(dst, src);
    if (error.empty() && dst.layout() != dst_)
      error = "destination has layout " + dst.layout().describe() + " but the schedule was " +
              "built for " + dst_.describe();
    if (error.empty() && src.layout() != src_)
      error = "source has layout " + src.layout().describe() + " but the schedule was " +
              "built for " + src_.describe();
    this->agree_to_execute(error, 1, operation, combine);
  }

  ArrayLayout dst_, src_;
  /// Either layout replicated: reverse() needs its own plan (see reverse()).
  bool replicated_ = !dst_.replicated_axes().empty() || !src_.replicated_axes().empty();
  std::unique_ptr<BlockMessSchedule<MemorySpace>> reverse_schedule_;
};

/// Deduction guide: adlib::Remap r(dst, src); takes T, Rank and MemorySpace
/// from the arrays (which must agree on all three).
template <class T, int Rank, class MemorySpace>
Remap(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&)
    -> Remap<T, Rank, MemorySpace>;

/// One-shot remap: plan, execute once, drop the schedule.
template <class T, int Rank, class MemorySpace>
void remap(const DistArray<T, Rank, MemorySpace>& dst, const DistArray<T, Rank, MemorySpace>& src) {
  Remap<T, Rank, MemorySpace> schedule(dst, src);
  schedule.execute(dst, src);
}

}  // namespace adlib
