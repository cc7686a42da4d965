// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// DimensionReduction: reductions along one dimension of a distributed array
/// (Fortran's SUM(A, DIM=d), PRODUCT, MAXVAL, MINVAL, MAXLOC, MINLOC, ANY,
/// ALL and COUNT with DIM=), built once from the source's layout and the
/// dimension, executed many times.
///
/// @code
///   adlib::DimensionReduction rows(a, 0);       // plan once: a is (n x m), reduce dimension 0
///   auto s = rows.make_result();                // length m, laid out like a's dimension 1
///   for (int step = 0; step < steps; ++step) {
///     ...                                       // update a
///     rows.sum(s, a);                           // s[j] = sum_i a[i][j], on every rank
///   }
///   auto where = rows.make_result<adlib::Index>();
///   rows.maxloc(where, a);                      // the i of the largest a[i][j] (first on ties)
///   auto total = adlib::sum_dim(a, 1);          // one-shot: plan, allocate, execute, drop
/// @endcode
///
/// The result has rank Rank - 1 and is distributed like the source without
/// dimension d: the same group and the same Range objects for the other
/// dimensions (ghost widths included, so a halo exchange can follow; result
/// ghost cells are not written).  Range d's process axis is no longer used
/// by any range, so the result is replicated over it (ArrayLayout's
/// replicated_axes): every process along that axis gets the whole reduction.
/// A section of an array reduces to a section: the result covers the
/// section's positions of the other dimensions, and make_result() allocates
/// the whole array of the other dimensions and returns that section of it.
/// MAXLOC / MINLOC give positions along d in the source's index space (the
/// global index for a whole array; 0-based), the first one on ties, -1
/// when dimension d is empty.
///
/// Algorithm: each process reduces its local block along d into a partial
/// result (one element per result element it holds), then one all-reduce
/// (RedxSchedule, Configuration::reduction picks the algorithm) over the
/// processes that differ only along range d's process axis combines the
/// partial results.  A collapsed range d (or a process axis of one) needs no
/// communication.  The local loop has two fast paths: reducing along an
/// outer dimension of a C-order block accumulates whole rows into the
/// result row (sequential, vectorisable: the loop a hand-written column sum
/// uses); reducing along the innermost dimension reduces each row with four
/// accumulators.  Other layouts (block-cyclic sections of the innermost
/// dimension) walk offset tables.  Ghost cells never count.
///
/// Collective calls: the constructor over the grid's communicator (it
/// agrees on its arguments: a bad dimension is an adlib::Error on every
/// rank); the first execution of each operation builds that operation's
/// all-reduce, collectively over the processes it combines.  Execution
/// checks that the arrays have the planned layouts (every rank agrees in
/// checked mode).  Masked forms take a DistArray<bool, Rank> with the
/// source's layout; masked-out elements do not count.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/collectives/group_comm.hpp>
#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/located.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace adlib {

