// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/halo_plan.hpp>

#include <algorithm>

#include <adlib/ranges/interval_range.hpp>

namespace adlib {

namespace {

enum class Region { low = 0, owned = 1, high = 2 };

// Elements along one dimension that move from an owner to a holder: `count`
// of them, at owner_local + i*owner_step in the owner's memory and
// holder_local + i*holder_step in the holder's.
struct HaloPiece {
  Region region;
  Index count;
  Index owner_local, owner_step;
  Index holder_local, holder_step;
};

bool has_halo(const HaloWidths& halo, int d) {
  return halo.modes[d] != Boundary::skip && (halo.low[d] > 0 || halo.high[d] > 0);
}

// Unwrapping shifts: data at global g appears to a holder at g + k.
std::vector<Index> shifts(const HaloWidths& halo, int d, Index extent) {
  if (halo.modes[d] == Boundary::cyclic) return {-extent, 0, extent};
  return {0};
}

// Pieces between owner coordinate `o` and holder coordinate `h` along d,
// sorted by (region, holder position): the same list on both ends.
std::vector<HaloPiece> pieces_between(const ArrayLayout& layout, const HaloWidths& halo, int d,
                                      int o, int h) {
  std::vector<HaloPiece> out;
  const Range& range = layout.range(d);
  if (!has_halo(halo, d)) {
    // No halo here: only the holder's own elements, in its canonical blocks.
    if (o != h) return out;
    std::vector<Block> blocks;
    range.owned_blocks(o, Triplet::all(range.extent()), blocks);
    for (const Block& b : blocks)
      out.push_back(
          {Region::owned, b.count, b.local_base, b.local_step, b.local_base, b.local_step});
    return out;
  }
  const auto& r = static_cast<const IntervalRange&>(range);
  const Index gl = r.ghost_low(), wl = halo.low[d], wh = halo.high[d];
  const Index s_o = r.block_start(o), e_o = r.block_start(o + 1);
  const Index s_h = r.block_start(h), e_h = r.block_start(h + 1);
  if (s_o == e_o) return out;
  struct Span {
    Region region;
    Index begin, end, local;  // unwrapped global [begin, end) at local position `local`
  };
  const Span spans[3] = {{Region::low, s_h - wl, s_h, gl - wl},
                         {Region::owned, s_h, e_h, gl},
                         {Region::high, e_h, e_h + wh, gl + (e_h - s_h)}};
  for (const Span& span : spans)
    for (Index k : shifts(halo, d, r.extent())) {
      const Index a = std::max(span.begin, s_o + k), b = std::min(span.end, e_o + k);
      if (a >= b) continue;
      out.push_back({span.region, b - a, gl + (a - k - s_o), 1, span.local + (a - span.begin), 1});
    }
  std::sort(out.begin(), out.end(), [](const HaloPiece& x, const HaloPiece& y) {
    return x.region != y.region ? x.region < y.region : x.holder_local < y.holder_local;
  });
  return out;
}

// Coordinates c along d whose interval, shifted by each wrap, meets the
// unwrapped global interval [a, b) widened by `below` / `above`: the
// holders of an owner's interval (widened by the ghost widths) or the owners
// of a holder's regions.  Binary search on the block starts.
std::vector<int> coords_meeting(const IntervalRange& r, const std::vector<Index>& wraps, Index a,
                                Index b, Index below, Index above) {
  const int P = r.process_count();
  std::vector<int> coords;
  for (Index k : wraps) {
    // c with start(c) - below < b + k  and  end(c) + above > a + k.
    int lo = 0, hi = P;  // first c with end(c) + above > a + k
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (r.block_start(mid + 1) + above > a + k)
        hi = mid;
      else
        lo = mid + 1;
    }
    const int first = lo;
    lo = 0;
    hi = P;  // first c with start(c) - below >= b + k
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (r.block_start(mid) - below >= b + k)
        hi = mid;
      else
        lo = mid + 1;
    }
    for (int c = first; c < lo; ++c) coords.push_back(c);
  }
  std::sort(coords.begin(), coords.end());
  coords.erase(std::unique(coords.begin(), coords.end()), coords.end());
  return coords;
}

using PeerPieces = std::vector<std::pair<int, std::vector<HaloPiece>>>;

// For one dimension: the other party's coordinates with the pieces between
// us.  `owning`: I am the owner and look for holders; else the reverse.
PeerPieces dimension_pieces(const ArrayLayout& layout, const HaloWidths& halo, int d, int me,
                            bool owning) {
  PeerPieces out;
  std::vector<int> candidates;
  if (!has_halo(halo, d)) {
    candidates.push_back(me);
  } else {
    const auto& r = static_cast<const IntervalRange&>(layout.range(d));
    const Index wl = halo.low[d], wh = halo.high[d];
    std::vector<Index> wraps = shifts(halo, d, r.extent());
    if (owning) {
      // Holders whose [start - wl, end + wh) meets my interval (shifted).
      candidates = coords_meeting(r, wraps, r.block_start(me), r.block_start(me + 1), wl, wh);
    } else {
      // Owners whose interval, shifted back, meets my [start - wl, end + wh).
      for (Index& k : wraps) k = -k;
      candidates =
          coords_meeting(r, wraps, r.block_start(me) - wl, r.block_start(me + 1) + wh, 0, 0);
    }
  }
  for (int c : candidates) {
    auto pieces =
        owning ? pieces_between(layout, halo, d, me, c) : pieces_between(layout, halo, d, c, me);
    if (!pieces.empty()) out.emplace_back(c, std::move(pieces));
  }
  return out;
}

