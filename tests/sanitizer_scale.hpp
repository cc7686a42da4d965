// SPDX-License-Identifier: BSD-3-Clause
// Whether this test binary runs under AddressSanitizer (CI's sanitizer pass,
// scripts/test-sanitizers), where the exhaustive serial sweeps are 20 to 50
// times slower.  Those sweeps then visit an evenly spread subset of their
// cases: the sanitizer pass looks for memory errors and undefined behaviour
// in the same code paths, and the normal pass still visits every case.
#pragma once

#include <cstddef>

namespace adlib_test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif
#else
inline constexpr bool kUnderSanitizer = false;
#endif

// True for the cases a sweep visits: every case normally, every
// `stride`-th under the sanitizer.
inline bool visit_case(std::size_t index, std::size_t stride) {
  return !kUnderSanitizer || index % stride == 0;
}

}  // namespace adlib_test
