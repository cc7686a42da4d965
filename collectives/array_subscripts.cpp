// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/array_subscripts.hpp>

#include <algorithm>
#include <array>
#include <utility>

namespace adlib {

namespace {

// The rank serving each owning coordinate tuple, remembered in a small
// direct-mapped table (fixed size, nothing of the size of the process count),
// because ArrayLayout::replica builds coordinate vectors on every call and
// subscripts revisit the same few owners.
class ServerTable {
 public:
  static constexpr int max_rank = 8;  // DistArray ranks
  using Coords = std::array<int, max_rank>;

  template <class Compute>
  int get(const Coords& coords, Compute compute) {
    std::uint64_t h = 1469598103934665603ull;
    for (int c : coords) h = (h ^ static_cast<std::uint64_t>(c)) * 1099511628211ull;
    Entry& e = entries_[h % entries_.size()];
    if (!e.used || e.coords != coords) e = {true, coords, compute(coords)};
    return e.rank;
  }

 private:
  struct Entry {
    bool used = false;
    Coords coords{};
    int rank = -1;
  };
  std::array<Entry, 1024> entries_{};
};

std::vector<int> to_vector(const ServerTable::Coords& coords, int rank) {
  return std::vector<int>(coords.begin(), coords.begin() + rank);
}

// Does `me` hold the elements whose owners along each dimension are `coords`?
bool holds(const ArrayLayout& layout, const ServerTable::Coords& coords, int me) {
  if (!layout.holds_data(me)) return false;
  for (int d = 0; d < layout.rank(); ++d)
    if (layout.coordinate(me, d) != coords[static_cast<std::size_t>(d)]) return false;
  return true;
}

std::string position_text(const std::vector<Index>& position) {
  std::string s = "(";
  for (std::size_t d = 0; d < position.size(); ++d)
    s += (d ? ", " : "") + std::to_string(position[d]);
  return s + ")";
}

}  // namespace

std::string check_array_arguments(const ArrayLayout& indexed, const ArrayLayout& aligned,
                                  const std::vector<ArrayLayout>& subscripts,
                                  const ArrayLayout* mask, int me, const char* what) {
  if (static_cast<int>(subscripts.size()) != indexed.rank())
    return std::to_string(subscripts.size()) + " subscript arrays for an indexed array of rank " +
           std::to_string(indexed.rank());
  const std::string want = aligned.describe_distribution();
  for (std::size_t d = 0; d < subscripts.size(); ++d)
    if (subscripts[d].describe_distribution() != want)
      return "subscript array " + std::to_string(d) + " has layout " +
             subscripts[d].describe_distribution() + " but the " + what + " has " + want;
  if (mask && mask->describe_distribution() != want)
    return "the mask has layout " + mask->describe_distribution() + " but the " + what + " has " +
           want;
  if (indexed.rank() > 1 && indexed.holds_data(me) &&
      indexed.storage_extents(me) != indexed.local_extents(me))
    return "rank " + std::to_string(me) +
           ": the indexed array is padded; arrays of rank > 1 addressed by subscripts must be "
           "packed (their owners' offsets are computed by the requesting ranks)";
  return {};
}

std::vector<std::unordered_map<Index, Owner>> locate_subscript_owners(const ArrayLayout& indexed,
                                                                      const ArrayLayout& aligned,
                                                                      const HostSubscripts& held,
                                                                      int me, bool take_part) {
  const int rank = indexed.rank(), aligned_rank = aligned.rank();
  std::vector<std::vector<Index>> globals(static_cast<std::size_t>(rank));
  std::vector<std::vector<std::pair<Index, Index>>> axes;
  bool any = take_part && aligned.holds_data(me);
  for (int d = 0; d < aligned_rank && any; ++d) {
    axes.push_back(aligned.held_along(me, d));
    any = !axes.back().empty();
  }
  // Every held element, C order, as resolve_array_subscripts walks them.
  std::vector<std::size_t> at(static_cast<std::size_t>(aligned_rank), 0);
  while (any) {
    Index mask_offset = 0;
    for (int a = 0; a < aligned_rank && held.mask; ++a)
      mask_offset += axes[a][at[a]].second * held.mask_strides[a];
    if (!held.mask || held.mask[mask_offset])
      for (int d = 0; d < rank; ++d) {
        Index offset = 0;
        for (int a = 0; a < aligned_rank; ++a) offset += axes[a][at[a]].second * held.strides[d][a];
        const Index s = held.data[d][offset];
        if (s >= 0 && s < indexed.extent(d))
          globals[static_cast<std::size_t>(d)].push_back(indexed.section_triplet(d).at(s));
      }
    int a = aligned_rank - 1;
    for (; a >= 0; --a) {
      if (++at[a] < axes[a].size()) break;
      at[a] = 0;
    }
    if (a < 0) break;
  }
  std::vector<std::unordered_map<Index, Owner>> located(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    auto& wanted = globals[static_cast<std::size_t>(d)];
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    const std::vector<Owner> owners = indexed.range(d).locate(wanted);  // every rank calls
    auto& map = located[static_cast<std::size_t>(d)];
    map.reserve(wanted.size());
    for (std::size_t k = 0; k < wanted.size(); ++k) map.emplace(wanted[k], owners[k]);
  }
  return located;
}

ResolvedSubscripts resolve_array_subscripts(
    const ArrayLayout& indexed, const ArrayLayout& aligned, const HostSubscripts& held, int me,
    RemoteAccess access, const std::vector<std::unordered_map<Index, Owner>>& located) {
  ResolvedSubscripts out;
  const int rank = indexed.rank(), aligned_rank = aligned.rank();
  if (!aligned.holds_data(me)) return out;
  // A scatter from a replicated source: only replica 0 of each element
  // contributes.  Replicas differ only along the replicated axes, so the
  // answer is the same for every element of this rank.
  if (access == RemoteAccess::write && aligned.replica_count() > 1) {
    std::vector<int> mine(static_cast<std::size_t>(aligned_rank));
    for (int d = 0; d < aligned_rank; ++d) mine[d] = aligned.coordinate(me, d);
    if (aligned.replica(mine, 0) != me) return out;
  }

  std::vector<std::vector<std::pair<Index, Index>>> axes;
  for (int d = 0; d < aligned_rank; ++d) {
    axes.push_back(aligned.held_along(me, d));
    if (axes.back().empty()) return out;
  }
  const std::vector<Index> strides = aligned.local_strides(me);

  std::vector<Index> extent(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) extent[d] = indexed.extent(d);
  const long long replicas = access == RemoteAccess::write ? indexed.replica_count() : 1;
  ServerTable servers;
  const auto serve = [&](const ServerTable::Coords& c) {
    if (holds(indexed, c, me)) return me;
    return indexed.replica(to_vector(c, rank), me % indexed.replica_count());
  };
  const auto first_replica = [&](const ServerTable::Coords& c) {
    return indexed.replica(to_vector(c, rank), 0);
  };

  std::vector<std::size_t> at(static_cast<std::size_t>(aligned_rank), 0);
  ServerTable::Coords coords{};
  while (true) {
    Index local = 0, mask_offset = 0;
    for (int d = 0; d < aligned_rank; ++d) {
      local += axes[d][at[d]].second * strides[d];
      if (held.mask) mask_offset += axes[d][at[d]].second * held.mask_strides[d];
    }
    if (!held.mask || held.mask[mask_offset]) {
      // The indexed element: owner coordinates and its offset in the owner's
      // (packed) local memory, built from the last dimension up.
      Index owner_offset = 0, scale = 1;
      for (int d = rank - 1; d >= 0; --d) {
        Index offset = 0;
        for (int a = 0; a < aligned_rank; ++a) offset += axes[a][at[a]].second * held.strides[d][a];
        const Index s = held.data[d][offset];
        if (s < 0 || s >= extent[d]) {
          std::vector<Index> position;
          for (int a = 0; a < aligned_rank; ++a) position.push_back(axes[a][at[a]].first);
          out.requests.clear();
          out.error = "subscript " + std::to_string(s) + " of dimension " + std::to_string(d) +
                      " at position " + position_text(position) + " is outside [0, " +
                      std::to_string(extent[d]) + ")";
          return out;
        }
        const Range& range = indexed.range(d);
        const Index global = indexed.section_triplet(d).at(s);
        const Owner o =
            located.empty() ? range.owner(global) : located[static_cast<std::size_t>(d)].at(global);
        coords[static_cast<std::size_t>(d)] = o.coord;
        owner_offset += o.local * scale;
        scale *= range.local_allocation(o.coord);
      }
      if (access == RemoteAccess::read)
        out.requests.push_back({servers.get(coords, serve), owner_offset, local});
      else if (replicas == 1)
        out.requests.push_back({servers.get(coords, first_replica), owner_offset, local});
      else
        for (long long k = 0; k < replicas; ++k)
          out.requests.push_back(
              {indexed.replica(to_vector(coords, rank), k), owner_offset, local});
    }
    int d = aligned_rank - 1;
    for (; d >= 0; --d) {
      if (++at[d] < axes[d].size()) break;
      at[d] = 0;
    }
    if (d < 0) break;
  }
  return out;
}

}  // namespace adlib
