// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/unstructured_range.hpp>

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>

#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {

constexpr const char* kOperation = "UnstructuredRange";

std::uint64_t hash_list(const std::vector<Index>& indices) {
  std::uint64_t h = detail::hash_start();
  for (const Index g : indices) h = detail::hash_mix(h, static_cast<std::uint64_t>(g));
  return h;
}

// Does the calling rank register its coordinate's list in the directory?
// One process per coordinate does: the one whose coordinates along the
// grid's other axes are all 0 (replicas hold the same list).
bool registers(const ProcessGrid& grid, int axis, int rank) {
  if (!grid.contains(rank)) return false;
  const std::vector<int> at = grid.coordinates(rank);
  for (int a = 0; a < static_cast<int>(at.size()); ++a)
    if (a != axis && at[static_cast<std::size_t>(a)] != 0) return false;
  return true;
}

}  // namespace

UnstructuredRange::UnstructuredRange(Index extent, const Dimension& dim, std::vector<Index> indices,
                                     Holding holding)
    : Range(extent, dim), indices_(std::move(indices)), holding_(holding) {
  const ProcessGrid& grid = dim.grid();
  const Comm& comm = grid.comm();
  const int me = comm.rank(), coordinates = dim.size();
  coord_ = grid.contains(me) ? grid.coordinate(me, dim.axis()) : -1;

  std::string error;
  if (coord_ < 0 && !indices_.empty())
    error = "a process outside the range's grid passes " + std::to_string(indices_.size()) +
            " indices (it holds none)";
  for (std::size_t l = 0; l < indices_.size() && error.empty(); ++l)
    if (indices_[l] < 0 || indices_[l] >= extent)
      error = "index " + std::to_string(indices_[l]) + " at local position " + std::to_string(l) +
              " is outside 0.." + std::to_string(extent - 1);
  if (error.empty()) error = distinct_ids_error(indices_, "this process's index list");
  if (error.empty() && holding != Holding::one_to_one && holding != Holding::shared)
    error =
        "holding is " + std::to_string(static_cast<int>(holding)) + ", not one of adlib::Holding's";

  // One reduction (maximum) shares every coordinate's count and list hash,
  // each with its negation so that replicas that differ show up, and
  // agrees on the verdict, the extent and the holding.
  const std::size_t tail = 4 * static_cast<std::size_t>(coordinates);
  std::vector<std::int64_t> mine(tail + 5, LLONG_MIN), all(tail + 5);
  if (coord_ >= 0) {
    const auto c = 4 * static_cast<std::size_t>(coord_);
    const auto count = static_cast<std::int64_t>(indices_.size());
    const auto hash = static_cast<std::int64_t>(hash_list(indices_) >> 1);
    mine[c] = count;
    mine[c + 1] = -count;
    mine[c + 2] = hash;
    mine[c + 3] = -hash;
  }
  mine[tail] = error.empty() ? 0 : 1;
  mine[tail + 1] = extent;
  mine[tail + 2] = -extent;
  mine[tail + 3] = static_cast<std::int64_t>(holding);
  mine[tail + 4] = -static_cast<std::int64_t>(holding);
  ADLIB_MPI(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_INT64_T,
                          MPI_MAX, comm.get()),
            kOperation);
  if (all[tail] != 0) agree_on_errors(comm, error, 0, kOperation);
  if (all[tail + 1] != -all[tail + 2] || all[tail + 3] != -all[tail + 4])
    throw Error("the extent or the holding differs between ranks", me, kOperation);

  counts_.resize(static_cast<std::size_t>(coordinates));
  Index total = 0;
  std::uint64_t fingerprint = detail::hash_start();
  for (int c = 0; c < coordinates; ++c) {
    const auto at = 4 * static_cast<std::size_t>(c);
    if (all[at] != -all[at + 1] || all[at + 2] != -all[at + 3])
      throw Error("the processes at coordinate " + std::to_string(c) +
                      " pass different index lists (replicas along the grid's other axes must "
                      "pass the same list)",
                  me, kOperation);
    counts_[static_cast<std::size_t>(c)] = all[at];
    total += all[at];
    fingerprint =
        detail::hash_mix(detail::hash_mix(fingerprint, static_cast<std::uint64_t>(all[at])),
                         static_cast<std::uint64_t>(all[at + 2]));
  }
  lists_fingerprint_ = fingerprint;
  if (holding == Holding::one_to_one && total != extent)
    throw Error("the lists hold " + std::to_string(total) +
                    " indices together; a one-to-one range of extent " + std::to_string(extent) +
                    " holds each index exactly once",
                me, kOperation);

  // Duplicates across coordinates (one-to-one) are the directory's error.
  directory_ = std::make_shared<const Directory>(
      comm, registers(grid, dim.axis(), me) ? indices_ : std::vector<Index>{}, holding, kOperation);

  by_global_.reserve(indices_.size());
  for (std::size_t l = 0; l < indices_.size(); ++l)
    by_global_.emplace_back(indices_[l], static_cast<Index>(l));
  std::sort(by_global_.begin(), by_global_.end());
}

