// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/print_layout.hpp>

#include <cstddef>
#include <ostream>
#include <vector>

#include <adlib/collectives/array_text.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/detail/hash.hpp>

namespace adlib {

namespace {

/// "a/b/c", or the first two and "+k" for k more when there are over four.
std::string join_ranks(const std::vector<int>& ranks, long long total) {
  if (ranks.empty()) return ".";
  std::string text;
  const std::size_t listed = total > 4 ? 2 : ranks.size();
  for (std::size_t k = 0; k < listed; ++k) text += (k ? "/" : "") + std::to_string(ranks[k]);
  if (total > 4) text += "/+" + std::to_string(total - 2);
  return text;
}

/// The ranks holding the element whose owner coordinates are `coords`.
std::string holders(const ArrayLayout& layout, const std::vector<int>& coords) {
  const long long total = layout.replica_count();
  std::vector<int> ranks;
  for (long long k = 0; k < total && k < (total > 4 ? 2 : 4); ++k)
    ranks.push_back(layout.replica(coords, k));
  return join_ranks(ranks, total);
}

/// Does coordinate `c` of the contiguous range `r` hold a ghost copy of `g`?
bool holds_ghost_copy(const Range& r, int c, Index g) {
  if (r.local_count(c) == 0) return false;
  const Interval own = r.owned_interval(c);
  const Index n = r.extent();
  if (r.periodic()) {
    // Distances below the interval's start and past its end, modulo n (a
    // ghost zone wider than n wraps more than once).
    Index below = ((own.begin - g) % n + n) % n;
    if (below == 0) below = n;
    const Index above = ((g - own.end) % n + n) % n;
    return below <= r.ghost_low() || above < r.ghost_high();
  }
  return (g >= own.begin - r.ghost_low() && g < own.begin) ||
         (g >= own.end && g < own.end + r.ghost_high());
}

/// The ranks holding a ghost copy of index `g` of the 1-D `layout`.
std::string ghost_holders(const ArrayLayout& layout, Index g) {
  const Range& r = layout.range(0);
  std::vector<int> ranks;
  long long total = 0;
  for (int c = 0; c < r.process_count(); ++c) {
    if (!holds_ghost_copy(r, c, g)) continue;
    for (long long k = 0; k < layout.replica_count(); ++k, ++total)
      if (ranks.size() < 4) ranks.push_back(layout.replica({c}, k));
  }
  return join_ranks(ranks, total);
}

}  // namespace

std::string layout_to_string(const ArrayLayout& layout, const PrintOptions& options) {
  const ProcessGrid& grid = layout.group().grid();
  bool writes = true;
  if (grid.has_comm()) {
    const Comm& comm = grid.comm();
    agree_on_errors(
        comm, detail::print_options_error(options, comm.size()),
        detail::hash_mix(layout.fingerprint(), detail::print_options_fingerprint(options)),
        "adlib::print_layout");
    writes = comm.rank() == options.root;
  } else {
    PrintOptions any_root = options;
    any_root.root = 0;
    const std::string error = detail::print_options_error(any_root, 1);
    if (!error.empty()) throw Error(error, -1, "adlib::print_layout");
  }

  const std::vector<Index> shape = layout.shape();
  const std::vector<std::vector<ShownRun>> runs = shown_runs(shape, options);
  const int rank = layout.rank();
  // The owner of each shown index, per dimension (Range::locate: collective
  // for an unstructured range, so every rank asks, for the same indices).
  std::vector<std::vector<Owner>> owners(rank);
  std::vector<std::vector<Index>> globals(rank);
  for (int d = 0; d < rank; ++d) {
    const Triplet& section = layout.section_triplet(d);
    for (const ShownRun& run : runs[d])
      for (Index p = run.first; p < run.first + run.count; ++p)
        globals[d].push_back(section.lo + p * section.stride);
    owners[d] = layout.range(d).locate(globals[d]);
  }
  if (!writes) return {};

  const std::string title = options.name.empty() ? layout.describe_distribution() : options.name;
  std::string ghost_note;
  for (int d = 0; rank > 1 && d < rank; ++d) {
    const Range& r = layout.range(d);
    if (r.ghost_low() == 0 && r.ghost_high() == 0) continue;
    ghost_note += "ghosts (not drawn): dimension " + std::to_string(d) + " low " +
                  std::to_string(r.ghost_low()) + " high " + std::to_string(r.ghost_high()) +
                  (r.periodic() ? " periodic" : "") + "\n";
  }

  const auto coords_of = [&owners, rank](const std::vector<Index>& shown) {
    std::vector<int> coords(rank);
    for (int d = 0; d < rank; ++d) coords[d] = owners[d][shown[d]].coord;
    return coords;
  };
  std::vector<CellSeries> series(1);
  if (options.layout_cells == LayoutCells::ranks) {
    series[0].label = "rank";
    series[0].cell = [&](const std::vector<Index>&, const std::vector<Index>& shown) {
      return holders(layout, coords_of(shown));
    };
  } else {
    series[0].label = "coordinate";
    series[0].cell = [&](const std::vector<Index>&, const std::vector<Index>& shown) {
      const std::vector<int> coords = coords_of(shown);
      if (rank == 1) return std::to_string(coords[0]);
      std::string text = "(";
      for (int d = 0; d < rank; ++d) text += (d ? "," : "") + std::to_string(coords[d]);
      return text + ")";
    };
  }
  if (rank == 1) {
    series.push_back(
        CellSeries{"local", [&](const std::vector<Index>&, const std::vector<Index>& shown) {
                     return std::to_string(owners[0][shown[0]].local);
                   }});
    const Range& r = layout.range(0);
    if (r.ghost_low() > 0 || r.ghost_high() > 0)
      series.push_back(
          CellSeries{"ghosts", [&](const std::vector<Index>&, const std::vector<Index>& shown) {
                       return ghost_holders(layout, globals[0][shown[0]]);
                     }});
  }
  std::string text = format_array_text(shape, runs, series, title, options);
  return text.insert(text.find('\n') + 1, ghost_note);
}

void print_layout(const ArrayLayout& layout, const PrintOptions& options) {
  const std::string text = layout_to_string(layout, options);
  if (!text.empty()) *options.stream << text << std::flush;
}

}  // namespace adlib
