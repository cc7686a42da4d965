// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// WriteHalo: fill the ghost cells of a ghost-extended array from the
/// processes that own those elements (Adlib's writeHalo).
///
/// @code
///   adlib::DistArray<double, 2> u(grid, {adlib::block(n).ghosts(1),
///                                        adlib::block(n).ghosts(1).periodic()});
///   adlib::WriteHalo halo(u);                     // every ghost cell, corners included
///   for (int step = 0; step < steps; ++step) {
///     halo.start(u);                              // messages posted, local copies done
///     ...                                         // update the interior far from the ghosts
///     halo.finish();                              // ghosts filled
///     ...                                         // update the cells next to the ghosts
///   }
///   halo.execute(u, v);                           // two fields, one message per peer
///   halo.accumulate(u, adlib::op::add);           // ghosts added into their owners
/// @endcode
///
/// Per dimension: low and high widths up to the range's ghost extension (a
/// width wider than a neighbour's block takes data from next-nearest
/// processes), and a Boundary: edge (ghosts outside the domain are left
/// alone), cyclic (periodic; the range must be periodic), mirror (-k copies
/// k, n-1+k copies n-1-k) or skip (this dimension's ghosts are not filled).
/// Ghost widths may exceed the extent.  A Stencil chooses box (corners
/// included) or faces (cells that are a ghost along one dimension only).
/// Planned from the layout alone (plan_write_halo); the constructor's only
/// communication is two small MPI_Allreduce calls (more with
/// Configuration::check_peers): the agreement on its arguments and
/// BlockMessSchedule::build()'s agreement on the tag.  Execution checks that
/// every array has the planned layout, so one schedule serves every array of
/// that layout, and several of them at once.
///
/// The template arguments are deduced from the array (class template
/// argument deduction): `adlib::WriteHalo halo(u)` is a WriteHalo<double, 2>
/// for a DistArray<double, 2>.
#pragma once

#include <array>
#include <memory>
#include <type_traits>
#include <vector>

#include <adlib/collectives/detail/planned_schedule.hpp>
#include <adlib/collectives/halo_plan.hpp>
#include <adlib/collectives/runs_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

