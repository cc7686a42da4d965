// SPDX-License-Identifier: BSD-3-Clause
// Halo cases (bench/README.md, H2D-N, H2DC-N, H3D-N): the raw-MPI baselines of a
// width-1 halo exchange on a block-distributed global N^D array, non-periodic.
//
//   mpi-pack   neighbour plan; pack every send box into its buffer,
//              MPI_Irecv all / MPI_Isend all / MPI_Waitall, unpack
//   mpi-dtype  one committed subarray type per send and receive box,
//              MPI_Irecv / MPI_Isend straight from and to the array
//   floor      MPI_Sendrecv of a contiguous buffer with rank r^1
//   *-fresh    the same, after rewriting the cells about to be sent (a
//              solver always sends freshly computed data)
//   touch      that rewrite alone
//
// Line order per case: (adlib lines, hook below), mpi-pack:setup, mpi-pack,
// mpi-pack-fresh, mpi-dtype:setup, mpi-dtype, mpi-dtype-fresh, floor,
// floor-fresh, touch.  Each group has its own array, freed before the next
// one allocates, so they do not compete for cache or memory.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"
#include "halo_geometry.hpp"
#include "halo_reference.hpp"

namespace bench {

namespace {

// The `-fresh` / `touch` rewrite: every cell of every send box gets the
// value it already holds, double(g) computed from the global index, send box
// by send box, last index fastest, so its cache line is dirty as after a
// solver step.
void rewrite_send_cells(const Geometry& g, const std::vector<Neighbour>& plan, double* array) {
  for (const Neighbour& nb : plan) {
    const Box& b = nb.send;
    for (Index i = 0; i < b.extent[0]; ++i)
      for (Index j = 0; j < b.extent[1]; ++j) {
        double* row = array + b.offset + i * g.stride[0] + j * g.stride[1];
        const Index first = b.first_global + i * g.global_stride[0] + j * g.global_stride[1];
        for (Index k = 0; k < b.extent[2]; ++k) row[k] = static_cast<double>(first + k);
      }
  }
}

// mpi-pack: the plan, one send and one receive buffer per neighbour
// (allocated and touched in the setup).
struct PackExchange {
  const Geometry* g = nullptr;
  std::vector<Neighbour> plan;
  std::vector<std::vector<double>> send_buffers, recv_buffers;
  std::vector<MPI_Request> requests;

  PackExchange(const Geometry& geometry, Stencil stencil)
      : g(&geometry), plan(neighbour_plan(geometry, stencil)) {
    for (const Neighbour& nb : plan) {
      send_buffers.emplace_back(nb.send.cells(), 0.0);
      recv_buffers.emplace_back(nb.recv.cells(), 0.0);
    }
    requests.resize(2 * plan.size());
  }

  void execute(double* array) {
    for (std::size_t q = 0; q < plan.size(); ++q)
      copy_box<true>(*g, plan[q].send, array, send_buffers[q].data());
    exchange(
        requests, plan.size(),
        [&](std::size_t q, MPI_Request* request) {
          MPI_Irecv(recv_buffers[q].data(), static_cast<int>(recv_buffers[q].size()), MPI_DOUBLE,
                    plan[q].rank, plan[q].recv_tag, comm(), request);
        },
        [&](std::size_t q, MPI_Request* request) {
          MPI_Isend(send_buffers[q].data(), static_cast<int>(send_buffers[q].size()), MPI_DOUBLE,
                    plan[q].rank, plan[q].send_tag, comm(), request);
        });
    for (std::size_t q = 0; q < plan.size(); ++q)
      copy_box<false>(*g, plan[q].recv, array, recv_buffers[q].data());
  }
};

MPI_Datatype subarray_type(const Geometry& g, const Box& b) {
  int sizes[3], subsizes[3], starts[3];
  for (int d = 0; d < 3; ++d) {
    sizes[d] = static_cast<int>(g.ext[d]);
    subsizes[d] = static_cast<int>(b.extent[d]);
    starts[d] = static_cast<int>(b.start[d]);
  }
  MPI_Datatype type;
  MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &type);
  MPI_Type_commit(&type);
  return type;
}

// mpi-dtype: the plan and one committed subarray type per send and receive
// box, freed with the object.
struct DtypeExchange {
  std::vector<Neighbour> plan;
  std::vector<MPI_Datatype> send_types, recv_types;
  std::vector<MPI_Request> requests;

