// SPDX-License-Identifier: BSD-3-Clause
// Reduction and broadcast cases (bench/README.md, RD-N, RDV-L and its sweep,
// BC1-L; RDD-N is in reduction_dim_cases.cpp).
//
//   RD-N    adlib:setup    ArrayReduction construction and its first sum
//           adlib          ArrayReduction::sum of a block DistArray
//           mpi            local sum (4 independent accumulators) + MPI_Allreduce
//                          of one double
//           floor          the local sum alone
//   RDV-L   adlib          RedxSchedule, the automatic choice, out of place
//           adlib-<name>   the same with one algorithm forced
//           mpi-allreduce  MPI_Allreduce(x, y, L, MPI_DOUBLE, MPI_SUM)
//           floor          one MPI_Sendrecv of L doubles with rank r^1
//   BC1-L   mpi-bcast      MPI_Bcast of the section [L, 2L) from the rank that
//                          owns it (one MPI_Bcast per owner if it is split)
//
// Each case's data and serial reference (the *Case structs: global_sum,
// reduced, verify_out) do not depend on any implementation, and RD's and
// RDV's run_sum_line / run_allreduce_line poison, verify, time and report
// one line, so a line is its setup plus one call.
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <adlib/collectives/array_reduction.hpp>
#include <adlib/collectives/broadcast.hpp>
#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/process_grid.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/schedules/redx_schedule.hpp>

#include "common.hpp"

namespace bench {

namespace {

using Index = std::int64_t;

constexpr int kReductionFloorTag = 7500;

// Block distribution of an extent n over p ranks: rank q owns
// [q*n/p, (q+1)*n/p).
Index block_lo(Index n, int p, int q) {
  return Index(q) * n / p;
}
// The rank whose block holds g: the largest q with block_lo(q) <= g.
int block_owner(Index n, int p, Index g) {
  return static_cast<int>(((g + 1) * p - 1) / n);
}

// Rank 0 says on stderr that a line was skipped, and why.
void skipped(const std::string& case_name, const char* impl, const char* why) {
  if (rank() == 0)
    std::fprintf(stderr, "adlib_bench: %s %s needs %s, skipped\n", case_name.c_str(), impl, why);
}

// The local sum with 4 independent accumulators (the scenario's loop).  The
// clobber after it keeps the compiler from reusing an earlier call's sum in
// the timed loop: the operation reads its whole input every time.
double local_sum4(const double* __restrict__ x, std::size_t count) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    s0 += x[k];
    s1 += x[k + 1];
    s2 += x[k + 2];
    s3 += x[k + 3];
  }
  for (; k < count; ++k) s0 += x[k];
  const double sum = (s0 + s1) + (s2 + s3);
  benchmark::ClobberMemory();
  return sum;
}

// ---- RD-N: global sum of a block-distributed array -------------------------------------------

struct RdCase {
  std::string name;
  Index n = 0;
  int p = 1, r = 0;
  Index lo = 0;
  std::vector<double> x;  // the block, x[l] = double(lo + l)

  RdCase(const std::string& case_name, Index n_global)
      : name(case_name), n(n_global), p(size()), r(rank()), lo(block_lo(n, p, r)) {
    x.resize(static_cast<std::size_t>(block_lo(n, p, r + 1) - lo));
    for (std::size_t l = 0; l < x.size(); ++l) x[l] = static_cast<double>(lo + Index(l));
  }
  // bytes = input read per rank.
  double bytes() const { return static_cast<double>(x.size() * sizeof(double)); }
  // sum_g g = N(N-1)/2, and the block's share of it: integers below 2^53,
  // exact whatever the order of the additions.
  double global_sum() const { return static_cast<double>(n * (n - 1) / 2); }
  double block_sum() const {
    const Index hi = lo + Index(x.size());
    return static_cast<double>(hi * (hi - 1) / 2 - lo * (lo - 1) / 2);
  }
};

