// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Shift, CShift, EOShift and Skew: move a distributed array along one
/// dimension into another array of the same layout (Adlib's Shift / CShift,
/// Fortran's EOSHIFT / CSHIFT, with Fortran's sign).
///
/// @code
///   adlib::Shift step(b, a, 1, 0, adlib::ShiftMode::keep);  // plan once
///   for (...) step.execute(b, a);          // b[i][j] = a[i + 1][j], many times
///   adlib::cshift(b, a, -3, 1);            // one-shot: b[i][j] = a[i][(j - 3) mod n]
///   adlib::eoshift(b, a, 2, 0, -1.0);      // b[i][j] = a[i + 2][j], or -1 past the end
/// @endcode
///
/// dst[..., i, ...] = src[..., i + amount, ...] along dimension `dim`, as
/// Fortran's CSHIFT / EOSHIFT define it (result(i) = array(i + shift)): a
/// positive amount moves the data towards lower indices.  The destination
/// elements whose i + amount falls outside the extent depend on the mode:
/// @verbatim
///   cyclic   i + amount is taken modulo the extent (CSHIFT);
///   end_off  they are set to the fill value, T{} unless given (EOSHIFT with
///            its BOUNDARY argument); the value is kept in the schedule and
///            written by every execution;
///   keep     they are left unchanged (the caller fills them, e.g. a boundary
///            condition written before or after the shift).
/// @endverbatim
/// Any amount is valid: 0 copies, |amount| >= extent moves nothing in end_off
/// and keep modes and wraps in cyclic mode.
///
/// Skew is a Shift whose amount varies with the positions of the other
/// dimensions (amounts[linear C-order index over those positions]).
///
/// Both arrays must have the same layout (aligned: same group, ranges and
/// section) and be different arrays: messages and local copies run in an order
/// that ignores overlap, so an in-place shift would read elements it already
/// overwrote.  Like Remap, the constructor is collective, plans from range
/// arithmetic only (plan_shift / plan_skew in shift_plan.hpp: a shift is a
/// remap between sections of the one layout), and agrees on errors and
/// arguments (the fill value included) across the ranks, so bad or
/// rank-dependent arguments throw adlib::Error on every rank.  All the
/// sections go into ONE BlockMessSchedule, declared in the same order on
/// every rank, so each peer gets one message per execution whatever the
/// number of sections.
///
/// The template arguments are deduced from the arrays (class template
/// argument deduction): `adlib::CShift s(b, a, 1, 0)` is a CShift<double, 1>
/// for DistArray<double, 1> arrays.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <adlib/collectives/detail/planned_schedule.hpp>
#include <adlib/collectives/runs_schedule.hpp>
#include <adlib/collectives/shift_plan.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/detail/pack.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

