// SPDX-License-Identifier: BSD-3-Clause
// Shift, CShift and Skew: move a distributed array along one dimension into
// another array of the same layout (Adlib's Shift / CShift, Fortran's EOSHIFT
// / CSHIFT).
//
//   adlib::Shift<double, 2> step(b, a, 1, 0, adlib::ShiftMode::edge);  // plan once
//   for (...) step.execute(b, a);          // b[i][j] = a[i - 1][j], many times
//   adlib::cshift(b, a, -3, 1);            // one-shot: b[i][j] = a[i][(j + 3) mod n]
//
// dst[..., i, ...] = src[..., i - amount, ...] along dimension `dim`.  The
// destination elements that nothing shifts into depend on the mode:
//   cyclic  i - amount is taken modulo the extent (CSHIFT);
//   edge    they are left unchanged (the caller fills them, e.g. a boundary
//           condition written before or after the shift);
//   none    they are set to T{}, i.e. zero.  Adlib names this mode without
//           defining it; T{} is the default boundary of Fortran's EOSHIFT.
// Any amount is valid: 0 copies, |amount| >= extent moves nothing in edge and
// none modes and wraps in cyclic mode.
//
// Skew is a Shift whose amount varies with the positions of the other
// dimensions (amounts[linear C-order index over those positions]).
//
// Both arrays must have the same layout (aligned: same group, ranges and
// section) and be different arrays: messages and local copies run in an order
// that ignores overlap, so an in-place shift would read elements it already
// overwrote.  Like Remap, the constructor is collective, plans from range
// arithmetic only (a shift is a remap between sections of the one layout),
// and agrees on errors with one MPI_Allreduce, so bad or rank-dependent
// arguments throw adlib::Error on every rank.  All the sections go into ONE
// BlockMessSchedule, declared in the same order on every rank, so each peer
// gets one message per execution whatever the number of sections.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <adlib/collectives/boundary.hpp>
#include <adlib/collectives/planned_schedule.hpp>
#include <adlib/collectives/remap_plan.hpp>
#include <adlib/ranges/detail/index_math.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/pack.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

// The shift modes are the boundaries of collectives/boundary.hpp.
using ShiftMode = Boundary;

