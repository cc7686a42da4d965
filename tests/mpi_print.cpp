// SPDX-License-Identifier: BSD-3-Clause
// adlib::print / to_string / print_layout: the exact text on the root.
// Pictures of small arrays are pinned letter by letter; every Range kind,
// sections, replicated arrays, ghost cells holding garbage, empty local
// blocks and summarised arrays are compared with the text the same layout
// code makes from a serial reference computed from global indices (so the
// gather, not the layout, is what those tests check).  Non-root ranks get
// empty strings.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <array>
#include <complex>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>

#include "expect_error_everywhere.hpp"
#include "world.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_print {

namespace {

using adlib::Index;
using adlib::Triplet;

/// The root's text is `expected`; every other rank's is empty.
void expect_root_text(const std::string& text, const std::string& expected, int root = 0) {
  if (adlib_test::world_rank() == root)
    EXPECT_EQ(text, expected);
  else
    EXPECT_EQ(text, "") << "rank " << adlib_test::world_rank() << " is not the root";
}

/// The text of an array whose element at `position` is value(position),
/// laid out serially (no gather): the reference of the distributed printers.
template <class T>
std::string reference_text(const std::vector<Index>& shape,
                           const std::function<T(const std::vector<Index>&)>& value,
                           const adlib::PrintOptions& options) {
  adlib::CellSeries cells;
  cells.cell = [&](const std::vector<Index>& position, const std::vector<Index>&) {
    return adlib::format_element(value(position), options);
  };
  return adlib::format_array_text(shape, adlib::shown_runs(shape, options), {cells}, options.name,
                                  options);
}

/// Element value from global indices: distinct for every element of the
/// arrays below (extents under 100).
template <int R>
long value_at(const std::array<Index, R>& g) {
  long v = 0;
  for (int d = 0; d < R; ++d) v = v * 100 + long(g[d]);
  return v;
}

/// An array of `specs` over `group`, ghost cells (and everything else)
/// first set to garbage, then every owned element to value_at(global).
template <int R>
adlib::DistArray<long, R> filled(const adlib::Group& group,
                                 const std::array<adlib::RangeSpec, R>& specs) {
  adlib::DistArray<long, R> a(group, specs);
  Kokkos::deep_copy(a.local_view(), -7L);
  a.fill([](const std::array<Index, R>& g) { return value_at<R>(g); });
  return a;
}

/// Prints `a` whole and summarised, and two sections of it (one with
/// negative strides), each against the serial reference.
template <int R>
void expect_prints_like_reference(const adlib::DistArray<long, R>& a, const std::string& what) {
  SCOPED_TRACE(what);
  std::vector<Index> shape(R);
  for (int d = 0; d < R; ++d) shape[d] = a.extent(d);
  std::array<Triplet, R> backwards, every_other;
  for (int d = 0; d < R; ++d) {
    backwards[d] = Triplet{shape[d] - 1, 0, -1 - d % 2};
    every_other[d] = Triplet{1, shape[d] - 1, 2};
  }
  const auto in = [](const std::array<Triplet, R>& t) {
    return [t](const std::vector<Index>& position) {
      std::array<Index, R> g;
      for (int d = 0; d < R; ++d) g[d] = t[d].lo + position[d] * t[d].stride;
      return value_at<R>(g);
    };
  };
  std::array<Triplet, R> whole;
  for (int d = 0; d < R; ++d) whole[d] = Triplet::all(shape[d]);

  for (const Index threshold : {Index(1000000), Index(10)}) {
    adlib::PrintOptions options;
    options.name = what;
    options.threshold = threshold;
    options.edge_items = 2;
    expect_root_text(adlib::to_string(a, options), reference_text<long>(shape, in(whole), options));
    for (const auto& t : {backwards, every_other}) {
      const adlib::DistArray<long, R> s = a.section(t);
      std::vector<Index> section_shape(R);
      for (int d = 0; d < R; ++d) section_shape[d] = t[d].count();
      expect_root_text(adlib::to_string(s, options),
                       reference_text<long>(section_shape, in(t), options));
    }
  }
}

TEST(Print, SmallMatrixExactText) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  adlib::DistArray<int, 2> a(grid, {adlib::block(3), adlib::cyclic(4)});
  a.fill([](const std::array<Index, 2>& g) { return int(g[0] * 10 + g[1]); });
  adlib::PrintOptions options;
  options.name = "a";
  expect_root_text(adlib::to_string(a, options),
                   "a [3 x 4]\n"
                   "    0  1  2  3\n"
                   "0   0  1  2  3\n"
                   "1  10 11 12 13\n"
                   "2  20 21 22 23\n");
  options.name = "";
  options.index_labels = false;
  expect_root_text(adlib::to_string(a, options),
                   " 0  1  2  3\n"
                   "10 11 12 13\n"
                   "20 21 22 23\n");
}

