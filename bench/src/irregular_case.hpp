// SPDX-License-Identifier: BSD-3-Clause
// The data of the irregular cases GA1-M and SC1-M (bench/README.md): the
// block distribution, every rank's index stream, SC1's contributions and the
// serial references, which no implementation depends on.  Shared by adlib's
// and the baselines' lines (irregular_cases.cpp) and the peers' lines
// (peer_*_cases.cpp), so that every line runs exactly the same case.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"

namespace bench {

namespace irregular {

using Index = std::int64_t;

// ---- the case: distribution, index stream, values ------------------------------------------

// The scenario's generator (SCENARIOS.md, GA1-M): splitmix64.
inline std::uint64_t splitmix64_next(std::uint64_t* s) {
  std::uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Rank q's M global indices: splitmix64 seeded with 0x5EED + q, mod N,
// duplicates kept.  Every rank can compute every rank's stream, which is
// what makes the serial references independent of any communication.
inline std::vector<Index> index_stream(int q, Index m, Index n) {
  std::uint64_t state = 0x5EEDULL + static_cast<std::uint64_t>(q);
  std::vector<Index> idx(static_cast<std::size_t>(m));
  for (Index& g : idx)
    g = static_cast<Index>(splitmix64_next(&state) % static_cast<std::uint64_t>(n));
  return idx;
}

// One rank's view of an irregular case: the block distribution of N over P
// ranks, and its own index stream.
struct IrregularCase {
  std::string name;
  Index n = 0, m = 0;
  int p = 1, r = 0;
  std::vector<Index> idx;  // this rank's M global indices

  IrregularCase(const std::string& case_name, Index n_global, Index m_per_rank)
      : name(case_name), n(n_global), m(m_per_rank), p(size()), r(rank()) {
    idx = index_stream(r, m, n);
  }
  // Block distribution: rank q owns [q*N/P, (q+1)*N/P).
  Index lo(int q) const { return q * n / p; }
  Index block_count(int q) const { return lo(q + 1) - lo(q); }
  // The largest q with lo(q) <= g.
  int owner(Index g) const { return static_cast<int>(((g + 1) * p - 1) / n); }
  std::size_t local_count() const { return static_cast<std::size_t>(block_count(r)); }
  // The block with the scenario's values, x[g] = double(g).
  std::vector<double> block_values() const {
    std::vector<double> block(local_count());
    for (std::size_t l = 0; l < block.size(); ++l) block[l] = static_cast<double>(lo(r) + Index(l));
    return block;
  }
  // bytes per rank: M values (gathered, or contributions sent).
  double bytes() const { return static_cast<double>(m) * sizeof(double); }
  // The values that cross ranks: those of this rank's M indices that another
  // rank owns (GA1: received, SC1: sent).
  double offrank_bytes() const {
    Index off = 0;
    for (const Index g : idx) off += owner(g) != r;
    return static_cast<double>(off) * sizeof(double);
  }
  // SC1's contribution k of rank q: double((q*M + k) mod 1024).
  double contribution(int q, Index k) const { return static_cast<double>((q * m + k) % 1024); }
};

// GA1's serial reference: out[k] holds A[idx[k]] = double(idx[k]).
inline void verify_gather(const IrregularCase& c, const std::string& impl, const std::string& phase,
                          const double* out) {
  verify(c.name, impl, phase, out, c.idx.size(),
         [&](std::size_t k) { return static_cast<double>(c.idx[k]); });
}

// SC1's serial reference: c[g], the sum of every rank's contributions aimed
// at each g of this rank's block, from every rank's index stream.  After n
// operations x[g] = g + n * c[g], exactly: every value is an integer below
// 2^53.
struct ScatterAddReference {
  std::vector<double> sum;  // c[g] at local position g - lo(r)

  explicit ScatterAddReference(const IrregularCase& c) : sum(c.local_count(), 0.0) {
    const Index lo = c.lo(c.r), hi = c.lo(c.r + 1);
    for (int q = 0; q < c.p; ++q) {
      const std::vector<Index> stream = q == c.r ? c.idx : index_stream(q, c.m, c.n);
      for (Index k = 0; k < c.m; ++k) {
        const Index g = stream[static_cast<std::size_t>(k)];
        if (g >= lo && g < hi) sum[static_cast<std::size_t>(g - lo)] += c.contribution(q, k);
      }
    }
  }

  // x must hold g + operations * c[g] at every local position.
  void verify(const IrregularCase& c, const std::string& impl, const std::string& phase,
              const double* x, long long operations) const {
    const Index lo = c.lo(c.r);
    bench::verify(c.name, impl, phase, x, sum.size(), [&](std::size_t l) {
      return static_cast<double>(lo + Index(l)) + static_cast<double>(operations) * sum[l];
    });
  }
};

}  // namespace irregular

}  // namespace bench
