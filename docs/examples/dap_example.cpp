// SPDX-License-Identifier: BSD-3-Clause
// The Distributed Array Protocol: an adlib array described as a DAP
// descriptor (over its own memory), written as JSON and imported back; a
// padded buffer that another library owns imported without a copy, its
// padding filled by WriteHalo and its data remapped into a native array;
// padding that differs per process imported as the owned rows; a broken
// descriptor refused on every rank.  Every result is checked
// against the global indices; the exit code says whether all checks
// passed.  Runs at any number of ranks.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include <adlib/adlib.hpp>
#include <adlib/ranges/dap_json.hpp>

using adlib::Index;

// True on every rank when `wrong` is 0 everywhere (collective).
bool nowhere(long long wrong) {
  long long total = 0;
  MPI_Allreduce(&wrong, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total == 0;
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), p = comm.size();
  bool ok = true;

  // Export: an adlib array as this rank's DAP descriptor.  Rows in blocks
  // with one ghost row each side, columns cyclic: 'b' with padding, 'c'.
  adlib::ProcessGrid grid(comm, {p, 1});
  adlib::DistArray<double, 2> a(grid, {adlib::block(8).ghosts(1), adlib::cyclic(3)});
  a.fill([](auto g) { return double(10 * g[0] + g[1]); });
  const adlib::dap::Descriptor mine = adlib::dap::describe(a);
  if (me == 0) std::printf("rank 0 exports %s\n", adlib::dap::to_json(mine).c_str());
  ok = ok && mine.buffer.data == a.local_view().data();  // a's memory, not a copy

  // Import: the descriptor gives back the same layout over the same memory.
  auto b = adlib::dap::import_array<double, 2>(mine, comm);
  ok = ok && b.layout() == a.layout() && b.local_view().data() == a.local_view().data();

  // Memory that another library owns: each rank's rows with two padding rows
  // each side, described by hand as 'b' dimensions with padding (2, 2).
  const Index n = 5 * p, w = 2, columns = 4, rows = 5 + 2 * w;
  std::vector<double> memory(static_cast<size_t>(rows * columns), -1.0);
  for (Index i = w; i < w + 5; ++i)  // owned rows: global row 5 * me + i - w
    for (Index j = 0; j < columns; ++j) memory[i * columns + j] = double(10 * (5 * me + i - w) + j);
  adlib::dap::Descriptor theirs;
  theirs.buffer = {memory.data(), "d", 8, {rows, columns}, {8 * columns, 8}};
  adlib::dap::DimensionData row;
  row.dist_type = 'b';
  row.size = n + 2 * w;  // the end paddings are boundary padding: they count
  row.proc_grid_size = p;
  row.proc_grid_rank = me;
  row.start = 5 * me;  // in DAP indices, adlib's + w
  row.stop = 5 * me + rows;
  row.padding = std::array<std::int64_t, 2>{w, w};
  row.periodic = true;
  theirs.dim_data = {row, adlib::dap::DimensionData::undistributed()};

  auto c = adlib::dap::import_array<double, 2>(theirs, comm);  // no copy
  adlib::WriteHalo halo(c);
  halo.execute(c);  // the padding rows now hold the neighbours' rows
  adlib::DistArray<double, 2> native(grid, {adlib::cyclic(n), adlib::collapsed(columns)});
  adlib::remap(native, c);

  long long wrong = 0;
  for (Index i = 0; i < rows; ++i) {
    const Index g = ((5 * me + i - w) % n + n) % n;  // periodic
    for (Index j = 0; j < columns; ++j) wrong += memory[i * columns + j] != double(10 * g + j);
  }
  native.host_mirror().for_each_local(
      [&](const auto& g, double v) { wrong += v != double(10 * g[0] + g[1]); });
  ok = nowhere(wrong) && ok;

  // Padding that differs from process to process: 1 or 2 rows towards each
  // neighbour, 2 boundary rows at the low end.  No pair of ghost widths
  // holds it, so the imported array is the rows each process owns (3 per
  // rank), its data pointer past the low padding; the padding stays ours.
  const Index owned = 3, edge = 2;
  const auto between = [](Index c) { return 1 + c % 2; };  // at the boundary of c and c + 1
  const Index low = me == 0 ? edge : between(me - 1), high = me == p - 1 ? 0 : between(me);
  std::vector<double> strip(static_cast<size_t>((low + owned + high) * columns), -1.0);
  for (Index i = 0; i < owned; ++i)  // owned rows: global row owned * me + i
    for (Index j = 0; j < columns; ++j)
      strip[(low + i) * columns + j] = double(10 * (owned * me + i) + j);
  adlib::dap::Descriptor uneven;
  uneven.buffer = {strip.data(), "d", 8, {low + owned + high, columns}, {8 * columns, 8}};
  adlib::dap::DimensionData part;
  part.dist_type = 'b';
  part.size = edge + owned * p;  // the boundary padding counts
  part.proc_grid_size = p;
  part.proc_grid_rank = me;
  part.start = edge + owned * me - low;  // DAP index of the buffer's first row
  part.stop = edge + owned * me + owned + high;
  part.padding = std::array<std::int64_t, 2>{low, high};
  uneven.dim_data = {part, adlib::dap::DimensionData::undistributed()};

  auto u = adlib::dap::import_array<double, 2>(uneven, comm);  // no copy, no ghosts
  adlib::DistArray<double, 2> strips(grid, {adlib::cyclic(owned * p), adlib::collapsed(columns)});
  adlib::remap(strips, u);

  wrong = 0;
  strips.host_mirror().for_each_local(
      [&](const auto& g, double v) { wrong += v != double(10 * g[0] + g[1]); });
  if (p > 1)  // over one process any padding is a pair of ghost widths
    wrong += u.local_view().data() != strip.data() + low * columns;
  ok = nowhere(wrong) && ok;

  // A broken descriptor: every rank throws the same adlib::Error, which
  // names the rule, the dimension and the rank.
  adlib::dap::Descriptor broken = theirs;
  if (me == p - 1) broken.dim_data[0].stop += 1;
  try {
    adlib::dap::import_array<double, 2>(broken, comm);
    ok = false;
  } catch (const adlib::Error& e) {
    if (me == 0) std::printf("import refused: %s\n", e.what());
  }

  int all_ok = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all_ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (me == 0) std::printf("DAP example: %s\n", every ? "all checks passed" : "FAILED");
  return every ? 0 : 1;
}