/// A planned halo exchange for arrays of one layout (see the file overview):
/// construct once (collective), execute many times, on one array or several.
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class WriteHalo : public RunsSchedule<MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "WriteHalo moves elements as bytes");

 public:
  /// The arrays whose ghost cells it fills.
  using array_type = DistArray<T, Rank, MemorySpace>;
  /// Ghost widths, one per dimension.
  using Widths = std::array<Index, Rank>;
  /// Boundaries, one per dimension.
  using Boundaries = std::array<Boundary, Rank>;

  /// Every ghost cell of the ranges, cyclic where they are periodic, box
  /// stencil.  `config` (last argument of every constructor): transfer
  /// choice, checked mode (see runtime/configuration.hpp); the same on every
  /// rank.
  explicit WriteHalo(const array_type& array,
                     const Configuration& config = Configuration::environment())
      : WriteHalo(array.layout(), full_halo(array.layout()), config) {}

  /// low / high ghost cells to fill per dimension, a Boundary per dimension,
  /// and the stencil (box: corners included; faces: without them).
  WriteHalo(const array_type& array, const Widths& low, const Widths& high,
            const Boundaries& boundaries, Stencil stencil = Stencil::box,
            const Configuration& config = Configuration::environment())
      : WriteHalo(array.layout(),
                  HaloWidths{std::vector<Index>(low.begin(), low.end()),
                             std::vector<Index>(high.begin(), high.end()),
                             std::vector<Boundary>(boundaries.begin(), boundaries.end()), stencil},
                  config) {}

  /// The same from the layout alone; `halo` is checked by check_halo() (an
  /// adlib::Error on every rank if it fails).
  WriteHalo(const ArrayLayout& layout, const HaloWidths& halo,
            const Configuration& config = Configuration::environment())
      : RunsSchedule<MemorySpace>(config), layout_(layout), halo_(halo) {
    const Comm& comm = layout.group().grid().comm();
    std::string error = config.error;
    if (error.empty()) error = boundary_error(halo);
    if (error.empty() && !layout.plannable_locally())
      error =
          "WriteHalo plans from every process's owned interval, which an unstructured "
          "dimension does not have (unstructured meshes exchange halos with DepthHalo)";
    if (error.empty())
      error = layout.rank() == Rank ? check_halo(layout, halo)
                                    : "layout of rank " + std::to_string(layout.rank()) +
                                          " for a WriteHalo of rank " + std::to_string(Rank);
    const std::string widths = describe(halo);
    agree_on_arguments(
        comm, error,
        {agreed_layout("layout", layout),
         {"halo widths and boundaries", fingerprint_of(widths), [&] { return widths; }},
         agreed_element_type<T>(),
         agreed_configuration(config)},
        "WriteHalo");
    this->schedule_ = detail::build_schedule<T, MemorySpace>(
        comm, plan_write_halo(layout, halo, comm.rank()), config);
  }

  /// One array, or several arrays of this layout in one exchange (the
  /// fields of one solver): halo.execute(u, v, w).  One message per peer
  /// carries all of them, so K fields cost the latency of one.  Every rank
  /// passes the same number of arrays.
  template <class... More>
  void execute(const array_type& first, const More&... more) {
    start(first, more...);
    this->finish();
  }
  /// Returns once messages are posted and local (periodic) copies are done.
  /// Until finish(), the ghost cells must not be read or written, and the
  /// owned cells within the halo widths of a process boundary (they are being
  /// sent) must not be written; everything else may be read and written.
  /// Every array is checked before anything is posted: unchecked, a wrong
  /// layout throws on its rank; in checked mode (see Configuration) every
  /// rank agrees on the layouts and on the number of arrays, so a difference
  /// on any rank is an adlib::Error on every rank.  Unchecked, a rank that
  /// passes another number of arrays makes the ranks it exchanges messages
  /// with throw (their messages have the wrong size).
  template <class... More>
  void start(const array_type& first, const More&... more) {
    static_assert((std::is_same<More, array_type>::value && ...),
                  "WriteHalo exchanges arrays of the type it was built for "
                  "(DistArray<T, Rank, MemorySpace>)");
    const std::array<const array_type*, 1 + sizeof...(More)> arrays{&first, &more...};
    std::string error;
    for (const array_type* a : arrays)
      if (error.empty()) error = layout_error(*a);
    this->agree_to_execute(error, arrays.size(), "WriteHalo::execute");
    const std::size_t span = first.local_view().span();
    if constexpr (sizeof...(More) == 0) {
      T* data = first.local_view().data();
      this->schedule_->start(data, span, data, span);
    } else {
      std::vector<T*> data;
      std::vector<const T*> read;
      for (const array_type* a : arrays) {
        data.push_back(a->local_view().data());
        read.push_back(a->local_view().data());
      }
      this->schedule_->start_many(data, span, read, span);
    }
  }

  /// The reverse of execute(), for assembly: every ghost cell that execute()
  /// fills is combined with `combine` (op::add by default: finite-element
  /// and finite-volume assembly, PETSc's DMLocalToGlobal with ADD_VALUES,
  /// Tpetra's Export with ADD) into the element it is filled from, its owner
  /// (or, with Boundary::mirror, its mirror image).  It is the adjoint of
  /// execute(): a ghost cell filled from an element counts once for it, ghost
  /// cells that execute() does not fill (outside the domain at an edge
  /// boundary, corners under Stencil::faces, skipped dimensions) count for
  /// nothing, and an element that fills several ghost cells (wide or
  /// periodic ghosts, mirrors) receives all of them, in a fixed order.  The
  /// ghost cells keep their values; zero them before the next assembly.
  template <class Combine = op::Add>
  void accumulate(const array_type& array, Combine combine = {}) {
    start_accumulate(array, combine);
    this->finish();
  }
  /// accumulate() in two halves, like start() and finish(): until finish(),
  /// the array must not be touched.
  template <class Combine = op::Add>
  void start_accumulate(const array_type& array, Combine combine = {}) {
    this->agree_to_execute(layout_error(array), 1, "WriteHalo::accumulate",
                           op::fingerprint(combine));
    T* data = array.local_view().data();
    const std::size_t span = array.local_view().span();
    this->schedule_->start(data, span, data, span, Direction::backward, combine);
  }

  /// The layout every executed array must have.
  const ArrayLayout& layout() const { return layout_; }
  /// The widths, boundaries and stencil it fills.
  const HaloWidths& halo() const { return halo_; }

 private:
  std::string layout_error(const array_type& array) const {
    if (array.layout() == layout_) return {};
    return "array has layout " + array.layout().describe() + " but the schedule was built for " +
           layout_.describe();
  }

  static std::string boundary_error(const HaloWidths& h) {
    for (size_t d = 0; d < h.modes.size(); ++d)
      if (!is_valid_boundary(h.modes[d]))
        return "boundary of dimension " + std::to_string(d) + " is " +
               std::to_string(static_cast<int>(h.modes[d])) + ", not one of adlib::Boundary's";
    return {};
  }

  static std::string describe(const HaloWidths& h) {
    std::string s = stencil_name(h.stencil);
    for (size_t d = 0; d < h.low.size() && d < h.high.size() && d < h.modes.size(); ++d)
      s += " " + std::to_string(h.low[d]) + "/" + std::to_string(h.high[d]) + ":" +
           boundary_name(h.modes[d]);
    return s;
  }

  ArrayLayout layout_;
  HaloWidths halo_;
};

