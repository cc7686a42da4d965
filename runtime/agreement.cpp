// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/agreement.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <utility>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/detail/verdict.hpp>
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {

// Every rank's `mine`, in rank order (two collectives: the counts, then the
// values).
template <class T>
std::vector<std::vector<T>> allgather_by_rank(const Comm& comm, const std::vector<T>& mine,
                                              MPI_Datatype type, const char* operation) {
  const auto size = static_cast<std::size_t>(comm.size());
  int count = static_cast<int>(mine.size());
  std::vector<int> counts(size), offsets(size);
  ADLIB_MPI(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, comm.get()), operation);
  int total = 0;
  for (std::size_t r = 0; r < size; ++r) {
    offsets[r] = total;
    total += counts[r];
  }
  std::vector<T> all(static_cast<std::size_t>(std::max(total, 1)));
  ADLIB_MPI(MPI_Allgatherv(mine.data(), count, type, all.data(), counts.data(), offsets.data(),
                           type, comm.get()),
            operation);
  std::vector<std::vector<T>> by_rank;
  for (std::size_t r = 0; r < size; ++r) {
    const auto first = all.begin() + offsets[r];
    by_rank.emplace_back(first, first + counts[r]);
  }
  return by_rank;
}

// The message for ranks that passed different arguments: the first entry
// that differs, its variants (in the order of their lowest rank) and who
// passes each.  At most this many variants are listed one by one.
constexpr std::size_t kListedVariants = 6;

[[noreturn]] void throw_mismatch(const Comm& comm, const std::vector<AgreedArgument>* arguments,
                                 std::uint64_t fingerprint, const char* operation) {
  std::vector<std::uint64_t> mine{detail::hash_text(operation)};
  if (arguments)
    for (const AgreedArgument& argument : *arguments) mine.push_back(argument.fingerprint);
  else
    mine.push_back(fingerprint);
  const std::vector<std::vector<std::uint64_t>> all =
      allgather_by_rank(comm, mine, MPI_UINT64_T, operation);
  std::size_t shortest = mine.size();
  for (const auto& entries : all) shortest = std::min(shortest, entries.size());
  // The first entry that differs; `shortest` when only the counts differ.
  std::size_t entry = 0;
  for (; entry < shortest; ++entry) {
    bool same = true;
    for (const auto& entries : all) same = same && entries[entry] == all[0][entry];
    if (!same) break;
  }
  // Ranks grouped by what they pass there, in the order of their lowest rank.
  std::vector<std::pair<std::uint64_t, std::vector<int>>> variants;
  for (int r = 0; r < comm.size(); ++r) {
    const auto& entries = all[static_cast<std::size_t>(r)];
    const std::uint64_t key = entry < shortest ? entries[entry] : entries.size();
    auto found = std::find_if(variants.begin(), variants.end(),
                              [&](const auto& variant) { return variant.first == key; });
    if (found == variants.end())
      variants.push_back({key, {r}});
    else
      found->second.push_back(r);
  }
  // What this rank passes there, in words; gathered from every rank.
  std::string name, mine_described;
  const bool named = arguments && entry >= 1 && entry < shortest;
  if (entry == 0) {
    name = "operation";
    mine_described = operation;
  } else if (named) {
    const AgreedArgument& argument = (*arguments)[entry - 1];
    name = argument.name;
    if (argument.describe) mine_described = argument.describe();
  } else if (entry < shortest) {
    name = "arguments";
  } else {
    name = "number of arguments";
    mine_described = std::to_string(mine.size() - 1);
  }
  std::vector<std::string> described;
  for (const std::vector<char>& text :
       allgather_by_rank(comm, std::vector<char>(mine_described.begin(), mine_described.end()),
                         MPI_CHAR, operation))
    described.emplace_back(text.begin(), text.end());
  std::string message = "arguments differ between ranks";
  if (name == "arguments")
    message +=
        " (every rank must pass the same layouts, element type, parameters and configuration to "
        "a collective call): ";
  else
    message += ": " + name + ": ";
  std::map<std::string, int> uses;
  for (const auto& variant : variants)
    ++uses[described[static_cast<std::size_t>(variant.second[0])]];
  for (std::size_t v = 0; v < variants.size() && v < kListedVariants; ++v) {
    const std::vector<int>& ranks = variants[v].second;
    std::string text = described[static_cast<std::size_t>(ranks[0])];
    // Two variants that read alike (a functor's state, a whole fingerprint)
    // are told apart by number.
    if (text.empty() || uses[text] > 1)
      text = (text.empty() ? std::string("variant ") : text + ", variant ") + std::to_string(v + 1);
    message += (v ? "; " : "") + text + " on rank" + (ranks.size() > 1 ? "s " : " ") +
               describe_ranks(ranks);
  }
  if (variants.size() > kListedVariants)
    message += "; and " + std::to_string(variants.size() - kListedVariants) + " more variants";
  throw Error(message, comm.rank(), operation);
}

}  // namespace

