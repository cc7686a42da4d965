// SPDX-License-Identifier: BSD-3-Clause
// Remap cases (bench/README.md, RM1-N and RM2-N): adlib's Remap beside the
// raw-MPI baselines `mpi-alltoallv` (precomputed index lists, pack,
// MPI_Alltoallv, unpack) and `floor` (MPI_Alltoall of contiguous buffers that
// already hold the data in message order: no pack, no unpack).
//
// Line order per case: adlib:setup, adlib, mpi-alltoallv:setup,
// mpi-alltoallv, floor.  Each implementation has its own arrays, freed
// before the next one allocates, so they do not compete for cache or memory.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"

namespace bench {

namespace {

using adlib::Index;

constexpr const char* kAdlibNote2D =
    "adlib local storage is C order (row-major); the MPI baselines use column-major";

bool debug_output() {
  const char* value = std::getenv("ADLIB_BENCH_DEBUG");
  return value && *value && std::string(value) != "0";
}

// What a BlockMessSchedule does per execution, for the note of the adlib
// line: messages out / in (packed or sent from user memory), local copies.
std::string schedule_summary(const adlib::BlockMessagePlan& plan) {
  auto side = [](const std::vector<adlib::PeerMessage>& messages) {
    int direct = 0;
    std::size_t blocks = 0;
    for (const auto& m : messages) {
      direct += m.direct ? 1 : 0;
      blocks += m.blocks.size();
    }
    return std::to_string(messages.size()) + " msg (" + std::to_string(direct) + " direct, " +
           std::to_string(blocks) + " blocks)";
  };
  std::string s = "rank 0: out " + side(plan.send_messages()) + ", in " +
                  side(plan.recv_messages()) + ", local " +
                  (plan.local_copies_staged()
                       ? "staged " + std::to_string(plan.local_send_blocks().size()) + "+" +
                             std::to_string(plan.local_recv_blocks().size()) + " blocks"
                       : std::to_string(plan.local_copies().size()) + " copies");
  if (debug_output() && rank() == 0) {
    for (const auto& m : plan.send_messages())
      for (const auto& b : m.blocks)
        std::fprintf(stderr, "  send to %d: %s\n", m.peer, b.to_string().c_str());
    for (const auto& m : plan.recv_messages())
      for (const auto& b : m.blocks)
        std::fprintf(stderr, "  recv from %d: %s\n", m.peer, b.to_string().c_str());
    for (const auto& c : plan.local_copies())
      std::fprintf(stderr, "  local %s <- %s\n", c.recv_side.to_string().c_str(),
                   c.send_side.to_string().c_str());
  }
  return s;
}

// ---- the raw-MPI baselines, shared by RM1 and RM2 ------------------------------

// mpi-alltoallv: counts, displacements and index lists (send grouped by
// destination, receive grouped by source, each in the case's canonical
// order) computed once; execution packs by the send list, calls
// MPI_Alltoallv (the part a rank keeps goes through it too) and unpacks by
// the receive list.
struct AlltoallvPlan {
  std::vector<int> send_counts, send_displs, recv_counts, recv_displs;
  std::vector<std::int32_t> send_index, recv_index;  // local positions
  std::vector<double> send_buffer, recv_buffer;

  // After the counts and lists are filled: displacements and buffers
  // (allocated and first touched here, part of the setup line).
  void finish_setup() {
    auto displacements = [](const std::vector<int>& counts) {
      std::vector<int> d(counts.size(), 0);
      for (std::size_t q = 1; q < counts.size(); ++q) d[q] = d[q - 1] + counts[q - 1];
      return d;
    };
    send_displs = displacements(send_counts);
    recv_displs = displacements(recv_counts);
    send_buffer.assign(send_index.size(), 0.0);
    recv_buffer.assign(recv_index.size(), 0.0);
  }