namespace detail {
namespace along {

/// The operations, with what the local loop needs of each: the partial
/// value type, its identity, how an element enters (lift) and how two
/// partial values combine (join, the same rule as the all-reduce's Op).
enum class Which : int { sum, product, maxval, minval, maxloc, minloc, any, all, count };
constexpr int kWhichCount = 9;

/// The location of no element: loses every tie (op::MaxLocation keeps the
/// smaller location), read back as -1.
constexpr std::int64_t kNoLocation = std::numeric_limits<std::int64_t>::max();

template <class T, Which W>
struct Kind;

template <class T>
struct Kind<T, Which::sum> {
  using value = T;
  using result = T;
  using Op = op::Add;
  KOKKOS_INLINE_FUNCTION static value identity() { return T(0); }
  KOKKOS_INLINE_FUNCTION static value lift(const T& v, std::int64_t) { return v; }
  KOKKOS_INLINE_FUNCTION static void join(value& a, const value& b) { a = a + b; }
  KOKKOS_INLINE_FUNCTION static result finish(const value& a) { return a; }
};
template <class T>
struct Kind<T, Which::product> {
  using value = T;
  using result = T;
  using Op = op::Product;
  KOKKOS_INLINE_FUNCTION static value identity() { return T(1); }
  KOKKOS_INLINE_FUNCTION static value lift(const T& v, std::int64_t) { return v; }
  KOKKOS_INLINE_FUNCTION static void join(value& a, const value& b) { a = a * b; }
  KOKKOS_INLINE_FUNCTION static result finish(const value& a) { return a; }
};
template <class T>
struct Kind<T, Which::maxval> {
  using value = T;
  using result = T;
  using Op = op::Max;
  KOKKOS_INLINE_FUNCTION static value identity() { return op::max_identity<T>; }
  KOKKOS_INLINE_FUNCTION static value lift(const T& v, std::int64_t) { return v; }
  KOKKOS_INLINE_FUNCTION static void join(value& a, const value& b) { Op{}(a, b); }
  KOKKOS_INLINE_FUNCTION static result finish(const value& a) { return a; }
};
template <class T>
struct Kind<T, Which::minval> {
  using value = T;
  using result = T;
  using Op = op::Min;
  KOKKOS_INLINE_FUNCTION static value identity() { return op::min_identity<T>; }
  KOKKOS_INLINE_FUNCTION static value lift(const T& v, std::int64_t) { return v; }
  KOKKOS_INLINE_FUNCTION static void join(value& a, const value& b) { Op{}(a, b); }
  KOKKOS_INLINE_FUNCTION static result finish(const value& a) { return a; }
};
template <class T, class LocationOp>
struct LocationKind {
  using value = Located<T, 1>;
  using result = std::int64_t;
  using Op = LocationOp;
  KOKKOS_INLINE_FUNCTION static value identity() {
    value v;
    v.value = std::is_same<LocationOp, op::MaxLocation>::value ? op::max_identity<T>
                                                               : op::min_identity<T>;
    v.location[0] = kNoLocation;
    return v;
  }
  KOKKOS_INLINE_FUNCTION static value lift(const T& x, std::int64_t position) {
    value v;
    v.value = x;
    v.location[0] = position;
    return v;
  }
  KOKKOS_INLINE_FUNCTION static void join(value& a, const value& b) { LocationOp{}(a, b); }
  KOKKOS_INLINE_FUNCTION static result finish(const value& a) {
    return a.location[0] == kNoLocation ? -1 : a.location[0];
  }
};
template <class T>
struct Kind<T, Which::maxloc> : LocationKind<T, op::MaxLocation> {};
template <class T>
struct Kind<T, Which::minloc> : LocationKind<T, op::MinLocation> {};
template <class T>
struct Kind<T, Which::any> {
  using value = bool;
  using result = bool;
  using Op = op::LogicalOr;
  KOKKOS_INLINE_FUNCTION static value identity() { return false; }
  KOKKOS_INLINE_FUNCTION static value lift(const T& v, std::int64_t) { return v != T{}; }
  KOKKOS_INLINE_FUNCTION static void join(value& a, const value& b) { a = a || b; }
  KOKKOS_INLINE_FUNCTION static result finish(const value& a) { return a; }
};
template <class T>
struct Kind<T, Which::all> {
  using value = bool;
  using result = bool;
  using Op = op::LogicalAnd;
  KOKKOS_INLINE_FUNCTION static value identity() { return true; }
  KOKKOS_INLINE_FUNCTION static value lift(const T& v, std::int64_t) { return v != T{}; }
  KOKKOS_INLINE_FUNCTION static void join(value& a, const value& b) { a = a && b; }
  KOKKOS_INLINE_FUNCTION static result finish(const value& a) { return a; }
};
template <class T>
struct Kind<T, Which::count> {
  using value = std::int64_t;
  using result = std::int64_t;
  using Op = op::Add;
  KOKKOS_INLINE_FUNCTION static value identity() { return 0; }
  KOKKOS_INLINE_FUNCTION static value lift(const T& v, std::int64_t) { return v != T{} ? 1 : 0; }
  KOKKOS_INLINE_FUNCTION static void join(value& a, const value& b) { a = a + b; }
  KOKKOS_INLINE_FUNCTION static result finish(const value& a) { return a; }
};

inline const char* name(Which w) {
  static const char* const names[kWhichCount] = {"sum",    "product", "maxval", "minval", "maxloc",
                                                 "minloc", "any",     "all",    "count"};
  return names[static_cast<int>(w)];
}

/// Offsets (in elements) and positions the local loops read: host copies
/// are built once, device copies passed to the kernels.
using Table = Kokkos::View<std::int64_t*>;

/// Fast path for a reduced dimension outside the innermost one: result row
/// o (L consecutive elements of the partial result) accumulates source
/// rows row_base[o] + along[j], j = 0 .. n-1, whole rows at a time; work
/// item w handles columns [c * chunk, (c + 1) * chunk) of row w / chunks.
template <class T, class K, bool Masked, class MemorySpace>
struct AccumulateRows {
  using value = typename K::value;
  const T* source;
  const bool* mask;
  value* partial;
  Kokkos::View<const std::int64_t*, MemorySpace> row_base, along, position;
  std::int64_t n, length, chunk, chunks;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t w) const {
    const std::int64_t o = w / chunks, lo = (w % chunks) * chunk;
    const std::int64_t hi = lo + chunk < length ? lo + chunk : length;
    value* acc = partial + o * length;
    for (std::int64_t l = lo; l < hi; ++l) acc[l] = K::identity();
    std::int64_t j = 0;
    if constexpr (!Masked) {
      // Four source rows per pass over the partial row: it is read and
      // written once per four rows instead of once per row, which is what
      // a plain row-major column sum spends most of its cache traffic on.
      // The rows are joined as acc (x) (((r0 (x) r1) (x) r2) (x) r3): a
      // fixed order, so every run gives the same bits.
      for (; j + 4 <= n; j += 4) {
        const T* r0 = source + row_base(o) + along(j);
        const T* r1 = source + row_base(o) + along(j + 1);
        const T* r2 = source + row_base(o) + along(j + 2);
        const T* r3 = source + row_base(o) + along(j + 3);
        const std::int64_t p0 = position(j), p1 = position(j + 1), p2 = position(j + 2),
                           p3 = position(j + 3);
        for (std::int64_t l = lo; l < hi; ++l) {
          value v = K::lift(r0[l], p0);
          K::join(v, K::lift(r1[l], p1));
          K::join(v, K::lift(r2[l], p2));
          K::join(v, K::lift(r3[l], p3));
          K::join(acc[l], v);
        }
      }
    }
    for (; j < n; ++j) {
      const std::int64_t offset = row_base(o) + along(j), p = position(j);
      const T* row = source + offset;
      if constexpr (Masked) {
        const bool* keep = mask + offset;
        for (std::int64_t l = lo; l < hi; ++l)
          if (keep[l]) K::join(acc[l], K::lift(row[l], p));
      } else {
        for (std::int64_t l = lo; l < hi; ++l) K::join(acc[l], K::lift(row[l], p));
      }
    }
  }
};

/// Every other case: partial element m reduces source elements
/// line_base[m] + along[j], j = 0 .. n-1; `consecutive` (the reduced
/// dimension is the innermost one, stored contiguously) reads them as one
/// line with four accumulators.
template <class T, class K, bool Masked, class MemorySpace>
struct ReduceLines {
  using value = typename K::value;
  const T* source;
  const bool* mask;
  value* partial;
  Kokkos::View<const std::int64_t*, MemorySpace> line_base, along, position;
  std::int64_t n;
  bool consecutive;

