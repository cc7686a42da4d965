// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The algorithms behind adlib's reductions and broadcasts, and the names
/// ADLIB_REDUCTION / ADLIB_BROADCAST accept for them.
///
/// @code
///   adlib::Configuration config = adlib::Configuration::environment();
///   config.reduction = adlib::ReductionAlgorithm::ring;   // force one algorithm
///   adlib::RedxSchedule<double> sum(comm, 1 << 20, adlib::op::add, config);
/// @endcode
///
/// `automatic` (the default) chooses per schedule from the message size, the
/// number of processes and the nodes they sit on (schedules/collective_plan.hpp
/// says how); every other value forces that algorithm, so tests can run each
/// one and benchmarks can show where each wins.
#pragma once

#include <string>

namespace adlib {

/// How an all-reduce (every member ends with the reduction) travels.
enum class ReductionAlgorithm {
  automatic,                 ///< chosen by size, process count and nodes
  mpi,                       ///< MPI_Allreduce
  recursive_doubling,        ///< log2 P exchanges of the whole vector
  reduce_scatter_allgather,  ///< Rabenseifner: recursive halving, then doubling
  ring,                      ///< P-1 steps around a ring, twice (any P)
  node_aware                 ///< reduce on each node, across leaders, broadcast on the node
};

/// How a broadcast travels.
enum class BroadcastAlgorithm {
  automatic,      ///< chosen by size, process count and nodes
  mpi,            ///< MPI_Bcast
  binomial_tree,  ///< log2 P rounds, each holder sends to one more process
  node_aware      ///< root to one process per node, then a tree on each node
};

/// The spelling ADLIB_REDUCTION accepts ("auto", "mpi", "recursive_doubling",
/// "reduce_scatter_allgather", "ring", "node_aware").
const char* algorithm_name(ReductionAlgorithm algorithm);
/// The spelling ADLIB_BROADCAST accepts ("auto", "mpi", "binomial_tree",
/// "node_aware").
const char* algorithm_name(BroadcastAlgorithm algorithm);
/// Parses algorithm_name()'s spellings (any letter case, "automatic" too);
/// `name` only decorates the error message.  Throws adlib::Error otherwise.
ReductionAlgorithm parse_reduction_setting(const char* name, const std::string& value);
/// The same for broadcasts.
BroadcastAlgorithm parse_broadcast_setting(const char* name, const std::string& value);

}  // namespace adlib
