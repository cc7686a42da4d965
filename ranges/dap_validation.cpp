// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/dap_validation.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <unordered_set>

namespace adlib::dap {

namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

std::string violation(const std::string& rule, int d, int rank, const std::string& detail) {
  std::string s = "DAP rule '" + rule + "': ";
  if (d >= 0) s += "dimension " + std::to_string(d) + ", ";
  return s + "rank " + std::to_string(rank) + ": " + detail;
}

std::uint64_t hash_text(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::uint64_t hash_indices(const std::vector<std::int64_t>& indices) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::int64_t v : indices) h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ull;
  return h;
}

std::string dimension_violation(const DimensionData& d, std::int64_t extent, int dim, int rank) {
  const auto bad = [&](const char* rule, const std::string& detail) {
    return violation(rule, dim, rank, detail);
  };
  if (d.dist_type != 'b' && d.dist_type != 'c' && d.dist_type != 'u')
    return bad("dist_type", "'" + std::string(1, d.dist_type) + "' is none of 'b', 'c', 'u'");
  if (d.size < 0) return bad("size", "size " + str(d.size) + " is negative");
  if (d.proc_grid_size < 1)
    return bad("proc_grid_size", "proc_grid_size " + str(d.proc_grid_size) + " is below 1");
  if (d.proc_grid_rank < 0 || d.proc_grid_rank >= d.proc_grid_size)
    return bad("proc_grid_rank", "proc_grid_rank " + str(d.proc_grid_rank) + " outside 0.." +
                                     str(d.proc_grid_size - 1));
  if (d.dist_type == 'b') {
    if (d.start < 0) return bad("block start", "start " + str(d.start) + " is negative");
    if (d.stop < d.start || d.stop > d.size)
      return bad("block stop", "stop " + str(d.stop) + " outside start.." + "size (" +
                                   str(d.start) + ".." + str(d.size) + ")");
    if (d.stop - d.start != extent)
      return bad("buffer shape", "stop - start = " + str(d.stop - d.start) +
                                     " differs from the buffer's extent " + str(extent));
    const auto pad = d.padding_or_zero();
    if (pad[0] < 0 || pad[1] < 0)
      return bad("padding", "padding (" + str(pad[0]) + ", " + str(pad[1]) + ") is negative");
    if (pad[0] > d.stop - d.start || pad[1] > d.stop - d.start - pad[0])
      return bad("padding", "padding (" + str(pad[0]) + ", " + str(pad[1]) +
                                ") does not fit in the buffer's " + str(d.stop - d.start) +
                                " elements");
  } else if (d.dist_type == 'c') {
    const std::int64_t b = d.block_size.value_or(1);
    if (b < 1) return bad("block_size", "block_size " + str(b) + " is below 1");
    if (d.start < 0 || d.start > d.size)
      return bad("cyclic start", "start " + str(d.start) + " outside 0.." + str(d.size));
    if (d.start < d.size && d.start % b != 0)
      return bad("cyclic start",
                 "start " + str(d.start) + " is not a multiple of block_size " + str(b));
    if (num_owned_indices(d) != extent)
      return bad("buffer shape", "the " + str(num_owned_indices(d)) +
                                     " indices dealt to this process differ from the buffer's "
                                     "extent " +
                                     str(extent));
  } else {
    if (static_cast<std::int64_t>(d.indices.size()) != extent)
      return bad("buffer shape", str(static_cast<std::int64_t>(d.indices.size())) +
                                     " indices for a buffer extent of " + str(extent));
    std::unordered_set<std::int64_t> seen;
    for (std::int64_t g : d.indices)
      if (!seen.insert(g).second)
        return bad("unique indices", "global index " + str(g) + " appears twice in indices");
  }
  return {};
}

}  // namespace