// One verified and reported line: op() leaves its result in `result`, which
// must then equal `expected` on every rank.
template <class Op>
void run_sum_line(const RdCase& c, const std::string& impl, double expected, double offrank,
                  const std::string& note, Op&& op) {
  double result = kPoison;
  const Measurement m = verified_time_op([&] { result = kPoison; }, [&] { result = op(); },
                                         [&](const char* phase) {
                                           verify(c.name, impl, phase, &result, 1,
                                                  [&](std::size_t) { return expected; });
                                         });
  report({c.name, impl, "op", m, c.bytes(), offrank, note});
}

void rd_case(Index n) {
  const RdCase c("RD-" + std::to_string(n), n);

  {
    // A block-distributed DistArray of the same global values x[g] = g.
    const adlib::ProcessGrid grid(comm(), {c.p});
    adlib::DistArray<double, 1, Kokkos::HostSpace> x(grid, {adlib::block(n)});
    x.fill([](const auto& g) { return static_cast<double>(g[0]); });
    std::unique_ptr<adlib::ArrayReduction<double, 1, Kokkos::HostSpace>> reduction;
    const Measurement setup = time_setup([&] {
      reduction = std::make_unique<adlib::ArrayReduction<double, 1, Kokkos::HostSpace>>(x);
      reduction->sum(x);  // the group's one-element schedule is made on first use
    });
    report({c.name, "adlib:setup", "setup", setup, 0, 0,
            "ArrayReduction construction and its first sum (which builds the schedule)", false});
    run_sum_line(c, "adlib", c.global_sum(), c.p > 1 ? sizeof(double) : 0.0,
                 "ArrayReduction::sum of a block DistArray (8-lane local fold + RedxSchedule)",
                 [&] { return reduction->sum(x); });
  }

  run_sum_line(c, "mpi", c.global_sum(), c.p > 1 ? sizeof(double) : 0.0,
               "local sum (4 accumulators) + MPI_Allreduce of one double", [&] {
                 const double local = local_sum4(c.x.data(), c.x.size());
                 double global = 0;
                 MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm());
                 return global;
               });
  run_sum_line(c, "floor", c.block_sum(), 0.0,
               "the local sum alone (4 accumulators), no communication; checked against the "
               "block's sum",
               [&] { return local_sum4(c.x.data(), c.x.size()); });
}

// ---- RDV-L: elementwise allreduce of a vector of L doubles ------------------------------------

struct RdvCase {
  std::string name;
  Index l = 0;
  int p = 1, r = 0;
  std::vector<double> x, y;  // x_r[k] = r*L + k; y the separate result buffer

  RdvCase(const std::string& case_name, Index length)
      : name(case_name), l(length), p(size()), r(rank()) {
    x.resize(static_cast<std::size_t>(l));
    y.resize(x.size());
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<double>(r * l + Index(k));
  }
  // bytes = L * 8; offrank: the vector crosses ranks when there are several.
  double bytes() const { return static_cast<double>(x.size() * sizeof(double)); }
  double offrank_bytes() const { return p > 1 ? bytes() : 0.0; }
  // y[k] = sum_q (q*L + k) = L*P(P-1)/2 + P*k, exact.
  double reduced(std::size_t k) const {
    return static_cast<double>(l * p * (p - 1) / 2 + Index(p) * Index(k));
  }
};

// One verified and reported line: op() must leave sum_q x_q in c.y.
template <class Op>
void run_allreduce_line(RdvCase& c, const std::string& impl, const std::string& note, Op&& op) {
  const Measurement m = verified_time_op([&] { poison(c.y); }, op,
                                         [&](const char* phase) {
                                           verify(c.name, impl, phase, c.y.data(), c.y.size(),
                                                  [&](std::size_t k) { return c.reduced(k); });
                                         });
  report({c.name, impl, "op", m, c.bytes(), c.offrank_bytes(), note});
}

using adlib::ReductionAlgorithm;

