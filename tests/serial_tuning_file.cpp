// SPDX-License-Identifier: BSD-3-Clause
// The tuning file that scripts/tune writes: its syntax, its strictness, where
// it is looked for, and its place beneath the environment variables.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/tuning_file.hpp>

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_tuning_file {

namespace {

using adlib::Configuration;
using adlib::TuningFile;

// A file of `text` in the temporary folder, removed with the object.
struct TemporaryFile {
  explicit TemporaryFile(const std::string& text) {
    path = "/tmp/adlib_tuning_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++) +
           ".conf";
    std::ofstream(path) << text;
  }
  ~TemporaryFile() { std::remove(path.c_str()); }
  std::string path;
  static inline int counter = 0;
};

// Sets an environment variable for one scope, then restores it.
struct ScopedVariable {
  ScopedVariable(const char* name, const char* value) : name(name) {
    if (const char* old = std::getenv(name)) previous = old, had = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedVariable() {
    if (had)
      setenv(name, previous.c_str(), 1);
    else
      unsetenv(name);
  }
  const char* name;
  std::string previous;
  bool had = false;
};

TEST(TuningFile, ReadsSettingsCommentsAndBlankLines) {
  const TemporaryFile file(
      "# written by scripts/tune\n\n  ADLIB_DATATYPE_MIN_BYTES = 4096  \n"
      "ADLIB_COLLECTIVE_PIECE_BYTES=65536\n   # indented comment\n");
  const TuningFile t = TuningFile::read(file.path);
  EXPECT_TRUE(t.found());
  EXPECT_EQ(t.error(), "");
  ASSERT_NE(t.value("ADLIB_DATATYPE_MIN_BYTES"), nullptr);
  EXPECT_STREQ(t.value("ADLIB_DATATYPE_MIN_BYTES"), "4096");
  EXPECT_STREQ(t.value("ADLIB_COLLECTIVE_PIECE_BYTES"), "65536");
  EXPECT_EQ(t.value("ADLIB_REDUCTION_LONG_BYTES"), nullptr);
  EXPECT_EQ(t.describe(),
            file.path + " (ADLIB_DATATYPE_MIN_BYTES=4096, ADLIB_COLLECTIVE_PIECE_BYTES=65536)");
}

TEST(TuningFile, MissingFileGivesTheDefaultsWithoutError) {
  const TuningFile t = TuningFile::read("/nonexistent/adlib/tuning.conf");
  EXPECT_FALSE(t.found());
  EXPECT_EQ(t.error(), "");
  EXPECT_TRUE(t.settings().empty());
  EXPECT_EQ(t.describe(), "/nonexistent/adlib/tuning.conf (not found: defaults)");
  EXPECT_EQ(TuningFile::read("").describe(), "none");
}

TEST(TuningFile, RejectsWhatItCannotTrustNamingFileAndLine) {
  for (const auto& [text, expected] : std::initializer_list<std::pair<std::string, std::string>>{
           {"ADLIB_DATATYPE_MIN_BYTES=1\nADLIB_CHECKED=1\n",
            "line 2 (\"ADLIB_CHECKED=1\") sets ADLIB_CHECKED, which is not a tuning setting"},
           {"# fine\nADLIB_DATATYPE_MIN_BYTES 4096\n",
            "line 2 (\"ADLIB_DATATYPE_MIN_BYTES 4096\") "
            "is not NAME=value"},
           {"ADLIB_DATATYPE_MIN_BYTES=1\nADLIB_DATATYPE_MIN_BYTES=2\n",
            "sets ADLIB_DATATYPE_MIN_BYTES a second time"}}) {
    const TemporaryFile file(text);
    const TuningFile t = TuningFile::read(file.path);
    EXPECT_NE(t.error().find(file.path), std::string::npos) << t.error();
    EXPECT_NE(t.error().find(expected), std::string::npos) << t.error();
    EXPECT_TRUE(t.settings().empty());  // nothing of a rejected file is used
  }
}

TEST(TuningFile, DefaultPathFollowsTheVariables) {
  {
    const ScopedVariable chosen("ADLIB_TUNING_FILE", "/some/where.conf");
    EXPECT_EQ(TuningFile::default_path(), "/some/where.conf");
  }
  {
    const ScopedVariable chosen("ADLIB_TUNING_FILE", "none");
    EXPECT_EQ(TuningFile::default_path(), "");
  }
  const ScopedVariable unset("ADLIB_TUNING_FILE", nullptr);
  {
    const ScopedVariable config("XDG_CONFIG_HOME", "/xdg");
    EXPECT_EQ(TuningFile::default_path(), "/xdg/adlib/tuning.conf");
  }
  const ScopedVariable no_config("XDG_CONFIG_HOME", nullptr);
  const ScopedVariable home("HOME", "/home/user");
  EXPECT_EQ(TuningFile::default_path(), "/home/user/.config/adlib/tuning.conf");
}

// default < file < environment variable; a bad value in the file is
// rejected as a bad environment value is.
TEST(TuningFile, SitsBeneathTheEnvironment) {
  const TemporaryFile file(
      "ADLIB_DATATYPE_MIN_BYTES=4096\nADLIB_REDUCTION_LONG_BYTES=512\n"
      "ADLIB_DENSE_DATATYPE_MAX_BYTES=32768\n");
  const ScopedVariable chosen("ADLIB_TUNING_FILE", file.path.c_str());
  {
    const ScopedVariable unset("ADLIB_DATATYPE_MIN_BYTES", nullptr);
    const ScopedVariable unset_long("ADLIB_REDUCTION_LONG_BYTES", nullptr);
    const ScopedVariable unset_dense("ADLIB_DENSE_DATATYPE_MAX_BYTES", nullptr);
    const Configuration c = Configuration::from_environment();
    EXPECT_EQ(c.datatype_min_bytes, 4096);
    EXPECT_EQ(c.dense_datatype_max_bytes, 32768);
    EXPECT_EQ(c.reduction_long_bytes, 512);
    EXPECT_EQ(c.collective_piece_bytes, Configuration{}.collective_piece_bytes);
  }
  {
    const ScopedVariable set("ADLIB_DATATYPE_MIN_BYTES", "100");
    const ScopedVariable unset_long("ADLIB_REDUCTION_LONG_BYTES", nullptr);
    EXPECT_EQ(Configuration::from_environment().datatype_min_bytes, 100);
  }
  const TemporaryFile bad("ADLIB_DATATYPE_MIN_BYTES=lots\n");
  const ScopedVariable chosen_bad("ADLIB_TUNING_FILE", bad.path.c_str());
  const ScopedVariable unset("ADLIB_DATATYPE_MIN_BYTES", nullptr);
  try {
    Configuration::from_environment();
    ADD_FAILURE() << "no adlib::Error";
  } catch (const adlib::Error& e) {
    EXPECT_NE(e.message().find("ADLIB_DATATYPE_MIN_BYTES=lots"), std::string::npos) << e.message();
  }
  const TemporaryFile unknown("ADLIB_TRANSFER=pack\n");
  const ScopedVariable chosen_unknown("ADLIB_TUNING_FILE", unknown.path.c_str());
  EXPECT_THROW(Configuration::from_environment(), adlib::Error);
}

}  // namespace

}  // namespace serial_tuning_file
