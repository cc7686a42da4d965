// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Combine operations: what an arriving element does to the element it lands
/// on.
///
/// @code
///   halo.accumulate(u, adlib::op::add);      // ghosts added into their owners
///   scatter.execute(x, values, adlib::op::max);
///   schedule.execute(dst, n, src, m, adlib::Direction::backward,
///                    adlib::op::combine([](double& t, double v) { t = t + 2 * v; }));
/// @endcode
///
/// `replace` (the default everywhere) overwrites; `add`, `min`, `max` and
/// `product` combine the arriving value into the target (`min` and `max`
/// propagate NaN as numpy's `minimum` and `maximum` do: a NaN arriving
/// replaces a number, a NaN target stays, so the result is NaN when any
/// operand is, in whatever order they combine); `op::combine(f)`
/// wraps any callable `f(T& target, const T& value)` (it must be callable in
/// the memory space's kernels: a KOKKOS_LAMBDA or a functor with a
/// KOKKOS_INLINE_FUNCTION operator() for device memory).
///
/// Repeated targets (one element reached by several arriving values, within a
/// message or across messages) combine every value.  A combining execution
/// applies its local copies first, then the messages one after another in
/// peer order (not in arrival order), and each target of a block or index
/// list whose targets repeat receives its values in the list's order from
/// one thread (runtime/detail/index_list_kernels.hpp: threads own ranges of
/// targets): results are the same in every run and at every thread count,
/// bitwise, floating-point sums included.  (Replacing
/// executions unpack messages as they arrive: where two messages replace one
/// element, which one is last is not defined.)
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include <adlib/runtime/detail/complex_arithmetic.hpp>

namespace adlib {
namespace op {

namespace detail {
/// Is `x` a NaN?  Never for types without one (integers, bool, user types).
template <class T>
KOKKOS_INLINE_FUNCTION constexpr bool is_nan(const T& x) {
  if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else
    return false;
}
}  // namespace detail

/// What op::max starts from over an arithmetic T: -infinity where T has
/// one, else T's lowest value (Fortran's MAXVAL of nothing is -HUGE).
/// Variables rather than functions so that device kernels can read them:
/// std::numeric_limits' members are host functions.
template <class T>
inline constexpr T max_identity = std::numeric_limits<T>::has_infinity
                                      ? T(-std::numeric_limits<T>::infinity())
                                      : std::numeric_limits<T>::lowest();
/// What op::min starts from: +infinity where T has one, else T's largest value.
template <class T>
inline constexpr T min_identity = std::numeric_limits<T>::has_infinity
                                      ? std::numeric_limits<T>::infinity()
                                      : std::numeric_limits<T>::max();

/// The kinds of the built-in operations (part of what ranks agree on).
enum class Kind : std::uint64_t {
  replace = 1,
  add,
  min,
  max,
  product,
  user,
  max_location,
  min_location,
  logical_and,
  logical_or
};

/// target = value (the default).
struct Replace {
  static constexpr Kind kind = Kind::replace;  ///< which operation
  /// Applies the operation.
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& target, const T& value) const {
    target = value;
  }
};
/// target += value (std::complex too in device kernels: see
/// runtime/detail/complex_arithmetic.hpp).
struct Add {
  static constexpr Kind kind = Kind::add;  ///< which operation
  /// Applies the operation.
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& target, const T& value) const {
    adlib::detail::add_into(target, value);
  }
};
/// target = min(target, value) (operator<); NaN propagates (see the file
/// overview).
struct Min {
  static constexpr Kind kind = Kind::min;  ///< which operation
  /// Applies the operation.
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& target, const T& value) const {
    if (value < target || (detail::is_nan(value) && !detail::is_nan(target))) target = value;
  }
};
/// target = max(target, value) (operator<); NaN propagates (see the file
/// overview).
struct Max {
  static constexpr Kind kind = Kind::max;  ///< which operation
  /// Applies the operation.
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& target, const T& value) const {
    if (target < value || (detail::is_nan(value) && !detail::is_nan(target))) target = value;
  }
};
/// target *= value (std::complex too in device kernels, as Add).
struct Product {
  static constexpr Kind kind = Kind::product;  ///< which operation
  /// Applies the operation.
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& target, const T& value) const {
    adlib::detail::multiply_into(target, value);
  }
};

