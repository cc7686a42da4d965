// SPDX-License-Identifier: BSD-3-Clause
// DAP descriptors for P processes, one valid base and one broken copy per
// rule of the protocol: shared by the serial test (every P, through
// dap::first_violation) and the MPI test (the world's P, each rank importing
// its own descriptor, the error expected on every rank).  Every descriptor
// is 2-D: dimension 0 distributed over the P processes, dimension 1 not.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <adlib/ranges/dap_descriptor.hpp>

namespace adlib_test {

using adlib::dap::Descriptor;
using adlib::dap::DimensionData;

// Dimension 1 of every case: 3 elements, not distributed.
constexpr std::int64_t kColumns = 3;

// C-order strides in bytes of a double buffer.
inline void set_shape(Descriptor& d, std::int64_t rows, std::int64_t columns = kColumns) {
  d.buffer.format = "d";
  d.buffer.itemsize = 8;
  d.buffer.shape = {rows, columns};
  d.buffer.strides = {8 * columns, 8};
}

// Dimension 0 'b', blocks of `owned[c]` indices, padding (w, w) when w > 0
// (adlib's ghost form: the end paddings are boundary padding).
inline std::vector<Descriptor> block_case(const std::vector<std::int64_t>& owned,
                                          std::int64_t w = 0) {
  const auto p = static_cast<std::int64_t>(owned.size());
  std::int64_t size = 2 * w;
  for (auto o : owned) size += o;
  std::vector<Descriptor> out;
  std::int64_t begin = 0;
  for (std::int64_t c = 0; c < p; ++c) {
    Descriptor d;
    DimensionData b;
    b.dist_type = 'b';
    b.size = size;
    b.proc_grid_size = p;
    b.proc_grid_rank = c;
    b.start = begin;
    b.stop = begin + owned[c] + 2 * w;
    if (w) b.padding = std::array<std::int64_t, 2>{w, w};
    begin += owned[c];
    d.dim_data = {b, DimensionData::undistributed()};
    set_shape(d, b.stop - b.start);
    out.push_back(d);
  }
  return out;
}

// A 'b' dimension over owned.size() grid coordinates with per-process
// padding, as the spec allows it: coordinate c owns owned[c] indices of
// adlib's domain, the ends carry boundary padding (boundary_low,
// boundary_high), and the boundary between coordinates c and c + 1 has
// communication[c] indices of padding on each side.  Valid DAP when each
// communication[c] is no wider than what the spec counts as owned on
// either side (boundary padding included).
inline std::vector<DimensionData> padded_block(const std::vector<std::int64_t>& owned,
                                               std::int64_t boundary_low,
                                               std::int64_t boundary_high,
                                               const std::vector<std::int64_t>& communication) {
  const auto p = static_cast<std::int64_t>(owned.size());
  std::int64_t size = boundary_low + boundary_high;
  for (auto o : owned) size += o;
  std::vector<DimensionData> out;
  std::int64_t first = boundary_low;  // DAP index of coordinate c's first owned index
  for (std::int64_t c = 0; c < p; ++c) {
    const std::int64_t low = c == 0 ? boundary_low : communication[c - 1];
    const std::int64_t high = c == p - 1 ? boundary_high : communication[c];
    DimensionData b;
    b.dist_type = 'b';
    b.size = size;
    b.proc_grid_size = p;
    b.proc_grid_rank = c;
    b.start = first - low;
    b.stop = first + owned[c] + high;
    if (low || high) b.padding = std::array<std::int64_t, 2>{low, high};
    out.push_back(b);
    first += owned[c];
  }
  return out;
}

// The regular base: 2P + 3 rows in blocks of at least 2.
inline std::vector<Descriptor> base_case(int p) {
  std::vector<std::int64_t> owned;
  for (int c = 0; c < p; ++c) owned.push_back((c + 1) * (2 * p + 3) / p - c * (2 * p + 3) / p);
  return block_case(owned);
}

// Dimension 0 'c', tiles of b dealt round-robin from coordinate 0.
inline std::vector<Descriptor> cyclic_case(int p, std::int64_t size, std::int64_t b) {
  std::vector<Descriptor> out;
  for (int c = 0; c < p; ++c) {
    Descriptor d;
    DimensionData dim;
    dim.dist_type = 'c';
    dim.size = size;
    dim.proc_grid_size = p;
    dim.proc_grid_rank = c;
    dim.start = std::min<std::int64_t>(c * b, size);
    dim.block_size = b;
    d.dim_data = {dim, DimensionData::undistributed()};
    set_shape(d, adlib::dap::num_owned_indices(dim));
    out.push_back(d);
  }
  return out;
}

// Dimension 0 'u': coordinate c holds {c, c + P, ...} below size, reversed.
inline std::vector<Descriptor> unstructured_case(int p, std::int64_t size, bool one_to_one) {
  std::vector<Descriptor> out;
  for (int c = 0; c < p; ++c) {
    Descriptor d;
    DimensionData dim;
    dim.dist_type = 'u';
    dim.size = size;
    dim.proc_grid_size = p;
    dim.proc_grid_rank = c;
    for (std::int64_t g = size - 1; g >= 0; --g)
      if (g % p == c) dim.indices.push_back(g);
    dim.one_to_one = one_to_one;
    d.dim_data = {dim, DimensionData::undistributed()};
    set_shape(d, static_cast<std::int64_t>(dim.indices.size()));
    out.push_back(d);
  }
  return out;
}

// One broken descriptor set: the rule it breaks (as messages name it) and
// whether the MPI test can import it as double (an element-type case cannot:
// the import's own type check answers first).
struct InvalidCase {
  std::string rule;
  std::vector<Descriptor> per_rank;
  bool importable_as_double = true;
};

inline std::vector<InvalidCase> invalid_cases(int p) {
  std::vector<InvalidCase> cases;
  const auto add = [&](const std::string& rule, std::vector<Descriptor> d, bool as_double = true) {
    cases.push_back({rule, std::move(d), as_double});
  };
  const int last = p - 1;
  {
    auto d = base_case(p);
    d[last].version = "1.0.0";
    add("version", d);
  }
  {
    auto d = base_case(p);
    d[0].buffer.itemsize = 0;
    add("buffer format", d);
  }
  {
    auto d = base_case(p);
    d[0].dim_data.pop_back();
    add("dim_data length", d);
  }
  {
    auto d = base_case(p);
    d[last].dim_data[0].dist_type = 'x';
    add("dist_type", d);
  }
  {
    auto d = base_case(p);
    d[0].dim_data[1] = DimensionData{};
    d[0].dim_data[1].size = -1;
    add("size", d);
  }
  {
    auto d = base_case(p);
    d[0].dim_data[0].proc_grid_size = 0;
    add("proc_grid_size", d);
  }
  {
    auto d = base_case(p);
    d[last].dim_data[0].proc_grid_rank = p;
    add("proc_grid_rank", d);
  }
  {
    auto d = base_case(p);
    d[0].dim_data[0].start -= 1;
    d[0].dim_data[0].stop -= 1;
    add("block start", d);
  }
  {
    auto d = base_case(p);
    d[last].dim_data[0].start += 1;
    d[last].dim_data[0].stop += 1;
    add("block stop", d);
  }
  {
    auto d = base_case(p);
    d[0].dim_data[0].stop -= 1;
    add("buffer shape", d);
  }
  {
    auto d = base_case(p);
    d[0].dim_data[0].padding = std::array<std::int64_t, 2>{-1, 0};
    add("padding", d);
  }
  {
    auto d = cyclic_case(p, 2 * p + 3, 2);
    d[0].dim_data[0].block_size = 0;
    add("block_size", d);
  }
  {
    auto d = cyclic_case(p, 2 * p + 3, 2);
    d[0].dim_data[0].start = 1;
    set_shape(d[0], adlib::dap::num_owned_indices(d[0].dim_data[0]));
    add("cyclic start", d);
  }
  {
    auto d = unstructured_case(p, 2 * p + 3, true);
    d[0].dim_data[0].indices.back() = d[0].dim_data[0].indices.front();
    add("unique indices", d);
  }
  {
    auto d = base_case(p);
    for (auto& r : d) r.dim_data[0].proc_grid_size = p + 1;
    add("proc_grid_size product", d);
  }
  {
    auto d = block_case(std::vector<std::int64_t>(static_cast<size_t>(p), 2));
    for (auto& r : d) {  // every block one further: grid rank 0 starts at 1
      r.dim_data[0].size += 1;
      r.dim_data[0].start += 1;
      r.dim_data[0].stop += 1;
    }
    add("block coverage", d);
  }
  {
    auto d = unstructured_case(p, p + 1, true);  // nobody holds index p
    for (auto& r : d) {
      r.dim_data[0].indices.erase(
          std::remove(r.dim_data[0].indices.begin(), r.dim_data[0].indices.end(), p),
          r.dim_data[0].indices.end());
      set_shape(r, static_cast<std::int64_t>(r.dim_data[0].indices.size()));
    }
    add("size consistency", d);
  }
  if (p < 2) return cases;
  {
    auto d = base_case(p);
    d[1].buffer.format = "f";
    d[1].buffer.itemsize = 4;
    d[1].buffer.strides = {4 * kColumns, 4};
    add("element type", d, false);
  }
  {
    auto d = base_case(p);
    d[1].dim_data[0].size += 5;
    add("dimension agreement", d);
  }
  {
    auto d = base_case(p);
    std::swap(d[0].dim_data[0].proc_grid_rank, d[1].dim_data[0].proc_grid_rank);
    add("process grid order", d);
  }
  {
    // Dimension 1 is 'u' over a grid axis of 1: every rank is at its
    // coordinate 0 and must list the same indices.
    auto d = base_case(p);
    for (auto& r : d) {
      DimensionData u;
      u.dist_type = 'u';
      u.size = kColumns;
      u.indices = {0, 1, 2};
      u.one_to_one = true;
      r.dim_data[1] = u;
    }
    d[1].dim_data[1].indices = {2, 1, 0};
    add("identical dim_data along an axis", d);
  }
  {
    auto d = block_case(std::vector<std::int64_t>(static_cast<size_t>(p), 3), 1);
    d[1].dim_data[0].padding = std::array<std::int64_t, 2>{2, 1};
    d[1].dim_data[0].start -= 1;
    set_shape(d[1], d[1].dim_data[0].stop - d[1].dim_data[0].start);
    add("communication padding", d);
  }
  {
    auto d = base_case(p);
    d[0].dim_data[0].stop -= 1;
    set_shape(d[0], d[0].dim_data[0].stop);
    add("adjacent block ranges", d);
  }
  if (p >= 3) {  // grid rank 1 owns 1 index, its neighbours' padding is 2 wide
    // (with two processes, both own their boundary padding too: wide enough)
    auto d = block_case(std::vector<std::int64_t>(static_cast<size_t>(p), 1), 2);
    add("communication padding width", d);
  }
  {
    auto d = cyclic_case(p, 2 * p + 3, 2);
    d[1].dim_data[0].start = 0;
    set_shape(d[1], adlib::dap::num_owned_indices(d[1].dim_data[0]));
    add("cyclic start", d);
  }
  return cases;
}

// The spec's padding example, over 4 processes: boundary padding 4 on the
// left and 0 on the right, communication padding widths 1, 2, 3, owning 7
// (4 of them boundary padding), 5, 5 and 4 indices.
inline std::vector<Descriptor> spec_padding_example() {
  const std::int64_t starts[] = {0, 6, 10, 14}, stops[] = {8, 14, 20, 21};
  const std::array<std::int64_t, 2> paddings[] = {{4, 1}, {1, 2}, {2, 3}, {3, 0}};
  std::vector<Descriptor> out;
  for (int c = 0; c < 4; ++c) {
    Descriptor d;
    DimensionData b;
    b.dist_type = 'b';
    b.size = 21;
    b.proc_grid_size = 4;
    b.proc_grid_rank = c;
    b.start = starts[c];
    b.stop = stops[c];
    b.padding = paddings[c];
    d.dim_data = {b, DimensionData::undistributed()};
    set_shape(d, b.stop - b.start);
    out.push_back(d);
  }
  return out;
}

}  // namespace adlib_test
