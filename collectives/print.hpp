// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::print and adlib::to_string: a distributed array (or a section of
/// one) written by one rank in global order, with index labels, summarised
/// with "..." when it is large (Adlib's aprintf; numpy's array printing;
/// PETSc's VecView).
///
/// @code
///   adlib::DistArray<double, 2> u(grid, {adlib::block(n), adlib::cyclic(m)});
///   adlib::print(u);                                  // collective; rank 0 writes to std::cout
///   adlib::PrintOptions options;
///   options.name = "u";
///   options.precision = 3;
///   adlib::print(u.section({adlib::Triplet{0, n - 1, 2}, adlib::Triplet::all(m)}), options);
///   std::string text = adlib::to_string(u, options);  // the text on the root, "" elsewhere
/// @endcode
///
/// Collective over the array's communicator (every rank calls, those outside
/// the array's group too).  Only the shown elements travel: the array is
/// remapped, one Remap per combination of shown runs (at most 2^Rank, 8 for
/// a 3-D array), into a small array of collapsed ranges held by the root
/// alone, so printing a summarised array of 10^8 elements moves
/// (2 * edge_items)^Rank of them.  Every Range kind works, sections too; a
/// replicated array is printed once (one replica sends), ghost cells never.
/// Memory of any space: the root reads a host copy of the gathered elements.
///
/// Bad options (a root outside the communicator, edge_items < 1, ...), or
/// options that differ between ranks, are the same adlib::Error on every rank
/// before any message.  The layout of the text is described in
/// collectives/array_text.hpp; how an element is written, in format_element.
#pragma once

#include <Kokkos_Core.hpp>
#include <array>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include <adlib/collectives/array_text.hpp>
#include <adlib/collectives/print_options.hpp>
#include <adlib/collectives/remap.hpp>
#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/process_grid.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/detail/hash.hpp>

namespace adlib {

/// The text adlib::print writes (see the file overview): on the root rank
/// (options.root), the whole picture ending with a newline; on every other
/// rank, an empty string.  Collective over the array's communicator.
template <class T, int Rank, class MemorySpace>
std::string to_string(const DistArray<T, Rank, MemorySpace>& array,
                      const PrintOptions& options = PrintOptions()) {
  const Comm& comm = array.comm();
  const ArrayLayout& layout = array.layout();
  agree_on_errors(
      comm, detail::print_options_error(options, comm.size()),
      detail::hash_mix(layout.fingerprint(), detail::print_options_fingerprint(options)),
      "adlib::print");
  const std::vector<Index> shape = layout.shape();
  const std::vector<std::vector<ShownRun>> runs = shown_runs(shape, options);
  const bool is_root = comm.rank() == options.root;
  for (const auto& r : runs)
    if (r.empty())  // nothing to gather: an extent of 0
      return is_root ? format_array_text(shape, runs, {CellSeries{}}, options.name, options)
                     : std::string();

  // The shown elements, packed, on the root alone: collapsed ranges on a grid
  // of one process.
  const ProcessGrid root_grid(comm, {1}, {options.root});
  std::vector<RangePtr> packed_ranges;
  for (const auto& r : runs) packed_ranges.push_back(collapsed(shown_count(r)).make());
  const DistArray<T, Rank, MemorySpace> shown(ArrayLayout(root_grid, packed_ranges),
                                              "adlib::print");

  // One Remap per combination of runs (odometer over the dimensions).
  std::array<std::size_t, Rank> at{};
  while (true) {
    std::array<Triplet, Rank> from, to;
    for (int d = 0; d < Rank; ++d) {
      Index offset = 0;
      for (std::size_t k = 0; k < at[d]; ++k) offset += runs[d][k].count;
      const ShownRun& run = runs[d][at[d]];
      from[d] = Triplet{run.first, run.first + run.count - 1, 1};
      to[d] = Triplet{offset, offset + run.count - 1, 1};
    }
    remap(shown.section(to), array.section(from));
    int d = Rank - 1;
    for (; d >= 0; --d) {
      if (++at[d] < runs[d].size()) break;
      at[d] = 0;
    }
    if (d < 0) break;
  }
  if (!is_root) return {};

  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), shown.local_view());
  CellSeries values;
  values.cell = [&](const std::vector<Index>&, const std::vector<Index>& place) {
    std::size_t offset = 0;
    for (int d = 0; d < Rank; ++d) offset += static_cast<std::size_t>(place[d]) * host.stride(d);
    return format_element(host.data()[offset], options);
  };
  return format_array_text(shape, runs, {values}, options.name, options);
}

/// Writes to_string(array, options) to *options.stream on the root (and
/// flushes it); the other ranks write nothing.  Collective over the array's
/// communicator.
template <class T, int Rank, class MemorySpace>
void print(const DistArray<T, Rank, MemorySpace>& array,
           const PrintOptions& options = PrintOptions()) {
  const std::string text = to_string(array, options);
  if (array.comm().rank() == options.root) *options.stream << text << std::flush;
}

}  // namespace adlib