namespace detail {

/// A parameter type that takes no part in template argument deduction (C++20's
/// std::type_identity): the fill value converts to T instead of deducing it.
template <class T>
struct type_identity {
  using type = T;
};
template <class T>
using type_identity_t = typename type_identity<T>::type;

/// The bytes by which ranks agree on a fill value: its object representation
/// where that is the value (integers, most structs), the value itself for
/// floating-point types (long double has padding bytes), nothing where
/// padding would make equal values look different.
template <class T>
std::string fill_fingerprint(const T& fill) {
  std::string bytes;
  if constexpr (std::is_floating_point<T>::value) {
    const double high = static_cast<double>(fill);
    const double low = static_cast<double>(fill - static_cast<T>(high));
    bytes.append(reinterpret_cast<const char*>(&high), sizeof high);
    bytes.append(reinterpret_cast<const char*>(&low), sizeof low);
  } else if constexpr (std::has_unique_object_representations<T>::value) {
    bytes.resize(sizeof(T));
    std::memcpy(&bytes[0], &fill, sizeof(T));
  }
  return bytes;
}

/// Sets every element of `blocks` of `data` to `fill`, in ExecutionSpace (a
/// free function: nvcc takes no device lambda in a private member).
template <class ExecutionSpace, class T>
void fill_blocks(T* data, const std::vector<StridedBlock>& blocks, const T& fill) {
  for (const StridedBlock& block : blocks) {
    const T value = fill;
    Kokkos::parallel_for(
        "adlib::shift_vacate", Kokkos::RangePolicy<ExecutionSpace>(0, block.count()),
        KOKKOS_LAMBDA(std::int64_t p) { data[detail::element_offset(block, p)] = value; });
  }
}

/// What Shift and Skew share: the checks, the schedule built from sections of
/// one layout, the filling of vacated elements, and execution.
template <class T, int Rank, class MemorySpace>
class ShiftSchedule : public RunsSchedule<MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "Shift moves elements as bytes");

 public:
  using array_type = DistArray<T, Rank, MemorySpace>;

  /// dst is written (Views are handles, hence const&, as in Kokkos::deep_copy).
  void execute(const array_type& dst, const array_type& src) {
    start(dst, src);
    this->finish();
  }
  /// start() returns once messages are posted and local copies done;
  /// neither array may be touched before finish().
  void start(const array_type& dst, const array_type& src) {
    this->agree_to_execute(array_error(dst, src), 1, operation_);
    this->schedule_->start(dst.local_view().data(), dst.local_view().span(),
                           src.local_view().data(), src.local_view().span());
    // Vacated elements are disjoint from every element a message or a local
    // copy writes, so they can be filled while messages fly; the kernels run
    // on the default instance, which the schedule's finish() fences.
    fill_vacated(dst.local_view().data());
  }

  /// The layout of both arrays.
  const ArrayLayout& layout() const { return layout_; }
  /// The value written into vacated elements in end_off mode.
  const T& fill_value() const { return fill_; }
  /// Blocks of this rank's destination memory set to fill_value() by each
  /// execution (empty unless the mode is end_off).
  const std::vector<StridedBlock>& vacated_blocks() const { return vacated_; }

 protected:
  ShiftSchedule(const ArrayLayout& layout, const char* operation, const T& fill,
                const Configuration& config)
      : RunsSchedule<MemorySpace>(config),
        layout_(layout),
        operation_(operation),
        me_(layout.group().grid().comm().rank()),
        fill_(fill) {}

  /// Empty when dst and src may be shifted into one another, else the reason.
  static std::string pair_error(const array_type& dst, const array_type& src) {
    if (dst.shares_allocation_with(src))
      return "source and destination are the same array (or sections of it); an in-place shift "
             "is not supported, shift into a separate array";
    if (dst.layout() != src.layout())
      return "source and destination must have the same layout (aligned arrays): destination " +
             dst.layout().describe() + ", source " + src.layout().describe();
    return {};
  }

  /// Empty when the planned layout has rank Rank and the layout, dimension
  /// and mode pass check_shift, else the reason (an invalid mode first).
  std::string dimension_error(int dim, ShiftMode mode) const {
    if (is_valid_shift_mode(mode) && layout_.rank() != Rank)
      return "layout of rank " + std::to_string(layout_.rank()) + " for a shift of rank " +
             std::to_string(Rank);
    return check_shift(layout_, dim, mode);
  }

  /// Every argument, for the agreement across ranks: the layouts (the
  /// destination's is the source's unless given), the shift's own
  /// `arguments`, the element type and the configuration.
  std::vector<AgreedArgument> agreed_arguments(const ArrayLayout* dst_layout,
                                               std::vector<AgreedArgument> arguments) const {
    arguments.insert(arguments.begin(),
                     {agreed_layout("destination layout", dst_layout ? *dst_layout : layout_),
                      agreed_layout("source layout", layout_)});
    arguments.push_back(agreed_element_type<T>());
    arguments.push_back(agreed_configuration(this->config_));
    return arguments;
  }
  /// An argument that reads as `text`.
  static AgreedArgument text_argument(const std::string& name, const std::string& text) {
    return {name, fingerprint_of(text), [text] { return text; }};
  }
  /// The fill value (end_off mode) as an argument.
  static AgreedArgument fill_argument(const T& fill) {
    return {"fill", fingerprint_of(detail::fill_fingerprint(fill)), [fill] {
              if constexpr (std::is_arithmetic<T>::value) {
                std::ostringstream text;
                text.precision(17);
                text << +fill;
                return text.str();
              } else {
                return std::string("a value of ") + detail::describe_element<T>();
              }
            }};
  }

  /// Collective: agrees on `error` and the arguments (throws on every rank
  /// if any rank found an error or an argument differs, naming it), then
  /// builds the schedule from the ShiftPlan that `plan(me)` returns (a call
  /// of plan_shift or plan_skew, only made once the arguments are agreed
  /// valid).
  template <class Plan>
  void build(std::string error, const std::vector<AgreedArgument>& arguments, Plan&& plan) {
    const Comm& comm = layout_.group().grid().comm();
    if (!this->config_.error.empty()) error = this->config_.error;
    if (error.empty() && !layout_.plannable_locally())
      error =
          "a shift enumerates other processes' elements, which an unstructured dimension "
          "does not allow (Remap an unstructured array into a block layout first)";
    agree_on_arguments(comm, error, arguments, operation_);
    ShiftPlan planned = plan(me_);
    vacated_ = std::move(planned.vacated);
    this->schedule_ = detail::build_schedule<T, MemorySpace>(comm, planned.exchange, this->config_);
  }

 private:
  std::string array_error(const array_type& dst, const array_type& src) const {
    // Local checks: arrays of another layout on every rank give the same
    // verdict everywhere without communication; on some ranks only, checked
    // mode makes every rank throw.
    if (std::string error = pair_error(dst, src); !error.empty()) return error;
    if (dst.layout() != layout_)
      return "arrays have layout " + dst.layout().describe() + " but the schedule was " +
             "built for " + layout_.describe();
    return {};
  }

  void fill_vacated(T* data) const {
    fill_blocks<typename MemorySpace::execution_space>(data, vacated_, fill_);
  }

  ArrayLayout layout_;
  const char* operation_;
  int me_;
  T fill_;
  std::vector<StridedBlock> vacated_;
};

}  // namespace detail

