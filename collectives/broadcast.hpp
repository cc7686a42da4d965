// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Broadcast: a section of a DistArray (one element: the scalar case) sent
/// from the process that holds it to every process of a group, into a local
/// Kokkos View on each (Adlib's broadcast of a section); built once for a
/// layout and executed for every array of it; plus one-shot functions.
///
/// @code
///   adlib::DistArray<double, 2> a(grid, {adlib::block(n), adlib::cyclic(m)});
///   auto column = a.section({adlib::Triplet::all(n), adlib::Triplet{k, k, 1}});  // one owner
///   adlib::Broadcast from_owner(column);       // plan once (for column's layout)
///   Kokkos::View<double**, Kokkos::LayoutRight> copy("copy", n, 1);  // its shape
///   from_owner.execute(column, copy);          // every process of a's group: a(:, k)
///   auto again = adlib::broadcast(column);     // one-shot: a View of the section
///   double pivot = adlib::broadcast_value(a, i, k);  // one element, on every process
/// @endcode
///
/// The section must have a single owner: one process holding every one of
/// its elements (with replicas, replica 0 sends: layout.replica(coords, 0)).
/// A section spread over several processes is an adlib::Error on every
/// process: Remap it into a replicated array instead.  Planning finds the
/// owner from the ranges alone (no messages, except the owner lookup of an
/// UnstructuredRange), then builds a BlockTreeSchedule over the group's
/// communicator (group_comm) rooted at the owner: Configuration::broadcast
/// picks its algorithm (MPI_Bcast, binomial tree, node-aware).
///
/// Memory: receivers get the elements straight into their destination View.
/// Where the section is contiguous in the owner's memory (a range of a
/// block-distributed vector, a row of a C-order block), the tree sends from
/// the array itself, and the owner's own copy is one local copy into its
/// destination; otherwise the owner packs the section into its destination
/// (that copy is needed anyway) and the tree sends from there.  No buffer is
/// allocated per execution.
///
/// Calls are collective over the communicator of the layout's grid: every
/// process of it calls, in the same order.  Processes outside the group take
/// no part: their destination is left alone (one-shot forms give them an
/// empty View, value() gives T{}).  The group is the array's by default, or
/// any Group of the same grid that contains a copy of the owner (processes
/// holding none of the array receive too).  Execution checks the array's
/// layout and the destination's shape: unchecked, a mismatch is an
/// adlib::Error where it is seen; in checked mode (Configuration::checked)
/// every process agrees first (one MPI_Allreduce over the grid's
/// communicator), so all of them throw.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <adlib/collectives/group_comm.hpp>
#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/detail/pack.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/strided_block.hpp>
#include <adlib/schedules/tree_schedule.hpp>

