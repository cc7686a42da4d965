// SPDX-License-Identifier: BSD-3-Clause
// remap_demo: a transpose-based smoother that reuses two Remap schedules.
//
// An N x N periodic field is smoothed alternately along rows and along
// columns (the shape of an ADI or pseudo-spectral time loop).  Each sweep
// needs whole lines on one rank, so the field lives in two layouts:
//
//   rows:    block over a P x 1 grid      (each rank holds N/P whole rows)
//   columns: block-cyclic(16) over 1 x P  (each rank holds whole columns)
//
// and every iteration remaps rows -> columns and back.  Both schedules are
// built once, before the loop, and executed 2 x iterations times: the point
// of a schedule-based library.  The field starts as a sum of cosine modes,
// which the periodic 1-2-1 average only rescales, so the exact value of
// every element after any number of sweeps is a closed-form function of its
// global indices: a serial reference that needs no serial run.
//
//   mpirun -np 4 build/examples/remap_demo [--n N] [--iterations K] [--every E]
//
// Exits 0 when every checked value matches the reference, 1 otherwise, 2 on
// bad arguments.  Only rank 0 prints.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>

namespace {

using adlib::Index;
using Field = adlib::DistArray<double, 2>;
using Smoother = adlib::Remap<double, 2>;

constexpr Index kColumnTile = 16;  // block-cyclic tile of the column layout
constexpr double kTolerance = 1e-9;

struct Options {
  Index n = 1024;
  int iterations = 300;
  int every = 30;
};

const char* const kUsage =
    "usage: remap_demo [--n N] [--iterations K] [--every E]\n"
    "  --n N           global array is N x N doubles (default 1024)\n"
    "  --iterations K  smoothing iterations, two remaps each (default 300)\n"
    "  --every E       progress line every E iterations (default 30)\n";

// Every rank parses the same command line, so every rank reaches the same
// verdict and no rank is left waiting in a collective.
bool parse_options(int argc, char** argv, Options& options, std::string& error) {
  for (int a = 1; a < argc; ++a) {
    std::string name = argv[a], value;
    const auto equals = name.find('=');
    if (equals != std::string::npos) {
      value = name.substr(equals + 1);
      name.resize(equals);
    } else if (name == "--help" || name == "-h") {
      error = "help";
      return false;
    } else if (a + 1 < argc) {
      value = argv[++a];
    } else {
      error = "missing value for " + name;
      return false;
    }
    char* end = nullptr;
    const long long number = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || number < 1) {
      error = "expected a positive integer for " + name + ", got '" + value + "'";
      return false;
    }
    if (name == "--n")
      options.n = number;
    else if (name == "--iterations" && number <= 1000000)
      options.iterations = static_cast<int>(number);
    else if (name == "--every" && number <= 1000000)
      options.every = static_cast<int>(number);
    else {
      error = "unknown or out-of-range option " + name;
      return false;
    }
  }
  return true;
}

// The closed-form reference.  On a periodic line of n points the 1-2-1
// average maps cos(2 pi k x / n) to cos^2(pi k / n) * cos(2 pi k x / n)
// exactly, for every integer k.  A separable mode cos(a i) cos(b j) is
// therefore scaled by cos^2(pi b / n) per row sweep (along j) and by
// cos^2(pi a / n) per column sweep (along i); the constant is untouched.
class ExactSolution {
 public:
  explicit ExactSolution(Index n) {
    // A slow mode that survives the whole run (so late checks still see
    // structure) and two faster ones that the smoother visibly removes.
    add_mode(n, 0.1, 3, 5);
    add_mode(n, 0.4, std::max<Index>(1, n / 64), std::max<Index>(1, n / 32));
    add_mode(n, 0.25, std::max<Index>(1, n / 16), std::max<Index>(1, n / 40));
  }

  double operator()(Index i, Index j, int row_sweeps, int column_sweeps) const {
    double value = 1.0;
    for (const Mode& m : modes_)
      value += m.amplitude * std::pow(m.row_sweep_factor, row_sweeps) *
               std::pow(m.column_sweep_factor, column_sweeps) * m.cos_i[i] * m.cos_j[j];
    return value;
  }

 private:
  struct Mode {
    double amplitude;
    double row_sweep_factor, column_sweep_factor;
    std::vector<double> cos_i, cos_j;  // tabulated once: the checks stay cheap
  };

