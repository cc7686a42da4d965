// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Directory: which rank holds a global id, and where, when ids are listed
/// explicitly per rank (unstructured meshes, the DAP's 'u' dimensions) and no
/// formula answers.
///
/// @code
///   // Rank r holds the cells whose global ids are listed in `mine` (any order).
///   adlib::Directory directory(comm, mine);            // collective
///   auto where = directory.locate(halo_ids);           // collective
///   for (auto& w : where) use(w.rank, w.position);     // rank -1: nobody holds it
/// @endcode
///
/// An assumed partition of the id space (hypre's assumed partition, Tpetra's
/// Directory): the ids [0, id_bound()) are cut into P equal intervals, and the
/// rank of interval k keeps the (id, holder, position) entries of the ids in
/// it.  Construction sends each rank's ids to the ranks of their intervals
/// (one sparse exchange); a look-up sends the ids asked for to the same ranks
/// and receives their entries back (two).  No rank ever keeps anything of
/// the size of the id space or of P: a rank stores the entries of its
/// interval that some rank registered (about ids / P when ids are spread
/// evenly), and every message goes to a rank that is actually asked.
///
/// Dense ascending lists cost a bit per id: in a one-to-one directory, a
/// rank whose ids in an interval are a strictly ascending stretch of its
/// list (LFRic's owned order) sends them as a bitmap where that is shorter
/// than (offset, position) pairs, and the interval's rank answers from the
/// bitmaps it keeps (a position is the count of bits set below the id's).
/// UH-2048-d2's set-up fell from 60-110 ms to 13-14 ms with it.
///
/// Ids held by several ranks (shared dofs, replicated cells) are allowed with
/// Holding::shared; locate() then answers with the lowest rank holding the id.
/// With Holding::one_to_one (the default) an id registered by two ranks is an
/// error on every rank.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <adlib/runtime/comm.hpp>

namespace adlib {

template <class T>
struct SparseMessage;  // runtime/sparse_exchange.hpp

/// May an id be held by several ranks?
enum class Holding {
  one_to_one,  ///< every id is held by at most one rank
  shared       ///< an id may be held by several ranks (locate() picks the lowest)
};

/// Where a global id lives: the holding rank and the id's position in that
/// rank's list.
struct IdLocation {
  int rank = -1;              ///< -1 when no rank holds the id
  std::int64_t position = 0;  ///< index into the holder's registered ids
  /// Same rank and position.
  bool operator==(const IdLocation& o) const { return rank == o.rank && position == o.position; }
};

/// A distributed directory of global ids (see the file overview).  A value
/// object; copies share nothing but the communicator.
class Directory {
 public:
  /// Collective over `comm`: registers this rank's `ids` (position i of the
  /// list is the id's position on this rank).  Ids are non-negative and
  /// distinct on each rank; with Holding::one_to_one no id is registered by
  /// two ranks.  Any violation, on any rank, is the same adlib::Error on
  /// every rank (named after `operation`).
  Directory(const Comm& comm, const std::vector<std::int64_t>& ids,
            Holding holding = Holding::one_to_one, const char* operation = "Directory");
  /// The same for the `count` ids at `ids` (a part of a longer list, such as
  /// the owned ids at the front of an UnstructuredLayout's, without a copy).
  Directory(const Comm& comm, const std::int64_t* ids, std::size_t count,
            Holding holding = Holding::one_to_one, const char* operation = "Directory");

  /// Collective: where each of `ids` lives, in the order asked (any ids,
  /// repeats allowed; ids that no rank registered come back with rank -1,
  /// negative ids are an error on every rank).
  std::vector<IdLocation> locate(const std::vector<std::int64_t>& ids) const;

  /// One more than the largest id registered on any rank (0 when none is).
  std::int64_t id_bound() const { return id_bound_; }
  /// The rank whose interval holds the entry of `id`.
  int directory_rank(std::int64_t id) const;
  /// Entries this rank keeps for its interval (a test and diagnosis aid).
  std::size_t entries() const {
    return (slots_.empty() ? entries_.size() : slot_entries_) + bitmap_entries_;
  }
  /// The communicator.
  const Comm& comm() const { return comm_; }
  /// As constructed.
  Holding holding() const { return holding_; }

  /// One entry of the directory: an id, a rank holding it and its position
  /// there.
  struct Entry {
    std::int64_t id = 0;        ///< the global id
    std::int64_t position = 0;  ///< its position on the holder
    std::int64_t rank = 0;      ///< the holder (int64 so the entry has no padding)
  };

 private:
  /// One id of the interval in the dense form: its holder plus one (0: no
  /// rank registered it) and its position there.
  struct Slot {
    std::uint32_t holder_plus_one = 0;
    std::uint32_t position = 0;
  };

  /// The ids one rank registered in this rank's interval as a bitmap (sent
  /// so where that is shorter than pairs: in a one-to-one directory, a
  /// strictly ascending stretch of the rank's list, dense in the interval).
  /// Bit b of words[w] is the offset low + 32 w + b in the interval; the
  /// k-th set bit is the id at position first_position + k on the holder.
  /// locate() answers from it: no table of the interval's size is built.
  struct BitmapHolding {
    int rank = 0;
    std::int64_t first_position = 0;
    std::int64_t low = 0;  ///< a multiple of 32
    std::vector<std::uint32_t> words;
    /// Set bits in the words before each block of kWordsPerBlock words, so
    /// that a position costs at most a block's population counts.
    std::vector<std::uint32_t> ids_before_block;
    static constexpr std::size_t kWordsPerBlock = 16;

    bool holds(std::int64_t offset) const;
    std::int64_t position(std::int64_t offset) const;  ///< of an offset it holds
  };

  template <class Word>
  std::string register_ids(const std::int64_t* ids, std::size_t count, bool ascending);
  template <class Word>
  std::string keep_entries(std::vector<SparseMessage<Word>> received);
  /// Where `id` (this rank's interval, `offset` into it) lives.
  IdLocation locate_here(std::int64_t id, std::int64_t offset) const;
  std::int64_t interval_length() const;

  Comm comm_;
  Holding holding_;
  const char* operation_;
  std::int64_t id_bound_ = 0;
  /// This rank's interval, in one of two forms.  Dense (a one-to-one
  /// directory whose interval is about as long as the entries it keeps, and
  /// positions below 2^32: a mesh numbered 0 .. N-1): slots_, indexed by id
  /// minus the interval's first, 8 bytes per id and no sort.  Otherwise
  /// entries_, sorted by (id, rank).
  std::vector<Entry> entries_;
  std::vector<Slot> slots_;
  std::size_t slot_entries_ = 0;  ///< ids registered in slots_
  /// The ids that came as bitmaps, in ascending rank, beside the above.
  std::vector<BitmapHolding> bitmaps_;
  std::size_t bitmap_entries_ = 0;
};

/// Empty when every id is non-negative and no id repeats, else the reason
/// (naming the first offending id).  `what` names the list in the message.
std::string distinct_ids_error(const std::vector<std::int64_t>& ids, const char* what);

}  // namespace adlib
