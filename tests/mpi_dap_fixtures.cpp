// SPDX-License-Identifier: BSD-3-Clause
// Every DAP fixture (tests/dap_fixtures: each example of the spec, and
// broken descriptors) whose process count is this run's, imported for real:
// each rank reads its descriptor, fills a buffer with values computed from
// the global indices as the DAP defines them (start + i for 'b', tiles
// dealt round-robin for 'c', the list for 'u'), imports it and remaps it
// into a native block array, whose values must be the same function of the
// global indices.  The spec's padding example, whose paddings fit no ghost
// width, is imported as the parts each process owns (the local block starts
// past the low padding).  Broken fixtures are refused with their rule on
// every rank; valid DAP that adlib cannot hold (negative 'u' indices) is
// refused on every rank with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include <adlib/adlib.hpp>
#include <adlib/ranges/dap_json.hpp>
#include "expect_error_everywhere.hpp"
#include "world.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_dap_fixtures {

namespace {

using adlib::Index;
using adlib::dap::Descriptor;

// DAP buffers here are host memory (std::vectors filled by hand, as another
// library's would be): the arrays over them, and the arrays compared with
// them, live in HostSpace (a GPU build's default memory space is the
// device's, which cannot address a std::vector).
using Space = Kokkos::HostSpace;

template <int R>
double value_at(const std::array<Index, R>& g) {
  double v = 0.5;
  for (int d = 0; d < R; ++d) v = v * 100 + double(g[d]);
  return v;
}

// The global index (adlib's: DAP index minus the low end padding) of each
// position of the buffer along dimension d.
std::vector<Index> globals_along(const Descriptor& desc, int d, Index low_end) {
  const adlib::dap::DimensionData dim =
      adlib::dap::resolved(desc.dim_data[d], desc.buffer.shape[d]);
  std::vector<Index> out;
  for (Index i = 0; i < desc.buffer.shape[d]; ++i) {
    if (dim.dist_type == 'b') {
      out.push_back(dim.start + i - low_end);
    } else if (dim.dist_type == 'c') {
      const Index b = dim.block_size.value_or(1);
      out.push_back(dim.start + (i / b) * dim.proc_grid_size * b + i % b);
    } else {
      out.push_back(dim.indices[static_cast<size_t>(i)]);
    }
  }
  return out;
}

template <int R>
void import_and_remap(Descriptor mine, const std::vector<Descriptor>& all) {
  Index elements = 1;
  for (auto e : mine.buffer.shape) elements *= e;
  std::vector<double> memory(static_cast<size_t>(std::max<Index>(elements, 1)), -1.0);
  mine.buffer.data = memory.data();
  std::array<std::vector<Index>, R> globals;
  for (int d = 0; d < R; ++d) {
    const auto& first = all[0].dim_data[d];  // grid rank 0 of every dimension is rank 0
    const Index low_end = first.empty ? 0 : first.padding_or_zero()[0];
    globals[d] = globals_along(mine, d, low_end);
  }
  for (Index flat = 0; flat < elements; ++flat) {  // C order over the buffer
    std::array<Index, R> g{};
    Index rest = flat, offset = 0;
    for (int d = R - 1; d >= 0; --d) {
      const Index i = rest % mine.buffer.shape[d];
      rest /= mine.buffer.shape[d];
      g[d] = globals[d][static_cast<size_t>(i)];
      offset += i * mine.buffer.strides[d] / 8;
    }
    memory[static_cast<size_t>(offset)] = value_at<R>(g);
  }
  auto a = adlib::dap::import_array<double, R, Space>(mine);
  // No copy: the local block is in the buffer, past the low padding that is
  // not ghost cells (a 'b' dimension's padding minus its ghost width).
  const std::vector<Index> block = a.layout().local_extents(a.process_rank());
  Index skipped = 0;
  for (int d = 0; d < R; ++d)
    if (!mine.dim_data[d].empty && mine.dim_data[d].dist_type == 'b')
      skipped += (mine.dim_data[d].padding_or_zero()[0] - a.layout().range(d).ghost_low()) *
                 mine.buffer.strides[d] / 8;
  if (std::find(block.begin(), block.end(), Index(0)) == block.end()) {
    EXPECT_EQ(a.local_view().data(), memory.data() + skipped);
  }
  const adlib::ProcessGrid& grid = a.layout().group().grid();
  std::vector<adlib::RangeSpec> specs;
  for (int d = 0; d < R; ++d)
    specs.push_back(d < grid.dimensions() ? adlib::block(a.extent(d))
                                          : adlib::collapsed(a.extent(d)));
  adlib::DistArray<double, R, Space> native(
      adlib::ArrayLayout(grid, adlib::bind_ranges(grid, specs)));
  adlib::remap(native, a);
  long long wrong = 0;
  native.host_mirror().for_each_local(
      [&](const auto& g, double v) { wrong += v != value_at<R>(g); });
  EXPECT_EQ(wrong, 0);
}

TEST(DapFixtures, ImportAtTheirProcessCount) {
  const int p = adlib_test::world_size(), me = adlib_test::world_rank();
  // Valid DAP that adlib refuses, and why.
  const std::map<std::string, std::string> refused = {{"spec_unstructured", "is outside 0..3"}};
  int imported = 0;
  bool padding_example = false;
  for (const auto& entry : std::filesystem::directory_iterator(ADLIB_DAP_FIXTURES)) {
    if (entry.path().extension() != ".json") continue;
    const std::string name = entry.path().stem().string();
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const auto all = adlib::dap::list_from_json(text.str());
    const int dims = static_cast<int>(all[0].dim_data.size());
    if (static_cast<int>(all.size()) != p || dims < 1 || dims > 2) continue;
    SCOPED_TRACE(name);
    const std::string expect = nlohmann::json::parse(text.str()).at("expect").get<std::string>();
    Descriptor mine = all[static_cast<size_t>(me)];
    std::vector<double> memory(64);
    mine.buffer.data = memory.data();
    const auto import = [&] {
      if (dims == 1)
        adlib::dap::import_array<double, 1, Space>(mine);
      else
        adlib::dap::import_array<double, 2, Space>(mine);
    };
    if (expect != "valid") {
      adlib_test::expect_error_everywhere(import, "DAP rule '" + expect + "'");
    } else if (refused.count(name)) {
      adlib_test::expect_error_everywhere(import, refused.at(name));
    } else if (dims == 1) {
      import_and_remap<1>(all[static_cast<size_t>(me)], all);
    } else {
      import_and_remap<2>(all[static_cast<size_t>(me)], all);
    }
    ++imported;
    padding_example = padding_example || name == "spec_padding_example";
  }
  EXPECT_GE(imported, 1);
  EXPECT_EQ(padding_example, p == 4);  // imported, not refused, at its 4 processes
}

}  // namespace

}  // namespace mpi_dap_fixtures
