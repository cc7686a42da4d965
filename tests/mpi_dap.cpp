// SPDX-License-Identifier: BSD-3-Clause
// The DAP between adlib arrays and foreign memory: describe -> import gives
// the same layout over the same memory for every Range kind, 1-D to 3-D,
// with empty local blocks; Remap moves data from the imported array into a
// native one and back (checked against the global index); WriteHalo fills
// the padding of an imported padded array as ghost cells; padding that no
// pair of ghost widths holds (the spec's example, random per-process
// paddings) is imported as the owned parts, checked value by value; every
// rule of the protocol, broken on some rank, is the same adlib::Error on
// every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "dap_cases.hpp"
#include "expect_error_everywhere.hpp"
#include "world.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_dap {

namespace {

using adlib::Index;
using adlib::RangeSpec;

// DAP buffers here are host memory (std::vectors filled by hand, as another
// library's would be): the arrays over them, and the arrays compared with
// them, live in HostSpace (a GPU build's default memory space is the
// device's, which cannot address a std::vector).
using Space = Kokkos::HostSpace;

template <size_t R>
double value_at(const std::array<Index, R>& g, double salt = 0) {
  double v = salt;
  for (size_t d = 0; d < R; ++d) v = v * 100 + double(g[d]);
  return v;
}

template <int R>
long long wrong_values(const adlib::DistArray<double, R, Space>& a, double salt) {
  long long wrong = 0;
  a.host_mirror().for_each_local(
      [&](const auto& g, double v) { wrong += v != value_at<R>(g, salt); });
  return wrong;
}

// Native blocks on the same grid: block over the grid's axes, collapsed beyond.
template <int R>
adlib::DistArray<double, R, Space> native_like(const adlib::ArrayLayout& layout) {
  const adlib::ProcessGrid& grid = layout.group().grid();
  std::vector<RangeSpec> specs;
  for (int d = 0; d < R; ++d)
    specs.push_back(d < grid.dimensions() ? adlib::block(layout.extent(d))
                                          : adlib::collapsed(layout.extent(d)));
  return adlib::DistArray<double, R, Space>(
      adlib::ArrayLayout(grid, adlib::bind_ranges(grid, specs)));
}

// describe -> import -> Remap both ways, for one layout.
template <int R>
void round_trip(const adlib::ArrayLayout& layout) {
  SCOPED_TRACE(layout.describe_distribution());
  adlib::DistArray<double, R, Space> a(layout);
  a.fill([](const auto& g) { return value_at<R>(g); });
  const adlib::dap::Descriptor d = adlib::dap::describe(a);
  EXPECT_EQ(d.buffer.data, a.local_view().data());
  EXPECT_EQ(adlib::dap::local_violation(d, a.process_rank()), "");
  auto b = adlib::dap::import_array<double, R, Space>(d, layout.group().grid().comm());
  EXPECT_EQ(b.layout().describe(), a.layout().describe());
  EXPECT_TRUE(b.layout() == a.layout());                    // the same Ranges on an equal grid
  EXPECT_EQ(b.local_view().data(), a.local_view().data());  // no copy
  EXPECT_TRUE(b.is_wrapped());

  auto c = native_like<R>(layout);
  adlib::remap(c, b);
  EXPECT_EQ(wrong_values<R>(c, 0), 0);
  c.fill([](const auto& g) { return value_at<R>(g, 7); });
  adlib::remap(b, c);
  EXPECT_EQ(wrong_values<R>(a, 7), 0);  // through the shared memory
}

// Irregular blocks over p coordinates, sizes that are not BlockRange's (a
// 'b' dimension does not say which adlib range made it, so import picks
// block whenever the blocks are block's), with empty blocks or without.
// Over one coordinate every size is block's: then a block.
RangeSpec uneven(int p, bool with_empty) {
  if (p == 1) return adlib::block(3);
  std::vector<Index> sizes;
  for (int c = 0; c < p; ++c)
    sizes.push_back(with_empty ? (c % 2 == 1 ? 0 : c + 3) : (c == p - 1 ? 1 : c + 3));
  return adlib::irregular_block(sizes);
}

TEST(Dap, RoundTripOneDimension) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  adlib::ProcessGrid grid(comm, {p});
  const std::vector<RangeSpec> kinds = {
      adlib::block(11),
      adlib::block(2),  // empty blocks from 3 ranks on
      uneven(p, true),
      adlib::cyclic(11),
      adlib::cyclic(3, p - 1),
      adlib::block_cyclic(11, 2),
      adlib::block_cyclic(13, 3, p > 1 ? 1 : 0),
      adlib::block(11).ghosts(2),
      adlib::block(11).ghosts(1).periodic(),
      adlib::block(11).periodic(),
      uneven(p, false).ghosts(1),
  };
  for (const RangeSpec& kind : kinds)
    round_trip<1>(adlib::ArrayLayout(grid, adlib::bind_ranges(grid, {kind})));
  if (p == 1) {  // different widths at both ends: boundary padding only
    round_trip<1>(
        adlib::ArrayLayout(grid, adlib::bind_ranges(grid, {adlib::block(7).ghosts(1, 2)})));
    round_trip<1>(adlib::ArrayLayout(
        grid, adlib::bind_ranges(grid, {adlib::block(7).ghosts(2, 1).periodic()})));
  }
}

