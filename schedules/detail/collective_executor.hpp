// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// CollectiveExecutor: runs one member's CollectivePlan (see
/// collective_plan.hpp) over a vector in memory the executor's kernels can
/// reach, with one scratch buffer allocated at construction.  The reduction
/// and broadcast schedules are built on it; it knows nothing of ranges.
///
/// @code
///   adlib::detail::CollectiveExecutor<double, adlib::op::Add, Kokkos::HostSpace> run(
///       plan, n, adlib::op::add, comm.get(), tag, MPI_DOUBLE);
///   run.run(x.data());     // x holds the all-reduce of every member's x
/// @endcode
///
/// Each step fences the execution space (so MPI reads what kernels wrote),
/// posts its sends, and receives; a combining step takes its arrival one
/// piece at a time (messages longer than the piece size travel as several)
/// and combines each piece in one kernel as soon as it is there, while it is
/// still in cache.  Nothing is allocated per execution.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/collective_plan.hpp>

namespace adlib::detail {

/// part[i] = arrived[i] (x) base[i] or base[i] (x) arrived[i]: which side
/// holds the lower ranks decides the order of the operands.  `base` is the
/// part itself, or the input vector's part where an out-of-place execution
/// has not written this part yet.
template <class T, class Op>
struct CombineArrival {
  T* part;                ///< the vector's received part (written)
  const T* base;          ///< what the arrival combines with (read)
  const T* arrived;       ///< the scratch buffer the arrival landed in
  Op op;                  ///< the combine operation
  bool arrived_is_lower;  ///< the arrival holds lower ranks' contributions
  /// Combines element i.
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const {
    T value = arrived_is_lower ? arrived[i] : base[i];
    op(value, arrived_is_lower ? base[i] : arrived[i]);
    part[i] = value;
  }
};

/// Where each step of a plan reads when it runs out of place (input vector
/// to output vector): from the input until the output holds that part.
struct OutOfPlaceSources {
  std::vector<char> send_from_input;     ///< per step: the sent part is the input's
  std::vector<char> combine_from_input;  ///< per step: the combined part is the input's
  /// Some step reads a part only partly written, or some part is never
  /// written: the input is copied to the output first and the plan runs in
  /// place.
  bool copy_first = false;
};

/// Follows which parts of the output each step writes (see
/// OutOfPlaceSources).
inline OutOfPlaceSources out_of_place_sources(const CollectivePlan& plan, std::int64_t count) {
  OutOfPlaceSources sources;
  std::vector<std::pair<std::int64_t, std::int64_t>> written;  // disjoint, unsorted
  auto covered = [&](std::int64_t begin, std::int64_t end) {
    std::int64_t inside = 0;
    for (const auto& [b, e] : written)
      inside += std::max<std::int64_t>(0, std::min(e, end) - std::max(b, begin));
    return inside == 0 ? 0 : inside == end - begin ? 1 : 2;  // none, all, part
  };
  auto write = [&](std::int64_t begin, std::int64_t end) {
    if (begin >= end || covered(begin, end) == 1) return;
    if (covered(begin, end) == 2) sources.copy_first = true;
    written.emplace_back(begin, end);
  };
  for (const CollectiveStep& step : plan.steps) {
    int send =
        step.send_count > 0 ? covered(step.send_begin, step.send_begin + step.send_count) : 1;
    const std::int64_t end = step.receive_begin + step.receive_count;
    int part = step.receive_count > 0 && step.arrival != Arrival::replace
                   ? covered(step.receive_begin, end)
                   : 1;
    if (send == 2 || part == 2) sources.copy_first = true;
    sources.send_from_input.push_back(send == 0);
    sources.combine_from_input.push_back(part == 0);
    if (step.receive_count > 0) write(step.receive_begin, end);
  }
  if (covered(0, count) != 1 && count > 0) sources.copy_first = true;
  return sources;
}

/// Runs a CollectivePlan (see the file overview).  `WorkSpace` is the
/// memory space of the vector it runs on; movable, not copyable.
template <class T, class Op, class WorkSpace>
class CollectiveExecutor {
 public:
  /// The execution space of the combine kernels.
  using execution_space = typename WorkSpace::execution_space;

