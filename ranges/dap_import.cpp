// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/dap_import.hpp>

#include <adlib/ranges/range_spec.hpp>
#include <adlib/ranges/unstructured_range.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib::dap {

namespace {

const char* const kOperation = "dap::import";

[[noreturn]] void refuse(int d, const std::string& why) {
  throw Error("dimension " + std::to_string(d) + ": " + why, -1, kOperation);
}

// The summary field `f` of dimension d at each grid coordinate along d.
std::vector<std::int64_t> along(const std::vector<Summary>& all, int d, Summary::Field f) {
  std::vector<std::int64_t> out(static_cast<size_t>(all.at(0).at(d, Summary::kGridSize)));
  std::vector<bool> seen(out.size(), false);
  for (const Summary& s : all) {
    const auto c = static_cast<size_t>(s.at(d, Summary::kGridRank));
    if (!seen[c]) out[c] = s.at(d, f), seen[c] = true;
  }
  return out;
}

// 'b': a block or irregular block, ghosted and periodic as the padding says.
RangeSpec block_spec(const std::vector<Summary>& all, int d) {
  const auto starts = along(all, d, Summary::kStart), stops = along(all, d, Summary::kStop);
  const auto lows = along(all, d, Summary::kPadLow), highs = along(all, d, Summary::kPadHigh);
  const auto p = static_cast<Index>(starts.size());
  const Index low = lows.front(), high = highs.back();
  for (Index c = 0; c < p; ++c)
    if ((c > 0 && lows[c] != low) || (c + 1 < p && highs[c] != high))
      refuse(d, "padding (" + std::to_string(lows[c]) + ", " + std::to_string(highs[c]) +
                    ") at grid rank " + std::to_string(c) +
                    " is valid DAP, but adlib's ghost "
                    "widths are the same on every process (here (" +
                    std::to_string(low) + ", " + std::to_string(high) + ") at the ends)");
  const Index n = all[0].at(d, Summary::kSize) - low - high;
  std::vector<Index> sizes;
  bool regular = n >= 0;
  for (Index c = 0; c < p; ++c) {
    sizes.push_back(stops[c] - starts[c] - low - high);
    if (sizes.back() < 0)
      refuse(d, "grid rank " + std::to_string(c) +
                    " holds its padding only, which adlib's "
                    "ghost cells cannot describe");
    regular = regular && starts[c] == c * n / p && sizes.back() == (c + 1) * n / p - c * n / p;
  }
  RangeSpec spec = regular ? block(n) : irregular_block(sizes);
  if (low || high) spec = spec.ghosts(low, high);
  if (all[0].at(d, Summary::kPeriodic)) spec = spec.periodic();
  return spec;
}

// 'c': cyclic or block-cyclic, the source from where the starts put tile 0.
RangeSpec cyclic_spec(const std::vector<Summary>& all, int d) {
  const auto starts = along(all, d, Summary::kStart);
  const Index n = all[0].at(d, Summary::kSize), given = all[0].at(d, Summary::kBlockSize);
  const Index b = std::max<Index>(given, 1), p = static_cast<Index>(starts.size());
  int source = 0;
  for (Index c = 0; c < p; ++c)
    if (starts[c] < n) {
      source = static_cast<int>(((c - starts[c] / b) % p + p) % p);
      break;
    }
  return given == 0 ? cyclic(n, source) : block_cyclic(n, b, source);
}

}  // namespace

std::vector<Summary> validate(const Descriptor& descriptor, const Comm& comm,
                              const std::string& local_error) {
  const int rank = comm.rank();
  std::string error = local_violation(descriptor, rank);
  if (error.empty()) error = local_error;
  agree_on_errors(comm, error, 0, kOperation);
  const Summary mine = summarize(descriptor);
  const int processes = comm.size();
  std::vector<long long> lengths(static_cast<size_t>(processes));
  long long length = static_cast<long long>(mine.values.size());
  ADLIB_MPI(MPI_Allgather(&length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, comm.get()),
            kOperation);
  // Compared with rank 0's, so that every rank names the same process.
  for (int r = 1; r < processes; ++r)
    if (lengths[r] != lengths[0]) {
      const int dims = static_cast<int>((lengths[r] - 3) / Summary::fields);
      throw Error("DAP rule 'dim_data length': rank " + std::to_string(r) + ": " +
                      std::to_string(dims) + " dimensions, rank 0 has " +
                      std::to_string((lengths[0] - 3) / Summary::fields),
                  -1, kOperation);
    }
  std::vector<long long> gathered(static_cast<size_t>(length * processes));
  ADLIB_MPI(MPI_Allgather(mine.values.data(), static_cast<int>(length), MPI_LONG_LONG,
                          gathered.data(), static_cast<int>(length), MPI_LONG_LONG, comm.get()),
            kOperation);
  std::vector<Summary> all(static_cast<size_t>(processes));
  for (int r = 0; r < processes; ++r)
    all[r].values.assign(gathered.begin() + r * length, gathered.begin() + (r + 1) * length);
  const std::string global = global_violation(all);
  if (!global.empty()) throw Error(global, -1, kOperation);
  return all;
}

ArrayLayout import_layout(const Descriptor& descriptor, const Comm& comm,
                          const std::string& local_error) {
  const std::vector<Summary> all = validate(descriptor, comm, local_error);
  const int dims = static_cast<int>(descriptor.dim_data.size());
  std::vector<int> shape;
  std::vector<int> axis_of(static_cast<size_t>(dims), -1);
  for (int d = 0; d < dims; ++d)
    if (!descriptor.dim_data[d].empty) {
      axis_of[d] = static_cast<int>(shape.size());
      shape.push_back(static_cast<int>(all[0].at(d, Summary::kGridSize)));
    }
  if (shape.empty()) shape.push_back(1);  // every dimension undistributed: one process
  const ProcessGrid grid(comm, shape);
  std::vector<RangePtr> ranges;
  for (int d = 0; d < dims; ++d) {
    const DimensionData dim = resolved(descriptor.dim_data[d], descriptor.buffer.shape[d]);
    if (axis_of[d] < 0) {
      ranges.push_back(collapsed(dim.size).make());
    } else if (dim.dist_type == 'b') {
      ranges.push_back(block_spec(all, d).on(grid.dim(axis_of[d])));
    } else if (dim.dist_type == 'c') {
      ranges.push_back(cyclic_spec(all, d).on(grid.dim(axis_of[d])));
    } else {
      ranges.push_back(std::make_shared<UnstructuredRange>(
          dim.size, grid.dim(axis_of[d]),
          std::vector<Index>(dim.indices.begin(), dim.indices.end()),
          dim.one_to_one.value_or(false) ? Holding::one_to_one : Holding::shared));
    }
  }
  return ArrayLayout(grid, ranges);
}

}  // namespace adlib::dap
