// SPDX-License-Identifier: BSD-3-Clause
// The layout every halo case shares (bench/README.md, H2D-N, H2DC-N,
// H3D-N, H2DA-N): a block-distributed global N^D array with one ghost layer
// on every side, its neighbour plan (which boxes of cells travel to and
// from which rank), the box copies and the MPI posting order of the raw-MPI
// baselines, and the `floor` line.  halo_cases.cpp fills ghosts from their
// owners (the exchange); halo_accumulate_cases.cpp adds ghosts into their
// owners (the same plan run backwards).
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common.hpp"

namespace bench {

// Global and local cell indices (64-bit: N^3 and offsets in it outgrow int).
using Index = std::int64_t;

// Tag of a halo message: kHaloTag + the direction it travels (0..26).
constexpr int kHaloTag = 7200;
constexpr int kFloorTag = 7230;

// Box: faces, edges and corners; star: faces only (cells that are ghost in
// exactly one dimension).
enum class Stencil { kBox, kStar };

// One rank's piece of the global array with one ghost layer on every side.
// Every array is handled as 3-D: a 2-D case gets a leading dimension of
// extent 1 without ghost layer, so that one set of loops, boxes and types
// serves 2-D and 3-D.
struct Geometry {
  Index n = 0;                         // global extent of every real dimension
  std::array<Index, 3> halo{};         // ghost width: 1, 0 on the 2-D padding dimension
  std::array<int, 3> grid{}, coord{};  // process grid (row-major ranks), my place in it
  std::array<Index, 3> lo{}, count{};  // owned global indices [lo, lo + count)
  std::array<Index, 3> ext{};          // local extents, ghosts included
  std::array<Index, 3> stride{};       // local row-major strides
  std::array<Index, 3> global_stride{};
  std::size_t cells = 0;

  Geometry(int dims, Index n_global, const std::array<int, 3>& process_grid, int r)
      : n(n_global), grid(process_grid) {
    for (int d = 2; d >= 0; --d) {
      coord[d] = r % grid[d];
      r /= grid[d];
    }
    for (int d = 0; d < 3; ++d) {
      const bool real = d >= 3 - dims;
      halo[d] = real ? 1 : 0;
      const Index extent = real ? n : 1;
      // Block distribution: coordinate c owns [c*N/P, (c+1)*N/P).
      lo[d] = coord[d] * extent / grid[d];
      count[d] = (coord[d] + 1) * extent / grid[d] - lo[d];
      ext[d] = count[d] + 2 * halo[d];
    }
    stride = {ext[1] * ext[2], ext[2], 1};
    global_stride = {n * n, n, 1};
    cells = static_cast<std::size_t>(ext[0] * ext[1] * ext[2]);
  }