namespace adlib {

namespace detail {

/// The owner's pack of a section whose local positions are not a strided
/// box (an UnstructuredRange's own order): offsets[starts[d] + i] is the
/// memory offset of section position i along dimension d.
template <class T, int Rank>
struct GatherSection {
  const T* memory;
  T* out;
  const Index* offsets;
  Index starts[Rank];
  Index extents[Rank];
  KOKKOS_INLINE_FUNCTION void operator()(Index p) const {
    Index rest = p, at = 0;
    for (int d = Rank - 1; d >= 0; --d) {
      at += offsets[starts[d] + rest % extents[d]];
      rest /= extents[d];
    }
    out[p] = memory[at];
  }
};

/// The process coordinate along each dimension of `layout` that holds every
/// element of the section (0 for collapsed dimensions and empty sections);
/// an error message when some dimension's elements are spread over several.
/// Collective over the grid's communicator where a range is not plannable
/// locally (its owners come from Range::locate()); otherwise no messages.
inline std::string section_owner(const ArrayLayout& layout, std::vector<int>& coords) {
  const int rank = layout.rank();
  coords.assign(static_cast<std::size_t>(rank), 0);
  if (layout.size() == 0) return {};
  for (int d = 0; d < rank; ++d) {
    const Range& range = layout.range(d);
    const Triplet& t = layout.section_triplet(d);
    if (!range.dimension()) continue;
    int owner = 0;
    Index held = 0;
    if (range.plannable_locally()) {
      owner = range.owner(t.lo).coord;
      std::vector<Block> blocks;
      range.owned_blocks(owner, t, blocks);
      for (const Block& b : blocks) held += b.count;
    } else {
      std::vector<Index> globals(static_cast<std::size_t>(t.count()));
      for (Index k = 0; k < t.count(); ++k) globals[static_cast<std::size_t>(k)] = t.at(k);
      const std::vector<Owner> owners = range.locate(globals);
      owner = owners.front().coord;
      for (const Owner& o : owners) held += o.coord == owner ? 1 : 0;
    }
    if (held != t.count())
      return "the section " + layout.describe_distribution() + " has more than one owner: along " +
             "dimension " + std::to_string(d) + " coordinate " + std::to_string(owner) + " holds " +
             std::to_string(held) + " of its " + std::to_string(t.count()) +
             " elements.  A Broadcast sends the section from the one process that holds it; " +
             "Remap the section into a replicated array (collapsed ranges) instead";
    coords[static_cast<std::size_t>(d)] = owner;
  }
  return {};
}

}  // namespace detail

/// The broadcast of a section of a DistArray from its owner to every process
/// of a group (see the file overview): construct once, execute many times.
template <class T, int Rank, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Broadcast {
  static_assert(std::is_trivially_copyable<T>::value, "broadcast elements travel as bytes");

 public:
  /// The arrays (sections) it broadcasts.
  using array_type = DistArray<T, Rank, MemorySpace>;
  /// The destination View the one-shot forms return: the section's shape,
  /// C order, in MemorySpace.
  using view_type =
      Kokkos::View<typename detail::add_pointers<T, Rank>::type, Kokkos::LayoutRight, MemorySpace>;

  /// Plans the broadcast of sections of `layout` to the processes of the
  /// layout's group.  Collective over the grid's communicator (see the
  /// file overview); a section with more than one owner is an adlib::Error
  /// on every process.
  explicit Broadcast(const ArrayLayout& layout,
                     const Configuration& config = Configuration::environment())
      : Broadcast(layout, layout.group(), config) {}
  /// The same to the processes of `group` (a Group of the layout's grid
  /// holding a copy of the section's owner).
  Broadcast(const ArrayLayout& layout, const Group& group,
            const Configuration& config = Configuration::environment())
      : layout_(layout), group_(group), config_(config) {
    const char* operation = "Broadcast";
    const Comm& comm = layout.group().grid().comm();
    const int me = comm.rank();
    if (layout.rank() != Rank)
      throw Error("layout of rank " + std::to_string(layout.rank()) + " for a Broadcast of rank " +
                      std::to_string(Rank),
                  me, operation);
    // Every check, and the section itself, is agreed by every process of
    // the grid before the tree is built: a section (or broadcast_value's
    // index) that differs on one rank is an error everywhere, even where
    // both sections fall on the same owner.
    std::string error;
    if (!(group.grid() == layout.group().grid()))
      error = "the group " + group.describe() + " is not over the array's grid " +
              layout.group().grid().describe();
    std::vector<int> coords;
    if (error.empty()) error = detail::section_owner(layout, coords);
    // The first copy of the owner's elements inside the group sends.
    int owner = -1;
    for (long long k = 0; error.empty() && k < layout.replica_count() && owner < 0; ++k) {
      const int holder = layout.replica(coords, k);
      if (group.contains(holder)) owner = holder;
    }
    if (error.empty() && owner < 0)
      error = "the group " + group.describe() + " holds no copy of the section " +
              layout.describe_distribution();
    const std::string group_text = group.describe();
    agree_on_arguments(comm, error,
                       {agreed_layout("section", layout),
                        agreed_element_type<T>(),
                        {"group", fingerprint_of(group_text), [&] { return group_text; }},
                        agreed_configuration(config)},
                       operation);
    member_ = group.contains(me);
    if (!member_) return;
    const std::vector<int> ranks = group.ranks();
    int root = 0;
    while (ranks[static_cast<std::size_t>(root)] != owner) ++root;
    owner_ = me == owner;

    shape_ = layout.shape();
    StridedBlock dense;
    dense.rank = Rank;
    std::int64_t stride = 1;
    for (int d = Rank - 1; d >= 0; --d) {
      dense.extents[d] = shape_[static_cast<std::size_t>(d)];
      dense.strides[d] = stride;
      stride *= dense.extents[d];
    }
    StridedBlock tree_block = dense;
    if (owner_ && layout.size() > 0) {
      if (plan_source(me)) {
        // A contiguous section travels from the array itself.
        in_place_ = source_.normalized().contiguous();
        if (in_place_) tree_block = source_;
      }
    }
    tree_.emplace(group_comm(group), root, tree_block, config);
    if (layout.size() == 1)
      one_ = Kokkos::View<T*, MemorySpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::Broadcast::one"), 1);
  }
  /// The same for `like`'s layout.
  explicit Broadcast(const array_type& like,
                     const Configuration& config = Configuration::environment())
      : Broadcast(like.layout(), config) {}
  /// The same for `like`'s layout, to the processes of `group`.
  Broadcast(const array_type& like, const Group& group,
            const Configuration& config = Configuration::environment())
      : Broadcast(like.layout(), group, config) {}

  /// Collective: every process of the group gets the owner's elements of
  /// `section` (which has the planned layout) in `destination`, a View of
  /// the section's shape in C order (LayoutRight, or strides that are), in
  /// MemorySpace.  Processes outside the group pass anything.
  template <class View>
  void execute(const array_type& section, const View& destination) const {
    static_assert(Kokkos::is_view<View>::value, "the destination is a Kokkos::View");
    static_assert(static_cast<int>(View::rank) == Rank,
                  "the destination has the section's number of dimensions");
    static_assert(std::is_same<typename View::value_type, T>::value,
                  "the destination holds the array's (non-const) element type");
    static_assert(std::is_same<typename View::memory_space, MemorySpace>::value,
                  "the destination lives in the array's memory space");
    std::string error = layout_error(section);
    if (error.empty() && member_) error = destination_error(destination);
    check(error, 1, "Broadcast::execute");
    if (member_) run(section, destination.data());
  }
  /// Collective: the section in a new View of its shape (an empty View
  /// outside the group).
  view_type execute(const array_type& section) const {
    view_type destination = allocate(std::make_index_sequence<Rank>{});
    execute(section, destination);
    return destination;
  }
  /// Collective, for a section of one element: its value on every process
  /// of the group (T{} outside it).
  T value(const array_type& element) const {
    std::string error = layout_error(element);
    if (error.empty() && layout_.size() != 1)
      error = "value() broadcasts a section of one element, this one has " +
              std::to_string(layout_.size());
    check(error, 2, "Broadcast::value");
    T result{};
    if (!member_) return result;
    run(element, one_.data());
    Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(&result, 1);
    Kokkos::deep_copy(host, one_);
    return result;
  }

  /// The layout every broadcast section must have.
  const ArrayLayout& layout() const { return layout_; }
  /// The processes that receive the section.
  const Group& group() const { return group_; }
  /// Is this process in the group?
  bool member() const { return member_; }
  /// Does this process send the section (the owner's copy in the group)?
  bool owner() const { return owner_; }
  /// Does the owner send straight from the array's memory (a contiguous
  /// section), with no pack?
  bool sends_in_place() const { return in_place_; }
  /// The tree's algorithm (BroadcastAlgorithm::mpi outside the group).
  BroadcastAlgorithm algorithm() const {
    return tree_ ? tree_->algorithm() : BroadcastAlgorithm::mpi;
  }

 private:
  /// The owner's section in its local memory: source_ when it is a strided
  /// box (returns true), else the offset tables of the gather.
  bool plan_source(int me) {
    const std::vector<Index> strides = layout_.local_strides(me);
    std::vector<std::vector<std::pair<Index, Index>>> held(Rank);
    bool box = true;
    source_.rank = Rank;
    source_.offset = 0;
    for (int d = 0; d < Rank; ++d) {
      held[d] = layout_.held_along(me, d);
      const auto& h = held[d];
      const Index step = h.size() > 1 ? h[1].second - h[0].second : 0;
      for (std::size_t k = 1; k < h.size() && box; ++k)
        box = h[k].second - h[k - 1].second == step && h[k].first == Index(k);
      source_.offset += h[0].second * strides[d];
      source_.extents[d] = static_cast<std::int64_t>(h.size());
      source_.strides[d] = step * strides[d];
    }
    if (box) return true;
    std::vector<Index> table;
    for (int d = 0; d < Rank; ++d) {
      gather_.starts[d] = static_cast<Index>(table.size());
      gather_.extents[d] = static_cast<Index>(held[d].size());
      for (const auto& [position, local] : held[d]) {
        (void)position;
        table.push_back(local * strides[d]);
      }
    }
    offsets_ = Kokkos::View<Index*, MemorySpace>("adlib::Broadcast::offsets", table.size());
    Kokkos::deep_copy(
        offsets_,
        Kokkos::View<const Index*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
            table.data(), table.size()));
    return false;
  }

