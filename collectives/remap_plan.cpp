// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/remap_plan.hpp>

#include <algorithm>
#include <map>
#include <optional>

#include <adlib/ranges/detail/index_math.hpp>

namespace adlib {

using namespace detail::index_math;

namespace {

// An arithmetic progression of section positions held at local positions.
struct Run {
  Index first = 0, step = 1, count = 0;
  Index local = 0, local_step = 1;
  Index last() const { return first + (count - 1) * step; }
};

// Positions shared by one of my runs and one of a peer's runs, with where
// they sit in *my* local memory.
struct Piece {
  Index first = 0, count = 0;
  Index local = 0, local_step = 1;
};

void runs_of(const Range& range, int coord, const Triplet& section, Index first, Index last,
             std::vector<Block>& scratch, std::vector<Run>& out) {
  out.clear();
  scratch.clear();
  range.owned_blocks(coord, section, first, last, scratch);
  for (const Block& b : scratch)
    out.push_back(Run{(b.global_base - section.lo) / section.stride,
                      b.count > 1 ? b.global_step / section.stride : 1, b.count, b.local_base,
                      b.count > 1 ? b.local_step : 1});
}

// The common positions of `mine` and `theirs`, located in my memory.
std::optional<Piece> intersect(const Run& mine, const Run& theirs) {
  const Index lo = std::max(mine.first, theirs.first);
  const Index hi = std::min(mine.last(), theirs.last());
  if (lo > hi) return std::nullopt;
  Index x, step;
  if (mine.step == 1 && theirs.step == 1) {
    x = lo;
    step = 1;
  } else {
    // x = mine.first (mod mine.step), x = theirs.first (mod theirs.step).
    const Index g = gcd(mine.step, theirs.step);
    const Index diff = theirs.first - mine.first;
    if (floor_mod(diff, g) != 0) return std::nullopt;
    const Index m = theirs.step / g;
    const Index t = mul_mod(floor_mod(diff / g, m), inverse_mod(mine.step / g, m), m);
    x = mine.first + mine.step * t;
    const Wide lcm = static_cast<Wide>(mine.step / g) * theirs.step;
    if (lcm > hi - lo) {
      // At most one common position in [lo, hi].
      if (x < lo) x += static_cast<Index>(lcm * ((lo - x + lcm - 1) / lcm));
      if (x > hi) return std::nullopt;
      return Piece{x, 1, mine.local + (x - mine.first) / mine.step * mine.local_step, 1};
    }
    step = static_cast<Index>(lcm);
    if (x < lo) x += ceil_div(lo - x, step) * step;
  }
  if (x > hi) return std::nullopt;
  const Index count = (hi - x) / step + 1;
  return Piece{x, count, mine.local + (x - mine.first) / mine.step * mine.local_step,
               count > 1 ? step / mine.step * mine.local_step : 1};
}

// For one dimension: the pieces my runs share with each coordinate of the
// other layout's range, sorted by coordinate, pieces sorted by position.
using PeerPieces = std::vector<std::pair<int, std::vector<Piece>>>;

PeerPieces dimension_pieces(const Range& mine, int my_coord, const Triplet& my_section,
                            const Range& other, const Triplet& other_section) {
  std::vector<Block> scratch;
  std::vector<Run> my_runs, their_runs;
  runs_of(mine, my_coord, my_section, 0, my_section.count() - 1, scratch, my_runs);
  std::map<int, std::vector<Piece>> by_coord;
  std::vector<int> coords;
  for (const Run& r : my_runs) {
    coords.clear();
    other.owners(other_section.positions(r.first, r.step, r.count), coords);
    for (int c : coords) {
      runs_of(other, c, other_section, r.first, r.last(), scratch, their_runs);
      for (const Run& t : their_runs)
        if (auto p = intersect(r, t)) by_coord[c].push_back(*p);
    }
  }
  PeerPieces out;
  for (auto& [c, pieces] : by_coord) {
    std::sort(pieces.begin(), pieces.end(),
              [](const Piece& a, const Piece& b) { return a.first < b.first; });
    out.emplace_back(c, std::move(pieces));
  }
  return out;
}

// The replica of the source elements owned at `coords` that serves `receiver`:
// the receiver itself when it holds a copy, else replica number (receiver mod
// replicas) in the order of ranks_holding().  Computed from coordinates, not
// by listing the replicas: a source may be replicated over most of the
// processes, and the sending side asks once per receiver.
int sender_for(const ArrayLayout& src, const std::vector<int>& coords, int receiver) {
  if (src.holds_data(receiver)) {
    bool same = true;
    for (int d = 0; d < src.rank() && same; ++d) same = src.coordinate(receiver, d) == coords[d];
    if (same) return receiver;
  }
  return src.replica(coords, receiver % src.replica_count());
}

// Appends the blocks of one message: the product of one piece list per
// dimension, lexicographic, each product one strided block of my memory.
void emit_blocks(int peer, const std::vector<const std::vector<Piece>*>& pieces,
                 const std::vector<Index>& strides, std::vector<PeerBlock>& out) {
  const int rank = static_cast<int>(pieces.size());
  std::vector<size_t> at(rank, 0);
  while (true) {
    PeerBlock pb;
    pb.peer = peer;
    pb.block.rank = rank;
    for (int d = 0; d < rank; ++d) {
      const Piece& p = (*pieces[d])[at[d]];
      pb.block.offset += p.local * strides[d];
      pb.block.extents[d] = p.count;
      pb.block.strides[d] = p.local_step * strides[d];
    }
    out.push_back(pb);
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++at[d] < pieces[d]->size()) break;
      at[d] = 0;
    }
    if (d < 0) return;
  }
}

