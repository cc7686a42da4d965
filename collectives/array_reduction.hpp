// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// ArrayReduction: whole-array reductions of DistArrays (Fortran's SUM,
/// PRODUCT, MAXVAL, MINVAL, MAXLOC, MINLOC, ANY, ALL, COUNT, DOT_PRODUCT,
/// Adlib's sum / maxval / ...), built once for a layout and executed for
/// every array of it; plus one-shot functions (adlib::sum(a), ...).
///
/// @code
///   adlib::DistArray<double, 2> u(grid, {adlib::block(n), adlib::block(m)});
///   adlib::ArrayReduction reduce(u);           // plan once (for u's layout)
///   double total = reduce.sum(u);              // the same bits on every rank
///   double peak = reduce.maxval(u);
///   adlib::Located<double, 2> where = reduce.maxloc(u);  // value and {i, j}
///   double dot = reduce.dot(u, v);             // v: same layout
///   double wet = reduce.sum(u, mask);          // mask: DistArray<bool, 2>, same layout
///   adlib::Index n_wet = reduce.count(mask);
///   double again = adlib::sum(u);              // one-shot: plan, reduce, drop
/// @endcode
///
/// Every element of the array (or section) counts once: ghost cells never,
/// and of a replicated array (a group axis no range uses) only replica 0's
/// copy; processes and replicas holding nothing contribute the identity.
/// Each process folds its elements in its memory space (see
/// detail/array_fold.hpp: several independent accumulators per chunk), then
/// a one-element RedxSchedule over the array's group (group_comm) combines
/// the processes' values.  Results are the same bits on every process and in
/// every run for a fixed process count, floating-point sums included.
///
/// Calls are collective over the communicator of the layout's grid: every
/// process of it calls, in the same order; processes outside the array's
/// group take no part in the reduction and get the identity (0 for a sum,
/// false for any(), ...).  Execution checks that the arrays (and mask) have
/// the reduction's layout: unchecked, a mismatch is an adlib::Error on the
/// processes that see it; in checked mode (Configuration::checked) every
/// process agrees first (one MPI_Allreduce over the grid's communicator), so
/// all of them throw.
///
/// Identities (the result over no element): sum 0, product 1, maxval -inf
/// (lowest() for types without infinity; Fortran gives -HUGE), minval +inf
/// (max()), any false, all true, count 0, dot 0; maxloc / minloc the
/// identity with every index -1.  Ties of maxloc / minloc give the smallest
/// index tuple (lexicographically).  Locations are positions in the array's
/// own index space (0 .. extent(d)-1 of a section, as Fortran's MAXLOC of a
/// section).  dot(a, b) is Fortran's DOT_PRODUCT: sum of conj(a) * b for
/// complex elements.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <typeindex>
#include <vector>

#include <adlib/collectives/detail/array_fold.hpp>
#include <adlib/collectives/group_comm.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/located.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace adlib {

namespace detail {

/// Does T have an order (maxval, minval, maxloc, minloc)?
template <class T>
constexpr bool ordered() {
  return std::is_arithmetic<T>::value;
}
}  // namespace detail

