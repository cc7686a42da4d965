// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::dap::describe(array): the DAP descriptor of this process's part of a
/// DistArray, over the array's own memory (nothing is copied).
///
/// @code
///   adlib::DistArray<double, 2> a(grid, {adlib::block(n).ghosts(1), adlib::cyclic(m)});
///   adlib::dap::Descriptor d = adlib::dap::describe(a);   // d.buffer.data is a's memory
/// @endcode
///
/// Each dimension becomes a dimension dictionary:
/// - contiguous ranges (block, irregular block) -> 'b' with start, stop;
/// - with ghosts -> 'b' with padding (low, high) and periodic.  The DAP puts
///   padding inside [start, stop) and inside [0, size), so the ghost cells at
///   the ends of the domain are the DAP's boundary padding: size is N + low +
///   high and DAP index = adlib index + low (docs/dap.md);
/// - cyclic and block-cyclic -> 'c' with start (the first tile's first index,
///   which encodes a ScaLAPACK source) and block_size (block-cyclic only);
/// - collapsed -> the empty dictionary {};
/// - unstructured -> 'u' with this process's indices and one_to_one.
///
/// The DAP's process grid has one axis per array dimension, ranks in C
/// order, over every process of the communicator.  So describe() refuses,
/// with an adlib::Error: sections, arrays over part of a grid or a grid over
/// part of the communicator (or with a rank list), arrays replicated along a
/// grid axis, dimensions bound to grid axes out of order, and ghost widths
/// that differ on the two sides of an interior process boundary (the DAP
/// wants the same communication padding on both sides).
#pragma once

#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/dap_descriptor.hpp>
#include <adlib/ranges/dist_array.hpp>

namespace adlib::dap {

/// The dimension dictionaries of process `rank`'s part of `layout` (the
/// checks described above; local, no communication, the same verdict on
/// every rank).
std::vector<DimensionData> describe_dimensions(const ArrayLayout& layout, int rank);

/// The descriptor of this process's part of `array`: its dimension
/// dictionaries and its local block (ghosts included) as the buffer, with the
/// array's strides in bytes.  Not collective.  The buffer lives in the
/// array's memory space (device memory for a device array).
template <class T, int Rank, class MemorySpace>
Descriptor describe(const DistArray<T, Rank, MemorySpace>& array) {
  Descriptor d;
  const int rank = array.process_rank();
  d.dim_data = describe_dimensions(array.layout(), rank);
  d.buffer.data = const_cast<void*>(static_cast<const void*>(array.local_view().data()));
  d.buffer.format = ElementFormat<T>::format();
  d.buffer.itemsize = ElementFormat<T>::itemsize();
  const std::vector<Index> extents = array.layout().local_extents(rank);
  for (int i = 0; i < Rank; ++i) {
    d.buffer.shape.push_back(extents[i]);
    d.buffer.strides.push_back(static_cast<std::int64_t>(array.local_view().stride(i)) *
                               d.buffer.itemsize);
  }
  return d;
}

}  // namespace adlib::dap
