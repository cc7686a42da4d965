// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// CollectiveExecutor: runs one member's CollectivePlan (see
/// collective_plan.hpp) over a vector in memory the executor's kernels can
/// reach, with one scratch buffer allocated at construction.  The reduction
/// and broadcast schedules are built on it; it knows nothing of ranges.
///
/// @code
///   adlib::CollectiveExecutor<double, adlib::op::Add, Kokkos::HostSpace> run(
///       plan, adlib::op::add, comm.get(), tag, MPI_DOUBLE);
///   run.run(x.data());     // x holds the all-reduce of every member's x
/// @endcode
///
/// Each step fences the execution space (so MPI reads what kernels wrote),
/// posts its receive and its send, waits for both, and then combines what
/// arrived in one kernel over the received part.  Nothing is allocated per
/// execution.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <utility>

#include <adlib/runtime/error.hpp>
#include <adlib/schedules/collective_plan.hpp>

namespace adlib {

namespace detail {

/// part[i] = arrived[i] (x) part[i] or part[i] (x) arrived[i]: which side
/// holds the lower ranks decides the order of the operands.
template <class T, class Op>
struct CombineArrival {
  T* part;                ///< the vector's received part
  const T* arrived;       ///< the scratch buffer the arrival landed in
  Op op;                  ///< the combine operation
  bool arrived_is_lower;  ///< the arrival holds lower ranks' contributions
  /// Combines element i.
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const {
    if (arrived_is_lower) {
      T value = arrived[i];
      op(value, part[i]);
      part[i] = value;
    } else {
      op(part[i], arrived[i]);
    }
  }
};

}  // namespace detail

/// Runs a CollectivePlan (see the file overview).  `WorkSpace` is the
/// memory space of the vector it runs on; movable, not copyable.
template <class T, class Op, class WorkSpace>
class CollectiveExecutor {
 public:
  /// The execution space of the combine kernels.
  using execution_space = typename WorkSpace::execution_space;

  /// Over `comm` (its ranks are the plan's members), messages tagged `tag`
  /// and typed `type`.
  CollectiveExecutor(CollectivePlan plan, const Op& op, MPI_Comm comm, int tag, MPI_Datatype type)
      : plan_(std::move(plan)), op_(op), comm_(comm), tag_(tag), type_(type) {
    const std::int64_t scratch = plan_.scratch_count();
    if (scratch > 0)
      scratch_ = Kokkos::View<T*, WorkSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::CollectiveExecutor::scratch"),
          static_cast<std::size_t>(scratch));
  }

  /// Runs every step on `data` (WorkSpace memory holding the whole vector).
  void run(T* data) const {
    const char* operation = "CollectiveExecutor::run";
    for (const CollectiveStep& step : plan_.steps) {
      execution_space().fence();
      MPI_Request requests[2];
      int posted = 0;
      const bool combining = step.arrival != Arrival::replace;
      if (step.receive_count > 0) {
        T* target = combining ? scratch_.data() : data + step.receive_begin;
        ADLIB_MPI(MPI_Irecv(target, static_cast<int>(step.receive_count), type_, step.receive_peer,
                            tag_, comm_, &requests[posted++]),
                  operation);
      }
      if (step.send_count > 0)
        ADLIB_MPI(MPI_Isend(data + step.send_begin, static_cast<int>(step.send_count), type_,
                            step.send_peer, tag_, comm_, &requests[posted++]),
                  operation);
      ADLIB_MPI(MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE), operation);
      if (combining && step.receive_count > 0)
        Kokkos::parallel_for(
            "adlib::CollectiveExecutor::combine",
            Kokkos::RangePolicy<execution_space>(0, static_cast<std::size_t>(step.receive_count)),
            detail::CombineArrival<T, Op>{data + step.receive_begin, scratch_.data(), op_,
                                          step.arrival == Arrival::combine_from_lower});
    }
    execution_space().fence();
  }

  /// The plan it runs.
  const CollectivePlan& plan() const { return plan_; }

 private:
  CollectivePlan plan_;
  Op op_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int tag_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  Kokkos::View<T*, WorkSpace> scratch_;
};

}  // namespace adlib
