// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::Configuration: every setting adlib takes from the environment, read
/// once and parsed strictly, in one object that schedules take at
/// construction.
///
/// @code
///   adlib::Configuration config = adlib::Configuration::environment();  // ADLIB_* as set
///   config.checked = true;                       // agree on the arrays before each execution
///   adlib::WriteHalo<double, 2> halo(u, config);  // instead of the environment's choice
/// @endcode
///
/// The variables (docs/configuration.md lists them with their defaults):
/// @verbatim
///   ADLIB_TRANSFER=auto|pack|datatype   how non-contiguous host messages travel
///   ADLIB_DATATYPE_MIN_BYTES=<bytes>    the automatic rule's size threshold
///   ADLIB_DENSE_DATATYPE_MAX_BYTES=<bytes> messages of long rows up to this size as datatypes
///   ADLIB_CHECK_PEERS=<bool>            build() checks both ends of every message
///   ADLIB_GPU_AWARE_MPI=<bool>          device buffers go to MPI directly
///   ADLIB_CHECKED=<bool>                execution agrees on the arrays across ranks
///   ADLIB_FORCE_STAGING=<bool>          stage host messages as device ones are
///   ADLIB_REDUCTION=auto|mpi|recursive_doubling|reduce_scatter_allgather|ring|node_aware
///   ADLIB_BROADCAST=auto|mpi|binomial_tree|node_aware
///   ADLIB_REDUCTION_LONG_BYTES=<bytes>  the automatic reduction's long-vector threshold
///   ADLIB_REDUCTION_SPLIT_BYTES=<bytes> from here it splits the vector below 4 members
///   ADLIB_RANKS_PER_NODE=<count>        0: the machine's nodes; k: nodes of k ranks (simulated)
///   ADLIB_COLLECTIVE_PIECE_BYTES=<bytes> reduction schedules' message pieces; 0: whole
///   ADLIB_MERGE_INDEX_WALKS=<bool>      index-list packs and unpacks share one walk
/// @endverbatim
/// Beneath the variables, a tuning file that scripts/tune writes for the
/// machine (runtime/tuning_file.hpp) may set the *_BYTES thresholds and
/// ADLIB_MERGE_INDEX_WALKS;
/// a variable that is set wins.
/// A boolean is one of 1, 0, true, false, on, off, yes, no (any letter case);
/// an empty value counts as unset.  Anything else is an adlib::Error that
/// names the variable, the value and the accepted values.
///
/// Every field changes what a schedule does on the wire (or which collective
/// calls it makes), so a schedule's constructor makes every rank agree on the
/// whole configuration: different values on different ranks are an
/// adlib::Error on every rank, never a hang.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <adlib/runtime/collective_algorithm.hpp>
#include <adlib/runtime/tuning_file.hpp>

namespace adlib {

/// How a message between host memories travels (see
/// schedules/transfer_policy.hpp).
enum class TransferMethod { automatic, pack, datatype };

/// The settings a schedule takes at construction (see the file overview); a
/// plain value, copied into each schedule.
struct Configuration {
  /// The built-in transfer settings, which TransferPolicy's defaults share:
  /// the method when ADLIB_TRANSFER is unset,
  static constexpr TransferMethod kDefaultTransfer = TransferMethod::automatic;
  /// the message size from which `automatic` sends MPI datatypes,
  static constexpr std::int64_t kDefaultDatatypeMinBytes = 16384;
  /// the largest message of long rows it sends as one (0: none),
  static constexpr std::int64_t kDefaultDenseDatatypeMaxBytes = 0;
  /// and whether two index walks of one array are merged (off: measured
  /// faster on this project's machines, see docs/performance.md).
  static constexpr bool kDefaultMergeIndexWalks = false;

