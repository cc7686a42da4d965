// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The Distributed Array Protocol's descriptor (what Python's __distarray__
/// returns) as plain C++ values: a version, this process's buffer (pointer,
/// PEP-3118 element format, shape, strides in bytes) and one dimension
/// dictionary per dimension.  No Kokkos, no MPI: a bridge from Python dicts,
/// a JSON reader (dap_json.hpp) or a test builds one field by field.
///
/// @code
///   adlib::dap::Descriptor d;
///   d.buffer = {data, "d", 8, {5}, {8}};           // 5 doubles, contiguous
///   adlib::dap::DimensionData rows;
///   rows.dist_type = 'b';
///   rows.size = 10; rows.proc_grid_size = 2; rows.proc_grid_rank = 0;
///   rows.start = 0; rows.stop = 5;
///   d.dim_data = {rows};
/// @endcode
///
/// The keys keep the spec's names.  Optional keys are std::optional, so a
/// descriptor read from text is written back with the same keys.  An empty
/// dimension dictionary (the spec's alias for an undistributed dimension) is
/// `DimensionData::undistributed()`; resolved() expands it.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace Kokkos {
template <class RealType>
class complex;
}

namespace adlib::dap {

/// The protocol version this implementation writes; descriptors of the same
/// major version are accepted (semantic versioning, as the spec says).
inline constexpr const char* protocol_version = "0.10.0";

/// One process's local memory: PEP-3118's view of it.
struct Buffer {
  /// The first element of the local block (ghost / padding cells included).
  void* data = nullptr;
  /// PEP-3118 struct format of one element: "d" double, "f" float, "i" int32,
  /// "q" int64, "Zd" complex double, "Zf" complex float ...
  std::string format = "d";
  /// Bytes per element.
  std::int64_t itemsize = 8;
  /// Elements per dimension (the whole local buffer, padding included).
  std::vector<std::int64_t> shape;
  /// Bytes between consecutive elements of each dimension.
  std::vector<std::int64_t> strides;
};

/// A dimension dictionary.  The common keys, then those of 'b' (start, stop,
/// padding, periodic), 'c' (start, block_size) and 'u' (indices, one_to_one).
struct DimensionData {
  /// True for the empty dictionary {} (an undistributed dimension).
  bool empty = false;
  /// 'b' block, 'c' cyclic, 'u' unstructured.
  char dist_type = 'b';
  /// Global elements along this dimension (boundary padding included).
  std::int64_t size = 0;
  /// Processes of the grid along this dimension.
  std::int64_t proc_grid_size = 1;
  /// This process's coordinate along it.
  std::int64_t proc_grid_rank = 0;
  /// 'b', 'c': the first global index of this process's buffer.
  std::int64_t start = 0;
  /// 'b': one past the last global index of this process's buffer.
  std::int64_t stop = 0;
  /// 'b': widths at the low and the high end of the buffer (boundary padding
  /// at the ends of the grid, communication padding elsewhere).
  std::optional<std::array<std::int64_t, 2>> padding;
  /// 'b': the dimension wraps around.
  std::optional<bool> periodic;
  /// 'c': tile size (1 when absent: cyclic).
  std::optional<std::int64_t> block_size;
  /// 'u': the global indices of this process's buffer, in local order.
  std::vector<std::int64_t> indices;
  /// 'u': every global index is on exactly one process (false when absent).
  std::optional<bool> one_to_one;

