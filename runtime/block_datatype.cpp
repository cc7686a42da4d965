// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/block_datatype.hpp>

#include <climits>
#include <string>

#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {

constexpr const char* kOperation = "blocks_datatype";

// One block as nested vectors, innermost dimension first; the element type
// itself for a single element.  The result is not committed (it only builds
// the message type) and is owned by the caller when `owned` is set.
MPI_Datatype block_type(const StridedBlock& block, MPI_Datatype element, std::size_t element_size,
                        bool& owned) {
  MPI_Datatype type = element;
  owned = false;
  for (int d = block.rank - 1; d >= 0; --d) {
    if (block.extents[d] > INT_MAX)
      throw Error("a block extent of " + std::to_string(block.extents[d]) + " exceeds an MPI count",
                  -1, kOperation);
    const int extent = static_cast<int>(block.extents[d]);
    MPI_Datatype next;
    if (d == block.rank - 1 && block.strides[d] == 1) {
      ADLIB_MPI(MPI_Type_contiguous(extent, type, &next), kOperation);
    } else {
      const auto stride =
          static_cast<MPI_Aint>(block.strides[d]) * static_cast<MPI_Aint>(element_size);
      ADLIB_MPI(MPI_Type_create_hvector(extent, 1, stride, type, &next), kOperation);
    }
    if (owned) ADLIB_MPI(MPI_Type_free(&type), kOperation);
    type = next;
    owned = true;
  }
  return type;
}

}  // namespace

void Datatype::reset() {
  if (type_ == MPI_DATATYPE_NULL) return;
  int finalized = 0;
  ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
  if (!finalized) ADLIB_MPI_CLEANUP(MPI_Type_free(&type_));
  type_ = MPI_DATATYPE_NULL;
}

Datatype blocks_datatype(const std::vector<StridedBlock>& blocks, MPI_Datatype element,
                         std::size_t element_size) {
  if (blocks.empty()) throw Error("no blocks to describe", -1, kOperation);
  if (blocks.size() > static_cast<std::size_t>(INT_MAX))
    throw Error("too many blocks for one MPI datatype", -1, kOperation);
  std::vector<MPI_Datatype> types;
  std::vector<char> owned;
  std::vector<MPI_Aint> displacements;
  types.reserve(blocks.size());
  auto free_parts = [&] {
    for (std::size_t k = 0; k < types.size(); ++k)
      if (owned[k]) ADLIB_MPI_CLEANUP(MPI_Type_free(&types[k]));
  };
  MPI_Datatype message = MPI_DATATYPE_NULL;
  try {
    for (const StridedBlock& b : blocks) {
      bool block_owned = false;
      types.push_back(block_type(b, element, element_size, block_owned));
      owned.push_back(block_owned ? 1 : 0);
      displacements.push_back(static_cast<MPI_Aint>(b.offset) *
                              static_cast<MPI_Aint>(element_size));
    }
    const std::vector<int> lengths(blocks.size(), 1);
    ADLIB_MPI(MPI_Type_create_struct(static_cast<int>(blocks.size()), lengths.data(),
                                     displacements.data(), types.data(), &message),
              kOperation);
    ADLIB_MPI(MPI_Type_commit(&message), kOperation);
  } catch (...) {
    free_parts();
    if (message != MPI_DATATYPE_NULL) ADLIB_MPI_CLEANUP(MPI_Type_free(&message));
    throw;
  }
  // A derived type keeps what it needs of its parts: they can go now.
  free_parts();
  return Datatype(message);
}

}  // namespace adlib
