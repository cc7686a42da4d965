// SPDX-License-Identifier: BSD-3-Clause
// unstructured_halo: LFRic-style halos by depth on a generated unstructured
// mesh, with one DepthHalo built once and executed every exchange.
//
// The mesh is an N x N grid of quads whose global ids are a scrambled
// bijection of (i, j), so nothing but the neighbour lists tells which cells
// are adjacent: the code treats it as unstructured.  Neighbours are the 8
// cells around (box stencil), not periodic.  Every rank generates the mesh
// and the same partition (recursive coordinate bisection of the cell
// centres), then keeps its own cells and the halo cells by graph distance:
// depth 1 touches an owned cell, depth d touches a cell of depth d - 1.
//
// Each step is a smoother, u_new(c) = mean of u over c and its neighbours.
// With halo depth D (default 2) the halo is exchanged every D steps: after an
// exchange the step also updates halo depths 1..D-1 redundantly (their
// neighbours all lie within depth D), so those depths stay valid and the
// next exchanges find them clean and send nothing.  Owned cells are ordered
// as in LFRic: inner cells first, then the edge cells next to the halo, so
// the exchange overlaps with the update of the inner cells.
//
// Every owned cell is checked against a serial run on the whole mesh for
// N <= 256.
//
//   mpirun -np 4 unstructured_halo [--n N] [--steps S] [--depth D] [--every K]
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <adlib/adlib.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace {

using adlib::Index;
using Field = adlib::UnstructuredField<double>;
using Values = Field::view_type;
// Local entry of each neighbour of a local entry, -1 outside the mesh.
using Neighbours = Kokkos::View<int* [8]>;

constexpr Index kSerialLimit = 256;  // largest N checked against the serial run
constexpr int kRepeats = 20;         // exchanges per timing after the loop

struct Options {
  Index n = 256;
  int steps = 200;
  int depth = 2;
  int every = 50;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--n" && v) {
      o.n = std::atol(argv[++i]);
    } else if (a == "--steps" && v) {
      o.steps = std::atoi(argv[++i]);
    } else if (a == "--depth" && v) {
      o.depth = std::atoi(argv[++i]);
    } else if (a == "--every" && v) {
      o.every = std::atoi(argv[++i]);
    } else {
      throw std::runtime_error("unknown option " + a +
                               " (use --n N --steps S --depth D --every K)");
    }
  }
  // Every rank holds the whole generated mesh (about 32 bytes a cell).
  if (o.n < 1 || o.n > 2048 || o.steps < 0 || o.depth < 1 || o.depth > 8 || o.every < 1)
    throw std::runtime_error("need 1 <= n <= 2048, steps >= 0, 1 <= depth <= 8, every >= 1");
  return o;
}

// ---------------------------------------------------------------------------
// The mesh: cell k = i * n + j sits at row i, column j (its centre is
// (j + 1/2, i + 1/2)).  Only the generator and the partitioner look at i and
// j; the rest of the program sees global ids and neighbour lists.

struct Mesh {
  Index n = 0;
  std::vector<std::int64_t> id;  // global id of cell k: a bijection of 0 .. n^2 - 1

  Index cells() const { return n * n; }
  // The neighbours of cell k in a fixed order (row by row), -1 outside the
  // mesh: the serial run and the distributed one add them in this order,
  // so both compute bitwise the same values.
  std::array<Index, 8> neighbours(Index k) const {
    std::array<Index, 8> out{};
    const Index i = k / n, j = k % n;
    int slot = 0;
    for (Index di = -1; di <= 1; ++di)
      for (Index dj = -1; dj <= 1; ++dj) {
        if (di == 0 && dj == 0) continue;
        const Index a = i + di, b = j + dj;
        out[slot++] = a >= 0 && a < n && b >= 0 && b < n ? a * n + b : -1;
      }
    return out;
  }
};