TEST(Dap, RoundTripUnstructured) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int p = comm.size(), me = comm.rank();
  adlib::ProcessGrid grid(comm, {p});
  const Index n = 13;
  std::vector<Index> mine;  // scrambled: coordinate c holds g with (g * 7) % p == c, descending
  for (Index g = n - 1; g >= 0; --g)
    if ((g * 7 + 3) % p == me) mine.push_back(g);
  auto cells = std::make_shared<adlib::UnstructuredRange>(n, grid.dim(0), mine);
  round_trip<1>(adlib::ArrayLayout(grid, {cells}));
  auto rows = std::make_shared<adlib::UnstructuredRange>(n, grid.dim(0), mine);
  round_trip<2>(adlib::ArrayLayout(grid, {rows, adlib::collapsed(3).make()}));
}

TEST(Dap, RoundTripTwoAndThreeDimensions) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  adlib::ProcessGrid line(comm, {p});
  const auto two = adlib::ProcessGrid::balanced(comm, 2);
  const auto three = adlib::ProcessGrid::balanced(comm, 3);
  const std::vector<std::array<RangeSpec, 2>> planes = {
      {adlib::block(7), adlib::cyclic(5)},
      {uneven(two.extent(0), true), adlib::block_cyclic(9, 2)},
      {adlib::block(6).ghosts(1), adlib::block(5).ghosts(1).periodic()},
      {adlib::block(3), adlib::block(2)},  // empty blocks
  };
  for (const auto& specs : planes)
    round_trip<2>(adlib::ArrayLayout(two, adlib::bind_ranges(two, {specs[0], specs[1]})));
  round_trip<2>(adlib::ArrayLayout(
      line, adlib::bind_ranges(line, {adlib::collapsed(4), adlib::block(9).ghosts(1)})));
  round_trip<3>(adlib::ArrayLayout(
      three,
      adlib::bind_ranges(three, {adlib::block(5), adlib::cyclic(4), adlib::block_cyclic(7, 2)})));
  round_trip<3>(adlib::ArrayLayout(
      two, adlib::bind_ranges(two, {adlib::block(5).ghosts(1), adlib::collapsed(3),
                                    uneven(two.extent(1), false)})));
}

