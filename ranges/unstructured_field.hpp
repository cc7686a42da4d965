// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// UnstructuredField<T, MemorySpace>: the values of an UnstructuredLayout on
/// this rank (a column of values per owned and halo entry) plus the state of
/// its halo, LFRic's dirty flags: which depths hold the owners' current
/// values.
///
/// @code
///   adlib::UnstructuredField<double> u(layout);
///   auto v = u.local_view();          // v(e, k): entry e, level k (k innermost)
///   ... update the owned entries ...
///   u.set_dirty();                    // every halo depth is stale
///   halo.execute(2, u);               // fills depths 1 and 2, marks them clean
///   halo.execute(1, u);               // depth 1 is clean: sends nothing
/// @endcode
///
/// A new field's halo is dirty.  Whoever writes the owned entries calls
/// set_dirty(); DepthHalo marks what it fills clean; set_clean(d) is for code
/// that computed depths 1..d redundantly itself.  The state belongs to the
/// data, so copies of a field (which share its memory, as Kokkos Views do)
/// share it too.  The flags are the same on every rank when every rank runs
/// the same code, which is what lets a clean exchange skip its messages
/// without asking anyone; checked mode (Configuration::checked) verifies it.
#pragma once

#include <Kokkos_Core.hpp>
#include <memory>
#include <string>
#include <type_traits>

#include <adlib/ranges/unstructured_layout.hpp>
#include <adlib/runtime/detail/block_allocation.hpp>

namespace adlib {

/// A field over an UnstructuredLayout with its halo's dirty state (see the
/// file overview).  Copies share memory and state.
template <class T, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class UnstructuredField {
  static_assert(std::is_trivially_copyable<T>::value, "fields move their values as bytes");

 public:
  /// The value type.
  using value_type = T;
  /// Where the values live.
  using memory_space = MemorySpace;
  /// Entries x column, C order: a column's values are contiguous.
  using view_type = Kokkos::View<T**, Kokkos::LayoutRight, MemorySpace>;

  /// Allocates (zero-initialised) the local entries of `layout`: owned
  /// first, then every halo depth (on the host, in huge pages where large:
  /// a halo's pack reads owned entries at scattered offsets).  The halo
  /// starts dirty.
  explicit UnstructuredField(const UnstructuredLayout& layout,
                             const std::string& label = "adlib::UnstructuredField")
      : layout_(layout),
        view_(detail::allocate_block<view_type>(label, true, layout.entries(), layout.column())),
        clean_depth_(std::make_shared<int>(0)) {}

  /// The layout.
  const UnstructuredLayout& layout() const { return layout_; }
  /// This rank's values: owned entries, then halo depth 1, 2, ...
  const view_type& local_view() const { return view_; }

  /// Does depth `d` of the halo miss the owners' latest values?
  bool is_dirty(int d) const { return d > *clean_depth_; }
  /// Every halo depth is stale (call after writing owned entries).
  void set_dirty() const { *clean_depth_ = 0; }
  /// Depths 1 .. d hold the owners' values (deeper ones keep their state
  /// only if they were clean already: cleaning to d never dirties more).
  void set_clean(int d) const {
    if (d > *clean_depth_) *clean_depth_ = d;
  }
  /// The deepest depth up to which the halo is clean (0: all dirty).
  int clean_depth() const { return *clean_depth_; }

 private:
  UnstructuredLayout layout_;
  view_type view_;
  std::shared_ptr<int> clean_depth_;  ///< shared by copies, like the memory
};

}  // namespace adlib
