// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Addition, multiplication and conjugation of std::complex that device
/// kernels can call; every other element type uses its own operators.
///
/// std::complex's members are host functions: its constructors, real() and
/// imag() are constexpr (nvcc calls those from device code only under
/// --expt-relaxed-constexpr, a choice of the user's Kokkos build), and in
/// C++17 its `+=` and `*=` are not even constexpr.  nvcc only warns about
/// such calls, and the kernel then computes garbage: on an H100, complex
/// scatter-add, complex products and complex dot products came out wrong
/// while every other type passed.  The standard lays std::complex<R> out as
/// R[2] (real part, then imaginary part) and lets code read it so
/// ([complex.numbers]/4), which is all these helpers use; copying and
/// assigning a std::complex are implicit, so callable everywhere.
#pragma once

#include <Kokkos_Core.hpp>
#include <complex>
#include <type_traits>

namespace adlib::detail {

/// Is T a std::complex?
template <class T>
struct is_std_complex : std::false_type {};
template <class R>
struct is_std_complex<std::complex<R>> : std::true_type {};

/// The real and imaginary parts of `z`, as the two elements of an array.
template <class R>
KOKKOS_INLINE_FUNCTION R* complex_parts(std::complex<R>& z) {
  return reinterpret_cast<R*>(&z);
}
template <class R>
KOKKOS_INLINE_FUNCTION const R* complex_parts(const std::complex<R>& z) {
  return reinterpret_cast<const R*>(&z);
}

/// target += value.
template <class T>
KOKKOS_INLINE_FUNCTION void add_into(T& target, const T& value) {
  if constexpr (is_std_complex<T>::value) {
    auto* t = complex_parts(target);
    const auto* v = complex_parts(value);
    t[0] += v[0];
    t[1] += v[1];
  } else {
    target += value;
  }
}

/// target *= value.  Complex: (a + bi)(c + di) = (ac - bd) + (ad + bc)i,
/// the textbook product (what GCC's host operator computes for finite
/// operands; it differs only where that operator recovers infinities from a
/// NaN result, C's Annex G).
template <class T>
KOKKOS_INLINE_FUNCTION void multiply_into(T& target, const T& value) {
  if constexpr (is_std_complex<T>::value) {
    auto* t = complex_parts(target);
    const auto* v = complex_parts(value);
    const auto a = t[0], b = t[1], c = v[0], d = v[1];
    t[0] = a * c - b * d;
    t[1] = a * d + b * c;
  } else {
    target *= value;
  }
}

/// The complex conjugate of a complex value; any other value unchanged.
template <class T>
KOKKOS_INLINE_FUNCTION T conjugate(const T& value) {
  T result = value;
  if constexpr (is_std_complex<T>::value) complex_parts(result)[1] = -complex_parts(result)[1];
  return result;
}

}  // namespace adlib::detail