// Padded memory described by hand (not by describe()), as another library
// would: each rank's buffer holds its owned rows and w rows of padding on
// each side, the end paddings as boundary padding.  WriteHalo on the imported
// array fills the communication padding (and, periodic, the end paddings).
void halo_into_padding(bool periodic) {
  SCOPED_TRACE(periodic ? "periodic" : "not periodic");
  const int p = adlib_test::world_size(), me = adlib_test::world_rank();
  const Index w = 2, columns = adlib_test::kColumns;
  std::vector<std::int64_t> owned;
  for (int c = 0; c < p; ++c) owned.push_back(2 + c % 3);
  auto all = adlib_test::block_case(owned, w);
  adlib::dap::Descriptor d = all[static_cast<size_t>(me)];
  if (periodic) d.dim_data[0].periodic = true;
  const Index rows = d.buffer.shape[0], size = d.dim_data[0].size, n = size - 2 * w;
  const double poison = -1;
  std::vector<double> memory(static_cast<size_t>(rows * columns), poison);
  const auto value = [](Index dap_row, Index column) { return double(dap_row * 10 + column); };
  for (Index i = w; i < rows - w; ++i)  // the owned rows: DAP rows start + i
    for (Index j = 0; j < columns; ++j) memory[i * columns + j] = value(d.dim_data[0].start + i, j);
  d.buffer.data = memory.data();

  auto a = adlib::dap::import_array<double, 2, Space>(d);
  EXPECT_EQ(a.local_view().data(), memory.data());
  EXPECT_EQ(a.layout().range(0).ghost_low(), w);
  EXPECT_EQ(a.layout().range(0).extent(), n);
  adlib::WriteHalo<double, 2, Space> halo(a);
  halo.execute(a);
  long long wrong = 0;
  for (Index i = 0; i < rows; ++i) {
    Index row = d.dim_data[0].start + i;  // its DAP index
    const bool boundary = row < w || row >= size - w;
    if (boundary && periodic) row = (row - w + n) % n + w;  // the owned row it copies
    for (Index j = 0; j < columns; ++j) {
      const double expected = boundary && !periodic ? poison : value(row, j);
      wrong += memory[i * columns + j] != expected;
    }
  }
  EXPECT_EQ(wrong, 0);
}

TEST(Dap, WriteHaloFillsImportedPadding) {
  halo_into_padding(false);
  halo_into_padding(true);
}

TEST(Dap, EveryRuleIsAnErrorOnEveryRank) {
  const int p = adlib_test::world_size(), me = adlib_test::world_rank();
  adlib::Comm comm(MPI_COMM_WORLD);
  for (const auto& c : adlib_test::invalid_cases(p)) {
    if (!c.importable_as_double) continue;
    SCOPED_TRACE(c.rule);
    adlib::dap::Descriptor mine = c.per_rank[static_cast<size_t>(me)];
    Index elements = 1;
    for (auto e : mine.buffer.shape) elements *= std::max<Index>(e, 0);
    std::vector<double> memory(static_cast<size_t>(elements));
    mine.buffer.data = memory.data();
    adlib_test::expect_error_everywhere(
        [&] { adlib::dap::import_array<double, 2, Space>(mine, comm); },
        "DAP rule '" + c.rule + "'");
  }
}

// Element types travel as PEP-3118 formats: complex double is "Zd", and an
// integer code of the same size and signedness is the same type ("q" for long).
TEST(Dap, ElementTypesTravelAsFormats) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  using Complex = Kokkos::complex<double>;
  adlib::DistArray<Complex, 1, Space> z(grid, {adlib::block(9)});
  z.fill([](const auto& g) { return Complex(double(g[0]), -double(g[0])); });
  const auto dz = adlib::dap::describe(z);
  EXPECT_EQ(dz.buffer.format, "Zd");
  EXPECT_EQ(dz.buffer.itemsize, 16);
  auto back = adlib::dap::import_array<Complex, 1, Space>(dz, comm);
  EXPECT_TRUE(back.layout() == z.layout());
  adlib::DistArray<Complex, 1, Space> cyclic(grid, {adlib::cyclic(9)});
  adlib::remap(cyclic, back);
  long long wrong = 0;
  cyclic.host_mirror().for_each_local(
      [&](const auto& g, Complex v) { wrong += v != Complex(double(g[0]), -double(g[0])); });
  EXPECT_EQ(wrong, 0);

  adlib::DistArray<long, 1, Space> l(grid, {adlib::cyclic(7)});
  auto dl = adlib::dap::describe(l);
  EXPECT_EQ(dl.buffer.format, "l");
  dl.buffer.format = "<q";  // numpy's int64 on a little-endian host
  auto imported = adlib::dap::import_array<long, 1, Space>(dl, comm);
  EXPECT_EQ(imported.local_view().data(), l.local_view().data());
  adlib_test::expect_error_everywhere(
      [&] { adlib::dap::import_array<unsigned long, 1, Space>(dl, comm); },
      "the buffer holds format '<q' of itemsize 8");
}

