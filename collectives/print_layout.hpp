// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::print_layout: who owns what.  For each shown element of an array
/// (or of a layout), the rank that holds it, or its owner's coordinates; a
/// 1-D layout adds each element's local position in its owner's memory and,
/// when the range has ghost cells, the ranks holding a ghost copy of it.
///
/// @code
///   adlib::ProcessGrid grid({3});  // planning only: no MPI needed
///   adlib::print_layout(adlib::ArrayLayout(grid, {adlib::block(10).ghosts(1).on(grid.dim(0))}));
///   // array on grid(3) [block(N=10, over grid(3) axis 0, ghosts 1/1)] [10]
///   //         0 1 2 3 4 5 6 7 8 9
///   // rank    0 0 0 1 1 1 2 2 2 2
///   // local   1 2 3 1 2 3 1 2 3 4
///   // ghosts  . . 1 0 . 2 1 . . .
///   adlib::print_layout(u);        // a DistArray's layout, collective, rank 0 writes
/// @endcode
///
/// The picture has the shape of adlib::print's (collectives/array_text.hpp):
/// a row for a 1-D layout, a table for 2-D, slices beyond, summarised with
/// "..." past PrintOptions::threshold elements.  A cell of a replicated
/// layout lists every rank holding the element, "0/2" (the first two and
/// "+k" for k more beyond four).  In LayoutCells::coordinates mode a cell is
/// the owner's coordinate along each dimension's range (0 for a collapsed
/// one).  Ghost cells of a layout of rank 2 or more are not drawn; a line
/// under the title lists their widths.
///
/// A layout over a grid with a communicator is printed collectively (every
/// rank of it calls; the options are agreed on, bad ones are the same
/// adlib::Error everywhere) and the text is the root's; a layout with an
/// unstructured dimension finds its owners with Range::locate, which needs
/// that.  A planning layout (a grid without a communicator) is printed by
/// the calling process alone, PrintOptions::root ignored.  Range arithmetic
/// only: no element data moves.
#pragma once

#include <string>

#include <adlib/collectives/print_options.hpp>
#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/dist_array.hpp>

namespace adlib {

/// The text print_layout writes (see the file overview): on the root (or,
/// for a planning layout, the caller), the picture ending with a newline;
/// elsewhere an empty string.
std::string layout_to_string(const ArrayLayout& layout,
                             const PrintOptions& options = PrintOptions());

/// Writes layout_to_string(layout, options) to *options.stream where it is
/// not empty.
void print_layout(const ArrayLayout& layout, const PrintOptions& options = PrintOptions());

/// layout_to_string of the array's layout (of the section, for a section).
template <class T, int Rank, class MemorySpace>
std::string layout_to_string(const DistArray<T, Rank, MemorySpace>& array,
                             const PrintOptions& options = PrintOptions()) {
  return layout_to_string(array.layout(), options);
}

/// print_layout of the array's layout (of the section, for a section).
template <class T, int Rank, class MemorySpace>
void print_layout(const DistArray<T, Rank, MemorySpace>& array,
                  const PrintOptions& options = PrintOptions()) {
  print_layout(array.layout(), options);
}

}  // namespace adlib