  /// Runs `plan` over vectors of `count` elements, on `comm` (its ranks are
  /// the plan's members), messages tagged `tag` and typed `type`, each
  /// message cut into pieces of at most `piece_bytes` bytes (0: whole;
  /// every member must pass the same value, see
  /// Configuration::collective_piece_bytes).
  CollectiveExecutor(CollectivePlan plan, std::int64_t count, const Op& op, MPI_Comm comm, int tag,
                     MPI_Datatype type, std::int64_t piece_bytes = 0)
      : plan_(std::move(plan)), count_(count), op_(op), comm_(comm), tag_(tag), type_(type) {
    sources_ = detail::out_of_place_sources(plan_, count);
    const auto element = static_cast<std::int64_t>(sizeof(T));
    piece_ = piece_bytes > 0 ? std::max<std::int64_t>(1, piece_bytes / element)
                             : std::numeric_limits<int>::max();
    std::int64_t most = 0;
    for (const CollectiveStep& step : plan_.steps)
      most = std::max(most, sent_pieces(step) + received_pieces(step));
    requests_.resize(static_cast<std::size_t>(most), MPI_REQUEST_NULL);
    // A combining step takes one piece at a time (see execute), so the
    // scratch holds one piece: small enough to stay in cache between
    // arrivals.
    const std::int64_t scratch = std::min(plan_.scratch_count(), piece_);
    if (scratch > 0)
      scratch_ = Kokkos::View<T*, WorkSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::CollectiveExecutor::scratch"),
          static_cast<std::size_t>(scratch));
  }

