// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// DistArray<T, Rank, MemorySpace>: a distributed array = a layout plus the
/// local block of this process, a C-order Kokkos View in MemorySpace whose
/// extents are the local allocation (ghost cells included).
///
/// @code
///   adlib::ProcessGrid grid(comm, {2, 2});
///   adlib::DistArray<double, 2> a(grid, {adlib::block(100), adlib::cyclic(60)});
///   a.fill([](auto g) { return double(g[0] * 60 + g[1]); });  // from global indices
///   auto v = a.local_view();     // "think globally, act locally"
///   auto s = a.section({adlib::Triplet{0, 99, 2}, adlib::Triplet{59, 0, -1}});  // shares memory
/// @endcode
///
/// Processes outside the array's group hold an empty View.
///
/// Creation is local (no message): it allocates this process's block and,
/// as Kokkos Views are, sets every element (ghosts and padding included) to
/// T() with one kernel over the block.  Passing `adlib::uninitialized`
/// skips that kernel (numpy's `empty`): the elements hold whatever the
/// memory held, and the array must be written (fill(), a Remap into it, a
/// kernel) before it is read.  What creation checks (the layout's own rules,
/// see ArrayLayout) is checked on each process alone; a layout that differs
/// between processes is refused by the first collective over the array, which
/// agrees on the layout.
///
/// @code
///   adlib::DistArray<double, 2> b(grid, {adlib::block(100), adlib::cyclic(60)},
///                                 adlib::uninitialized);  // no fill: written next
///   adlib::remap(b, a);
/// @endcode
///
/// An array can also be laid over memory that something else owns (PETSc, a
/// Fortran code, another library): DistArray::wrap takes this rank's local
/// block as a Kokkos View or a pointer, checks it against the layout, and
/// copies nothing.  The local block may be padded (a leading dimension larger
/// than the local extent, as ScaLAPACK's LLD); schedules planned from the
/// array use its actual strides.
///
/// The memory must be in the array's memory space (a std::vector's is host
/// memory: HostSpace, not a GPU build's default space).
///
/// @code
///   std::vector<double> mine(rows * lld);          // rows x cols, row pitch lld
///   auto a = adlib::DistArray<double, 2, Kokkos::HostSpace>::wrap(layout, mine.data(), {lld, 1});
/// @endcode
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/local_box.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/runtime/detail/block_allocation.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

namespace detail {
template <class T, int Rank>
struct add_pointers {
  using type = typename add_pointers<T*, Rank - 1>::type;
};
template <class T>
struct add_pointers<T, 0> {
  using type = T;
};
}  // namespace detail

/// The tag that makes a DistArray constructor leave the elements unset (see
/// the file overview).
struct Uninitialized {
  explicit Uninitialized() = default;
};
/// Pass to a DistArray constructor to skip setting the elements.
inline constexpr Uninitialized uninitialized{};

template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
/// A distributed array: an ArrayLayout plus this process's local block (see the
/// file overview).  Copies and sections share the memory (like Kokkos Views).
class DistArray {
  static_assert(Rank >= 1 && Rank <= 8, "DistArray rank must be 1..8 (Kokkos View ranks)");

 public:
  /// The element type.
  using value_type = T;
  /// The Kokkos memory space of the local block.
  using memory_space = MemorySpace;
  /// The local block's View: Rank dimensions, C order (LayoutRight).
  using view_type =
      Kokkos::View<typename detail::add_pointers<T, Rank>::type, Kokkos::LayoutRight, MemorySpace>;
  /// A tuple of global indices, one per dimension.
  using Position = std::array<Index, Rank>;

  /// Allocates an array over `group` with one Range per dimension (see
  /// ArrayLayout for the checks); `label` names the Kokkos allocation.
  DistArray(const Group& group, const std::array<RangePtr, Rank>& ranges,
            const std::string& label = "adlib::DistArray")
      : DistArray(ArrayLayout(group, std::vector<RangePtr>(ranges.begin(), ranges.end())), label) {}

  /// Ranges from factories, bound to the group's axes by position:
  /// @code
  ///   DistArray<double, 2> u(grid, {adlib::block(n).ghosts(1), adlib::cyclic(m)});
  /// @endcode
  DistArray(const Group& group, const std::array<RangeSpec, Rank>& specs,
            const std::string& label = "adlib::DistArray")
      : DistArray(ArrayLayout(group, bind_ranges(group, std::vector<RangeSpec>(specs.begin(),
                                                                               specs.end()))),
                  label) {}

