// SPDX-License-Identifier: BSD-3-Clause
// DataSchedule and BlockDataSchedule: remote access where only the
// requesting rank knows what it needs.  Every rank owns a 4 x 4 row-major
// matrix.  It reads two elements (one of them twice) and a column of its
// right neighbour's matrix, and adds a row of ones into rank 0's matrix.
// The owners are told once, when the schedules are built.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), p = comm.size(), right = (me + 1) % p;
  using Memory = Kokkos::HostSpace;

  // Element (i, j) of rank r's matrix holds 100 r + 4 i + j.
  std::vector<double> matrix(16);
  for (int k = 0; k < 16; ++k) matrix[k] = 100.0 * me + k;
  int wrong = 0;

  // Elements: {owner, offset in the owner's memory, offset in mine}.
  std::vector<adlib::ElementRequest> elements = {
      {right, 6, 0},  // the right neighbour's (1, 2)
      {right, 6, 1},  // the same element again: it travels once
      {me, 15, 2}};   // my own (3, 3): a local copy
  adlib::DataSchedule<Memory> fetch(comm, elements, adlib::RemoteAccess::read);
  std::vector<double> picked(3);
  fetch.execute_read(picked.data(), picked.size(), matrix.data(), matrix.size());
  // picked = {100 right + 6, 100 right + 6, 100 me + 15}; fetch.repeats() == 1

  if (picked[0] != 100.0 * right + 6 || picked[1] != picked[0] || picked[2] != 100.0 * me + 15 ||
      fetch.repeats() != 1)
    ++wrong;

  // Blocks: {owner, block in the owner's memory, block in mine}, equal counts.
  std::vector<adlib::BlockRequest> column = {
      {right, adlib::StridedBlock::make(2, {4}, {4}), adlib::StridedBlock::make(0, {4}, {1})}};
  adlib::BlockDataSchedule<Memory> read_column(comm, column, adlib::RemoteAccess::read);
  std::vector<double> column_2(4);
  read_column.execute_read(column_2.data(), column_2.size(), matrix.data(), matrix.size());
  // column_2 = the right neighbour's {2, 6, 10, 14} + 100 right

  for (int i = 0; i < 4; ++i)
    if (column_2[i] != 100.0 * right + 4 * i + 2) ++wrong;

  // A write: every rank adds a row of ones into row 3 of rank 0's matrix.
  std::vector<adlib::BlockRequest> row = {
      {0, adlib::StridedBlock::make(12, {4}, {1}), adlib::StridedBlock::make(0, {4}, {1})}};
  adlib::BlockDataSchedule<Memory> add_row(comm, row, adlib::RemoteAccess::write);
  std::vector<double> ones(4, 1.0);
  add_row.execute_write(matrix.data(), matrix.size(), ones.data(), ones.size(), adlib::op::add);
  // On rank 0, row 3 grew by p: one contribution per rank, its own first.

  for (int j = 0; j < 4; ++j)
    if (matrix[12 + j] != 100.0 * me + 12 + j + (me == 0 ? p : 0)) ++wrong;

  int total = 0;
  ADLIB_MPI(MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, comm.get()), "example");
  if (me == 0)
    std::printf("remote access on %d ranks: %s\n", p, total == 0 ? "every value right" : "WRONG");
  return total == 0 ? 0 : 1;
}