/// A planned shift by a constant amount along one dimension (see the file
/// overview): construct once (collective), execute many times.
/// Executed with execute(dst, src), or start(dst, src) then finish(); layout(),
/// fill_value() and vacated_blocks() describe the plan (members of the
/// detail::ShiftSchedule base it shares with Skew).
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Shift : public detail::ShiftSchedule<T, Rank, MemorySpace> {
  using Base = detail::ShiftSchedule<T, Rank, MemorySpace>;

 public:
  using typename Base::array_type;

  /// dst[..., i, ...] = src[..., i + amount, ...] along `dim`; `fill` is
  /// written where i + amount leaves the extent in end_off mode.  `config`:
  /// transfer choice, checked mode (see runtime/configuration.hpp); the same
  /// on every rank.
  Shift(const array_type& dst, const array_type& src, Index amount, int dim, ShiftMode mode,
        const T& fill = T{}, const Configuration& config = Configuration::environment())
      : Shift(src.layout(), amount, dim, mode, fill, Base::pair_error(dst, src), &dst.layout(),
              config) {}
  /// One schedule for every pair of arrays of `layout`.
  Shift(const ArrayLayout& layout, Index amount, int dim, ShiftMode mode, const T& fill = T{},
        const Configuration& config = Configuration::environment())
      : Shift(layout, amount, dim, mode, fill, std::string(), nullptr, config) {}

  /// The shift amount (Fortran's sign: positive moves data to lower indices).
  Index amount() const { return amount_; }
  /// The dimension shifted along.
  int dimension() const { return dim_; }
  /// What happens to the elements shifted in from outside the extent.
  ShiftMode mode() const { return mode_; }

 private:
  Shift(const ArrayLayout& layout, Index amount, int dim, ShiftMode mode, const T& fill,
        std::string error, const ArrayLayout* dst_layout, const Configuration& config)
      : Base(layout, "Shift", fill, config), amount_(amount), dim_(dim), mode_(mode) {
    if (error.empty()) error = this->dimension_error(dim, mode);
    std::vector<AgreedArgument> own{Base::text_argument("amount", std::to_string(amount)),
                                    Base::text_argument("dimension", std::to_string(dim)),
                                    Base::text_argument("mode", shift_mode_name(mode))};
    if (mode == ShiftMode::end_off) own.push_back(Base::fill_argument(fill));
    this->build(error, this->agreed_arguments(dst_layout, std::move(own)),
                [&](int me) { return plan_shift(layout, amount, dim, mode, me); });
  }

  Index amount_;
  int dim_;
  ShiftMode mode_;
};

/// The cyclic shift (Fortran's CSHIFT): a Shift with ShiftMode::cyclic,
/// dst[..., i, ...] = src[..., (i + amount) mod n, ...].
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class CShift : public Shift<T, Rank, MemorySpace> {
 public:
  using typename Shift<T, Rank, MemorySpace>::array_type;

  /// Plans dst = src cyclically shifted by `amount` along `dim`.
  CShift(const array_type& dst, const array_type& src, Index amount, int dim,
         const Configuration& config = Configuration::environment())
      : Shift<T, Rank, MemorySpace>(dst, src, amount, dim, ShiftMode::cyclic, T{}, config) {}
  /// One schedule for every pair of arrays of `layout`.
  CShift(const ArrayLayout& layout, Index amount, int dim,
         const Configuration& config = Configuration::environment())
      : Shift<T, Rank, MemorySpace>(layout, amount, dim, ShiftMode::cyclic, T{}, config) {}
};

