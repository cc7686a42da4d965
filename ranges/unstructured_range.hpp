// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// UnstructuredRange: a dimension whose processes hold explicit lists of
/// global indices (the DAP's 'u' dimension: a mesh's cells by global id, a
/// graph's vertices after partitioning).
///
/// @code
///   adlib::ProcessGrid grid(comm, {comm.size()});
///   // This process holds global indices {17, 3, 8} (its local positions 0, 1, 2).
///   auto cells = std::make_shared<adlib::UnstructuredRange>(n, grid.dim(0), mine);  // collective
///   adlib::DistArray<double, 1> u(grid, {cells});
///   adlib::DistArray<double, 1> x(grid, {adlib::block(n)});
///   adlib::Remap(x, u).execute(x, u);   // negotiated: owners found through the directory
/// @endcode
///
/// No process stores the indices of other processes: a process knows its own
/// list, the number of indices of every coordinate (one count per process of
/// the dimension) and, through a Directory (runtime/directory.hpp, filled at
/// construction), finds the owners of any indices with the collective
/// locate().  So the inquiries that ask about other coordinates
/// (owned_blocks, global_index for another coordinate, owners, local_map) are
/// refused with an adlib::Error, plannable_locally() is false, and Remap and
/// Gather / Scatter plan by negotiation (collectives/negotiated_remap_plan.hpp)
/// instead of by range arithmetic.  Shift and WriteHalo, which enumerate
/// other processes' elements, refuse such layouts on every rank.
///
/// Holding::one_to_one (the default): every index of [0, extent) is held by
/// exactly one coordinate.  Holding::shared: an index may be held by several
/// coordinates (the DAP's one_to_one = False); owner() and locate() answer
/// with the lowest coordinate holding it.
///
/// Construction is collective over the grid's communicator (ranks outside
/// the grid pass an empty list).  Processes at the same coordinate of the
/// dimension (replicas along the grid's other axes) pass the same list.  One
/// MPI_Allreduce of a few words per coordinate checks and shares the counts,
/// then the Directory is filled; an index outside [0, extent), an index twice
/// in one list, lists of one coordinate that differ, or (one-to-one) lists
/// that do not cover [0, extent) exactly once are an adlib::Error on every
/// rank.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <adlib/ranges/range.hpp>
#include <adlib/runtime/directory.hpp>

namespace adlib {

/// A dimension given by explicit index lists per process (see the file
/// overview).
class UnstructuredRange : public Range {
 public:
  /// Collective over dim.grid().comm(): this process's `indices`, in local
  /// order, of a dimension of `extent` indices distributed over `dim`.
  UnstructuredRange(Index extent, const Dimension& dim, std::vector<Index> indices,
                    Holding holding = Holding::one_to_one);

  /// Indices held by coordinate `coord` (known for every coordinate).
  Index local_count(int coord) const override;
  using Range::owned_blocks;
  /// This process's coordinate only (an adlib::Error for another): one
  /// block per element, in increasing position.
  void owned_blocks(int coord, const Triplet& section, Index first, Index last,
                    std::vector<Block>& out) const override;
  /// Not answerable without communication: an adlib::Error (use locate()).
  void owners(const Triplet& indices, std::vector<int>& coords) const override;
  /// The owner of an index this process holds (an adlib::Error for another:
  /// use locate()).
  Owner owner(Index global) const override;
  /// This process's coordinate only.
  Index global_index(int coord, Index local) const override;
  /// No closed form: an adlib::Error.
  LocalMap local_map(int coord) const override;
  /// Kind, extent, holding, dimension and a fingerprint of every list (the
  /// same on every process).
  /// 'u': this process's indices, in local order, and `one_to_one`.
  dap::DimensionData dap_dimension(int coord) const override;
  std::string describe() const override;
  /// False: other processes' indices are found with locate().
  bool plannable_locally() const override { return false; }
  /// Collective over the grid's communicator, through the directory.
  std::vector<Owner> locate(const std::vector<Index>& globals) const override;

  /// This process's indices, in local order (empty outside the grid).
  const std::vector<Index>& indices() const { return indices_; }
  /// This process's coordinate along the dimension (-1 outside the grid).
  int coordinate() const { return coord_; }
  /// One-to-one or shared.
  Holding holding() const { return holding_; }

 private:
  std::vector<Index> indices_;
  std::vector<std::pair<Index, Index>> by_global_;  ///< (global, local), sorted: owner()
  std::vector<Index> counts_;                       ///< per coordinate
  std::shared_ptr<const Directory> directory_;      ///< holders are comm ranks
  std::uint64_t lists_fingerprint_ = 0;
  int coord_ = -1;
  Holding holding_;
};

}  // namespace adlib