/// Whole-array reductions of DistArrays of one layout (see the file
/// overview): construct once, reduce any array of the layout many times.
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class ArrayReduction {
  static_assert(std::is_trivially_copyable<T>::value, "reduced elements travel as bytes");

 public:
  /// The arrays it reduces.
  using array_type = DistArray<T, Rank, MemorySpace>;
  /// Masks and logical arrays of the same layout.
  using mask_type = DistArray<bool, Rank, MemorySpace>;
  /// What maxloc() and minloc() return: the value and its index tuple.
  using location_type = Located<T, Rank>;

  /// Plans reductions of arrays of `layout` (a whole array or a section).
  /// Collective over the grid's communicator: the members of the layout's
  /// group make its communicator (group_comm) if it does not exist yet; no
  /// other communication.  Each operation's RedxSchedule is made
  /// (collectively, over the group) the first time it is used.
  explicit ArrayReduction(const ArrayLayout& layout,
                          const Configuration& config = Configuration::environment())
      : layout_(layout), config_(config) {
    if (layout.rank() != Rank)
      throw Error("layout of rank " + std::to_string(layout.rank()) +
                      " for an ArrayReduction of rank " + std::to_string(Rank),
                  -1, "ArrayReduction");
    // The layout is agreed here, once, so that execution needs only the
    // local check that an array has it: an array whose extent or
    // distribution differs on one rank is an error on every rank, not a
    // silently wrong result.
    agree_on_arguments(
        layout.group().grid().comm(), "",
        {agreed_layout("layout", layout), agreed_element_type<T>(), agreed_configuration(config)},
        "ArrayReduction");
    const int me = layout.group().grid().comm().rank();
    member_ = layout.holds_data(me);
    if (!member_) return;
    members_ = group_comm(layout.group());
    // Replica 0 of this process's elements contributes, the others count
    // for nothing.
    std::vector<int> coords(Rank);
    for (int d = 0; d < Rank; ++d) coords[d] = layout.coordinate(me, d);
    contributes_ = layout.replica(coords, 0) == me;
    if (!contributes_) return;
    walk_ = detail::make_walk<Rank>(layout, me, tables_);
    const std::size_t largest = std::max({sizeof(T), sizeof(location_type), sizeof(std::int64_t)});
    const std::size_t bytes = detail::scratch_bytes<MemorySpace>(walk_.total, largest);
    if (bytes > 0)
      scratch_ = Kokkos::View<std::uint64_t*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::ArrayReduction::scratch"),
          (bytes + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t) +
              (alignof(location_type) > 8 ? alignof(location_type) : 0));
  }
  /// The same for `like`'s layout.
  explicit ArrayReduction(const array_type& like,
                          const Configuration& config = Configuration::environment())
      : ArrayReduction(like.layout(), config) {}

  /// The sum of the elements of `a`.
  T sum(const array_type& a) const { return sum_of(a, nullptr, "ArrayReduction::sum"); }
  /// The sum of the elements of `a` where `mask` is true.
  T sum(const array_type& a, const mask_type& mask) const {
    return sum_of(a, &mask, "ArrayReduction::sum");
  }
  /// The product of the elements of `a`.
  T product(const array_type& a) const { return product_of(a, nullptr); }
  /// The product of the elements of `a` where `mask` is true.
  T product(const array_type& a, const mask_type& mask) const { return product_of(a, &mask); }
  /// The largest element of `a` (the identity, -inf, when it has none).
  T maxval(const array_type& a) const { return extremum<op::Max>(a, nullptr, "maxval"); }
  /// The largest element of `a` where `mask` is true.
  T maxval(const array_type& a, const mask_type& mask) const {
    return extremum<op::Max>(a, &mask, "maxval");
  }
  /// The smallest element of `a` (the identity, +inf, when it has none).
  T minval(const array_type& a) const { return extremum<op::Min>(a, nullptr, "minval"); }
  /// The smallest element of `a` where `mask` is true.
  T minval(const array_type& a, const mask_type& mask) const {
    return extremum<op::Min>(a, &mask, "minval");
  }
  /// The largest element of `a` and its index tuple (the first one, of
  /// equal elements; indices -1 when `a` has no element).
  location_type maxloc(const array_type& a) const {
    return locate<op::MaxLocation>(a, nullptr, "maxloc");
  }
  /// maxloc() over the elements where `mask` is true.
  location_type maxloc(const array_type& a, const mask_type& mask) const {
    return locate<op::MaxLocation>(a, &mask, "maxloc");
  }
  /// The smallest element of `a` and its index tuple (as maxloc()).
  location_type minloc(const array_type& a) const {
    return locate<op::MinLocation>(a, nullptr, "minloc");
  }
  /// minloc() over the elements where `mask` is true.
  location_type minloc(const array_type& a, const mask_type& mask) const {
    return locate<op::MinLocation>(a, &mask, "minloc");
  }
  /// The sum of conj(a) * b over the elements (Fortran's DOT_PRODUCT: the
  /// first argument conjugated for complex elements); `b` has the layout too.
  T dot(const array_type& a, const array_type& b) const { return dot_of(a, b, nullptr); }
  /// dot() over the elements where `mask` is true.
  T dot(const array_type& a, const array_type& b, const mask_type& mask) const {
    return dot_of(a, b, &mask);
  }
  /// Is any element of `m` true?
  bool any(const mask_type& m) const {
    return logical(m, op::logical_or, false, "ArrayReduction::any");
  }
  /// Is every element of `m` true (true when there is none)?
  bool all(const mask_type& m) const {
    return logical(m, op::logical_and, true, "ArrayReduction::all");
  }
  /// How many elements of `m` are true.
  Index count(const mask_type& m) const {
    const char* operation = "ArrayReduction::count";
    check(layout_error("the array", m.layout()), 3, operation);
    if (!contributes_) return member_ ? schedule<std::int64_t>(op::add).reduce(0) : 0;
    const std::int64_t local = detail::fold<std::int64_t, op::Add, Rank, MemorySpace>(
        walk_, detail::CountElement{m.local_view().data()}, op::add, std::int64_t(0), scratch(),
        operation);
    return schedule<std::int64_t>(op::add).reduce(local);
  }
  /// The combination of the elements of `a` with a user's operation `op`
  /// (op::combine(f); associative and commutative, callable in the memory
  /// space's kernels) whose identity is `identity`.
  template <class Op>
  T reduce(const array_type& a, const Op& op, const T& identity) const {
    return reduce_with(a, nullptr, op, identity, "ArrayReduction::reduce");
  }
  /// reduce() over the elements where `mask` is true.
  template <class Op>
  T reduce(const array_type& a, const mask_type& mask, const Op& op, const T& identity) const {
    return reduce_with(a, &mask, op, identity, "ArrayReduction::reduce");
  }

  /// The layout every reduced array must have.
  const ArrayLayout& layout() const { return layout_; }
  /// Does this process's data count (it is in the group and holds replica 0)?
  bool contributes() const { return contributes_; }

 private:
  void* scratch() const {
    auto address = reinterpret_cast<std::uintptr_t>(scratch_.data());
    constexpr std::uintptr_t align = alignof(location_type) > 8 ? alignof(location_type) : 8;
    address = (address + align - 1) / align * align;
    return reinterpret_cast<void*>(address);
  }

  /// Empty when `layout` is the reduction's, else the complaint.
  std::string layout_error(const char* what, const ArrayLayout& layout) const {
    if (layout == layout_) return {};
    return std::string(what) + " has layout " + layout.describe() +
           ", the ArrayReduction was built for " + layout_.describe();
  }

  /// Throws where `error` is not empty; in checked mode agrees first, over
  /// the grid's communicator, on the verdicts and on which operation runs.
  void check(const std::string& error, std::uint64_t operation_id, const char* operation) const {
    if (!config_.checked) {
      if (!error.empty()) throw Error(error, layout_.group().grid().comm().rank(), operation);
      return;
    }
    // The layout and element type were agreed at construction; what runs
    // is agreed by name ("operation: ArrayReduction::sum on ranks 0, 2; ...").
    agree_on_arguments(
        layout_.group().grid().comm(), error,
        {{"operation code", operation_id, [operation] { return std::string(operation); }}},
        operation);
  }
  std::string arrays_error(const array_type& a, const mask_type* mask) const {
    std::string error = layout_error("the array", a.layout());
    if (error.empty() && mask) error = layout_error("the mask", mask->layout());
    return error;
  }

  /// The one-element all-reduce of Values with `op` over the group, made on
  /// first use (every member uses the operations in the same order).
  template <class Value, class Op>
  const RedxSchedule<Value, Op, Kokkos::HostSpace>& schedule(const Op& op) const {
    using Schedule = RedxSchedule<Value, Op, Kokkos::HostSpace>;
    std::shared_ptr<void>& slot = schedules_[std::type_index(typeid(Schedule))];
    if (!slot) slot = std::make_shared<Schedule>(*members_, 1, op, config_);
    return *static_cast<const Schedule*>(slot.get());
  }

  /// Folds `source` (masked where a mask is given) with `op` here, then
  /// over the group.
  template <class Value, class Op, class Source>
  Value combine(const Source& source, const mask_type* mask, const Op& op, const Value& identity,
                const char* operation) const {
    if (!member_) return identity;
    Value local = identity;
    if (contributes_) {
      if (mask)
        local = detail::fold<Value, Op, Rank, MemorySpace>(
            walk_,
            detail::MaskedElement<Source, Value>{source, mask->local_view().data(), identity}, op,
            identity, scratch(), operation);
      else
        local = detail::fold<Value, Op, Rank, MemorySpace>(walk_, source, op, identity, scratch(),
                                                           operation);
    }
    return schedule<Value>(op).reduce(local);
  }

  T sum_of(const array_type& a, const mask_type* mask, const char* operation) const {
    check(arrays_error(a, mask), mask ? 11 : 1, operation);
    return combine<T>(detail::LoadElement<T>{a.local_view().data()}, mask, op::add, T{}, operation);
  }
  T product_of(const array_type& a, const mask_type* mask) const {
    const char* operation = "ArrayReduction::product";
    check(arrays_error(a, mask), mask ? 12 : 2, operation);
    return combine<T>(detail::LoadElement<T>{a.local_view().data()}, mask, op::product, T(1),
                      operation);
  }
  template <class Op>
  T extremum(const array_type& a, const mask_type* mask, const char* name) const {
    static_assert(detail::ordered<T>(), "maxval and minval need ordered (arithmetic) elements");
    const char* operation =
        Op::kind == op::Kind::max ? "ArrayReduction::maxval" : "ArrayReduction::minval";
    check(arrays_error(a, mask), (mask ? 20 : 10) + static_cast<std::uint64_t>(Op::kind),
          operation);
    (void)name;
    const T identity = Op::kind == op::Kind::max ? op::max_identity<T> : op::min_identity<T>;
    return combine<T>(detail::LoadElement<T>{a.local_view().data()}, mask, Op{}, identity,
                      operation);
  }
  template <class Op>
  location_type locate(const array_type& a, const mask_type* mask, const char* name) const {
    static_assert(detail::ordered<T>(), "maxloc and minloc need ordered (arithmetic) elements");
    const bool largest = Op::kind == op::Kind::max_location;
    const char* operation = largest ? "ArrayReduction::maxloc" : "ArrayReduction::minloc";
    (void)name;
    check(arrays_error(a, mask), (mask ? 40 : 30) + static_cast<std::uint64_t>(Op::kind),
          operation);
    location_type identity;
    identity.value = largest ? op::max_identity<T> : op::min_identity<T>;
    for (int d = 0; d < Rank; ++d) identity.location[d] = std::numeric_limits<std::int64_t>::max();
    location_type found =
        combine<location_type>(detail::LocatedElement<T, Rank>{a.local_view().data(), walk_}, mask,
                               Op{}, identity, operation);
    if (found.location[0] == std::numeric_limits<std::int64_t>::max())
      for (int d = 0; d < Rank; ++d) found.location[d] = -1;
    return found;
  }
  T dot_of(const array_type& a, const array_type& b, const mask_type* mask) const {
    const char* operation = "ArrayReduction::dot";
    std::string error = arrays_error(a, mask);
    if (error.empty()) error = layout_error("the second array", b.layout());
    check(error, mask ? 14 : 4, operation);
    return combine<T>(detail::DotElement<T>{a.local_view().data(), b.local_view().data()}, mask,
                      op::add, T{}, operation);
  }
  template <class Op>
  bool logical(const mask_type& m, const Op& op, bool identity, const char* operation) const {
    check(layout_error("the array", m.layout()), 50 + static_cast<std::uint64_t>(Op::kind),
          operation);
    return combine<bool>(detail::LoadElement<bool>{m.local_view().data()}, nullptr, op, identity,
                         operation);
  }
  template <class Op>
  T reduce_with(const array_type& a, const mask_type* mask, const Op& op, const T& identity,
                const char* operation) const {
    check(arrays_error(a, mask), mask ? 16 : 6, operation);
    return combine<T>(detail::LoadElement<T>{a.local_view().data()}, mask, op, identity, operation);
  }

  ArrayLayout layout_;
  Configuration config_;
  bool member_ = false;
  bool contributes_ = false;
  std::optional<Comm> members_;  ///< the group's communicator (members only)
  detail::LocalWalk<Rank> walk_;
  Kokkos::View<Index*, MemorySpace> tables_;
  Kokkos::View<std::uint64_t*, MemorySpace> scratch_;
  mutable std::map<std::type_index, std::shared_ptr<void>> schedules_;
};