  TransferMethod transfer = kDefaultTransfer;                  ///< ADLIB_TRANSFER
  std::int64_t datatype_min_bytes = kDefaultDatatypeMinBytes;  ///< ADLIB_DATATYPE_MIN_BYTES
  /// ADLIB_DENSE_DATATYPE_MAX_BYTES: `automatic` also sends a message whose
  /// rows are all a cache line or longer (a face of a 3-D block) as an MPI
  /// datatype when it has at most this many bytes (0: never).  Where
  /// Open MPI moves large contiguous messages by cross-memory attach and
  /// that is slow (a system call and a handshake per message), a packed
  /// message of tens of KiB loses to the datatype, which travels through
  /// shared buffers: H3D-64's 32 KiB plane 20 against 16 us on this
  /// project's VMs, where without cross-memory attach packing wins (10
  /// against 15).  scripts/tune measures it (docs/performance.md).
  std::int64_t dense_datatype_max_bytes = kDefaultDenseDatatypeMaxBytes;
  bool check_peers = false;    ///< ADLIB_CHECK_PEERS
  bool gpu_aware_mpi = false;  ///< ADLIB_GPU_AWARE_MPI
  bool checked = false;        ///< ADLIB_CHECKED
  /// ADLIB_FORCE_STAGING: every message goes through pack buffers and their
  /// separate host twins, as messages of device memory without GPU-aware MPI
  /// do, even when the arrays are host memory.  Slower; it exists so that
  /// machines without a GPU run (and test) the staging path.
  bool force_staging = false;
  /// ADLIB_REDUCTION: the all-reduce algorithm of reduction schedules.
  ReductionAlgorithm reduction = ReductionAlgorithm::automatic;
  /// ADLIB_BROADCAST: the algorithm of broadcast schedules.
  BroadcastAlgorithm broadcast = BroadcastAlgorithm::automatic;
  /// ADLIB_REDUCTION_LONG_BYTES: from this many bytes the automatic choice
  /// treats a reduction as a long vector (bandwidth-bound algorithms); below
  /// it, as a short one (latency-bound).  Measured crossover on the reference
  /// machines: see docs/algorithm_selection.md; scripts/tune measures it
  /// per machine (on this project's VMs 8192: a 4 KiB message is Open MPI's
  /// first one past its shared-memory eager limit).
  std::int64_t reduction_long_bytes = 4096;
  /// ADLIB_REDUCTION_SPLIT_BYTES: from this many bytes the automatic choice
  /// splits a long vector among the members (each combines only its share)
  /// even below 4 members, where whole-vector exchanges otherwise win
  /// (scripts/tune measures it).
  std::int64_t reduction_split_bytes = 1 << 20;
  /// ADLIB_RANKS_PER_NODE: 0 (the default) groups ranks into nodes as MPI
  /// sees them (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED); k > 0 makes
  /// nodes of k consecutive ranks, so one machine can test node-aware
  /// algorithms.
  std::int64_t ranks_per_node = 0;
  /// ADLIB_COLLECTIVE_PIECE_BYTES: reduction schedules send longer messages
  /// as pieces of at most this many bytes and combine each arriving piece at
  /// once, while it is still in cache, instead of reading a whole arrival
  /// back from memory (0: whole messages).  Both ends cut alike, so every
  /// rank must hold the same value.  scripts/tune measures it (on this
  /// project's VMs whole messages won: each piece is one more message
  /// through Open MPI's cross-memory attach).
  std::int64_t collective_piece_bytes = 256 * 1024;
  /// ADLIB_MERGE_INDEX_WALKS: where a schedule packs several index-list
  /// messages from one array (and copies some of it locally), or unpacks
  /// several into one, the lists share one walk over the array, so that
  /// each cache line is read once (schedules/detail/message_route.hpp);
  /// and the messages of a Gather or Scatter follow the owner's offsets,
  /// which the walk needs (MessageOrder::owner, schedules/data_plan.hpp).
  /// Off: one loop per list, and the messages follow the requester's
  /// offsets (the owner's accesses jump, the requester's go upwards).  Which is
  /// faster depends on the CPU: on the 2-core AMD EPYC VMs of this project
  /// (CI's and the benchmark's) off measured 35-45 % faster on GA1 and SC1,
  /// where the walk had won on the machine it was first tuned on, before
  /// the requester's order existed: off by default; scripts/tune measures
  /// both.  Results are bitwise the same.
  bool merge_index_walks = kDefaultMergeIndexWalks;
  /// Empty, unless the environment held a value that parsing rejected: then
  /// the adlib::Error message that names the variable, the value and the
  /// accepted values (the fields keep their defaults).  Every schedule
  /// constructor reports it in its agreement across ranks, so a bad value on
  /// one rank is an adlib::Error on every rank instead of one rank throwing
  /// before a collective call that the others wait in.
  std::string error;

  /// The configuration of the environment, read and parsed on the first call
  /// and kept for the life of the program (later changes to the environment
  /// are not seen).  Where a variable is unset, the machine's tuning file
  /// (tuning_file(), written by scripts/tune) may give the value instead.  The default of every
  /// schedule's constructor.  Never throws: a value it does not accept is kept in `error`, and the
  /// first schedule built with it throws that message on every rank.
  static const Configuration& environment();

  /// Parses the environment (and the tuning file) now, for programs and
  /// tests that change them; throws adlib::Error for a value it does not
  /// accept.
  static Configuration from_environment();
  /// The tuning file environment() read beneath the environment (see
  /// runtime/tuning_file.hpp): read once, on the first call of either.
  static const TuningFile& tuning_file();
  /// Parses the variables that `lookup` returns (nullptr: unset); throws
  /// adlib::Error for a value it does not accept.
  static Configuration parse(const std::function<const char*(const char* name)>& lookup);
  /// parse(), but a rejected value is kept in `error` (with every field at
  /// its default) instead of thrown.
  static Configuration parse_recording_errors(
      const std::function<const char*(const char* name)>& lookup);

  /// A hash of every field, identical on every rank that holds the same
  /// configuration; part of what schedule constructors agree on.
  std::uint64_t fingerprint() const;
  /// "transfer=auto datatype_min_bytes=16384 check_peers=0 ..."
  std::string describe() const;

  /// Every field equal.
  bool operator==(const Configuration& other) const;
  /// Some field differs.
  bool operator!=(const Configuration& other) const { return !(*this == other); }
};

/// The strict parsers behind Configuration::parse, for one variable each;
/// `name` only decorates the error message.
bool parse_bool_setting(const char* name, const std::string& value);
/// auto (or automatic), pack or datatype, any letter case.
TransferMethod parse_transfer_setting(const char* name, const std::string& value);
/// A non-negative decimal number of bytes: digits only, no sign or suffix.
std::int64_t parse_bytes_setting(const char* name, const std::string& value);
/// A non-negative decimal count: digits only, no sign or suffix.
std::int64_t parse_count_setting(const char* name, const std::string& value);

/// "auto", "pack" or "datatype": the spelling ADLIB_TRANSFER accepts.
const char* transfer_method_name(TransferMethod method);

}  // namespace adlib
