// SPDX-License-Identifier: BSD-3-Clause
// A generated unstructured mesh for the depth-halo tests: the cells of a
// rows x columns grid, neighbours the 8 cells around (box stencil), global
// ids scrambled by an affine bijection (so they say nothing of geometry),
// cells partitioned by rows in uneven slabs (some ranks may own nothing),
// halos found by graph distance, as LFRic's partitioner does.  Every rank
// computes the whole partition, so each knows what every other holds: the
// serial reference of a test.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "test_layouts.hpp"

namespace adlib_test {

struct GridMesh {
  std::int64_t rows = 0, columns = 0;
  std::int64_t multiplier = 1, shift = 0;  // id = (cell * multiplier + shift) mod cells

  std::int64_t cells() const { return rows * columns; }
  std::int64_t id(std::int64_t cell) const {
    // Test meshes have fewer than 2^31 cells: the product fits 64 bits.
    return (cell * multiplier + shift) % cells();
  }
  // The cells next to `cell` (box stencil, not periodic).
  std::vector<std::int64_t> neighbours(std::int64_t cell) const {
    std::vector<std::int64_t> out;
    const std::int64_t i = cell / columns, j = cell % columns;
    for (std::int64_t di = -1; di <= 1; ++di)
      for (std::int64_t dj = -1; dj <= 1; ++dj) {
        const std::int64_t a = i + di, b = j + dj;
        if ((di || dj) && a >= 0 && a < rows && b >= 0 && b < columns)
          out.push_back(a * columns + b);
      }
    return out;
  }
};

inline std::int64_t gcd(std::int64_t a, std::int64_t b) {
  while (b) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

inline GridMesh make_mesh(std::int64_t rows, std::int64_t columns, Rng& rng) {
  GridMesh m{rows, columns, 1, 0};
  if (m.cells() > 1) {
    m.multiplier = rng.uniform(1, m.cells() - 1);
    while (gcd(m.multiplier, m.cells()) != 1) m.multiplier = m.multiplier % (m.cells() - 1) + 1;
    m.shift = rng.uniform(0, m.cells() - 1);
  }
  return m;
}

// One rank's share: owned cells, then halo cells by depth (cells, not ids).
struct RankCells {
  std::vector<std::int64_t> owned;
  std::vector<std::vector<std::int64_t>> halo;  // [d - 1]: depth d
};

// Rows dealt to ranks in uneven slabs (weights drawn from rng; a weight of 0
// leaves a rank with nothing), halos to `depth` by graph distance.  Owned
// cells and each depth are listed in LFRic's order (sorted by id) or
// shuffled, as `shuffled` says.
inline std::vector<RankCells> partition(const GridMesh& mesh, int ranks, int depth, Rng& rng,
                                        bool shuffled) {
  std::vector<std::int64_t> weight(static_cast<std::size_t>(ranks));
  for (auto& w : weight) w = rng.chance(15) ? 0 : rng.uniform(1, 4);
  if (std::accumulate(weight.begin(), weight.end(), std::int64_t(0)) == 0) weight[0] = 1;
  const std::int64_t total = std::accumulate(weight.begin(), weight.end(), std::int64_t(0));
  std::vector<int> owner_of_row(static_cast<std::size_t>(mesh.rows));
  std::int64_t before = 0;
  for (int r = 0; r < ranks; ++r) {
    const std::int64_t first = mesh.rows * before / total;
    before += weight[static_cast<std::size_t>(r)];
    const std::int64_t last = mesh.rows * before / total;
    for (std::int64_t i = first; i < last; ++i) owner_of_row[static_cast<std::size_t>(i)] = r;
  }
  auto owner = [&](std::int64_t cell) {
    return owner_of_row[static_cast<std::size_t>(cell / mesh.columns)];
  };
  auto order = [&](std::vector<std::int64_t>& cells) {
    if (shuffled) {
      for (std::size_t k = cells.size(); k > 1; --k)
        std::swap(cells[k - 1],
                  cells[static_cast<std::size_t>(rng.uniform(0, static_cast<Index>(k) - 1))]);
    } else {
      std::sort(cells.begin(), cells.end(),
                [&](std::int64_t a, std::int64_t b) { return mesh.id(a) < mesh.id(b); });
    }
  };

  std::vector<RankCells> out(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    RankCells& mine = out[static_cast<std::size_t>(r)];
    std::vector<int> level(static_cast<std::size_t>(mesh.cells()), -1);  // 0: owned, d: depth
    for (std::int64_t c = 0; c < mesh.cells(); ++c)
      if (owner(c) == r) {
        mine.owned.push_back(c);
        level[static_cast<std::size_t>(c)] = 0;
      }
    std::vector<std::int64_t> front = mine.owned;
    for (int d = 1; d <= depth; ++d) {
      std::vector<std::int64_t> next;
      for (const std::int64_t c : front)
        for (const std::int64_t n : mesh.neighbours(c))
          if (level[static_cast<std::size_t>(n)] < 0) {
            level[static_cast<std::size_t>(n)] = d;
            next.push_back(n);
          }
      order(next);
      mine.halo.push_back(next);
      front = next;
    }
    order(mine.owned);
  }
  return out;
}

// Ids of `cells`.
inline std::vector<std::int64_t> ids_of(const GridMesh& mesh,
                                        const std::vector<std::int64_t>& cells) {
  std::vector<std::int64_t> ids;
  ids.reserve(cells.size());
  for (const std::int64_t c : cells) ids.push_back(mesh.id(c));
  return ids;
}

}  // namespace adlib_test
