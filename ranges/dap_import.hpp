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
/// starts are BlockRange's, else irregular block, with ghosts(low, high) and
/// periodic from the padding (the end paddings are the ghost cells outside
/// the domain, so N = size - low - high); 'c' -> cyclic (no block_size key)
/// or block-cyclic, with the source the starts encode; 'u' -> an
/// UnstructuredRange.  The grid has one axis per non-empty dictionary.
/// Padding that differs between interior processes is valid DAP but no adlib
/// ghost width: that is an adlib::Error too.
#pragma once

#include <string>

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

/// Collective: the ArrayLayout that `descriptor` describes over `comm`
/// (validate first; ranges as in the file overview).
ArrayLayout import_layout(const Descriptor& descriptor, const Comm& comm,
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
  const ArrayLayout layout = import_layout(descriptor, comm, error);
  return DistArray<T, Rank, MemorySpace>::wrap(layout, static_cast<T*>(b.data), strides);
}

}  // namespace adlib::dap