  /// Runs every step on `data` (WorkSpace memory holding the whole vector).
  void run(T* data) const { run(data, data); }
  /// Runs every step out of place: `input` is read, `data` (both of the
  /// whole vector, in WorkSpace memory) receives the result.  Parts are read
  /// from the input until the output holds them, so the input is not copied
  /// first (unless the plan needs it: see OutOfPlaceSources).
  void run(const T* input, T* data) const {
    const char* operation = "CollectiveExecutor::run";
    const char* name = take_execution_name();
    const char* watched_as = name ? name : operation;  // the watchdog's name for it
    const bool in_place = input == data || sources_.copy_first;
    if (input != data && sources_.copy_first) {
      const auto count = static_cast<std::size_t>(count_);
      Kokkos::deep_copy(
          Kokkos::View<T*, WorkSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(data, count),
          Kokkos::View<const T*, WorkSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(input, count));
    }
    for (std::size_t s = 0; s < plan_.steps.size(); ++s) {
      const CollectiveStep& step = plan_.steps[s];
      const T* send_source = in_place || !sources_.send_from_input[s] ? data : input;
      const T* combine_base = in_place || !sources_.combine_from_input[s] ? data : input;
      execution_space().fence();
      const bool combining = step.arrival != Arrival::replace;
      // Long messages that the receiver combines travel as pieces of at
      // most piece_ elements (both ends cut the same count the same way, so
      // they match in order); the others travel whole
      // (CollectiveStep::send_combined).  The sends all go at once; the
      // arrivals of a combining step are taken one piece at a time and
      // combined at once, while the piece is still in cache, instead of
      // landing whole in scratch memory and being read back from DRAM.
      const std::int64_t sends = sent_pieces(step), receives = received_pieces(step);
      // What the hang watchdog reports of this step's waits (built only when
      // it is on): requests 0 .. receives-1 receive, the others send.
      const auto step_subject = [&, receives](std::int64_t first, std::int64_t count) {
        WaitSubject subject{
            watched_as,
            "step " + std::to_string(s + 1) + " of " + std::to_string(plan_.steps.size()),
            comm_,
            {},
            tag_};
        for (std::int64_t k = first; k < first + count; ++k)
          subject.peers.push_back(k < receives ? step.receive_peer : step.send_peer);
        return subject;
      };
      const std::int64_t send_piece = piece_length(step.send_combined);
      MPI_Request* send_requests = requests_.data() + receives;
      try {
        for (std::int64_t k = 0; k < sends; ++k) {
          const std::int64_t begin = k * send_piece;
          ADLIB_MPI(MPI_Isend(const_cast<T*>(send_source) + step.send_begin + begin,
                              static_cast<int>(std::min(send_piece, step.send_count - begin)),
                              type_, step.send_peer, tag_, comm_, &send_requests[k]),
                    operation);
        }
        if (!combining) {
          const std::int64_t length = piece_length(false);
          for (std::int64_t k = 0; k < receives; ++k) {
            const std::int64_t begin = k * length;
            ADLIB_MPI(MPI_Irecv(data + step.receive_begin + begin,
                                static_cast<int>(std::min(length, step.receive_count - begin)),
                                type_, step.receive_peer, tag_, comm_, &requests_[k]),
                      operation);
          }
        } else {
          for (std::int64_t k = 0; k < receives; ++k) {
            const std::int64_t begin = k * piece_;
            const std::int64_t length = std::min(piece_, step.receive_count - begin);
            T* landing = scratch_.data();  // combined before the next piece lands
            // The combine of the previous piece reads the landing area: on an
            // asynchronous device it may still run when MPI writes there.
            if (k > 0) execution_space().fence();
            ADLIB_MPI(MPI_Irecv(landing, static_cast<int>(length), type_, step.receive_peer, tag_,
                                comm_, &requests_[k]),
                      operation);
            ADLIB_MPI(
                watched_wait(&requests_[k], MPI_STATUS_IGNORE, [&] { return step_subject(k, 1); }),
                operation);
            const std::int64_t at = step.receive_begin + begin;
            // A send still in flight may read what this combine overwrites
            // (an in-place exchange of the same part, as in recursive
            // doubling): the pieces it overlaps must have left first.
            const std::int64_t first = std::max(at, step.send_begin),
                               last = std::min(at + length, step.send_begin + step.send_count);
            if (send_source == data && first < last) {
              const std::int64_t low = (first - step.send_begin) / send_piece,
                                 high = (last - 1 - step.send_begin) / send_piece;
              ADLIB_MPI(
                  watched_waitall(static_cast<int>(high - low + 1), send_requests + low,
                                  MPI_STATUSES_IGNORE,
                                  [&] { return step_subject(receives + low, high - low + 1); }),
                  operation);
            }
            Kokkos::parallel_for(
                "adlib::CollectiveExecutor::combine",
                Kokkos::RangePolicy<execution_space>(0, static_cast<std::size_t>(length)),
                detail::CombineArrival<T, Op>{data + at, combine_base + at, landing, op_,
                                              step.arrival == Arrival::combine_from_lower});
          }
        }
        ADLIB_MPI(
            watched_waitall(static_cast<int>(sends + receives), requests_.data(),
                            MPI_STATUSES_IGNORE, [&] { return step_subject(0, sends + receives); }),
            operation);
      } catch (...) {
        // The hang watchdog timed out (raise mode) or MPI failed: no message
        // may land in the caller's memory or the scratch after this returns.
        // (Sends cannot be taken back; they read memory the caller keeps.)
        cancel_pending_receives(static_cast<int>(receives), requests_.data());
        throw;
      }
    }
    execution_space().fence();
  }

  /// The plan it runs.
  const CollectivePlan& plan() const { return plan_; }

 private:
  /// The most elements one message carries: a piece when the receiver
  /// combines it, else as many as an MPI count holds.
  std::int64_t piece_length(bool combined) const {
    return combined ? piece_ : std::numeric_limits<int>::max();
  }
  /// The number of messages a step sends.
  std::int64_t sent_pieces(const CollectiveStep& step) const {
    const std::int64_t length = piece_length(step.send_combined);
    return (step.send_count + length - 1) / length;
  }
  /// The number of messages a step receives, cut as its sender cuts them.
  std::int64_t received_pieces(const CollectiveStep& step) const {
    const std::int64_t length = piece_length(step.arrival != Arrival::replace);
    return (step.receive_count + length - 1) / length;
  }

  CollectivePlan plan_;
  std::int64_t count_ = 0;
  Op op_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int tag_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  Kokkos::View<T*, WorkSpace> scratch_;
  detail::OutOfPlaceSources sources_;
  std::int64_t piece_ = 1;                     // elements per message piece
  mutable std::vector<MPI_Request> requests_;  // sized for the longest step
};

}  // namespace adlib::detail