TEST(Print, SummarisedVectorExactText) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  adlib::DistArray<long, 1> v(line, {adlib::cyclic(2000)});
  v.fill([](const std::array<Index, 1>& g) { return long(g[0]); });
  expect_root_text(adlib::to_string(v),
                   "   0    1    2      1997 1998 1999\n"
                   "   0    1    2  ... 1997 1998 1999\n");
  // 1000 elements are not more than the threshold: all of them (wrapped).
  const std::string all = adlib::to_string(v.section({Triplet{0, 999, 1}}));
  if (comm.rank() == 0) {
    EXPECT_EQ(all.find("..."), std::string::npos);
    EXPECT_NE(all.find(" 999\n"), std::string::npos);
  }
}

TEST(Print, SummarisedSlicesExactText) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 3);
  adlib::DistArray<int, 3> t(grid, {adlib::block(3), adlib::cyclic(2), adlib::block_cyclic(3, 2)});
  t.fill([](const std::array<Index, 3>& g) { return int(g[0] * 100 + g[1] * 10 + g[2]); });
  adlib::PrintOptions options;
  options.name = "t";
  options.threshold = 5;
  options.edge_items = 1;
  expect_root_text(adlib::to_string(t, options),
                   "t [3 x 2 x 3]\n"
                   "[0, :, :]\n"
                   "     0       2\n"
                   "0    0 ...   2\n"
                   "1   10 ...  12\n"
                   "\n"
                   "...\n"
                   "\n"
                   "[2, :, :]\n"
                   "     0       2\n"
                   "0  200 ... 202\n"
                   "1  210 ... 212\n");
}

TEST(Print, ComplexAndFloatingElements) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  adlib::PrintOptions options;
  options.index_labels = false;
  const std::string expected =
      "0.25-0.5i 0.25+0.5i\n"
      "1.25-0.5i 1.25+0.5i\n";
  adlib::DistArray<std::complex<double>, 2> z(grid, {adlib::cyclic(2), adlib::block(2)});
  z.fill([](const std::array<Index, 2>& g) {
    return std::complex<double>(double(g[0]) + 0.25, double(g[1]) - 0.5);
  });
  expect_root_text(adlib::to_string(z, options), expected);
  adlib::DistArray<Kokkos::complex<double>, 2> k(grid, {adlib::block(2), adlib::cyclic(2)});
  k.fill([](const std::array<Index, 2>& g) {
    return Kokkos::complex<double>(double(g[0]) + 0.25, double(g[1]) - 0.5);
  });
  expect_root_text(adlib::to_string(k, options), expected);

  adlib::ProcessGrid line(comm, {comm.size()});
  adlib::DistArray<bool, 1> flags(line, {adlib::cyclic(3)});
  flags.fill([](const std::array<Index, 1>& g) { return g[0] != 1; });
  expect_root_text(adlib::to_string(flags, options), " true false  true\n");
  adlib::DistArray<signed char, 1> bytes(line, {adlib::block(2)});
  bytes.fill([](const std::array<Index, 1>& g) { return static_cast<signed char>(-65 - g[0]); });
  expect_root_text(adlib::to_string(bytes, options), "-65 -66\n");

  adlib::DistArray<double, 1> x(line, {adlib::block(4)});
  x.fill([](const std::array<Index, 1>& g) { return 1.0 / 3.0 * double(g[0]) - 0.5; });
  options.index_labels = true;
  options.precision = 3;
  expect_root_text(adlib::to_string(x, options),
                   "     0      1      2      3\n"
                   "  -0.5 -0.167  0.167    0.5\n");
  options.fixed = true;
  options.precision = 2;
  options.width = 6;
  expect_root_text(adlib::to_string(x, options),
                   "     0      1      2      3\n"
                   " -0.50  -0.17   0.17   0.50\n");
}

