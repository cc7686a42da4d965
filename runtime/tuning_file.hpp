// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::TuningFile: the settings this machine measured for itself.
/// `scripts/tune` times the choices that depend on the CPU and the MPI
/// library (today: from what size a message of scattered short rows
/// travels as an MPI datatype instead of packed) and writes them to a file
/// that Configuration::environment() reads, beneath the environment:
///
/// @verbatim
///   default value  <  tuning file  <  ADLIB_* environment variable
/// @endverbatim
///
/// The file is `$ADLIB_TUNING_FILE` when that is set (`none`: no file), else
/// `$XDG_CONFIG_HOME/adlib/tuning.conf`, else `$HOME/.config/adlib/tuning.conf`.
/// It holds `NAME=value` lines with the names and the values the environment
/// variables take (`ADLIB_DATATYPE_MIN_BYTES=8192`), comments (lines that
/// start with a hash sign) and blank lines.
///
/// Only the measured thresholds may appear (kTunableSettings); any other
/// name, or a line that is not NAME=value, is an error that the first
/// schedule reports on every rank, as a bad environment value is.  Every
/// rank must read the same values (schedules agree on their whole
/// Configuration): on a cluster, one file shared by the nodes of one kind,
/// or the same file on each.  docs/configuration.md has the user's view.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace adlib {

/// The settings a tuning file may give: the ADLIB_* thresholds that a
/// measurement on the machine chooses.
const std::vector<std::string>& tunable_settings();

/// One tuning file, read (see the file overview).  A value object.
class TuningFile {
 public:
  /// Where Configuration::environment() looks: $ADLIB_TUNING_FILE, else the
  /// user's configuration folder (see the file overview); empty when
  /// ADLIB_TUNING_FILE is `none` or no folder is known.
  static std::string default_path();

  /// Reads `path`.  A file that does not exist gives no settings and no
  /// error (a machine that was never tuned); a file that cannot be parsed
  /// gives error() naming the file, the line and what is wrong.
  static TuningFile read(const std::string& path);

  /// The value the file gives `name`, or nullptr.
  const char* value(const char* name) const;
  /// The file read (empty: none).
  const std::string& path() const { return path_; }
  /// Whether the file existed.
  bool found() const { return found_; }
  /// Empty, or why the file was rejected (it then gives no settings).
  const std::string& error() const { return error_; }
  /// The settings, in file order.
  const std::vector<std::pair<std::string, std::string>>& settings() const { return settings_; }
  /// "path (NAME=value, ...)", "path (not found: defaults)" or "none".
  std::string describe() const;

 private:
  std::string path_;
  bool found_ = false;
  std::string error_;
  std::vector<std::pair<std::string, std::string>> settings_;
};

}  // namespace adlib