bool format_matches(const std::string& format, std::int64_t itemsize, const std::string& expected,
                    std::int64_t expected_itemsize) {
  if (itemsize != expected_itemsize) return false;
  std::string f = format;
  if (!f.empty() && (f[0] == '@' || f[0] == '=' || f[0] == '<')) f.erase(0, 1);
  if (f == expected) return true;
  const auto integer_class = [](const std::string& s) -> int {
    if (s.size() != 1) return 0;
    if (std::string("bhilq").find(s[0]) != std::string::npos) return 1;  // signed
    if (std::string("BHILQ").find(s[0]) != std::string::npos) return 2;  // unsigned
    return 0;
  };
  return integer_class(f) != 0 && integer_class(f) == integer_class(expected);
}

int major_version(const std::string& version) {
  // major.minor.patch, each a non-empty run of digits.
  int parts = 0;
  size_t digits = 0;
  long major = -1, value = 0;
  for (char c : version) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (++digits > 6) return -1;
      value = value * 10 + (c - '0');
    } else if (c == '.') {
      if (digits == 0) return -1;
      if (parts == 0) major = value;
      ++parts;
      digits = 0;
      value = 0;
    } else {
      return -1;
    }
  }
  if (digits == 0 || parts != 2) return -1;
  return static_cast<int>(major);
}

std::string local_violation(const Descriptor& descriptor, int rank) {
  const int ours = major_version(protocol_version);
  const int theirs = major_version(descriptor.version);
  if (theirs != ours)
    return violation("version", -1, rank,
                     "version '" + descriptor.version + "' is not " + std::to_string(ours) +
                         ".minor.patch (major versions may be incompatible)");
  const Buffer& b = descriptor.buffer;
  if (b.itemsize < 1 || b.format.empty())
    return violation("buffer format", -1, rank,
                     "format '" + b.format + "' with itemsize " + str(b.itemsize));
  if (b.strides.size() != b.shape.size())
    return violation("buffer shape", -1, rank,
                     str(static_cast<std::int64_t>(b.shape.size())) + " extents but " +
                         str(static_cast<std::int64_t>(b.strides.size())) + " strides");
  if (descriptor.dim_data.size() != b.shape.size())
    return violation("dim_data length", -1, rank,
                     str(static_cast<std::int64_t>(descriptor.dim_data.size())) +
                         " dimension dictionaries for a buffer of " +
                         str(static_cast<std::int64_t>(b.shape.size())) + " dimensions");
  for (size_t d = 0; d < b.shape.size(); ++d) {
    if (b.shape[d] < 0)
      return violation("buffer shape", static_cast<int>(d), rank,
                       "negative extent " + str(b.shape[d]));
    const std::string e = dimension_violation(resolved(descriptor.dim_data[d], b.shape[d]),
                                              b.shape[d], static_cast<int>(d), rank);
    if (!e.empty()) return e;
  }
  return {};
}

Summary summarize(const Descriptor& descriptor) {
  Summary s;
  const int dims = static_cast<int>(descriptor.dim_data.size());
  s.values.assign(3 + static_cast<size_t>(dims) * Summary::fields, 0);
  s.values[0] = dims;
  s.values[1] = descriptor.buffer.itemsize;
  std::string format = descriptor.buffer.format;
  if (!format.empty() && (format[0] == '@' || format[0] == '=' || format[0] == '<'))
    format.erase(0, 1);
  s.values[2] = static_cast<std::int64_t>(hash_text(format));
  for (int d = 0; d < dims; ++d) {
    const std::int64_t extent =
        d < static_cast<int>(descriptor.buffer.shape.size()) ? descriptor.buffer.shape[d] : 0;
    const DimensionData r = resolved(descriptor.dim_data[d], extent);
    std::int64_t* f = &s.values[3 + static_cast<size_t>(d) * Summary::fields];
    const auto pad = r.padding_or_zero();
    f[Summary::kEmpty] = descriptor.dim_data[d].empty;
    f[Summary::kDistType] = r.dist_type;
    f[Summary::kSize] = r.size;
    f[Summary::kGridSize] = r.proc_grid_size;
    f[Summary::kGridRank] = r.proc_grid_rank;
    f[Summary::kStart] = r.start;
    f[Summary::kStop] = r.stop;
    f[Summary::kPadLow] = pad[0];
    f[Summary::kPadHigh] = pad[1];
    f[Summary::kPeriodic] = r.periodic.value_or(false);
    f[Summary::kBlockSize] = r.block_size.value_or(0);
    f[Summary::kOneToOne] = r.one_to_one.value_or(false);
    f[Summary::kOwned] = num_owned_indices(r);
    f[Summary::kIndicesHash] = static_cast<std::int64_t>(hash_indices(r.indices));
  }
  return s;
}