TEST(Print, LongRowsContinueInBlocks) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  adlib::DistArray<int, 1> v(line, {adlib::block(30)});
  v.fill([](const std::array<Index, 1>& g) { return int(g[0]); });
  adlib::PrintOptions options;
  options.line_width = 20;  // 7 cells of width 2 (and a space) per block
  std::string expected;
  for (int first = 0; first < 30; first += 7) {
    if (first > 0) expected += "\n";
    std::string row;
    for (int g = first; g < first + 7 && g < 30; ++g)
      row += (g > first ? " " : "") + std::string(g < 10 ? " " : "") + std::to_string(g);
    expected += row + "\n" + row + "\n";
  }
  expect_root_text(adlib::to_string(v, options), expected);
}

TEST(Print, EveryRangeKindAgainstTheReference) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid line(comm, {P});
  adlib::ProcessGrid plane = adlib::ProcessGrid::balanced(comm, 2);
  adlib::ProcessGrid cube = adlib::ProcessGrid::balanced(comm, 3);
  std::vector<Index> sizes = {5, 0, 7, 3};  // a rank with nothing from 2 ranks on
  sizes.resize(P);
  sizes[P - 1] += 2;

  expect_prints_like_reference<1>(filled<1>(line, {adlib::block(23)}), "block");
  expect_prints_like_reference<1>(filled<1>(line, {adlib::block(2)}), "block, empty blocks");
  expect_prints_like_reference<1>(filled<1>(line, {adlib::irregular_block(sizes)}), "irregular");
  expect_prints_like_reference<1>(filled<1>(line, {adlib::cyclic(23)}), "cyclic");
  expect_prints_like_reference<1>(filled<1>(line, {adlib::block_cyclic(23, 3)}), "block-cyclic");
  expect_prints_like_reference<1>(filled<1>(line, {adlib::block(23).ghosts(2, 1)}), "ghosts");
  expect_prints_like_reference<1>(filled<1>(line, {adlib::block(23).ghosts(1).periodic()}),
                                  "periodic ghosts");
  expect_prints_like_reference<1>(filled<1>(line, {adlib::collapsed(23)}), "replicated");

  expect_prints_like_reference<2>(filled<2>(plane, {adlib::block(13), adlib::cyclic(11)}),
                                  "block x cyclic");
  expect_prints_like_reference<2>(
      filled<2>(plane, {adlib::block(13).ghosts(1), adlib::block_cyclic(11, 2)}),
      "ghosts x block-cyclic");
  expect_prints_like_reference<2>(filled<2>(plane, {adlib::collapsed(5), adlib::block(9)}),
                                  "collapsed x block, replicated");
  expect_prints_like_reference<2>(filled<2>(adlib::Group(plane).restrict(0, plane.extent(0) - 1),
                                            {adlib::cyclic(7), adlib::collapsed(6)}),
                                  "on one row of the grid");
  expect_prints_like_reference<3>(
      filled<3>(plane, {adlib::block(5), adlib::cyclic(4), adlib::collapsed(6)}),
      "block x cyclic x collapsed");
  expect_prints_like_reference<3>(
      filled<3>(cube, {adlib::block(5), adlib::block_cyclic(6, 2), adlib::cyclic(4)}), "3-D grid");
}