  KOKKOS_INLINE_FUNCTION bool kept(std::int64_t offset) const {
    if constexpr (Masked) return mask[offset];
    return true;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t m) const {
    const std::int64_t base = line_base(m);
    value a0 = K::identity();
    if (consecutive && !Masked) {
      const T* line = source + base + (n > 0 ? along(0) : 0);
      value a1 = K::identity(), a2 = K::identity(), a3 = K::identity();
      std::int64_t j = 0;
      for (; j + 4 <= n; j += 4) {
        K::join(a0, K::lift(line[j], position(j)));
        K::join(a1, K::lift(line[j + 1], position(j + 1)));
        K::join(a2, K::lift(line[j + 2], position(j + 2)));
        K::join(a3, K::lift(line[j + 3], position(j + 3)));
      }
      for (; j < n; ++j) K::join(a0, K::lift(line[j], position(j)));
      K::join(a0, a1);
      K::join(a2, a3);
      K::join(a0, a2);
    } else {
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t offset = base + along(j);
        if (kept(offset)) K::join(a0, K::lift(source[offset], position(j)));
      }
    }
    partial[m] = a0;
  }
};

/// partial[m] (reduced) into result[offset[m]].
template <class K, class MemorySpace>
struct WriteResult {
  const typename K::value* partial;
  typename K::result* result;
  Kokkos::View<const std::int64_t*, MemorySpace> offset;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t m) const {
    result[offset(m)] = K::finish(partial[m]);
  }
};

