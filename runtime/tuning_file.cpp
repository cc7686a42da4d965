// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/tuning_file.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>

namespace adlib {

namespace {

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

}  // namespace

const std::vector<std::string>& tunable_settings() {
  // The choices a CPU or an MPI library moves; switches that change what a
  // program asks for (ADLIB_CHECKED, ADLIB_TRANSFER, ...) stay with the
  // environment.
  static const std::vector<std::string> names = {
      "ADLIB_DATATYPE_MIN_BYTES",    "ADLIB_DENSE_DATATYPE_MAX_BYTES", "ADLIB_REDUCTION_LONG_BYTES",
      "ADLIB_REDUCTION_SPLIT_BYTES", "ADLIB_COLLECTIVE_PIECE_BYTES",   "ADLIB_MERGE_INDEX_WALKS"};
  return names;
}

std::string TuningFile::default_path() {
  if (const char* chosen = std::getenv("ADLIB_TUNING_FILE"); chosen && *chosen)
    return std::string(chosen) == "none" ? std::string() : std::string(chosen);
  if (const char* config = std::getenv("XDG_CONFIG_HOME"); config && *config)
    return std::string(config) + "/adlib/tuning.conf";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.config/adlib/tuning.conf";
  return {};
}

TuningFile TuningFile::read(const std::string& path) {
  TuningFile file;
  file.path_ = path;
  if (path.empty()) return file;
  std::ifstream in(path);
  if (!in) return file;  // never tuned: the defaults
  file.found_ = true;
  const auto& tunable = tunable_settings();
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = trimmed(line);
    if (text.empty() || text[0] == '#') continue;
    const auto equals = text.find('=');
    const std::string name = equals == std::string::npos ? text : trimmed(text.substr(0, equals));
    const std::string where = "the tuning file " + path + ", line " + std::to_string(number);
    std::string wrong;
    if (equals == std::string::npos)
      wrong = "is not NAME=value";
    else if (std::find(tunable.begin(), tunable.end(), name) == tunable.end()) {
      wrong = "sets " + name + ", which is not a tuning setting (a tuning file may set";
      for (const std::string& t : tunable) wrong += " " + t;
      wrong += ")";
    } else if (file.value(name.c_str()) != nullptr)
      wrong = "sets " + name + " a second time";
    if (!wrong.empty()) {
      file.error_ = where + " (\"" + text + "\") " + wrong;
      file.settings_.clear();
      return file;
    }
    file.settings_.emplace_back(name, trimmed(text.substr(equals + 1)));
  }
  return file;
}

const char* TuningFile::value(const char* name) const {
  for (const auto& [setting, value] : settings_)
    if (setting == name) return value.c_str();
  return nullptr;
}

std::string TuningFile::describe() const {
  if (path_.empty()) return "none";
  if (!found_) return path_ + " (not found: defaults)";
  if (!error_.empty()) return path_ + " (rejected: " + error_ + ")";
  std::string text = path_ + " (";
  for (std::size_t k = 0; k < settings_.size(); ++k)
    text += (k ? ", " : "") + settings_[k].first + "=" + settings_[k].second;
  return text + (settings_.empty() ? "no settings)" : ")");
}

}  // namespace adlib
