// SPDX-License-Identifier: BSD-3-Clause
// adlib_bench: every case defined in bench/README.md, each beside
// its raw-MPI baselines.
//
//   mpirun -np 2 --bind-to core adlib_bench [--benchmark_filter=REGEX]
//   ADLIB_BENCH_JSONL=results.jsonl   append the JSON lines there
//   ANCHORS_MIN_REP_S=0.2             minimum repeat length (see time_op)
//   ADLIB_BENCH_DEBUG=1               print adlib's message blocks to stderr
//
// Google Benchmark registers, filters and orders the cases; every rank parses
// the same command line, so all ranks run the same cases in the same order.
// It names them "<case>/iterations:1", so a filter should not end in '$'.
// The timing and the output are the harness's own (common.hpp).
//
// --adlib_transport_check: exchange 1 MiB between ranks 0 and 1 and exit 0;
// scripts/bench uses it to find out whether Open MPI's single-copy transport
// (CMA) works in this container before a long run.
//
// --adlib_tune=FILE: scripts/tune's measurement: times the thresholds that
// depend on the machine and writes them to the tuning file FILE (tune.cpp).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <ostream>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"
#include "peers.hpp"

namespace {

// Google Benchmark sees every case as one iteration of unknown meaning: its
// own report is suppressed.  --benchmark_list_tests still prints the names,
// on rank 0 only.
class QuietReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

// An ostream that drops everything (the other ranks' test lists).
class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

bool has_flag(int argc, char** argv, const char* prefix) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0) return true;
  return false;
}

// The text after `prefix` of the first argument that starts with it, or
// nullptr.
const char* flag_value(int argc, char** argv, const char* prefix) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix, std::strlen(prefix)) == 0)
      return argv[i] + std::strlen(prefix);
  return nullptr;
}

int transport_check() {
  if (bench::size() < 2) return 0;
  const int n = 1 << 17;  // 1 MiB: large enough for the single-copy path
  std::vector<double> out(n, 1.0), in(n, 0.0);
  const int partner = bench::rank() ^ 1;
  if (partner < bench::size())
    MPI_Sendrecv(out.data(), n, MPI_DOUBLE, partner, 1, in.data(), n, MPI_DOUBLE, partner, 1,
                 bench::comm(), MPI_STATUS_IGNORE);
  return partner < bench::size() && in[n - 1] != 1.0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  bench::init_harness();
  int status = 0;
  if (has_flag(argc, argv, "--adlib_transport_check")) {
    status = transport_check();
  } else if (const char* path = flag_value(argc, argv, "--adlib_tune=")) {
    status = bench::run_tuning(path);
  } else {
    // Before Initialize, which removes the flags it knows from argv.
    const bool listing = has_flag(argc, argv, "--benchmark_list_tests");
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
      status = 1;
    } else {
      // Registration order is execution order: limits first, so every later
      // figure can be read against them.
      bench::register_limit_cases();
      bench::register_pack_cases();
      bench::register_remap_cases();
      bench::register_halo_cases();
      bench::register_halo_accumulate_cases();
      bench::register_unstructured_halo_cases();
      bench::register_shift_cases();
      bench::register_irregular_cases();
      bench::register_reduction_cases();
      bench::register_plan_cases();
      bench::register_transfer_cases();
      bench::register_reduction_dim_cases();
      // The peers' lines of a case come after adlib's and the baselines'
      // (the same names: a filter selects both).
#ifdef ADLIB_BENCH_HAVE_PETSC
      bench::register_petsc_cases();
#endif
#ifdef ADLIB_BENCH_HAVE_TPETRA
      bench::register_tpetra_cases();
#endif
#ifdef ADLIB_BENCH_HAVE_SCALAPACK
      bench::register_scalapack_cases();
#endif
      if (!listing) {
        bench::write_meta();
#ifndef ADLIB_BENCH_HAVE_PETSC
        bench::announce_missing_peer("petsc", "libpetsc-real-dev");
#endif
#ifndef ADLIB_BENCH_HAVE_TPETRA
        bench::announce_missing_peer("tpetra",
                                     "libtrilinos-tpetra-dev libtrilinos-teuchos-dev "
                                     "libtrilinos-kokkos-kernels-dev");
#endif
#ifndef ADLIB_BENCH_HAVE_SCALAPACK
        bench::announce_missing_peer("scalapack", "libscalapack-openmpi-dev");
#endif
        bench::print_table_header();
      }
      NullBuffer null_buffer;
      std::ostream null_stream(&null_buffer);
      QuietReporter reporter;
      if (bench::rank() != 0) {
        reporter.SetOutputStream(&null_stream);
        reporter.SetErrorStream(&null_stream);
      }
      benchmark::RunSpecifiedBenchmarks(&reporter);
      benchmark::Shutdown();
    }
  }
  bench::finish_harness();
  return status;
}
