// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/array_text.hpp>

#include <adlib/ranges/array_layout.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <limits>
#include <sstream>

namespace adlib {

std::vector<std::vector<ShownRun>> shown_runs(const std::vector<Index>& shape,
                                              const PrintOptions& options) {
  // The element count saturates rather than overflows: 10^6 x 10^6 x 10^7 is
  // simply "more than the threshold".
  Index size = 1;
  for (Index e : shape) {
    if (e == 0) {
      size = 0;
      break;
    }
    size =
        size > std::numeric_limits<Index>::max() / e ? std::numeric_limits<Index>::max() : size * e;
  }
  const bool summarise = size > options.threshold;
  std::vector<std::vector<ShownRun>> runs(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    const Index e = shape[d];
    if (e == 0) continue;
    if (summarise && e > 2 * options.edge_items)
      runs[d] = {{0, options.edge_items}, {e - options.edge_items, options.edge_items}};
    else
      runs[d] = {{0, e}};
  }
  return runs;
}

Index shown_count(const std::vector<ShownRun>& runs) {
  Index n = 0;
  for (const ShownRun& r : runs) n += r.count;
  return n;
}

namespace detail {

std::string format_floating(double value, const PrintOptions& options) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::ostringstream text;
  text.imbue(std::locale::classic());  // the same digits whatever the global locale
  if (options.fixed) text << std::fixed;
  text << std::setprecision(options.precision) << value;
  return text.str();
}

std::string print_options_error(const PrintOptions& options, int ranks) {
  if (options.root < 0 || options.root >= ranks)
    return "root " + std::to_string(options.root) + " is not a rank of the array's communicator (" +
           std::to_string(ranks) + " ranks)";
  if (options.threshold < 0)
    return "threshold " + std::to_string(options.threshold) + " is negative";
  if (options.edge_items < 1)
    return "edge_items " + std::to_string(options.edge_items) + ": at least 1 index is kept";
  if (options.precision < 0 || options.precision > 40)
    return "precision " + std::to_string(options.precision) + " is outside 0..40";
  if (options.width < 0) return "width " + std::to_string(options.width) + " is negative";
  return {};
}

std::uint64_t print_options_fingerprint(const PrintOptions& options) {
  return fingerprint_of(
      options.name + "|" + std::to_string(options.root) + "|" + std::to_string(options.threshold) +
      "|" + std::to_string(options.edge_items) + "|" + std::to_string(options.precision) + "|" +
      std::to_string(options.fixed) + "|" + std::to_string(options.width) + "|" +
      std::to_string(options.index_labels) + "|" + std::to_string(options.line_width) + "|" +
      std::to_string(static_cast<int>(options.layout_cells)));
}

}  // namespace detail

namespace {

/// One shown index of a dimension, or the "..." between the runs.
struct Entry {
  bool gap = false;
  Index position = 0;  ///< position in the array
  Index shown = 0;     ///< place among the shown positions
};

std::vector<Entry> entries_of(const std::vector<ShownRun>& runs) {
  std::vector<Entry> out;
  Index shown = 0;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    if (r > 0) out.push_back(Entry{true, 0, 0});
    for (Index k = 0; k < runs[r].count; ++k)
      out.push_back(Entry{false, runs[r].first + k, shown++});
  }
  return out;
}

std::string pad_left(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}
void append_line(std::string& out, std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  out += line + "\n";
}

/// A table of already formatted cells: `columns` (a header label each, ""
/// for the gap column) over `rows` (a label each and one cell per column; a
/// gap row has no cells).
struct Table {
  std::vector<std::string> column_labels;
  std::vector<std::string> row_labels;
  std::vector<std::vector<std::string>> cells;  ///< empty for a gap row
  bool header = false;
  bool labels_right_aligned = true;
};

void render(const Table& t, const PrintOptions& options, std::string& out) {
  std::size_t cell_width = static_cast<std::size_t>(std::max(options.width, 0));
  for (const auto& row : t.cells)
    for (const std::string& c : row) cell_width = std::max(cell_width, c.size());
  if (t.header)
    for (const std::string& c : t.column_labels) cell_width = std::max(cell_width, c.size());
  // Gap rows read "..." in the label column, or alone when there is none.
  std::size_t label_width = 0;
  bool gap_rows = false;
  for (std::size_t r = 0; r < t.cells.size(); ++r) {
    if (t.cells[r].empty())
      gap_rows = true;
    else
      label_width = std::max(label_width, t.row_labels[r].size());
  }
  if (label_width > 0 && gap_rows) label_width = std::max<std::size_t>(label_width, 3);
  const std::size_t lead = label_width > 0 ? label_width + 2 : 0;
  const std::size_t columns = t.column_labels.size();
  const std::size_t room = static_cast<std::size_t>(std::max(options.line_width, 0)) > lead
                               ? static_cast<std::size_t>(options.line_width) - lead
                               : 0;
  const std::size_t per_block = std::max<std::size_t>(1, (room + 1) / (cell_width + 1));
  const auto label = [&](const std::string& l) {
    if (lead == 0) return std::string();
    return (t.labels_right_aligned ? pad_left(l, label_width) : pad_right(l, label_width)) + "  ";
  };
  for (std::size_t first = 0; first < columns; first += per_block) {
    const std::size_t last = std::min(columns, first + per_block);
    if (first > 0) out += "\n";
    if (t.header) {
      std::string line = label("");
      for (std::size_t c = first; c < last; ++c)
        line += (c > first ? " " : "") + pad_left(t.column_labels[c], cell_width);
      append_line(out, line);
    }
    for (std::size_t r = 0; r < t.cells.size(); ++r) {
      if (t.cells[r].empty()) {
        append_line(out, lead == 0 ? std::string("...") : label(t.row_labels[r]));
        continue;
      }
      std::string line = label(t.row_labels[r]);
      for (std::size_t c = first; c < last; ++c)
        line += (c > first ? " " : "") + pad_left(t.cells[r][c], cell_width);
      append_line(out, line);
    }
  }
}

