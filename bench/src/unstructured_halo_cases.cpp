// SPDX-License-Identifier: BSD-3-Clause
// Unstructured halo cases (bench/README.md, UH-N-dD): the cells of an N x N
// grid handled as an unstructured mesh, by scrambled global id, with LFRic's
// local order (owned cells, then the halo by depth, each part sorted by id);
// the operation fills halo depths 1..D from the owners.  Raw-MPI baselines:
//
//   mpi-pack   send lists (owner-local positions, per neighbour and depth)
//              built once from the mesh formula; pack by the lists,
//              MPI_Irecv straight into the halo segment of each depth and
//              neighbour, MPI_Isend, MPI_Waitall
//   floor      MPI_Sendrecv of a contiguous buffer with rank r^1
//   *-fresh    the same after rewriting the owned cells about to be sent
//
// Line order per case: adlib:setup, adlib, adlib-fresh, adlib-clean,
// mpi-pack:setup, mpi-pack, mpi-pack-fresh, floor.  Each group has its own
// array, freed before the next one allocates.
//
// The mesh (Mesh: ids, local order, which rank owns which row) and the
// serial reference (check_entries) depend on no implementation; every
// local array of every line holds the same entries in the same order.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <adlib/adlib.hpp>

#include "common.hpp"
#include "halo_geometry.hpp"

namespace bench {

namespace {

// Every layout holds two halo depths, as an LFRic mesh built for depth-2
// stencils does; UH-N-d1 fills depth 1 only and its depth 2 must stay
// poisoned, so an implementation that fills too much fails too.
constexpr int kLayoutDepth = 2;
// Tag of mpi-pack's message of depth d: kDepthTag + d (apart from the
// other halo cases' and the floor's tags).
constexpr int kDepthTag = 7300;

// ---- the mesh --------------------------------------------------------------------------

// One rank's part of the scenario's mesh: the N x N grid's cells under
// scrambled ids g = ((i*N + j) * 0x9E3779B1) mod N^2 (a bijection: the
// factor is odd and N^2 a power of two), rows [r*N/P, (r+1)*N/P) owned by
// rank r, box-stencil neighbours, no periodicity.
struct Mesh {
  std::string name;
  Index n = 0;
  int p = 1, r = 0;
  std::vector<Index> owned;                  // ascending
  std::vector<std::vector<Index>> halo;      // halo[d - 1]: depth d, ascending
  std::vector<std::vector<Index>> halo_row;  // the grid row of each halo entry
  std::vector<Index> ids;                    // every local entry, local order
  std::vector<Index> depth_end;              // [0]: owned count, [d]: end of depth d

  Mesh(const std::string& case_name, Index n_global)
      : name(case_name), n(n_global), p(size()), r(rank()) {
    owned = cell_ids(owned_rows(r));
    ids = owned;
    depth_end.push_back(static_cast<Index>(ids.size()));
    for (int d = 1; d <= kLayoutDepth; ++d) {
      const std::vector<std::pair<Index, Index>> cells = cells_of_rows(halo_rows(r, d));
      halo.emplace_back();
      halo_row.emplace_back();
      for (const auto& [g, row] : cells) {
        halo.back().push_back(g);
        halo_row.back().push_back(row);
        ids.push_back(g);
      }
      depth_end.push_back(static_cast<Index>(ids.size()));
    }
  }

