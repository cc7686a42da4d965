// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// gather_all: the whole of a distributed array (or section) on every rank,
/// as a flat C-order std::vector.  For tests, diagnostics and small data: it
/// moves every element to every rank.
///
/// @code
///   std::vector<double> everything = adlib::gather_all(a);
/// @endcode
#pragma once

#include <mpi.h>

#include <cstring>
#include <vector>

#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

/// Every element of `a`, on every rank of its communicator, at C-order linear
/// index of its position.  Collective over a.comm(): every rank calls it.
template <class T, int Rank, class MemorySpace>
std::vector<T> gather_all(const DistArray<T, Rank, MemorySpace>& a) {
  static_assert(std::is_trivially_copyable<T>::value, "gather_all moves elements as bytes");
  const ArrayLayout& layout = a.layout();
  const Comm& comm = a.comm();
  // Only the first replica of each element contributes.
  std::vector<long long> indices;
  std::vector<T> values;
  auto host = Kokkos::create_mirror_view(a.local_view());
  Kokkos::deep_copy(host, a.local_view());
  DistArray<T, Rank, typename decltype(host)::memory_space> mirror(a, host);
  bool first_replica = true;
  if (a.holds_data()) {
    std::vector<int> coords(Rank);
    for (int d = 0; d < Rank; ++d) coords[d] = layout.coordinate(a.process_rank(), d);
    first_replica = layout.ranks_holding(coords).front() == a.process_rank();
  }
  if (first_replica)
    mirror.for_each_local([&](const std::array<Index, Rank>& p, const T& v) {
      long long linear = 0;
      for (int d = 0; d < Rank; ++d) linear = linear * layout.extent(d) + p[d];
      indices.push_back(linear);
      values.push_back(v);
    });
  const int size = comm.size();
  int mine = static_cast<int>(indices.size());
  std::vector<int> counts(size), displs(size, 0);
  ADLIB_MPI(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm.get()), "gather_all");
  for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  const int total = displs[size - 1] + counts[size - 1];
  std::vector<long long> all_indices(total);
  ADLIB_MPI(MPI_Allgatherv(indices.data(), mine, MPI_LONG_LONG, all_indices.data(), counts.data(),
                           displs.data(), MPI_LONG_LONG, comm.get()),
            "gather_all");
  std::vector<int> byte_counts(size), byte_displs(size);
  for (int r = 0; r < size; ++r) {
    byte_counts[r] = counts[r] * static_cast<int>(sizeof(T));
    byte_displs[r] = displs[r] * static_cast<int>(sizeof(T));
  }
  std::vector<T> all_values(total);
  ADLIB_MPI(
      MPI_Allgatherv(values.data(), mine * static_cast<int>(sizeof(T)), MPI_BYTE, all_values.data(),
                     byte_counts.data(), byte_displs.data(), MPI_BYTE, comm.get()),
      "gather_all");
  std::vector<T> out(static_cast<size_t>(layout.size()));
  for (int i = 0; i < total; ++i) out[all_indices[i]] = all_values[i];
  return out;
}

}  // namespace adlib