/// The 2-D slice at `leading` (positions and shown places of the dimensions
/// before the last two) of an array of rank >= 2.
Table slice_table(const std::vector<Entry>& rows, const std::vector<Entry>& columns,
                  std::vector<Index> position, std::vector<Index> shown, const CellSeries& series,
                  const PrintOptions& options) {
  const std::size_t rank = position.size();
  Table t;
  t.header = options.index_labels;
  for (const Entry& c : columns) t.column_labels.push_back(c.gap ? "" : std::to_string(c.position));
  for (const Entry& r : rows) {
    t.row_labels.push_back(r.gap ? "..." : options.index_labels ? std::to_string(r.position) : "");
    t.cells.emplace_back();
    if (r.gap) continue;
    position[rank - 2] = r.position;
    shown[rank - 2] = r.shown;
    for (const Entry& c : columns) {
      if (c.gap) {
        t.cells.back().push_back("...");
        continue;
      }
      position[rank - 1] = c.position;
      shown[rank - 1] = c.shown;
      t.cells.back().push_back(series.cell(position, shown));
    }
  }
  return t;
}

}  // namespace

std::string format_array_text(const std::vector<Index>& shape,
                              const std::vector<std::vector<ShownRun>>& runs,
                              const std::vector<CellSeries>& series, const std::string& title,
                              const PrintOptions& options) {
  std::string out;
  const std::size_t rank = shape.size();
  if (!title.empty()) {
    std::string dims;
    for (std::size_t d = 0; d < rank; ++d) dims += (d ? " x " : "") + std::to_string(shape[d]);
    out += title + " [" + dims + "]\n";
  }
  if (std::find(shape.begin(), shape.end(), Index(0)) != shape.end() || series.empty()) {
    out += "(empty)\n";
    return out;
  }
  std::vector<std::vector<Entry>> entries;
  for (const auto& r : runs) entries.push_back(entries_of(r));

  if (rank == 1) {
    Table t;
    t.header = options.index_labels;
    t.labels_right_aligned = false;
    for (const Entry& c : entries[0])
      t.column_labels.push_back(c.gap ? "" : std::to_string(c.position));
    for (const CellSeries& s : series) {
      t.row_labels.push_back(s.label);
      t.cells.emplace_back();
      for (const Entry& c : entries[0])
        t.cells.back().push_back(c.gap ? "..." : s.cell({c.position}, {c.shown}));
    }
    render(t, options, out);
    return out;
  }

  // Rank >= 2: 2-D slices over every shown combination of the leading
  // dimensions, in C order; "..." once where a leading dimension skips.
  const std::size_t leading = rank - 2;
  std::vector<std::size_t> at(leading, 0);
  std::vector<Index> position(rank, 0), shown(rank, 0);
  bool first_item = true;
  while (true) {
    std::size_t gap_dim = leading;
    for (std::size_t d = 0; d < leading && gap_dim == leading; ++d)
      if (entries[d][at[d]].gap) gap_dim = d;
    bool emit_gap = gap_dim < leading;
    for (std::size_t d = gap_dim + 1; d < leading && emit_gap; ++d) emit_gap = at[d] == 0;
    if (gap_dim == leading || emit_gap) {
      if (!first_item) out += "\n";
      first_item = false;
      if (emit_gap) {
        out += "...\n";
      } else {
        std::string header = "[";
        for (std::size_t d = 0; d < leading; ++d) {
          position[d] = entries[d][at[d]].position;
          shown[d] = entries[d][at[d]].shown;
          header += std::to_string(position[d]) + ", ";
        }
        if (leading > 0) out += header + ":, :]\n";
        render(
            slice_table(entries[rank - 2], entries[rank - 1], position, shown, series[0], options),
            options, out);
      }
    }
    std::size_t d = leading;
    while (d > 0) {
      --d;
      if (++at[d] < entries[d].size()) break;
      at[d] = 0;
      if (d == 0) return out;
    }
    if (leading == 0) return out;
  }
}

}  // namespace adlib
