// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// A value with the global index tuple where it was found, and the
/// operations that keep the largest or smallest one (Fortran's MAXLOC /
/// MINLOC, Adlib's Redx2Schedule).
///
/// @code
///   adlib::Located<double, 2> mine{u_max, {i, j}};            // this rank's best
///   adlib::Redx2Schedule<double, 2, adlib::op::MaxLocation> where(comm, 1);
///   adlib::Located<double, 2> best = where.reduce(mine);     // the same on every rank
/// @endcode
///
/// Ties keep the smallest location (lexicographic order of the tuple), so
/// the answer does not depend on the order in which ranks combine.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>

#include <adlib/runtime/combine.hpp>

namespace adlib {

/// A value and the N global indices where it sits (plain arrays so that it
/// travels in device kernels and as bytes in messages).
template <class T, int N>
struct Located {
  T value{};                   ///< the value
  std::int64_t location[N]{};  ///< its global index along each dimension
};

namespace op {

namespace detail {
/// Is a's location lexicographically before b's?
template <class T, int N>
KOKKOS_INLINE_FUNCTION bool location_before(const Located<T, N>& a, const Located<T, N>& b) {
  for (int d = 0; d < N; ++d)
    if (a.location[d] != b.location[d]) return a.location[d] < b.location[d];
  return false;
}

/// Does `a` win over `b` in a MAXLOC (`largest`) or a MINLOC?  A NaN wins
/// over every number (numpy's argmax and argmin report the first NaN), then
/// the larger (smaller) value, then the smaller location.  A total order, so
/// the winner does not depend on the order in which values combine, and so
/// not on the process count.
template <bool largest, class T, int N>
KOKKOS_INLINE_FUNCTION bool wins(const Located<T, N>& a, const Located<T, N>& b) {
  const bool a_nan = is_nan(a.value), b_nan = is_nan(b.value);
  if (a_nan != b_nan) return a_nan;
  if (!a_nan) {
    if (largest ? b.value < a.value : a.value < b.value) return true;
    if (largest ? a.value < b.value : b.value < a.value) return false;
  }
  return location_before(a, b);
}
}  // namespace detail

/// Keeps the larger value; of equal values, the smaller location; a NaN
/// first (detail::wins).
struct MaxLocation {
  static constexpr Kind kind = Kind::max_location;  ///< which operation
  /// Applies the operation.
  template <class T, int N>
  KOKKOS_INLINE_FUNCTION void operator()(Located<T, N>& target, const Located<T, N>& value) const {
    if (detail::wins<true>(value, target)) target = value;
  }
};

/// Keeps the smaller value; of equal values, the smaller location; a NaN
/// first (detail::wins).
struct MinLocation {
  static constexpr Kind kind = Kind::min_location;  ///< which operation
  /// Applies the operation.
  template <class T, int N>
  KOKKOS_INLINE_FUNCTION void operator()(Located<T, N>& target, const Located<T, N>& value) const {
    if (detail::wins<false>(value, target)) target = value;
  }
};

inline constexpr MaxLocation max_location{};  ///< largest value, first location
inline constexpr MinLocation min_location{};  ///< smallest value, first location

}  // namespace op
}  // namespace adlib
