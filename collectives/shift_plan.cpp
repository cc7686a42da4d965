// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/shift_plan.hpp>

#include <adlib/collectives/remap_plan.hpp>
#include <adlib/ranges/detail/index_math.hpp>

namespace adlib {

namespace {

// Along the shifted dimension, a shift is one or two copies between intervals
// of positions (cyclic: the part that stays in range and the part that wraps)
// and, in end_off and keep modes, the interval that nothing shifts into.
struct ShiftMove {
  Triplet dst, src;
};
struct ShiftAlongDimension {
  std::vector<ShiftMove> moves;
  Triplet vacated = Triplet::empty();
};

// dst[i] = src[i + amount] for i in 0 .. extent-1 (Fortran's sign).
ShiftAlongDimension shift_along_dimension(Index extent, Index amount, ShiftMode mode) {
  ShiftAlongDimension out;
  if (extent == 0) return out;
  const Index last = extent - 1;
  if (mode == ShiftMode::cyclic) {
    const Index s = detail::index_math::floor_mod(amount, extent);
    out.moves.push_back({Triplet{0, last - s, 1}, Triplet{s, last, 1}});
    if (s > 0) out.moves.push_back({Triplet{extent - s, last, 1}, Triplet{0, s - 1, 1}});
  } else if (amount >= extent || amount <= -extent) {
    out.vacated = Triplet::all(extent);
  } else if (amount >= 0) {
    out.moves.push_back({Triplet{0, last - amount, 1}, Triplet{amount, last, 1}});
    out.vacated = Triplet{extent - amount, last, 1};
  } else {
    out.moves.push_back({Triplet{-amount, last, 1}, Triplet{0, last + amount, 1}});
    out.vacated = Triplet{0, -amount - 1, 1};
  }
  return out;
}

bool is_empty(const std::vector<Triplet>& section) {
  for (const Triplet& t : section)
    if (t.count() == 0) return true;
  return false;
}

// The owned elements of `layout`'s section `positions` on rank `me`, as
// blocks of its local memory: one per product of the ranges' owned blocks,
// never ghost cells.
void append_owned_blocks(const ArrayLayout& layout, const std::vector<Triplet>& positions, int me,
                         std::vector<StridedBlock>& out) {
  if (is_empty(positions) || !layout.holds_data(me)) return;
  const int rank = layout.rank();
  const ArrayLayout part = layout.section(positions);
  const std::vector<Index> strides = layout.local_strides(me);
  std::vector<std::vector<Block>> per_dim(rank);
  for (int d = 0; d < rank; ++d) {
    part.range(d).owned_blocks(part.coordinate(me, d), part.section_triplet(d), per_dim[d]);
    if (per_dim[d].empty()) return;
  }
  std::vector<size_t> at(rank, 0);
  while (true) {
    StridedBlock block;
    block.rank = rank;
    for (int d = 0; d < rank; ++d) {
      const Block& b = per_dim[d][at[d]];
      block.offset += b.local_base * strides[d];
      block.extents[d] = b.count;
      block.strides[d] = b.local_step * strides[d];
    }
    out.push_back(block.normalized());
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++at[d] < per_dim[d].size()) break;
      at[d] = 0;
    }
    if (d < 0) return;
  }
}

// Appends a shift by `amount` along `dim` of the elements whose other
// dimensions lie in `others` (whose entry `dim` is ignored): the moves in
// order, then (end_off) the vacated interval.
void plan_section(const ArrayLayout& layout, std::vector<Triplet> others, int dim, Index amount,
                  ShiftMode mode, int me, ShiftPlan& plan) {
  const ShiftAlongDimension along = shift_along_dimension(layout.extent(dim), amount, mode);
  std::vector<Triplet> from = others;
  for (const ShiftMove& m : along.moves) {
    others[dim] = m.dst;
    from[dim] = m.src;
    if (!is_empty(others))
      plan.exchange.append(plan_remap(layout.section(others), layout.section(from), me));
  }
  if (mode == ShiftMode::end_off) {
    others[dim] = along.vacated;
    append_owned_blocks(layout, others, me, plan.vacated);
  }
}