  /// The same, elements left unset (`adlib::uninitialized`, see the file
  /// overview).
  DistArray(const Group& group, const std::array<RangePtr, Rank>& ranges, Uninitialized,
            const std::string& label = "adlib::DistArray")
      : DistArray(ArrayLayout(group, std::vector<RangePtr>(ranges.begin(), ranges.end())),
                  uninitialized, label) {}
  /// The same, elements left unset (`adlib::uninitialized`, see the file
  /// overview).
  DistArray(const Group& group, const std::array<RangeSpec, Rank>& specs, Uninitialized,
            const std::string& label = "adlib::DistArray")
      : DistArray(ArrayLayout(group, bind_ranges(group, std::vector<RangeSpec>(specs.begin(),
                                                                               specs.end()))),
                  uninitialized, label) {}

  /// Allocates the local block of `layout` (a whole array, not a section), padded
  /// if the layout says so, every element T(); every rank of the grid's
  /// communicator calls it (ranks outside the group get an empty View).
  DistArray(const ArrayLayout& layout, const std::string& label = "adlib::DistArray")
      : DistArray(layout, label, true) {}
  /// The same, elements left unset (`adlib::uninitialized`, see the file
  /// overview).
  DistArray(const ArrayLayout& layout, Uninitialized, const std::string& label = "adlib::DistArray")
      : DistArray(layout, label, false) {}

  /// An array over this rank's local block at `data`, element (i_0, ..., i_r)
  /// at data[i_0 * strides[0] + ... + i_r * strides[r]], no copy: the caller
  /// keeps the memory alive for as long as the array and its schedules use
  /// it.  Local blocks are in C order, padding allowed: strides[Rank-1] is 1
  /// and each strides[d] is a multiple of strides[d+1], at least strides[d+1]
  /// times the local extent of dimension d+1 (a Fortran-order block is
  /// wrapped with its dimensions reversed).  The memory holds
  /// local_extents[0] * strides[0] elements.  Ranks outside the layout's
  /// group pass anything (nullptr).  Collective over the grid's communicator
  /// (one MPI_Allreduce): a wrong block on one rank is an adlib::Error naming
  /// the dimension, the expected and the given sizes on every rank.
  static DistArray wrap(const ArrayLayout& layout, T* data,
                        const std::array<Index, Rank>& strides) {
    return DistArray(layout, data, std::nullopt, strides, nullptr);
  }
  /// The same for a packed C-order block (strides from the local extents).
  static DistArray wrap(const ArrayLayout& layout, T* data) {
    std::array<Index, Rank> strides{};
    if (layout.rank() == Rank) {
      const auto e = layout.local_extents(layout.group().grid().comm().rank());
      Index s = 1;
      for (int d = Rank - 1; d >= 0; --d) {
        strides[d] = s;
        s *= std::max<Index>(e[d], 1);
      }
    }
    return DistArray(layout, data, std::nullopt, strides, nullptr);
  }
  /// Over a Kokkos View of this rank's local block (LayoutRight, or
  /// LayoutStride with C-order strides as above), in this array's memory
  /// space.  Each extent must be at least the layout's local extent; larger
  /// inner extents are padding.  The array holds a copy of the View handle,
  /// so a managed View stays alive as long as the array.
  template <class View>
  static DistArray wrap(const ArrayLayout& layout, const View& view) {
    static_assert(Kokkos::is_view<View>::value, "wrap takes a Kokkos::View or a pointer");
    static_assert(static_cast<int>(View::rank) == Rank, "the View's rank is not the array's");
    static_assert(std::is_same<typename View::value_type, T>::value,
                  "the View's element type must be the array's (not const)");
    static_assert(std::is_same<typename View::memory_space, MemorySpace>::value,
                  "the View must live in the array's memory space");
    std::array<Index, Rank> extents{}, strides{};
    for (int d = 0; d < Rank; ++d) {
      extents[d] = static_cast<Index>(view.extent(d));
      strides[d] = static_cast<Index>(view.stride(d));
    }
    return DistArray(layout, view.data(), extents, strides, std::make_shared<const View>(view));
  }

  /// The distribution (the section's, for a section).
  const ArrayLayout& layout() const { return layout_; }
  /// The communicator of the layout's grid.
  const Comm& comm() const { return layout_.group().grid().comm(); }
  /// This process's rank in comm().
  int process_rank() const { return rank_; }
  /// Is this process in the array's group?
  bool holds_data() const { return layout_.holds_data(rank_); }
  /// Extent of dimension `d` (of the section, for a section).
  Index extent(int d) const { return layout_.extent(d); }
  /// The whole local allocation, ghost cells included.
  const view_type& local_view() const { return view_; }
  /// The owned block only (ghost cells excluded): a subview of local_view(),
  /// indexed from 0 at the first owned element.
  auto owned_view() const { return owned_subview(std::make_index_sequence<Rank>{}); }

