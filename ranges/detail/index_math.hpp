// SPDX-License-Identifier: BSD-3-Clause
// Integer helpers for range arithmetic: floor / ceil division with negative
// operands, gcd and modular inverse, and the positions of a strided section
// that fall in an interval.  Products go through 128 bits so that plans for
// very large extents and process counts cannot overflow silently.
#pragma once

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>

#include <adlib/ranges/triplet.hpp>

namespace adlib::detail::index_math {

// 128-bit intermediate for products of extents and process counts.
__extension__ typedef __int128 Wide;

inline Index floor_div(Index a, Index b) {
  Index q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline Index ceil_div(Index a, Index b) {
  return -floor_div(-a, b);
}
inline Index floor_mod(Index a, Index b) {
  return a - floor_div(a, b) * b;
}

inline Index gcd(Index a, Index b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const Index t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// x with (a * x) mod m == 1, for gcd(a, m) == 1 and m >= 1.
inline Index inverse_mod(Index a, Index m) {
  if (m == 1) return 0;
  Index old_r = floor_mod(a, m), r = m, old_s = 1, s = 0;
  while (r != 0) {
    const Index q = old_r / r;
    std::tie(old_r, r) = std::make_pair(r, old_r - q * r);
    std::tie(old_s, s) = std::make_pair(s, old_s - q * s);
  }
  return floor_mod(old_s, m);
}

// floor(x / d) for one divisor d >= 1 and many 0 <= x < 2^52, without a
// division instruction: a 64-bit division costs 20 to 40 cycles, and a
// Gather's set-up divides twice for each of its subscripts.  The quotient
// is estimated through the divisor's reciprocal in double precision and
// corrected: x is exact in a double, the reciprocal and the product each
// round with relative error at most 2^-53, so for x / d < 2^52 the estimate
// is within one of the quotient, and one comparison each way makes it exact.
class InvariantDivisor {
 public:
  // Largest dividend divide() accepts (callers check theirs against it).
  static constexpr Index kLimit = Index{1} << 52;

  InvariantDivisor() = default;
  explicit InvariantDivisor(Index divisor)
      : divisor_(divisor), reciprocal_(1.0 / static_cast<double>(divisor)) {}

  // floor(x / divisor) for 0 <= x < kLimit.
  Index divide(Index x) const {
    Index q = static_cast<Index>(static_cast<double>(x) * reciprocal_);
    const Index r = x - q * divisor_;
    if (r < 0)
      --q;
    else if (r >= divisor_)
      ++q;
    return q;
  }

 private:
  Index divisor_ = 1;
  double reciprocal_ = 1.0;
};

inline Index mul_mod(Index a, Index b, Index m) {
  return static_cast<Index>((static_cast<Wide>(a) * b) % m);
}

// Positions k in [0, section.count()) with section.at(k) in [begin, end),
// as [k_first, k_last] (empty when k_first > k_last).
inline std::pair<Index, Index> positions_in(const Triplet& section, Index begin, Index end) {
  const Index n = section.count(), s = section.stride;
  Index k_first, k_last;
  if (s > 0) {
    k_first = ceil_div(begin - section.lo, s);
    k_last = floor_div(end - 1 - section.lo, s);
  } else {
    k_first = ceil_div(section.lo - (end - 1), -s);
    k_last = floor_div(section.lo - begin, -s);
  }
  return {std::max<Index>(k_first, 0), std::min<Index>(k_last, n - 1)};
}

}  // namespace adlib::detail::index_math
