// SPDX-License-Identifier: BSD-3-Clause
// scripts/tune's measurement (adlib_bench --adlib_tune=FILE): the choices
// adlib makes by a threshold that the CPU and the MPI library move, timed
// on this machine, and the thresholds written to the tuning file that
// Configuration::environment() reads (runtime/tuning_file.hpp).
//
// Measured today: ADLIB_MERGE_INDEX_WALKS, whether the index-list packs
// and unpacks of one array share one walk over it, the messages in the
// owner's order for it, or run one loop each, the messages in the
// requester's order (GA1 and SC1 timed both ways, three times
// alternating; the smaller median sum wins), and ADLIB_DATATYPE_MIN_BYTES,
// the message size from which the automatic transfer rule sends scattered short rows (rows under a
// cache line, a page or more apart: the column halo of a wide row-major
// array) as an MPI datatype rather than packing them.  Ranks r and r^1
// exchange one such column, rewritten before each exchange (as XFER-COL
// does), packed and as a datatype, for columns of 128 to 16384 doubles at
// three pitches; the threshold is the size from which the datatype
// replaces packing that makes the times, summed over the pitches, smallest
// (crossover(): each size's times scaled by its faster, so that one noisy
// size cannot move it far).  Where packing wins throughout, 2^40 bytes:
// always pack.  And
// ADLIB_DENSE_DATATYPE_MAX_BYTES, the largest message of long rows (a
// cache line or more: a face of a 3-D block) that the automatic rule sends
// as a datatype: faces of rows of 64 and of 256 doubles, 8 to 256 KiB,
// exchanged both ways; the limit is the largest size below the one from
// which packing replaces the datatype, chosen alike, the times summed over
// the two row lengths (0: never).  Which way wins depends on how Open MPI moves a
// large contiguous message: where cross-memory attach is slow, the packed
// message of tens of KiB loses (docs/performance.md).
//
// And the reduction thresholds, for sums of doubles over the two ranks
// (measure_reductions): ADLIB_REDUCTION_LONG_BYTES, ADLIB_REDUCTION_SPLIT_BYTES
// and ADLIB_COLLECTIVE_PIECE_BYTES.
//
// The prefetch distance of the index-list loops is not measured: 8 to 64
// elements measured alike on both CPUs tried (runtime/detail/
// index_list_kernels.hpp), so it stays a constant.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"
#include "irregular_case.hpp"

