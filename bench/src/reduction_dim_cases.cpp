// SPDX-License-Identifier: BSD-3-Clause
// Reduction along a dimension (bench/README.md, RDD-N): A[i][j] = i*N + j,
// N x N doubles, block along dimension 0 on a P x 1 grid; s[j] = sum_i
// A[i][j], replicated on every rank.
//
//   adlib        DimensionReduction::sum (built once; adlib:setup times the
//                constructor and the first execution, which builds the all-reduce)
//   mpi          column sums with a row-major loop + MPI_Allreduce of N doubles
//
// RDD-LOCAL-RxC: the local loop alone on an R x C block (no communication):
//   adlib-local  DimensionReduction::sum of a collapsed x collapsed array
//   loop         the plain row-major loop s[j] += a[i][j]
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"

namespace bench {

namespace {

using Index = std::int64_t;

// The column sums of rows [lo, hi) of A[i][j] = i*n + j (exact in doubles).
double column_sum(Index lo, Index hi, Index n, Index j) {
  const Index rows = hi - lo;
  return static_cast<double>(n * (lo + hi - 1) * rows / 2 + rows * j);
}

void row_major_sums(const double* a, Index rows, Index columns, double* s) {
  for (Index j = 0; j < columns; ++j) s[j] = 0.0;
  for (Index i = 0; i < rows; ++i) {
    const double* row = a + i * columns;
    for (Index j = 0; j < columns; ++j) s[j] += row[j];
  }
}

void rdd_case(Index n) {
  const std::string name = "RDD-" + std::to_string(n);
  const int p = size(), r = rank();
  const auto count = static_cast<std::size_t>(n);
  const double bytes = static_cast<double>(count * sizeof(double));
  const double offrank = p > 1 ? bytes : 0.0;
  auto expected = [&](std::size_t j) { return column_sum(0, n, n, Index(j)); };

  {  // adlib
    adlib::ProcessGrid grid(adlib::Comm(comm()), {p, 1});
    adlib::DistArray<double, 2> a(grid, {adlib::block(n), adlib::block(n)});
    a.fill([&](const auto& g) { return static_cast<double>(g[0] * n + g[1]); });
    std::unique_ptr<adlib::DimensionReduction<double, 2>> sum;
    adlib::DistArray<double, 1> s =
        adlib::DistArray<double, 1>(grid, std::array<adlib::RangePtr, 1>{a.layout().range_ptr(1)});
    const Measurement setup = time_setup([&] {
      sum = std::make_unique<adlib::DimensionReduction<double, 2>>(a, 0);
      sum->sum(s, a);
    });
    report({name, "adlib:setup", "setup", setup, 0, 0,
            "constructor (agreement, offset tables, axis communicator) and first execution "
            "(builds the all-reduce)",
            false});
    double* out = s.local_view().data();
    const Measurement m = verified_time_op(
        [&] { poison(out, count); }, [&] { sum->sum(s, a); },
        [&](const char* phase) { verify(name, "adlib", phase, out, count, expected); });
    report({name, "adlib", "op", m, bytes, offrank,
            "local rows accumulated into the result row, RedxSchedule of N doubles"});
  }

  {  // mpi
    const Index lo = r * n / p, hi = (r + 1) * n / p, rows = hi - lo;
    std::vector<double> a(static_cast<std::size_t>(rows * n)), s(count);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < n; ++j)
        a[static_cast<std::size_t>(i * n + j)] = double((lo + i) * n + j);
    auto op = [&] {
      row_major_sums(a.data(), rows, n, s.data());
      MPI_Allreduce(MPI_IN_PLACE, s.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM, comm());
    };
    const Measurement m = verified_time_op(
        [&] { poison(s); }, op,
        [&](const char* phase) { verify(name, "mpi", phase, s.data(), count, expected); });
    report({name, "mpi", "op", m, bytes, offrank,
            "column sums with a row-major loop + MPI_Allreduce of N doubles"});
  }
}

void rdd_local_case(Index rows, Index columns) {
  const std::string name = "RDD-LOCAL-" + std::to_string(rows) + "x" + std::to_string(columns);
  const auto count = static_cast<std::size_t>(columns);
  const double bytes = static_cast<double>(rows * columns) * sizeof(double);
  auto expected = [&](std::size_t j) { return column_sum(0, rows, columns, Index(j)); };
  {  // adlib-local: a copy of the whole block on every rank, no communication
    adlib::ProcessGrid grid(adlib::Comm(comm()), {size()});
    adlib::DistArray<double, 2> a(grid, {adlib::collapsed(rows), adlib::collapsed(columns)});
    a.fill([&](const auto& g) { return static_cast<double>(g[0] * columns + g[1]); });
    adlib::DimensionReduction sum(a, 0);
    auto s = sum.make_result();
    double* out = s.local_view().data();
    const Measurement m = verified_time_op(
        [&] { poison(out, count); }, [&] { sum.sum(s, a); },
        [&](const char* phase) { verify(name, "adlib-local", phase, out, count, expected); });
    report({name, "adlib-local", "op", m, bytes, 0, "DimensionReduction's local loop alone"});
    // The plain loop over the same memory: where a block sits changes the
    // time of either loop by up to 25% on the 2-core VM.
    std::vector<double> t(count);
    const double* block = a.local_view().data();
    const Measurement same = verified_time_op(
        [&] { poison(t); }, [&] { row_major_sums(block, rows, columns, t.data()); },
        [&](const char* phase) {
          verify(name, "loop-same-memory", phase, t.data(), count, expected);
        });
    report({name, "loop-same-memory", "op", same, bytes, 0,
            "the plain loop over adlib-local's block"});
  }
  {  // loop
    std::vector<double> a(static_cast<std::size_t>(rows * columns)), s(count);
    for (Index i = 0; i < rows; ++i)
      for (Index j = 0; j < columns; ++j)
        a[static_cast<std::size_t>(i * columns + j)] = double(i * columns + j);
    const Measurement m = verified_time_op(
        [&] { poison(s); }, [&] { row_major_sums(a.data(), rows, columns, s.data()); },
        [&](const char* phase) { verify(name, "loop", phase, s.data(), count, expected); });
    report({name, "loop", "op", m, bytes, 0, "the plain row-major loop s[j] += a[i][j]"});
  }
}

}  // namespace

void register_reduction_dim_cases() {
  add_case("RDD-4096", [] { rdd_case(4096); });
  add_case("RDD-LOCAL-2048x4096", [] { rdd_local_case(2048, 4096); });
}

}  // namespace bench
