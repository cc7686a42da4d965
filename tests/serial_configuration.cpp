// SPDX-License-Identifier: BSD-3-Clause
// The strict parser of the ADLIB_* environment variables: every accepted
// spelling, the defaults, and rejections whose message names the variable,
// the value and the accepted values.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/error.hpp>

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_configuration {

namespace {

using adlib::Configuration;
using adlib::TransferMethod;

Configuration parse(const std::map<std::string, std::string>& variables) {
  return Configuration::parse([&](const char* name) -> const char* {
    auto it = variables.find(name);
    return it == variables.end() ? nullptr : it->second.c_str();
  });
}

// The message of the adlib::Error that parsing `variables` throws.
std::string rejection(const std::map<std::string, std::string>& variables) {
  try {
    parse(variables);
  } catch (const adlib::Error& e) {
    return e.message();
  }
  ADD_FAILURE() << "no adlib::Error";
  return {};
}

TEST(Configuration, DefaultsWhenUnsetOrEmpty) {
  for (const Configuration& c : {parse({}), parse({{"ADLIB_TRANSFER", ""},
                                                   {"ADLIB_DATATYPE_MIN_BYTES", ""},
                                                   {"ADLIB_CHECK_PEERS", ""},
                                                   {"ADLIB_GPU_AWARE_MPI", ""},
                                                   {"ADLIB_CHECKED", ""}})}) {
    EXPECT_EQ(c.transfer, TransferMethod::automatic);
    EXPECT_EQ(c.datatype_min_bytes, 16384);
    EXPECT_FALSE(c.check_peers);
    EXPECT_FALSE(c.gpu_aware_mpi);
    EXPECT_FALSE(c.checked);
    EXPECT_FALSE(c.merge_index_walks);
    EXPECT_EQ(c, Configuration{});
  }
}

// ADLIB_MERGE_INDEX_WALKS: a boolean, off by default, named by describe().
TEST(Configuration, MergeIndexWalksSetting) {
  EXPECT_FALSE(parse({{"ADLIB_MERGE_INDEX_WALKS", "0"}}).merge_index_walks);
  EXPECT_TRUE(parse({{"ADLIB_MERGE_INDEX_WALKS", "on"}}).merge_index_walks);
  EXPECT_NE(Configuration{}.describe().find("merge_index_walks=0"), std::string::npos);
  EXPECT_NE(rejection({{"ADLIB_MERGE_INDEX_WALKS", "sometimes"}})
                .find("ADLIB_MERGE_INDEX_WALKS=sometimes"),
            std::string::npos);
}

TEST(Configuration, EveryBooleanSpelling) {
  const char* variables[] = {"ADLIB_CHECK_PEERS", "ADLIB_GPU_AWARE_MPI", "ADLIB_CHECKED"};
  const std::map<std::string, bool> spellings = {
      {"1", true},   {"true", true},   {"on", true},   {"yes", true},    {"TRUE", true},
      {"On", true},  {"YES", true},    {"0", false},   {"false", false}, {"off", false},
      {"no", false}, {"FALSE", false}, {"Off", false}, {"NO", false}};
  for (const char* name : variables)
    for (const auto& [value, expected] : spellings) {
      const Configuration c = parse({{name, value}});
      const bool got = std::string(name) == "ADLIB_CHECK_PEERS"     ? c.check_peers
                       : std::string(name) == "ADLIB_GPU_AWARE_MPI" ? c.gpu_aware_mpi
                                                                    : c.checked;
      EXPECT_EQ(got, expected) << name << "=" << value;
    }
}

TEST(Configuration, GpuAwareFalseMeansFalse) {
  // Once, any value but "0" switched GPU-aware mode on.
  EXPECT_FALSE(parse({{"ADLIB_GPU_AWARE_MPI", "false"}}).gpu_aware_mpi);
  EXPECT_FALSE(parse({{"ADLIB_GPU_AWARE_MPI", "no"}}).gpu_aware_mpi);
  EXPECT_TRUE(parse({{"ADLIB_GPU_AWARE_MPI", "1"}}).gpu_aware_mpi);
}

TEST(Configuration, BooleanRejectionsNameVariableValueAndAcceptedValues) {
  for (const char* name : {"ADLIB_CHECK_PEERS", "ADLIB_GPU_AWARE_MPI", "ADLIB_CHECKED"})
    for (const char* bad : {"2", "y", "t", "enable", "true ", " 1", "0x1", "-1"}) {
      const std::string message = rejection({{name, bad}});
      EXPECT_NE(message.find(std::string(name) + "=" + bad), std::string::npos) << message;
      for (const char* accepted : {"1", "0", "true", "false", "on", "off", "yes", "no"})
        EXPECT_NE(message.find(accepted), std::string::npos) << message;
    }
}

TEST(Configuration, TransferSpellings) {
  EXPECT_EQ(parse({{"ADLIB_TRANSFER", "auto"}}).transfer, TransferMethod::automatic);
  EXPECT_EQ(parse({{"ADLIB_TRANSFER", "automatic"}}).transfer, TransferMethod::automatic);
  EXPECT_EQ(parse({{"ADLIB_TRANSFER", "pack"}}).transfer, TransferMethod::pack);
  EXPECT_EQ(parse({{"ADLIB_TRANSFER", "datatype"}}).transfer, TransferMethod::datatype);
  EXPECT_EQ(parse({{"ADLIB_TRANSFER", "Datatype"}}).transfer, TransferMethod::datatype);
  for (const char* bad : {"packed", "types", "1", "auto,pack"}) {
    const std::string message = rejection({{"ADLIB_TRANSFER", bad}});
    EXPECT_NE(message.find(std::string("ADLIB_TRANSFER=") + bad), std::string::npos) << message;
    for (const char* accepted : {"auto", "pack", "datatype"})
      EXPECT_NE(message.find(accepted), std::string::npos) << message;
  }
}

TEST(Configuration, DatatypeThreshold) {
  EXPECT_EQ(parse({{"ADLIB_DATATYPE_MIN_BYTES", "0"}}).datatype_min_bytes, 0);
  EXPECT_EQ(parse({{"ADLIB_DATATYPE_MIN_BYTES", "4096"}}).datatype_min_bytes, 4096);
  for (const char* bad : {"-1", "+5", " 7", "12kB", "1e3", "99999999999999999999999"}) {
    const std::string message = rejection({{"ADLIB_DATATYPE_MIN_BYTES", bad}});
    EXPECT_NE(message.find(std::string("ADLIB_DATATYPE_MIN_BYTES=") + bad), std::string::npos)
        << message;
    EXPECT_NE(message.find("non-negative number of bytes"), std::string::npos) << message;
  }
}

// ADLIB_DENSE_DATATYPE_MAX_BYTES: bytes, 0 (never) by default, named by
// describe(), refused like every byte count.
TEST(Configuration, DenseDatatypeLimit) {
  EXPECT_EQ(parse({}).dense_datatype_max_bytes, 0);
  EXPECT_EQ(parse({{"ADLIB_DENSE_DATATYPE_MAX_BYTES", "32768"}}).dense_datatype_max_bytes, 32768);
  EXPECT_NE(parse({{"ADLIB_DENSE_DATATYPE_MAX_BYTES", "32768"}})
                .describe()
                .find("dense_datatype_max_bytes=32768"),
            std::string::npos);
  const std::string message = rejection({{"ADLIB_DENSE_DATATYPE_MAX_BYTES", "32k"}});
  EXPECT_NE(message.find("ADLIB_DENSE_DATATYPE_MAX_BYTES=32k"), std::string::npos) << message;
}

TEST(Configuration, FingerprintSeesEveryField) {
  const Configuration base;
  Configuration c[7] = {base, base, base, base, base, base, base};
  c[0].transfer = TransferMethod::pack;
  c[1].datatype_min_bytes = 1;
  c[2].check_peers = true;
  c[3].gpu_aware_mpi = true;
  c[4].checked = true;
  c[5].merge_index_walks = !base.merge_index_walks;
  c[6].dense_datatype_max_bytes = 32768;
  for (const Configuration& x : c) {
    EXPECT_NE(x.fingerprint(), base.fingerprint()) << x.describe();
    EXPECT_NE(x, base);
  }
  EXPECT_EQ(Configuration{}.fingerprint(), base.fingerprint());
}

TEST(Configuration, EnvironmentIsReadOnce) {
  setenv("ADLIB_CHECKED", "1", 1);
  const Configuration& first = Configuration::environment();
  EXPECT_TRUE(first.checked);
  setenv("ADLIB_CHECKED", "0", 1);
  // The cached configuration does not change; a fresh parse does.
  EXPECT_TRUE(Configuration::environment().checked);
  EXPECT_EQ(&Configuration::environment(), &first);
  EXPECT_FALSE(Configuration::from_environment().checked);
  setenv("ADLIB_CHECKED", "maybe", 1);
  EXPECT_THROW(Configuration::from_environment(), adlib::Error);
  unsetenv("ADLIB_CHECKED");
}

// The lenient parse behind Configuration::environment() keeps the message
// instead of throwing, so that schedules can report it on every rank.
TEST(Configuration, RejectedValueIsRecordedForTheSchedulesToReport) {
  const auto lookup = [](const char* name) -> const char* {
    return std::string(name) == "ADLIB_CHECKED" ? "maybe" : nullptr;
  };
  const Configuration c = Configuration::parse_recording_errors(lookup);
  EXPECT_NE(c.error.find("ADLIB_CHECKED=maybe"), std::string::npos) << c.error;
  EXPECT_FALSE(c.checked);
  EXPECT_THROW(Configuration::parse(lookup), adlib::Error);
  EXPECT_EQ(Configuration::parse_recording_errors([](const char*) -> const char* {
              return nullptr;
            }).error,
            "");
}

}  // namespace

}  // namespace serial_configuration
