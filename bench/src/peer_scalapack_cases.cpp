// SPDX-License-Identifier: BSD-3-Clause
// ScaLAPACK's peer line (bench/README.md, "Peer lines"): RM2-N, the 2-D
// remap between block-cyclic layouts, through pdgemr2d, ScaLAPACK's general
// redistribution of a distributed matrix, beside adlib's line of the same
// case (remap_cases.cpp).
//
//   scalapack-pdgemr2d  source on a BLACS P x 1 grid (blocks 64 x 64),
//                       destination on a 1 x P grid (blocks 16 x 16), both
//                       column-major with ScaLAPACK's descriptors;
//                       per operation one pdgemr2d_ over a third, 1 x P
//                       context that covers all processes
//
// Line order: scalapack-pdgemr2d:setup (the three BLACS grids and the two
// descriptors), scalapack-pdgemr2d.  pdgemr2d keeps no plan between calls:
// each call works out the block intersections and allocates its buffers
// again, which is part of its op time.
//
// BLACS gives every grid communicators of its own (created by
// Cblacs_gridinit from MPI_COMM_WORLD), so its messages cannot match the
// harness's or adlib's.  The grids are released at the end of the case,
// BLACS' own state (Cblacs_exit, MPI left running) before MPI_Finalize.
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common.hpp"
#include "peers.hpp"

// ScaLAPACK and BLACS ship no C header: their C entry points (Cblacs_*) and
// Fortran routines (trailing underscore, every argument by pointer, Fortran
// INTEGER = int), as libscalapack-openmpi exports them.
extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int process_rows, int process_columns);
void Cblacs_gridinfo(int context, int* process_rows, int* process_columns, int* my_row,
                     int* my_column);
void Cblacs_gridexit(int context);
void Cblacs_exit(int keep_mpi);
int numroc_(const int* extent, const int* block, const int* process, const int* source_process,
            const int* process_count);
void descinit_(int* descriptor, const int* rows, const int* columns, const int* row_block,
               const int* column_block, const int* source_row, const int* source_column,
               const int* context, const int* leading_dimension, int* info);
void pdgemr2d_(const int* rows, const int* columns, const double* a, const int* a_first_row,
               const int* a_first_column, const int* a_descriptor, double* b,
               const int* b_first_row, const int* b_first_column, const int* b_descriptor,
               const int* context);
}

