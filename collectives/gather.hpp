// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Gather: every rank reads the elements of a distributed 1-D array at a list
/// of global subscripts that only it knows (the vector form of Adlib's
/// Gather, PETSc's VecScatter from a global vector into a local one):
/// out[k] = src[subscripts[k]].
///
/// @code
///   adlib::DistArray<double, 1> x(grid, {adlib::block(n)});
///   std::vector<adlib::Index> wanted = {17, 3, 17, n - 1};  // any, repeats allowed
///   adlib::Gather fetch(x, wanted);             // negotiate once (collective)
///   Kokkos::View<double*> out("out", wanted.size());
///   for (int step = 0; step < steps; ++step) {
///     ...                                       // update x
///     fetch.execute(out, x);                    // out[k] = x[wanted[k]], many times
///   }
///   adlib::gather(out, x, wanted);              // one-shot: plan, execute, drop
/// @endcode
///
/// Construction is collective over the array's communicator: the
/// subscripts are checked (out of range on any rank: the same adlib::Error
/// on every rank, before any message), each rank tells the owners what it
/// needs with one sparse exchange (runtime/sparse_exchange.hpp: no data of
/// size P on any rank), and the schedule is built (collectives/
/// index_exchange_plan.hpp).  A subscript listed several times travels once
/// and is copied locally to its other positions after the messages arrive;
/// subscripts this rank holds are copied locally, without MPI.  A replicated
/// array is read from one replica: this rank's own copy when it has one, else
/// replica (rank mod replicas).  Any array of the planned layout may be
/// gathered from afterwards.
///
/// The template arguments are deduced from the array: `adlib::Gather g(x,
/// wanted)` is a Gather<double, MemorySpace> for a DistArray<double, 1>.
/// What Gather shares with Scatter (construction, the layout check of an
/// execution, the inquiries) is collectives/subscript_list_schedule.hpp.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/collectives/subscript_list_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/configuration.hpp>

namespace adlib {

/// A planned gather of one rank's list of global subscripts from 1-D arrays
/// of one layout (see the file overview): construct once (collective),
/// execute many times.  size(), layout() and negotiation() are
/// SubscriptListSchedule's, shared with Scatter.
template <class T, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Gather : public SubscriptListSchedule<T, MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "Gather moves elements as bytes");

 public:
  /// The arrays it reads.
  using array_type = DistArray<T, 1, MemorySpace>;

  /// Plans the gather of `subscripts` (positions 0 .. src.extent(0)-1 of the
  /// array, repeats allowed; each rank its own list, possibly empty) from
  /// arrays of `src`'s layout.  Collective.  `config`: transfer choice,
  /// checked mode (runtime/configuration.hpp); the same on every rank, as
  /// are the element type and the layout.
  Gather(const array_type& src, const std::vector<Index>& subscripts,
         const Configuration& config = Configuration::environment())
      : Gather(src.layout(), subscripts, config) {}

  /// The same from the layout alone.
  Gather(const ArrayLayout& layout, const std::vector<Index>& subscripts,
         const Configuration& config = Configuration::environment())
      : SubscriptListSchedule<T, MemorySpace>(layout, subscripts, RemoteAccess::read, "Gather", 0,
                                              config) {}

  /// out[k] = src[subscripts[k]] for every k: `out` is a rank-1 View of the
  /// schedule's memory space, unit stride, at least size() elements.
  template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
  void execute(const View& out, const array_type& src) {
    start(out, src);
    this->finish();
  }
  /// The same into memory of the schedule's space: `out` holds size()
  /// elements (may be null when size() is 0).
  void execute(T* out, const array_type& src) {
    start(out, src);
    this->finish();
  }

  /// execute() in two halves: start() posts the messages and does the local
  /// copies; `out` must not be read, nor `src`'s local block written, before
  /// finish().
  template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
  void start(const View& out, const array_type& src) {
    static_assert(static_cast<int>(View::rank) == 1, "Gather writes a rank-1 View");
    static_assert(std::is_same<typename View::value_type, T>::value,
                  "the View's elements must be the Gather's element type (not const)");
    static_assert(std::is_same<typename View::memory_space, MemorySpace>::value,
                  "the View must live in the Gather's memory space");
    start_checked(out.data(), detail::vector_view_error(out, this->size(), "the output View"), src);
  }
  /// The pointer form of start().
  void start(T* out, const array_type& src) {
    start_checked(out, this->size() > 0 && out == nullptr ? "the output is null" : std::string(),
                  src);
  }
  /// Subscripts that repeat an earlier one: copied locally, not sent.
  std::size_t repeats() const { return this->schedule_->repeats(); }

 private:
  void start_checked(T* out, std::string error, const array_type& src) {
    this->agree_to_execute_on(src, "source", std::move(error), "Gather::execute");
    this->schedule_->start_read(out, this->size(), src.local_view().data(),
                                src.local_view().span());
  }
};

/// Deduction guide: adlib::Gather g(x, subscripts) takes T and MemorySpace
/// from the array.
template <class T, class MemorySpace>
Gather(const DistArray<T, 1, MemorySpace>&, const std::vector<Index>&) -> Gather<T, MemorySpace>;
/// The same with a Configuration.
template <class T, class MemorySpace>
Gather(const DistArray<T, 1, MemorySpace>&, const std::vector<Index>&, const Configuration&)
    -> Gather<T, MemorySpace>;

/// One-shot gather (collective): plan, out[k] = src[subscripts[k]], drop
/// the schedule.  `out`: a rank-1 View or a pointer, as Gather::execute.
template <class Out, class T, class MemorySpace>
void gather(const Out& out, const DistArray<T, 1, MemorySpace>& src,
            const std::vector<Index>& subscripts) {
  Gather<T, MemorySpace> schedule(src, subscripts);
  schedule.execute(out, src);
}

}  // namespace adlib