void plan_side(const ArrayLayout& layout, const HaloWidths& halo, int me, bool owning,
               std::vector<PlannedBlock>& out) {
  if (!layout.holds_data(me)) return;
  const int rank = layout.rank();
  std::vector<PeerPieces> per_dim(rank);
  for (int d = 0; d < rank; ++d) {
    per_dim[d] = dimension_pieces(layout, halo, d, layout.coordinate(me, d), owning);
    if (per_dim[d].empty()) return;
  }
  const ProcessGrid& grid = layout.group().grid();
  const std::vector<Index> strides = layout.local_strides(me);
  std::vector<int> grid_coords = grid.coordinates(me);
  std::vector<size_t> peer(rank, 0), piece(rank, 0);
  auto advance = [rank](std::vector<size_t>& at, auto&& size_of) {
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++at[d] < size_of(d)) break;
      at[d] = 0;
    }
    return d >= 0;
  };
  do {
    // The other party: my grid position with the ranges' axes replaced (the
    // halo stays within my replica of a replicated array).
    for (int d = 0; d < rank; ++d)
      if (const auto& dim = layout.range(d).dimension())
        grid_coords[dim->axis()] = per_dim[d][peer[d]].first;
    const int other = grid.rank_of(grid_coords);
    std::fill(piece.begin(), piece.end(), 0);
    do {
      int ghosts = 0;
      PlannedBlock pb;
      pb.peer = other;
      pb.block.rank = rank;
      for (int d = 0; d < rank; ++d) {
        const HaloPiece& p = per_dim[d][peer[d]].second[piece[d]];
        ghosts += p.region != Region::owned;
        const Index local = owning ? p.owner_local : p.holder_local;
        const Index step = owning ? p.owner_step : p.holder_step;
        pb.block.offset += local * strides[d];
        pb.block.extents[d] = p.count;
        pb.block.strides[d] = step * strides[d];
      }
      if (ghosts >= 1 && (halo.stencil == Stencil::box || ghosts == 1)) out.push_back(pb);
    } while (advance(piece, [&](int d) { return per_dim[d][peer[d]].second.size(); }));
  } while (advance(peer, [&](int d) { return per_dim[d].size(); }));
}

}  // namespace

HaloWidths full_halo(const ArrayLayout& layout) {
  HaloWidths halo;
  for (int d = 0; d < layout.rank(); ++d) {
    const Range& r = layout.range(d);
    halo.low.push_back(r.ghost_low());
    halo.high.push_back(r.ghost_high());
    halo.modes.push_back(r.periodic() ? Boundary::cyclic : Boundary::edge);
  }
  return halo;
}

std::string check_halo(const ArrayLayout& layout, const HaloWidths& halo) {
  const auto rank = static_cast<size_t>(layout.rank());
  if (layout.is_section()) return "a halo exchange needs the whole array, not a section";
  if (halo.low.size() != rank || halo.high.size() != rank || halo.modes.size() != rank)
    return "widths and boundaries must be given for each of the " + std::to_string(rank) +
           " dimensions";
  for (size_t d = 0; d < rank; ++d) {
    const Range& r = layout.range(static_cast<int>(d));
    const std::string where = " in dimension " + std::to_string(d);
    if (halo.low[d] < 0 || halo.high[d] < 0) return "negative halo width" + where;
    if (halo.low[d] > r.ghost_low() || halo.high[d] > r.ghost_high())
      return "halo widths " + std::to_string(halo.low[d]) + "/" + std::to_string(halo.high[d]) +
             where + " exceed the ghost extension " + std::to_string(r.ghost_low()) + "/" +
             std::to_string(r.ghost_high()) + " of " + r.describe();
    if (halo.low[d] + halo.high[d] == 0) continue;
    if (!dynamic_cast<const IntervalRange*>(&r))
      return "dimension " + std::to_string(d) + " (" + r.describe() + ") has no ghost cells";
    if (halo.modes[d] == Boundary::cyclic && !r.periodic())
      return "a cyclic boundary" + where + " needs a periodic range, not " + r.describe();
  }
  return {};
}

RemapPlan plan_write_halo(const ArrayLayout& layout, const HaloWidths& halo, int me) {
  RemapPlan plan;
  plan_side(layout, halo, me, /*owning=*/true, plan.sends);
  plan_side(layout, halo, me, /*owning=*/false, plan.recvs);
  return plan;
}

}  // namespace adlib
