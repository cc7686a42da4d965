// SPDX-License-Identifier: BSD-3-Clause
// Shift case (bench/README.md, SH1-N): circular shift of a block-distributed
// 1-D array by one position towards higher indices, into a separate one:
// dst[g] = src[(g - 1) mod N] (Fortran's CSHIFT(src, -1)).
//
//   mpi-sendrecv  MPI_Sendrecv of the last local element to rank r+1 (from
//                 r-1 into dst[0]), then memcpy of the rest
//   floor         memcpy of the whole local block (no communication)
//
// Line order: (adlib lines, hook below), mpi-sendrecv, floor.
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"

namespace bench {

namespace {

using Index = std::int64_t;

constexpr int kShiftTag = 7300;

void sh1_case(Index n) {
  const std::string name = "SH1-" + std::to_string(n);
  const int p = size(), r = rank();
  // Block distribution: rank q owns [q*N/P, (q+1)*N/P).
  const Index lo = r * n / p, hi = (r + 1) * n / p;
  const auto count = static_cast<std::size_t>(hi - lo);
  const double bytes = static_cast<double>(count * sizeof(double));
  const double offrank = p > 1 ? sizeof(double) : 0.0;
  std::vector<double> src(count), dst(count);
  for (std::size_t l = 0; l < count; ++l) src[l] = static_cast<double>(lo + Index(l));
  auto shifted = [&](std::size_t l) { return static_cast<double>((lo + Index(l) - 1 + n) % n); };
  auto copied = [&](std::size_t l) { return static_cast<double>(lo + Index(l)); };

  {  // adlib: one CShift schedule over block-distributed DistArrays
    adlib::ProcessGrid grid(adlib::Comm(comm()), {p});
    auto range = std::make_shared<adlib::BlockRange>(n, grid.dim(0));
    adlib::DistArray<double, 1> a(grid, {range}), b(grid, {range});
    std::copy(src.begin(), src.end(), a.local_view().data());
    double* out = b.local_view().data();
    std::unique_ptr<adlib::CShift<double, 1>> shift;
    const Measurement setup =
        time_setup([&] { shift = std::make_unique<adlib::CShift<double, 1>>(b, a, -1, 0); });
    report({name, "adlib:setup", "setup", setup, 0, 0,
            "CShift constructor: plan (two section remaps), agreement, buffers", false});
    const Measurement m = verified_time_op(
        [&] { poison(out, count); }, [&] { shift->execute(b, a); },
        [&](const char* phase) { verify(name, "adlib", phase, out, count, shifted); });
    report({name, "adlib", "op", m, bytes, offrank,
            "CShift by -1: one message per neighbour, the rest a local copy"});
  }

  {  // mpi-sendrecv
    const int next = (r + 1) % p, previous = (r - 1 + p) % p;
    auto op = [&] {
      MPI_Sendrecv(src.data() + count - 1, 1, MPI_DOUBLE, next, kShiftTag, dst.data(), 1,
                   MPI_DOUBLE, previous, kShiftTag, comm(), MPI_STATUS_IGNORE);
      std::memcpy(dst.data() + 1, src.data(), (count - 1) * sizeof(double));
    };
    const Measurement m =
        verified_time_op([&] { poison(dst); }, op,
                         [&](const char* phase) {
                           verify(name, "mpi-sendrecv", phase, dst.data(), count, shifted);
                         });
    report({name, "mpi-sendrecv", "op", m, bytes, offrank,
            "MPI_Sendrecv of the last element to r+1 into dst[0], memcpy of the rest"});
  }

  {  // floor
    auto op = [&] { std::memcpy(dst.data(), src.data(), count * sizeof(double)); };
    const Measurement m = verified_time_op(
        [&] { poison(dst); }, op,
        [&](const char* phase) { verify(name, "floor", phase, dst.data(), count, copied); });
    report({name, "floor", "op", m, bytes, 0, "memcpy of the local block, no communication"});
  }
}

}  // namespace

void register_shift_cases() {
  add_case("SH1-4194304", [] { sh1_case(Index(1) << 22); });
}

}  // namespace bench