// Global ids that carry no geometry.  For n a power of two, a multiply-
// xorshift hash modulo n^2 = 2^bits: multiplying by an odd constant and
// x ^= x >> s are both invertible modulo 2^bits, so the hash is a bijection,
// and the shifts carry the high bits into the low ones (a multiplication
// alone keeps k's low bits' pattern: k and its id would share their parity).
// Otherwise a Fisher-Yates shuffle with a fixed seed (std::mt19937_64 gives
// the same sequence everywhere; std::shuffle's use of it is not specified).
Mesh generate(Index n) {
  Mesh mesh;
  mesh.n = n;
  const std::uint64_t cells = static_cast<std::uint64_t>(n * n);
  mesh.id.resize(cells);
  if ((n & (n - 1)) == 0) {
    int bits = 0;
    while ((std::uint64_t(1) << bits) < cells) ++bits;
    const std::uint64_t mask = cells - 1;
    const int shift = bits / 2 + 1;
    for (std::uint64_t k = 0; k < cells; ++k) {
      std::uint64_t x = k;
      for (int round = 0; round < 2; ++round) {
        x = (x * 0x9E3779B97F4A7C15ull) & mask;
        x ^= x >> shift;
      }
      mesh.id[k] = static_cast<std::int64_t>(x);
    }
  } else {
    for (std::uint64_t k = 0; k < cells; ++k) mesh.id[k] = static_cast<std::int64_t>(k);
    std::mt19937_64 random(20240601);
    for (std::uint64_t k = cells; k > 1; --k) std::swap(mesh.id[k - 1], mesh.id[random() % k]);
  }
  return mesh;
}

// The initial field: a smooth wave plus noise keyed by the global id, which
// the smoother damps.
double initial(const Mesh& mesh, Index k) {
  const double x = (double(k % mesh.n) + 0.5) / double(mesh.n);
  const double y = (double(k / mesh.n) + 0.5) / double(mesh.n);
  const std::uint64_t h = static_cast<std::uint64_t>(mesh.id[k]) * 0xD6E8FEB86659FD93ull;
  const double noise = double(h >> 11) / double(1ull << 53);
  return std::sin(2 * M_PI * x) * std::cos(3 * M_PI * y) + 0.5 * noise;
}

// ---------------------------------------------------------------------------
// Recursive coordinate bisection: the cells [begin, end) of `order` go to
// `ranks` ranks from `first_rank`.  Each level splits the longer side of the
// cells' bounding box, in proportion to the ranks on each side, so uneven
// counts come out balanced and no rank is left empty while there are at
// least as many cells as ranks.  The sort key (coordinate, then the other
// coordinate) is a total order, so every rank computes the same partition.
void bisect(const Mesh& mesh, std::vector<Index>& order, std::size_t begin, std::size_t end,
            int first_rank, int ranks, std::vector<int>& owner) {
  if (ranks == 1) {
    for (std::size_t c = begin; c < end; ++c) owner[order[c]] = first_rank;
    return;
  }
  Index low[2] = {mesh.n, mesh.n}, high[2] = {-1, -1};
  for (std::size_t c = begin; c < end; ++c) {
    const Index at[2] = {order[c] / mesh.n, order[c] % mesh.n};
    for (int d = 0; d < 2; ++d) {
      low[d] = std::min(low[d], at[d]);
      high[d] = std::max(high[d], at[d]);
    }
  }
  const int axis = high[0] - low[0] >= high[1] - low[1] ? 0 : 1;  // 0: split rows
  const auto key = [&](Index k) {
    const Index i = k / mesh.n, j = k % mesh.n;
    return axis == 0 ? std::make_pair(i, j) : std::make_pair(j, i);
  };
  const int left_ranks = ranks / 2;
  const std::size_t split = begin + (end - begin) * static_cast<std::size_t>(left_ranks) /
                                        static_cast<std::size_t>(ranks);
  using Offset = std::vector<Index>::difference_type;
  std::nth_element(
      order.begin() + static_cast<Offset>(begin), order.begin() + static_cast<Offset>(split),
      order.begin() + static_cast<Offset>(end), [&](Index a, Index b) { return key(a) < key(b); });
  bisect(mesh, order, begin, split, first_rank, left_ranks, owner);
  bisect(mesh, order, split, end, first_rank + left_ranks, ranks - left_ranks, owner);
}

std::vector<int> partition(const Mesh& mesh, int ranks) {
  std::vector<Index> order(static_cast<std::size_t>(mesh.cells()));
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<Index>(k);
  std::vector<int> owner(order.size(), -1);
  bisect(mesh, order, 0, order.size(), 0, ranks, owner);
  return owner;
}