std::string describe_ranks(const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!text.empty()) text += ", ";
    text += std::to_string(ranks[i]);
    if (j >= i + 2)
      text += "-" + std::to_string(ranks[j]);
    else if (j == i + 1)
      text += ", " + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

std::uint64_t arguments_fingerprint(const std::vector<AgreedArgument>& arguments,
                                    const char* operation) {
  std::uint64_t h = detail::hash_mix(detail::hash_start(), detail::hash_text(operation));
  for (const AgreedArgument& argument : arguments) h = detail::hash_mix(h, argument.fingerprint);
  return h;
}

AgreedArgument agreed_combine(std::uint64_t fingerprint) {
  return {"combine", fingerprint, [fingerprint] { return op::describe(fingerprint); }};
}

AgreedArgument agreed_configuration(const Configuration& config) {
  return {"configuration", config.fingerprint(), [&config] { return config.describe(); }};
}

void agree_on_arguments(const Comm& comm, const std::string& local_error,
                        const std::vector<AgreedArgument>& arguments, const char* operation) {
  detail::agree(comm, local_error, arguments_fingerprint(arguments, operation), &arguments, nullptr,
                0, operation);
}

void agree_on_errors(const Comm& comm, const std::string& local_error, std::uint64_t fingerprint,
                     const char* operation) {
  detail::agree(comm, local_error, fingerprint, nullptr, nullptr, 0, operation);
}

namespace detail {

void agree(const Comm& comm, const std::string& local_error, std::uint64_t fingerprint,
           const std::vector<AgreedArgument>* arguments, std::uint64_t* extra, int extra_count,
           const char* operation) {
  if (extra_count > kMostExtraWords)
    throw Error("internal: " + std::to_string(extra_count) + " extra words in an agreement",
                comm.rank(), operation);
  // Without named arguments the fingerprint does not hold the operation's
  // name (arguments_fingerprint mixes it in): ranks in different collectives
  // whose fingerprints happen to be equal must still disagree.
  if (!arguments) fingerprint = hash_mix(fingerprint, hash_text(operation));
  std::uint64_t mine[3 + kMostExtraWords], all[3 + kMostExtraWords];
  mine[0] = local_error.empty() ? 0u : 1u;
  mine[1] = fingerprint;
  mine[2] = ~fingerprint;
  std::copy(extra, extra + extra_count, mine + 3);
  // Nonblocking whatever the watchdog's setting, so that ranks whose settings
  // differ still match here (a nonblocking collective never matches a
  // blocking one) and learn it from the schedules' agreement.
  ADLIB_MPI(detail::nonblocking_allreduce(mine, all, 3 + extra_count, MPI_UINT64_T, MPI_BOR,
                                          comm.get(), operation, "agreement on the arguments"),
            operation);
  std::copy(all + 3, all + 3 + extra_count, extra);
  const bool failed = all[0] != 0, mismatch = (all[1] & all[2]) != 0;
  if (!failed && !mismatch) return;
  if (!failed) throw_mismatch(comm, arguments, fingerprint, operation);
  // Someone failed: every rank throws the message of the lowest failing rank.
  int candidate = local_error.empty() ? comm.size() : comm.rank(), root = 0;
  ADLIB_MPI(MPI_Allreduce(&candidate, &root, 1, MPI_INT, MPI_MIN, comm.get()), operation);
  int length = static_cast<int>(local_error.size());
  ADLIB_MPI(MPI_Bcast(&length, 1, MPI_INT, root, comm.get()), operation);
  std::vector<char> text(local_error.begin(), local_error.end());
  text.resize(static_cast<std::size_t>(length));
  ADLIB_MPI(MPI_Bcast(text.data(), length, MPI_CHAR, root, comm.get()), operation);
  throw Error(std::string(text.begin(), text.end()), root, operation);
}

}  // namespace detail

}  // namespace adlib