namespace detail {

// Along the shifted dimension, a shift is one or two copies between intervals
// of positions (cyclic: the part that stays in range and the part that wraps)
// and, in edge and none modes, the interval that nothing shifts into.
struct ShiftMove {
  Triplet dst, src;
};
struct ShiftAlongDimension {
  std::vector<ShiftMove> moves;
  Triplet vacated = Triplet::empty();
};

inline ShiftAlongDimension shift_along_dimension(Index extent, Index amount, ShiftMode mode) {
  ShiftAlongDimension out;
  if (extent == 0) return out;
  const Index last = extent - 1;
  if (mode == ShiftMode::cyclic) {
    const Index s = detail::index_math::floor_mod(amount, extent);
    out.moves.push_back({Triplet{s, last, 1}, Triplet{0, last - s, 1}});
    if (s > 0) out.moves.push_back({Triplet{0, s - 1, 1}, Triplet{extent - s, last, 1}});
  } else if (amount >= extent || amount <= -extent) {
    out.vacated = Triplet::all(extent);
  } else if (amount >= 0) {
    out.moves.push_back({Triplet{amount, last, 1}, Triplet{0, last - amount, 1}});
    out.vacated = Triplet{0, amount - 1, 1};
  } else {
    out.moves.push_back({Triplet{0, last + amount, 1}, Triplet{-amount, last, 1}});
    out.vacated = Triplet{extent + amount, last, 1};
  }
  return out;
}

inline const char* mode_name(ShiftMode mode) {
  return boundary_name(mode);
}

// What Shift and Skew share: the checks, the schedule built from sections of
// one layout, the zeroing of vacated elements, and execution.
template <class T, int Rank, class MemorySpace>
class ShiftSchedule : public RunsSchedule<MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "Shift moves elements as bytes");

 public:
  using array_type = DistArray<T, Rank, MemorySpace>;

  // dst is written (Views are handles, hence const&, as in Kokkos::deep_copy).
  void execute(const array_type& dst, const array_type& src) {
    start(dst, src);
    this->finish();
  }
  // start() returns once messages are posted and local copies done;
  // neither array may be touched before finish().
  void start(const array_type& dst, const array_type& src) {
    check_arrays(dst, src);
    this->schedule_->start(dst.local_view().data(), dst.local_view().span(),
                           src.local_view().data(), src.local_view().span());
    // Vacated elements are disjoint from every element a message or a local
    // copy writes, so they can be zeroed while messages fly; the kernels run
    // on the default instance, which the schedule's finish() fences.
    zero_vacated(dst.local_view().data());
  }

  // The layout of both arrays.
  const ArrayLayout& layout() const { return layout_; }
  // Blocks of this rank's destination memory set to T{} by each execution
  // (empty unless the mode is none).
  const std::vector<StridedBlock>& vacated_blocks() const { return vacated_; }

 protected:
  ShiftSchedule(const ArrayLayout& layout, const char* operation)
      : layout_(layout), operation_(operation), me_(layout.group().grid().comm().rank()) {}

  // Empty when dst and src may be shifted into one another, else the reason.
  static std::string pair_error(const array_type& dst, const array_type& src) {
    if (dst.shares_allocation_with(src))
      return "source and destination are the same array (or sections of it); an in-place shift "
             "is not supported, shift into a separate array";
    if (dst.layout() != src.layout())
      return "source and destination must have the same layout (aligned arrays): destination " +
             dst.layout().describe() + ", source " + src.layout().describe();
    return {};
  }

  // Empty when the planned layout and dimension are valid, else the reason.
  std::string dimension_error(int dim) const {
    if (layout_.rank() != Rank)
      return "layout of rank " + std::to_string(layout_.rank()) + " for a shift of rank " +
             std::to_string(Rank);
    if (dim < 0 || dim >= Rank)
      return "dimension " + std::to_string(dim) + " out of range for an array of rank " +
             std::to_string(Rank);
    return {};
  }

  // The fingerprint of every argument, for the agreement across ranks.
  std::uint64_t fingerprint(std::uint64_t dst_layout, const std::string& arguments) const {
    return (dst_layout * 31 + layout_.fingerprint()) * 31 + fingerprint_of(arguments);
  }

  // Collective: agrees on `error` and the arguments' fingerprint (throws on
  // every rank if any rank found an error or the arguments differ), then
  // builds the schedule from the sections `declare()` passes to move() and
  // vacate().  declare() must make the same calls on every rank: that order
  // is the element order of each message.
  template <class Declare>
  void build(std::string error, std::uint64_t arguments_fingerprint, Declare&& declare) {
    const Comm& comm = layout_.group().grid().comm();
    agree_on_errors(comm, error, arguments_fingerprint, operation_);
    this->schedule_ = std::make_unique<BlockMessSchedule<MemorySpace>>(comm);
    declare();
    this->schedule_->build();
    this->schedule_->template prepare<T>();
  }

  // dst's section `to` receives src's section `from` (positions of the
  // layout, equal shapes).
  void move(const std::vector<Triplet>& to, const std::vector<Triplet>& from) {
    if (is_empty(to)) return;
    declare(*this->schedule_, plan_remap(layout_.section(to), layout_.section(from), me_));
  }

  // dst's section `positions` is set to T{} by every execution: the owned
  // elements only (through the ranges' owned blocks), never ghost cells.
  void vacate(const std::vector<Triplet>& positions) {
    if (is_empty(positions) || !layout_.holds_data(me_)) return;
    const ArrayLayout part = layout_.section(positions);
    const std::vector<Index> strides = layout_.local_strides(me_);
    std::vector<std::vector<Block>> per_dim(Rank);
    for (int d = 0; d < Rank; ++d) {
      part.range(d).owned_blocks(part.coordinate(me_, d), part.section_triplet(d), per_dim[d]);
      if (per_dim[d].empty()) return;
    }
    std::vector<size_t> at(Rank, 0);
    while (true) {
      StridedBlock block;
      block.rank = Rank;
      for (int d = 0; d < Rank; ++d) {
        const Block& b = per_dim[d][at[d]];
        block.offset += b.local_base * strides[d];
        block.extents[d] = b.count;
        block.strides[d] = b.local_step * strides[d];
      }
      vacated_.push_back(block.normalized());
      int d = Rank - 1;
      for (; d >= 0; --d) {
        if (++at[d] < per_dim[d].size()) break;
        at[d] = 0;
      }
      if (d < 0) return;
    }
  }

  // Declares a shift by `amount` along `dim` of the elements whose other
  // dimensions lie in `others` (whose entry `dim` is ignored).
  void declare_shift(std::vector<Triplet> others, int dim, Index amount, ShiftMode mode) {
    const ShiftAlongDimension along = shift_along_dimension(layout_.extent(dim), amount, mode);
    std::vector<Triplet> from = others;
    for (const ShiftMove& m : along.moves) {
      others[dim] = m.dst;
      from[dim] = m.src;
      move(others, from);
    }
    if (mode == ShiftMode::none) {
      others[dim] = along.vacated;
      vacate(others);
    }
  }

 private:
  static bool is_empty(const std::vector<Triplet>& section) {
    for (const Triplet& t : section)
      if (t.count() == 0) return true;
    return false;
  }

  void check_arrays(const array_type& dst, const array_type& src) const {
    // Local checks: arrays of another layout on every rank give the same
    // verdict everywhere without communication.
    if (const std::string error = pair_error(dst, src); !error.empty())
      throw Error(error, dst.process_rank(), operation_);
    if (dst.layout() != layout_)
      throw Error("arrays have layout " + dst.layout().describe() + " but the schedule was " +
                      "built for " + layout_.describe(),
                  dst.process_rank(), operation_);
  }

  void zero_vacated(T* data) const {
    using execution_space = typename MemorySpace::execution_space;
    for (const StridedBlock& block : vacated_)
      Kokkos::parallel_for(
          "adlib::shift_vacate", Kokkos::RangePolicy<execution_space>(0, block.count()),
          KOKKOS_LAMBDA(std::int64_t p) { data[detail::element_offset(block, p)] = T{}; });
  }

  ArrayLayout layout_;
  const char* operation_;
  int me_;
  std::vector<StridedBlock> vacated_;
};

}  // namespace detail