/// The end-off shift (Fortran's EOSHIFT): a Shift with ShiftMode::end_off,
/// dst[..., i, ...] = src[..., i + amount, ...], or `fill` (EOSHIFT's
/// BOUNDARY, T{} by default) where i + amount leaves the extent.
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class EOShift : public Shift<T, Rank, MemorySpace> {
 public:
  using typename Shift<T, Rank, MemorySpace>::array_type;

  /// Plans dst = src shifted by `amount` along `dim`, `fill` shifted in.
  EOShift(const array_type& dst, const array_type& src, Index amount, int dim, const T& fill = T{},
          const Configuration& config = Configuration::environment())
      : Shift<T, Rank, MemorySpace>(dst, src, amount, dim, ShiftMode::end_off, fill, config) {}
  /// One schedule for every pair of arrays of `layout`.
  EOShift(const ArrayLayout& layout, Index amount, int dim, const T& fill = T{},
          const Configuration& config = Configuration::environment())
      : Shift<T, Rank, MemorySpace>(layout, amount, dim, ShiftMode::end_off, fill, config) {}
};

/// A shift along `dim` by an amount that depends on the other dimensions:
/// dst[..., i, ...] = src[..., i + amounts[k], ...] where the positions of the
/// other dimensions (in order, `dim` left out) have linear C-order index k;
/// amounts.size() must be the product of the other extents (1 for a 1-D
/// array), the same on every rank.
///
/// Planning groups the positions of the innermost other dimension into runs of
/// equal consecutive amounts (one run when the whole table is constant) and
/// plans one Shift-like remap per run, so it costs O(product of the other
/// extents) in the worst case (every amount different from its neighbour).
/// Executed like Shift: execute(dst, src), or start(dst, src) then finish().
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Skew : public detail::ShiftSchedule<T, Rank, MemorySpace> {
  using Base = detail::ShiftSchedule<T, Rank, MemorySpace>;

 public:
  using typename Base::array_type;

  /// Plans the skew of `src` into `dst` (see the class); `fill` is used in
  /// end_off mode.
  Skew(const array_type& dst, const array_type& src, const std::vector<Index>& amounts, int dim,
       ShiftMode mode, const T& fill = T{},
       const Configuration& config = Configuration::environment())
      : Skew(src.layout(), amounts, dim, mode, fill, Base::pair_error(dst, src), &dst.layout(),
             config) {}
  /// One schedule for every pair of arrays of `layout`.
  Skew(const ArrayLayout& layout, const std::vector<Index>& amounts, int dim, ShiftMode mode,
       const T& fill = T{}, const Configuration& config = Configuration::environment())
      : Skew(layout, amounts, dim, mode, fill, std::string(), nullptr, config) {}

 private:
  Skew(const ArrayLayout& layout, const std::vector<Index>& amounts, int dim, ShiftMode mode,
       const T& fill, std::string error, const ArrayLayout* dst_layout, const Configuration& config)
      : Base(layout, "Skew", fill, config) {
    if (error.empty()) error = this->dimension_error(dim, mode);
    if (error.empty()) error = check_skew(layout, amounts.size(), dim, mode);
    std::string listed;
    for (Index amount : amounts) listed += (listed.empty() ? "" : ", ") + std::to_string(amount);
    std::vector<AgreedArgument> own{Base::text_argument("amounts", "[" + listed + "]"),
                                    Base::text_argument("dimension", std::to_string(dim)),
                                    Base::text_argument("mode", shift_mode_name(mode))};
    if (mode == ShiftMode::end_off) own.push_back(Base::fill_argument(fill));
    this->build(error, this->agreed_arguments(dst_layout, std::move(own)),
                [&](int me) { return plan_skew(layout, amounts, dim, mode, me); });
  }
};

// Deduction guides: T, Rank and MemorySpace come from the arrays
// (adlib::CShift s(b, a, 1, 0);); a fill value converts to T.
/// Deduction guide for Shift from two arrays.
template <class T, int Rank, class MemorySpace>
Shift(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&, Index, int,
      ShiftMode) -> Shift<T, Rank, MemorySpace>;