/// Is t[i] == t[0] + i * step for every i?
inline bool arithmetic(const std::vector<std::int64_t>& t, std::int64_t step) {
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] != t[0] + static_cast<std::int64_t>(i) * step) return false;
  return true;
}

/// Sums of one entry per table over every combination, in C order of the
/// tables (the offsets of a C-order walk over several dimensions).
inline std::vector<std::int64_t> combine_offsets(
    const std::vector<std::vector<std::int64_t>>& tables) {
  std::vector<std::int64_t> out{0};
  for (const auto& t : tables) {
    std::vector<std::int64_t> next;
    next.reserve(out.size() * t.size());
    for (std::int64_t base : out)
      for (std::int64_t o : t) next.push_back(base + o);
    out.swap(next);
  }
  return out;
}

}  // namespace along
}  // namespace detail

/// Reductions along one dimension of arrays of one layout (see the file
/// overview): construct once (collective over the grid's communicator),
/// execute many times.
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class DimensionReduction {
  static_assert(Rank >= 2,
                "a reduction along a dimension of a rank-1 array is a whole-array "
                "reduction");

 public:
  /// The arrays it reduces.
  using array_type = DistArray<T, Rank, MemorySpace>;
  /// The masks of the masked forms: true where an element counts.
  using mask_type = DistArray<bool, Rank, MemorySpace>;
  /// The results of sum, product, maxval and minval; other operations'
  /// results hold arrays of another element type (std::int64_t for maxloc, minloc and
  /// count, bool for any and all).
  template <class U = T>
  using result_type = DistArray<U, Rank - 1, MemorySpace>;

  /// Plans the reduction of `source`'s layout along dimension `dimension`
  /// (0 .. Rank-1).  Collective over the grid's communicator; a bad
  /// dimension is an adlib::Error on every rank.
  DimensionReduction(const array_type& source, int dimension,
                     const Configuration& config = Configuration::environment())
      : DimensionReduction(source.layout(), dimension, config) {}

  /// The same from the layout alone.
  DimensionReduction(const ArrayLayout& source, int dimension,
                     const Configuration& config = Configuration::environment())
      : source_(source), dimension_(dimension), config_(config) {
    const Comm& comm = source.group().grid().comm();
    std::string error = config.error;
    if (error.empty() && source.rank() != Rank)
      error = "a layout of rank " + std::to_string(source.rank()) + " for a DimensionReduction " +
              "of rank " + std::to_string(Rank);
    if (error.empty() && (dimension < 0 || dimension >= Rank))
      error = "dimension " + std::to_string(dimension) + " of an array of rank " +
              std::to_string(Rank) + " (dimensions are 0 .. " + std::to_string(Rank - 1) + ")";
    agree_on_arguments(comm, error,
                       {agreed_layout("layout", source),
                        {"dimension", static_cast<std::uint64_t>(dimension),
                         [dimension] { return std::to_string(dimension); }},
                        agreed_element_type<T>(),
                        agreed_configuration(config)},
                       "DimensionReduction");
    rank_ = comm.rank();
    plan();
  }

  /// The dimension it reduces.
  int dimension() const { return dimension_; }
  /// The layout the source must have.
  const ArrayLayout& source_layout() const { return source_; }
  /// The layout every result must have (a section for a section source).
  const ArrayLayout& result_layout() const { return result_; }
  /// The configuration it was built with.
  const Configuration& configuration() const { return config_; }
  /// Does the reduction communicate (range `dimension` distributed over more
  /// than one process)?
  bool communicates() const { return communicates_; }

  /// A new array of result_layout() (of U: T for sum, product, maxval and
  /// minval, std::int64_t for maxloc, minloc and count, bool for any and
  /// all); for a section source, the section of a new whole array.  Every
  /// rank of the grid's communicator calls it.
  template <class U = T>
  result_type<U> make_result(const std::string& label = "adlib::DimensionReduction") const {
    result_type<U> whole(whole_result_, label);
    if (!result_.is_section()) return whole;
    std::array<Triplet, Rank - 1> t;
    for (int k = 0; k < Rank - 1; ++k) t[k] = result_.section_triplet(k);
    return whole.section(t);
  }

  /// result = SUM(source, DIM=dimension()).
  void sum(const result_type<T>& result, const array_type& source) {
    run<detail::along::Which::sum>(result, source, nullptr);
  }
  /// result = PRODUCT(source, DIM=dimension()).
  void product(const result_type<T>& result, const array_type& source) {
    run<detail::along::Which::product>(result, source, nullptr);
  }
  /// result = MAXVAL(source, DIM=dimension()); -infinity (lowest()) where
  /// the dimension is empty.
  void maxval(const result_type<T>& result, const array_type& source) {
    run<detail::along::Which::maxval>(result, source, nullptr);
  }
  /// result = MINVAL(source, DIM=dimension()); +infinity (max()) where the
  /// dimension is empty.
  void minval(const result_type<T>& result, const array_type& source) {
    run<detail::along::Which::minval>(result, source, nullptr);
  }
  /// result = the position along dimension() of the largest element, the
  /// smallest position on ties, -1 where none counts.
  void maxloc(const result_type<std::int64_t>& result, const array_type& source) {
    run<detail::along::Which::maxloc>(result, source, nullptr);
  }
  /// result = the position along dimension() of the smallest element, the
  /// smallest position on ties, -1 where none counts.
  void minloc(const result_type<std::int64_t>& result, const array_type& source) {
    run<detail::along::Which::minloc>(result, source, nullptr);
  }
  /// result = ANY(source != 0, DIM=dimension()).
  void any(const result_type<bool>& result, const array_type& source) {
    run<detail::along::Which::any>(result, source, nullptr);
  }
  /// result = ALL(source != 0, DIM=dimension()) (true where the dimension is empty).
  void all(const result_type<bool>& result, const array_type& source) {
    run<detail::along::Which::all>(result, source, nullptr);
  }
  /// result = COUNT(source != 0, DIM=dimension()).
  void count(const result_type<std::int64_t>& result, const array_type& source) {
    run<detail::along::Which::count>(result, source, nullptr);
  }

  /// sum() over the elements where `mask` is true (SUM(A, DIM=d, MASK=m)).
  void sum(const result_type<T>& result, const array_type& source, const mask_type& mask) {
    run<detail::along::Which::sum>(result, source, &mask);
  }
  /// product() over the elements where `mask` is true.
  void product(const result_type<T>& result, const array_type& source, const mask_type& mask) {
    run<detail::along::Which::product>(result, source, &mask);
  }
  /// maxval() over the elements where `mask` is true.
  void maxval(const result_type<T>& result, const array_type& source, const mask_type& mask) {
    run<detail::along::Which::maxval>(result, source, &mask);
  }
  /// minval() over the elements where `mask` is true.
  void minval(const result_type<T>& result, const array_type& source, const mask_type& mask) {
    run<detail::along::Which::minval>(result, source, &mask);
  }
  /// maxloc() over the elements where `mask` is true.
  void maxloc(const result_type<std::int64_t>& result, const array_type& source,
              const mask_type& mask) {
    run<detail::along::Which::maxloc>(result, source, &mask);
  }
  /// minloc() over the elements where `mask` is true.
  void minloc(const result_type<std::int64_t>& result, const array_type& source,
              const mask_type& mask) {
    run<detail::along::Which::minloc>(result, source, &mask);
  }
  /// count() over the elements where `mask` is true.
  void count(const result_type<std::int64_t>& result, const array_type& source,
             const mask_type& mask) {
    run<detail::along::Which::count>(result, source, &mask);
  }

 private:
  using Which = detail::along::Which;
  using Table = Kokkos::View<std::int64_t*, MemorySpace>;
  using execution_space = typename MemorySpace::execution_space;

  /// What one operation keeps between executions: its partial result and
  /// its all-reduce, made at its first execution.
  template <Which W>
  struct Operation {
    using K = detail::along::Kind<T, W>;
    Kokkos::View<typename K::value*, MemorySpace> partial;
    std::unique_ptr<RedxSchedule<typename K::value, typename K::Op, MemorySpace>> allreduce;
  };

  static Table device_table(const std::vector<std::int64_t>& values, const char* label) {
    Table t(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), values.size());
    auto host = Kokkos::create_mirror_view(t);
    for (std::size_t i = 0; i < values.size(); ++i) host(i) = values[i];
    Kokkos::deep_copy(t, host);
    return t;
  }

  /// Everything from the layout: the result layout, the offset tables of
  /// this rank's local loop and the members of its all-reduce.
  void plan() {
    std::vector<RangePtr> kept;
    std::vector<Triplet> kept_section;
    for (int k = 0; k < Rank; ++k)
      if (k != dimension_) {
        kept.push_back(source_.range_ptr(k));
        kept_section.push_back(source_.section_triplet(k));
      }
    whole_result_ = ArrayLayout(source_.group(), kept);
    result_ = source_.is_section() ? whole_result_.section(kept_section) : whole_result_;
    const Range& along = source_.range(dimension_);
    communicates_ = along.dimension().has_value() && along.process_count() > 1;
    holds_ = source_.holds_data(rank_);
    if (!holds_) return;

    // Offsets and positions held along each dimension, for the source and
    // the result.
    const std::vector<Index> strides = source_.local_strides(rank_);
    const std::vector<Index> result_strides = result_.local_strides(rank_);
    std::vector<std::vector<std::int64_t>> offsets(Rank), result_offsets;
    std::vector<std::int64_t> positions;
    for (int k = 0, r = 0; k < Rank; ++k) {
      for (const auto& held : source_.held_along(rank_, k)) {
        offsets[k].push_back(held.second * strides[k]);
        if (k == dimension_) positions.push_back(held.first);
      }
      if (k == dimension_) continue;
      result_offsets.emplace_back();
      for (const auto& held : result_.held_along(rank_, r))
        result_offsets.back().push_back(held.second * result_strides[r]);
      ++r;
    }
    n_ = static_cast<std::int64_t>(offsets[dimension_].size());
    along_ = device_table(offsets[dimension_], "adlib::DimensionReduction::along");
    position_ = device_table(positions, "adlib::DimensionReduction::position");
    const std::vector<std::int64_t> results = detail::along::combine_offsets(result_offsets);
    count_ = static_cast<std::int64_t>(results.size());
    direct_offset_ = detail::along::arithmetic(results, 1) && count_ > 0 ? results[0] : -1;
    result_offset_ = device_table(results, "adlib::DimensionReduction::result");

    std::vector<std::vector<std::int64_t>> outer;
    for (int k = 0; k < Rank; ++k)
      if (k != dimension_) outer.push_back(offsets[k]);
    const auto& inner = offsets[Rank - 1];
    rows_ = dimension_ != Rank - 1 && detail::along::arithmetic(inner, 1);
    consecutive_ = dimension_ == Rank - 1 && detail::along::arithmetic(inner, 1);
    if (rows_) {
      length_ = static_cast<std::int64_t>(inner.size());
      const std::int64_t first = inner.empty() ? 0 : inner[0];
      outer.back() = {first};  // each row starts at its first element
      // Host memory: one row per work item (the plain row-major loop);
      // parallel back ends: chunks of a row per thread, one element per
      // thread on a GPU (coalesced reads of each source row).
      const std::int64_t threads = execution_space().concurrency();
      if (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible)
        chunk_ = 1;
      else
        chunk_ =
            threads <= 1 ? length_ : std::max<std::int64_t>(64, (length_ + threads - 1) / threads);
      chunk_ = std::max<std::int64_t>(chunk_, 1);
      chunks_ = (length_ + chunk_ - 1) / chunk_;
    }
    const std::vector<std::int64_t> bases = detail::along::combine_offsets(outer);
    base_ = device_table(bases, "adlib::DimensionReduction::base");
    rows_count_ = static_cast<std::int64_t>(bases.size());
    if (communicates_)
      members_ = group_comm(axis_group(source_.group(), rank_, along.dimension()->axis()));
  }

  template <Which W>
  Operation<W>& state() {
    auto& slot = operations_[static_cast<int>(W)];
    if (!slot) {
      auto made = std::make_shared<Operation<W>>();
      using K = typename Operation<W>::K;
      if (holds_) {
        made->partial = Kokkos::View<typename K::value*, MemorySpace>(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::DimensionReduction::partial"),
            static_cast<std::size_t>(count_));
        if (communicates_)
          made->allreduce =
              std::make_unique<RedxSchedule<typename K::value, typename K::Op, MemorySpace>>(
                  *members_, count_, typename K::Op{}, config_);
      }
      slot = made;
    }
    return *std::static_pointer_cast<Operation<W>>(slot);
  }

  template <Which W, class Result>
  void run(const Result& result, const array_type& source, const mask_type* mask) {
    using K = detail::along::Kind<T, W>;
    static_assert(std::is_same<typename Result::value_type, typename K::result>::value,
                  "result of the wrong element type for this operation");
    const std::string operation = std::string("DimensionReduction::") + detail::along::name(W);
    std::string error;
    if (source.layout() != source_)
      error = "source has layout " + source.layout().describe() + " but the reduction was " +
              "built for " + source_.describe();
    else if (result.layout() != result_)
      error = "result has layout " + result.layout().describe() + " but the reduction along " +
              "dimension " + std::to_string(dimension_) + " needs " + result_.describe();
    else if (mask && mask->layout() != source_)
      error = "mask has layout " + mask->layout().describe() + " but the source has " +
              source_.describe();
    if (config_.checked) {
      // The layouts were agreed at construction; which reduction runs and
      // whether a mask is passed are agreed by name.
      agree_on_arguments(
          source_.group().grid().comm(), error,
          {{"reduction", static_cast<std::uint64_t>(W), [&operation] { return operation; }},
           {"mask", mask ? 1u : 0u, [mask] { return std::string(mask ? "passed" : "none"); }}},
          operation.c_str());
    } else if (!error.empty()) {
      throw Error(error, rank_, operation);
    }
    Operation<W>& op = state<W>();
    if (!holds_) return;
    using Value = typename K::value;
    Value* partial = op.partial.data();
    // A contiguous result block is reduced in place (no copy afterwards).
    if constexpr (std::is_same<Value, typename K::result>::value)
      if (direct_offset_ >= 0) partial = result.local_view().data() + direct_offset_;
    const T* data = source.local_view().data();
    if (mask)
      local<K, true>(data, mask->local_view().data(), partial);
    else
      local<K, false>(data, nullptr, partial);
    if (op.allreduce) op.allreduce->execute(partial);
    if (partial == op.partial.data() && count_ > 0) {
      Kokkos::parallel_for("adlib::DimensionReduction::write",
                           Kokkos::RangePolicy<execution_space>(0, count_),
                           detail::along::WriteResult<K, MemorySpace>{
                               partial, result.local_view().data(), result_offset_});
    }
    execution_space().fence();
  }

  template <class K, bool Masked>
  void local(const T* data, const bool* mask, typename K::value* partial) const {
    if (count_ == 0) return;
    if (rows_) {
      Kokkos::parallel_for(
          "adlib::DimensionReduction::rows",
          Kokkos::RangePolicy<execution_space>(0, rows_count_ * chunks_),
          detail::along::AccumulateRows<T, K, Masked, MemorySpace>{
              data, mask, partial, base_, along_, position_, n_, length_, chunk_, chunks_});
    } else {
      Kokkos::parallel_for("adlib::DimensionReduction::lines",
                           Kokkos::RangePolicy<execution_space>(0, count_),
                           detail::along::ReduceLines<T, K, Masked, MemorySpace>{
                               data, mask, partial, base_, along_, position_, n_, consecutive_});
    }
  }

  ArrayLayout source_;
  int dimension_;
  Configuration config_;
  ArrayLayout whole_result_ = source_, result_ = source_;
  int rank_ = 0;
  bool communicates_ = false, holds_ = false;
  std::optional<Comm> members_;
  // The local loop: rows_ (AccumulateRows) or lines (ReduceLines).
  bool rows_ = false, consecutive_ = false;
  std::int64_t n_ = 0, count_ = 0, length_ = 0, chunk_ = 1, chunks_ = 1, rows_count_ = 0;
  std::int64_t direct_offset_ = -1;  ///< the result block is contiguous from here (else -1)
  Table along_, position_, base_, result_offset_;
  std::array<std::shared_ptr<void>, detail::along::kWhichCount> operations_;
};

