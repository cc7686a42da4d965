// SPDX-License-Identifier: BSD-3-Clause
// The JSON form of DAP descriptors: every fixture under tests/dap_fixtures
// (each example of the spec, and broken descriptors) reads and gets the
// verdict it expects from the validator; text -> descriptor -> text is the
// identity on canonical text; malformed text, missing keys and wrong types
// are errors that name the place.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <adlib/ranges/dap_json.hpp>
#include <adlib/ranges/dap_validation.hpp>
#include <adlib/runtime/error.hpp>
#include "dap_cases.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_dap_json {

namespace {

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DapJson, FixturesGetTheirVerdicts) {
  int fixtures = 0, spec_examples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ADLIB_DAP_FIXTURES)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const std::string text = read(entry.path());
    const std::string expect = nlohmann::json::parse(text).at("expect").get<std::string>();
    const auto per_rank = adlib::dap::list_from_json(text);
    ASSERT_FALSE(per_rank.empty());
    const std::string verdict = adlib::dap::first_violation(per_rank);
    if (expect == "valid")
      EXPECT_EQ(verdict, "");
    else
      EXPECT_NE(verdict.find("DAP rule '" + expect + "'"), std::string::npos) << verdict;
    // The text form round-trips: the descriptors written and read again are the same.
    const auto again = adlib::dap::list_from_json(adlib::dap::to_json(per_rank));
    EXPECT_EQ(adlib::dap::to_json(again), adlib::dap::to_json(per_rank));
    ++fixtures;
    spec_examples += entry.path().filename().string().rfind("spec_", 0) == 0;
  }
  EXPECT_GE(spec_examples, 12);
  EXPECT_GE(fixtures, 19);
}

TEST(DapJson, DescriptorsRoundTrip) {
  for (int p = 1; p <= 3; ++p)
    for (const auto& set : {adlib_test::base_case(p), adlib_test::cyclic_case(p, 7, 2),
                            adlib_test::unstructured_case(p, 5, false),
                            adlib_test::block_case(std::vector<std::int64_t>(p, 2), 1),
                            adlib_test::spec_padding_example()}) {
      const std::string text = adlib::dap::to_json(set);
      const auto back = adlib::dap::list_from_json(text);
      ASSERT_EQ(back.size(), set.size());
      for (size_t r = 0; r < set.size(); ++r) {
        EXPECT_EQ(back[r].buffer.shape, set[r].buffer.shape);
        EXPECT_EQ(back[r].buffer.strides, set[r].buffer.strides);
        EXPECT_EQ(back[r].buffer.data, nullptr);
        ASSERT_EQ(back[r].dim_data.size(), set[r].dim_data.size());
        for (size_t d = 0; d < set[r].dim_data.size(); ++d) {
          const auto &x = back[r].dim_data[d], &y = set[r].dim_data[d];
          EXPECT_EQ(x.empty, y.empty);
          EXPECT_EQ(x.dist_type, y.dist_type);
          EXPECT_EQ(x.start, y.start);
          EXPECT_EQ(x.stop, y.stop);
          EXPECT_EQ(x.padding, y.padding);
          EXPECT_EQ(x.block_size, y.block_size);
          EXPECT_EQ(x.indices, y.indices);
          EXPECT_EQ(x.one_to_one, y.one_to_one);
        }
      }
      EXPECT_EQ(adlib::dap::to_json(back), text);
    }
}

TEST(DapJson, StridesDefaultToCOrder) {
  const auto d = adlib::dap::from_json(
      R"({"__version__": "0.10.0", "buffer": {"format": "i", "itemsize": 4, "shape": [2, 3, 5]},
          "dim_data": [{}, {}, {}]})");
  EXPECT_EQ(d.buffer.strides, (std::vector<std::int64_t>{60, 20, 4}));
  EXPECT_TRUE(d.dim_data[1].empty);
  EXPECT_EQ(adlib::dap::first_violation({d}), "");
}

void expect_malformed(const std::string& text, const std::string& needle) {
  try {
    adlib::dap::from_json(text);
    ADD_FAILURE() << "no error for " << text;
  } catch (const adlib::Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(DapJson, MalformedTextIsAnError) {
  const std::string buffer = R"("buffer": {"format": "d", "itemsize": 8, "shape": [4]})";
  expect_malformed("{", "text");
  expect_malformed("[]", "descriptor: expected an object");
  expect_malformed("{" + buffer + R"(, "dim_data": [{}]})", "missing key '__version__'");
  expect_malformed(
      R"({"__version__": "0.10.0", )" + buffer + R"(, "dim_data": [{"dist_type": "b"}]})",
      "descriptor.dim_data[0]: missing key 'size'");
  expect_malformed(R"({"__version__": "0.10.0", )" + buffer +
                       R"(, "dim_data": [{"dist_type": "b", "size": 4.5}]})",
                   "descriptor.dim_data[0].size: expected an integer");
  expect_malformed(R"({"__version__": "0.10.0", )" + buffer +
                       R"(, "dim_data": [{"dist_type": "bb", "size": 4}]})",
                   "one-letter string");
  expect_malformed(R"({"__version__": "0.10.0", )" + buffer +
                       R"(, "dim_data": [{"dist_type": "b", "size": 4, "proc_grid_size": 1,
                           "proc_grid_rank": 0, "start": 0, "stop": 4, "padding": [1]}]})",
                   "expected two widths");
  expect_malformed(R"({"__version__": "0.10.0", )" + buffer +
                       R"(, "dim_data": [{"dist_type": "u", "size": 4, "proc_grid_size": 1,
                           "proc_grid_rank": 0, "indices": [1, 2], "one_to_one": 1}]})",
                   "expected true or false");
  expect_malformed(R"({"__version__": "0.10.0", "buffer": {"format": "d", "itemsize": 8,
                      "shape": [18446744073709551615]}, "dim_data": [{}]})",
                   "integer too large");
}

}  // namespace

}  // namespace serial_dap_json
