// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// UnstructuredLayout: the entries of an unstructured mesh that one rank
/// holds, by global id, in LFRic's order: the entries it owns first, then the
/// halo entries of depth 1, of depth 2, ... (each depth contiguous).  Each
/// entry holds a column of `column` values (LFRic's k-innermost columns of
/// nlayers levels, or the values of a multi-data field), contiguous in memory.
///
/// @code
///   // Rank r owns cells {17, 4, 9} and needs cells {3, 12} at depth 1 and
///   // {25} at depth 2 (global ids: any non-negative integers).
///   adlib::UnstructuredLayout layout(comm, {17, 4, 9}, {{3, 12}, {25}}, nlayers);
///   adlib::UnstructuredField<double> u(layout);   // 6 entries x nlayers values
///   adlib::DepthHalo halo(u);                     // owners found by the library
///   halo.execute(2, u);                           // depths 1 and 2 filled
/// @endcode
///
/// @verbatim
///   local entries:  | owned (owned_count) | depth 1 | depth 2 | ... | depth D |
///   entry e, level k: local_view()(e, k), at memory offset e * column + k
/// @endverbatim
///
/// The layout is plain data, built without communication: ids differ from
/// rank to rank, so its checks (non-negative ids, each id at most once on a
/// rank, a column of at least one value) are kept as error() and agreed
/// across ranks by the collective that uses the layout first (DepthHalo's
/// constructor), where a bad list on any rank is an adlib::Error on every
/// rank.  Copies share the lists (the same layout, as far as schedules are
/// concerned).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <adlib/ranges/triplet.hpp>
#include <adlib/runtime/comm.hpp>

namespace adlib {

/// One rank's entries of an unstructured mesh, owned then halo by depth (see
/// the file overview).  A shared, immutable value: copies are the same layout.
class UnstructuredLayout {
 public:
  /// This rank's `owned` ids and its `halo` ids by depth (halo[0]: depth 1,
  /// each depth in the order its entries sit in memory), `column` values per
  /// entry.  Every rank of `comm` passes the same number of depths (an empty
  /// list for a depth at which it has no halo) and the same column.
  UnstructuredLayout(const Comm& comm, std::vector<std::int64_t> owned,
                     const std::vector<std::vector<std::int64_t>>& halo = {}, Index column = 1);
  /// Without MPI: only for planning and inspection (comm() throws).
  explicit UnstructuredLayout(std::vector<std::int64_t> owned,
                              const std::vector<std::vector<std::int64_t>>& halo = {},
                              Index column = 1);

  /// The same layout from LFRic's own form, taken over without a copy:
  /// every local id in local order (`ids`: the owned ids, then depth 1's,
  /// depth 2's, ...) and where each part ends (`depth_end[0]`: the owned
  /// count, `depth_end[d]`: one past depth d's last entry; non-decreasing,
  /// the last one ids.size()).  Ends that do not fit the list are kept as
  /// error() (and the layout then holds every id as owned).
  static UnstructuredLayout from_local_ids(const Comm& comm, std::vector<std::int64_t> ids,
                                           std::vector<Index> depth_end, Index column = 1);

  /// The processes the mesh is spread over (an adlib::Error for a layout
  /// made without a communicator).
  const Comm& comm() const;
  /// Halo depths listed (the same on every rank).
  int depth() const { return static_cast<int>(state_->depth_end.size()) - 1; }
  /// Values per entry.
  Index column() const { return state_->column; }
  /// Entries this rank owns: local entries 0 .. owned_count() - 1.
  Index owned_count() const { return state_->depth_end[0]; }
  /// One past the last local entry of depth `d` (0: the owned entries), so
  /// depth d occupies [halo_end(d - 1), halo_end(d)).  0 <= d <= depth().
  Index halo_end(int d) const { return state_->depth_end.at(static_cast<std::size_t>(d)); }
  /// Entries of depth `d` alone (1 <= d <= depth()).
  Index halo_count(int d) const { return halo_end(d) - halo_end(d - 1); }
  /// Every local entry: owned and halo.
  Index entries() const { return state_->depth_end.back(); }
  /// Values in local memory: entries() * column().
  Index local_size() const { return entries() * column(); }
  /// The global id of every local entry, in local order.
  const std::vector<std::int64_t>& ids() const { return state_->ids; }
  /// The global id of local entry `e`.
  std::int64_t id(Index e) const { return state_->ids.at(static_cast<std::size_t>(e)); }

  /// Empty when this rank's lists are valid, else the reason (see the file
  /// overview: a collective agrees on it).
  const std::string& error() const { return state_->error; }
  /// What every rank's layout must share: depth() and column().
  std::uint64_t fingerprint() const;
  /// depth and column, in words (error messages).
  std::string describe() const;

  /// The same layout (copies of one construction), not merely equal lists.
  bool operator==(const UnstructuredLayout& o) const { return state_ == o.state_; }
  /// Not the same layout.
  bool operator!=(const UnstructuredLayout& o) const { return !(*this == o); }

 private:
  struct State {
    std::optional<Comm> comm;
    std::vector<std::int64_t> ids;
    std::vector<Index> depth_end;  ///< [0]: owned_count, [d]: end of depth d
    Index column = 1;
    std::string error;
  };
  UnstructuredLayout() = default;
  /// The checks of every constructor: a column of at least one value, the
  /// ids non-negative and distinct.
  static std::string error_of(const State& state);

  std::shared_ptr<const State> state_;
};

}  // namespace adlib
