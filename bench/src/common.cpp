// SPDX-License-Identifier: BSD-3-Clause
#include "common.hpp"
#include "peers.hpp"

#include "bench_commit.hpp"  // ADLIB_BENCH_ADLIB_COMMIT, generated at build time

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <benchmark/benchmark.h>
#include <Kokkos_Core.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/tuning_file.hpp>
#include <adlib/version.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <sstream>

namespace bench {

namespace {

MPI_Comm harness_comm = MPI_COMM_NULL;
// What finish_harness() runs before MPI_Finalize (see at_finish).
std::vector<std::function<void()>> finishers;
int my_rank = 0, comm_size = 1;

// Probe buffers, allocated and touched once so that a probe measures the
// exchange, not page faults.
constexpr std::size_t kDirtyDoubles = 512 * 1024 / sizeof(double);
std::vector<double> dirty_send, dirty_recv;
constexpr int kLatencyWarmups = 10, kLatencyRoundTrips = 100, kDirtyTrials = 5;
constexpr int kProbeTag = 7001;
// Below this share of CPU time the ranks were visibly preempted.
constexpr double kCleanCpuShare = 0.9;

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
          out += buffer;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string quoted(const std::string& s) {
  return "\"" + json_escape(s) + "\"";
}

std::string number(double value, int decimals = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

// The run number of scripts/bench's RUNS loop.
int run_number() {
  return std::atoi(env_or("ADLIB_BENCH_RUN", "1").c_str());
}

void append_jsonl(const std::string& line) {
  const char* path = std::getenv("ADLIB_BENCH_JSONL");
  if (!path || !*path) return;
  std::ofstream out(path, std::ios::app);
  if (!out) {
    std::fprintf(stderr, "adlib_bench: cannot append to %s\n", path);
    return;
  }
  out << line << '\n';
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
      }
    }
  return "unknown";
}

// The kernel's transparent-huge-page mode (the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled: always, madvise or never;
// "unknown" elsewhere).  Set-up lines are mostly first touches of fresh
// memory on the project's VMs, a fault per 4 KiB page unless a huge page
// backs it, so their figures compare only across equal modes (and equal
// GLIBC_TUNABLES: glibc.malloc.hugetlb=1 puts malloc's large blocks on
// huge pages in every library of the process).
std::string transparent_huge_pages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string text;
  std::getline(in, text);
  const auto open = text.find('['), close = text.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "unknown";
  return text.substr(open + 1, close - open - 1);
}

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string s(text, static_cast<std::size_t>(length));
  // Open MPI: "Open MPI v4.1.4, package: ..., ident: ...": the first field names it.
  const auto cut = s.find_first_of(",\n");
  if (cut != std::string::npos) s.resize(cut);
  return s;
}

std::string mpi_standard() {
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  return std::to_string(version) + "." + std::to_string(subversion);
}

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
         "." + std::to_string(KOKKOS_VERSION % 100);
}

double latency_probe(int partner) {
  double word = 0.0;
  const bool first = my_rank < partner;
  auto round_trip = [&] {
    if (first) {
      MPI_Send(&word, 1, MPI_DOUBLE, partner, kProbeTag, harness_comm);
      MPI_Recv(&word, 1, MPI_DOUBLE, partner, kProbeTag, harness_comm, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&word, 1, MPI_DOUBLE, partner, kProbeTag, harness_comm, MPI_STATUS_IGNORE);
      MPI_Send(&word, 1, MPI_DOUBLE, partner, kProbeTag, harness_comm);
    }
  };
  for (int i = 0; i < kLatencyWarmups; ++i) round_trip();
  const double t0 = MPI_Wtime();
  for (int i = 0; i < kLatencyRoundTrips; ++i) round_trip();
  return (MPI_Wtime() - t0) / (2.0 * kLatencyRoundTrips) * 1e6;
}

