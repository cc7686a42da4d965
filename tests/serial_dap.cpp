// SPDX-License-Identifier: BSD-3-Clause
// The DAP's rules without MPI: valid descriptor sets for 1 to 4 simulated
// processes pass dap::first_violation, each broken set is refused with the
// rule it breaks (every rule at least once), the spec's padding example is
// valid, the cyclic owned-index count matches a count by enumeration, and
// import reads 'b' padding as ghosts exactly when one pair of widths holds
// it, else as the owned parts (dap_block_padding.hpp).
#include <gtest/gtest.h>

#include <set>

#include <adlib/ranges/dap_block_padding.hpp>
#include <adlib/ranges/dap_validation.hpp>
#include <adlib/ranges/process_grid.hpp>
#include "dap_cases.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_dap {

namespace {

using adlib::dap::first_violation;

TEST(DapValidation, ValidSetsPass) {
  for (int p = 1; p <= 4; ++p) {
    EXPECT_EQ(first_violation(adlib_test::base_case(p)), "") << p;
    EXPECT_EQ(first_violation(adlib_test::cyclic_case(p, 2 * p + 3, 2)), "") << p;
    EXPECT_EQ(first_violation(adlib_test::cyclic_case(p, 1, 1)), "") << p;  // empty blocks
    EXPECT_EQ(first_violation(adlib_test::unstructured_case(p, 2 * p + 3, true)), "") << p;
    EXPECT_EQ(first_violation(adlib_test::unstructured_case(p, 1, false)), "") << p;
    EXPECT_EQ(first_violation(adlib_test::block_case(std::vector<std::int64_t>(p, 2), 1)), "") << p;
    std::vector<std::int64_t> uneven(p, 0);
    uneven[0] = 5;
    EXPECT_EQ(first_violation(adlib_test::block_case(uneven)), "") << p;  // empty blocks
  }
}

TEST(DapValidation, SpecPaddingExampleIsValid) {
  EXPECT_EQ(first_violation(adlib_test::spec_padding_example()), "");
  for (const auto& d : adlib_test::spec_padding_example())
    EXPECT_EQ(d.buffer.shape[0], d.dim_data[0].stop - d.dim_data[0].start);
  // Owned: 7 (4 of them boundary padding), 5, 5, 4 = size 21.
  std::int64_t owned = 0;
  for (const auto& d : adlib_test::spec_padding_example())
    owned += adlib::dap::num_owned_indices(d.dim_data[0]);
  EXPECT_EQ(owned, 21);
}

// import_block's input from the dictionaries of each grid coordinate.
adlib::dap::BlockDimension along_axis(const std::vector<adlib::dap::DimensionData>& dims) {
  adlib::dap::BlockDimension b;
  b.size = dims.at(0).size;
  b.periodic = dims.at(0).periodic.value_or(false);
  for (const auto& d : dims) {
    b.start.push_back(d.start);
    b.stop.push_back(d.stop);
    b.padding_low.push_back(d.padding_or_zero()[0]);
    b.padding_high.push_back(d.padding_or_zero()[1]);
  }
  return b;
}

std::vector<adlib::dap::DimensionData> first_dimension(
    const std::vector<adlib::dap::Descriptor>& per_rank) {
  std::vector<adlib::dap::DimensionData> out;
  for (const auto& d : per_rank) out.push_back(d.dim_data[0]);
  return out;
}

// The Range of an imported block, on a simulated grid axis of p processes:
// its extent, ghost widths and each coordinate's first global index and count.
struct Read {
  adlib::Index extent, ghost_low, ghost_high;
  bool periodic;
  std::vector<adlib::Index> first, count;
  std::string describe;
};

Read read(const adlib::dap::ImportedBlock& b, int p) {
  adlib::ProcessGrid grid({p});
  const adlib::RangePtr r = b.range.on(grid.dim(0));
  Read out{r->extent(), r->ghost_low(), r->ghost_high(), r->periodic(), {}, {}, r->describe()};
  for (int c = 0; c < p; ++c) {
    out.count.push_back(r->local_count(c));
    out.first.push_back(r->local_count(c) ? r->global_index(c, r->ghost_low()) : -1);
  }
  return out;
}

TEST(DapBlockPadding, SpecExampleIsImportedAsOwnedParts) {
  // Paddings (4, 1) (1, 2) (2, 3) (3, 0): no pair of ghost widths.  Boundary
  // padding 4 and 0 leave 21 - 4 = 17 indices; each process owns its buffer
  // less its own padding, and its local block starts past its low padding.
  const auto b =
      adlib::dap::import_block(along_axis(first_dimension(adlib_test::spec_padding_example())));
  EXPECT_FALSE(b.padding_is_ghosts);
  EXPECT_EQ(b.buffer_offset, (std::vector<adlib::Index>{4, 1, 2, 3}));
  const Read r = read(b, 4);
  EXPECT_EQ(r.extent, 17);
  EXPECT_EQ(r.ghost_low, 0);
  EXPECT_EQ(r.ghost_high, 0);
  EXPECT_EQ(r.count, (std::vector<adlib::Index>{3, 5, 5, 4}));
  EXPECT_EQ(r.first, (std::vector<adlib::Index>{0, 3, 8, 13}));
}

TEST(DapBlockPadding, OnePairOfWidthsIsGhosts) {
  // (1, 1) everywhere: adlib's own export of block(n).ghosts(1), as before.
  const auto uniform =
      adlib::dap::import_block(along_axis(first_dimension(adlib_test::block_case({2, 3, 2}, 1))));
  EXPECT_TRUE(uniform.padding_is_ghosts);
  EXPECT_EQ(uniform.buffer_offset, (std::vector<adlib::Index>{0, 0, 0}));
  const Read r = read(uniform, 3);
  EXPECT_EQ(r.extent, 7);
  EXPECT_EQ(r.ghost_low, 1);
  EXPECT_EQ(r.ghost_high, 1);
  EXPECT_EQ(r.count, (std::vector<adlib::Index>{2, 3, 2}));
  EXPECT_EQ(r.first, (std::vector<adlib::Index>{0, 2, 5}));
  // Over one process any pair is ghost widths, padding only included.
  using Case = std::array<std::int64_t, 3>;  // low, high, owned
  for (const auto& [low, high, owned] : {Case{2, 3, 4}, Case{2, 3, 0}}) {
    const auto one =
        adlib::dap::import_block(along_axis(adlib_test::padded_block({owned}, low, high, {})));
    EXPECT_TRUE(one.padding_is_ghosts);
    const Read o = read(one, 1);
    EXPECT_EQ(o.extent, owned);
    EXPECT_EQ(o.ghost_low, low);
    EXPECT_EQ(o.ghost_high, high);
  }
}

TEST(DapBlockPadding, DifferingPaddingIsOwnedParts) {
  // Communication padding 1 then 2: owned blocks of BlockRange's sizes come
  // back as block(n), with no ghosts.
  const auto regular =
      adlib::dap::import_block(along_axis(adlib_test::padded_block({2, 2, 2}, 0, 0, {1, 2})));
  EXPECT_FALSE(regular.padding_is_ghosts);
  EXPECT_EQ(regular.buffer_offset, (std::vector<adlib::Index>{0, 1, 2}));
  adlib::ProcessGrid grid({3});
  EXPECT_EQ(read(regular, 3).describe, adlib::block(6).on(grid.dim(0))->describe());
  // The last process holds boundary padding only (and its neighbour's
  // communication padding 1 mirrors that boundary padding): it owns nothing.
  const auto empty =
      adlib::dap::import_block(along_axis(adlib_test::padded_block({3, 0}, 1, 2, {1})));
  EXPECT_FALSE(empty.padding_is_ghosts);
  EXPECT_EQ(empty.buffer_offset, (std::vector<adlib::Index>{1, 1}));
  const Read e = read(empty, 2);
  EXPECT_EQ(e.extent, 3);
  EXPECT_EQ(e.count, (std::vector<adlib::Index>{3, 0}));
  // Periodic stays periodic, ghosts or not.
  auto periodic = adlib_test::padded_block({2, 3}, 1, 1, {2});
  for (auto& d : periodic) d.periodic = true;
  const auto periodic_block = adlib::dap::import_block(along_axis(periodic));
  EXPECT_FALSE(periodic_block.padding_is_ghosts);
  EXPECT_TRUE(read(periodic_block, 2).periodic);
}

TEST(DapValidation, EveryRuleRefusesItsCase) {
  std::set<std::string> rules;
  for (int p = 1; p <= 4; ++p)
    for (const auto& c : adlib_test::invalid_cases(p)) {
      const std::string message = first_violation(c.per_rank);
      EXPECT_NE(message.find("DAP rule '" + c.rule + "'"), std::string::npos)
          << p << " processes, rule " << c.rule << ": " << message;
      EXPECT_NE(message.find("rank "), std::string::npos) << message;
      rules.insert(c.rule);
    }
  const std::set<std::string> all = {"version",
                                     "buffer format",
                                     "dim_data length",
                                     "dist_type",
                                     "size",
                                     "proc_grid_size",
                                     "proc_grid_rank",
                                     "block start",
                                     "block stop",
                                     "buffer shape",
                                     "padding",
                                     "block_size",
                                     "cyclic start",
                                     "unique indices",
                                     "element type",
                                     "dimension agreement",
                                     "proc_grid_size product",
                                     "process grid order",
                                     "identical dim_data along an axis",
                                     "block coverage",
                                     "communication padding",
                                     "adjacent block ranges",
                                     "communication padding width",
                                     "size consistency"};
  EXPECT_EQ(rules, all);
}

TEST(DapValidation, MessagesNameRuleDimensionAndRank) {
  auto d = adlib_test::base_case(3);
  d[2].dim_data[0].start += 1;
  d[2].dim_data[0].stop += 1;
  EXPECT_EQ(first_violation(d),
            "DAP rule 'block stop': dimension 0, rank 2: stop 10 outside start..size (7..9)");
  auto e = adlib_test::base_case(3);
  e[1].dim_data[0].start += 1;
  adlib_test::set_shape(e[1], e[1].dim_data[0].stop - e[1].dim_data[0].start);
  EXPECT_EQ(first_violation(e),
            "DAP rule 'adjacent block ranges': dimension 0, rank 1: start 4, but grid rank 0 "
            "stops at 3 with communication padding 0 + 0");
}

TEST(DapValidation, CyclicOwnedCountsMatchEnumeration) {
  for (std::int64_t size = 0; size <= 23; ++size)
    for (std::int64_t p = 1; p <= 5; ++p)
      for (std::int64_t b = 1; b <= 4; ++b)
        for (std::int64_t c = 0; c < p; ++c) {
          std::int64_t count = 0;
          for (std::int64_t g = 0; g < size; ++g) count += (g / b) % p == c;
          adlib::dap::DimensionData d;
          d.dist_type = 'c';
          d.size = size;
          d.proc_grid_size = p;
          d.proc_grid_rank = c;
          d.block_size = b;
          d.start = std::min(c * b, size);
          EXPECT_EQ(adlib::dap::num_owned_indices(d), count) << size << " " << p << " " << b;
        }
}

TEST(DapValidation, VersionsAndFormats) {
  EXPECT_EQ(adlib::dap::major_version("0.10.0"), 0);
  EXPECT_EQ(adlib::dap::major_version("12.3.4"), 12);
  EXPECT_EQ(adlib::dap::major_version("1.0"), -1);
  EXPECT_EQ(adlib::dap::major_version("1..0"), -1);
  EXPECT_EQ(adlib::dap::major_version("a.b.c"), -1);
  EXPECT_TRUE(adlib::dap::format_matches("<d", 8, "d", 8));
  EXPECT_TRUE(adlib::dap::format_matches("q", 8, "l", 8));
  EXPECT_FALSE(adlib::dap::format_matches("Q", 8, "l", 8));
  EXPECT_FALSE(adlib::dap::format_matches("f", 4, "d", 8));
  EXPECT_FALSE(adlib::dap::format_matches(">d", 8, "d", 8));  // big-endian
  EXPECT_EQ(adlib::dap::ElementFormat<double>::format(), "d");
  EXPECT_EQ(adlib::dap::ElementFormat<std::complex<double>>::format(), "Zd");
  EXPECT_EQ(adlib::dap::ElementFormat<std::complex<double>>::itemsize(), 16);
}

}  // namespace

}  // namespace serial_dap
