// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The MPI datatype of an element type, so that messages are typed: MPI's own
/// type for arithmetic types and std::complex, a contiguous run of bytes for
/// any other trivially copyable type (a user's struct).
///
/// @code
///   MPI_Datatype t = adlib::predefined_datatype<double>();        // MPI_DOUBLE
///   MPI_Datatype c = adlib::predefined_datatype<std::complex<float>>();  // MPI_C_FLOAT_COMPLEX
///   adlib::predefined_datatype<Particle>() == MPI_DATATYPE_NULL;  // ElementTypes makes one
/// @endcode
#pragma once

#include <mpi.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/runtime/error.hpp>

namespace adlib {

/// MPI's predefined datatype for T, MPI_DATATYPE_NULL when there is none
/// (then the element travels as sizeof(T) bytes).
template <class T>
MPI_Datatype predefined_datatype() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<U, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<U, long double>)
    return MPI_LONG_DOUBLE;
  else if constexpr (std::is_same_v<U, std::complex<double>>)
    return MPI_C_DOUBLE_COMPLEX;
  else if constexpr (std::is_same_v<U, std::complex<float>>)
    return MPI_C_FLOAT_COMPLEX;
  else if constexpr (std::is_same_v<U, bool>)
    return MPI_C_BOOL;
  else if constexpr (std::is_same_v<U, char>)
    return MPI_CHAR;
  else if constexpr (std::is_same_v<U, signed char>)
    return MPI_SIGNED_CHAR;
  else if constexpr (std::is_same_v<U, unsigned char>)
    return MPI_UNSIGNED_CHAR;
  else if constexpr (std::is_same_v<U, short>)
    return MPI_SHORT;
  else if constexpr (std::is_same_v<U, unsigned short>)
    return MPI_UNSIGNED_SHORT;
  else if constexpr (std::is_same_v<U, int>)
    return MPI_INT;
  else if constexpr (std::is_same_v<U, unsigned>)
    return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<U, long>)
    return MPI_LONG;
  else if constexpr (std::is_same_v<U, unsigned long>)
    return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<U, long long>)
    return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<U, unsigned long long>)
    return MPI_UNSIGNED_LONG_LONG;
  else
    return MPI_DATATYPE_NULL;
}

/// The datatypes a schedule sends its elements as: the predefined ones as
/// they are, and for other types one committed contiguous byte type per
/// size, made on first use and freed with the object.  Not copyable (it owns
/// MPI objects).
class ElementTypes {
 public:
  ElementTypes() = default;
  ElementTypes(const ElementTypes&) = delete;
  ElementTypes& operator=(const ElementTypes&) = delete;
  ~ElementTypes() { release(); }

  /// The datatype of one T.
  template <class T>
  MPI_Datatype of() {
    static_assert(std::is_trivially_copyable<T>::value, "elements travel as bytes");
    const MPI_Datatype predefined = predefined_datatype<T>();
    if (predefined != MPI_DATATYPE_NULL) return predefined;
    return bytes(sizeof(T));
  }

  /// Frees the types made so far (unless MPI is finalised).
  void release() {
    int finalized = 0;
    ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
    if (!finalized)
      for (auto& [size, type] : made_) ADLIB_MPI_CLEANUP(MPI_Type_free(&type));
    made_.clear();
  }

 private:
  MPI_Datatype bytes(std::size_t size) {
    for (const auto& [s, type] : made_)
      if (s == size) return type;
    MPI_Datatype type;
    ADLIB_MPI(MPI_Type_contiguous(static_cast<int>(size), MPI_BYTE, &type), "ElementTypes");
    ADLIB_MPI(MPI_Type_commit(&type), "ElementTypes");
    made_.emplace_back(size, type);
    return type;
  }
  std::vector<std::pair<std::size_t, MPI_Datatype>> made_;
};

}  // namespace adlib
