// SPDX-License-Identifier: BSD-3-Clause
// Transfer cases (adlib's own; defined in bench/README.md): the evidence behind
// TransferPolicy's automatic rule, reproducible on any machine.
//
//   XFER-COL-<N>-<pitch>   ranks r and r^1 exchange one column of N doubles
//                          whose elements are <pitch> bytes apart (a local
//                          N x pitch/8 row-major array: the column next to
//                          the last is sent, the last one receives), the
//                          sent column rewritten before every exchange (as a
//                          solver's freshly computed data)
//
// Impls, one BlockMessSchedule each:
//   adlib-pack       TransferMethod::pack: packed and unpacked by adlib
//   adlib-datatype   TransferMethod::datatype: MPI derived datatypes
//   adlib            the automatic rule (the note says what it chose)
// and the raw-MPI baselines of the same exchange:
//   mpi-pack         plain strided loops into and out of contiguous buffers,
//                    MPI_Irecv / MPI_Isend / MPI_Waitall
//   mpi-dtype        MPI_Type_vector columns, MPI_Irecv / MPI_Isend straight
//                    from and to the array, MPI_Waitall
//
// The automatic rule should pick the faster of the first two; where it does
// not on some machine, ADLIB_TRANSFER / set_transfer override it, and these
// lines are what to report.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"

namespace bench {

namespace {

using Index = std::int64_t;

constexpr int kTransferTag = 7400;

double column_value(int r, Index i) {
  return 1e7 * r + static_cast<double>(i);
}

void column_case(Index n, Index pitch_bytes) {
  const std::string name = "XFER-COL-" + std::to_string(n) + "-" + std::to_string(pitch_bytes);
  const int p = size(), me = rank(), partner = me ^ 1;
  if (p % 2 != 0) {
    if (me == 0)
      std::fprintf(stderr, "adlib_bench: %s needs an even number of ranks, skipped\n",
                   name.c_str());
    return;
  }
  const Index width = pitch_bytes / Index(sizeof(double));
  std::vector<double> a(static_cast<std::size_t>(n * width), 0.0);
  const adlib::StridedBlock sent = adlib::StridedBlock::make(width - 2, {n}, {width});
  const adlib::StridedBlock received = adlib::StridedBlock::make(width - 1, {n}, {width});
  const double bytes = static_cast<double>(n) * sizeof(double);
  auto rewrite = [&] {
    double* column = a.data() + (width - 2);
    for (Index i = 0; i < n; ++i) column[i * width] = column_value(me, i);
  };
  auto poison_phase = [&] {
    for (Index i = 0; i < n; ++i) {
      a[static_cast<std::size_t>(i * width + width - 1)] = kPoison;
      a[static_cast<std::size_t>(i * width + width - 2)] = kPoison;
    }
  };
  auto check = [&](const std::string& impl, const char* phase) {
    std::vector<double> got(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i)
      got[static_cast<std::size_t>(i)] = a[static_cast<std::size_t>(i * width + width - 1)];
    verify(name, impl, phase, got.data(), got.size(),
           [&](std::size_t i) { return column_value(partner, Index(i)); });
  };

  struct Variant {
    const char* impl;
    adlib::TransferMethod method;
  };
  for (const Variant v : {Variant{"adlib-pack", adlib::TransferMethod::pack},
                          Variant{"adlib-datatype", adlib::TransferMethod::datatype},
                          Variant{"adlib", adlib::TransferMethod::automatic}}) {
    adlib::BlockMessSchedule<Kokkos::HostSpace> s{adlib::Comm(comm())};
    s.send(partner, sent);
    s.recv(partner, received);
    s.build();
    s.set_transfer({v.method, adlib::TransferPolicy{}.datatype_min_bytes});
    s.prepare<double>();
    const Measurement m = verified_time_op(
        poison_phase,
        [&] {
          rewrite();
          s.execute(a.data(), a.size(), a.data(), a.size());
        },
        [&](const char* phase) { check(v.impl, phase); });
    const bool typed = s.in_place(s.plan().send_messages().front(), sizeof(double));
    report({name, v.impl, "op", m, bytes, bytes,
            std::string("rewrite of the sent column, then one exchange with r^1; sent ") +
                (typed ? "as an MPI datatype" : "packed")});
  }

  // The raw-MPI baselines, timed the same way.
  auto time_baseline = [&](const char* impl, auto&& exchange, const char* note) {
    const Measurement m = verified_time_op(
        poison_phase,
        [&] {
          rewrite();
          exchange();
        },
        [&](const char* phase) { check(impl, phase); });
    report({name, impl, "op", m, bytes, bytes, note});
  };
  {
    std::vector<double> out(static_cast<std::size_t>(n)), in(out.size());
    const double* column = a.data() + (width - 2);
    double* ghost = a.data() + (width - 1);
    time_baseline(
        "mpi-pack",
        [&] {
          for (Index i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = column[i * width];
          MPI_Request r[2];
          MPI_Irecv(in.data(), static_cast<int>(n), MPI_DOUBLE, partner, kTransferTag, comm(),
                    &r[0]);
          MPI_Isend(out.data(), static_cast<int>(n), MPI_DOUBLE, partner, kTransferTag, comm(),
                    &r[1]);
          MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
          for (Index i = 0; i < n; ++i) ghost[i * width] = in[static_cast<std::size_t>(i)];
        },
        "strided-loop pack, MPI_Irecv/MPI_Isend/MPI_Waitall, strided-loop unpack");
  }
  {
    MPI_Datatype column;
    MPI_Type_vector(static_cast<int>(n), 1, static_cast<int>(width), MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    time_baseline(
        "mpi-dtype",
        [&] {
          MPI_Request r[2];
          MPI_Irecv(a.data() + (width - 1), 1, column, partner, kTransferTag, comm(), &r[0]);
          MPI_Isend(a.data() + (width - 2), 1, column, partner, kTransferTag, comm(), &r[1]);
          MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        },
        "MPI_Type_vector column, MPI_Irecv/MPI_Isend from and to the array, MPI_Waitall");
    MPI_Type_free(&column);
  }
}

}  // namespace

void register_transfer_cases() {
  // Pitches in bytes: rows closer than a page (80, 528, 2064), a page or
  // more apart (4112, 4160, 4608, 8208, 32784), and multiples of 2 KiB,
  // where every row falls in the same cache sets (6144, 8192).
  for (const Index pitch : {80, 528, 2064, 4112, 4160, 4608, 6144, 8192, 8208, 32784})
    add_case("XFER-COL-2048-" + std::to_string(pitch), [pitch] { column_case(2048, pitch); });
  for (const Index pitch : {80, 528, 4160, 8208})
    add_case("XFER-COL-16384-" + std::to_string(pitch), [pitch] { column_case(16384, pitch); });
}

}  // namespace bench