  /// The empty dictionary {}.
  static DimensionData undistributed() {
    DimensionData d;
    d.empty = true;
    return d;
  }
  /// padding, or (0, 0) when absent.
  std::array<std::int64_t, 2> padding_or_zero() const {
    return padding ? *padding : std::array<std::int64_t, 2>{0, 0};
  }
};

/// What __distarray__ returns on one process.
struct Descriptor {
  /// "major.minor.patch".
  std::string version = protocol_version;
  /// This process's local buffer.
  Buffer buffer;
  /// One dictionary per dimension of the buffer.
  std::vector<DimensionData> dim_data;
};

/// The dictionary with the empty alias expanded (the spec's
/// {'dist_type': 'b', 'proc_grid_rank': 0, 'proc_grid_size': 1, 'start': 0,
/// 'stop': n, 'size': n} for a buffer extent n); others unchanged.
inline DimensionData resolved(const DimensionData& d, std::int64_t buffer_extent) {
  if (!d.empty) return d;
  DimensionData r;
  r.dist_type = 'b';
  r.size = buffer_extent;
  r.stop = buffer_extent;
  return r;
}

/// Elements this process owns along `d` (already resolved): the buffer
/// minus communication padding for 'b' (boundary padding counts), the
/// tiles dealt to its coordinate for 'c', the length of the list for 'u'.
/// Summed over the coordinates of the dimension, it gives 'size'.
inline std::int64_t num_owned_indices(const DimensionData& d) {
  if (d.dist_type == 'b') {
    const auto pad = d.padding_or_zero();
    std::int64_t count = d.stop - d.start;
    if (d.proc_grid_rank != 0) count -= pad[0];
    if (d.proc_grid_rank != d.proc_grid_size - 1) count -= pad[1];
    return count;
  }
  if (d.dist_type == 'c') {
    const std::int64_t b = d.block_size.value_or(1);
    if (b < 1 || d.proc_grid_size < 1 || d.start < 0 || d.start >= d.size) return 0;
    // Tiles of the remaining n indices start at start, start + P*b, ...: this
    // process gets tiles 0, P, 2P, ... of them, the last one maybe partial.
    // (Written so that no product can overflow on hostile input.)
    const std::int64_t n = d.size - d.start, tiles = n / b, partial = n % b;
    const std::int64_t mine = tiles / d.proc_grid_size + (tiles % d.proc_grid_size != 0);
    return mine * b + (partial != 0 && tiles % d.proc_grid_size == 0 ? partial : 0);
  }
  return static_cast<std::int64_t>(d.indices.size());
}

/// PEP-3118 format and size of T, for the element types adlib moves.
template <class T>
struct ElementFormat;
/// @cond element_formats
#define ADLIB_DAP_FORMAT(type, text)                        \
  template <>                                               \
  struct ElementFormat<type> {                              \
    static std::string format() { return text; }            \
    static std::int64_t itemsize() { return sizeof(type); } \
  };
ADLIB_DAP_FORMAT(double, "d")
ADLIB_DAP_FORMAT(float, "f")
ADLIB_DAP_FORMAT(std::int8_t, "b")
ADLIB_DAP_FORMAT(std::uint8_t, "B")
ADLIB_DAP_FORMAT(std::int16_t, "h")
ADLIB_DAP_FORMAT(std::uint16_t, "H")
ADLIB_DAP_FORMAT(std::int32_t, "i")
ADLIB_DAP_FORMAT(std::uint32_t, "I")
ADLIB_DAP_FORMAT(long long, "q")
ADLIB_DAP_FORMAT(unsigned long long, "Q")
ADLIB_DAP_FORMAT(std::complex<double>, "Zd")
ADLIB_DAP_FORMAT(std::complex<float>, "Zf")
#undef ADLIB_DAP_FORMAT
/// Kokkos::complex<double> is "Zd", Kokkos::complex<float> "Zf" (declared
/// only: sizeof waits until Kokkos is included and the type used).
template <class Real>
struct ElementFormat<Kokkos::complex<Real>> {
  static std::string format() { return std::is_same<Real, float>::value ? "Zf" : "Zd"; }
  static std::int64_t itemsize() { return sizeof(Kokkos::complex<Real>); }
};
/// long is "l" in PEP-3118 (64 bits on LP64, the same as "q").
template <>
struct ElementFormat<long> {
  static std::string format() { return "l"; }
  static std::int64_t itemsize() { return sizeof(long); }
};
/// unsigned long is "L".
template <>
struct ElementFormat<unsigned long> {
  static std::string format() { return "L"; }
  static std::int64_t itemsize() { return sizeof(unsigned long); }
};
/// @endcond

/// Does a buffer of `format` / `itemsize` hold T's?  Byte-order prefixes
/// ('@', '=', '<') are ignored, and integer codes of the same signedness and
/// size are the same type ("l" and "q" on LP64).
bool format_matches(const std::string& format, std::int64_t itemsize, const std::string& expected,
                    std::int64_t expected_itemsize);

}  // namespace adlib::dap