// ---------------------------------------------------------------------------
// This rank's cells in LFRic's order:
//
//   | inner D | ... | inner 1 | edge | halo 1 | halo 2 | ... | halo D |
//   |<------------ owned ----------->|<-------- by depth -------->|
//
// edge: owned cells with a neighbour in the halo; inner r: owned cells that
// touch inner r - 1 (inner 1 touches edge), inner D also every cell deeper.
// Within a class owned cells go row by row (neighbours close in memory);
// halo cells go by owner, so each neighbour's share of a depth is one
// contiguous run that DepthHalo receives in place.
struct LocalCells {
  std::vector<Index> cell;                          // mesh cell of each local entry, in local order
  std::vector<Index> class_count;                   // [0]: edge, [r]: inner r (owned cells)
  std::vector<std::vector<std::int64_t>> halo_ids;  // [d - 1]: depth d, local order
  std::vector<std::int64_t> owned_ids;
  Index inner_end = 0;  // local entries [0, inner_end) read no halo cell
};

LocalCells local_cells(const Mesh& mesh, const std::vector<int>& owner, int rank, int depth) {
  const std::size_t cells = static_cast<std::size_t>(mesh.cells());
  // -1: not here; 0: owned; d: halo depth d.
  std::vector<int> level(cells, -1);
  std::vector<std::vector<Index>> by_level(static_cast<std::size_t>(depth) + 1);
  for (std::size_t k = 0; k < cells; ++k)
    if (owner[k] == rank) {
      level[k] = 0;
      by_level[0].push_back(static_cast<Index>(k));
    }
  for (int d = 1; d <= depth; ++d) {
    for (Index k : by_level[d - 1])
      for (Index m : mesh.neighbours(k))
        if (m >= 0 && level[m] < 0) {
          level[m] = d;
          by_level[d].push_back(m);
        }
  }

  // Owned cells by distance from the halo, found inwards from the edge:
  // classes[0] edge, classes[r] inner r, classes[depth] every cell left.
  std::vector<int> distance(cells, 0);
  std::vector<std::vector<Index>> classes(static_cast<std::size_t>(depth) + 1);
  for (Index k : by_level[0])
    for (Index m : mesh.neighbours(k))
      if (m >= 0 && level[m] > 0) {
        distance[k] = 1;
        classes[0].push_back(k);
        break;
      }
  for (int r = 1; r < depth; ++r)
    for (Index k : classes[r - 1])
      for (Index m : mesh.neighbours(k))
        if (m >= 0 && level[m] == 0 && distance[m] == 0) {
          distance[m] = r + 1;
          classes[r].push_back(m);
        }
  for (Index k : by_level[0])
    if (distance[k] == 0) classes[depth].push_back(k);
  LocalCells out;
  for (auto& c : classes) {
    std::sort(c.begin(), c.end());
    out.class_count.push_back(static_cast<Index>(c.size()));
  }
  for (std::size_t r = classes.size(); r-- > 0;)
    out.cell.insert(out.cell.end(), classes[r].begin(), classes[r].end());
  out.inner_end = static_cast<Index>(out.cell.size()) - out.class_count[0];
  for (Index k : out.cell) out.owned_ids.push_back(mesh.id[k]);
  for (int d = 1; d <= depth; ++d) {
    auto& halo = by_level[d];
    std::sort(halo.begin(), halo.end(), [&](Index a, Index b) {
      return std::make_pair(owner[a], a) < std::make_pair(owner[b], b);
    });
    out.cell.insert(out.cell.end(), halo.begin(), halo.end());
    out.halo_ids.emplace_back();
    for (Index k : halo) out.halo_ids.back().push_back(mesh.id[k]);
  }
  return out;
}