namespace bench {

namespace {

using Index = std::int64_t;

// Above every measured size: the datatype never wins automatically.
constexpr std::int64_t kNeverBytes = std::int64_t(1) << 40;

// The median time (us, MAX over ranks) of one exchange with rank r^1 over
// `a`: block `send` goes out and block `recv` comes in by `method`, after
// rewrite() writes the send block as a solver would before each exchange.
template <class Rewrite>
double exchange_us(std::vector<double>& a, const adlib::StridedBlock& send,
                   const adlib::StridedBlock& recv, adlib::TransferMethod method, Rewrite rewrite) {
  const int partner = rank() ^ 1;
  adlib::BlockMessSchedule<Kokkos::HostSpace> s{adlib::Comm(comm())};
  s.send(partner, send);
  s.recv(partner, recv);
  s.build();
  s.set_transfer({method, 0});
  s.prepare<double>();
  return time_op([&] {
           rewrite();
           s.execute(a.data(), a.size(), a.data(), a.size());
         })
      .median_us;
}

// Stops the measurement when a received value is wrong.
void expect_received(bool right, const char* what, Index n, Index m) {
  if (right) return;
  std::fprintf(stderr, "adlib_bench --adlib_tune: wrong %s value received (%lld, %lld)\n", what,
               static_cast<long long>(n), static_cast<long long>(m));
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// A column of n doubles, pitch_bytes apart, each way with rank r^1, by
// `method`; the received column is checked once after the timing.
double column_exchange_us(Index n, Index pitch_bytes, adlib::TransferMethod method) {
  const int me = rank(), partner = me ^ 1;
  const Index width = pitch_bytes / Index(sizeof(double));
  std::vector<double> a(static_cast<std::size_t>(n * width), 0.0);
  double* column = a.data() + (width - 2);
  const double us = exchange_us(a, adlib::StridedBlock::make(width - 2, {n}, {width}),
                                adlib::StridedBlock::make(width - 1, {n}, {width}), method, [&] {
                                  for (Index i = 0; i < n; ++i)
                                    column[i * width] = 1e7 * me + static_cast<double>(i);
                                });
  for (Index i = 0; i < n; ++i)
    expect_received(a[static_cast<std::size_t>(i * width + width - 1)] ==
                        1e7 * partner + static_cast<double>(i),
                    "column", n, pitch_bytes);
  return us;
}

// A face of `rows` rows of `row_length` doubles (two doubles apart) each
// way with rank r^1, by `method`; the received face is checked once after
// the timing.
double face_exchange_us(Index rows, Index row_length, adlib::TransferMethod method) {
  const int me = rank(), partner = me ^ 1;
  const Index pitch = row_length + 2, face = rows * pitch;
  std::vector<double> a(static_cast<std::size_t>(2 * face), 0.0);
  const auto sent = [&](int from, Index i, Index j) {
    return 1e8 * from + static_cast<double>(i * row_length + j);
  };
  const double us =
      exchange_us(a, adlib::StridedBlock::make(1, {rows, row_length}, {pitch, 1}),
                  adlib::StridedBlock::make(face + 1, {rows, row_length}, {pitch, 1}), method, [&] {
                    for (Index i = 0; i < rows; ++i)
                      for (Index j = 0; j < row_length; ++j)
                        a[static_cast<std::size_t>(i * pitch + 1 + j)] = sent(me, i, j);
                  });
  for (Index i = 0; i < rows; ++i)
    for (Index j = 0; j < row_length; ++j)
      expect_received(a[static_cast<std::size_t>(face + i * pitch + 1 + j)] == sent(partner, i, j),
                      "face", rows, row_length);
  return us;
}

// Appends `row` (a comment line of the tuning file, "#   ...") to `table`
// and shows it, without the comment's "#   ", as progress on rank 0.
void add_row(std::string& table, const char* row) {
  table += row;
  if (rank() == 0) {
    std::fputs(row + 4, stdout);
    std::fflush(stdout);
  }
}

// measure(k) for k = 0 .. n-1, then again for k = n-1 .. 0 (a drift of the
// host then favours neither end); each k keeps the faster of its two
// results, element by element.
template <class Measure>
std::vector<std::vector<double>> two_rounds(std::size_t n, Measure measure) {
  std::vector<std::vector<double>> best(n);
  for (int round = 0; round < 2; ++round)
    for (std::size_t step = 0; step < n; ++step) {
      const std::size_t k = round == 0 ? step : n - 1 - step;
      const std::vector<double> now = measure(k);
      if (round == 0) {
        best[k] = now;
        continue;
      }
      for (std::size_t i = 0; i < now.size(); ++i) best[k][i] = std::min(best[k][i], now[i]);
    }
  return best;
}

// The median time (us, MAX over ranks) of one out-of-place sum of `count`
// doubles over both ranks under `config`; the sums are checked once.
double reduction_us(Index count, const adlib::Configuration& config) {
  const int me = rank();
  std::vector<double> x(static_cast<std::size_t>(count)), y(x.size());
  for (Index i = 0; i < count; ++i) x[static_cast<std::size_t>(i)] = 1e7 * me + double(i);
  adlib::RedxSchedule<double, adlib::op::Add, Kokkos::HostSpace> sum(adlib::Comm(comm()), count,
                                                                     adlib::op::add, config);
  const double us = time_op([&] { sum.execute(x.data(), y.data()); }).median_us;
  for (Index i = 0; i < count; ++i)  // 2 ranks: (0 + i) + (1e7 + i)
    expect_received(y[static_cast<std::size_t>(i)] == 1e7 + 2.0 * double(i), "sum", count, 0);
  return us;
}

// The threshold from which `second` replaces `first`: the one of `sizes`
// (or `never`) that makes the measured times smallest, each size's times
// scaled by its faster one so that every size weighs alike.  Unlike "at
// every larger size", one noisy measurement cannot move it far: on these
// VMs an 8 MiB sum varied by 10-20 % between runs and flipped the ring's
// lead there in one run of three, and one 16 KiB column pair (1.02) moved
// ADLIB_DATATYPE_MIN_BYTES from 4096 to 32768 in one run of five.
std::int64_t crossover(const std::vector<Index>& sizes, const std::vector<double>& first,
                       const std::vector<double>& second, std::int64_t never) {
  // from == sizes.size(): `second` never; ties keep the larger threshold.
  std::int64_t best = never;
  double best_cost = 0.0;
  for (std::size_t from = sizes.size() + 1; from-- > 0;) {
    double cost = 0.0;
    for (std::size_t k = 0; k < sizes.size(); ++k)
      cost += (k < from ? first[k] : second[k]) / std::min(first[k], second[k]);
    if (from == sizes.size() || cost < best_cost) {
      best_cost = cost;
      best = from == sizes.size() ? never : sizes[from];
    }
  }
  return best;
}

// The reduction thresholds at 2 ranks, with their tables (comment lines of
// the tuning file): ADLIB_REDUCTION_LONG_BYTES (MPI_Allreduce against
// adlib's recursive doubling, 512 B to 1 MiB), ADLIB_REDUCTION_SPLIT_BYTES
// (recursive doubling against the ring, 64 KiB to 8 MiB) and
// ADLIB_COLLECTIVE_PIECE_BYTES (the automatic choice under those two, on
// 1 and 8 MiB vectors, for pieces of 32 KiB to 1 MiB or whole messages).
struct ReductionChoices {
  std::int64_t long_bytes = 0, split_bytes = 0, piece_bytes = 0;
  std::string table;
};

ReductionChoices measure_reductions() {
  using adlib::ReductionAlgorithm;
  ReductionChoices out;
  const adlib::Configuration base = adlib::Configuration::environment();
  auto forced = [&](ReductionAlgorithm algorithm) {
    adlib::Configuration c = base;
    c.reduction = algorithm;
    return c;
  };
  auto row = [&](const char* format, long long a, double x, double y) {
    char text[160];
    std::snprintf(text, sizeof text, format, a, x, y);
    add_row(out.table, text);
  };
  // Both algorithms at each size, two rounds (two_rounds): their times.
  auto sweep = [&](const std::vector<Index>& sizes, ReductionAlgorithm a, ReductionAlgorithm b,
                   const char* format) {
    const auto best = two_rounds(sizes.size(), [&](std::size_t k) {
      const Index count = sizes[k] / Index(sizeof(double));
      const double x = reduction_us(count, forced(a)), y = reduction_us(count, forced(b));
      row(format, static_cast<long long>(sizes[k]), x, y);
      return std::vector<double>{x, y};
    });
    std::pair<std::vector<double>, std::vector<double>> times;
    for (const auto& pair : best) {
      times.first.push_back(pair[0]);
      times.second.push_back(pair[1]);
    }
    return times;
  };
  const std::vector<Index> short_sizes = {512,   1024,  2048,   4096,   8192,   16384,
                                          32768, 65536, 131072, 262144, 524288, 1048576};
  out.table +=
      "# sums of doubles over 2 ranks, MPI_Allreduce or adlib's recursive doubling, two "
      "rounds:\n";
  const auto [by_mpi, by_doubling] =
      sweep(short_sizes, ReductionAlgorithm::mpi, ReductionAlgorithm::recursive_doubling,
            "#   %8lld bytes: mpi %9.2f us, recursive doubling %9.2f us\n");
  out.long_bytes = crossover(short_sizes, by_mpi, by_doubling, kNeverBytes);
  const std::vector<Index> long_sizes = {65536,   131072,  262144,  524288,
                                         1048576, 2097152, 4194304, 8388608};
  out.table += "# recursive doubling (whole vectors) or the ring, two rounds:\n";
  const auto [whole, ring] =
      sweep(long_sizes, ReductionAlgorithm::recursive_doubling, ReductionAlgorithm::ring,
            "#   %8lld bytes: recursive doubling %9.2f us, ring %9.2f us\n");
  out.split_bytes = crossover(long_sizes, whole, ring, kNeverBytes);
  // Pieces: the automatic choice under the two thresholds just measured,
  // two rounds.  Each vector's times are scaled by its fastest, so that the
  // 8 MiB one does not outweigh the 1 MiB one, and the built-in size stays
  // unless another scores more than 10 % better: on these VMs one 8 MiB sum
  // varied by 10-20 % between the two rounds, and no piece size won by more.
  adlib::Configuration chosen = base;
  chosen.reduction = ReductionAlgorithm::automatic;  // whatever ADLIB_REDUCTION says
  chosen.reduction_long_bytes = out.long_bytes;
  chosen.reduction_split_bytes = out.split_bytes;
  const std::vector<Index> pieces = {0, 32768, 65536, 131072, 262144, 524288, 1048576};
  const std::vector<Index> vectors = {Index(1) << 17, Index(1) << 20};  // 1 and 8 MiB
  out.table +=
      "# the automatic choice under those, pieces of (0: whole messages), 1 and 8 MiB, "
      "two rounds:\n";
  const auto us = two_rounds(pieces.size(), [&](std::size_t k) {
    chosen.collective_piece_bytes = pieces[k];
    std::vector<double> now;
    for (const Index count : vectors) now.push_back(reduction_us(count, chosen));
    row("#   pieces of %7lld bytes: 1 MiB %9.2f us, 8 MiB %9.2f us\n",
        static_cast<long long>(pieces[k]), now[0], now[1]);
    return now;
  });
  std::vector<double> fastest(vectors.size(), 0.0);
  for (std::size_t v = 0; v < vectors.size(); ++v) {
    fastest[v] = us[0][v];
    for (const auto& times : us) fastest[v] = std::min(fastest[v], times[v]);
  }
  auto score = [&](std::size_t k) {
    double sum = 0.0;
    for (std::size_t v = 0; v < vectors.size(); ++v) sum += us[k][v] / fastest[v];
    return sum;
  };
  std::size_t best = 0;
  for (std::size_t k = 1; k < pieces.size(); ++k)
    if (score(k) < score(best)) best = k;
  const auto built_in = std::find(pieces.begin(), pieces.end(), base.collective_piece_bytes);
  const bool keep_built_in =
      built_in != pieces.end() &&
      score(best) >= 0.9 * score(static_cast<std::size_t>(built_in - pieces.begin()));
  out.piece_bytes = keep_built_in ? base.collective_piece_bytes : pieces[best];
  return out;
}

// GA1 and SC1 at their scenario sizes (2^18 random indices into 2^22
// elements) with the index-list walks merged or not: the sum of the two
// median times (us, MAX over ranks).  Gathered values are checked once.
double irregular_us(bool merged, std::string& detail) {
  const Index n = Index(1) << 22, m = Index(1) << 18;
  const std::vector<Index> idx = irregular::index_stream(rank(), m, n);
  adlib::Configuration config = adlib::Configuration::environment();
  config.merge_index_walks = merged;
  adlib::ProcessGrid line(MPI_COMM_WORLD, {size()});
  adlib::DistArray<double, 1, Kokkos::HostSpace> a(line, {adlib::block(n)});
  a.fill([](const auto& g) { return static_cast<double>(g[0]); });
  std::vector<double> out(idx.size());
  adlib::Gather<double, Kokkos::HostSpace> fetch(a, idx, config);
  const double gather = time_op([&] { fetch.execute(out.data(), a); }).median_us;
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (out[k] != static_cast<double>(idx[k])) {
      std::fprintf(stderr, "adlib_bench --adlib_tune: wrong gathered value\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  adlib::Scatter<double, Kokkos::HostSpace, adlib::op::Add> add(a, idx, adlib::op::add, config);
  const double scatter = time_op([&] { add.execute(a, out.data()); }).median_us;
  char text[96];
  std::snprintf(text, sizeof text, "GA1 %.1f us + SC1 %.1f us", gather, scatter);
  detail = text;
  return gather + scatter;
}

std::string utc_time() {
  char text[32] = {};
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

}  // namespace

int run_tuning(const std::string& path) {
  if (size() != 2) {
    if (rank() == 0) std::fprintf(stderr, "adlib_bench --adlib_tune: run it on 2 ranks\n");
    return 1;
  }
  // Pitches a page or more apart, none a multiple of 2 KiB (those always
  // pack: transfer_policy.cpp).
  const std::vector<Index> pitches = {4160, 8208, 32784};
  const std::vector<Index> counts = {128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  std::string table;
  // Per count, the times summed over the pitches: one noisy pitch cannot
  // decide alone (the host's speed drifts between measurements).
  std::vector<double> packed_sum(counts.size(), 0.0), typed_sum(counts.size(), 0.0);
  for (std::size_t p = 0; p < pitches.size(); ++p)
    for (std::size_t c = 0; c < counts.size(); ++c) {
      const double packed = column_exchange_us(counts[c], pitches[p], adlib::TransferMethod::pack);
      const double typed =
          column_exchange_us(counts[c], pitches[p], adlib::TransferMethod::datatype);
      packed_sum[c] += packed;
      typed_sum[c] += typed;
      char row[160];
      std::snprintf(
          row, sizeof row, "#   pitch %6lld B, %6lld doubles: pack %9.2f us, datatype %9.2f us\n",
          static_cast<long long>(pitches[p]), static_cast<long long>(counts[c]), packed, typed);
      add_row(table, row);
    }
  // Faces of long rows, 8 to 256 KiB, at two row lengths.
  const std::vector<Index> face_bytes = {8192, 16384, 32768, 65536, 131072, 262144};
  const std::vector<Index> row_lengths = {64, 256};
  std::string face_table;
  std::vector<double> face_packed(face_bytes.size(), 0.0), face_typed(face_bytes.size(), 0.0);
  for (const Index row_length : row_lengths)
    for (std::size_t b = 0; b < face_bytes.size(); ++b) {
      const Index rows = face_bytes[b] / (row_length * Index(sizeof(double)));
      const double packed = face_exchange_us(rows, row_length, adlib::TransferMethod::pack);
      const double typed = face_exchange_us(rows, row_length, adlib::TransferMethod::datatype);
      face_packed[b] += packed;
      face_typed[b] += typed;
      char row[160];
      std::snprintf(
          row, sizeof row, "#   %4lld rows of %4lld doubles: pack %9.2f us, datatype %9.2f us\n",
          static_cast<long long>(rows), static_cast<long long>(row_length), packed, typed);
      add_row(face_table, row);
    }
  // The size from which packing replaces the datatype (crossover's rule);
  // the limit is the largest measured size below it.
  const std::int64_t packed_from = crossover(face_bytes, face_typed, face_packed, kNeverBytes);
  std::int64_t dense_limit = 0;
  for (const Index bytes : face_bytes)
    if (bytes < packed_from) dense_limit = bytes;
  // Merged index-list walks against one loop per list, alternating three
  // times (the host's speed drifts by 15 % between consecutive runs here):
  // the medians decide.
  std::vector<double> merged_us, separate_us;
  std::string merged_detail, separate_detail, detail;
  for (int round = 0; round < 3; ++round) {
    merged_us.push_back(irregular_us(true, detail));
    merged_detail += (round ? "; " : "") + detail;
    separate_us.push_back(irregular_us(false, detail));
    separate_detail += (round ? "; " : "") + detail;
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const bool merge = median(merged_us) < median(separate_us);
  if (rank() == 0)
    std::printf("index walks merged: %s\nseparate: %s\n", merged_detail.c_str(),
                separate_detail.c_str());
  const ReductionChoices reductions = measure_reductions();
  // The size from which the datatype replaces packing, its times summed
  // over the pitches (crossover's rule).
  std::vector<Index> count_bytes;
  for (const Index c : counts) count_bytes.push_back(c * Index(sizeof(double)));
  const std::int64_t threshold = crossover(count_bytes, packed_sum, typed_sum, kNeverBytes);
  if (rank() == 0) {
    std::ofstream out(path);
    out << "# adlib tuning file, written by scripts/tune (adlib_bench --adlib_tune) on "
        << utc_time() << "\n# for this machine: its CPU, memory and MPI library (runtime/"
        << "tuning_file.hpp; environment variables override it)\n"
        << "# column exchanges with rank r^1, packed or as an MPI datatype (median of 5):\n"
        << table
        << "# the size from which the datatype replaces packing that makes the times (summed "
           "over the pitches) smallest, each size's scaled by its faster (2^40: never):\n"
           "ADLIB_DATATYPE_MIN_BYTES="
        << threshold
        << "\n# faces of long rows with rank r^1, packed or as an MPI datatype (median of 5):\n"
        << face_table
        << "# the largest size below the one from which packing replaces the datatype, chosen "
           "alike (summed over the row lengths; 0: never):\nADLIB_DENSE_DATATYPE_MAX_BYTES="
        << dense_limit << "\n"
        << "# GA1 and SC1 (2^18 indices into 2^22 doubles), median of 5, alternating:\n#   index "
           "walks merged (3 rounds): "
        << merged_detail << "\n#   one loop per list:  " << separate_detail
        << "\n# the faster:\nADLIB_MERGE_INDEX_WALKS=" << (merge ? 1 : 0) << "\n"
        << reductions.table
        << "# the size from which adlib's recursive doubling replaces MPI_Allreduce that makes "
           "the times above smallest, each size's scaled by its faster (2^40: never):\n"
           "ADLIB_REDUCTION_LONG_BYTES="
        << reductions.long_bytes
        << "\n# the size from which the ring replaces recursive doubling, chosen alike (2^40: "
           "never):\nADLIB_REDUCTION_SPLIT_BYTES="
        << reductions.split_bytes
        << "\n# the fastest piece size (each vector's time over its fastest, summed; the "
           "built-in one unless another is more than 10 % better):\nADLIB_COLLECTIVE_PIECE_BYTES="
        << reductions.piece_bytes << "\n";
    if (!out) {
      std::fprintf(stderr, "adlib_bench --adlib_tune: cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf(
        "ADLIB_DATATYPE_MIN_BYTES=%lld ADLIB_DENSE_DATATYPE_MAX_BYTES=%lld "
        "ADLIB_MERGE_INDEX_WALKS=%d ADLIB_REDUCTION_LONG_BYTES=%lld "
        "ADLIB_REDUCTION_SPLIT_BYTES=%lld ADLIB_COLLECTIVE_PIECE_BYTES=%lld written to %s\n",
        static_cast<long long>(threshold), static_cast<long long>(dense_limit), merge ? 1 : 0,
        static_cast<long long>(reductions.long_bytes),
        static_cast<long long>(reductions.split_bytes),
        static_cast<long long>(reductions.piece_bytes), path.c_str());
  }
  return 0;
}

}  // namespace bench