template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Shift : public detail::ShiftSchedule<T, Rank, MemorySpace> {
  using Base = detail::ShiftSchedule<T, Rank, MemorySpace>;

 public:
  using typename Base::array_type;

  Shift(const array_type& dst, const array_type& src, Index amount, int dim, ShiftMode mode)
      : Shift(src.layout(), amount, dim, mode, Base::pair_error(dst, src),
              dst.layout().fingerprint()) {}
  // One schedule for every pair of arrays of `layout`.
  Shift(const ArrayLayout& layout, Index amount, int dim, ShiftMode mode)
      : Shift(layout, amount, dim, mode, std::string(), layout.fingerprint()) {}

  Index amount() const { return amount_; }
  int dimension() const { return dim_; }
  ShiftMode mode() const { return mode_; }

 private:
  Shift(const ArrayLayout& layout, Index amount, int dim, ShiftMode mode, std::string error,
        std::uint64_t dst_layout)
      : Base(layout, "Shift"), amount_(amount), dim_(dim), mode_(mode) {
    if (error.empty()) error = this->dimension_error(dim);
    if (error.empty() && mode == ShiftMode::mirror)
      error = "Boundary::mirror is a halo boundary; a shift takes edge, cyclic or none";
    const std::string arguments = "amount " + std::to_string(amount) + " dim " +
                                  std::to_string(dim) + " mode " + detail::mode_name(mode);
    this->build(error, this->fingerprint(dst_layout, arguments), [&] {
      std::vector<Triplet> everything;
      for (int d = 0; d < Rank; ++d) everything.push_back(Triplet::all(layout.extent(d)));
      this->declare_shift(everything, dim, amount, mode);
    });
  }

  Index amount_;
  int dim_;
  ShiftMode mode_;
};

// The cyclic shift (Fortran's CSHIFT): a Shift with ShiftMode::cyclic.
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class CShift : public Shift<T, Rank, MemorySpace> {
 public:
  using typename Shift<T, Rank, MemorySpace>::array_type;

  CShift(const array_type& dst, const array_type& src, Index amount, int dim)
      : Shift<T, Rank, MemorySpace>(dst, src, amount, dim, ShiftMode::cyclic) {}
  CShift(const ArrayLayout& layout, Index amount, int dim)
      : Shift<T, Rank, MemorySpace>(layout, amount, dim, ShiftMode::cyclic) {}
};

