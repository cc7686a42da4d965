// SPDX-License-Identifier: BSD-3-Clause
// WriteHalo: fill the ghost cells of a ghost-extended array from the
// processes that own those elements (Adlib's writeHalo).
//
//   adlib::DistArray<double, 2> u(grid, {adlib::block(n).ghosts(1),
//                                        adlib::block(n).ghosts(1).periodic()});
//   adlib::WriteHalo<double, 2> halo(u);          // every ghost cell, corners included
//   for (int step = 0; step < steps; ++step) {
//     halo.start(u);                              // messages posted, local copies done
//     ...                                         // update the interior far from the ghosts
//     halo.finish();                              // ghosts filled
//     ...                                         // update the cells next to the ghosts
//   }
//
// Per dimension: low and high widths up to the range's ghost extension (a
// width wider than a neighbour's block takes data from next-nearest
// processes), and a Boundary: edge (ghosts outside the domain are left
// alone), cyclic (periodic; the range must be periodic), mirror (-k copies
// k, n-1+k copies n-1-k) or none (this dimension's ghosts are not filled).
// Ghost widths may exceed the extent.  `corners` chooses the box stencil
// (true) or faces only (false).  Planned from the layout alone
// (plan_write_halo); the constructor's only communication is the agreement
// on its arguments.  Execution checks that the array has the planned layout,
// so one schedule serves every array of that layout.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include <adlib/collectives/halo_plan.hpp>
#include <adlib/collectives/planned_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class WriteHalo : public RunsSchedule<MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "WriteHalo moves elements as bytes");

 public:
  using array_type = DistArray<T, Rank, MemorySpace>;
  using Widths = std::array<Index, Rank>;
  using Boundaries = std::array<Boundary, Rank>;

  // Every ghost cell of the ranges, cyclic where they are periodic, corners.
  explicit WriteHalo(const array_type& array)
      : WriteHalo(array.layout(), full_halo(array.layout())) {}

  WriteHalo(const array_type& array, const Widths& low, const Widths& high,
            const Boundaries& boundaries, bool corners = true)
      : WriteHalo(
            array.layout(),
            HaloWidths{std::vector<Index>(low.begin(), low.end()),
                       std::vector<Index>(high.begin(), high.end()),
                       std::vector<Boundary>(boundaries.begin(), boundaries.end()), corners}) {}

  WriteHalo(const ArrayLayout& layout, const HaloWidths& halo) : layout_(layout), halo_(halo) {
    const Comm& comm = layout.group().grid().comm();
    std::string error = layout.rank() == Rank
                            ? check_halo(layout, halo)
                            : "layout of rank " + std::to_string(layout.rank()) +
                                  " for a WriteHalo of rank " + std::to_string(Rank);
    agree_on_errors(comm, error, layout.fingerprint() * 31 + fingerprint_of(describe(halo)),
                    "WriteHalo");
    this->schedule_ =
        build_schedule<T, MemorySpace>(comm, plan_write_halo(layout, halo, comm.rank()));
  }

  void execute(const array_type& array) {
    start(array);
    this->finish();
  }
  // Returns once messages are posted and local (periodic) copies are done.
  // Until finish(), the ghost cells must not be read or written, and the
  // owned cells within the halo widths of a process boundary (they are being
  // sent) must not be written; everything else may be read and written.
  void start(const array_type& array) {
    check_layout(array);
    const auto& v = array.local_view();
    this->schedule_->start(v.data(), v.span(), v.data(), v.span());
  }

  // Several arrays of this layout in one exchange (the fields of one
  // solver): one message per peer carries all of them, so K fields cost the
  // latency of one.  halo.execute({&u, &v, &w});
  void execute(const std::vector<const array_type*>& arrays) {
    start(arrays);
    this->finish();
  }
  void start(const std::vector<const array_type*>& arrays) {
    std::vector<T*> data;
    std::vector<const T*> read;
    for (const array_type* a : arrays) {
      if (!a) throw Error("null array", -1, "WriteHalo::execute");
      check_layout(*a);
      data.push_back(a->local_view().data());
      read.push_back(a->local_view().data());
    }
    if (data.empty()) throw Error("no array to exchange", -1, "WriteHalo::execute");
    const std::size_t span = arrays.front()->local_view().span();
    this->schedule_->start_many(data, span, read, span);
  }

  const ArrayLayout& layout() const { return layout_; }
  const HaloWidths& halo() const { return halo_; }

 private:
  void check_layout(const array_type& array) const {
    if (array.layout() != layout_)
      throw Error("array has layout " + array.layout().describe() +
                      " but the schedule was built for " + layout_.describe(),
                  array.process_rank(), "WriteHalo::execute");
  }

  static std::string describe(const HaloWidths& h) {
    std::string s = h.corners ? "box" : "faces";
    for (size_t d = 0; d < h.low.size() && d < h.high.size() && d < h.modes.size(); ++d)
      s += " " + std::to_string(h.low[d]) + "/" + std::to_string(h.high[d]) + ":" +
           boundary_name(h.modes[d]);
    return s;
  }

  ArrayLayout layout_;
  HaloWidths halo_;
};

// One-shot halo exchange of every ghost cell.
template <class T, int Rank, class MemorySpace>
void write_halo(const DistArray<T, Rank, MemorySpace>& array) {
  WriteHalo<T, Rank, MemorySpace> schedule(array);
  schedule.execute(array);
}

}  // namespace adlib