TEST(Print, UnstructuredRange) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid line(comm, {P});
  const Index n = 23;
  std::vector<Index> mine;  // scrambled, descending
  for (Index g = n - 1; g >= 0; --g)
    if ((g * 7 + 3) % P == comm.rank()) mine.push_back(g);
  auto cells = std::make_shared<adlib::UnstructuredRange>(n, line.dim(0), mine);
  adlib::DistArray<long, 1> u(line, std::array<adlib::RangePtr, 1>{cells});
  u.fill([](const std::array<Index, 1>& g) { return value_at<1>(g); });
  expect_prints_like_reference<1>(u, "unstructured");

  // Its owners, found with Range::locate (collective): index 0 is the last
  // of its owner's list, index 22 the first of its owner's.
  adlib::PrintOptions options;
  options.name = "u";
  options.threshold = 4;
  options.edge_items = 1;
  const auto owner = [P](Index g) { return int((g * 7 + 3) % P); };
  Index last_local = -1;
  for (Index g = 0; g < n; ++g) last_local += owner(g) == owner(0);
  const auto cell = [](const std::string& s) { return std::string(3 - s.size(), ' ') + s; };
  expect_root_text(adlib::layout_to_string(u, options),
                   "u [23]\n"
                   "         0      22\n"
                   "rank   " +
                       cell(std::to_string(owner(0))) + " ... " + cell(std::to_string(owner(22))) +
                       "\n" + "local  " + cell(std::to_string(last_local)) + " ...   0\n");
}

TEST(Print, ChosenRootAndStream) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  adlib::DistArray<int, 1> v(line, {adlib::block(3)});
  v.fill([](const std::array<Index, 1>& g) { return int(g[0]) * 2; });
  adlib::PrintOptions options;
  options.root = comm.size() - 1;
  std::ostringstream out;
  options.stream = &out;
  adlib::print(v, options);
  const std::string expected = "0 1 2\n0 2 4\n";
  expect_root_text(out.str(), expected, options.root);
  expect_root_text(adlib::to_string(v, options), expected, options.root);

  adlib::DistArray<int, 2> empty(line, {adlib::block(0), adlib::collapsed(3)});
  options.name = "e";
  expect_root_text(adlib::to_string(empty, options), "e [0 x 3]\n(empty)\n", options.root);
}

TEST(Print, BadOptionsFailEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  adlib::DistArray<int, 1> v(line, {adlib::block(3)});
  adlib::PrintOptions options;
  options.root = comm.size();
  adlib_test::expect_error_everywhere([&] { adlib::print(v, options); }, "root");
  options.root = 0;
  options.edge_items = 0;
  adlib_test::expect_error_everywhere([&] { (void)adlib::to_string(v, options); }, "edge_items");
  options.edge_items = 3;
  options.root = -1;
  adlib_test::expect_error_everywhere([&] { adlib::print_layout(v, options); }, "root");
  options.root = 0;
  // Options that differ between ranks.
  options.threshold = comm.rank() == 0 ? 10 : 11;
  if (comm.size() > 1)
    adlib_test::expect_error_everywhere([&] { (void)adlib::to_string(v, options); },
                                        "differ between ranks");
}

TEST(PrintLayout, OneDimensionalPicturesExactText) {
  adlib::ProcessGrid three({3});  // planning only: the same text at any rank count
  adlib::PrintOptions options;
  options.name = "periodic";
  EXPECT_EQ(
      adlib::layout_to_string(
          adlib::ArrayLayout(three, {adlib::block(10).ghosts(1, 2).periodic().on(three.dim(0))}),
          options),
      "periodic [10]\n"
      "        0 1 2 3 4 5 6 7 8 9\n"
      "rank    0 0 0 1 1 1 2 2 2 2\n"
      "local   1 2 3 1 2 3 1 2 3 4\n"
      "ghosts  2 2 1 0 0 2 1 1 . 0\n");
  options.name = "c";
  EXPECT_EQ(
      adlib::layout_to_string(adlib::ArrayLayout(three, {adlib::collapsed(4).make()}), options),
      "c [4]\n"
      "           0     1     2     3\n"
      "rank   0/1/2 0/1/2 0/1/2 0/1/2\n"
      "local      0     1     2     3\n");
  adlib::ProcessGrid six({6});
  options.name = "six";
  options.index_labels = false;
  EXPECT_EQ(adlib::layout_to_string(adlib::ArrayLayout(six, {adlib::collapsed(2).make()}), options),
            "six [2]\n"
            "rank   0/1/+4 0/1/+4\n"
            "local       0      1\n");
  options.index_labels = true;
  options.name = "";
  options.threshold = 5;
  options.edge_items = 2;
  EXPECT_EQ(adlib::layout_to_string(
                adlib::ArrayLayout(three, {adlib::cyclic(100).on(three.dim(0))}), options),
            "array on grid(3) [cyclic(N=100, over grid(3) axis 0)] [100]\n"
            "         0   1      98  99\n"
            "rank     0   1 ...   2   0\n"
            "local    0   0 ...  32  33\n");
}

