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
}  // namespace detail

/// Keeps the larger value; of equal values, the smaller location.
struct MaxLocation {
  static constexpr Kind kind = Kind::max_location;  ///< which operation
  /// Applies the operation.
  template <class T, int N>
  KOKKOS_INLINE_FUNCTION void operator()(Located<T, N>& target, const Located<T, N>& value) const {
    if (target.value < value.value ||
        (!(value.value < target.value) && detail::location_before(value, target)))
      target = value;
  }
};

/// Keeps the smaller value; of equal values, the smaller location.
struct MinLocation {
  static constexpr Kind kind = Kind::min_location;  ///< which operation
  /// Applies the operation.
  template <class T, int N>
  KOKKOS_INLINE_FUNCTION void operator()(Located<T, N>& target, const Located<T, N>& value) const {
    if (value.value < target.value ||
        (!(target.value < value.value) && detail::location_before(value, target)))
      target = value;
  }
};

inline constexpr MaxLocation max_location{};  ///< largest value, first location
inline constexpr MinLocation min_location{};  ///< smallest value, first location

}  // namespace op
}  // namespace adlib