// One side of the plan: `mine` is the layout whose local memory the blocks
// address (source when sending, destination when receiving).
void plan_side(const ArrayLayout& mine, const ArrayLayout& other, int me, bool sending,
               const ArrayLayout& src, std::vector<PeerBlock>& out) {
  if (!mine.holds_data(me)) return;
  const int rank = mine.rank();
  std::vector<PeerPieces> per_dim(rank);
  std::vector<int> my_coords(rank);
  for (int d = 0; d < rank; ++d) {
    my_coords[d] = mine.coordinate(me, d);
    per_dim[d] = dimension_pieces(mine.range(d), my_coords[d], mine.section_triplet(d),
                                  other.range(d), other.section_triplet(d));
    if (per_dim[d].empty()) return;
  }
  const std::vector<Index> strides = mine.local_strides(me);
  std::vector<size_t> at(rank, 0);
  std::vector<int> coords(rank);
  std::vector<const std::vector<Piece>*> pieces(rank);
  while (true) {
    for (int d = 0; d < rank; ++d) {
      coords[d] = per_dim[d][at[d]].first;
      pieces[d] = &per_dim[d][at[d]].second;
    }
    if (sending) {
      for (int receiver : other.ranks_holding(coords))
        if (sender_for(src, my_coords, receiver) == me) emit_blocks(receiver, pieces, strides, out);
    } else {
      emit_blocks(sender_for(src, coords, me), pieces, strides, out);
    }
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++at[d] < per_dim[d].size()) break;
      at[d] = 0;
    }
    if (d < 0) return;
  }
}

std::string shape_text(const ArrayLayout& a) {
  std::string s = "[";
  for (int d = 0; d < a.rank(); ++d) s += (d ? "," : "") + std::to_string(a.extent(d));
  return s + "]";
}

}  // namespace

std::string check_remap_layouts(const ArrayLayout& dst, const ArrayLayout& src) {
  if (dst.rank() != src.rank())
    return "destination has rank " + std::to_string(dst.rank()) + ", source rank " +
           std::to_string(src.rank());
  for (int d = 0; d < dst.rank(); ++d)
    if (dst.extent(d) != src.extent(d))
      return "shape mismatch: destination " + shape_text(dst) + ", source " + shape_text(src);
  const ProcessGrid &dg = dst.group().grid(), &sg = src.group().grid();
  if (dg.has_comm() != sg.has_comm() || (dg.has_comm() && dg.comm() != sg.comm()))
    return "source and destination live on different communicators";
  return {};
}

ExchangePlan plan_remap(const ArrayLayout& dst, const ArrayLayout& src, int me) {
  ExchangePlan plan;
  plan_side(src, dst, me, /*sending=*/true, src, plan.sends);
  plan_side(dst, src, me, /*sending=*/false, src, plan.recvs);
  return plan;
}

}  // namespace adlib