  /// This process's owned cells (ghosts excluded), per dimension, in local and
  /// global indices; usable inside kernels (see local_box.hpp).  Empty where
  /// the process holds no data.
  LocalBox<Rank> owned_box() const { return adlib::owned_box<Rank>(layout_, rank_); }
  /// This process's whole allocation (ghosts included), as owned_box().
  LocalBox<Rank> ghost_box() const { return adlib::ghost_box<Rank>(layout_, rank_); }

  /// True when both are this allocation or sections of it (the same answer
  /// on every rank, unlike comparing data pointers, which are null where a
  /// rank holds nothing).
  bool shares_allocation_with(const DistArray& other) const {
    return allocation_ == other.allocation_;
  }
  /// The same for an array of another number of dimensions.
  template <int OtherRank>
  bool shares_allocation_with(const DistArray<T, OtherRank, MemorySpace>& other) const {
    return allocation_ == other.allocation_;
  }

  /// A section sharing this array's memory.  Triplets are positions of this
  /// array's index space (0 .. extent(d)-1), negative strides allowed.
  DistArray section(const std::array<Triplet, Rank>& triplets) const {
    DistArray s = *this;
    s.layout_ = layout_.section(std::vector<Triplet>(triplets.begin(), triplets.end()));
    return s;
  }

