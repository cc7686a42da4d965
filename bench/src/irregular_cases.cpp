// SPDX-License-Identifier: BSD-3-Clause
// Irregular cases (bench/README.md, GA1-M and SC1-M): every rank names M
// pseudo-random elements of a block-distributed array of N = 2^22 and either
// gathers them (GA1: out[k] = A[idx[k]]) or adds a contribution into each
// (SC1: x[idx[k]] += val[k], the reverse of GA1).  Raw-MPI baselines:
//
//   mpi-alltoallv  the requests grouped by owner once (setup: counts by
//                  MPI_Alltoall, owner-local indices by MPI_Alltoallv); per
//                  operation one MPI_Alltoallv of the values, own part included
//   floor          that MPI_Alltoallv alone, on contiguous buffers that
//                  already hold the messages
//
// Line order per case: adlib:setup, adlib (Gather, or Scatter with the add
// combine, schedule built once), mpi-alltoallv:setup, mpi-alltoallv, floor.
// Each implementation has its own arrays, freed before the next one
// allocates.
//
// The case's data (IrregularCase), its index stream (index_stream) and its
// serial references (gather_expected, ScatterAddReference) do not depend on
// any implementation, so a library line needs only its own setup and
// operation.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"
#include "irregular_case.hpp"

namespace bench {

namespace {

using irregular::Index;
using irregular::index_stream;
using irregular::IrregularCase;
using irregular::ScatterAddReference;
using irregular::verify_gather;

// ---- the raw-MPI baseline ------------------------------------------------------------------

// mpi-alltoallv's plan.  Requester side: this rank's M requests grouped by
// owner (stable, so ascending k within an owner).  Owner side: the
// owner-local index of every request other ranks (and this one) sent it,
// grouped by requester.  GA1 runs it forwards (owners send values to the
// requesters), SC1 backwards (requesters send contributions to the owners).
struct OwnerExchangePlan {
  std::vector<int> request_counts, request_displs;  // per owner
  std::vector<std::int32_t> request_positions;      // k of each request, grouped by owner
  std::vector<int> serve_counts, serve_displs;      // per requester
  std::vector<std::int32_t> serve_index;            // owner-local index of each served request
  std::vector<double> request_buffer, serve_buffer;

  // Collective: groups the requests, sends counts and owner-local indices to
  // the owners once, allocates and touches both value buffers.
  explicit OwnerExchangePlan(const IrregularCase& c) {
    request_counts.assign(c.p, 0);
    for (const Index g : c.idx) ++request_counts[c.owner(g)];
    request_displs = displacements(request_counts);
    // Counting sort by owner: stable, one pass.
    std::vector<int> next = request_displs;
    request_positions.resize(c.idx.size());
    std::vector<std::int32_t> local_index(c.idx.size());
    for (std::size_t k = 0; k < c.idx.size(); ++k) {
      const int q = c.owner(c.idx[k]);
      const int at = next[q]++;
      request_positions[at] = static_cast<std::int32_t>(k);
      local_index[at] = static_cast<std::int32_t>(c.idx[k] - c.lo(q));
    }
    serve_counts.assign(c.p, 0);
    MPI_Alltoall(request_counts.data(), 1, MPI_INT, serve_counts.data(), 1, MPI_INT, comm());
    serve_displs = displacements(serve_counts);
    serve_index.resize(static_cast<std::size_t>(serve_displs.back() + serve_counts.back()));
    MPI_Alltoallv(local_index.data(), request_counts.data(), request_displs.data(), MPI_INT32_T,
                  serve_index.data(), serve_counts.data(), serve_displs.data(), MPI_INT32_T,
                  comm());
    request_buffer.assign(request_positions.size(), 0.0);
    serve_buffer.assign(serve_index.size(), 0.0);
  }

  static std::vector<int> displacements(const std::vector<int>& counts) {
    std::vector<int> d(counts.size(), 0);
    for (std::size_t q = 1; q < counts.size(); ++q) d[q] = d[q - 1] + counts[q - 1];
    return d;
  }

  // The values alone, already in the buffers: owners -> requesters (GA1's floor).
  void alltoallv_to_requesters() {
    MPI_Alltoallv(serve_buffer.data(), serve_counts.data(), serve_displs.data(), MPI_DOUBLE,
                  request_buffer.data(), request_counts.data(), request_displs.data(), MPI_DOUBLE,
                  comm());
  }
  // Requesters -> owners (SC1's floor).
  void alltoallv_to_owners() {
    MPI_Alltoallv(request_buffer.data(), request_counts.data(), request_displs.data(), MPI_DOUBLE,
                  serve_buffer.data(), serve_counts.data(), serve_displs.data(), MPI_DOUBLE,
                  comm());
  }