/// Deduction guides: the element type, rank and memory space come from the
/// array (adlib::WriteHalo halo(u);).
template <class T, int Rank, class MemorySpace>
WriteHalo(const DistArray<T, Rank, MemorySpace>&) -> WriteHalo<T, Rank, MemorySpace>;
/// Deduction guide for the constructor with widths and boundaries.
template <class T, int Rank, class MemorySpace>
WriteHalo(const DistArray<T, Rank, MemorySpace>&, const std::array<Index, Rank>&,
          const std::array<Index, Rank>&, const std::array<Boundary, Rank>&)
    -> WriteHalo<T, Rank, MemorySpace>;
/// Deduction guide for the constructor with widths, boundaries and stencil.
template <class T, int Rank, class MemorySpace>
WriteHalo(const DistArray<T, Rank, MemorySpace>&, const std::array<Index, Rank>&,
          const std::array<Index, Rank>&, const std::array<Boundary, Rank>&, Stencil)
    -> WriteHalo<T, Rank, MemorySpace>;
/// Deduction guide for the whole-halo constructor with a Configuration.
template <class T, int Rank, class MemorySpace>
WriteHalo(const DistArray<T, Rank, MemorySpace>&, const Configuration&)
    -> WriteHalo<T, Rank, MemorySpace>;
/// Deduction guide for the full constructor with a Configuration.
template <class T, int Rank, class MemorySpace>
WriteHalo(const DistArray<T, Rank, MemorySpace>&, const std::array<Index, Rank>&,
          const std::array<Index, Rank>&, const std::array<Boundary, Rank>&, Stencil,
          const Configuration&) -> WriteHalo<T, Rank, MemorySpace>;

/// One-shot halo exchange of every ghost cell, of one array or of several
/// arrays of the same layout (write_halo(u, v, w)).
template <class T, int Rank, class MemorySpace, class... More>
void write_halo(const DistArray<T, Rank, MemorySpace>& array, const More&... more) {
  WriteHalo<T, Rank, MemorySpace> schedule(array);
  schedule.execute(array, more...);
}

}  // namespace adlib