TEST(Dap, ImportRefusesWhatAdlibCannotHold) {
  const int p = adlib_test::world_size(), me = adlib_test::world_rank();
  adlib::Comm comm(MPI_COMM_WORLD);
  auto base = adlib_test::base_case(p)[static_cast<size_t>(me)];
  std::vector<double> memory(static_cast<size_t>(base.buffer.shape[0] * adlib_test::kColumns));
  base.buffer.data = memory.data();
  {
    auto d = base;
    d.buffer.strides[1] = 4;  // not whole elements
    adlib_test::expect_error_everywhere(
        [&] { adlib::dap::import_array<double, 2, Space>(d, comm); },
        "not a multiple of the itemsize 8");
  }
  adlib_test::expect_error_everywhere(
      [&] { adlib::dap::import_array<float, 2, Space>(base, comm); },
      "the buffer holds format 'd' of itemsize 8");
  adlib_test::expect_error_everywhere(
      [&] { adlib::dap::import_array<double, 1, Space>(base, comm); },
      "the buffer has 2 dimensions");
}

// The spec's padding example, imported for real: paddings (4, 1) (1, 2)
// (2, 3) (3, 0) fit no pair of ghost widths, so each process's local block
// is the part it owns.  Each buffer holds, at every position, the value of
// its DAP index as the producer would (communication padding: the
// neighbour's values; boundary padding, outside adlib's domain: poison).
// Remap into a native block array, then back: the owned positions take the
// new values, and the padding stays as the producer left it.
TEST(Dap, SpecPaddingExampleImportsTheOwnedParts) {
  const int p = adlib_test::world_size(), me = adlib_test::world_rank();
  if (p != 4) GTEST_SKIP() << "the spec's example is over 4 processes";
  adlib::dap::Descriptor d = adlib_test::spec_padding_example()[static_cast<size_t>(me)];
  const adlib::dap::DimensionData dim = d.dim_data[0];
  const Index boundary_low = 4, n = 21 - 4 - 0, columns = adlib_test::kColumns;
  const Index rows = d.buffer.shape[0], low = dim.padding->at(0), high = dim.padding->at(1);
  const auto global_row = [&](Index i) { return dim.start + i - boundary_low; };
  const double poison = -1;
  std::vector<double> memory(static_cast<size_t>(rows * columns));
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < columns; ++j) {
      const Index g = global_row(i);
      memory[i * columns + j] = g < 0 || g >= n ? poison : value_at<2>({g, j});
    }
  const std::vector<double> produced = memory;
  d.buffer.data = memory.data();

  auto a = adlib::dap::import_array<double, 2, Space>(d);
  EXPECT_EQ(a.extent(0), n);
  EXPECT_EQ(a.layout().range(0).ghost_low(), 0);
  EXPECT_EQ(a.layout().range(0).ghost_high(), 0);
  EXPECT_EQ(a.layout().local_extents(me)[0], rows - low - high);
  EXPECT_EQ(a.local_view().data(), memory.data() + low * columns);  // past the low padding
  EXPECT_EQ(wrong_values<2>(a, 0), 0);

  auto native = native_like<2>(a.layout());
  adlib::remap(native, a);
  EXPECT_EQ(wrong_values<2>(native, 0), 0);
  native.fill([](const auto& g) { return value_at<2>(g, 7); });
  adlib::remap(a, native);
  long long wrong = 0;
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < columns; ++j) {
      const bool owned = i >= low && i < rows - high;
      const double expected = owned ? value_at<2>({global_row(i), j}, 7)
                                    : produced[static_cast<size_t>(i * columns + j)];
      wrong += memory[static_cast<size_t>(i * columns + j)] != expected;
    }
  EXPECT_EQ(wrong, 0);
}

// One 'b' dimension of a random padded case (adlib_test::padded_block's
// parameters).
struct PaddedDimension {
  std::vector<std::int64_t> owned, communication;
  std::int64_t boundary_low = 0, boundary_high = 0;

  std::vector<adlib::dap::DimensionData> dictionaries() const {
    return adlib_test::padded_block(owned, boundary_low, boundary_high, communication);
  }
  // The reference's reading: one pair of ghost widths holds every padding
  // when there is one process, or when every padding is the same width.
  bool padding_is_ghosts() const {
    for (auto w : communication)
      if (w != boundary_low || w != boundary_high) return false;
    return true;
  }
  std::string describe() const {
    std::string s = "owned";
    for (auto o : owned) s += " " + std::to_string(o);
    s += ", boundary " + std::to_string(boundary_low) + "/" + std::to_string(boundary_high) +
         ", communication";
    for (auto w : communication) s += " " + std::to_string(w);
    return s;
  }
};