  void execute(const double* __restrict__ src, double* __restrict__ dst) {
    const std::size_t n_send = send_index.size(), n_recv = recv_index.size();
    const std::int32_t* __restrict__ si = send_index.data();
    const std::int32_t* __restrict__ ri = recv_index.data();
    double* __restrict__ sb = send_buffer.data();
    const double* __restrict__ rb = recv_buffer.data();
    for (std::size_t k = 0; k < n_send; ++k) sb[k] = src[si[k]];
    MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE,
                  recv_buffer.data(), recv_counts.data(), recv_displs.data(), MPI_DOUBLE, comm());
    for (std::size_t k = 0; k < n_recv; ++k) dst[ri[k]] = rb[k];
  }
};

// floor: MPI_Alltoall of `per_pair` doubles between every pair of ranks.
struct AlltoallFloor {
  int per_pair = 0;
  std::vector<double> send_buffer, recv_buffer;
  void execute() {
    MPI_Alltoall(send_buffer.data(), per_pair, MPI_DOUBLE, recv_buffer.data(), per_pair, MPI_DOUBLE,
                 comm());
  }
};

// Runs the verified and timed phases of one implementation whose destination
// is `dst[0..count)` and whose reference is expected(k).
template <class Op, class Expected>
Measurement verified_timing(const std::string& name, const std::string& impl, double* dst,
                            std::size_t count, Op&& op, Expected&& expected) {
  poison(dst, count);
  op();
  verify(name, impl, "first", dst, count, expected);
  poison(dst, count);
  const Measurement m = time_op(op);
  verify(name, impl, "after timing", dst, count, expected);
  return m;
}

// One-shot time of the first execution (MAX over ranks), in microseconds:
// adlib creates its persistent requests there and touches its pack buffers
// (allocated, not initialised, by the constructor) for the first time.
template <class Op>
double first_execution_us(Op&& op) {
  return time_setup(op).median_us;
}

std::string first_execution_note(double us) {
  char text[160];
  std::snprintf(text, sizeof text,
                "Remap constructor (plan, pack buffers); the first execute (persistent requests, "
                "first touch of the buffers) took %.1f us",
                us);
  return text;
}

// adlib's lines of a remap case: the schedule's construction (setup), its
// first execution (in the setup line's note), then the verified, timed
// executions.  `note` prefixes the op line's note.
template <int Rank, class Expected>
void run_adlib_remap(const std::string& name, const adlib::DistArray<double, Rank>& dst,
                     const adlib::DistArray<double, Rank>& src, std::size_t n_dst,
                     Expected&& expected, double bytes, double offrank, const std::string& note) {
  double* d = dst.local_view().data();
  std::unique_ptr<adlib::Remap<double, Rank>> remap;
  const Measurement setup =
      time_setup([&] { remap = std::make_unique<adlib::Remap<double, Rank>>(dst, src); });
  poison(d, n_dst);
  const double first_us = first_execution_us([&] { remap->execute(dst, src); });
  verify(name, "adlib", "first", d, n_dst, expected);
  report({name, "adlib:setup", "setup", setup, 0, 0, first_execution_note(first_us), false});
  poison(d, n_dst);
  const Measurement m = time_op([&] { remap->execute(dst, src); });
  verify(name, "adlib", "after timing", d, n_dst, expected);
  report(
      {name, "adlib", "op", m, bytes, offrank, note + schedule_summary(remap->schedule().plan())});
}

// ---- RM1-N: 1-D block -> cyclic -----------------------------------------------------

struct Rm1 {
  Index n;
  int p, r;
  // Block distribution: rank q owns [q*N/P, (q+1)*N/P).
  Index lo(int q) const { return q * n / p; }
  Index block_count(int q) const { return lo(q + 1) - lo(q); }
  // First global index of rank s's block that is cyclic-owned by q, and how
  // many there are (they follow with step P).
  Index first_in_block(int s, int q) const {
    const Index m = (q - lo(s)) % p;
    return lo(s) + (m < 0 ? m + p : m);
  }
  Index count_in_block(int s, int q) const {
    const Index f = first_in_block(s, q);
    return f >= lo(s + 1) ? 0 : (lo(s + 1) - 1 - f) / p + 1;
  }
  Index cyclic_count(int q) const { return (n - q + p - 1) / p; }
};

void rm1_case(Index n) {
  const std::string name = "RM1-" + std::to_string(n);
  const Rm1 g{n, size(), rank()};
  const auto n_src = static_cast<std::size_t>(g.block_count(g.r));
  const auto n_dst = static_cast<std::size_t>(g.cyclic_count(g.r));
  const double bytes = static_cast<double>(n_dst * sizeof(double));
  const double offrank = static_cast<double>((g.cyclic_count(g.r) - g.count_in_block(g.r, g.r)) *
                                             Index(sizeof(double)));
  // Destination: cyclic, local l holds g = l*P + r.
  auto expected = [&](std::size_t l) { return static_cast<double>(Index(l) * g.p + g.r); };

  {  // adlib
    adlib::Comm adlib_comm(MPI_COMM_WORLD);
    adlib::ProcessGrid grid(adlib_comm, {g.p});
    auto block = std::make_shared<adlib::BlockRange>(n, grid.dim(0));
    auto cyclic = std::make_shared<adlib::CyclicRange>(n, grid.dim(0));
    adlib::DistArray<double, 1> src(grid, {block}), dst(grid, {cyclic});
    double* s = src.local_view().data();
    if (src.local_view().span() != n_src || dst.local_view().span() != n_dst) {
      std::fprintf(stderr, "adlib_bench: %s: adlib's local sizes differ from the scenario's\n",
                   name.c_str());
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    for (std::size_t l = 0; l < n_src; ++l) s[l] = static_cast<double>(g.lo(g.r) + Index(l));
    run_adlib_remap<1>(name, dst, src, n_dst, expected, bytes, offrank, "");
  }

  {  // mpi-alltoallv
    std::vector<double> src(n_src), dst(n_dst);
    for (std::size_t l = 0; l < n_src; ++l) src[l] = static_cast<double>(g.lo(g.r) + Index(l));
    AlltoallvPlan plan;
    const Measurement setup = time_setup([&] {
      plan.send_counts.assign(g.p, 0);
      plan.recv_counts.assign(g.p, 0);
      plan.send_index.reserve(n_src);
      plan.recv_index.reserve(n_dst);
      for (int q = 0; q < g.p; ++q) {  // to q: my g with g mod P == q, ascending
        const Index c = g.count_in_block(g.r, q);
        const Index first = g.first_in_block(g.r, q) - g.lo(g.r);
        for (Index k = 0; k < c; ++k)
          plan.send_index.push_back(static_cast<std::int32_t>(first + k * g.p));
        plan.send_counts[q] = static_cast<int>(c);
      }
      for (int s = 0; s < g.p; ++s) {  // from s: its g with g mod P == me, ascending
        const Index c = g.count_in_block(s, g.r);
        const Index first = g.first_in_block(s, g.r);
        for (Index k = 0; k < c; ++k)
          plan.recv_index.push_back(static_cast<std::int32_t>((first + k * g.p) / g.p));
        plan.recv_counts[s] = static_cast<int>(c);
      }
      plan.finish_setup();
    });
    report({name, "mpi-alltoallv:setup", "setup", setup, 0, 0,
            "counts, displacements, int32 index lists, buffers (allocated and touched)", false});
    const Measurement m = verified_timing(
        name, "mpi-alltoallv", dst.data(), n_dst, [&] { plan.execute(src.data(), dst.data()); },
        expected);
    report({name, "mpi-alltoallv", "op", m, bytes, offrank,
            "pack by index list, MPI_Alltoallv (own part included), unpack by index list"});
  }

  {  // floor
    if (n % (Index(g.p) * g.p) != 0) {
      if (rank() == 0)
        std::fprintf(stderr, "adlib_bench: %s floor needs P^2 | N, skipped\n", name.c_str());
      return;
    }
    AlltoallFloor floor;
    floor.per_pair = static_cast<int>(n / (Index(g.p) * g.p));
    floor.send_buffer.resize(static_cast<std::size_t>(floor.per_pair) * g.p);
    floor.recv_buffer.resize(static_cast<std::size_t>(floor.per_pair) * g.p);
    // The send buffer already holds each message's values in order.
    for (int q = 0; q < g.p; ++q)
      for (Index k = 0; k < floor.per_pair; ++k)
        floor.send_buffer[q * floor.per_pair + k] =
            static_cast<double>(g.first_in_block(g.r, q) + k * g.p);
    auto floor_expected = [&](std::size_t k) {
      const int s = static_cast<int>(Index(k) / floor.per_pair);
      return static_cast<double>(g.first_in_block(s, g.r) + (Index(k) % floor.per_pair) * g.p);
    };
    const Measurement m = verified_timing(
        name, "floor", floor.recv_buffer.data(), floor.recv_buffer.size(), [&] { floor.execute(); },
        floor_expected);
    report({name, "floor", "op", m, bytes, offrank, "MPI_Alltoall of contiguous buffers"});
  }
}

// ---- RM2-N: 2-D block-cyclic rows (P x 1, 64) -> block-cyclic columns (1 x P, 16) --------

// One block-cyclic axis: tiles of b dealt round-robin over P.
struct CyclicAxis {
  Index n, b;
  int p;
  int owner(Index i) const { return static_cast<int>((i / b) % p); }
  Index local(Index i) const { return (i / (b * p)) * b + i % b; }
  Index global(int q, Index l) const { return ((l / b) * p + q) * b + l % b; }
  Index count(int q) const {
    const Index cycle = b * p, full = n / cycle, rest = n % cycle;
    return full * b + std::min<Index>(std::max<Index>(rest - q * b, 0), b);
  }
  // f(i) for every index owned by q, ascending.
  template <class F>
  void for_each(int q, F&& f) const {
    for (Index t = q; t * b < n; t += p)
      for (Index i = t * b; i < std::min((t + 1) * b, n); ++i) f(i);
  }
};

void rm2_case(Index n) {
  const std::string name = "RM2-" + std::to_string(n);
  const int p = size(), r = rank();
  const CyclicAxis rows{n, 64, p}, cols{n, 16, p};
  const Index my_rows = rows.count(r), my_cols = cols.count(r);
  const auto n_src = static_cast<std::size_t>(my_rows * n);
  const auto n_dst = static_cast<std::size_t>(n * my_cols);
  const double bytes = static_cast<double>(n_dst * sizeof(double));
  const double offrank = static_cast<double>((n - rows.count(r)) * my_cols * Index(sizeof(double)));
  auto value = [n](Index i, Index j) { return static_cast<double>(i * n + j); };

  {  // adlib, C order: source (my_rows x N), destination (N x my_cols)
    adlib::Comm adlib_comm(MPI_COMM_WORLD);
    adlib::ProcessGrid rows_grid(adlib_comm, {p, 1}), cols_grid(adlib_comm, {1, p});
    auto src_rows = std::make_shared<adlib::BlockCyclicRange>(n, rows_grid.dim(0), 64);
    auto src_cols = std::make_shared<adlib::CollapsedRange>(n);
    auto dst_rows = std::make_shared<adlib::CollapsedRange>(n);
    auto dst_cols = std::make_shared<adlib::BlockCyclicRange>(n, cols_grid.dim(1), 16);
    adlib::DistArray<double, 2> src(rows_grid, {src_rows, src_cols});
    adlib::DistArray<double, 2> dst(cols_grid, {dst_rows, dst_cols});
    if (src.local_view().span() != n_src || dst.local_view().span() != n_dst) {
      std::fprintf(stderr, "adlib_bench: %s: adlib's local sizes differ from the scenario's\n",
                   name.c_str());
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    double* s = src.local_view().data();
    for (Index lr = 0; lr < my_rows; ++lr)
      for (Index j = 0; j < n; ++j) s[lr * n + j] = value(rows.global(r, lr), j);
    auto expected = [&](std::size_t k) {
      const Index i = Index(k) / my_cols, lc = Index(k) % my_cols;
      return value(i, cols.global(r, lc));
    };
    run_adlib_remap<2>(name, dst, src, n_dst, expected, bytes, offrank,
                       std::string(kAdlibNote2D) + "; ");
  }

  // Column-major MPI storage: source (i, j) at local_row(i) + j * my_rows,
  // destination (i, j) at i + local_col(j) * N.
  auto mpi_expected = [&](std::size_t k) {
    const Index i = Index(k) % n, lc = Index(k) / n;
    return value(i, cols.global(r, lc));
  };
  auto fill_source = [&](std::vector<double>& src) {
    for (Index j = 0; j < n; ++j)
      for (Index lr = 0; lr < my_rows; ++lr)
        src[static_cast<std::size_t>(lr + j * my_rows)] = value(rows.global(r, lr), j);
  };

  {  // mpi-alltoallv: lists in canonical order (column j, then row i, ascending)
    std::vector<double> src(n_src), dst(n_dst);
    fill_source(src);
    AlltoallvPlan plan;
    const Measurement setup = time_setup([&] {
      plan.send_counts.assign(p, 0);
      plan.recv_counts.assign(p, 0);
      plan.send_index.reserve(n_src);
      plan.recv_index.reserve(n_dst);
      for (int q = 0; q < p; ++q) {
        cols.for_each(q, [&](Index j) {
          rows.for_each(r, [&](Index i) {
            plan.send_index.push_back(static_cast<std::int32_t>(rows.local(i) + j * my_rows));
          });
        });
        plan.send_counts[q] = static_cast<int>(my_rows * cols.count(q));
      }
      for (int s = 0; s < p; ++s) {
        cols.for_each(r, [&](Index j) {
          rows.for_each(s, [&](Index i) {
            plan.recv_index.push_back(static_cast<std::int32_t>(i + cols.local(j) * n));
          });
        });
        plan.recv_counts[s] = static_cast<int>(rows.count(s) * my_cols);
      }
      plan.finish_setup();
    });
    report({name, "mpi-alltoallv:setup", "setup", setup, 0, 0,
            "counts, displacements, int32 index lists, buffers (allocated and touched)", false});
    const Measurement m = verified_timing(
        name, "mpi-alltoallv", dst.data(), n_dst, [&] { plan.execute(src.data(), dst.data()); },
        mpi_expected);
    report({name, "mpi-alltoallv", "op", m, bytes, offrank,
            "column-major storage; pack by index list, MPI_Alltoallv, unpack by index list"});
  }

  {  // floor: N*N/P^2 doubles per pair, already in message order
    const Index per_pair = n * n / (Index(p) * p);
    if (n % (Index(p) * 64) != 0 || n % (Index(p) * 16) != 0) {
      if (rank() == 0)
        std::fprintf(stderr, "adlib_bench: %s floor needs equal shares, skipped\n", name.c_str());
      return;
    }
    AlltoallFloor floor;
    floor.per_pair = static_cast<int>(per_pair);
    floor.send_buffer.resize(static_cast<std::size_t>(per_pair * p));
    floor.recv_buffer.resize(static_cast<std::size_t>(per_pair * p));
    std::size_t k = 0;
    for (int q = 0; q < p; ++q)
      cols.for_each(q, [&](Index j) {
        rows.for_each(r, [&](Index i) { floor.send_buffer[k++] = value(i, j); });
      });
    // Expected receive buffer, in the same canonical order per source.
    std::vector<double> reference(floor.recv_buffer.size());
    k = 0;
    for (int s = 0; s < p; ++s)
      cols.for_each(
          r, [&](Index j) { rows.for_each(s, [&](Index i) { reference[k++] = value(i, j); }); });
    const Measurement m = verified_timing(
        name, "floor", floor.recv_buffer.data(), floor.recv_buffer.size(), [&] { floor.execute(); },
        [&](std::size_t i) { return reference[i]; });
    report({name, "floor", "op", m, bytes, offrank, "MPI_Alltoall of contiguous buffers"});
  }
}

}  // namespace

void register_remap_cases() {
  add_case("RM1-4194304", [] { rm1_case(4194304); });
  add_case("RM2-4096", [] { rm2_case(4096); });
}

}  // namespace bench
