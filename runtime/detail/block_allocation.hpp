// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The local block of a distributed array or field, allocated so that
/// random accesses to it stay cheap: a host block of 4 MiB or more is
/// advised into transparent huge pages (huge_pages.hpp) before its first
/// write.  A gather's, a scatter's or a halo's pack reads a block at
/// scattered offsets, and with 4 KiB pages nearly every such read of a
/// block larger than the TLB's reach also walks the page table: 2^18
/// random reads of a 16 MiB block took 810-840 us with 4 KiB pages and
/// 390-410 us with huge ones (one core, AMD EPYC VM).
///
/// @code
///   using View = Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace>;
///   View block = adlib::detail::allocate_block<View>("label", true, rows, columns);
/// @endcode
#pragma once

#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>

#include <adlib/runtime/detail/huge_pages.hpp>

namespace adlib::detail {

/// A View of `extents`, every element value-initialised when `initialize`
/// (as Kokkos does), else left unset.  Host blocks of trivially copyable
/// elements are allocated without Kokkos' fill, advised, then filled, so
/// that the fill is the first write; other memory spaces and element types
/// are allocated by Kokkos as usual.
template <class View, class... Extents>
View allocate_block(const std::string& label, bool initialize, Extents... extents) {
  using T = typename View::non_const_value_type;
  constexpr bool host = std::is_same<typename View::memory_space, Kokkos::HostSpace>::value;
  if (initialize && !(host && std::is_trivially_copyable<T>::value))
    return View(label, static_cast<std::size_t>(extents)...);
  View view(Kokkos::view_alloc(Kokkos::WithoutInitializing, label),
            static_cast<std::size_t>(extents)...);
  if constexpr (host) advise_huge_pages(view.data(), view.span() * sizeof(T));
  if (initialize) Kokkos::deep_copy(view, T());
  return view;
}

}  // namespace adlib::detail