double dirty_probe(int partner) {
  std::vector<double> samples;
  static int generation = 0;
  for (int trial = 0; trial < kDirtyTrials; ++trial) {
    // Rewrite the whole buffer, as a pack step or a solver would, so its
    // cache lines are dirty in this core's cache when MPI reads them.
    const double base = static_cast<double>(++generation);
    for (std::size_t k = 0; k < kDirtyDoubles; ++k) dirty_send[k] = base + static_cast<double>(k);
    // Zero-byte exchange: both partners start the timed exchange together,
    // so neither measures the other's rewrite.
    MPI_Sendrecv(nullptr, 0, MPI_BYTE, partner, kProbeTag, nullptr, 0, MPI_BYTE, partner, kProbeTag,
                 harness_comm, MPI_STATUS_IGNORE);
    const double t0 = MPI_Wtime();
    MPI_Sendrecv(dirty_send.data(), static_cast<int>(kDirtyDoubles), MPI_DOUBLE, partner, kProbeTag,
                 dirty_recv.data(), static_cast<int>(kDirtyDoubles), MPI_DOUBLE, partner, kProbeTag,
                 harness_comm, MPI_STATUS_IGNORE);
    samples.push_back((MPI_Wtime() - t0) * 1e6);
  }
  return median_of(samples);
}

}  // namespace

MPI_Comm comm() {
  return harness_comm;
}
int rank() {
  return my_rank;
}
int size() {
  return comm_size;
}

void at_finish(std::function<void()> finish) {
  finishers.push_back(std::move(finish));
}

void announce_missing_peer(const std::string& peer, const std::string& packages) {
  if (my_rank != 0) return;
  std::printf(
      "# peer %s: not built, its lines are skipped (install %s, or run "
      "ADLIB_BENCH_PEERS=1 scripts/bench)\n",
      peer.c_str(), packages.c_str());
  std::fflush(stdout);
}

void init_harness() {
  MPI_Comm_dup(MPI_COMM_WORLD, &harness_comm);
  MPI_Comm_rank(harness_comm, &my_rank);
  MPI_Comm_size(harness_comm, &comm_size);
  dirty_send.assign(kDirtyDoubles, 0.0);
  dirty_recv.assign(kDirtyDoubles, 0.0);
}

void finish_harness() {
  // The peers' finalizers first (PetscFinalize, Tpetra::finalize), newest first.
  for (auto finish = finishers.rbegin(); finish != finishers.rend(); ++finish) (*finish)();
  finishers.clear();
  if (harness_comm != MPI_COMM_NULL) MPI_Comm_free(&harness_comm);
  harness_comm = MPI_COMM_NULL;
}

Probe run_probes() {
  Probe p;
  const int partner = my_rank ^ 1;
  if (comm_size > 1 && partner < comm_size) {
    p.lat_us = latency_probe(partner);
    p.dirty_us = dirty_probe(partner);
  }
  p.lat_us = max_over_ranks(p.lat_us);
  p.dirty_us = max_over_ranks(p.dirty_us);
  return p;
}

double max_over_ranks(double value) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, harness_comm);
  return result;
}

double min_over_ranks(double value) {
  double result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MIN, harness_comm);
  return result;
}

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

long long process_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

void release_free_memory() {
  malloc_trim(0);
}

long long iterations_per_repeat(double t_w) {
  const double min_rep = std::atof(env_or("ANCHORS_MIN_REP_S", "0.2").c_str());
  // An operation too fast for MPI_Wtime's resolution would ask for an
  // unbounded count: a nanosecond floor keeps n finite.
  const double t = std::max(t_w, 1e-9);
  if (200.0 * t >= 1.0) return static_cast<long long>(std::ceil(1.0 / t));
  return std::max<long long>(200, static_cast<long long>(std::ceil(min_rep / t)));
}

Measurement summarize(const std::vector<double>& per_repeat_s, long long iterations,
                      const std::vector<Probe>& probes, const std::vector<double>& cpu_shares) {
  Measurement m;
  m.median_us = median_of(per_repeat_s) * 1e6;
  m.min_us = *std::min_element(per_repeat_s.begin(), per_repeat_s.end()) * 1e6;
  m.max_us = *std::max_element(per_repeat_s.begin(), per_repeat_s.end()) * 1e6;
  m.iters_per_rep = iterations;
  m.reps = static_cast<int>(per_repeat_s.size());
  std::vector<double> lat, dirty;
  for (const Probe& p : probes) {
    lat.push_back(p.lat_us);
    dirty.push_back(p.dirty_us);
  }
  m.probe_lat_us = median_of(lat);
  m.probe_dirty_us = median_of(dirty);
  m.cpu_share = median_of(cpu_shares);
  return m;
}

