// SPDX-License-Identifier: BSD-3-Clause
// Implementation detail: the hashes behind the fingerprints that schedule
// constructors agree on across ranks.  Not part of the documented API.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace adlib {
namespace detail {

constexpr std::uint64_t hash_start() {
  return 1469598103934665603ull;  // FNV-1a offset basis
}

// Mixes one 64-bit value into h (FNV-1a over its eight bytes).
constexpr std::uint64_t hash_mix(std::uint64_t h, std::uint64_t value) {
  for (int byte = 0; byte < 8; ++byte) {
    h ^= (value >> (8 * byte)) & 0xffu;
    h *= 1099511628211ull;
  }
  return h;
}

// FNV-1a over the bytes of `text`: the hash of every text that is
// fingerprinted (layouts' descriptions, operation names).
inline std::uint64_t hash_text(std::string_view text) {
  std::uint64_t h = hash_start();
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

// The kinds of element type that differ on the wire even at equal size.
enum class ElementKind : std::uint64_t {
  signed_integral = 1,
  unsigned_integral,
  floating,
  complex_floating,
  other
};

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

template <class T>
constexpr ElementKind element_kind() {
  if constexpr (std::is_floating_point<T>::value) return ElementKind::floating;
  if constexpr (is_complex<T>::value) return ElementKind::complex_floating;
  if constexpr (std::is_integral<T>::value)
    return std::is_signed<T>::value ? ElementKind::signed_integral : ElementKind::unsigned_integral;
  return ElementKind::other;
}

// Size, alignment and kind of the element type: schedules built for float
// on one rank and double (or int) on another differ here.
template <class T>
constexpr std::uint64_t element_fingerprint() {
  std::uint64_t h = hash_mix(hash_start(), sizeof(T));
  h = hash_mix(h, alignof(T));
  return hash_mix(h, static_cast<std::uint64_t>(element_kind<T>()));
}

// The element type in words, for error messages: "8-byte floating point".
template <class T>
std::string describe_element() {
  const char* kinds[] = {"",
                         "signed integer",
                         "unsigned integer",
                         "floating point",
                         "complex floating point",
                         "trivially copyable type"};
  return std::to_string(sizeof(T)) + "-byte " + kinds[static_cast<int>(element_kind<T>())];
}

}  // namespace detail
}  // namespace adlib
