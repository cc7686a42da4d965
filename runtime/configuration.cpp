// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/configuration.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {

[[noreturn]] void reject(const char* name, const std::string& value, const char* accepted) {
  throw Error(std::string(name) + "=" + value + " is not accepted; accepted values: " + accepted,
              -1, "Configuration");
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

bool parse_bool_setting(const char* name, const std::string& value) {
  const std::string v = lower(value);
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  reject(name, value, "1, 0, true, false, on, off, yes, no (any letter case)");
}

TransferMethod parse_transfer_setting(const char* name, const std::string& value) {
  const std::string v = lower(value);
  if (v == "auto" || v == "automatic") return TransferMethod::automatic;
  if (v == "pack") return TransferMethod::pack;
  if (v == "datatype") return TransferMethod::datatype;
  reject(name, value, "auto (or automatic), pack, datatype");
}

std::int64_t parse_bytes_setting(const char* name, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const long long bytes = std::strtoll(value.c_str(), &end, 10);
  // Digits only: no sign, no space, no suffix.
  const bool digits = !value.empty() && std::all_of(value.begin(), value.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || end != value.c_str() + value.size() || errno != 0)
    reject(name, value, "a non-negative number of bytes, in decimal digits");
  return bytes;
}

const char* transfer_method_name(TransferMethod method) {
  switch (method) {
    case TransferMethod::automatic:
      return "auto";
    case TransferMethod::pack:
      return "pack";
    case TransferMethod::datatype:
      return "datatype";
  }
  return "?";
}

Configuration Configuration::parse(const std::function<const char*(const char*)>& lookup) {
  Configuration c;
  auto value = [&](const char* name, std::string& out) {
    const char* v = lookup(name);
    if (!v || !*v) return false;  // unset or empty: the default
    out = v;
    return true;
  };
  std::string v;
  if (value("ADLIB_TRANSFER", v)) c.transfer = parse_transfer_setting("ADLIB_TRANSFER", v);
  if (value("ADLIB_DATATYPE_MIN_BYTES", v))
    c.datatype_min_bytes = parse_bytes_setting("ADLIB_DATATYPE_MIN_BYTES", v);
  if (value("ADLIB_CHECK_PEERS", v)) c.check_peers = parse_bool_setting("ADLIB_CHECK_PEERS", v);
  if (value("ADLIB_GPU_AWARE_MPI", v))
    c.gpu_aware_mpi = parse_bool_setting("ADLIB_GPU_AWARE_MPI", v);
  if (value("ADLIB_CHECKED", v)) c.checked = parse_bool_setting("ADLIB_CHECKED", v);
  if (value("ADLIB_FORCE_STAGING", v))
    c.force_staging = parse_bool_setting("ADLIB_FORCE_STAGING", v);
  return c;
}

Configuration Configuration::parse_recording_errors(
    const std::function<const char*(const char*)>& lookup) {
  try {
    return parse(lookup);
  } catch (const Error& e) {
    Configuration defaults;
    defaults.error = e.message();
    return defaults;
  }
}

namespace {
const char* environment_variable(const char* name) {
  return std::getenv(name);
}
}  // namespace

Configuration Configuration::from_environment() {
  return parse(environment_variable);
}

const Configuration& Configuration::environment() {
  // A function-local static: initialised once, thread-safely.  It cannot
  // throw: the schedules report a rejected value collectively.
  static const Configuration configuration = parse_recording_errors(environment_variable);
  return configuration;
}

std::uint64_t Configuration::fingerprint() const {
  std::uint64_t h = detail::hash_start();
  h = detail::hash_mix(h, static_cast<std::uint64_t>(transfer));
  h = detail::hash_mix(h, static_cast<std::uint64_t>(datatype_min_bytes));
  h = detail::hash_mix(h, check_peers);
  h = detail::hash_mix(h, gpu_aware_mpi);
  h = detail::hash_mix(h, checked);
  h = detail::hash_mix(h, force_staging);
  return h;
}

std::string Configuration::describe() const {
  return std::string("transfer=") + transfer_method_name(transfer) +
         " datatype_min_bytes=" + std::to_string(datatype_min_bytes) +
         " check_peers=" + (check_peers ? "1" : "0") +
         " gpu_aware_mpi=" + (gpu_aware_mpi ? "1" : "0") + " checked=" + (checked ? "1" : "0") +
         " force_staging=" + (force_staging ? "1" : "0");
}

bool Configuration::operator==(const Configuration& o) const {
  return transfer == o.transfer && datatype_min_bytes == o.datatype_min_bytes &&
         check_peers == o.check_peers && gpu_aware_mpi == o.gpu_aware_mpi && checked == o.checked &&
         force_staging == o.force_staging && error == o.error;
}

}  // namespace adlib
