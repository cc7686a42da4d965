// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The element types and combine operations the library compiles its typed
/// executors for, once (explicit instantiation: Kokkos and PETSc do the same
/// with their common specialisations).  Code that uses any other type or
/// operation still works: the templates are instantiated where it is used.
///
/// @code
///   #define MY_INSTANCE(T, Combine) template void f<T, Combine>();
///   ADLIB_FOR_EACH_SHIPPED_COMBINE(MY_INSTANCE)
/// @endcode
#pragma once

#include <complex>
#include <cstdint>

#include <adlib/runtime/combine.hpp>

/// Calls `M(T, Combine)` for each shipped element type (the Python module's
/// float64, float32, int64, complex128 and bool, and C's int and
/// complex<float>) and each built-in operation that applies to it: replace, add and product for the
/// numbers, min and max for the ordered ones, replace and the logical ones for bool.
#define ADLIB_FOR_EACH_SHIPPED_COMBINE(M)                    \
  ADLIB_SHIPPED_ORDERED_COMBINES(M, double)                  \
  ADLIB_SHIPPED_ORDERED_COMBINES(M, float)                   \
  ADLIB_SHIPPED_ORDERED_COMBINES(M, int)                     \
  ADLIB_SHIPPED_ORDERED_COMBINES(M, std::int64_t)            \
  ADLIB_SHIPPED_ARITHMETIC_COMBINES(M, std::complex<double>) \
  ADLIB_SHIPPED_ARITHMETIC_COMBINES(M, std::complex<float>)  \
  ADLIB_SHIPPED_LOGICAL_COMBINES(M, bool)

/// The operations of a number type without order (complex): `M(T, op)` for
/// replace, add and product.
#define ADLIB_SHIPPED_ARITHMETIC_COMBINES(M, T) \
  M(T, ::adlib::op::Replace)                    \
  M(T, ::adlib::op::Add)                        \
  M(T, ::adlib::op::Product)
/// The operations of an ordered number type: the arithmetic ones, min and max.
#define ADLIB_SHIPPED_ORDERED_COMBINES(M, T) \
  ADLIB_SHIPPED_ARITHMETIC_COMBINES(M, T)    \
  M(T, ::adlib::op::Min)                     \
  M(T, ::adlib::op::Max)
/// The operations of a truth type: replace, logical and, logical or.
#define ADLIB_SHIPPED_LOGICAL_COMBINES(M, T) \
  M(T, ::adlib::op::Replace)                 \
  M(T, ::adlib::op::LogicalAnd)              \
  M(T, ::adlib::op::LogicalOr)
