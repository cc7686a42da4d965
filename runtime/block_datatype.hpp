// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// MPI derived datatypes for lists of strided blocks (YAXT's and MPI's own
/// answer to packing: the MPI library walks the blocks itself).
///
/// @code
///   Datatype t = blocks_datatype(blocks, element_type, element_size);
///   MPI_Send_init(base, 1, t.get(), ...);   // base: the memory the offsets index
/// @endcode
///
/// The type describes the blocks' elements in message order (block by block,
/// each in C order of its dimensions) at byte displacements offset *
/// element_size from the base address, so its type signature is that of
/// `count` consecutive elements: one end of a message may use it while the
/// other packs into or unpacks from a contiguous buffer.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <utility>
#include <vector>

#include <adlib/runtime/strided_block.hpp>

namespace adlib {

/// Owns a committed MPI datatype; freed on destruction (unless MPI is
/// already finalised, when there is nothing left to free).
class Datatype {
 public:
  Datatype() = default;
  /// Takes ownership of the committed `type`.
  explicit Datatype(MPI_Datatype type) : type_(type) {}
  Datatype(const Datatype&) = delete;
  Datatype& operator=(const Datatype&) = delete;
  /// Takes over `other`'s type; `other` holds MPI_DATATYPE_NULL afterwards.
  Datatype(Datatype&& other) noexcept : type_(std::exchange(other.type_, MPI_DATATYPE_NULL)) {}
  /// Frees the type held so far and takes over `other`'s.
  Datatype& operator=(Datatype&& other) noexcept {
    if (this != &other) {
      reset();
      type_ = std::exchange(other.type_, MPI_DATATYPE_NULL);
    }
    return *this;
  }
  ~Datatype() { reset(); }

  /// The type, MPI_DATATYPE_NULL when none is held.
  MPI_Datatype get() const { return type_; }
  /// Frees the type now (unless MPI is finalised) and holds none.
  void reset();

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// The committed type of `blocks` (non-empty, every extent and the total
/// element count within an MPI int), built from `element` (a type of
/// `element_size` bytes).
Datatype blocks_datatype(const std::vector<StridedBlock>& blocks, MPI_Datatype element,
                         std::size_t element_size);

}  // namespace adlib