  /// Calls f(position, value&) for every element this process holds, where
  /// position is the element's index in this array (section) index space.
  /// Host-accessible memory only (a compile-time check): read other memory
  /// through host_mirror(), set it with fill().
  template <class F>
  void for_each_local(F&& f) const {
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible,
                  "for_each_local runs on the host: read device memory through host_mirror(), "
                  "set it with fill()");
    if (!holds_data()) return;
    // (position, memory offset) of each held index, per dimension.
    std::array<std::vector<std::pair<Index, Index>>, Rank> axes;
    for (int d = 0; d < Rank; ++d) {
      axes[d] = layout_.held_along(rank_, d);
      for (auto& held : axes[d]) held.second *= Index(view_.stride(d));
      if (axes[d].empty()) return;
    }
    std::array<size_t, Rank> at{};
    T* data = view_.data();
    while (true) {
      Position p;
      Index offset = 0;
      for (int d = 0; d < Rank; ++d) {
        p[d] = axes[d][at[d]].first;
        offset += axes[d][at[d]].second;
      }
      f(p, data[offset]);
      int d = Rank - 1;
      for (; d >= 0; --d) {
        if (++at[d] < axes[d].size()) break;
        at[d] = 0;
      }
      if (d < 0) break;
    }
  }

  /// Sets every element this process holds to value(position); ghosts and
  /// elements outside a section are left alone.  Works for any memory space
  /// (through a host mirror).
  template <class F>
  void fill(F&& value) {
    auto host = Kokkos::create_mirror_view(view_);
    Kokkos::deep_copy(host, view_);
    DistArray<T, Rank, typename decltype(host)::memory_space> mirror(*this, host);
    mirror.for_each_local([&](const Position& p, T& v) { v = value(p); });
    Kokkos::deep_copy(view_, host);
  }

  /// This process's block where the host can read it, as an array of the
  /// same layout (a section stays that section): this array itself, sharing
  /// its memory, when the host can address that memory; otherwise a copy
  /// in host memory, taken now (Kokkos::create_mirror_view_and_copy), that
  /// later writes on either side do not reach.  For checks and output:
  /// @code
  ///   a.host_mirror().for_each_local([](auto g, double v) { ... });
  /// @endcode
  auto host_mirror() const {
    if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible) {
      return *this;
    } else {
      auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view_);
      return DistArray<T, Rank, typename decltype(host)::memory_space>(*this, host);
    }
  }

  /// Is this array laid over memory given to wrap()?
  bool is_wrapped() const { return wrapped_; }

  /// Same layout, another View (used for host mirrors).
  template <class OtherSpace, class OtherView>
  DistArray(const DistArray<T, Rank, OtherSpace>& like, const OtherView& view)
      : layout_(like.layout()),
        rank_(like.process_rank()),
        view_(view),
        allocation_(std::make_shared<const int>(0)) {}

 private:
  /// The allocating constructors' work: `initialize` sets every element T().
  DistArray(const ArrayLayout& layout, const std::string& label, bool initialize)
      : layout_(layout) {
    if (layout_.rank() != Rank)
      throw Error("layout of rank " + std::to_string(layout_.rank()) + " for a DistArray of rank " +
                      std::to_string(Rank),
                  -1, "DistArray");
    if (layout_.is_section())
      throw Error("allocate the whole array, then take a section of it", -1, "DistArray");
    rank_ = layout_.group().grid().comm().rank();
    allocation_ = std::make_shared<const int>(0);
    view_ = allocate(label, initialize, layout_.storage_extents(rank_),
                     std::make_index_sequence<Rank>{});
  }

  /// wrap(): checks the local block, agrees on the verdict, adopts the memory.
  DistArray(const ArrayLayout& layout, T* data, const std::optional<std::array<Index, Rank>>& given,
            const std::array<Index, Rank>& strides, std::shared_ptr<const void> keep)
      : layout_(layout), wrapped_(true) {
    const Comm& comm = layout.group().grid().comm();
    rank_ = comm.rank();
    std::vector<Index> storage;
    std::string error = wrap_error(layout, rank_, data, given, strides, storage);
    agree_on_errors(comm, error, layout.fingerprint(), "DistArray::wrap");
    layout_ = layout_.with_storage(rank_, storage);
    allocation_ = keep ? std::move(keep) : std::make_shared<const int>(0);
    if (layout_.holds_data(rank_)) view_ = adopt(data, storage, std::make_index_sequence<Rank>{});
  }

  /// Empty when `data` with these extents and strides can hold this rank's
  /// block of `layout`; then `storage` is the padded C-order extents.
  static std::string wrap_error(const ArrayLayout& layout, int rank, const T* data,
                                const std::optional<std::array<Index, Rank>>& given,
                                const std::array<Index, Rank>& strides,
                                std::vector<Index>& storage) {
    if (layout.rank() != Rank)
      return "layout of rank " + std::to_string(layout.rank()) + " for a DistArray of rank " +
             std::to_string(Rank);
    if (layout.is_section()) return "wrap the whole array, then take a section of it";
    const std::vector<Index> need = layout.local_extents(rank);
    storage = need;
    if (!layout.holds_data(rank)) return {};
    const std::string on = "rank " + std::to_string(rank) + ", dimension ";
    if (given)
      for (int d = 0; d < Rank; ++d)
        if ((*given)[d] < need[d])
          return on + std::to_string(d) + ": the layout needs a local extent of " +
                 std::to_string(need[d]) + ", the memory given has " + std::to_string((*given)[d]);
    Index elements = 1;
    for (int d = 0; d < Rank; ++d) elements *= need[d];
    if (elements == 0) return {};  // an empty local block: no memory needed
    if (!data)
      return "rank " + std::to_string(rank) + ": null pointer for a local block of " +
             std::to_string(elements) + " elements";
    if (strides[Rank - 1] != 1)
      return on + std::to_string(Rank - 1) + ": expected stride 1 (local blocks are in C order; " +
             "wrap a Fortran-order block with its dimensions reversed), given " +
             std::to_string(strides[Rank - 1]);
    for (int d = Rank - 2; d >= 0; --d) {
      const Index inner = strides[d + 1], least = inner * need[d + 1];
      if (strides[d] < least || strides[d] % inner != 0)
        return on + std::to_string(d) + ": expected a stride that is a multiple of " +
               std::to_string(inner) + " and at least " + std::to_string(least) +
               " (C order, local extent " + std::to_string(need[d + 1]) + " in dimension " +
               std::to_string(d + 1) + "), given " + std::to_string(strides[d]);
      storage[d + 1] = strides[d] / inner;
    }
    return {};
  }

  template <size_t... I>
  static view_type adopt(T* data, const std::vector<Index>& e, std::index_sequence<I...>) {
    return view_type(data, static_cast<size_t>(e[I])...);
  }

  std::pair<size_t, size_t> owned_interval(int d) const {
    if (!holds_data()) return {0, 0};
    const Range& r = layout_.range(d);
    const auto low = static_cast<size_t>(r.ghost_low());
    return {low, low + static_cast<size_t>(r.local_count(layout_.coordinate(rank_, d)))};
  }
  template <size_t... I>
  auto owned_subview(std::index_sequence<I...>) const {
    return Kokkos::subview(view_, owned_interval(static_cast<int>(I))...);
  }
  // Host blocks in huge pages where large (runtime/detail/block_allocation.hpp).
  template <size_t... I>
  static view_type allocate(const std::string& label, bool initialize, const std::vector<Index>& e,
                            std::index_sequence<I...>) {
    return detail::allocate_block<view_type>(label, initialize, e[I]...);
  }

  ArrayLayout layout_;
  int rank_ = 0;
  view_type view_;
  /// Identity of the memory, shared by sections (and, for a wrapped View, the
  /// View handle that keeps it alive).
  std::shared_ptr<const void> allocation_;
  template <class, int, class>
  friend class DistArray;  // shares_allocation_with() across numbers of dimensions
  bool wrapped_ = false;
};

}  // namespace adlib
