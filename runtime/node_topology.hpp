// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// NodeTopology: which ranks of a communicator share a node, for the
/// node-aware collectives (seed 003, IMPI: a node-local phase, then one
/// leader per node talks across nodes).
///
/// @code
///   const adlib::NodeTopology& nodes = adlib::node_topology(comm, 0);  // collective, cached
///   bool leader = nodes.node_members.front() == comm.rank();
///   int node_count = static_cast<int>(nodes.leaders.size());
/// @endcode
///
/// `ranks_per_node` 0 asks MPI (MPI_Comm_split_type with
/// MPI_COMM_TYPE_SHARED); k > 0 makes nodes of k consecutive ranks, computed
/// without communication, so one machine can run the node-aware code paths
/// (Configuration::ranks_per_node, ADLIB_RANKS_PER_NODE).  A rank holds its
/// own node's ranks and one rank per node: nothing of size P.
#pragma once

#include <cstdint>
#include <vector>

#include <adlib/runtime/comm.hpp>

namespace adlib {

/// The nodes of a communicator as one rank sees them (see the file overview).
struct NodeTopology {
  /// The ranks on this rank's node, ascending; the first is the node's leader.
  std::vector<int> node_members;
  /// The leader (lowest rank) of every node, ascending.
  std::vector<int> leaders;
  /// The position of this rank's node in `leaders`.
  int node_index = 0;
  /// The most ranks any node holds (the same on every rank).
  int largest_node = 1;
};

/// The nodes of `comm`: computed locally when ranks_per_node > 0, otherwise
/// collective over `comm` the first time (two communicator splits and two
/// small collectives) and kept with the communicator afterwards.
const NodeTopology& node_topology(const Comm& comm, std::int64_t ranks_per_node);

/// The nodes of `size` ranks grouped k = ranks_per_node consecutive ranks
/// at a time, as rank `rank` sees them (no MPI: for planning and tests).
NodeTopology consecutive_nodes(int rank, int size, std::int64_t ranks_per_node);

}  // namespace adlib
