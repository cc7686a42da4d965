// SPDX-License-Identifier: BSD-3-Clause
// LIM-PACK-OMP (SCENARIOS.md, bench/README.md): what the host index kernels
// (runtime/detail/index_list_kernels.hpp) make of one large index-list
// message with the threads Kokkos gives them.  One rank (NP=1: a second
// rank would busy-poll at the barrier on a core the threads need), run at
// OMP_NUM_THREADS=1 and 2 by scripts/bench-openmp; each line's impl names
// its thread count, and memcpy of the message's bytes stands beside them.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/detail/index_list_kernels.hpp>
#include <adlib/runtime/index_list.hpp>

#include "common.hpp"

namespace bench {

namespace {

constexpr std::int64_t kMessage = std::int64_t(1) << 23;  // doubles in the message (64 MiB)
constexpr std::int64_t kArray = std::int64_t(1) << 24;    // doubles in the array (128 MiB)

// splitmix64, as the GA1 generator.
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// The three target patterns: `random`, kMessage distinct offsets of the
// array in random order (the first kMessage of a shuffle of all of it);
// `sorted`, the same offsets ascending; `repeated`, kMessage offsets drawn
// with replacement from the array's first quarter, in random order (each
// target about twice, the pieces then own ranges of targets).
std::vector<std::int64_t> targets(const std::string& pattern) {
  std::uint64_t state = 20261127;
  std::vector<std::int64_t> out;
  if (pattern == "repeated") {
    out.resize(static_cast<std::size_t>(kMessage));
    for (auto& t : out) t = static_cast<std::int64_t>(next_random(state) % (kArray / 4));
    return out;
  }
  out.resize(static_cast<std::size_t>(kArray));
  std::iota(out.begin(), out.end(), std::int64_t(0));
  for (std::int64_t k = 0; k < kMessage; ++k) {
    const auto j = k + static_cast<std::int64_t>(next_random(state) % (kArray - k));
    std::swap(out[static_cast<std::size_t>(k)], out[static_cast<std::size_t>(j)]);
  }
  out.resize(static_cast<std::size_t>(kMessage));
  if (pattern == "sorted") std::sort(out.begin(), out.end());
  return out;
}

void pack_case() {
  const std::string name = "LIM-PACK-OMP";
  if (size() != 1) {
    if (rank() == 0)
      std::fprintf(stderr, "adlib_bench: %s runs on one rank (NP=1), skipped\n", name.c_str());
    return;
  }
  const Kokkos::DefaultHostExecutionSpace space;
  const std::string threads = "-t" + std::to_string(space.concurrency());
  const double bytes = static_cast<double>(kMessage) * sizeof(double);
  std::vector<double> array(static_cast<std::size_t>(kArray)),
      buffer(static_cast<std::size_t>(kMessage));
  auto initial = [](std::int64_t i) { return static_cast<double>(i % 4099); };

  // memcpy of the message's bytes: the bandwidth one core gets.
  {
    std::vector<double> from(static_cast<std::size_t>(kMessage), 1.0);
    const Measurement m =
        time_op([&] { std::memcpy(buffer.data(), from.data(), static_cast<std::size_t>(bytes)); });
    report({name, "memcpy", "op", m, bytes, 0.0, "memcpy of the message's bytes (one thread)"});
  }
  for (const std::string pattern : {"random", "sorted", "repeated"}) {
    std::vector<std::int64_t> offsets = targets(pattern);
    const adlib::IndexList list = adlib::IndexList::from(offsets);
    const std::string pieces =
        " (" + std::to_string(adlib::detail::index_pieces(space, list.count).count) + " pieces)";

    for (std::int64_t i = 0; i < kArray; ++i) array[static_cast<std::size_t>(i)] = initial(i);
    auto pack = [&] {
      adlib::detail::pack_indices<double>(space, array.data(), list, buffer.data());
      space.fence();
    };
    auto packed = [&](std::size_t k) { return initial(offsets[k]); };
    const Measurement packing = verified_time_op([&] { poison(buffer); }, pack,
                                                 [&](const char* phase) {
                                                   verify(name, "pack-" + pattern + threads, phase,
                                                          buffer.data(), buffer.size(), packed);
                                                 });
    report({name, "pack-" + pattern + threads, "op", packing, bytes, 0.0,
            pattern + " targets, list order" + pieces});

    // Combining unpack: once with ones (checked: every target gains its
    // count), then timed with zeros, which leave that result in place.
    std::vector<double> counts(static_cast<std::size_t>(kArray), 0.0);
    for (const std::int64_t t : offsets) counts[static_cast<std::size_t>(t)] += 1.0;
    std::fill(buffer.begin(), buffer.end(), 1.0);
    auto unpack = [&] {
      adlib::detail::unpack_indices<double>(space, array.data(), list, buffer.data(),
                                            adlib::op::add);
      space.fence();
    };
    unpack();
    auto unpacked = [&](std::size_t i) {
      return initial(static_cast<std::int64_t>(i)) + counts[i];
    };
    const std::string impl = "unpack-add-" + pattern + threads;
    verify(name, impl, "first", array.data(), array.size(), unpacked);
    std::fill(buffer.begin(), buffer.end(), 0.0);
    const Measurement m = time_op(unpack);
    verify(name, impl, "after timing", array.data(), array.size(), unpacked);
    report({name, impl, "op", m, bytes, 0.0,
            pattern + " targets, add, list order per target" + pieces});
  }
}

}  // namespace

void register_pack_cases() {
  add_case("LIM-PACK-OMP", pack_case);
}

}  // namespace bench