std::string global_violation(const std::vector<Summary>& per_rank) {
  const int processes = static_cast<int>(per_rank.size());
  if (processes == 0) return {};
  const Summary& first = per_rank[0];
  const int dims = first.dimensions();
  for (int r = 1; r < processes; ++r) {
    if (per_rank[r].dimensions() != dims)
      return violation("dim_data length", -1, r,
                       std::to_string(per_rank[r].dimensions()) + " dimensions, rank 0 has " +
                           std::to_string(dims));
    if (per_rank[r].values[1] != first.values[1] || per_rank[r].values[2] != first.values[2])
      return violation("element type", -1, r,
                       "the buffer's format or itemsize differs from rank 0's");
  }
  // Keys that describe the whole dimension, the same on every process.
  static const std::pair<int, const char*> whole[] = {
      {Summary::kEmpty, "the empty-dictionary alias"},
      {Summary::kDistType, "dist_type"},
      {Summary::kSize, "size"},
      {Summary::kGridSize, "proc_grid_size"},
      {Summary::kPeriodic, "periodic"},
      {Summary::kBlockSize, "block_size"},
      {Summary::kOneToOne, "one_to_one"}};
  for (int d = 0; d < dims; ++d)
    for (int r = 1; r < processes; ++r)
      for (const auto& [field, name] : whole)
        if (per_rank[r].at(d, field) != first.at(d, field))
          return violation("dimension agreement", d, r,
                           std::string(name) + " " + str(per_rank[r].at(d, field)) +
                               " differs from rank 0's " + str(first.at(d, field)));
  std::int64_t product = 1;  // stops growing past the process count: no overflow
  for (int d = 0; d < dims; ++d) {
    const std::int64_t g = first.at(d, Summary::kGridSize);
    product = product > processes || g > processes ? processes + 1 : product * g;
  }
  if (product != processes)
    return violation(
        "proc_grid_size product", -1, 0,
        "the product of proc_grid_size over the dimensions is " +
            (product > processes ? "above " + std::to_string(processes) : str(product)) +
            ", not the process count " + std::to_string(processes));
  for (int r = 0; r < processes; ++r) {
    std::int64_t position = 0;
    for (int d = 0; d < dims; ++d)
      position = position * first.at(d, Summary::kGridSize) + per_rank[r].at(d, Summary::kGridRank);
    if (position != r)
      return violation("process grid order", -1, r,
                       "proc_grid_rank values give grid position " + str(position) +
                           " in C order, not this rank");
  }
  for (int d = 0; d < dims; ++d) {
    const std::int64_t grid = first.at(d, Summary::kGridSize);
    // The first rank at each coordinate of dimension d stands for it.
    std::vector<int> at(static_cast<size_t>(grid), -1);
    for (int r = 0; r < processes; ++r) {
      const auto c = static_cast<size_t>(per_rank[r].at(d, Summary::kGridRank));
      if (at[c] < 0) {
        at[c] = r;
        continue;
      }
      const Summary& ref = per_rank[at[c]];
      for (int field : {Summary::kStart, Summary::kStop, Summary::kOwned, Summary::kIndicesHash,
                        Summary::kPadLow, Summary::kPadHigh}) {
        // The padding towards the domain's boundary may differ (the spec's exception).
        if ((field == Summary::kPadLow && c == 0) ||
            (field == Summary::kPadHigh && c == static_cast<size_t>(grid - 1)))
          continue;
        if (per_rank[r].at(d, field) != ref.at(d, field))
          return violation("identical dim_data along an axis", d, r,
                           "its dictionary differs from that of rank " + std::to_string(at[c]) +
                               " at the same proc_grid_rank " + str(static_cast<std::int64_t>(c)));
      }
    }
    const auto key = [&](std::int64_t c, int field) { return per_rank[at[c]].at(d, field); };
    const char type = static_cast<char>(first.at(d, Summary::kDistType));
    const std::int64_t size = first.at(d, Summary::kSize);
    std::int64_t owned = 0;
    for (std::int64_t c = 0; c < grid; ++c)  // saturating: hostile sizes must not overflow
      if (__builtin_add_overflow(owned, key(c, Summary::kOwned), &owned)) owned = INT64_MAX;
    if (type == 'b') {
      if (key(0, Summary::kStart) != 0)
        return violation("block coverage", d, at[0],
                         "grid rank 0 starts at " + str(key(0, Summary::kStart)) + ", not 0");
      for (std::int64_t c = 0; c + 1 < grid; ++c) {
        const int r = at[c + 1];
        const std::int64_t right = key(c, Summary::kPadHigh), left = key(c + 1, Summary::kPadLow);
        if (right != left)
          return violation("communication padding", d, r,
                           "left padding " + str(left) + " differs from the right padding " +
                               str(right) + " of grid rank " + str(c));
        if (key(c + 1, Summary::kStart) != key(c, Summary::kStop) - right - left)
          return violation("adjacent block ranges", d, r,
                           "start " + str(key(c + 1, Summary::kStart)) + ", but grid rank " +
                               str(c) + " stops at " + str(key(c, Summary::kStop)) +
                               " with communication padding " + str(right) + " + " + str(left));
        if (left > key(c, Summary::kOwned) || right > key(c + 1, Summary::kOwned))
          return violation("communication padding width", d, r,
                           "padding " + str(left) + " wider than the " +
                               str(std::min(key(c, Summary::kOwned), key(c + 1, Summary::kOwned))) +
                               " indices owned by a neighbour");
      }
      if (key(grid - 1, Summary::kStop) != size)
        return violation("block coverage", d, at[grid - 1],
                         "the last grid rank stops at " + str(key(grid - 1, Summary::kStop)) +
                             ", not at size " + str(size));
    } else if (type == 'c') {
      const std::int64_t b = std::max<std::int64_t>(first.at(d, Summary::kBlockSize), 1);
      std::int64_t source = 0;
      for (std::int64_t c = 0; c < grid; ++c)
        if (key(c, Summary::kStart) < size) {
          source = ((c - key(c, Summary::kStart) / b) % grid + grid) % grid;
          break;
        }
      for (std::int64_t c = 0; c < grid; ++c) {
        const std::int64_t tile = (c - source + grid) % grid;
        const std::int64_t expected = tile > size / b ? size : std::min(tile * b, size);
        if (key(c, Summary::kStart) != expected)
          return violation("cyclic start", d, at[c],
                           "start " + str(key(c, Summary::kStart)) +
                               ", but tiles dealt round-robin " + "from grid rank " + str(source) +
                               " put it at " + str(expected));
      }
    }
    if ((type != 'u' || first.at(d, Summary::kOneToOne)) && owned != size)
      return violation(
          "size consistency", d, 0,
          "size " + str(size) + ", but the processes own " + str(owned) + " indices along it");
  }
  return {};
}

std::string first_violation(const std::vector<Descriptor>& per_rank) {
  std::vector<Summary> summaries;
  for (size_t r = 0; r < per_rank.size(); ++r) {
    const std::string e = local_violation(per_rank[r], static_cast<int>(r));
    if (!e.empty()) return e;
    summaries.push_back(summarize(per_rank[r]));
  }
  return global_violation(summaries);
}

}  // namespace adlib::dap