  Index lo(int q) const { return Index(q) * n / p; }
  // The rank whose rows contain row i: the largest q with lo(q) <= i.
  int owner_of_row(Index i) const { return static_cast<int>(((i + 1) * p - 1) / n); }
  Index id(Index i, Index j) const {
    const auto linear = static_cast<std::uint64_t>(i * n + j);
    return static_cast<Index>(linear * 0x9E3779B1ULL % static_cast<std::uint64_t>(n * n));
  }
  std::vector<Index> owned_rows(int q) const {
    std::vector<Index> rows;
    for (Index i = lo(q); i < lo(q + 1); ++i) rows.push_back(i);
    return rows;
  }
  // The rows of rank q's depth-d halo.  Rows are whole, so depth 1 (cells
  // touching an owned cell) is the row on either side of q's block and
  // depth d the d-th row out, where it lies inside the grid.
  std::vector<Index> halo_rows(int q, int d) const {
    std::vector<Index> rows;
    if (lo(q) == lo(q + 1)) return rows;  // no owned cell, no halo
    if (lo(q) - d >= 0) rows.push_back(lo(q) - d);
    if (lo(q + 1) - 1 + d < n) rows.push_back(lo(q + 1) - 1 + d);
    return rows;
  }
  // Every cell of `rows` as (id, row), ascending by id: LFRic's order within
  // a part of the local storage.
  std::vector<std::pair<Index, Index>> cells_of_rows(const std::vector<Index>& rows) const {
    std::vector<std::pair<Index, Index>> cells;
    cells.reserve(rows.size() * static_cast<std::size_t>(n));
    for (const Index i : rows)
      for (Index j = 0; j < n; ++j) cells.emplace_back(id(i, j), i);
    std::sort(cells.begin(), cells.end());
    return cells;
  }
  std::vector<Index> cell_ids(const std::vector<Index>& rows) const {
    std::vector<Index> out;
    for (const auto& cell : cells_of_rows(rows)) out.push_back(cell.first);
    return out;
  }
  std::size_t entries() const { return ids.size(); }
  // Halo entries of depths 1..depth.
  Index halo_cells(int depth) const { return depth_end[depth] - depth_end[0]; }
};

// The serial reference, every local entry: owned entries and halo entries
// of depth <= `filled` hold double(g), deeper halo entries the poison.
void check_entries(const Mesh& m, const std::string& impl, const std::string& phase,
                   const double* a, int filled) {
  const auto end = static_cast<std::size_t>(m.depth_end[filled]);
  verify(m.name, impl, phase, a, m.entries(),
         [&](std::size_t e) { return e < end ? static_cast<double>(m.ids[e]) : kPoison; });
}

// ---- send lists ---------------------------------------------------------------------------

// What this rank sends one neighbour for one depth: owner-local positions
// of the cells of the neighbour's depth-d halo that this rank owns, in the
// neighbour's order (ascending id), so they land in place.
struct SendPart {
  int rank = 0, depth = 0;
  std::vector<std::int32_t> positions;
  std::vector<double> buffer;
};

// The hand-written setup's send side: every rank's halo rows follow from
// the mesh formula, so an owner lists what each neighbour needs from it
// without asking (positions by binary search in its sorted owned ids).
std::vector<SendPart> send_parts(const Mesh& m, int depth) {
  std::vector<SendPart> parts;
  for (int d = 1; d <= depth; ++d)
    for (int q = 0; q < m.p; ++q) {
      if (q == m.r) continue;
      std::vector<Index> rows;
      for (const Index i : m.halo_rows(q, d))
        if (m.owner_of_row(i) == m.r) rows.push_back(i);
      if (rows.empty()) continue;
      SendPart part{q, d, {}, {}};
      for (const Index g : m.cell_ids(rows))
        part.positions.push_back(static_cast<std::int32_t>(
            std::lower_bound(m.owned.begin(), m.owned.end(), g) - m.owned.begin()));
      part.buffer.assign(part.positions.size(), 0.0);
      parts.push_back(std::move(part));
    }
  return parts;
}

// The -fresh rewrite: every owned cell about to be sent gets double(g)
// again, part by part, so its cache line is dirty as after a solver step.
void rewrite_sent(const Mesh& m, const std::vector<SendPart>& parts, double* a) {
  for (const SendPart& part : parts)
    for (const std::int32_t l : part.positions) a[l] = static_cast<double>(m.owned[l]);
}

// Before a verified phase: the halo gets the poison, and with `sent` (the
// -fresh lines) the owned cells about to be sent too, so a rewrite that
// writes wrong values, or comes after the send, fails.
void poison_for_phase(const Mesh& m, double* a, const std::vector<SendPart>* sent) {
  poison(a + m.depth_end[0], m.entries() - static_cast<std::size_t>(m.depth_end[0]));
  if (sent == nullptr) return;
  for (const SendPart& part : *sent)
    for (const std::int32_t l : part.positions) a[l] = kPoison;
}

// ---- mpi-pack ------------------------------------------------------------------------------

// What this rank receives from one neighbour for one depth: a run of its
// depth-d halo segment (contiguous whenever one neighbour owns every cell of
// the depth on this side, always with P = 2), else positions to unpack to.
struct RecvPart {
  int rank = 0, depth = 0;
  Index offset = 0;
  int count = 0;
  std::vector<std::int32_t> positions;  // empty: received in place at offset
  std::vector<double> buffer;
};

struct PackExchange {
  std::vector<SendPart> sends;
  std::vector<RecvPart> recvs;
  std::vector<MPI_Request> requests;