TEST(PrintLayout, CoordinatesOfATwoDimensionalLayout) {
  adlib::ProcessGrid grid({2, 2});
  adlib::PrintOptions options;
  options.name = "bc";
  options.layout_cells = adlib::LayoutCells::coordinates;
  const adlib::ArrayLayout layout(
      grid, adlib::bind_ranges(grid, {adlib::block_cyclic(5, 2), adlib::cyclic(3)}));
  EXPECT_EQ(adlib::layout_to_string(layout, options),
            "bc [5 x 3]\n"
            "       0     1     2\n"
            "0  (0,0) (0,1) (0,0)\n"
            "1  (0,0) (0,1) (0,0)\n"
            "2  (1,0) (1,1) (1,0)\n"
            "3  (1,0) (1,1) (1,0)\n"
            "4  (0,0) (0,1) (0,0)\n");
  const adlib::ArrayLayout ghosted(
      grid, adlib::bind_ranges(grid, {adlib::block(4).ghosts(1), adlib::block(3)}));
  const std::string text = adlib::layout_to_string(ghosted, options);
  EXPECT_EQ(text.substr(0, text.find("\n   ")),
            "bc [4 x 3]\nghosts (not drawn): dimension 0 low 1 high 1");
}

TEST(PrintLayout, RanksOfADistributedArray) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  const Index n = 7, m = 9;
  adlib::DistArray<double, 2> a(grid, {adlib::block(n), adlib::cyclic(m)});
  const int p0 = grid.extent(0), p1 = grid.extent(1);
  adlib::PrintOptions options;
  options.name = "a";
  adlib::CellSeries owners;
  owners.cell = [&](const std::vector<Index>& g, const std::vector<Index>&) {
    int row = 0;  // block owner, from the block formula of docs/ranges.md
    while ((row + 1) * n / p0 <= g[0]) ++row;
    return std::to_string(grid.rank_of({row, int(g[1] % p1)}));
  };
  const std::vector<Index> shape = {n, m};
  expect_root_text(
      adlib::layout_to_string(a, options),
      adlib::format_array_text(shape, adlib::shown_runs(shape, options), {owners}, "a", options));
}

}  // namespace

namespace {

TEST(PrintText, ShownRunsSummariseOnlyLongDimensions) {
  adlib::PrintOptions options;  // threshold 1000, edge_items 3
  const auto runs = adlib::shown_runs({10000000, 6, 10000000, 10000000}, options);
  ASSERT_EQ(runs.size(), 4u);  // 10^21 elements: no overflow, simply more than the threshold
  EXPECT_EQ(runs[0].size(), 2u);
  EXPECT_EQ(runs[0][1].first, 10000000 - 3);
  EXPECT_EQ(runs[1].size(), 1u);  // 6 = 2 * edge_items: all shown
  EXPECT_EQ(adlib::shown_count(runs[3]), 6);
  EXPECT_EQ(adlib::shown_runs({1000}, options)[0].size(), 1u);  // not more than the threshold
  EXPECT_TRUE(adlib::shown_runs({5, 0}, options)[1].empty());
}

}  // namespace

}  // namespace mpi_print