  void add_mode(Index n, double amplitude, Index wave_number_i, Index wave_number_j) {
    const double pi = std::acos(-1.0);
    auto damping = [&](Index k) { return std::pow(std::cos(pi * double(k) / double(n)), 2); };
    // (k * x) mod n keeps the argument in [0, 2 pi): full accuracy for large n.
    auto table = [&](Index k) {
      std::vector<double> t(static_cast<size_t>(n));
      for (Index x = 0; x < n; ++x) t[x] = std::cos(2.0 * pi * double((k * x) % n) / double(n));
      return t;
    };
    modes_.push_back({amplitude, damping(wave_number_j), damping(wave_number_i),
                      table(wave_number_i), table(wave_number_j)});
  }

  std::vector<Mode> modes_;
};

// Periodic 1-2-1 average along dimension 1 of every local row.  Valid in the
// row layout only, where each rank holds whole rows.
void smooth_along_rows(const Field::view_type& out, const Field::view_type& in) {
  const std::int64_t rows = in.extent(0), n = in.extent(1);
  Kokkos::parallel_for(
      "smooth_along_rows",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({std::int64_t(0), std::int64_t(0)}, {rows, n}),
      KOKKOS_LAMBDA(const std::int64_t r, const std::int64_t j) {
        const std::int64_t left = j == 0 ? n - 1 : j - 1, right = j + 1 == n ? 0 : j + 1;
        out(r, j) = 0.25 * (in(r, left) + 2.0 * in(r, j) + in(r, right));
      });
}

// The same along dimension 0 of every local column (column layout: the row
// range is collapsed, so local row index == global row index).
void smooth_along_columns(const Field::view_type& out, const Field::view_type& in) {
  const std::int64_t n = in.extent(0), columns = in.extent(1);
  Kokkos::parallel_for(
      "smooth_along_columns",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({std::int64_t(0), std::int64_t(0)}, {n, columns}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t c) {
        const std::int64_t up = i == 0 ? n - 1 : i - 1, down = i + 1 == n ? 0 : i + 1;
        out(i, c) = 0.25 * (in(up, c) + 2.0 * in(i, c) + in(down, c));
      });
}

struct Verdict {
  Index wrong = 0;             // elements off by more than kTolerance, all ranks
  double max_error = 0.0;      // over all ranks
  double max_amplitude = 0.0;  // max |u - 1|: how much is left to smooth
  double sum = 0.0;            // checksum; smoothing conserves it (= n * n)
  Index worst_i = -1, worst_j = -1;
};

// Compares every element of `field` with the reference (collective).
Verdict check(const Field& field, const ExactSolution& exact, int row_sweeps, int column_sweeps) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.local_view());
  adlib::DistArray<double, 2, Kokkos::HostSpace> on_host(field, host);
  Verdict mine;
  on_host.for_each_local([&](const auto& g, double value) {
    const double error = std::abs(value - exact(g[0], g[1], row_sweeps, column_sweeps));
    if (!(error <= kTolerance)) ++mine.wrong;  // NaN counts as wrong
    if (!(error <= mine.max_error)) {
      mine.max_error = error;
      mine.worst_i = g[0];
      mine.worst_j = g[1];
    }
    mine.max_amplitude = std::max(mine.max_amplitude, std::abs(value - 1.0));
    mine.sum += value;
  });
  MPI_Comm comm = field.comm().get();
  Verdict all;
  MPI_Allreduce(&mine.wrong, &all.wrong, 1, MPI_INT64_T, MPI_SUM, comm);
  MPI_Allreduce(&mine.max_amplitude, &all.max_amplitude, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&mine.sum, &all.sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  struct {
    double error;
    int rank;
  } local_worst{mine.max_error, field.comm().rank()}, worst{};
  MPI_Allreduce(&local_worst, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  all.max_error = worst.error;
  Index where[2] = {mine.worst_i, mine.worst_j};
  MPI_Bcast(where, 2, MPI_INT64_T, worst.rank, comm);
  all.worst_i = where[0];
  all.worst_j = where[1];
  return all;
}

double max_over_ranks(double value, MPI_Comm comm) {
  double result = 0.0;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm);
  return result;
}

std::int64_t sum_over_ranks(std::int64_t value, MPI_Comm comm) {
  std::int64_t result = 0;
  MPI_Allreduce(&value, &result, 1, MPI_INT64_T, MPI_SUM, comm);
  return result;
}