/// target = target && value (for Any / All reductions).
struct LogicalAnd {
  static constexpr Kind kind = Kind::logical_and;  ///< which operation
  /// Applies the operation.
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& target, const T& value) const {
    target = target && value;
  }
};
/// target = target || value (for Any / All reductions).
struct LogicalOr {
  static constexpr Kind kind = Kind::logical_or;  ///< which operation
  /// Applies the operation.
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& target, const T& value) const {
    target = target || value;
  }
};

/// A user's operation: `function(target, value)` updates target.  A
/// function object with state that must agree across ranks gives
/// `std::uint64_t fingerprint() const` (see op::fingerprint(op)).
template <class Function>
struct Combine {
  static constexpr Kind kind = Kind::user;  ///< which operation
  Function function;                        ///< the user's callable
  /// Applies the operation.
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(T& target, const T& value) const {
    function(target, value);
  }
};

/// Wraps `function(T& target, const T& value)` as a combine operation.
template <class Function>
Combine<Function> combine(Function function) {
  return Combine<Function>{function};
}

inline constexpr Replace replace{};         ///< target = value
inline constexpr Add add{};                 ///< target += value
inline constexpr Min min{};                 ///< target = min(target, value)
inline constexpr Max max{};                 ///< target = max(target, value)
inline constexpr Product product{};         ///< target *= value
inline constexpr LogicalAnd logical_and{};  ///< target = target && value
inline constexpr LogicalOr logical_or{};    ///< target = target || value

/// Is `Op` the plain overwrite (copies may then use memcpy)?
template <class Op>
constexpr bool is_replace() {
  return Op::kind == Kind::replace;
}

/// What ranks compare to check they combine alike: the kind, and for a
/// user's operation its type (identical in every process of one program).
template <class Op>
std::uint64_t fingerprint() {
  const auto kind = static_cast<std::uint64_t>(Op::kind);
  if constexpr (Op::kind == Kind::user) return kind * 1000003u ^ typeid(Op).hash_code();
  return kind;
}

namespace detail {
template <class F, class = void>
struct has_state_fingerprint : std::false_type {};
template <class F>
struct has_state_fingerprint<
    F, std::void_t<decltype(std::uint64_t(std::declval<const F&>().fingerprint()))>>
    : std::true_type {};
}  // namespace detail

/// The same for the operation `op` itself: a user's operation whose state
/// matters (a weight, a scale) says so with a member `std::uint64_t
/// fingerprint() const` on the callable given to op::combine (or on the
/// operation), which is mixed in, so that ranks whose operations differ
/// only in that state disagree too.  Without it, ranks compare the type.
template <class Op>
std::uint64_t fingerprint(const Op& op) {
  std::uint64_t h = fingerprint<Op>();
  if constexpr (Op::kind == Kind::user) {
    if constexpr (detail::has_state_fingerprint<Op>::value)
      h = h * 1099511628211ull ^ op.fingerprint();
    else if constexpr (detail::has_state_fingerprint<decltype(op.function)>::value)
      h = h * 1099511628211ull ^ op.function.fingerprint();
  }
  return h;
}

/// How an operation with this op::fingerprint reads in an error message
/// ("add", "max"; a user's operation by its fingerprint), so that ranks told
/// they combine differently learn how ("combine: add on ranks 0, 2; max on
/// rank 1").  0 is the fingerprint of no combine at all (a forward copy).
std::string describe(std::uint64_t fingerprint);

}  // namespace op
}  // namespace adlib
