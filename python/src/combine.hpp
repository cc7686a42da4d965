// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The combine operation of a Scatter chosen at run time (adlib.Combine, the
/// enumeration adlib::op::Kind): the C++ schedules take it as a template
/// argument, so a Python schedule holds a std::variant of the schedules of
/// every operation its element type allows.
#pragma once

#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/error.hpp>

#include "arrays.hpp"

namespace adlib_python {

/// One `Of<Op>` per operation of T: std::complex has no order, so no min or max.
template <class T, template <class> class Of>
using CombineVariant = std::conditional_t<
    is_complex<T>::value,
    std::variant<Of<adlib::op::Replace>, Of<adlib::op::Add>, Of<adlib::op::Product>>,
    std::variant<Of<adlib::op::Replace>, Of<adlib::op::Add>, Of<adlib::op::Min>, Of<adlib::op::Max>,
                 Of<adlib::op::Product>>>;

/// make(op) with the operation object of `kind`; an adlib::Error for an
/// operation T does not allow (the same on every rank that passes it).
template <class T, class Make>
auto with_combine(adlib::op::Kind kind, const char* operation, Make&& make) {
  using adlib::op::Kind;
  switch (kind) {
    case Kind::replace:
      return make(adlib::op::Replace{});
    case Kind::add:
      return make(adlib::op::Add{});
    case Kind::product:
      return make(adlib::op::Product{});
    case Kind::min:
      if constexpr (!is_complex<T>::value) return make(adlib::op::Min{});
      break;
    case Kind::max:
      if constexpr (!is_complex<T>::value) return make(adlib::op::Max{});
      break;
    default:
      break;
  }
  throw adlib::Error(
      std::string("combine operation ") + std::to_string(static_cast<int>(kind)) +
          " is not one of replace, add, product" +
          (is_complex<T>::value ? " (complex numbers have no min or max)" : ", min, max"),
      -1, operation);
}

}  // namespace adlib_python