void poison(double* data, std::size_t count) {
  std::fill(data, data + count, kPoison);
}

void verification_failed(const std::string& case_name, const std::string& impl,
                         const std::string& phase, std::size_t index, double got, double expected) {
  std::fprintf(stderr,
               "VERIFICATION FAILED: case %s impl %s (%s) on rank %d: local entry %zu holds %.17g, "
               "expected %.17g\n",
               case_name.c_str(), impl.c_str(), phase.c_str(), my_rank, index, got, expected);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

void report(const Line& line) {
  const double bytes = max_over_ranks(line.bytes);
  const double offrank = max_over_ranks(line.offrank_bytes);
  if (my_rank != 0) return;
  const Measurement& m = line.m;
  const double gbps = line.rate && m.median_us > 0 ? bytes / (m.median_us * 1e3) : 0.0;
  std::printf("%-22s %-20s %12.3f %12.3f %12.3f %10.0f %8s %7.3f %9.3f\n", line.case_name.c_str(),
              line.impl.c_str(), m.median_us, m.min_us, m.max_us, bytes,
              line.rate ? number(gbps, 3).c_str() : "-", m.probe_lat_us, m.probe_dirty_us);
  std::fflush(stdout);
  if (m.cpu_share < kCleanCpuShare)
    std::fprintf(stderr,
                 "# warning: %s %s: the ranks got %.0f%% of their cores (other processes ran), "
                 "the time is not clean\n",
                 line.case_name.c_str(), line.impl.c_str(), 100.0 * m.cpu_share);
  std::ostringstream json;
  json << "{\"case\":" << quoted(line.case_name) << ",\"impl\":" << quoted(line.impl)
       << ",\"kind\":" << quoted(line.kind) << ",\"median_us\":" << number(m.median_us)
       << ",\"min_us\":" << number(m.min_us) << ",\"max_us\":" << number(m.max_us)
       << ",\"bytes\":" << number(bytes, 0) << ",\"offrank_bytes\":" << number(offrank, 0)
       << ",\"gbps\":" << number(gbps, 4) << ",\"iters_per_rep\":" << m.iters_per_rep
       << ",\"reps\":" << m.reps << ",\"ranks\":" << comm_size
       << ",\"threads\":" << Kokkos::DefaultExecutionSpace().concurrency()
       << ",\"probe_lat_us\":" << number(m.probe_lat_us)
       << ",\"probe_dirty_us\":" << number(m.probe_dirty_us)
       << ",\"cpu_share\":" << number(m.cpu_share);
  if (m.page_faults >= 0) json << ",\"page_faults\":" << m.page_faults;
  json << ",\"run\":" << run_number() << ",\"time\":" << quoted(utc_now())
       << ",\"note\":" << quoted(line.note) << "}";
  append_jsonl(json.str());
}

void write_meta() {
  if (my_rank != 0) return;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const std::string single_copy = env_or("OMPI_MCA_btl_vader_single_copy_mechanism", "default");
  const std::string huge_pages = transparent_huge_pages();
  const std::string glibc_tunables = env_or("GLIBC_TUNABLES", "");
  std::ostringstream json;
  json << "{\"meta\":true,\"kind\":\"meta\",\"host\":" << quoted(host)
       << ",\"cpu\":" << quoted(cpu_model()) << ",\"cores\":" << cores << ",\"np\":" << comm_size
       << ",\"threads\":" << Kokkos::DefaultExecutionSpace().concurrency()
       << ",\"versions\":{\"adlib\":" << quoted(ADLIB_BENCH_ADLIB_VERSION)
       << ",\"adlib_commit\":" << quoted(ADLIB_BENCH_ADLIB_COMMIT)
       << ",\"kokkos\":" << quoted(kokkos_version())
       << ",\"kokkos_space\":" << quoted(Kokkos::DefaultExecutionSpace::name())
       << ",\"kokkos_spaces\":" << quoted(adlib::kokkos_execution_spaces())
       << ",\"mpi\":" << quoted(mpi_library()) << ",\"mpi_standard\":" << quoted(mpi_standard())
       << ",\"benchmark\":" << quoted(ADLIB_BENCH_GBENCH_VERSION)
       << ",\"compiler\":" << quoted(__VERSION__)
       << ",\"build_type\":" << quoted(ADLIB_BENCH_BUILD_TYPE)
       << ",\"peers\":" << quoted(ADLIB_BENCH_PEERS_BUILT) << "}"
       << ",\"single_copy\":" << quoted(single_copy)
       << ",\"transparent_huge_pages\":" << quoted(huge_pages)
       << ",\"glibc_tunables\":" << quoted(glibc_tunables)
       << ",\"min_rep_s\":" << quoted(env_or("ANCHORS_MIN_REP_S", "0.2"))
       << ",\"configuration\":" << quoted(adlib::Configuration::environment().describe())
       << ",\"tuning_file\":" << quoted(adlib::Configuration::tuning_file().describe())
       << ",\"run\":" << run_number() << ",\"time\":" << quoted(utc_now()) << "}";
  append_jsonl(json.str());
  std::printf(
      "# adlib bench: host %s, cpu %s, %ld cores, np %d, adlib %s (%s), Kokkos %s (%s of %s, %d "
      "threads), %s\n",
      host, cpu_model().c_str(), cores, comm_size, ADLIB_BENCH_ADLIB_VERSION,
      ADLIB_BENCH_ADLIB_COMMIT, kokkos_version().c_str(), Kokkos::DefaultExecutionSpace::name(),
      adlib::kokkos_execution_spaces(), Kokkos::DefaultExecutionSpace().concurrency(),
      mpi_library().c_str());
  // The thresholds in force, and where they came from (scripts/tune).
  std::printf("# adlib configuration: %s; tuning file: %s\n",
              adlib::Configuration::environment().describe().c_str(),
              adlib::Configuration::tuning_file().describe().c_str());
  // A file from an older scripts/tune leaves later settings at their
  // built-in values: say which, once per run.
  const adlib::TuningFile& file = adlib::Configuration::tuning_file();
  if (file.found()) {
    std::string lacking;
    for (const std::string& name : adlib::tunable_settings())
      if (file.value(name.c_str()) == nullptr) lacking += (lacking.empty() ? "" : ", ") + name;
    if (!lacking.empty())
      std::fprintf(
          stderr,
          "# note: the tuning file does not set %s: built-in values for them (scripts/tune "
          "measures every setting)\n",
          lacking.c_str());
  }
  std::printf("# memory: transparent huge pages %s, GLIBC_TUNABLES %s\n", huge_pages.c_str(),
              glibc_tunables.empty() ? "unset" : glibc_tunables.c_str());
  std::fflush(stdout);
}

void print_table_header() {
  if (my_rank != 0) return;
  std::printf("%-22s %-20s %12s %12s %12s %10s %8s %7s %9s\n", "case", "impl", "median_us",
              "min_us", "max_us", "bytes", "GB/s", "lat_us", "dirty_us");
  std::fflush(stdout);
}

void add_case(const std::string& name, std::function<void()> body) {
  // One iteration: Google Benchmark would otherwise pick an iteration count
  // per rank, and ranks that disagree deadlock in the first collective.
  benchmark::RegisterBenchmark(name.c_str(), [name, body](benchmark::State& state) {
    for (auto _ : state) {
      try {
        body();
      } catch (const std::exception& e) {
        // Ranks may fail at different points:
        // only an abort ends the job cleanly.
        std::fprintf(stderr, "adlib_bench: case %s failed on rank %d: %s\n", name.c_str(), my_rank,
                     e.what());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
      }
    }
  })->Iterations(1);
}

}  // namespace bench