  DtypeExchange(const Geometry& g, Stencil stencil) : plan(neighbour_plan(g, stencil)) {
    for (const Neighbour& nb : plan) {
      send_types.push_back(subarray_type(g, nb.send));
      recv_types.push_back(subarray_type(g, nb.recv));
    }
    requests.resize(2 * plan.size());
  }
  DtypeExchange(const DtypeExchange&) = delete;
  DtypeExchange& operator=(const DtypeExchange&) = delete;
  ~DtypeExchange() {
    for (MPI_Datatype& t : send_types) MPI_Type_free(&t);
    for (MPI_Datatype& t : recv_types) MPI_Type_free(&t);
  }

  void execute(double* array) {
    exchange(
        requests, plan.size(),
        [&](std::size_t q, MPI_Request* request) {
          MPI_Irecv(array, 1, recv_types[q], plan[q].rank, plan[q].recv_tag, comm(), request);
        },
        [&](std::size_t q, MPI_Request* request) {
          MPI_Isend(array, 1, send_types[q], plan[q].rank, plan[q].send_tag, comm(), request);
        });
  }
};

// ---- verification ------------------------------------------------------------------

// The local array of one implementation group: owned cells hold double(g),
// ghosts the poison.
std::vector<double> make_array(const Geometry& g) {
  std::vector<double> a(g.cells, kPoison);
  for (Index i = 0; i < g.ext[0]; ++i)
    for (Index j = 0; j < g.ext[1]; ++j)
      for (Index k = 0; k < g.ext[2]; ++k)
        if (g.owned(0, i) && g.owned(1, j) && g.owned(2, k))
          a[static_cast<std::size_t>(g.offset(i, j, k))] =
              static_cast<double>(g.global_linear(i, j, k));
  return a;
}

// Before a verified phase: every ghost cell gets the poison, and with
// `send_cells` (the -fresh variants, touch) every cell of the send boxes
// too, so that a rewrite that writes wrong values, or comes after the send,
// fails.
void poison_for_phase(const Geometry& g, const std::vector<Neighbour>& plan, double* a,
                      bool send_cells) {
  for (Index i = 0; i < g.ext[0]; ++i)
    for (Index j = 0; j < g.ext[1]; ++j)
      for (Index k = 0; k < g.ext[2]; ++k)
        if (!(g.owned(0, i) && g.owned(1, j) && g.owned(2, k)))
          a[static_cast<std::size_t>(g.offset(i, j, k))] = kPoison;
  if (!send_cells) return;
  for (const Neighbour& nb : plan) {
    const Box& b = nb.send;
    for (Index i = 0; i < b.extent[0]; ++i)
      for (Index j = 0; j < b.extent[1]; ++j)
        poison(a + b.offset + i * g.stride[0] + j * g.stride[1],
               static_cast<std::size_t>(b.extent[2]));
  }
}

// ---- one case ---------------------------------------------------------------------------

struct HaloCase {
  std::string name;
  int dims;
  Index n;
  int split_dim;  // the distributed dimension, in the case's own numbering
  Stencil stencil;
  const char* rewritten;  // what the -fresh rewrite writes, for the notes
};

// One implementation of an exchange group (mpi-pack or mpi-dtype) and its
// -fresh variant on the same plan and array.
template <class Exchange>
void run_exchange_pair(const HaloCase& c, const Geometry& g, Exchange& x, const std::string& impl,
                       double bytes, const std::string& note) {
  std::vector<double> a = make_array(g);
  const double send_bytes = static_cast<double>(total_cells(x.plan, &Neighbour::send)) * 8;
  for (const bool fresh : {false, true}) {
    const std::string name = impl + (fresh ? "-fresh" : "");
    const Measurement m = verified_time_op(
        [&] { poison_for_phase(g, x.plan, a.data(), fresh); },
        [&] {
          if (fresh) rewrite_send_cells(g, x.plan, a.data());
          x.execute(a.data());
        },
        [&](const char* phase) { check_array(c.name, name, phase, g, c.stencil, a.data(), true); });
    report({c.name, name, "op", m, bytes, bytes,
            fresh ? std::string("rewrite of ") + c.rewritten + " (" +
                        std::to_string(static_cast<long long>(send_bytes)) + " B per rank), then " +
                        note
                  : note});
  }
}

// adlib's lines: a DistArray whose local block is exactly the geometry's
// (ghost width 1 on the real dimensions, edge boundaries), one WriteHalo
// built once (box stencil: corners; star: faces only).  The rewrite of the
// -fresh variants is the baselines' (rewrite_send_cells), on adlib's memory.
template <int R>
void adlib_lines(const HaloCase& c, const Geometry& g, const std::vector<Neighbour>& plan,
                 double bytes) {
  std::vector<int> shape(R, 1);
  shape[c.split_dim] = size();
  adlib::ProcessGrid grid(adlib::Comm(comm()), shape);
  std::array<adlib::RangePtr, R> ranges;
  for (int d = 0; d < R; ++d)
    ranges[d] = d == c.split_dim ? adlib::RangePtr(std::make_shared<adlib::BlockRange>(
                                       c.n, grid.dim(d), adlib::Ghosts{1, 1, false}))
                                 : adlib::RangePtr(std::make_shared<adlib::CollapsedRange>(
                                       c.n, adlib::Ghosts{1, 1, false}));
  adlib::DistArray<double, R> a(grid, ranges);
  double* data = a.local_view().data();
  if (a.local_view().span() != g.cells) {
    std::fprintf(stderr, "adlib_bench: %s: adlib's local block differs from the scenario's\n",
                 c.name.c_str());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  const std::vector<double> start = make_array(g);
  std::copy(start.begin(), start.end(), data);
  adlib::HaloWidths widths = adlib::full_halo(a.layout());
  widths.stencil = c.stencil == Stencil::kBox ? adlib::Stencil::box : adlib::Stencil::faces;
  std::unique_ptr<adlib::WriteHalo<double, R>> halo;
  const Measurement setup =
      time_setup([&] { halo = std::make_unique<adlib::WriteHalo<double, R>>(a.layout(), widths); });
  report({c.name, "adlib:setup", "setup", setup, 0, 0,
          "WriteHalo constructor: plan from the ranges, agreement, buffers", false});
  struct Variant {
    const char* impl;
    bool fresh, split;
  };
  for (const Variant v : {Variant{"adlib", false, false}, Variant{"adlib-fresh", true, false},
                          Variant{"adlib-start-finish", true, true}}) {
    const Measurement m = verified_time_op(
        [&] { poison_for_phase(g, plan, data, v.fresh); },
        [&] {
          if (v.fresh) rewrite_send_cells(g, plan, data);
          if (v.split) {
            halo->start(a);  // an application updates its interior here
            halo->finish();
          } else {
            halo->execute(a);
          }
        },
        [&](const char* phase) { check_array(c.name, v.impl, phase, g, c.stencil, data, true); });
    const auto& p = halo->schedule().plan();
    report({c.name, v.impl, "op", m, bytes, bytes,
            std::string(v.fresh ? "rewrite of the send cells, then " : "") +
                (v.split ? "WriteHalo::start + finish" : "WriteHalo::execute") + "; " +
                std::to_string(p.send_messages().size()) + " messages on rank 0, C order"});
  }
}

void halo_case(const HaloCase& c) {
  const int p = size();
  std::array<int, 3> grid{1, 1, 1};
  grid[3 - c.dims + c.split_dim] = p;
  const Geometry g(c.dims, c.n, grid, rank());
  // Received cells per rank: bytes and offrank bytes (all of it crosses
  // ranks), reduced to the MAX over ranks by report().
  const std::vector<Neighbour> plan = neighbour_plan(g, c.stencil);
  const std::size_t recv_cells = total_cells(plan, &Neighbour::recv);
  const double bytes = static_cast<double>(recv_cells) * 8;

  if (c.dims == 2)
    adlib_lines<2>(c, g, plan, bytes);
  else
    adlib_lines<3>(c, g, plan, bytes);

  {  // mpi-pack, mpi-pack-fresh
    std::unique_ptr<PackExchange> x;
    const Measurement setup = time_setup([&] { x = std::make_unique<PackExchange>(g, c.stencil); });
    report({c.name, "mpi-pack:setup", "setup", setup, 0, 0,
            "neighbour plan, pack buffers (allocated and touched)", false});
    run_exchange_pair(c, g, *x, "mpi-pack", bytes,
                      "pack per neighbour (memcpy per row, strided loop for one-wide boxes), "
                      "MPI_Irecv/MPI_Isend/MPI_Waitall, unpack; " +
                          std::to_string(x->plan.size()) + " neighbours on rank 0");
  }

  {  // mpi-dtype, mpi-dtype-fresh
    std::unique_ptr<DtypeExchange> x;
    const Measurement setup =
        time_setup([&] { x = std::make_unique<DtypeExchange>(g, c.stencil); });
    report({c.name, "mpi-dtype:setup", "setup", setup, 0, 0,
            "neighbour plan, MPI_Type_create_subarray per send and receive box, committed", false});
    run_exchange_pair(c, g, *x, "mpi-dtype", bytes,
                      "MPI_Irecv/MPI_Isend of subarray types straight from/to the array, "
                      "MPI_Waitall");
  }

  // floor needs a partner r^1 for every rank.
  if (p % 2 == 0) {
    run_floor(c.name, static_cast<std::size_t>(max_over_ranks(static_cast<double>(recv_cells))),
              bytes, true);
  } else if (rank() == 0) {
    std::fprintf(stderr, "adlib_bench: %s floor needs an even number of ranks, skipped\n",
                 c.name.c_str());
  }

  {  // touch: the -fresh rewrite alone; every ghost must stay poisoned
    std::vector<double> a = make_array(g);
    const Measurement m =
        verified_time_op([&] { poison_for_phase(g, plan, a.data(), true); },
                         [&] { rewrite_send_cells(g, plan, a.data()); },
                         [&](const char* phase) {
                           check_array(c.name, "touch", phase, g, c.stencil, a.data(), false);
                         });
    report({c.name, "touch", "op", m, static_cast<double>(total_cells(plan, &Neighbour::send)) * 8,
            0, std::string("plain-loop rewrite of ") + c.rewritten + ", no communication"});
  }
}

}  // namespace

void register_halo_cases() {
  for (const Index n : {512, 2048, 8192}) {
    const std::string size = std::to_string(n);
    add_case("H2D-" + size, [n, size] {
      halo_case({"H2D-" + size, 2, n, 0, Stencil::kBox, "the owned rows next to the neighbours"});
    });
  }
  for (const Index n : {512, 2048, 8192}) {
    const std::string size = std::to_string(n);
    add_case("H2DC-" + size, [n, size] {
      halo_case({"H2DC-" + size, 2, n, 1, Stencil::kBox,
                 "the owned columns next to the neighbours (stride N/P + 2)"});
    });
  }
  for (const Index n : {64, 256}) {
    const std::string size = std::to_string(n);
    add_case("H3D-" + size, [n, size] {
      halo_case({"H3D-" + size, 3, n, 0, Stencil::kStar,
                 "the owned planes next to the neighbours (N rows of N values)"});
    });
  }
}

}  // namespace bench
