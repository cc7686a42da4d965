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

namespace {
std::int64_t parse_digits(const char* name, const std::string& value, const char* accepted) {
  char* end = nullptr;
  errno = 0;
  const long long bytes = std::strtoll(value.c_str(), &end, 10);
  // Digits only: no sign, no space, no suffix.
  const bool digits = !value.empty() && std::all_of(value.begin(), value.end(),
                                                    [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || end != value.c_str() + value.size() || errno != 0) reject(name, value, accepted);
  return bytes;
}
}  // namespace

std::int64_t parse_bytes_setting(const char* name, const std::string& value) {
  return parse_digits(name, value, "a non-negative number of bytes, in decimal digits");
}

std::int64_t parse_count_setting(const char* name, const std::string& value) {
  return parse_digits(name, value, "a non-negative count, in decimal digits");
}

const char* algorithm_name(ReductionAlgorithm algorithm) {
  switch (algorithm) {
    case ReductionAlgorithm::automatic:
      return "auto";
    case ReductionAlgorithm::mpi:
      return "mpi";
    case ReductionAlgorithm::recursive_doubling:
      return "recursive_doubling";
    case ReductionAlgorithm::reduce_scatter_allgather:
      return "reduce_scatter_allgather";
    case ReductionAlgorithm::ring:
      return "ring";
    case ReductionAlgorithm::node_aware:
      return "node_aware";
  }
  return "?";
}

const char* algorithm_name(BroadcastAlgorithm algorithm) {
  switch (algorithm) {
    case BroadcastAlgorithm::automatic:
      return "auto";
    case BroadcastAlgorithm::mpi:
      return "mpi";
    case BroadcastAlgorithm::binomial_tree:
      return "binomial_tree";
    case BroadcastAlgorithm::node_aware:
      return "node_aware";
  }
  return "?";
}

ReductionAlgorithm parse_reduction_setting(const char* name, const std::string& value) {
  const std::string v = lower(value);
  if (v == "automatic") return ReductionAlgorithm::automatic;
  for (auto a :
       {ReductionAlgorithm::automatic, ReductionAlgorithm::mpi,
        ReductionAlgorithm::recursive_doubling, ReductionAlgorithm::reduce_scatter_allgather,
        ReductionAlgorithm::ring, ReductionAlgorithm::node_aware})
    if (v == algorithm_name(a)) return a;
  reject(name, value,
         "auto (or automatic), mpi, recursive_doubling, reduce_scatter_allgather, ring, "
         "node_aware");
}

BroadcastAlgorithm parse_broadcast_setting(const char* name, const std::string& value) {
  const std::string v = lower(value);
  if (v == "automatic") return BroadcastAlgorithm::automatic;
  for (auto a : {BroadcastAlgorithm::automatic, BroadcastAlgorithm::mpi,
                 BroadcastAlgorithm::binomial_tree, BroadcastAlgorithm::node_aware})
    if (v == algorithm_name(a)) return a;
  reject(name, value, "auto (or automatic), mpi, binomial_tree, node_aware");
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
  if (value("ADLIB_DENSE_DATATYPE_MAX_BYTES", v))
    c.dense_datatype_max_bytes = parse_bytes_setting("ADLIB_DENSE_DATATYPE_MAX_BYTES", v);
  if (value("ADLIB_CHECK_PEERS", v)) c.check_peers = parse_bool_setting("ADLIB_CHECK_PEERS", v);
  if (value("ADLIB_GPU_AWARE_MPI", v))
    c.gpu_aware_mpi = parse_bool_setting("ADLIB_GPU_AWARE_MPI", v);
  if (value("ADLIB_CHECKED", v)) c.checked = parse_bool_setting("ADLIB_CHECKED", v);
  if (value("ADLIB_FORCE_STAGING", v))
    c.force_staging = parse_bool_setting("ADLIB_FORCE_STAGING", v);
  if (value("ADLIB_REDUCTION", v)) c.reduction = parse_reduction_setting("ADLIB_REDUCTION", v);
  if (value("ADLIB_BROADCAST", v)) c.broadcast = parse_broadcast_setting("ADLIB_BROADCAST", v);
  if (value("ADLIB_REDUCTION_LONG_BYTES", v))
    c.reduction_long_bytes = parse_bytes_setting("ADLIB_REDUCTION_LONG_BYTES", v);
  if (value("ADLIB_REDUCTION_SPLIT_BYTES", v))
    c.reduction_split_bytes = parse_bytes_setting("ADLIB_REDUCTION_SPLIT_BYTES", v);
  if (value("ADLIB_RANKS_PER_NODE", v))
    c.ranks_per_node = parse_count_setting("ADLIB_RANKS_PER_NODE", v);
  if (value("ADLIB_COLLECTIVE_PIECE_BYTES", v))
    c.collective_piece_bytes = parse_bytes_setting("ADLIB_COLLECTIVE_PIECE_BYTES", v);
  if (value("ADLIB_MERGE_INDEX_WALKS", v))
    c.merge_index_walks = parse_bool_setting("ADLIB_MERGE_INDEX_WALKS", v);
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
// An environment variable, else the tuning file's value, else nullptr (the
// default).
std::function<const char*(const char*)> environment_over(const TuningFile& file) {
  return [&file](const char* name) -> const char* {
    const char* set = std::getenv(name);
    if (set != nullptr && *set != '\0') return set;
    return file.value(name);
  };
}
}  // namespace

Configuration Configuration::from_environment() {
  const TuningFile file = TuningFile::read(TuningFile::default_path());
  if (!file.error().empty()) throw Error(file.error(), -1, "Configuration");
  return parse(environment_over(file));
}

const TuningFile& Configuration::tuning_file() {
  static const TuningFile file = TuningFile::read(TuningFile::default_path());
  return file;
}

const Configuration& Configuration::environment() {
  // A function-local static: initialised once, thread-safely.  It cannot
  // throw: the schedules report a rejected value collectively.
  static const Configuration configuration = [] {
    const TuningFile& file = tuning_file();
    if (!file.error().empty()) {
      Configuration defaults;
      defaults.error = file.error();
      return defaults;
    }
    return parse_recording_errors(environment_over(file));
  }();
  return configuration;
}

std::uint64_t Configuration::fingerprint() const {
  std::uint64_t h = detail::hash_start();
  h = detail::hash_mix(h, static_cast<std::uint64_t>(transfer));
  h = detail::hash_mix(h, static_cast<std::uint64_t>(datatype_min_bytes));
  h = detail::hash_mix(h, static_cast<std::uint64_t>(dense_datatype_max_bytes));
  h = detail::hash_mix(h, check_peers);
  h = detail::hash_mix(h, gpu_aware_mpi);
  h = detail::hash_mix(h, checked);
  h = detail::hash_mix(h, force_staging);
  h = detail::hash_mix(h, static_cast<std::uint64_t>(reduction));
  h = detail::hash_mix(h, static_cast<std::uint64_t>(broadcast));
  h = detail::hash_mix(h, static_cast<std::uint64_t>(reduction_long_bytes));
  h = detail::hash_mix(h, static_cast<std::uint64_t>(reduction_split_bytes));
  h = detail::hash_mix(h, static_cast<std::uint64_t>(ranks_per_node));
  h = detail::hash_mix(h, static_cast<std::uint64_t>(collective_piece_bytes));
  h = detail::hash_mix(h, merge_index_walks);
  return h;
}

std::string Configuration::describe() const {
  return std::string("transfer=") + transfer_method_name(transfer) +
         " datatype_min_bytes=" + std::to_string(datatype_min_bytes) +
         " dense_datatype_max_bytes=" + std::to_string(dense_datatype_max_bytes) +
         " check_peers=" + (check_peers ? "1" : "0") +
         " gpu_aware_mpi=" + (gpu_aware_mpi ? "1" : "0") + " checked=" + (checked ? "1" : "0") +
         " force_staging=" + (force_staging ? "1" : "0") +
         " reduction=" + algorithm_name(reduction) + " broadcast=" + algorithm_name(broadcast) +
         " reduction_long_bytes=" + std::to_string(reduction_long_bytes) +
         " reduction_split_bytes=" + std::to_string(reduction_split_bytes) +
         " ranks_per_node=" + std::to_string(ranks_per_node) +
         " collective_piece_bytes=" + std::to_string(collective_piece_bytes) +
         " merge_index_walks=" + (merge_index_walks ? "1" : "0");
}

bool Configuration::operator==(const Configuration& o) const {
  return transfer == o.transfer && datatype_min_bytes == o.datatype_min_bytes &&
         dense_datatype_max_bytes == o.dense_datatype_max_bytes && check_peers == o.check_peers &&
         gpu_aware_mpi == o.gpu_aware_mpi && checked == o.checked &&
         force_staging == o.force_staging && reduction == o.reduction && broadcast == o.broadcast &&
         reduction_long_bytes == o.reduction_long_bytes &&
         reduction_split_bytes == o.reduction_split_bytes && ranks_per_node == o.ranks_per_node &&
         collective_piece_bytes == o.collective_piece_bytes && error == o.error &&
         merge_index_walks == o.merge_index_walks;
}

}  // namespace adlib