void rdv_case(Index l) {
  RdvCase c("RDV-" + std::to_string(l), l);
  const int count = static_cast<int>(l);

  // `adlib` (the automatic choice), then one `adlib-<algorithm>` per forced
  // algorithm; schedules built before timing, executed out of place (x into
  // y) as MPI_Allreduce is.  bench/plot_rdv.py picks up every impl.
  for (ReductionAlgorithm algorithm :
       {ReductionAlgorithm::automatic, ReductionAlgorithm::mpi,
        ReductionAlgorithm::recursive_doubling, ReductionAlgorithm::reduce_scatter_allgather,
        ReductionAlgorithm::ring, ReductionAlgorithm::node_aware}) {
    adlib::Configuration config = adlib::Configuration::environment();
    if (algorithm != ReductionAlgorithm::automatic) config.reduction = algorithm;
    adlib::RedxSchedule<double, adlib::op::Add, Kokkos::HostSpace> sum(adlib::Comm(comm()), l,
                                                                       adlib::op::add, config);
    const std::string impl = algorithm == ReductionAlgorithm::automatic
                                 ? std::string("adlib")
                                 : std::string("adlib-") + adlib::algorithm_name(algorithm);
    run_allreduce_line(c, impl,
                       std::string("RedxSchedule, out of place; algorithm ") +
                           adlib::algorithm_name(sum.algorithm()),
                       [&] { sum.execute(c.x.data(), c.y.data()); });
  }

  run_allreduce_line(c, "mpi-allreduce", "MPI_Allreduce(x, y, L, MPI_DOUBLE, MPI_SUM)", [&] {
    MPI_Allreduce(c.x.data(), c.y.data(), count, MPI_DOUBLE, MPI_SUM, comm());
  });

  // floor: the data one exchange with one partner moves; needs a partner r^1
  // for every rank.
  if (c.p % 2 != 0) {
    skipped(c.name, "floor", "an even number of ranks");
    return;
  }
  const int partner = c.r ^ 1;
  const Measurement m = verified_time_op(
      [&] { poison(c.y); },
      [&] {
        MPI_Sendrecv(c.x.data(), count, MPI_DOUBLE, partner, kReductionFloorTag, c.y.data(), count,
                     MPI_DOUBLE, partner, kReductionFloorTag, comm(), MPI_STATUS_IGNORE);
      },
      [&](const char* phase) {
        verify(c.name, "floor", phase, c.y.data(), c.y.size(),
               [&](std::size_t k) { return static_cast<double>(partner * l + Index(k)); });
      });
  report({c.name, "floor", "op", m, c.bytes(), c.offrank_bytes(),
          "one MPI_Sendrecv of L doubles with rank r^1 (x into y), no arithmetic"});
}

// ---- BC1-L: broadcast of a section of a block-distributed vector ------------------------------

struct Bc1Case {
  std::string name;
  Index l = 0, n = 0;  // the section [L, 2L) of a vector of N = 4L
  int p = 1, r = 0;
  Index lo = 0;
  std::vector<double> x;    // the block, x[g - lo] = double(g)
  std::vector<double> out;  // every rank's local copy of the section

  Bc1Case(const std::string& case_name, Index length)
      : name(case_name), l(length), n(4 * length), p(size()), r(rank()), lo(block_lo(n, p, r)) {
    x.resize(static_cast<std::size_t>(block_lo(n, p, r + 1) - lo));
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<double>(lo + Index(k));
    out.resize(static_cast<std::size_t>(l));
  }
  double bytes() const { return static_cast<double>(out.size() * sizeof(double)); }
  // The part of the section that this rank does not own.
  double offrank_bytes() const {
    const Index hi = lo + Index(x.size());
    const Index own = std::max<Index>(0, std::min(hi, 2 * l) - std::max(lo, l));
    return static_cast<double>((l - own) * Index(sizeof(double)));
  }
  void verify_out(const std::string& impl, const char* phase) const {
    verify(name, impl, phase, out.data(), out.size(),
           [&](std::size_t k) { return static_cast<double>(l + Index(k)); });
  }
};

// A piece of the section held by one rank: section positions [begin, end).
struct SectionPiece {
  int owner = 0;
  Index begin = 0, end = 0;
};

