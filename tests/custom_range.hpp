// SPDX-License-Identifier: BSD-3-Clause
// A distribution format that adlib does not ship, written the way a user
// would: a direct Range subclass whose coordinate c owns an explicit
// interval, answered by brute force.  The halo tests use it to show that
// WriteHalo works with a new format through the Range inquiries alone.
#pragma once

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include <adlib/ranges/range.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib_test {

class ListedBlocks : public adlib::Range {
 public:
  ListedBlocks(const std::vector<adlib::Index>& sizes, const adlib::Dimension& dim,
               const adlib::Ghosts& g)
      : Range(std::accumulate(sizes.begin(), sizes.end(), adlib::Index{0}), dim, g.low, g.high,
              g.periodic),
        starts_(sizes.size() + 1, 0) {
    if (static_cast<int>(sizes.size()) != dim.size())
      throw adlib::Error("sizes", -1, "ListedBlocks");
    std::partial_sum(sizes.begin(), sizes.end(), starts_.begin() + 1);
  }

  adlib::Index local_count(int c) const override { return starts_[c + 1] - starts_[c]; }
  using Range::owned_blocks;
  void owned_blocks(int c, const adlib::Triplet& section, adlib::Index first, adlib::Index last,
                    std::vector<adlib::Block>& out) const override {
    adlib::Index k0 = -1, k1 = -1;
    for (adlib::Index k = std::max<adlib::Index>(first, 0);
         k <= std::min(last, section.count() - 1); ++k) {
      const adlib::Index g = section.at(k);
      if (g < starts_[c] || g >= starts_[c + 1]) continue;
      if (k0 < 0) k0 = k;
      k1 = k;
    }
    if (k0 < 0) return;
    const adlib::Index g = section.at(k0);
    out.push_back({k1 - k0 + 1, g, section.stride, ghost_low() + g - starts_[c], section.stride});
  }
  void owners(const adlib::Triplet& indices, std::vector<int>& coords) const override {
    const auto before = coords.size();
    for (adlib::Index k = 0; k < indices.count(); ++k) coords.push_back(owner(indices.at(k)).coord);
    std::sort(coords.begin() + before, coords.end());
    coords.erase(std::unique(coords.begin() + before, coords.end()), coords.end());
  }
  adlib::Owner owner(adlib::Index g) const override {
    check_global(g, "owner");
    int c = 0;
    while (g >= starts_[c + 1]) ++c;
    return {c, ghost_low() + g - starts_[c]};
  }
  adlib::Index global_index(int c, adlib::Index local) const override {
    check_coord(c, "global_index");
    const adlib::Index g = starts_[c] + local - ghost_low();
    if (local < ghost_low() || g >= starts_[c + 1])
      throw adlib::Error("not owned", -1, "ListedBlocks::global_index");
    return g;
  }
  bool contiguous() const override { return true; }
  adlib::Interval owned_interval(int c) const override { return {starts_[c], starts_[c + 1]}; }
  adlib::LocalMap local_map(int c) const override {
    return {starts_[c] - ghost_low(), adlib::LocalMap::kNoTile, adlib::LocalMap::kNoTile};
  }
  std::string describe() const override {
    std::string s = "listed(";
    for (size_t c = 0; c + 1 < starts_.size(); ++c)
      s += (c ? "," : "") + std::to_string(starts_[c + 1] - starts_[c]);
    return s + ", " + describe_common() + ")";
  }

 private:
  std::vector<adlib::Index> starts_;
};

// Its factory, bound to grid axes like the built-in ones.
inline adlib::RangeSpec listed_blocks(std::vector<adlib::Index> sizes) {
  return adlib::RangeSpec(
      true,
      [sizes](const std::optional<adlib::Dimension>& d, const adlib::Ghosts& g) -> adlib::RangePtr {
        return std::make_shared<ListedBlocks>(sizes, *d, g);
      },
      "listed_blocks");
}

}  // namespace adlib_test
