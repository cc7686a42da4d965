// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The text of a printed array, apart from where its elements come from: which
/// indices are shown (all, or the first and last few of each dimension of a
/// large array, as numpy summarises), how one element is written, and how the
/// shown cells are laid out in aligned rows and columns with index labels.
/// adlib::print (collectives/print.hpp) fills the cells with gathered values,
/// adlib::print_layout (collectives/print_layout.hpp) with owners; both share
/// this layout, so their pictures look alike.
///
/// Layout: a 1-D array is one row under a header of its indices; a 2-D array
/// a table, column indices on top and row indices on the left; an array of
/// rank 3 or more a sequence of 2-D slices headed "[i, :, :]".  A summarised
/// dimension shows "..." between its first and last edge_items indices.
/// Columns that do not fit in PrintOptions::line_width continue in further
/// blocks of rows, each with its own header.
#pragma once

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/collectives/print_options.hpp>
#include <adlib/ranges/triplet.hpp>

namespace adlib {

/// A run of consecutive shown positions of one dimension: `count` positions
/// from `first`.
struct ShownRun {
  Index first = 0;  ///< first position of the run
  Index count = 0;  ///< number of positions
};

/// The shown positions of every dimension of an array of `shape`: one run
/// covering the dimension, or, when the array has more than
/// options.threshold elements, two runs (the first and the last
/// options.edge_items positions) for each dimension longer than twice
/// edge_items.  A dimension of extent 0 has no run.
std::vector<std::vector<ShownRun>> shown_runs(const std::vector<Index>& shape,
                                              const PrintOptions& options);

/// Number of positions the runs of one dimension show.
Index shown_count(const std::vector<ShownRun>& runs);

/// One row of cells drawn over the shown elements: `label` on the left (1-D
/// only; ignored for higher ranks) and the text of the element at `position`
/// (positions of the array, one per dimension) whose place among the shown
/// elements is `shown` (0 .. shown_count - 1 per dimension).
struct CellSeries {
  /// The row's label in a 1-D picture ("" for none).
  std::string label;
  /// The cell text of an element.
  std::function<std::string(const std::vector<Index>& position, const std::vector<Index>& shown)>
      cell;
};

/// The picture of an array of `shape` (see the file overview): an optional
/// title line (options.name followed by the shape), then the shown cells.
/// `series` holds one CellSeries, or, for a 1-D array, several (one row each,
/// as print_layout's owners and local positions).  Ends with a newline.
std::string format_array_text(const std::vector<Index>& shape,
                              const std::vector<std::vector<ShownRun>>& runs,
                              const std::vector<CellSeries>& series, const std::string& title,
                              const PrintOptions& options);

namespace detail {

/// Does T have real() and imag() members (std::complex, Kokkos::complex)?
template <class T, class = void>
struct has_real_and_imag : std::false_type {};
template <class T>
struct has_real_and_imag<T, std::void_t<decltype(std::declval<const T&>().real()),
                                        decltype(std::declval<const T&>().imag())>>
    : std::true_type {};

/// Can T be written to a std::ostream?
template <class T, class = void>
struct is_streamable : std::false_type {};
template <class T>
struct is_streamable<
    T, std::void_t<decltype(std::declval<std::ostream&>() << std::declval<const T&>())>>
    : std::true_type {};

/// A floating-point number with the options' precision and notation.
std::string format_floating(double value, const PrintOptions& options);

/// Empty when `options` are usable on a communicator of `ranks` ranks, else
/// why not (a root outside it, a negative threshold, no edge items, ...).
std::string print_options_error(const PrintOptions& options, int ranks);
/// Of every option but the stream: ranks that print together agree on it.
std::uint64_t print_options_fingerprint(const PrintOptions& options);

}  // namespace detail

/// The text of one element: integers in full (char types as numbers), bool
/// as true / false, floating-point numbers with options.precision (and
/// options.fixed), complex numbers as "re+imi", anything else through its
/// operator<<.
template <class T>
std::string format_element(const T& value, const PrintOptions& options) {
  if constexpr (std::is_same<T, bool>::value) {
    return value ? "true" : "false";
  } else if constexpr (std::is_integral<T>::value) {
    if constexpr (std::is_signed<T>::value)
      return std::to_string(static_cast<long long>(value));
    else
      return std::to_string(static_cast<unsigned long long>(value));
  } else if constexpr (std::is_floating_point<T>::value) {
    return detail::format_floating(static_cast<double>(value), options);
  } else if constexpr (detail::has_real_and_imag<T>::value) {
    const double re = static_cast<double>(value.real()), im = static_cast<double>(value.imag());
    std::string imaginary = detail::format_floating(im, options);
    if (imaginary.front() != '-' && imaginary.front() != '+') imaginary = "+" + imaginary;
    return detail::format_floating(re, options) + imaginary + "i";
  } else {
    static_assert(detail::is_streamable<T>::value,
                  "adlib::print writes elements with operator<<: give the element type one");
    std::ostringstream text;
    text << value;
    return text.str();
  }
}

}  // namespace adlib