  // The receive side: each halo cell's owner from its row, the cells of a
  // depth grouped by owner in segment order.
  PackExchange(const Mesh& m, int depth) : sends(send_parts(m, depth)) {
    for (int d = 1; d <= depth; ++d) {
      const Index begin = m.depth_end[d - 1];
      const std::vector<Index>& rows = m.halo_row[d - 1];
      std::vector<std::vector<std::int32_t>> by_owner(static_cast<std::size_t>(m.p));
      for (std::size_t k = 0; k < rows.size(); ++k)
        by_owner[m.owner_of_row(rows[k])].push_back(static_cast<std::int32_t>(begin + Index(k)));
      for (int q = 0; q < m.p; ++q) {
        std::vector<std::int32_t>& at = by_owner[q];
        if (at.empty()) continue;
        RecvPart part{q, d, at.front(), static_cast<int>(at.size()), {}, {}};
        if (at.back() - at.front() + 1 != static_cast<std::int32_t>(at.size())) {
          part.positions = std::move(at);
          part.buffer.assign(part.positions.size(), 0.0);
        }
        recvs.push_back(std::move(part));
      }
    }
    requests.resize(sends.size() + recvs.size());
  }

  void execute(double* a) {
    for (SendPart& part : sends) {
      const std::size_t count = part.positions.size();
      const std::int32_t* __restrict__ l = part.positions.data();
      double* __restrict__ b = part.buffer.data();
      for (std::size_t k = 0; k < count; ++k) b[k] = a[l[k]];
    }
    std::size_t next = 0;
    for (RecvPart& part : recvs)
      MPI_Irecv(part.positions.empty() ? a + part.offset : part.buffer.data(), part.count,
                MPI_DOUBLE, part.rank, kDepthTag + part.depth, comm(), &requests[next++]);
    for (SendPart& part : sends)
      MPI_Isend(part.buffer.data(), static_cast<int>(part.buffer.size()), MPI_DOUBLE, part.rank,
                kDepthTag + part.depth, comm(), &requests[next++]);
    MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    for (const RecvPart& part : recvs)
      for (std::size_t k = 0; k < part.positions.size(); ++k) a[part.positions[k]] = part.buffer[k];
  }
};

// ---- one case ---------------------------------------------------------------------------

[[noreturn]] void fail(const Mesh& m, const std::string& impl, const std::string& what) {
  std::fprintf(stderr, "adlib_bench: %s %s: %s\n", m.name.c_str(), impl.c_str(), what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();  // MPI_Abort does not return
}

void adlib_lines(const Mesh& m, int depth, double bytes) {
  using Field = adlib::UnstructuredField<double, Kokkos::HostSpace>;
  using Halo = adlib::DepthHalo<double, Kokkos::HostSpace>;
  // The rewrite of adlib-fresh is mpi-pack-fresh's, on adlib's memory (the
  // owned order is the same).
  const std::vector<SendPart> sent = send_parts(m, depth);
  std::unique_ptr<adlib::UnstructuredLayout> layout;
  std::unique_ptr<Field> u;
  std::unique_ptr<Halo> halo;
  // The field is allocated outside the timed set-up, as mpi-pack's array is:
  // the scenario's set-up goes from ids to schedule.  The ids are handed
  // over as LFRic keeps them, every local id in local order and the ends of
  // the depths (moved; the copy the scenario keeps for verification is made
  // beforehand).
  std::vector<std::int64_t> ids = m.ids;
  std::vector<Index> depth_end = m.depth_end;
  const Measurement setup = time_setup([&] {
    layout = std::make_unique<adlib::UnstructuredLayout>(adlib::UnstructuredLayout::from_local_ids(
        adlib::Comm(comm()), std::move(ids), std::move(depth_end), 1));
    halo = std::make_unique<Halo>(*layout);
  });
  u = std::make_unique<Field>(*layout);
  report({m.name, "adlib:setup", "setup", setup, 0, 0,
          "UnstructuredLayout + DepthHalo constructors: owners by the directory, the "
          "schedules of every depth range (the field is allocated outside)",
          false});
  if (static_cast<std::size_t>(layout->entries()) != m.entries() ||
      u->local_view().span() != m.entries())
    fail(m, "adlib", "the layout's entries differ from the scenario's");
  double* data = u->local_view().data();
  for (Index e = 0; e < m.depth_end[0]; ++e) data[e] = static_cast<double>(m.ids[e]);
  // How rank 0's messages travel: in place (contiguous, or an MPI datatype
  // over the field) or through a pack buffer.
  const auto& schedule = halo->schedule(0, depth);
  std::size_t sends_in_place = 0, recvs_in_place = 0;
  for (const auto& message : schedule.plan().send_messages())
    sends_in_place += schedule.in_place(message, sizeof(double));
  for (const auto& message : schedule.plan().recv_messages())
    recvs_in_place += schedule.in_place(message, sizeof(double));
  const std::string messages = std::to_string(halo->messages(0, depth)) + " messages on rank 0 (" +
                               std::to_string(sends_in_place) + " sent and " +
                               std::to_string(recvs_in_place) +
                               " received in place, the others through pack buffers)";

  for (const bool fresh : {false, true}) {
    const std::string impl = fresh ? "adlib-fresh" : "adlib";
    const Measurement op =
        verified_time_op([&] { poison_for_phase(m, data, fresh ? &sent : nullptr); },
                         [&] {
                           if (fresh) rewrite_sent(m, sent, data);
                           u->set_dirty();  // every exchange sends: the owned values count as new
                           halo->execute(depth, *u);
                         },
                         [&](const char* phase) { check_entries(m, impl, phase, data, depth); });
    report({m.name, impl, "op", op, bytes, bytes,
            std::string(fresh ? "rewrite of the sent owned cells, then " : "") +
                "set_dirty + DepthHalo::execute(" + std::to_string(depth) + "); " + messages});
  }

  // adlib-clean: the field is clean to `depth`, so the exchange must send
  // nothing: the poisoned halo must stay poisoned, the state clean.
  const Measurement clean = verified_time_op(
      [&] {
        u->set_dirty();
        halo->execute(depth, *u);
        poison_for_phase(m, data, nullptr);
      },
      [&] { halo->execute(depth, *u); },
      [&](const char* phase) {
        check_entries(m, "adlib-clean", phase, data, 0);
        if (u->clean_depth() < depth)
          fail(m, "adlib-clean",
               std::string(phase) + ": the field is no longer clean to depth " +
                   std::to_string(depth));
      });
  report({m.name, "adlib-clean", "op", clean, 0, 0,
          "DepthHalo::execute(" + std::to_string(depth) + ") on a field clean to depth " +
              std::to_string(depth) + ": no message (the halo stays poisoned)",
          false});
}

void unstructured_halo_case(const std::string& name, Index n, int depth) {
  const Mesh m(name, n);
  // Halo cells this rank receives (MAX over ranks in report(); D * N with
  // P = 2); all of them cross ranks.
  const Index received = m.halo_cells(depth);
  const double bytes = static_cast<double>(received) * 8;

  adlib_lines(m, depth, bytes);

  {  // mpi-pack, mpi-pack-fresh
    std::vector<double> a(m.entries());
    for (Index e = 0; e < m.depth_end[0]; ++e) a[e] = static_cast<double>(m.ids[e]);
    std::unique_ptr<PackExchange> x;
    const Measurement setup = time_setup([&] { x = std::make_unique<PackExchange>(m, depth); });
    report({name, "mpi-pack:setup", "setup", setup, 0, 0,
            "send lists from the mesh formula (neighbours' halo rows, ids sorted, positions by "
            "binary search), halo segments grouped by owner, buffers (allocated and touched)",
            false});
    for (const bool fresh : {false, true}) {
      const std::string impl = fresh ? "mpi-pack-fresh" : "mpi-pack";
      const Measurement op = verified_time_op(
          [&] { poison_for_phase(m, a.data(), fresh ? &x->sends : nullptr); },
          [&] {
            if (fresh) rewrite_sent(m, x->sends, a.data());
            x->execute(a.data());
          },
          [&](const char* phase) { check_entries(m, impl, phase, a.data(), depth); });
      report({name, impl, "op", op, bytes, bytes,
              std::string(fresh ? "rewrite of the sent owned cells, then " : "") +
                  "pack by int32 position lists, MPI_Irecv into the halo segments, MPI_Isend, "
                  "MPI_Waitall; " +
                  std::to_string(x->sends.size()) +
                  " messages on rank 0 (one per neighbour "
                  "and depth)"});
    }
  }

  // floor needs a partner r^1 for every rank.
  if (m.p % 2 == 0) {
    run_floor(name, static_cast<std::size_t>(max_over_ranks(static_cast<double>(received))), bytes,
              false);
  } else if (rank() == 0) {
    std::fprintf(stderr, "adlib_bench: %s floor needs an even number of ranks, skipped\n",
                 name.c_str());
  }
}

}  // namespace

void register_unstructured_halo_cases() {
  for (const Index n : {512, 2048})
    for (const int depth : {1, 2}) {
      const std::string name = "UH-" + std::to_string(n) + "-d" + std::to_string(depth);
      add_case(name, [name, n, depth] { unstructured_halo_case(name, n, depth); });
    }
}

}  // namespace bench