  /// The owner's copy and the tree: every member's `destination` (dense,
  /// the section's C order) becomes the section.
  void run(const array_type& section, T* destination) const {
    using execution_space = typename MemorySpace::execution_space;
    if (!owner_ || layout_.size() == 0) return tree_->execute(destination);
    const T* memory = section.local_view().data();
    if (in_place_) {
      tree_->execute(const_cast<T*>(memory));
      detail::pack_block(execution_space(), memory, source_, destination);
      execution_space().fence();
      return;
    }
    if (offsets_.size() == 0) {
      detail::pack_block(execution_space(), memory, source_, destination);
    } else {
      detail::GatherSection<T, Rank> gather = gather_;
      gather.memory = memory;
      gather.out = destination;
      gather.offsets = offsets_.data();
      Kokkos::parallel_for("adlib::Broadcast::gather",
                           Kokkos::RangePolicy<execution_space>(0, layout_.size()), gather);
    }
    execution_space().fence();
    tree_->execute(destination);
  }

  template <std::size_t... I>
  view_type allocate(std::index_sequence<I...>) const {
    if (!member_) return view_type("adlib::broadcast", (static_cast<void>(I), std::size_t(0))...);
    return view_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, "adlib::broadcast"),
                     static_cast<std::size_t>(shape_[I])...);
  }

  /// Empty when `a` has the planned layout, else the complaint.
  std::string layout_error(const array_type& a) const {
    if (a.layout() == layout_) return {};
    return "the array has layout " + a.layout().describe() + ", the Broadcast was built for " +
           layout_.describe();
  }
  /// Empty when `destination` has the section's shape in C order.
  template <class View>
  std::string destination_error(const View& destination) const {
    bool fits = true;
    std::string shape, given;
    std::int64_t stride = 1;
    for (int d = Rank - 1; d >= 0; --d) {
      const auto extent = static_cast<Index>(destination.extent(d));
      fits = fits && extent == shape_[static_cast<std::size_t>(d)] &&
             (extent <= 1 || static_cast<std::int64_t>(destination.stride(d)) == stride);
      stride *= extent;
    }
    if (fits) return {};
    for (int d = 0; d < Rank; ++d) {
      shape += (d ? " x " : "") + std::to_string(shape_[static_cast<std::size_t>(d)]);
      given += (d ? " x " : "") + std::to_string(destination.extent(d)) + " (stride " +
               std::to_string(destination.stride(d)) + ")";
    }
    return "rank " + std::to_string(layout_.group().grid().comm().rank()) +
           ": the destination must be a C-order View of the section's shape " + shape + ", given " +
           given;
  }
  /// Throws where `error` is not empty; in checked mode agrees first, over
  /// the grid's communicator, on the verdicts and on which operation runs.
  void check(const std::string& error, std::uint64_t operation_id, const char* operation) const {
    const Comm& comm = layout_.group().grid().comm();
    if (!config_.checked) {
      if (!error.empty()) throw Error(error, comm.rank(), operation);
      return;
    }
    // The layout and element type were agreed at construction; what runs
    // is agreed by name ("operation: ArrayReduction::sum on ranks 0, 2; ...").
    agree_on_arguments(
        comm, error,
        {{"operation code", operation_id, [operation] { return std::string(operation); }}},
        operation);
  }

  ArrayLayout layout_;
  Group group_;
  Configuration config_;
  bool member_ = false;
  bool owner_ = false;
  bool in_place_ = false;
  std::vector<Index> shape_;
  StridedBlock source_;                      ///< the owner's section in its memory (a strided box)
  detail::GatherSection<T, Rank> gather_{};  ///< otherwise: the gather's tables
  Kokkos::View<Index*, MemorySpace> offsets_;
  Kokkos::View<T*, MemorySpace> one_;  ///< value()'s destination
  std::optional<BlockTreeSchedule<T, MemorySpace>> tree_;
};

