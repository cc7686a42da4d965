// SPDX-License-Identifier: BSD-3-Clause
// The DAP's rules without MPI: valid descriptor sets for 1 to 4 simulated
// processes pass dap::first_violation, each broken set is refused with the
// rule it breaks (every rule at least once), the spec's padding example is
// valid, and the cyclic owned-index count matches a count by enumeration.
#include <gtest/gtest.h>

#include <set>

#include <adlib/ranges/dap_validation.hpp>
#include "dap_cases.hpp"

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
