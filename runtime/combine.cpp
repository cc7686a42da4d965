// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/combine.hpp>

#include <cstdio>

namespace adlib::op {

std::string describe(std::uint64_t fingerprint) {
  switch (fingerprint) {
    case 0:
      return "none (a forward execution)";
    case static_cast<std::uint64_t>(Kind::replace):
      return "replace";
    case static_cast<std::uint64_t>(Kind::add):
      return "add";
    case static_cast<std::uint64_t>(Kind::min):
      return "min";
    case static_cast<std::uint64_t>(Kind::max):
      return "max";
    case static_cast<std::uint64_t>(Kind::product):
      return "product";
    case static_cast<std::uint64_t>(Kind::max_location):
      return "max_location";
    case static_cast<std::uint64_t>(Kind::min_location):
      return "min_location";
    case static_cast<std::uint64_t>(Kind::logical_and):
      return "logical_and";
    case static_cast<std::uint64_t>(Kind::logical_or):
      return "logical_or";
    default: {
      // A user's operation: its type (and state, where it says) hashed; the
      // number tells two of them apart, nothing more can be said portably.
      char text[48];
      std::snprintf(text, sizeof text, "a user operation (fingerprint %016llx)",
                    static_cast<unsigned long long>(fingerprint));
      return text;
    }
  }
}

}  // namespace adlib::op
