// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::dap::import_array<T, Rank>(descriptor, comm): a DistArray over the
/// memory a DAP descriptor points to, after a collective validation of every
/// rule of the protocol.  Nothing is copied: the array wraps the buffer
/// (DistArray::wrap), and the caller keeps the memory alive.
///
/// @code
///   adlib::dap::Descriptor d = ...;   // from another library, JSON, Python
///   auto a = adlib::dap::import_array<double, 2>(d, adlib::Comm(MPI_COMM_WORLD));
///   adlib::remap(native, a);          // into an adlib-allocated array
/// @endcode
///
/// Collective over `comm`, which holds exactly the processes of the DAP's
/// grid (proc_grid_rank in C order = rank in comm).  Each process first
/// checks what it can alone (dap::local_violation, the element type against
/// T, the strides), the verdict is agreed (agree_on_errors), then the
/// per-dimension summaries of every process are gathered (two
/// MPI_Allgathers of O(P * Rank) integers) and the cross-process rules run
/// identically everywhere.  A broken rule is the same adlib::Error on every
/// rank, naming the rule, the dimension and the rank.
///
/// The Ranges built (docs/dap.md): {} -> collapsed; 'b' -> block when the
/// owned parts are BlockRange's, else irregular block, periodic as the
/// dictionary says, the padding read per dimension (dap_block_padding.hpp):
/// as ghosts(low, high) when one pair of widths holds every process's
/// padding, else as no ghosts, the local block being the part each process
/// owns.  The end paddings are boundary padding, outside adlib's domain, so
/// N = size - low end - high end.  'c' -> cyclic (no block_size key) or
/// block-cyclic, with the source the starts encode; 'u' -> an
/// UnstructuredRange.  The grid has one axis per non-empty dictionary.
///
/// Padding that is not ghost cells stays the producer's: the array is
/// wrapped at the buffer's first owned element (the pointer advanced past
/// the low padding of each such dimension, the strides unchanged), so
/// WriteHalo cannot fill it and Remap neither reads nor writes it.  When a
/// dimension after the first is read so, the last row of local_view() may
/// reach past the buffer's last element (by less than a row), as it does
/// for any wrap of a column slice of a larger array: the View's rows are a
/// whole stride long.  adlib's schedules touch only the local block.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/dap_descriptor.hpp>
#include <adlib/ranges/dap_validation.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/comm.hpp>

namespace adlib::dap {

/// Collective: checks `descriptor` (this process's) against every DAP rule,
/// together with the descriptors of the other processes of `comm`, and with
/// `local_error` (a check of the caller's, e.g. the element type; empty when
/// none).  Throws the same adlib::Error on every rank at the first broken
/// rule (lowest rank first for rules a process checks alone); returns the
/// summaries of every process otherwise.
std::vector<Summary> validate(const Descriptor& descriptor, const Comm& comm,
                              const std::string& local_error = {});

/// What import_layout reads from the descriptors.
struct ImportedLayout {
  /// The distribution the descriptors describe.
  ArrayLayout layout;
  /// Per dimension, the elements of this process's buffer before its local
  /// block: the low padding of a 'b' dimension whose padding is not ghost
  /// cells, 0 otherwise.
  std::vector<Index> buffer_offset;
};

/// Collective: the ArrayLayout that `descriptor` describes over `comm`
/// (validate first; ranges as in the file overview), and where this
/// process's local block lies in its buffer.
ImportedLayout import_layout(const Descriptor& descriptor, const Comm& comm,
                             const std::string& local_error = {});

/// Collective: a DistArray over the memory of `descriptor.buffer` (no copy),
/// after validate().  The buffer must hold T's (format and itemsize), have
/// Rank dimensions, strides that are multiples of the itemsize in C order
/// (DistArray::wrap's rules), and live in MemorySpace.
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
DistArray<T, Rank, MemorySpace> import_array(const Descriptor& descriptor,
                                             const Comm& comm = Comm()) {
  const int rank = comm.rank();
  const Buffer& b = descriptor.buffer;
  std::string error;
  std::array<Index, Rank> strides{};
  const std::string on = "dap::import_array<" + ElementFormat<T>::format() + ", " +
                         std::to_string(Rank) + "> on rank " + std::to_string(rank) + ": ";
  if (static_cast<int>(b.shape.size()) != Rank || static_cast<int>(b.strides.size()) != Rank)
    error = on + "the buffer has " + std::to_string(b.shape.size()) + " dimensions";
  else if (!format_matches(b.format, b.itemsize, ElementFormat<T>::format(),
                           ElementFormat<T>::itemsize()))
    error =
        on + "the buffer holds format '" + b.format + "' of itemsize " + std::to_string(b.itemsize);
  else
    for (int d = 0; d < Rank && error.empty(); ++d) {
      if (b.strides[d] % b.itemsize != 0)
        error = on + "dimension " + std::to_string(d) + ": stride " + std::to_string(b.strides[d]) +
                " bytes is not a multiple of the itemsize " + std::to_string(b.itemsize);
      strides[d] = b.strides[d] / b.itemsize;
    }
  const ImportedLayout imported = import_layout(descriptor, comm, error);
  // The local block starts past the padding that is not ghost cells.  An
  // empty block needs no memory (wrap ignores the pointer, which may be null
  // or the whole buffer may be padding): no offset, so no pointer past the end.
  T* first = static_cast<T*>(b.data);
  const std::vector<Index> block =
      imported.layout.local_extents(imported.layout.group().grid().comm().rank());
  if (std::find(block.begin(), block.end(), Index(0)) == block.end())
    for (int d = 0; d < Rank; ++d) first += imported.buffer_offset[d] * strides[d];
  return DistArray<T, Rank, MemorySpace>::wrap(imported.layout, first, strides);
}

}  // namespace adlib::dap