// Random paddings over p coordinates: owned counts 0..4, boundary padding
// 0..3 at each end, communication padding as wide as the spec allows (no
// wider than what each side owns, boundary padding counted).  `padded`
// false: no padding at all.  Trial 0 has a last process that holds padding
// only; trial 1 one width everywhere (adlib's ghosts).
PaddedDimension random_dimension(int p, bool padded, int trial, std::mt19937& rng) {
  const auto draw = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  PaddedDimension d;
  for (int c = 0; c < p; ++c) d.owned.push_back(draw(0, 4));
  if (!padded) {
    d.communication.assign(static_cast<size_t>(p - 1), 0);
    return d;
  }
  d.boundary_low = draw(0, 3);
  d.boundary_high = draw(0, 3);
  if (trial == 0) {
    d.owned.back() = 0;
    d.boundary_high = 2;
  }
  if (trial == 1) {
    d.boundary_low = d.boundary_high = 1;
    for (auto& o : d.owned) o = std::max<std::int64_t>(o, 1);
  }
  const auto counted = [&](int c) {  // what the spec counts as owned
    return d.owned[c] + (c == 0 ? d.boundary_low : 0) + (c == p - 1 ? d.boundary_high : 0);
  };
  for (int c = 0; c + 1 < p; ++c)
    d.communication.push_back(trial == 1 ? 1 : draw(0, std::min(counted(c), counted(c + 1))));
  return d;
}

// This rank's part of a 2-D case over `grid` (dimension 0 along axis 0;
// dimension 1 along axis 1, or undistributed over a grid of one axis) in
// memory of row pitch shape[1] + extra: every element this process owns
// holds the value of its global index, padding and the pitch's gap hold
// poison.  Imported, remapped into a native array and back, every value is
// checked against the global index, and the padding must be untouched.
void import_padded(const adlib::ProcessGrid& grid, const std::vector<PaddedDimension>& dims,
                   Index extra) {
  const int me = adlib_test::world_rank();
  const int axes = grid.dimensions();
  std::array<Index, 2> coord{me / (axes == 2 ? grid.extent(1) : 1),
                             axes == 2 ? me % grid.extent(1) : 0};
  adlib::dap::Descriptor d;
  std::array<Index, 2> shape{}, low{}, high{}, boundary{}, start{}, skipped{};
  std::array<bool, 2> ghosts{true, true};
  std::string trace = "grid " + grid.describe() + ", pitch +" + std::to_string(extra);
  for (int k = 0; k < 2; ++k) {
    if (k >= axes) {
      d.dim_data.push_back(adlib::dap::DimensionData::undistributed());
      shape[k] = adlib_test::kColumns;
      continue;
    }
    const adlib::dap::DimensionData dim = dims[k].dictionaries()[static_cast<size_t>(coord[k])];
    d.dim_data.push_back(dim);
    shape[k] = dim.stop - dim.start;
    low[k] = dim.padding_or_zero()[0];
    high[k] = dim.padding_or_zero()[1];
    boundary[k] = dims[k].boundary_low;
    start[k] = dim.start;
    ghosts[k] = dims[k].padding_is_ghosts();
    skipped[k] = ghosts[k] ? 0 : low[k];
    trace += "; dimension " + std::to_string(k) + ": " + dims[k].describe();
  }
  SCOPED_TRACE(trace);
  const Index pitch = shape[1] + extra;
  d.buffer = {nullptr, "d", 8, {shape[0], shape[1]}, {8 * pitch, 8}};
  const double poison = -1;
  std::vector<double> memory(static_cast<size_t>(std::max<Index>(shape[0] * pitch, 1)), poison);
  const auto owned = [&](Index i, Index j) {
    return i >= low[0] && i < shape[0] - high[0] && j >= low[1] && j < shape[1] - high[1];
  };
  const auto global = [&](Index i, Index j) {  // adlib's index: DAP index - boundary padding
    return std::array<Index, 2>{start[0] + i - boundary[0], start[1] + j - boundary[1]};
  };
  for (Index i = 0; i < shape[0]; ++i)
    for (Index j = 0; j < shape[1]; ++j)
      if (owned(i, j)) memory[static_cast<size_t>(i * pitch + j)] = value_at<2>(global(i, j));
  const std::vector<double> produced = memory;
  d.buffer.data = memory.data();

  auto a = adlib::dap::import_array<double, 2, Space>(d);
  for (int k = 0; k < axes; ++k) {
    const Index n = dims[k].dictionaries()[0].size - dims[k].boundary_low - dims[k].boundary_high;
    EXPECT_EQ(a.extent(k), n) << "dimension " << k;
    EXPECT_EQ(a.layout().range(k).ghost_low(), ghosts[k] ? low[k] : 0) << "dimension " << k;
  }
  const auto block = a.layout().local_extents(me);
  if (block[0] > 0 && block[1] > 0) {
    EXPECT_EQ(a.local_view().data(), memory.data() + skipped[0] * pitch + skipped[1]);
  }
  EXPECT_EQ(wrong_values<2>(a, 0), 0);

  auto native = native_like<2>(a.layout());
  adlib::remap(native, a);
  EXPECT_EQ(wrong_values<2>(native, 0), 0);
  native.fill([](const auto& g) { return value_at<2>(g, 7); });
  adlib::remap(a, native);
  long long wrong = 0;
  for (Index i = 0; i < shape[0]; ++i)
    for (Index j = 0; j < pitch; ++j) {
      const auto at = static_cast<size_t>(i * pitch + j);
      const double expected =
          j < shape[1] && owned(i, j) ? value_at<2>(global(i, j), 7) : produced[at];
      wrong += memory[at] != expected;
    }
  EXPECT_EQ(wrong, 0);
}