// A shift along `dim` by an amount that depends on the other dimensions:
// amounts[k] applies where the positions of the other dimensions (in order,
// `dim` left out) have linear C-order index k; amounts.size() must be the
// product of the other extents (1 for a 1-D array), the same on every rank.
//
// Planning groups the positions of the innermost other dimension into runs of
// equal consecutive amounts (one run when the whole table is constant) and
// plans one Shift-like remap per run, so it costs O(product of the other
// extents) in the worst case (every amount different from its neighbour).
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Skew : public detail::ShiftSchedule<T, Rank, MemorySpace> {
  using Base = detail::ShiftSchedule<T, Rank, MemorySpace>;

 public:
  using typename Base::array_type;

  Skew(const array_type& dst, const array_type& src, const std::vector<Index>& amounts, int dim,
       ShiftMode mode)
      : Skew(src.layout(), amounts, dim, mode, Base::pair_error(dst, src),
             dst.layout().fingerprint()) {}
  Skew(const ArrayLayout& layout, const std::vector<Index>& amounts, int dim, ShiftMode mode)
      : Skew(layout, amounts, dim, mode, std::string(), layout.fingerprint()) {}

 private:
  Skew(const ArrayLayout& layout, const std::vector<Index>& amounts, int dim, ShiftMode mode,
       std::string error, std::uint64_t dst_layout)
      : Base(layout, "Skew") {
    if (error.empty()) error = this->dimension_error(dim);
    if (error.empty() && mode == ShiftMode::mirror)
      error = "Boundary::mirror is a halo boundary; a shift takes edge, cyclic or none";
    std::vector<int> others;  // the dimensions other than dim, in order
    Index positions = 1;
    if (error.empty()) {
      for (int d = 0; d < Rank; ++d)
        if (d != dim) {
          others.push_back(d);
          positions *= layout.extent(d);
        }
      if (static_cast<Index>(amounts.size()) != positions)
        error = "amounts table has " + std::to_string(amounts.size()) + " entries, expected " +
                std::to_string(positions) + " (the product of the extents of the dimensions " +
                "other than " + std::to_string(dim) + ")";
    }
    std::string arguments = "dim " + std::to_string(dim) + " mode " + detail::mode_name(mode);
    for (Index amount : amounts)
      arguments.append(reinterpret_cast<const char*>(&amount), sizeof amount);
    this->build(error, this->fingerprint(dst_layout, arguments),
                [&] { declare_runs(layout, amounts, others, positions, dim, mode); });
  }

  // One declare_shift per run of equal amounts along the innermost other
  // dimension (or one for the whole array when every amount is equal), in
  // C order of the other positions: the same on every rank.
  void declare_runs(const ArrayLayout& layout, const std::vector<Index>& amounts,
                    const std::vector<int>& others, Index positions, int dim, ShiftMode mode) {
    std::vector<Triplet> section;
    for (int d = 0; d < Rank; ++d) section.push_back(Triplet::all(layout.extent(d)));
    if (positions == 0) return;
    bool constant = true;
    for (Index amount : amounts) constant = constant && amount == amounts.front();
    if (constant || others.empty()) {
      this->declare_shift(section, dim, amounts.front(), mode);
      return;
    }
    const int inner = others.back();
    const Index run_extent = layout.extent(inner);
    for (Index k = 0; k < positions; k += run_extent) {
      // The outer other dimensions' positions of entry k, fixed for this row.
      Index rest = k / run_extent;
      for (size_t o = others.size() - 1; o-- > 0;) {
        const Index p = rest % layout.extent(others[o]);
        rest /= layout.extent(others[o]);
        section[others[o]] = Triplet{p, p, 1};
      }
      for (Index first = 0; first < run_extent;) {
        Index last = first;
        while (last + 1 < run_extent && amounts[k + last + 1] == amounts[k + first]) ++last;
        section[inner] = Triplet{first, last, 1};
        this->declare_shift(section, dim, amounts[k + first], mode);
        first = last + 1;
      }
    }
  }
};

// One-shot shifts: plan, execute once, drop the schedule.
template <class T, int Rank, class MemorySpace>
void shift(const DistArray<T, Rank, MemorySpace>& dst, const DistArray<T, Rank, MemorySpace>& src,
           Index amount, int dim, ShiftMode mode) {
  Shift<T, Rank, MemorySpace> schedule(dst, src, amount, dim, mode);
  schedule.execute(dst, src);
}

template <class T, int Rank, class MemorySpace>
void cshift(const DistArray<T, Rank, MemorySpace>& dst, const DistArray<T, Rank, MemorySpace>& src,
            Index amount, int dim) {
  shift(dst, src, amount, dim, ShiftMode::cyclic);
}

template <class T, int Rank, class MemorySpace>
void skew(const DistArray<T, Rank, MemorySpace>& dst, const DistArray<T, Rank, MemorySpace>& src,
          const std::vector<Index>& amounts, int dim, ShiftMode mode) {
  Skew<T, Rank, MemorySpace> schedule(dst, src, amounts, dim, mode);
  schedule.execute(dst, src);
}

}  // namespace adlib