  // GA1: owners pack the requested values of their block, MPI_Alltoallv,
  // requesters scatter them into out by the stored positions.
  void gather(const double* __restrict__ block, double* __restrict__ out) {
    const std::size_t n_serve = serve_index.size(), n_request = request_positions.size();
    const std::int32_t* __restrict__ si = serve_index.data();
    const std::int32_t* __restrict__ rp = request_positions.data();
    double* __restrict__ sb = serve_buffer.data();
    const double* __restrict__ rb = request_buffer.data();
    for (std::size_t k = 0; k < n_serve; ++k) sb[k] = block[si[k]];
    alltoallv_to_requesters();
    for (std::size_t k = 0; k < n_request; ++k) out[rp[k]] = rb[k];
  }

  // SC1: requesters pack their contributions by owner, MPI_Alltoallv,
  // owners add each received value into their block at its stored local
  // index (a sequential loop: duplicates add up in order).
  void scatter_add(const double* __restrict__ values, double* __restrict__ block) {
    const std::size_t n_serve = serve_index.size(), n_request = request_positions.size();
    const std::int32_t* __restrict__ si = serve_index.data();
    const std::int32_t* __restrict__ rp = request_positions.data();
    double* __restrict__ rb = request_buffer.data();
    const double* __restrict__ sb = serve_buffer.data();
    for (std::size_t k = 0; k < n_request; ++k) rb[k] = values[rp[k]];
    alltoallv_to_owners();
    for (std::size_t k = 0; k < n_serve; ++k) block[si[k]] += sb[k];
  }
};

constexpr const char* kSetupNote =
    "requests grouped by owner (stable), counts by MPI_Alltoall, int32 owner-local indices by "
    "MPI_Alltoallv, buffers (allocated and touched)";

// The messages each rank receives, in message order (grouped by source,
// ascending k within a source), computed from the index streams alone:
// the floors' serial references.  GA1: the values my requests get back from
// each owner; SC1: the contributions every rank aims at my block.
std::vector<double> gather_messages(const IrregularCase& c) {
  std::vector<double> expected;
  expected.reserve(c.idx.size());
  for (int q = 0; q < c.p; ++q)
    for (const Index g : c.idx)
      if (c.owner(g) == q) expected.push_back(static_cast<double>(g));
  return expected;
}

std::vector<double> scatter_messages(const IrregularCase& c) {
  std::vector<double> expected;
  for (int q = 0; q < c.p; ++q) {
    const std::vector<Index> stream = q == c.r ? c.idx : index_stream(q, c.m, c.n);
    for (Index k = 0; k < c.m; ++k)
      if (c.owner(stream[static_cast<std::size_t>(k)]) == c.r)
        expected.push_back(c.contribution(q, k));
  }
  return expected;
}

// ---- GA1-M: irregular gather ---------------------------------------------------------------

void ga1_case(Index m) {
  const IrregularCase c("GA1-" + std::to_string(m), Index(1) << 22, m);
  const double bytes = c.bytes(), offrank = c.offrank_bytes();

  {  // adlib: the Gather schedule built once from c.idx
    adlib::ProcessGrid line(MPI_COMM_WORLD, {c.p});
    adlib::DistArray<double, 1, Kokkos::HostSpace> a(line, {adlib::block(c.n)});
    const std::vector<double> block = c.block_values();
    std::copy(block.begin(), block.end(), a.local_view().data());
    std::vector<double> out(c.idx.size());
    std::unique_ptr<adlib::Gather<double, Kokkos::HostSpace>> fetch;
    const Measurement setup = time_setup(
        [&] { fetch = std::make_unique<adlib::Gather<double, Kokkos::HostSpace>>(a, c.idx); });
    report({c.name, "adlib:setup", "setup", setup, 0, 0,
            "Gather constructor: requests grouped by owner, one exchange_sparse, schedule build",
            false});
    const Measurement op =
        verified_time_op([&] { poison(out); }, [&] { fetch->execute(out.data(), a); },
                         [&](const char* phase) { verify_gather(c, "adlib", phase, out.data()); });
    report({c.name, "adlib", "op", op, bytes, offrank,
            "index-list messages, repeated indices sent once and copied locally (" +
                std::to_string(fetch->repeats()) + " here)"});
  }

  {  // mpi-alltoallv
    const std::vector<double> block = c.block_values();
    std::vector<double> out(c.idx.size());
    std::unique_ptr<OwnerExchangePlan> plan;
    const Measurement setup = time_setup([&] { plan = std::make_unique<OwnerExchangePlan>(c); });
    report({c.name, "mpi-alltoallv:setup", "setup", setup, 0, 0, kSetupNote, false});
    const Measurement op = verified_time_op(
        [&] { poison(out); }, [&] { plan->gather(block.data(), out.data()); },
        [&](const char* phase) { verify_gather(c, "mpi-alltoallv", phase, out.data()); });
    report({c.name, "mpi-alltoallv", "op", op, bytes, offrank,
            "owners pack by index list, MPI_Alltoallv (own part included), requesters unpack "
            "by position"});
  }

  {  // floor: the same counts, the owners' buffers already hold the messages
    OwnerExchangePlan floor(c);
    const std::vector<double> block = c.block_values();
    for (std::size_t k = 0; k < floor.serve_index.size(); ++k)
      floor.serve_buffer[k] = block[static_cast<std::size_t>(floor.serve_index[k])];
    const std::vector<double> expected = gather_messages(c);
    const Measurement op = verified_time_op(
        [&] { poison(floor.request_buffer); }, [&] { floor.alltoallv_to_requesters(); },
        [&](const char* phase) {
          verify(c.name, "floor", phase, floor.request_buffer.data(), expected.size(),
                 [&](std::size_t k) { return expected[k]; });
        });
    report({c.name, "floor", "op", op, bytes, offrank,
            "MPI_Alltoallv with the same counts, contiguous buffers, no pack or unpack"});
  }
}

// ---- SC1-M: irregular scatter-add ---------------------------------------------------------

void sc1_case(Index m) {
  const IrregularCase c("SC1-" + std::to_string(m), Index(1) << 22, m);
  const double bytes = c.bytes(), offrank = c.offrank_bytes();
  const ScatterAddReference reference(c);
  std::vector<double> values(c.idx.size());
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = c.contribution(c.r, Index(k));

  {  // adlib: the Scatter schedule with the add combine built once from c.idx
    adlib::ProcessGrid line(MPI_COMM_WORLD, {c.p});
    adlib::DistArray<double, 1, Kokkos::HostSpace> x(line, {adlib::block(c.n)});
    double* xs = x.local_view().data();
    using AddScatter = adlib::Scatter<double, Kokkos::HostSpace, adlib::op::Add>;
    std::unique_ptr<AddScatter> assemble;
    const Measurement setup =
        time_setup([&] { assemble = std::make_unique<AddScatter>(x, c.idx, adlib::op::add); });
    report({c.name, "adlib:setup", "setup", setup, 0, 0,
            "Scatter constructor: requests grouped by owner, one exchange_sparse, schedule build",
            false});
    long long operations = 0;
    const std::vector<double> start = c.block_values();
    const Measurement op = verified_time_op(
        [&] {
          std::copy(start.begin(), start.end(), xs);
          operations = 0;
        },
        [&] {
          assemble->execute(x, values.data());
          ++operations;
        },
        [&](const char* phase) { reference.verify(c, "adlib", phase, xs, operations); });
    report({c.name, "adlib", "op", op, bytes, offrank,
            "index-list messages, every contribution sent, owners add as messages arrive"});
  }

  {  // mpi-alltoallv
    std::vector<double> x = c.block_values();
    std::unique_ptr<OwnerExchangePlan> plan;
    const Measurement setup = time_setup([&] { plan = std::make_unique<OwnerExchangePlan>(c); });
    report({c.name, "mpi-alltoallv:setup", "setup", setup, 0, 0, kSetupNote, false});
    // x accumulates: every operation, warm-ups included, is counted, and
    // each verified phase starts again from x[g] = g.
    long long operations = 0;
    const std::vector<double> start = c.block_values();
    const Measurement op = verified_time_op(
        [&] {
          x = start;
          operations = 0;
        },
        [&] {
          plan->scatter_add(values.data(), x.data());
          ++operations;
        },
        [&](const char* phase) {
          reference.verify(c, "mpi-alltoallv", phase, x.data(), operations);
        });
    report({c.name, "mpi-alltoallv", "op", op, bytes, offrank,
            "pack by owner, MPI_Alltoallv (own part included), owners add at stored local "
            "indices (sequential loop)"});
  }

  {  // floor: the same counts, the requesters' buffers already hold the messages
    OwnerExchangePlan floor(c);
    for (std::size_t k = 0; k < floor.request_positions.size(); ++k)
      floor.request_buffer[k] = values[static_cast<std::size_t>(floor.request_positions[k])];
    const std::vector<double> expected = scatter_messages(c);
    const Measurement op =
        verified_time_op([&] { poison(floor.serve_buffer); }, [&] { floor.alltoallv_to_owners(); },
                         [&](const char* phase) {
                           if (floor.serve_buffer.size() != expected.size())
                             verification_failed(c.name, "floor", phase, expected.size(),
                                                 static_cast<double>(floor.serve_buffer.size()),
                                                 static_cast<double>(expected.size()));
                           verify(c.name, "floor", phase, floor.serve_buffer.data(),
                                  expected.size(), [&](std::size_t k) { return expected[k]; });
                         });
    report({c.name, "floor", "op", op, bytes, offrank,
            "MPI_Alltoallv with the same counts, contiguous buffers, no pack or add"});
  }
}

}  // namespace

void register_irregular_cases() {
  add_case("GA1-262144", [] { ga1_case(Index(1) << 18); });
  add_case("SC1-262144", [] { sc1_case(Index(1) << 18); });
}

}  // namespace bench
