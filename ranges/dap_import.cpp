// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/dap_import.hpp>

#include <adlib/ranges/dap_block_padding.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/ranges/unstructured_range.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib::dap {

namespace {

const char* const kOperation = "dap::import";

// The summary field `f` of dimension d at each grid coordinate along d: the
// lowest rank's at the coordinate (processes at one coordinate may differ
// only in their boundary padding, and adlib's domain is one interval, so
// the lowest rank's boundary padding is the dimension's).
std::vector<std::int64_t> along(const std::vector<Summary>& all, int d, Summary::Field f) {
  std::vector<std::int64_t> out(static_cast<size_t>(all.at(0).at(d, Summary::kGridSize)));
  std::vector<bool> seen(out.size(), false);
  for (const Summary& s : all) {
    const auto c = static_cast<size_t>(s.at(d, Summary::kGridRank));
    if (!seen[c]) out[c] = s.at(d, f), seen[c] = true;
  }
  return out;
}

// 'b': the dictionaries along dimension d, for the padding rule of
// dap_block_padding.hpp.
BlockDimension block_dimension(const std::vector<Summary>& all, int d) {
  BlockDimension b;
  b.size = all[0].at(d, Summary::kSize);
  b.periodic = all[0].at(d, Summary::kPeriodic) != 0;
  b.start = along(all, d, Summary::kStart);
  b.stop = along(all, d, Summary::kStop);
  b.padding_low = along(all, d, Summary::kPadLow);
  b.padding_high = along(all, d, Summary::kPadHigh);
  return b;
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

ImportedLayout import_layout(const Descriptor& descriptor, const Comm& comm,
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
  std::vector<Index> buffer_offset(static_cast<size_t>(dims), 0);
  for (int d = 0; d < dims; ++d) {
    const DimensionData dim = resolved(descriptor.dim_data[d], descriptor.buffer.shape[d]);
    if (axis_of[d] < 0) {
      ranges.push_back(collapsed(dim.size).make());
    } else if (dim.dist_type == 'b') {
      const ImportedBlock block = import_block(block_dimension(all, d));
      ranges.push_back(block.range.on(grid.dim(axis_of[d])));
      buffer_offset[d] = block.buffer_offset[static_cast<size_t>(dim.proc_grid_rank)];
    } else if (dim.dist_type == 'c') {
      ranges.push_back(cyclic_spec(all, d).on(grid.dim(axis_of[d])));
    } else {
      ranges.push_back(std::make_shared<UnstructuredRange>(
          dim.size, grid.dim(axis_of[d]),
          std::vector<Index>(dim.indices.begin(), dim.indices.end()),
          dim.one_to_one.value_or(false) ? Holding::one_to_one : Holding::shared));
    }
  }
  return {ArrayLayout(grid, ranges), buffer_offset};
}

}  // namespace adlib::dap
