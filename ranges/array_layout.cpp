// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/array_layout.hpp>

#include <adlib/ranges/detail/index_math.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

ArrayLayout::ArrayLayout(Group group, std::vector<RangePtr> ranges)
    : group_(std::move(group)), ranges_(std::move(ranges)) {
  const char* op = "ArrayLayout";
  std::vector<bool> used(group_.grid().dimensions(), false);
  for (size_t d = 0; d < ranges_.size(); ++d) {
    if (!ranges_[d]) throw Error("range " + std::to_string(d) + " is null", -1, op);
    const auto& dim = ranges_[d]->dimension();
    if (!dim) continue;
    if (dim->grid() != group_.grid())
      throw Error("range " + std::to_string(d) + " is distributed over " + dim->grid().describe() +
                      ", not over the group's " + group_.grid().describe(),
                  -1, op);
    if (!group_.is_free(dim->axis()))
      throw Error("range " + std::to_string(d) + " is distributed over axis " +
                      std::to_string(dim->axis()) + ", which the group restricts",
                  -1, op);
    if (used[dim->axis()])
      throw Error("two ranges are distributed over axis " + std::to_string(dim->axis()), -1, op);
    used[dim->axis()] = true;
  }
  for (const auto& r : ranges_) section_.push_back(Triplet::all(r->extent()));
}

ArrayLayout ArrayLayout::section(const std::vector<Triplet>& triplets) const {
  if (triplets.size() != ranges_.size())
    throw Error(std::to_string(triplets.size()) + " triplets for an array of rank " +
                    std::to_string(rank()),
                -1, "section");
  ArrayLayout out = *this;
  for (size_t d = 0; d < triplets.size(); ++d) {
    const Triplet& t = triplets[d];
    const Triplet& base = section_[d];
    if (t.stride == 0) throw Error("zero stride in dimension " + std::to_string(d), -1, "section");
    const Index n = t.count();
    if (n > 0 && (t.lo < 0 || t.lo >= base.count() || t.last() < 0 || t.last() >= base.count()))
      throw Error("triplet " + t.to_string() + " is out of bounds 0.." +
                      std::to_string(base.count() - 1) + " in dimension " + std::to_string(d),
                  -1, "section");
    out.section_[d] = n == 0
                          ? Triplet::empty()
                          : Triplet{base.at(t.lo), base.at(t.lo) + (n - 1) * t.stride * base.stride,
                                    t.stride * base.stride};
  }
  return out;
}

bool ArrayLayout::is_section() const {
  for (size_t d = 0; d < ranges_.size(); ++d)
    if (section_[d] != Triplet::all(ranges_[d]->extent())) return true;
  return false;
}

std::vector<std::pair<Index, Index>> ArrayLayout::held_along(int rank, int d) const {
  std::vector<std::pair<Index, Index>> out;
  if (!holds_data(rank)) return out;
  std::vector<Block> blocks;
  const Triplet& t = section_triplet(d);
  range(d).owned_blocks(coordinate(rank, d), t, blocks);
  for (const Block& b : blocks)
    for (Index i = 0; i < b.count; ++i)
      out.emplace_back((b.global_base + i * b.global_step - t.lo) / t.stride,
                       b.local_base + i * b.local_step);
  return out;
}

bool ArrayLayout::plannable_locally() const {
  for (const RangePtr& r : ranges_)
    if (!r->plannable_locally()) return false;
  return true;
}

std::vector<Index> ArrayLayout::shape() const {
  std::vector<Index> s;
  for (const auto& t : section_) s.push_back(t.count());
  return s;
}

Index ArrayLayout::size() const {
  Index n = 1;
  for (const auto& t : section_) n *= t.count();
  return n;
}

int ArrayLayout::coordinate(int rank, int d) const {
  const auto& dim = ranges_.at(d)->dimension();
  return dim ? group_.grid().coordinate(rank, dim->axis()) : 0;
}

std::vector<Index> ArrayLayout::local_extents(int rank) const {
  std::vector<Index> e(ranges_.size(), 0);
  if (!holds_data(rank)) return e;
  for (size_t d = 0; d < ranges_.size(); ++d)
    e[d] = ranges_[d]->local_allocation(coordinate(rank, static_cast<int>(d)));
  return e;
}

std::vector<Index> ArrayLayout::storage_extents(int rank) const {
  if (rank == storage_rank_) return storage_;
  return local_extents(rank);
}

ArrayLayout ArrayLayout::with_storage(int rank, std::vector<Index> extents) const {
  const std::vector<Index> need = local_extents(rank);
  if (extents.size() != need.size())
    throw Error(std::to_string(extents.size()) + " storage extents for an array of rank " +
                    std::to_string(need.size()),
                rank, "ArrayLayout::with_storage");
  for (size_t d = 0; d < need.size(); ++d)
    if (extents[d] < need[d])
      throw Error("dimension " + std::to_string(d) + ": the layout needs a local extent of " +
                      std::to_string(need[d]) + ", the storage has " + std::to_string(extents[d]),
                  rank, "ArrayLayout::with_storage");
  ArrayLayout out = *this;
  out.storage_rank_ = -1;
  out.storage_.clear();
  // Padding of dimension 0 changes no stride: only wider inner dimensions
  // count.  A rank outside the group has no memory to pad.
  if (!extents.empty()) extents[0] = need[0];
  if (holds_data(rank) && extents != need) {
    out.storage_rank_ = rank;
    out.storage_ = std::move(extents);
  }
  return out;
}