Index UnstructuredRange::local_count(int coord) const {
  check_coord(coord, "local_count");
  return counts_[static_cast<std::size_t>(coord)];
}

void UnstructuredRange::owned_blocks(int coord, const Triplet& section, Index first, Index last,
                                     std::vector<Block>& out) const {
  if (coord != coord_)
    throw Error("an UnstructuredRange knows the indices of its own coordinate (" +
                    std::to_string(coord_) + ") only, not those of coordinate " +
                    std::to_string(coord),
                -1, "UnstructuredRange::owned_blocks");
  // (position in the section, local position), by position.
  std::vector<std::pair<Index, Index>> held;
  const Index count = section.count();
  for (std::size_t l = 0; l < indices_.size(); ++l) {
    const Index distance = indices_[l] - section.lo;
    if (distance % section.stride != 0) continue;
    const Index p = distance / section.stride;
    if (p < 0 || p >= count || p < first || p > last) continue;
    held.emplace_back(p, static_cast<Index>(l));
  }
  std::sort(held.begin(), held.end());
  for (const auto& [p, l] : held) out.push_back(Block{1, section.at(p), section.stride, l, 1});
}

void UnstructuredRange::owners(const Triplet&, std::vector<int>&) const {
  throw Error(
      "an UnstructuredRange finds the owners of other processes' indices with the "
      "collective locate()",
      -1, "UnstructuredRange::owners");
}

Owner UnstructuredRange::owner(Index global) const {
  check_global(global, "owner");
  const auto it =
      std::lower_bound(by_global_.begin(), by_global_.end(), std::make_pair(global, Index(-1)));
  if (it == by_global_.end() || it->first != global)
    throw Error("global index " + std::to_string(global) +
                    " is not held by this process; other processes' indices are found with the "
                    "collective locate()",
                -1, "UnstructuredRange::owner");
  return {coord_, it->second};
}

Index UnstructuredRange::global_index(int coord, Index local) const {
  if (coord != coord_ || local < 0 || local >= static_cast<Index>(indices_.size()))
    throw Error("local position " + std::to_string(local) + " of coordinate " +
                    std::to_string(coord) + " is not one this process holds",
                -1, "UnstructuredRange::global_index");
  return indices_[static_cast<std::size_t>(local)];
}

LocalMap UnstructuredRange::local_map(int) const {
  throw Error("an UnstructuredRange has no closed-form local map (its indices are a list)", -1,
              "UnstructuredRange::local_map");
}

dap::DimensionData UnstructuredRange::dap_dimension(int coord) const {
  dap::DimensionData out;
  out.dist_type = 'u';
  out.size = extent();
  out.proc_grid_size = process_count();
  out.proc_grid_rank = coord;
  out.indices.assign(indices().begin(), indices().end());
  out.one_to_one = holding() == Holding::one_to_one;
  return out;
}

std::string UnstructuredRange::describe() const {
  char lists[17];
  std::snprintf(lists, sizeof lists, "%016llx",
                static_cast<unsigned long long>(lists_fingerprint_));
  return "unstructured(" + describe_common() +
         (holding_ == Holding::shared ? ", shared" : ", one-to-one") + ", lists " + lists + ")";
}

std::vector<Owner> UnstructuredRange::locate(const std::vector<Index>& globals) const {
  const ProcessGrid& grid = dimension()->grid();
  const Comm& comm = grid.comm();
  const std::vector<IdLocation> where = directory_->locate(globals);
  std::string error;
  std::vector<Owner> owners(globals.size());
  for (std::size_t k = 0; k < globals.size(); ++k) {
    if (where[k].rank < 0) {
      if (error.empty())
        error = globals[k] >= extent()
                    ? "global index " + std::to_string(globals[k]) + " outside 0.." +
                          std::to_string(extent() - 1)
                    : "global index " + std::to_string(globals[k]) + " is held by no process";
      continue;
    }
    owners[k] = {grid.coordinate(where[k].rank, dimension()->axis()), where[k].position};
  }
  agree_on_errors(comm, error, 0, "UnstructuredRange::locate");
  return owners;
}

}  // namespace adlib