/// Deduction guide for Shift from two arrays and a fill value.
template <class T, int Rank, class MemorySpace>
Shift(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&, Index, int,
      ShiftMode, const detail::type_identity_t<T>&) -> Shift<T, Rank, MemorySpace>;
/// Deduction guide for CShift from two arrays.
template <class T, int Rank, class MemorySpace>
CShift(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&, Index, int)
    -> CShift<T, Rank, MemorySpace>;
/// Deduction guide for EOShift from two arrays.
template <class T, int Rank, class MemorySpace>
EOShift(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&, Index, int)
    -> EOShift<T, Rank, MemorySpace>;
/// Deduction guide for EOShift from two arrays and a fill value.
template <class T, int Rank, class MemorySpace>
EOShift(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&, Index, int,
        const detail::type_identity_t<T>&) -> EOShift<T, Rank, MemorySpace>;
/// Deduction guide for Skew from two arrays.
template <class T, int Rank, class MemorySpace>
Skew(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&,
     const std::vector<Index>&, int, ShiftMode) -> Skew<T, Rank, MemorySpace>;
/// Deduction guide for Skew from two arrays and a fill value.
template <class T, int Rank, class MemorySpace>
Skew(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&,
     const std::vector<Index>&, int, ShiftMode, const detail::type_identity_t<T>&)
    -> Skew<T, Rank, MemorySpace>;

/// Deduction guide for Shift from two arrays, a fill value and a Configuration.
template <class T, int Rank, class MemorySpace>
Shift(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&, Index, int,
      ShiftMode, const detail::type_identity_t<T>&, const Configuration&)
    -> Shift<T, Rank, MemorySpace>;
/// Deduction guide for CShift from two arrays and a Configuration.
template <class T, int Rank, class MemorySpace>
CShift(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&, Index, int,
       const Configuration&) -> CShift<T, Rank, MemorySpace>;
/// Deduction guide for EOShift from two arrays, a fill value and a Configuration.
template <class T, int Rank, class MemorySpace>
EOShift(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&, Index, int,
        const detail::type_identity_t<T>&, const Configuration&) -> EOShift<T, Rank, MemorySpace>;
/// Deduction guide for Skew from two arrays, a fill value and a Configuration.
template <class T, int Rank, class MemorySpace>
Skew(const DistArray<T, Rank, MemorySpace>&, const DistArray<T, Rank, MemorySpace>&,
     const std::vector<Index>&, int, ShiftMode, const detail::type_identity_t<T>&,
     const Configuration&) -> Skew<T, Rank, MemorySpace>;

/// One-shot shifts: plan, execute once, drop the schedule.
template <class T, int Rank, class MemorySpace>
void shift(const DistArray<T, Rank, MemorySpace>& dst, const DistArray<T, Rank, MemorySpace>& src,
           Index amount, int dim, ShiftMode mode, const detail::type_identity_t<T>& fill = T{}) {
  Shift<T, Rank, MemorySpace> schedule(dst, src, amount, dim, mode, fill);
  schedule.execute(dst, src);
}

/// One-shot CShift: plan, execute once, drop the schedule.
template <class T, int Rank, class MemorySpace>
void cshift(const DistArray<T, Rank, MemorySpace>& dst, const DistArray<T, Rank, MemorySpace>& src,
            Index amount, int dim) {
  shift(dst, src, amount, dim, ShiftMode::cyclic);
}

/// One-shot EOShift: plan, execute once, drop the schedule.
template <class T, int Rank, class MemorySpace>
void eoshift(const DistArray<T, Rank, MemorySpace>& dst, const DistArray<T, Rank, MemorySpace>& src,
             Index amount, int dim, const detail::type_identity_t<T>& fill = T{}) {
  shift(dst, src, amount, dim, ShiftMode::end_off, fill);
}

/// One-shot Skew: plan, execute once, drop the schedule.
template <class T, int Rank, class MemorySpace>
void skew(const DistArray<T, Rank, MemorySpace>& dst, const DistArray<T, Rank, MemorySpace>& src,
          const std::vector<Index>& amounts, int dim, ShiftMode mode,
          const detail::type_identity_t<T>& fill = T{}) {
  Skew<T, Rank, MemorySpace> schedule(dst, src, amounts, dim, mode, fill);
  schedule.execute(dst, src);
}

}  // namespace adlib