std::vector<Index> ArrayLayout::local_strides(int rank) const {
  const auto e = storage_extents(rank);
  std::vector<Index> s(e.size(), 1);
  for (size_t d = e.size(); d-- > 1;) s[d - 1] = s[d] * e[d];
  return s;
}

std::vector<int> ArrayLayout::replicated_axes() const {
  std::vector<bool> used(group_.grid().dimensions(), false);
  for (const auto& r : ranges_)
    if (r->dimension()) used[r->dimension()->axis()] = true;
  std::vector<int> axes;
  for (int a = 0; a < group_.grid().dimensions(); ++a)
    if (!used[a] && group_.is_free(a)) axes.push_back(a);
  return axes;
}

long long ArrayLayout::replica_count() const {
  long long n = 1;
  for (int a : replicated_axes()) n *= group_.grid().extent(a);
  return n;
}

int ArrayLayout::replica(const std::vector<int>& coords, long long k) const {
  const ProcessGrid& grid = group_.grid();
  std::vector<int> c(grid.dimensions(), 0);
  for (int a = 0; a < grid.dimensions(); ++a)
    if (!group_.is_free(a)) c[a] = group_.fixed()[a];
  for (size_t d = 0; d < ranges_.size(); ++d)
    if (ranges_[d]->dimension()) c[ranges_[d]->dimension()->axis()] = coords[d];
  // Replica k has the mixed-radix digits of k on the replicated axes, the
  // last axis fastest (C order).
  const std::vector<int> axes = replicated_axes();
  for (size_t i = axes.size(); i-- > 0;) {
    c[axes[i]] = static_cast<int>(k % grid.extent(axes[i]));
    k /= grid.extent(axes[i]);
  }
  return grid.rank_of(c);
}

std::vector<int> ArrayLayout::ranks_holding(const std::vector<int>& coords) const {
  const long long n = replica_count();
  std::vector<int> ranks;
  ranks.reserve(static_cast<size_t>(n));
  for (long long k = 0; k < n; ++k) ranks.push_back(replica(coords, k));
  return ranks;
}

namespace {

// Do two strided sets of global indices share an element?  (Two arithmetic
// progressions meet iff their first elements agree modulo the gcd of the
// steps somewhere inside the overlap of their spans.)
bool triplets_intersect(const Triplet& a, const Triplet& b) {
  using namespace detail::index_math;
  const Index na = a.count(), nb = b.count();
  if (na == 0 || nb == 0) return false;
  // Ascending forms: first, step > 0, last.
  const Index a_first = std::min(a.lo, a.last()), a_last = std::max(a.lo, a.last());
  const Index b_first = std::min(b.lo, b.last()), b_last = std::max(b.lo, b.last());
  const Index a_step = na > 1 ? std::abs(a.stride) : 1, b_step = nb > 1 ? std::abs(b.stride) : 1;
  const Index lo = std::max(a_first, b_first), hi = std::min(a_last, b_last);
  if (lo > hi) return false;
  const Index g = gcd(a_step, b_step);
  const Index diff = b_first - a_first;
  if (floor_mod(diff, g) != 0) return false;
  // x = a_first + a_step * t solves both congruences; the solutions repeat
  // every lcm; is one of them inside [lo, hi]?
  const Index m = b_step / g;
  const Index t = mul_mod(floor_mod(diff / g, m), inverse_mod(a_step / g, m), m);
  const Wide lcm = static_cast<Wide>(a_step / g) * b_step;
  Wide x = static_cast<Wide>(a_first) + static_cast<Wide>(a_step) * t;
  if (x < lo) x += lcm * ((lo - x + lcm - 1) / lcm);
  return x <= hi;
}

}  // namespace

bool ArrayLayout::overlaps(const ArrayLayout& o) const {
  if (group_ != o.group_ || ranges_.size() != o.ranges_.size()) return false;
  for (size_t d = 0; d < ranges_.size(); ++d)
    if (!triplets_intersect(section_[d], o.section_[d])) return false;
  return true;
}

bool ArrayLayout::operator==(const ArrayLayout& o) const {
  if (group_ != o.group_ || ranges_.size() != o.ranges_.size()) return false;
  if (storage_rank_ != o.storage_rank_ || storage_ != o.storage_) return false;
  for (size_t d = 0; d < ranges_.size(); ++d)
    if (!(ranges_[d] == o.ranges_[d] || ranges_[d]->same_distribution(*o.ranges_[d])) ||
        section_[d] != o.section_[d])
      return false;
  return true;
}

std::string ArrayLayout::describe() const {
  std::string s = describe_distribution();
  if (storage_rank_ >= 0) {
    s += " stored padded to [";
    for (size_t d = 0; d < storage_.size(); ++d) s += (d ? "," : "") + std::to_string(storage_[d]);
    s += "] on rank " + std::to_string(storage_rank_);
  }
  return s;
}

std::string ArrayLayout::describe_distribution() const {
  std::string s = "array on " + group_.describe() + " [";
  for (size_t d = 0; d < ranges_.size(); ++d) {
    s += (d ? "; " : "") + ranges_[d]->describe();
    if (section_[d] != Triplet::all(ranges_[d]->extent()))
      s += " section " + section_[d].to_string();
  }
  return s + "]";
}

std::uint64_t fingerprint_of(const std::string& text) {
  return detail::hash_text(text);
}

AgreedArgument agreed_layout(const std::string& name, const ArrayLayout& layout) {
  return {name, layout.fingerprint(), [&layout] { return layout.describe_distribution(); }};
}

std::uint64_t ArrayLayout::fingerprint() const {
  return fingerprint_of(describe_distribution());
}

}  // namespace adlib