// The owners of [L, 2L) under the block distribution, in order: one piece
// when a single rank owns the section (any P <= 2, and P = 4), more otherwise.
std::vector<SectionPiece> section_pieces(const Bc1Case& c) {
  std::vector<SectionPiece> pieces;
  for (Index g = c.l; g < 2 * c.l;) {
    const int q = block_owner(c.n, c.p, g);
    const Index end = std::min(block_lo(c.n, c.p, q + 1), 2 * c.l);
    pieces.push_back({q, g - c.l, end - c.l});
    g = end;
  }
  return pieces;
}

void bc1_case(Index l) {
  Bc1Case c("BC1-" + std::to_string(l), l);
  const std::vector<SectionPiece> pieces = section_pieces(c);

  // adlib: the section of a block-distributed DistArray laid over each
  // rank's block (wrapped, no copy) broadcast into every rank's buffer; the
  // Broadcast is built before timing.  A section split over several owners
  // is refused by Broadcast (Remap into a replicated array instead).
  if (pieces.size() == 1) {
    using Array = adlib::DistArray<double, 1, Kokkos::HostSpace>;
    const adlib::ProcessGrid grid(adlib::Comm(comm()), {c.p});
    const adlib::ArrayLayout layout(grid, adlib::bind_ranges(grid, {adlib::block(c.n)}));
    const Array section =
        Array::wrap(layout, c.x.data()).section({adlib::Triplet{c.l, 2 * c.l - 1, 1}});
    const adlib::Broadcast from_owner(section);
    const Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> out(
        c.out.data(), c.out.size());
    const Measurement m =
        verified_time_op([&] { poison(c.out); }, [&] { from_owner.execute(section, out); },
                         [&](const char* phase) { c.verify_out("adlib", phase); });
    report({c.name, "adlib", "op", m, c.bytes(), c.offrank_bytes(),
            std::string("Broadcast of [L, 2L) (contiguous: sent from the owner's array, then "
                        "its local copy); algorithm ") +
                adlib::algorithm_name(from_owner.algorithm())});
  } else {
    skipped(c.name, "adlib", "a section with a single owner (P <= 2 or P = 4)");
  }

  {  // mpi-bcast: the owner copies its piece into its own buffer, then
     // MPI_Bcast from that buffer; one MPI_Bcast per owner
    auto op = [&] {
      for (const SectionPiece& piece : pieces) {
        double* at = c.out.data() + piece.begin;
        const auto count = static_cast<std::size_t>(piece.end - piece.begin);
        if (piece.owner == c.r)
          std::memcpy(at, c.x.data() + (c.l + piece.begin - c.lo), count * sizeof(double));
        MPI_Bcast(at, static_cast<int>(count), MPI_DOUBLE, piece.owner, comm());
      }
    };
    const Measurement m = verified_time_op(
        [&] { poison(c.out); }, op, [&](const char* phase) { c.verify_out("mpi-bcast", phase); });
    std::string owners;
    for (const SectionPiece& piece : pieces)
      owners += (owners.empty() ? "" : ", ") + std::to_string(piece.owner);
    report({c.name, "mpi-bcast", "op", m, c.bytes(), c.offrank_bytes(),
            pieces.size() == 1 ? "MPI_Bcast of [L, 2L) from its owner, rank " + owners +
                                     ", which first copies it from its block into its own buffer"
                               : "one MPI_Bcast per owner of a piece of [L, 2L) (ranks " + owners +
                                     "), each owner first copying its piece into its own buffer"});
  }
}

}  // namespace

void register_reduction_cases() {
  add_case("RD-4194304", [] { rd_case(Index(1) << 22); });
  for (const Index l : {Index(1), Index(16), Index(256), Index(4096), Index(65536), Index(1) << 20})
    add_case("RDV-" + std::to_string(l), [l] { rdv_case(l); });
  add_case("BC1-1048576", [] { bc1_case(Index(1) << 20); });
}

}  // namespace bench