// Random per-process paddings (communication padding that differs between
// process boundaries, boundary padding, processes holding padding only),
// on a 1-D grid and on 2-D grids with the padded dimension first, second
// or both, against the reference of global indices.  Where one width holds
// every padding they are ghosts, as before; elsewhere the owned parts.
TEST(Dap, PerProcessPaddingImportsTheOwnedParts) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  std::mt19937 rng(20240611);  // the same draws on every rank
  const auto two = adlib::ProcessGrid::balanced(comm, 2);
  std::vector<adlib::ProcessGrid> grids = {adlib::ProcessGrid(comm, {p}), two};
  if (two.extent(0) != two.extent(1))
    grids.push_back(adlib::ProcessGrid(comm, {two.extent(1), two.extent(0)}));
  for (const adlib::ProcessGrid& grid : grids) {
    const std::vector<std::array<bool, 2>> which =
        grid.dimensions() == 1
            ? std::vector<std::array<bool, 2>>{{true, false}}
            : std::vector<std::array<bool, 2>>{{true, false}, {false, true}, {true, true}};
    for (const auto& padded : which)
      for (int trial = 0; trial < 6; ++trial) {
        std::vector<PaddedDimension> dims;
        for (int k = 0; k < grid.dimensions(); ++k)
          dims.push_back(random_dimension(grid.extent(k), padded[k], trial, rng));
        import_padded(grid, dims, trial % 2);
      }
  }
}

TEST(Dap, DescribeRefusesWhatTheProtocolCannotSay) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  adlib::ProcessGrid grid(comm, {p});
  adlib::DistArray<double, 1, Space> a(grid, {adlib::block(10)});
  adlib_test::expect_error_everywhere(
      [&] {
        adlib::dap::describe(a.section({adlib::Triplet{0, 9, 2}}));
      },
      "not a section");
  if (p > 1) {
    adlib::DistArray<double, 1, Space> replicated(grid, {adlib::collapsed(10)});
    adlib_test::expect_error_everywhere([&] { adlib::dap::describe(replicated); },
                                        "replicated along it");
    adlib::DistArray<double, 1, Space> uneven(grid, {adlib::block(10).ghosts(1, 2)});
    adlib_test::expect_error_everywhere([&] { adlib::dap::describe(uneven); },
                                        "the same communication padding on both sides");
  }
}

}  // namespace

}  // namespace mpi_dap