/// Deduction guide: adlib::ArrayReduction r(a) takes T, Rank and the
/// memory space from the array.
template <class T, int Rank, class MemorySpace>
ArrayReduction(const DistArray<T, Rank, MemorySpace>&) -> ArrayReduction<T, Rank, MemorySpace>;
/// The same with a Configuration.
template <class T, int Rank, class MemorySpace>
ArrayReduction(const DistArray<T, Rank, MemorySpace>&, const Configuration&)
    -> ArrayReduction<T, Rank, MemorySpace>;

/// One-shot sum of the elements of `a` (collective: plan, reduce, drop).
template <class T, int Rank, class MemorySpace>
T sum(const DistArray<T, Rank, MemorySpace>& a) {
  return ArrayReduction<T, Rank, MemorySpace>(a).sum(a);
}
/// One-shot sum of the elements of `a` where `mask` is true.
template <class T, int Rank, class MemorySpace>
T sum(const DistArray<T, Rank, MemorySpace>& a, const DistArray<bool, Rank, MemorySpace>& mask) {
  return ArrayReduction<T, Rank, MemorySpace>(a).sum(a, mask);
}
/// One-shot product of the elements of `a`.
template <class T, int Rank, class MemorySpace>
T product(const DistArray<T, Rank, MemorySpace>& a) {
  return ArrayReduction<T, Rank, MemorySpace>(a).product(a);
}
/// One-shot largest element of `a`.
template <class T, int Rank, class MemorySpace>
T maxval(const DistArray<T, Rank, MemorySpace>& a) {
  return ArrayReduction<T, Rank, MemorySpace>(a).maxval(a);
}
/// One-shot smallest element of `a`.
template <class T, int Rank, class MemorySpace>
T minval(const DistArray<T, Rank, MemorySpace>& a) {
  return ArrayReduction<T, Rank, MemorySpace>(a).minval(a);
}
/// One-shot largest element of `a` with its index tuple.
template <class T, int Rank, class MemorySpace>
Located<T, Rank> maxloc(const DistArray<T, Rank, MemorySpace>& a) {
  return ArrayReduction<T, Rank, MemorySpace>(a).maxloc(a);
}
/// One-shot smallest element of `a` with its index tuple.
template <class T, int Rank, class MemorySpace>
Located<T, Rank> minloc(const DistArray<T, Rank, MemorySpace>& a) {
  return ArrayReduction<T, Rank, MemorySpace>(a).minloc(a);
}
/// One-shot dot product: the sum of conj(a) * b.
template <class T, int Rank, class MemorySpace>
T dot(const DistArray<T, Rank, MemorySpace>& a, const DistArray<T, Rank, MemorySpace>& b) {
  return ArrayReduction<T, Rank, MemorySpace>(a).dot(a, b);
}
/// One-shot: is any element of `m` true?
template <int Rank, class MemorySpace>
bool any(const DistArray<bool, Rank, MemorySpace>& m) {
  return ArrayReduction<bool, Rank, MemorySpace>(m).any(m);
}
/// One-shot: is every element of `m` true?
template <int Rank, class MemorySpace>
bool all(const DistArray<bool, Rank, MemorySpace>& m) {
  return ArrayReduction<bool, Rank, MemorySpace>(m).all(m);
}
/// One-shot: how many elements of `m` are true.
template <int Rank, class MemorySpace>
Index count(const DistArray<bool, Rank, MemorySpace>& m) {
  return ArrayReduction<bool, Rank, MemorySpace>(m).count(m);
}

}  // namespace adlib