  Index offset(Index l0, Index l1, Index l2) const {
    return l0 * stride[0] + l1 * stride[1] + l2 * stride[2];
  }
  // Global coordinate of local index l along d (out of [0, N) for the
  // ghosts beyond the domain).
  Index global(int d, Index l) const { return lo[d] + l - halo[d]; }
  Index global_linear(Index l0, Index l1, Index l2) const {
    return global(0, l0) * global_stride[0] + global(1, l1) * global_stride[1] +
           global(2, l2) * global_stride[2];
  }
  bool owned(int d, Index l) const { return l >= halo[d] && l < halo[d] + count[d]; }
};

// A box of local cells: start and extent per dimension, with the local
// offset and global linear index of its first cell.
struct Box {
  std::array<Index, 3> start{}, extent{};
  Index offset = 0, first_global = 0;
  std::size_t cells() const { return static_cast<std::size_t>(extent[0] * extent[1] * extent[2]); }
};

inline Box make_box(const Geometry& g, const std::array<Index, 3>& start,
                    const std::array<Index, 3>& extent) {
  Box b{start, extent, g.offset(start[0], start[1], start[2]), 0};
  b.first_global = g.global_linear(start[0], start[1], start[2]);
  return b;
}

struct Neighbour {
  int rank = 0;
  int send_tag = 0, recv_tag = 0;
  Box send, recv;  // owned cells it needs, my ghost cells it owns
};

// Every neighbour of the stencil that exists (non-periodic: none beyond the
// edge of the process grid), with the boxes exchanged with it.  Written for
// any process grid: up to 8 neighbours in 2-D (box), 26 in 3-D (box) or 6
// (star).
inline std::vector<Neighbour> neighbour_plan(const Geometry& g, Stencil stencil) {
  std::vector<Neighbour> plan;
  std::array<int, 3> o{};
  for (o[0] = -1; o[0] <= 1; ++o[0])
    for (o[1] = -1; o[1] <= 1; ++o[1])
      for (o[2] = -1; o[2] <= 1; ++o[2]) {
        int moved = 0, peer = 0;
        bool exists = true;
        for (int d = 0; d < 3; ++d) {
          if (o[d] != 0 && g.halo[d] == 0) exists = false;  // the 2-D padding dimension
          const int c = g.coord[d] + o[d];
          if (c < 0 || c >= g.grid[d]) exists = false;
          moved += o[d] != 0;
          peer = peer * g.grid[d] + c;
        }
        if (!exists || moved == 0 || (stencil == Stencil::kStar && moved > 1)) continue;
        Neighbour nb;
        nb.rank = peer;
        // Direction o has index (o0+1)*9 + (o1+1)*3 + (o2+1); the peer sends
        // my ghosts in the opposite direction, 26 - that.
        const int direction = (o[0] + 1) * 9 + (o[1] + 1) * 3 + (o[2] + 1);
        nb.send_tag = kHaloTag + direction;
        nb.recv_tag = kHaloTag + 26 - direction;
        std::array<Index, 3> send_start{}, recv_start{}, extent{};
        for (int d = 0; d < 3; ++d) {
          // Along o: my outermost owned layer and the ghost layer beyond it
          // (width 1); across o: the whole owned range.
          const Index first = g.halo[d], last = g.halo[d] + g.count[d] - 1;
          extent[d] = o[d] == 0 ? g.count[d] : 1;
          send_start[d] = o[d] < 0 ? first : o[d] > 0 ? last : first;
          recv_start[d] = o[d] < 0 ? first - 1 : o[d] > 0 ? last + 1 : first;
        }
        nb.send = make_box(g, send_start, extent);
        nb.recv = make_box(g, recv_start, extent);
        plan.push_back(nb);
      }
  return plan;
}

// Copies a box between the array and a contiguous buffer (kPack: array ->
// buffer).  A box one value wide (a column) is a plain strided loop, not one
// memcpy per value; wider boxes are one memcpy per row.
template <bool kPack>
void copy_box(const Geometry& g, const Box& b, double* array, double* buffer) {
  double* base = array + b.offset;
  const Index width = b.extent[2];
  if (width == 1) {
    for (Index i = 0; i < b.extent[0]; ++i)
      for (Index j = 0; j < b.extent[1]; ++j) {
        double& cell = base[i * g.stride[0] + j * g.stride[1]];
        if (kPack)
          *buffer++ = cell;
        else
          cell = *buffer++;
      }
    return;
  }
  const std::size_t row_bytes = static_cast<std::size_t>(width) * sizeof(double);
  for (Index i = 0; i < b.extent[0]; ++i)
    for (Index j = 0; j < b.extent[1]; ++j, buffer += width) {
      double* row = base + i * g.stride[0] + j * g.stride[1];
      if (kPack)
        std::memcpy(buffer, row, row_bytes);
      else
        std::memcpy(row, buffer, row_bytes);
    }
}

// MPI_Irecv all / MPI_Isend all / MPI_Waitall; post_recv(q, request) and
// post_send(q, request) start the messages of neighbour q.
template <class PostRecv, class PostSend>
void exchange(std::vector<MPI_Request>& requests, std::size_t neighbours, PostRecv&& post_recv,
              PostSend&& post_send) {
  for (std::size_t q = 0; q < neighbours; ++q) post_recv(q, &requests[q]);
  for (std::size_t q = 0; q < neighbours; ++q) post_send(q, &requests[neighbours + q]);
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

inline std::size_t total_cells(const std::vector<Neighbour>& plan, Box Neighbour::*side) {
  std::size_t cells = 0;
  for (const Neighbour& nb : plan) cells += (nb.*side).cells();
  return cells;
}

// floor and, with `with_fresh`, floor-fresh: one MPI_Sendrecv with rank
// r^1 of `count` doubles (the largest halo any rank receives).  The buffer
// holds a stand-in for the halo values: double(r*count + k).
inline void run_floor(const std::string& case_name, std::size_t count, double bytes,
                      bool with_fresh) {
  const int partner = rank() ^ 1;
  std::vector<double> send(count), recv(count);
  const Index base = Index(rank()) * Index(count), partner_base = Index(partner) * Index(count);
  auto rewrite = [&] {
    double* s = send.data();
    for (std::size_t k = 0; k < count; ++k) s[k] = static_cast<double>(base + Index(k));
  };
  rewrite();
  auto sendrecv = [&] {
    MPI_Sendrecv(send.data(), static_cast<int>(count), MPI_DOUBLE, partner, kFloorTag, recv.data(),
                 static_cast<int>(count), MPI_DOUBLE, partner, kFloorTag, comm(),
                 MPI_STATUS_IGNORE);
  };
  for (const bool fresh : {false, true}) {
    if (fresh && !with_fresh) break;
    const std::string impl = fresh ? "floor-fresh" : "floor";
    const Measurement m = verified_time_op(
        [&] {
          poison(recv);
          if (fresh) poison(send);
        },
        [&] {
          if (fresh) rewrite();
          sendrecv();
        },
        [&](const char* phase) {
          verify(case_name, impl, phase, recv.data(), count,
                 [&](std::size_t k) { return static_cast<double>(partner_base + Index(k)); });
        });
    report({case_name, impl, "op", m, bytes, bytes,
            fresh ? "plain-loop rewrite of the contiguous send buffer, then MPI_Sendrecv with r^1"
                  : "MPI_Sendrecv of a contiguous buffer with r^1"});
  }
}

}  // namespace bench