/// Deduction guide: adlib::Broadcast b(section) takes T, Rank and the memory
/// space from the array.
template <class T, int Rank, class MemorySpace>
Broadcast(const DistArray<T, Rank, MemorySpace>&) -> Broadcast<T, Rank, MemorySpace>;
/// The same with a Configuration.
template <class T, int Rank, class MemorySpace>
Broadcast(const DistArray<T, Rank, MemorySpace>&, const Configuration&)
    -> Broadcast<T, Rank, MemorySpace>;
/// The same with a Group.
template <class T, int Rank, class MemorySpace>
Broadcast(const DistArray<T, Rank, MemorySpace>&, const Group&) -> Broadcast<T, Rank, MemorySpace>;
/// The same with a Group and a Configuration.
template <class T, int Rank, class MemorySpace>
Broadcast(const DistArray<T, Rank, MemorySpace>&, const Group&, const Configuration&)
    -> Broadcast<T, Rank, MemorySpace>;

/// One-shot broadcast of `section` to its group (collective: plan, send,
/// drop): a new View of the section on every process of the group, empty
/// outside it.
template <class T, int Rank, class MemorySpace>
typename Broadcast<T, Rank, MemorySpace>::view_type broadcast(
    const DistArray<T, Rank, MemorySpace>& section) {
  return Broadcast<T, Rank, MemorySpace>(section).execute(section);
}
/// The same to the processes of `group`.
template <class T, int Rank, class MemorySpace>
typename Broadcast<T, Rank, MemorySpace>::view_type broadcast(
    const DistArray<T, Rank, MemorySpace>& section, const Group& group) {
  return Broadcast<T, Rank, MemorySpace>(section, group).execute(section);
}
/// One-shot broadcast of the element of `a` at `index` (one index per
/// dimension, positions of a's index space): its value on every process of
/// a's group (T{} outside it).
template <class T, int Rank, class MemorySpace, class... Indices>
T broadcast_value(const DistArray<T, Rank, MemorySpace>& a, Indices... index) {
  static_assert(sizeof...(Indices) == Rank, "one index per dimension");
  const std::array<Triplet, Rank> at{Triplet{Index(index), Index(index), 1}...};
  const DistArray<T, Rank, MemorySpace> element = a.section(at);
  return Broadcast<T, Rank, MemorySpace>(element).value(element);
}

}  // namespace adlib