/// Deduction guide: adlib::DimensionReduction r(a, d) takes T, Rank and
/// MemorySpace from the array.
template <class T, int Rank, class MemorySpace>
DimensionReduction(const DistArray<T, Rank, MemorySpace>&, int)
    -> DimensionReduction<T, Rank, MemorySpace>;

/// Deduction guide with a configuration.
template <class T, int Rank, class MemorySpace>
DimensionReduction(const DistArray<T, Rank, MemorySpace>&, int, const Configuration&)
    -> DimensionReduction<T, Rank, MemorySpace>;

namespace detail {
/// The one-shot form of every reduction along a dimension: plans, allocates
/// a result of U, runs `operation(schedule, result, a)` once.
template <class U, class T, int Rank, class MemorySpace, class Operation>
DistArray<U, Rank - 1, MemorySpace> reduce_along_once(const DistArray<T, Rank, MemorySpace>& a,
                                                      int d, Operation operation) {
  DimensionReduction<T, Rank, MemorySpace> schedule(a, d);
  auto result = schedule.template make_result<U>();
  operation(schedule, result, a);
  return result;
}
}  // namespace detail

/// One-shot SUM(a, DIM=d): plans, allocates the result, executes once.
template <class T, int Rank, class MemorySpace>
DistArray<T, Rank - 1, MemorySpace> sum_dim(const DistArray<T, Rank, MemorySpace>& a, int d) {
  return detail::reduce_along_once<T>(a, d, [](auto& s, auto& r, auto& x) { s.sum(r, x); });
}
/// One-shot PRODUCT(a, DIM=d).
template <class T, int Rank, class MemorySpace>
DistArray<T, Rank - 1, MemorySpace> product_dim(const DistArray<T, Rank, MemorySpace>& a, int d) {
  return detail::reduce_along_once<T>(a, d, [](auto& s, auto& r, auto& x) { s.product(r, x); });
}
/// One-shot MAXVAL(a, DIM=d).
template <class T, int Rank, class MemorySpace>
DistArray<T, Rank - 1, MemorySpace> maxval_dim(const DistArray<T, Rank, MemorySpace>& a, int d) {
  return detail::reduce_along_once<T>(a, d, [](auto& s, auto& r, auto& x) { s.maxval(r, x); });
}
/// One-shot MINVAL(a, DIM=d).
template <class T, int Rank, class MemorySpace>
DistArray<T, Rank - 1, MemorySpace> minval_dim(const DistArray<T, Rank, MemorySpace>& a, int d) {
  return detail::reduce_along_once<T>(a, d, [](auto& s, auto& r, auto& x) { s.minval(r, x); });
}
/// One-shot MAXLOC(a, DIM=d) (0-based positions along d, -1 where empty).
template <class T, int Rank, class MemorySpace>
DistArray<std::int64_t, Rank - 1, MemorySpace> maxloc_dim(const DistArray<T, Rank, MemorySpace>& a,
                                                          int d) {
  return detail::reduce_along_once<std::int64_t>(a, d,
                                                 [](auto& s, auto& r, auto& x) { s.maxloc(r, x); });
}
/// One-shot MINLOC(a, DIM=d) (0-based positions along d, -1 where empty).
template <class T, int Rank, class MemorySpace>
DistArray<std::int64_t, Rank - 1, MemorySpace> minloc_dim(const DistArray<T, Rank, MemorySpace>& a,
                                                          int d) {
  return detail::reduce_along_once<std::int64_t>(a, d,
                                                 [](auto& s, auto& r, auto& x) { s.minloc(r, x); });
}
/// One-shot ANY(a != 0, DIM=d).
template <class T, int Rank, class MemorySpace>
DistArray<bool, Rank - 1, MemorySpace> any_dim(const DistArray<T, Rank, MemorySpace>& a, int d) {
  return detail::reduce_along_once<bool>(a, d, [](auto& s, auto& r, auto& x) { s.any(r, x); });
}
/// One-shot ALL(a != 0, DIM=d).
template <class T, int Rank, class MemorySpace>
DistArray<bool, Rank - 1, MemorySpace> all_dim(const DistArray<T, Rank, MemorySpace>& a, int d) {
  return detail::reduce_along_once<bool>(a, d, [](auto& s, auto& r, auto& x) { s.all(r, x); });
}
/// One-shot COUNT(a != 0, DIM=d).
template <class T, int Rank, class MemorySpace>
DistArray<std::int64_t, Rank - 1, MemorySpace> count_dim(const DistArray<T, Rank, MemorySpace>& a,
                                                         int d) {
  return detail::reduce_along_once<std::int64_t>(a, d,
                                                 [](auto& s, auto& r, auto& x) { s.count(r, x); });
}

}  // namespace adlib
