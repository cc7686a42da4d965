// SPDX-License-Identifier: BSD-3-Clause
// Halo accumulate cases (bench/README.md, H2DA-N): on the layout of H2D-N,
// every owner adds into each owned cell the ghost values that the other
// ranks hold for it: the H2D exchange run backwards, with add
// (finite-element assembly; PETSc's DMLocalToGlobal with ADD_VALUES,
// Tpetra's Export with ADD).  Raw-MPI baselines:
//
//   mpi-pack  H2D's neighbour plan with the roles swapped: pack every ghost
//             box, MPI_Irecv all / MPI_Isend all / MPI_Waitall, add each
//             received box into the owned cells it belongs to
//   floor     MPI_Sendrecv of a contiguous buffer with rank r^1, as H2D
//
// Line order per case: (adlib lines, see the marked place in
// halo_accumulate_case), mpi-pack:setup, mpi-pack, floor.
//
// The case's array (make_accumulate_array, reset_owned) and its serial
// reference (check_accumulated) do not depend on any implementation: they
// are in halo_reference.hpp, so a library line needs only its own setup and
// operation.
#include <mpi.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>

#include "common.hpp"
#include "halo_geometry.hpp"
#include "halo_reference.hpp"

namespace bench {

namespace {

// Adds a contiguous buffer into a box of the array, row by row.
void add_box(const Geometry& g, const Box& b, double* array, const double* buffer) {
  for (Index i = 0; i < b.extent[0]; ++i)
    for (Index j = 0; j < b.extent[1]; ++j, buffer += b.extent[2]) {
      double* row = array + b.offset + i * g.stride[0] + j * g.stride[1];
      for (Index k = 0; k < b.extent[2]; ++k) row[k] += buffer[k];
    }
}

// mpi-pack, backwards: H2D's plan with the roles of the boxes and tags
// swapped (a neighbour's ghost box is my send box towards it).  One send
// buffer per ghost box and one receive buffer per owned box a neighbour
// holds as ghosts, allocated and touched in the setup.
struct PackAccumulate {
  const Geometry* g = nullptr;
  std::vector<Neighbour> plan;
  std::vector<std::vector<double>> send_buffers, recv_buffers;
  std::vector<MPI_Request> requests;

  explicit PackAccumulate(const Geometry& geometry)
      : g(&geometry), plan(neighbour_plan(geometry, Stencil::kBox)) {
    for (const Neighbour& nb : plan) {
      send_buffers.emplace_back(nb.recv.cells(), 0.0);
      recv_buffers.emplace_back(nb.send.cells(), 0.0);
    }
    requests.resize(2 * plan.size());
  }

  void execute(double* array) {
    for (std::size_t q = 0; q < plan.size(); ++q)
      copy_box<true>(*g, plan[q].recv, array, send_buffers[q].data());
    exchange(
        requests, plan.size(),
        [&](std::size_t q, MPI_Request* request) {
          MPI_Irecv(recv_buffers[q].data(), static_cast<int>(recv_buffers[q].size()), MPI_DOUBLE,
                    plan[q].rank, plan[q].send_tag, comm(), request);
        },
        [&](std::size_t q, MPI_Request* request) {
          MPI_Isend(send_buffers[q].data(), static_cast<int>(send_buffers[q].size()), MPI_DOUBLE,
                    plan[q].rank, plan[q].recv_tag, comm(), request);
        });
    for (std::size_t q = 0; q < plan.size(); ++q)
      add_box(*g, plan[q].send, array, recv_buffers[q].data());
  }
};

void halo_accumulate_case(const std::string& name, Index n) {
  const int p = size();
  // The layout of H2D-N: dimension 0 split on a P x 1 grid (the leading
  // padding dimension of the 3-D geometry is not distributed).
  const Geometry g(2, n, {1, p, 1}, rank());
  const std::vector<Neighbour> plan = neighbour_plan(g, Stencil::kBox);
  // Cells each rank receives and adds into its owned cells (MAX over ranks
  // in report()); all of them cross ranks.
  const std::size_t added_cells = total_cells(plan, &Neighbour::send);
  const double bytes = static_cast<double>(added_cells) * 8;

  {  // adlib:setup, adlib: the reverse of H2D's WriteHalo, with add
    adlib::ProcessGrid grid(adlib::Comm(comm()), {p});
    adlib::DistArray<double, 2> array(grid,
                                      {adlib::block(n).ghosts(1), adlib::collapsed(n).ghosts(1)});
    double* data = array.local_view().data();
    if (array.local_view().span() != g.cells) {
      std::fprintf(stderr, "adlib_bench: %s: adlib's local block differs from the scenario's\n",
                   name.c_str());
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    const std::vector<double> start = make_accumulate_array(g);
    std::copy(start.begin(), start.end(), data);
    std::unique_ptr<adlib::WriteHalo<double, 2>> halo;
    const Measurement setup =
        time_setup([&] { halo = std::make_unique<adlib::WriteHalo<double, 2>>(array); });
    report({name, "adlib:setup", "setup", setup, 0, 0,
            "WriteHalo constructor: plan from the ranges, agreement, buffers", false});
    long long operations = 0;
    const Measurement m = verified_time_op(
        [&] {
          reset_owned(g, data);
          operations = 0;
        },
        [&] {
          halo->accumulate(array, adlib::op::add);
          ++operations;
        },
        [&](const char* phase) { check_accumulated(name, "adlib", phase, g, data, operations); });
    report({name, "adlib", "op", m, bytes, bytes,
            "WriteHalo::accumulate with op::add (the exchange's schedule run backwards)"});
  }

  {  // mpi-pack
    std::vector<double> a = make_accumulate_array(g);
    std::unique_ptr<PackAccumulate> x;
    const Measurement setup = time_setup([&] { x = std::make_unique<PackAccumulate>(g); });
    report({name, "mpi-pack:setup", "setup", setup, 0, 0,
            "neighbour plan, pack buffers (allocated and touched)", false});
    long long operations = 0;
    const Measurement m = verified_time_op(
        [&] {
          reset_owned(g, a.data());
          operations = 0;
        },
        [&] {
          x->execute(a.data());
          ++operations;
        },
        [&](const char* phase) {
          check_accumulated(name, "mpi-pack", phase, g, a.data(), operations);
        });
    report({name, "mpi-pack", "op", m, bytes, bytes,
            "pack per ghost box (memcpy per row), MPI_Irecv/MPI_Isend/MPI_Waitall, add into the "
            "owned cells; " +
                std::to_string(x->plan.size()) + " neighbours on rank 0"});
  }

  // floor needs a partner r^1 for every rank.
  if (p % 2 == 0) {
    run_floor(name, static_cast<std::size_t>(max_over_ranks(static_cast<double>(added_cells))),
              bytes, false);
  } else if (rank() == 0) {
    std::fprintf(stderr, "adlib_bench: %s floor needs an even number of ranks, skipped\n",
                 name.c_str());
  }
}

}  // namespace

void register_halo_accumulate_cases() {
  for (const Index n : {2048, 8192}) {
    const std::string name = "H2DA-" + std::to_string(n);
    add_case(name, [name, n] { halo_accumulate_case(name, n); });
  }
}

}  // namespace bench