namespace bench {

namespace {

using Index = std::int64_t;

// ScaLAPACK's array descriptor: 9 integers (DLEN_ = 9).
constexpr int kDescriptorLength = 9;

// One block-cyclic axis as the scenario fixes it: tiles of `block` dealt
// round-robin over `processes`, process 0 holding the first tile.  The
// reference the line is checked against, independent of ScaLAPACK.
struct BlockCyclicAxis {
  Index n, block;
  int processes;
  Index global(int q, Index l) const { return ((l / block) * processes + q) * block + l % block; }
  Index count(int q) const {
    const Index cycle = block * processes, full = n / cycle, rest = n % cycle;
    return full * block + std::min<Index>(std::max<Index>(rest - q * block, 0), block);
  }
};

[[noreturn]] void fail(const std::string& case_name, const std::string& what) {
  std::fprintf(stderr, "adlib_bench: %s scalapack-pdgemr2d: %s\n", case_name.c_str(), what.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();  // not reached: MPI_Abort does not return
}

// Cblacs_exit(1) once before MPI_Finalize, registered with the first grid.
void finish_blacs_at_exit() {
  static bool registered = false;
  if (registered) return;
  registered = true;
  at_finish([] { Cblacs_exit(1); });
}

// ---- RM2-N: 2-D block-cyclic rows (P x 1, 64) -> block-cyclic columns (1 x P, 16) ---------

void rm2_case(int n) {
  const std::string name = "RM2-" + std::to_string(n);
  const int p = size(), r = rank();
  const int row_block = 64, column_block = 16;
  const BlockCyclicAxis rows{n, row_block, p}, cols{n, column_block, p};
  const Index my_rows = rows.count(r), my_cols = cols.count(r);
  const auto n_src = static_cast<std::size_t>(my_rows * n);
  const auto n_dst = static_cast<std::size_t>(Index(n) * my_cols);
  const double bytes = static_cast<double>(n_dst * sizeof(double));
  const double offrank = static_cast<double>((n - my_rows) * my_cols * Index(sizeof(double)));
  auto value = [n](Index i, Index j) { return static_cast<double>(i * n + j); };

  // Column-major storage, as the scenario's and ScaLAPACK's: source (i, j)
  // at local_row(i) + j * my_rows, destination (i, j) at i + local_col(j) * N.
  std::vector<double> src(n_src), dst(n_dst);
  for (Index j = 0; j < n; ++j)
    for (Index lr = 0; lr < my_rows; ++lr)
      src[static_cast<std::size_t>(lr + j * my_rows)] = value(rows.global(r, lr), j);

  finish_blacs_at_exit();
  int rows_grid = -1, columns_grid = -1, all_grid = -1;
  int src_descriptor[kDescriptorLength], dst_descriptor[kDescriptorLength];
  const Measurement setup = time_setup([&] {
    // Each grid starts from the system context (MPI_COMM_WORLD; BLACS
    // numbers processes by their rank in it).
    Cblacs_get(-1, 0, &rows_grid);
    Cblacs_gridinit(&rows_grid, "Column-major", p, 1);
    Cblacs_get(-1, 0, &columns_grid);
    Cblacs_gridinit(&columns_grid, "Column-major", 1, p);
    Cblacs_get(-1, 0, &all_grid);
    Cblacs_gridinit(&all_grid, "Row-major", 1, p);
    const int zero = 0;
    int process_rows = 0, process_columns = 0, my_row = 0, my_column = 0;
    Cblacs_gridinfo(rows_grid, &process_rows, &process_columns, &my_row, &my_column);
    const int src_rows = numroc_(&n, &row_block, &my_row, &zero, &p);
    const int src_leading = std::max(1, src_rows);
    int info = 0;
    descinit_(src_descriptor, &n, &n, &row_block, &row_block, &zero, &zero, &rows_grid,
              &src_leading, &info);
    if (my_row != r || my_column != 0 || src_rows != my_rows || info != 0)
      fail(name, "the P x 1 grid or descriptor differs from the scenario's (row " +
                     std::to_string(my_row) + ", " + std::to_string(src_rows) +
                     " local rows, info " + std::to_string(info) + ")");
    Cblacs_gridinfo(columns_grid, &process_rows, &process_columns, &my_row, &my_column);
    const int dst_columns = numroc_(&n, &column_block, &my_column, &zero, &p);
    descinit_(dst_descriptor, &n, &n, &column_block, &column_block, &zero, &zero, &columns_grid, &n,
              &info);
    if (my_row != 0 || my_column != r || dst_columns != my_cols || info != 0)
      fail(name, "the 1 x P grid or descriptor differs from the scenario's (column " +
                     std::to_string(my_column) + ", " + std::to_string(dst_columns) +
                     " local columns, info " + std::to_string(info) + ")");
  });
  report({name, "scalapack-pdgemr2d:setup", "setup", setup, 0, 0,
          "Cblacs_gridinit of the P x 1, 1 x P and all-process grids, numroc_, descinit_ x 2",
          false});

  const int one = 1;
  const Measurement op = verified_time_op(
      [&] { poison(dst); },
      [&] {
        pdgemr2d_(&n, &n, src.data(), &one, &one, src_descriptor, dst.data(), &one, &one,
                  dst_descriptor, &all_grid);
      },
      [&](const char* phase) {
        verify(name, "scalapack-pdgemr2d", phase, dst.data(), n_dst, [&](std::size_t k) {
          const Index i = Index(k) % n, local_column = Index(k) / n;
          return value(i, cols.global(r, local_column));
        });
      });
  report({name, "scalapack-pdgemr2d", "op", op, bytes, offrank,
          "column-major storage; pdgemr2d_ over an all-process 1 x P context, which plans "
          "and allocates its buffers in every call"});

  Cblacs_gridexit(all_grid);
  Cblacs_gridexit(columns_grid);
  Cblacs_gridexit(rows_grid);
}

}  // namespace

void register_scalapack_cases() {
  add_case("RM2-4096", [] { rm2_case(4096); });
}

}  // namespace bench