std::vector<Triplet> whole(const ArrayLayout& layout) {
  std::vector<Triplet> section;
  for (int d = 0; d < layout.rank(); ++d) section.push_back(Triplet::all(layout.extent(d)));
  return section;
}

}  // namespace

const char* shift_mode_name(ShiftMode mode) {
  switch (mode) {
    case ShiftMode::cyclic:
      return "cyclic";
    case ShiftMode::end_off:
      return "end_off";
    case ShiftMode::keep:
      return "keep";
  }
  return "?";
}

bool is_valid_shift_mode(ShiftMode mode) {
  switch (mode) {
    case ShiftMode::cyclic:
    case ShiftMode::end_off:
    case ShiftMode::keep:
      return true;
  }
  return false;
}

std::string check_shift(const ArrayLayout& layout, int dim, ShiftMode mode) {
  if (!is_valid_shift_mode(mode))
    return "shift mode " + std::to_string(static_cast<int>(mode)) +
           " is not one of adlib::ShiftMode's";
  if (dim < 0 || dim >= layout.rank())
    return "dimension " + std::to_string(dim) + " out of range for an array of rank " +
           std::to_string(layout.rank());
  return {};
}

std::string check_skew(const ArrayLayout& layout, std::size_t amount_count, int dim,
                       ShiftMode mode) {
  if (std::string error = check_shift(layout, dim, mode); !error.empty()) return error;
  Index positions = 1;
  for (int d = 0; d < layout.rank(); ++d)
    if (d != dim) positions *= layout.extent(d);
  if (static_cast<Index>(amount_count) != positions)
    return "amounts table has " + std::to_string(amount_count) + " entries, expected " +
           std::to_string(positions) + " (the product of the extents of the dimensions " +
           "other than " + std::to_string(dim) + ")";
  return {};
}

ShiftPlan plan_shift(const ArrayLayout& layout, Index amount, int dim, ShiftMode mode, int me) {
  ShiftPlan plan;
  plan_section(layout, whole(layout), dim, amount, mode, me, plan);
  return plan;
}

ShiftPlan plan_skew(const ArrayLayout& layout, const std::vector<Index>& amounts, int dim,
                    ShiftMode mode, int me) {
  ShiftPlan plan;
  std::vector<int> others;  // the dimensions other than dim, in order
  Index positions = 1;
  for (int d = 0; d < layout.rank(); ++d)
    if (d != dim) {
      others.push_back(d);
      positions *= layout.extent(d);
    }
  if (positions == 0) return plan;
  std::vector<Triplet> section = whole(layout);
  bool constant = true;
  for (Index amount : amounts) constant = constant && amount == amounts.front();
  if (constant || others.empty()) {
    plan_section(layout, section, dim, amounts.front(), mode, me, plan);
    return plan;
  }
  // One shift per run of equal amounts along the innermost other dimension,
  // in C order of the other positions: the same order on every rank.
  const int inner = others.back();
  const Index run_extent = layout.extent(inner);
  for (Index k = 0; k < positions; k += run_extent) {
    // The outer other dimensions' positions of entry k, fixed for this row.
    Index rest = k / run_extent;
    for (size_t o = others.size() - 1; o-- > 0;) {
      const Index p = rest % layout.extent(others[o]);
      rest /= layout.extent(others[o]);
      section[others[o]] = Triplet{p, p, 1};
    }
    for (Index first = 0; first < run_extent;) {
      Index last = first;
      while (last + 1 < run_extent && amounts[k + last + 1] == amounts[k + first]) ++last;
      section[inner] = Triplet{first, last, 1};
      plan_section(layout, section, dim, amounts[k + first], mode, me, plan);
      first = last + 1;
    }
  }
  return plan;
}

}  // namespace adlib
