// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// PrintOptions: how adlib::print / adlib::to_string (collectives/print.hpp)
/// and adlib::print_layout (collectives/print_layout.hpp) lay out their text:
/// where it goes, which rank writes it, when large arrays are summarised and
/// how numbers look.
///
/// @code
///   adlib::PrintOptions options;
///   options.name = "u";          // a title line
///   options.edge_items = 2;      // summarised: the first and last 2 per dimension
///   options.precision = 3;       // significant digits
///   adlib::print(u, options);    // collective; rank options.root writes
/// @endcode
///
/// The options enter the cross-rank agreement of the printers: every rank
/// passes the same values (the stream excepted: only the root's is used).
#pragma once

#include <iostream>
#include <string>

#include <adlib/ranges/triplet.hpp>

namespace adlib {

/// What print_layout writes in each element's cell.
enum class LayoutCells {
  ranks,       ///< the rank (of the communicator) holding it; replicas as "0/2"
  coordinates  ///< the owner's coordinate along each dimension's range, "(1,0)"
};

/// Options of the array and layout printers (see the file overview).  The
/// defaults follow numpy: more than 1000 elements are summarised by the first
/// and last 3 indices of each dimension, 6 significant digits.
struct PrintOptions {
  /// Where the root writes (print / print_layout; to_string returns the text).
  std::ostream* stream = &std::cout;
  /// The rank of the array's communicator that writes (the others write nothing).
  int root = 0;
  /// A title line; none when empty (print_layout then titles with the distribution).
  std::string name;
  /// Arrays of more elements than this are summarised ("..." between the
  /// first and last edge_items indices of each longer dimension).
  Index threshold = 1000;
  /// Indices kept at each end of a summarised dimension.
  Index edge_items = 3;
  /// Significant digits of floating-point elements (digits after the point
  /// with `fixed`).
  int precision = 6;
  /// Fixed-point notation for floating-point elements.
  bool fixed = false;
  /// Least width of every cell (cells are as wide as the widest shown one).
  int width = 0;
  /// Label rows and columns with their indices (positions of the printed
  /// array: global indices for a whole array).
  bool index_labels = true;
  /// Columns beyond this many characters continue in another block of rows.
  int line_width = 80;
  /// print_layout only: owner ranks or owner coordinates.
  LayoutCells layout_cells = LayoutCells::ranks;
};

}  // namespace adlib
