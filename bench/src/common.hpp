// SPDX-License-Identifier: BSD-3-Clause
// The harness every benchmark case shares, as bench/README.md
// fixes it ("Conventions common to every case"): timing (time_op,
// time_setup), host-state probes, verification and output (a human-readable
// table on stdout and JSONL in $ADLIB_BENCH_JSONL, rank 0 only).
//
//   bench::Measurement m = bench::time_op([&] { remap.execute(dst, src); });
//   bench::report({"RM1-4194304", "adlib", "op", m, bytes, offrank_bytes, note});
//
// Every function here is collective over bench::comm() unless it says
// otherwise: all ranks run the same cases in the same order.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace bench {

// ---- the harness communicator ---------------------------------------------

// A duplicate of MPI_COMM_WORLD: the baselines' and probes' messages can
// never match adlib's (which uses its own duplicate) or each other's.
MPI_Comm comm();
int rank();
int size();

// After MPI is initialised: duplicates the communicator, allocates the probe
// buffers.  finish_harness() releases them before MPI_Finalize.
void init_harness();
void finish_harness();

// ---- host-state probes --------------------------------------------------------

// One probe: one-way latency of an 8-byte ping-pong and the time of one
// MPI_Sendrecv of a freshly rewritten 512 KiB buffer, both with rank r^1
// (MAX over ranks; 0 with one rank).  The host switches between modes in
// which inter-rank costs differ by about 3x (bench/README.md), so
// every result carries the probes taken around it.
struct Probe {
  double lat_us = 0;
  double dirty_us = 0;
};
Probe run_probes();

// ---- timing ----------------------------------------------------------------------

struct Measurement {
  double median_us = 0, min_us = 0, max_us = 0;  // per operation, over the repeats
  long long iters_per_rep = 1;
  int reps = 1;
  double probe_lat_us = 0, probe_dirty_us = 0;  // medians over the repeats
  // CPU time the ranks got during the timed loops / wall time: MIN over
  // ranks, median over repeats.  MPI ranks busy-poll, so anything well below
  // 1 means other processes shared the cores and the figure is not clean.
  double cpu_share = 1;
  // Set-up lines only (else -1): minor page faults during the set-up, MAX
  // over ranks.  Each is a first touch of fresh memory, about 1.3 us here,
  // a large share of a set-up that allocates megabytes.
  long long page_faults = -1;
};

constexpr int kWarmups = 10;
constexpr int kRepeats = 5;

double max_over_ranks(double value);
double min_over_ranks(double value);
// CPU time used by this process so far (all threads), in seconds.
double process_cpu_seconds();
// Minor page faults of this process so far (all threads).
long long process_page_faults();
// Hands the heap's free pages back to the system (malloc_trim), so that a
// setup line finds the same heap state whatever ran before it in this
// process: every line then pays the first touches of the memory it
// allocates (SCENARIOS.md: setup includes them), instead of reusing pages
// an earlier line touched and freed.
void release_free_memory();
// Iterations per repeat from t_w (seconds): ceil(1 s / t_w) when 200 t_w >=
// 1 s, else max(200, ceil(min_rep / t_w)), min_rep = $ANCHORS_MIN_REP_S or 0.2.
long long iterations_per_repeat(double t_w);
// Median, min and max of the per-repeat seconds, in microseconds.
Measurement summarize(const std::vector<double>& per_repeat_s, long long iterations,
                      const std::vector<Probe>& probes, const std::vector<double>& cpu_shares);

struct TimeOptions {
  // Whether this rank runs the operation.  Inactive ranks (the idle rank of
  // `memcpy`, rank 0's partner for a plan computed in one process) go
  // straight to the reduction and wait there, and count as 0 in the MAX.
  bool active = true;
  // Reported time per operation = measured time per call of op * scale
  // (ping-pong: a call is a round trip, the report is one way).
  double scale = 1.0;
};