// The neighbour table of local entries [0, end) (owned and halo depths below
// the deepest: the cells the loop updates), in local entries.
Neighbours neighbour_table(const Mesh& mesh, const LocalCells& local, Index end) {
  std::vector<int> local_of(static_cast<std::size_t>(mesh.cells()), -1);
  for (std::size_t e = 0; e < local.cell.size(); ++e) local_of[local.cell[e]] = static_cast<int>(e);
  Neighbours table("neighbours", static_cast<std::size_t>(end));
  auto host = Kokkos::create_mirror_view(table);
  for (Index e = 0; e < end; ++e) {
    const auto around = mesh.neighbours(local.cell[e]);
    for (int s = 0; s < 8; ++s) {
      const int m = around[s] < 0 ? -1 : local_of[around[s]];
      if (around[s] >= 0 && m < 0)
        throw std::logic_error("a neighbour of an updated cell is not in the halo");
      host(e, s) = m;
    }
  }
  Kokkos::deep_copy(table, host);
  return table;
}

// ---------------------------------------------------------------------------
// The kernels.

// One smoothing step from `from` into `to` on local entries [begin, end).
void smooth(const Values& from, const Values& to, const Neighbours& neighbours, Index begin,
            Index end) {
  if (begin >= end) return;
  Kokkos::parallel_for(
      "unstructured_halo::smooth", Kokkos::RangePolicy<>(begin, end), KOKKOS_LAMBDA(Index e) {
        double sum = from(e, 0);
        int count = 1;
        for (int s = 0; s < 8; ++s) {
          const int m = neighbours(e, s);
          if (m >= 0) {
            sum += from(m, 0);
            ++count;
          }
        }
        to(e, 0) = sum / count;
      });
}

// The largest change between two time levels on the owned entries.
double largest_change(const Values& a, const Values& b, Index owned) {
  double change = 0;
  Kokkos::parallel_reduce(
      "unstructured_halo::change", Kokkos::RangePolicy<>(0, owned),
      KOKKOS_LAMBDA(Index e, double& largest) {
        const double d = a(e, 0) > b(e, 0) ? a(e, 0) - b(e, 0) : b(e, 0) - a(e, 0);
        if (d > largest) largest = d;
      },
      Kokkos::Max<double>(change));
  return change;
}

// The reductions of one value over the ranks (residual, counts, times):
// schedules built once and executed at every report.
class OverRanks {
 public:
  explicit OverRanks(const adlib::Comm& members)
      : max_(members, 1), min_(members, 1), sum_(members, 1) {}
  double max(double x) const { return max_.reduce(x); }
  double min(double x) const { return min_.reduce(x); }
  double sum(double x) const { return sum_.reduce(x); }

 private:
  adlib::RedxSchedule<double, adlib::op::Max, Kokkos::HostSpace> max_;
  adlib::RedxSchedule<double, adlib::op::Min, Kokkos::HostSpace> min_;
  adlib::RedxSchedule<double, adlib::op::Add, Kokkos::HostSpace> sum_;
};

// "min..max" of a count over the ranks (for the report).
std::string spread(Index x, const OverRanks& over_ranks) {
  const long low = long(over_ranks.min(double(x))), high = long(over_ranks.max(double(x)));
  return low == high ? std::to_string(low) : std::to_string(low) + ".." + std::to_string(high);
}

