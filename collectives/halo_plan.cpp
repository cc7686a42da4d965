// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/halo_plan.hpp>

#include <algorithm>

#include <adlib/ranges/detail/index_math.hpp>

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

// One linear piece of the boundary map along a dimension: a holder's cell at
// unwrapped global index g in [begin, end) copies the element at
// sign * g + offset.  Segments are disjoint; indices in none of them are not
// filled (edge: outside the domain; mirror: reflected outside it too).
struct Segment {
  Index begin, end, sign, offset;
};

std::vector<Segment> segments(const HaloWidths& halo, int d, Index n) {
  std::vector<Segment> out;
  if (n == 0) return out;
  if (halo.modes[d] == Boundary::cyclic) {
    // Every wrap that a ghost region of widths low / high can reach.
    using detail::index_math::ceil_div;
    for (Index k = -ceil_div(halo.low[d], n); k <= ceil_div(halo.high[d], n); ++k)
      out.push_back({k * n, (k + 1) * n, 1, -k * n});
  } else if (halo.modes[d] == Boundary::mirror) {
    out.push_back({-(n - 1), 0, -1, 0});           // -k copies k
    out.push_back({0, n, 1, 0});                   // the domain itself
    out.push_back({n, 2 * n - 1, -1, 2 * n - 2});  // n-1+k copies n-1-k
  } else {
    out.push_back({0, n, 1, 0});
  }
  return out;
}

// Unwrapped indices of `seg` that copy an element of [begin, end).
Interval preimage(const Segment& seg, const Interval& source) {
  Interval g = seg.sign > 0 ? Interval{source.begin - seg.offset, source.end - seg.offset}
                            : Interval{seg.offset - source.end + 1, seg.offset - source.begin + 1};
  return Interval{std::max(g.begin, seg.begin), std::min(g.end, seg.end)};
}

// The elements that the unwrapped indices [a, b) of `seg` copy.
Interval image(const Segment& seg, Index a, Index b) {
  a = std::max(a, seg.begin);
  b = std::min(b, seg.end);
  if (a >= b) return Interval{0, 0};
  return seg.sign > 0 ? Interval{a + seg.offset, b + seg.offset}
                      : Interval{seg.offset - b + 1, seg.offset - a + 1};
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
  const Index gl = range.ghost_low(), wl = halo.low[d], wh = halo.high[d];
  const Interval owner = range.owned_interval(o), holder = range.owned_interval(h);
  if (owner.count() == 0) return out;
  struct Span {
    Region region;
    Index begin, end, local;  // unwrapped global [begin, end) at local position `local`
  };
  const Span spans[3] = {{Region::low, holder.begin - wl, holder.begin, gl - wl},
                         {Region::owned, holder.begin, holder.end, gl},
                         {Region::high, holder.end, holder.end + wh, gl + holder.count()}};
  const std::vector<Segment> segs = segments(halo, d, range.extent());
  for (const Span& span : spans)
    for (const Segment& seg : segs) {
      const Interval pre = preimage(seg, owner);
      const Index a = std::max(span.begin, pre.begin), b = std::min(span.end, pre.end);
      if (a >= b) continue;
      const Index source = seg.sign * a + seg.offset;
      out.push_back({span.region, b - a, gl + (source - owner.begin), seg.sign,
                     span.local + (a - span.begin), 1});
    }
  std::sort(out.begin(), out.end(), [](const HaloPiece& x, const HaloPiece& y) {
    return x.region != y.region ? x.region < y.region : x.holder_local < y.holder_local;
  });
  return out;
}

// Coordinates c along the range whose interval [start, end) satisfies
// start - below < b and end + above > a: the holders whose ghost-widened
// interval meets [a, b), or (below = above = 0) the owners of elements in
// [a, b).  Binary search on the intervals, which follow each other.
// The first coordinate of [0, P) for which `holds` is true, where `holds`
// is false and then true along the coordinates (binary search).
template <class Predicate>
int first_coordinate(int P, Predicate holds) {
  int lo = 0, hi = P;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (holds(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

void coords_meeting(const Range& r, Index a, Index b, Index below, Index above,
                    std::vector<int>& coords) {
  const int P = r.process_count();
  const int first = first_coordinate(P, [&](int c) { return r.owned_interval(c).end + above > a; });
  const int past =
      first_coordinate(P, [&](int c) { return r.owned_interval(c).begin - below >= b; });
  for (int c = first; c < past; ++c) coords.push_back(c);
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
    const Range& r = layout.range(d);
    const Index wl = halo.low[d], wh = halo.high[d];
    const Interval mine = r.owned_interval(me);
    for (const Segment& seg : segments(halo, d, r.extent())) {
      if (owning) {
        // Holders whose [start - wl, end + wh) meets the indices copying mine.
        const Interval pre = preimage(seg, mine);
        if (pre.begin < pre.end) coords_meeting(r, pre.begin, pre.end, wl, wh, candidates);
      } else {
        // Owners of the elements my [start - wl, end + wh) copies.
        const Interval img = image(seg, mine.begin - wl, mine.end + wh);
        if (img.begin < img.end) coords_meeting(r, img.begin, img.end, 0, 0, candidates);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  for (int c : candidates) {
    auto pieces =
        owning ? pieces_between(layout, halo, d, me, c) : pieces_between(layout, halo, d, c, me);
    if (!pieces.empty()) out.emplace_back(c, std::move(pieces));
  }
  return out;
}

void plan_side(const ArrayLayout& layout, const HaloWidths& halo, int me, bool owning,
               std::vector<PeerBlock>& out) {
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
      PeerBlock pb;
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
    if (!r.contiguous())
      return "dimension " + std::to_string(d) + " (" + r.describe() + ") has no ghost cells";
    if (halo.modes[d] == Boundary::cyclic && !r.periodic())
      return "a cyclic boundary" + where + " needs a periodic range, not " + r.describe();
  }
  return {};
}

ExchangePlan plan_write_halo(const ArrayLayout& layout, const HaloWidths& halo, int me) {
  ExchangePlan plan;
  plan_side(layout, halo, me, /*owning=*/true, plan.sends);
  plan_side(layout, halo, me, /*owning=*/false, plan.recvs);
  return plan;
}

}  // namespace adlib