// What one execution of a schedule moves, from its plan: totals over ranks
// and the largest share of one rank.
struct Traffic {
  std::int64_t messages, most_messages;
  std::int64_t bytes_sent, most_bytes_sent;
  std::int64_t bytes_copied_locally;
};
Traffic traffic_of(const Smoother& schedule, MPI_Comm comm) {
  const adlib::BlockMessagePlan& plan = schedule.schedule().plan();
  const auto messages = static_cast<std::int64_t>(plan.send_messages().size());
  const std::int64_t sent = plan.send_count() * std::int64_t(sizeof(double));
  const std::int64_t copied = plan.local_count() * std::int64_t(sizeof(double));
  std::int64_t most[2] = {messages, sent}, most_everywhere[2] = {};
  MPI_Allreduce(most, most_everywhere, 2, MPI_INT64_T, MPI_MAX, comm);
  return {sum_over_ranks(messages, comm), most_everywhere[0], sum_over_ranks(sent, comm),
          most_everywhere[1], sum_over_ranks(copied, comm)};
}

std::string format_bytes(std::int64_t bytes) {
  char text[32];
  if (bytes < 1024)
    std::snprintf(text, sizeof text, "%lld B", static_cast<long long>(bytes));
  else if (bytes < 1024 * 1024)
    std::snprintf(text, sizeof text, "%.2f KiB", double(bytes) / 1024.0);
  else
    std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int ranks = comm.size();
  const bool printer = comm.rank() == 0;

  Options options;
  std::string error;
  if (!parse_options(argc, argv, options, error)) {
    if (printer) {
      if (error != "help") std::fprintf(stderr, "remap_demo: %s\n", error.c_str());
      std::fputs(kUsage, error == "help" ? stdout : stderr);
    }
    return error == "help" ? 0 : 2;
  }
  const Index n = options.n;

  // Two grids over the same ranks: P x 1 for rows, 1 x P for columns.
  adlib::ProcessGrid row_grid(comm, {ranks, 1});
  adlib::ProcessGrid column_grid(comm, {1, ranks});
  Field rows(row_grid,
             {std::make_shared<adlib::BlockRange>(n, row_grid.dim(0)),
              std::make_shared<adlib::CollapsedRange>(n)},
             "rows");
  Field rows_smoothed(rows.layout(), "rows_smoothed");
  Field columns(column_grid,
                {std::make_shared<adlib::CollapsedRange>(n),
                 std::make_shared<adlib::BlockCyclicRange>(n, column_grid.dim(1), kColumnTile)},
                "columns");
  Field columns_smoothed(columns.layout(), "columns_smoothed");

  const ExactSolution exact(n);
  rows.fill([&](const auto& g) { return exact(g[0], g[1], 0, 0); });

  // Build both schedules once.  Barriers only make the timing fair.
  MPI_Barrier(comm.get());
  double t0 = MPI_Wtime();
  Smoother to_columns(columns, rows_smoothed);
  const double build_to_columns = max_over_ranks(MPI_Wtime() - t0, comm.get());
  MPI_Barrier(comm.get());
  t0 = MPI_Wtime();
  Smoother to_rows(rows, columns_smoothed);
  const double build_to_rows = max_over_ranks(MPI_Wtime() - t0, comm.get());

  if (printer) {
    std::printf("remap_demo: %lld x %lld doubles on %d rank%s, %d iterations\n",
                static_cast<long long>(n), static_cast<long long>(n), ranks, ranks == 1 ? "" : "s",
                options.iterations);
    std::printf("  rows:    %s\n", rows.layout().describe().c_str());
    std::printf("  columns: %s\n", columns.layout().describe().c_str());
    std::printf("%10s %20s %12s %12s %10s\n", "iteration", "checksum (sum)", "max|u-1|",
                "max error", "iter/s");
  }

  double time_to_columns = 0.0, time_to_rows = 0.0, time_computing = 0.0, time_looping = 0.0;
  // Progress rates cover the iterations since the previous line, checks excluded.
  double window_start = MPI_Wtime();
  int window_first = 1;
  bool all_correct = true;
  // The fences make each kernel's time its own: Kokkos may return before a
  // kernel ends (device back ends), and the remap would then absorb its time.
  for (int iteration = 1; iteration <= options.iterations; ++iteration) {
    const double start = MPI_Wtime();
    smooth_along_rows(rows_smoothed.local_view(), rows.local_view());
    Kokkos::fence();
    const double rows_done = MPI_Wtime();
    to_columns.execute(columns, rows_smoothed);
    const double transposed = MPI_Wtime();
    smooth_along_columns(columns_smoothed.local_view(), columns.local_view());
    Kokkos::fence();
    const double columns_done = MPI_Wtime();
    to_rows.execute(rows, columns_smoothed);
    const double end = MPI_Wtime();
    time_computing += (rows_done - start) + (columns_done - transposed);
    time_to_columns += transposed - rows_done;
    time_to_rows += end - columns_done;
    time_looping += end - start;

    const bool last = iteration == options.iterations;
    if (iteration % options.every != 0 && !last) continue;
    // Checks are outside every timed interval.  `columns` holds the field
    // after `iteration` row sweeps and one column sweep fewer; `rows` after
    // both: each remap is checked against the reference of its moment.
    const double rate =
        (iteration - window_first + 1) / max_over_ranks(MPI_Wtime() - window_start, comm.get());
    const Verdict after_to_columns = check(columns, exact, iteration, iteration - 1);
    const Verdict after_to_rows = check(rows, exact, iteration, iteration);
    for (const Verdict* v : {&after_to_columns, &after_to_rows})
      if (v->wrong > 0) {
        all_correct = false;
        if (printer)
          std::printf(
              "MISMATCH after %s at iteration %d: %lld wrong values, worst %.3e at (%lld, "
              "%lld)\n",
              v == &after_to_columns ? "rows -> columns" : "columns -> rows", iteration,
              static_cast<long long>(v->wrong), v->max_error, static_cast<long long>(v->worst_i),
              static_cast<long long>(v->worst_j));
      }
    if (printer)
      std::printf("%10d %20.6f %12.3e %12.3e %10.1f\n", iteration, after_to_rows.sum,
                  after_to_rows.max_amplitude,
                  std::max(after_to_columns.max_error, after_to_rows.max_error), rate);
    window_start = MPI_Wtime();
    window_first = iteration + 1;
  }

  // Report: maxima over ranks (the slowest rank sets the pace).
  const int k = options.iterations;
  const double mean_to_columns = max_over_ranks(time_to_columns / k, comm.get());
  const double mean_to_rows = max_over_ranks(time_to_rows / k, comm.get());
  const double computing = max_over_ranks(time_computing, comm.get());
  const double communicating = max_over_ranks(time_to_columns + time_to_rows, comm.get());
  const double looping = max_over_ranks(time_looping, comm.get());
  const Traffic traffic_to_columns = traffic_of(to_columns, comm.get());
  const Traffic traffic_to_rows = traffic_of(to_rows, comm.get());
  if (printer) {
    std::printf("\nschedules (built once, executed %d times each; times are maxima over ranks)\n",
                k);
    auto report = [](const char* name, double build, double mean, const Traffic& t) {
      std::printf("  %s: built in %.3f ms, mean execution %.3f ms\n", name, build * 1e3,
                  mean * 1e3);
      std::printf(
          "    per execution: %lld messages (at most %lld per rank), %s sent (at most %s "
          "per rank), %s copied locally\n",
          static_cast<long long>(t.messages), static_cast<long long>(t.most_messages),
          format_bytes(t.bytes_sent).c_str(), format_bytes(t.most_bytes_sent).c_str(),
          format_bytes(t.bytes_copied_locally).c_str());
    };
    report("rows -> columns", build_to_columns, mean_to_columns, traffic_to_columns);
    report("columns -> rows", build_to_rows, mean_to_rows, traffic_to_rows);
    std::printf("  building both cost as much as %.2f executions; they ran %d\n",
                (build_to_columns + build_to_rows) / (mean_to_columns + mean_to_rows), 2 * k);
    std::printf(
        "\ntime in the loop: %.4g s = communication %.4g s (%.0f%%) + computation %.4g s "
        "(%.0f%%), %.1f iterations/s\n",
        looping, communicating, 100.0 * communicating / looping, computing,
        100.0 * computing / looping, k / looping);
    std::printf("check against the closed-form reference (every %d iterations and the last): %s\n",
                options.every, all_correct ? "PASSED" : "FAILED");
  }
  return all_correct ? 0 : 1;
}