// The scenarios' time_op: 10 timed warm-ups (t_w = MAX over ranks of the
// mean), then 5 repeats of MPI_Barrier; n x op; each repeat's time per
// operation is the MAX over ranks; probes after every repeat (never inside).
template <class Op>
Measurement time_op(Op&& op, const TimeOptions& options = {}) {
  MPI_Barrier(comm());
  const double warm_start = MPI_Wtime();
  if (options.active)
    for (int i = 0; i < kWarmups; ++i) op();
  const double mean = options.active ? (MPI_Wtime() - warm_start) / kWarmups : 0.0;
  const long long n = iterations_per_repeat(max_over_ranks(mean));
  std::vector<double> per_repeat, cpu_shares;
  std::vector<Probe> probes;
  for (int rep = 0; rep < kRepeats; ++rep) {
    MPI_Barrier(comm());
    const double c0 = process_cpu_seconds();
    const double t0 = MPI_Wtime();
    if (options.active)
      for (long long i = 0; i < n; ++i) op();
    const double t1 = MPI_Wtime();
    const double c1 = process_cpu_seconds();
    const double mine = options.active ? (t1 - t0) / static_cast<double>(n) : 0.0;
    per_repeat.push_back(max_over_ranks(mine) * options.scale);
    cpu_shares.push_back(min_over_ranks(t1 > t0 ? (c1 - c0) / (t1 - t0) : 1.0));
    probes.push_back(run_probes());
  }
  return summarize(per_repeat, n, probes, cpu_shares);
}

// A setup line: the heap's free pages released, MPI_Barrier, the setup
// once, MAX over ranks; one probe after.
template <class Setup>
Measurement time_setup(Setup&& setup) {
  release_free_memory();
  MPI_Barrier(comm());
  const long long f0 = process_page_faults();
  const double c0 = process_cpu_seconds();
  const double t0 = MPI_Wtime();
  setup();
  const double t1 = MPI_Wtime();
  const double c1 = process_cpu_seconds();
  const long long f1 = process_page_faults();
  const double t = max_over_ranks(t1 - t0);
  const double share = min_over_ranks(t1 > t0 ? (c1 - c0) / (t1 - t0) : 1.0);
  Measurement m = summarize({t}, 1, {run_probes()}, {share});
  m.page_faults = static_cast<long long>(max_over_ranks(static_cast<double>(f1 - f0)));
  return m;
}

// ---- verification ------------------------------------------------------------------

// Poison value of every destination before a verified phase.
constexpr double kPoison = -1.0;
void poison(double* data, std::size_t count);
inline void poison(std::vector<double>& v) {
  poison(v.data(), v.size());
}

// Prints the first wrong entry and calls MPI_Abort with exit code 3.
[[noreturn]] void verification_failed(const std::string& case_name, const std::string& impl,
                                      const std::string& phase, std::size_t index, double got,
                                      double expected);

// Compares got[k] with expected(k) for every k < count (local check; a
// failing rank aborts the whole job).
template <class Expected>
void verify(const std::string& case_name, const std::string& impl, const std::string& phase,
            const double* got, std::size_t count, Expected&& expected) {
  for (std::size_t k = 0; k < count; ++k) {
    const double e = expected(k);
    if (got[k] != e) verification_failed(case_name, impl, phase, k, got[k], e);
  }
}

// One implementation's verified and timed phases, as every case runs them:
// prepare() (poison the destination), op() once, check("first"); prepare()
// again, the warm-ups and timed loops, check("after timing").
template <class Prepare, class Op, class Check>
Measurement verified_time_op(Prepare&& prepare, Op&& op, Check&& check) {
  prepare();
  op();
  check("first");
  prepare();
  const Measurement m = time_op(op);
  check("after timing");
  return m;
}

// ---- output --------------------------------------------------------------------------

struct Line {
  std::string case_name;
  std::string impl;
  std::string kind = "op";  // "op" or "setup"
  Measurement m;
  double bytes = 0;          // per rank and operation (MAX over ranks)
  double offrank_bytes = 0;  // the part that crosses ranks (MAX over ranks)
  std::string note;
  // GB/s = bytes / median time; off where bytes are not data moved by the
  // timed operation (setup lines, plan memory): then 0 in JSON, "-" in the table.
  bool rate = true;
};

// Collective (bytes are reduced); rank 0 prints the table row and appends
// the JSON line to $ADLIB_BENCH_JSONL.
void report(const Line& line);

// Rank 0: the `meta` JSON line and the table header.
void write_meta();
void print_table_header();

// ---- cases -------------------------------------------------------------------------------

// Registers a case under its scenario name with Google Benchmark, so that
// --benchmark_filter selects it; the body runs every implementation of the
// case once, with the harness above doing the timing.
void add_case(const std::string& name, std::function<void()> body);

void register_limit_cases();
void register_pack_cases();
void register_reduction_dim_cases();
void register_remap_cases();
void register_halo_cases();
void register_halo_accumulate_cases();
void register_unstructured_halo_cases();
void register_shift_cases();
void register_irregular_cases();
void register_reduction_cases();
void register_plan_cases();
void register_transfer_cases();
// scripts/tune: measures the thresholds and writes the tuning file `path`
// (tune.cpp); 0 on success.
int run_tuning(const std::string& path);

}  // namespace bench