// Mean seconds of `exchange` over kRepeats calls (the slowest rank's mean).
template <class Exchange>
double mean_time(const OverRanks& over_ranks, Exchange&& exchange) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double t = MPI_Wtime();
  for (int r = 0; r < kRepeats; ++r) exchange();
  return over_ranks.max((MPI_Wtime() - t) / kRepeats);
}

}  // namespace

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  int status = 0;
  try {
    adlib::Comm comm(MPI_COMM_WORLD);
    const bool root = comm.rank() == 0;
    const Options o = parse(argc, argv);
    const int depth = o.depth;

    const Mesh mesh = generate(o.n);
    const std::vector<int> owner = partition(mesh, comm.size());
    const LocalCells local = local_cells(mesh, owner, comm.rank(), depth);
    adlib::UnstructuredLayout layout(comm, local.owned_ids, local.halo_ids, /*column=*/1);
    Field u(layout, "u"), w(layout, "w");
    {
      // Owned entries only: the halo holds 0 until an exchange fills it.
      auto host = Kokkos::create_mirror_view(u.local_view());
      for (Index e = 0; e < layout.owned_count(); ++e) host(e, 0) = initial(mesh, local.cell[e]);
      Kokkos::deep_copy(u.local_view(), host);
    }
    // The loop updates owned cells and halo depths 1 .. depth - 1.
    const Neighbours neighbours = neighbour_table(mesh, local, layout.halo_end(depth - 1));
    const OverRanks over_ranks(layout.comm());

    MPI_Barrier(MPI_COMM_WORLD);
    const double build_start = MPI_Wtime();
    adlib::DepthHalo halo(u);  // collective: owners found, a schedule per depth range
    const double build_s = over_ranks.max(MPI_Wtime() - build_start);

    const std::string owned_spread = spread(layout.owned_count(), over_ranks);
    std::vector<std::string> class_spread, halo_spread;
    for (Index c : local.class_count) class_spread.push_back(spread(c, over_ranks));
    for (int d = 1; d <= depth; ++d)
      halo_spread.push_back(spread(layout.halo_count(d), over_ranks));
    const std::string message_spread = spread(Index(halo.messages(0, depth)), over_ranks);
    const double max_kib =
        over_ranks.max(double(halo.schedule(0, depth).plan().send_count()) * sizeof(double)) / 1024;
    if (root) {
      std::printf(
          "unstructured_halo: %ld x %ld cells (ids %s), %d ranks, halo depth %d, %d steps\n",
          long(o.n), long(o.n),
          (o.n & (o.n - 1)) == 0 ? "scrambled by a multiply-xorshift hash"
                                 : "scrambled by a fixed-seed shuffle",
          comm.size(), depth, o.steps);
      std::printf("  owned cells per rank %s:", owned_spread.c_str());
      for (std::size_t r = class_spread.size(); r-- > 1;)
        std::printf(" inner %zu %s,", r, class_spread[r].c_str());
      std::printf(" edge %s\n  halo cells per rank:", class_spread[0].c_str());
      for (int d = 1; d <= depth; ++d)
        std::printf(" depth %d %s%s", d, halo_spread[std::size_t(d - 1)].c_str(),
                    d < depth ? "," : "\n");
      std::printf(" %8s %14s %10s\n", "step", "residual", "steps/s");
    }

    // Time loop.  Step s is sub-step s % depth of an exchange period: the
    // first exchanges depths 1..depth and updates halo depths 1..depth - 1
    // too; each later one needs one depth less and updates one depth less,
    // so its exchange finds the halo clean and sends nothing.
    double exchange_s = 0, clean_s = 0;
    int exchanges = 0, skipped = 0;
    double redundant = 0;  // halo cell updates, besides the owned ones
    Field* now = &u;
    Field* next = &w;
    MPI_Barrier(MPI_COMM_WORLD);
    const double loop_start = MPI_Wtime();
    for (int s = 0; s < o.steps; ++s) {
      const int sub = s % depth;
      const int needed = depth - sub;       // halo depth this step reads
      const int updated = depth - 1 - sub;  // halo depths it updates redundantly
      const bool clean = now->clean_depth() >= needed;
      double t = MPI_Wtime();
      halo.start(needed, *now);
      double spent = MPI_Wtime() - t;
      // While the messages fly: the inner cells, which read no halo cell.
      smooth(now->local_view(), next->local_view(), neighbours, 0, local.inner_end);
      Kokkos::fence();
      t = MPI_Wtime();
      halo.finish();
      spent += MPI_Wtime() - t;
      // Then the edge cells and the halo depths this step keeps valid.
      smooth(now->local_view(), next->local_view(), neighbours, local.inner_end,
             layout.halo_end(updated));
      Kokkos::fence();
      (clean ? clean_s : exchange_s) += spent;
      ++(clean ? skipped : exchanges);
      redundant += double(layout.halo_end(updated) - layout.owned_count());
      next->set_dirty();         // new owned values ...
      next->set_clean(updated);  // ... and halo depths 1..updated computed here
      std::swap(now, next);
      if ((s + 1) % o.every == 0 || s + 1 == o.steps) {
        const double residual = over_ranks.max(
            largest_change(now->local_view(), next->local_view(), layout.owned_count()));
        const double rate = double(s + 1) / (MPI_Wtime() - loop_start);
        if (root) std::printf(" %8d %14.6e %10.1f\n", s + 1, residual, rate);
      }
    }
    const double loop_s = over_ranks.max(MPI_Wtime() - loop_start);
    exchange_s = over_ranks.max(exchange_s);
    clean_s = over_ranks.max(clean_s);
    redundant = over_ranks.sum(redundant);
    const double owned_updates = double(o.steps) * double(mesh.cells());

    // Check: every owned cell against the same steps run serially on the
    // whole mesh (every rank runs it and checks its own cells).
    double serial_error = -1;
    if (o.n <= kSerialLimit) {
      std::vector<double> a(static_cast<std::size_t>(mesh.cells())), b(a.size());
      for (Index k = 0; k < mesh.cells(); ++k) a[k] = initial(mesh, k);
      for (int s = 0; s < o.steps; ++s) {
        for (Index k = 0; k < mesh.cells(); ++k) {
          double sum = a[k];
          int count = 1;
          for (Index m : mesh.neighbours(k))
            if (m >= 0) {
              sum += a[m];
              ++count;
            }
          b[k] = sum / count;
        }
        std::swap(a, b);
      }
      double scale = 0, difference = 0;
      for (double x : a) scale = std::max(scale, std::abs(x));
      const auto result =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), now->local_view());
      for (Index e = 0; e < layout.owned_count(); ++e)
        difference = std::max(difference, std::abs(result(e, 0) - a[local.cell[e]]));
      serial_error = over_ranks.max(scale > 0 ? difference / scale : difference);
    }

    // What an exchange costs when it has work, and when the halo is clean.
    Field probe(layout, "probe");
    const double full_s = mean_time(over_ranks, [&] {
      probe.set_dirty();
      halo.execute(depth, probe);
    });
    const double shallow_s = mean_time(over_ranks, [&] {
      probe.set_dirty();
      halo.execute(1, probe);
    });
    const double clean_call_s = mean_time(over_ranks, [&] { halo.execute(1, probe); });

    if (root) {
      const double per_exchange = exchanges ? exchange_s / exchanges : 0;
      std::printf(
          "\nschedules: DepthHalo built once in %.3f ms (%d depth ranges); %d exchanges of depths "
          "1..%d, mean %.3f ms each in the loop (build = %.1f exchanges)\n",
          build_s * 1e3, depth * (depth + 1) / 2, exchanges, depth, per_exchange * 1e3,
          per_exchange > 0 ? build_s / per_exchange : 0.0);
      std::printf("  per exchange: %s messages per rank, at most %.1f KiB sent by a rank\n",
                  message_spread.c_str(), max_kib);
      std::printf(
          "  blocking execute(): depths 1..%d %.3f ms, depth 1 %.3f ms, clean halo %.3f us\n",
          depth, full_s * 1e3, shallow_s * 1e3, clean_call_s * 1e6);
      // Without the dirty flags each skipped call would have exchanged at
      // least depth 1 (the next step reads it).
      std::printf(
          "dirty flags: %d exchanges skipped (halo clean), %.3f ms spent in them instead of "
          "%.3f ms as depth-1 exchanges: %.3f ms saved\n",
          skipped, clean_s * 1e3, skipped * shallow_s * 1e3, (skipped * shallow_s - clean_s) * 1e3);
      std::printf(
          "  their price, redundant work: %.0f halo cell updates, %.1f%% on top of the %.0f owned "
          "ones\n",
          redundant, owned_updates > 0 ? 100 * redundant / owned_updates : 0.0, owned_updates);
      std::printf(
          "time: %.3f ms = exchanges %.3f ms (%.0f%%) + clean calls %.3f ms + computation %.3f "
          "ms, %.1f steps/s\n",
          loop_s * 1e3, exchange_s * 1e3, loop_s > 0 ? 100 * exchange_s / loop_s : 0.0,
          clean_s * 1e3, (loop_s - exchange_s - clean_s) * 1e3,
          loop_s > 0 ? o.steps / loop_s : 0.0);
      if (serial_error >= 0)
        std::printf("check against the serial run: max relative error %.3e\n", serial_error);
      else
        std::printf("check against the serial run: skipped (n > %ld)\n", long(kSerialLimit));
    }
    const bool ok = serial_error <= 1e-12;
    if (root) std::printf("%s\n", ok ? "PASSED" : "FAILED");
    status = ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unstructured_halo: %s\n", e.what());
    status = 2;
  }
  return status;
}
