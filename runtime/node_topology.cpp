// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/node_topology.hpp>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>

#include <adlib/runtime/error.hpp>

namespace adlib {

NodeTopology consecutive_nodes(int rank, int size, std::int64_t ranks_per_node) {
  const std::int64_t k = std::max<std::int64_t>(ranks_per_node, 1);
  NodeTopology nodes;
  const std::int64_t first = rank / k * k, last = std::min<std::int64_t>(first + k, size);
  for (std::int64_t r = first; r < last; ++r) nodes.node_members.push_back(static_cast<int>(r));
  for (std::int64_t r = 0; r < size; r += k) nodes.leaders.push_back(static_cast<int>(r));
  nodes.node_index = static_cast<int>(rank / k);
  nodes.largest_node = static_cast<int>(std::min<std::int64_t>(k, size));
  return nodes;
}

namespace {

// The machine's nodes as MPI sees them.
NodeTopology shared_memory_nodes(const Comm& comm) {
  const char* operation = "node_topology";
  NodeTopology nodes;
  MPI_Comm node = MPI_COMM_NULL;
  ADLIB_MPI(
      MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &node),
      operation);
  int node_size = 0, node_rank = 0;
  ADLIB_MPI(MPI_Comm_size(node, &node_size), operation);
  ADLIB_MPI(MPI_Comm_rank(node, &node_rank), operation);
  nodes.node_members.resize(node_size);
  {
    // Translate the node communicator's ranks into ours.
    MPI_Group node_group = MPI_GROUP_NULL, comm_group = MPI_GROUP_NULL;
    ADLIB_MPI(MPI_Comm_group(node, &node_group), operation);
    ADLIB_MPI(MPI_Comm_group(comm.get(), &comm_group), operation);
    std::vector<int> local(node_size);
    std::iota(local.begin(), local.end(), 0);
    ADLIB_MPI(MPI_Group_translate_ranks(node_group, node_size, local.data(), comm_group,
                                        nodes.node_members.data()),
              operation);
    ADLIB_MPI(MPI_Group_free(&node_group), operation);
    ADLIB_MPI(MPI_Group_free(&comm_group), operation);
  }
  std::sort(nodes.node_members.begin(), nodes.node_members.end());
  const bool leader = nodes.node_members.front() == comm.rank();
  // The leaders list their ranks among themselves, then tell their nodes.
  MPI_Comm leaders = MPI_COMM_NULL;
  ADLIB_MPI(MPI_Comm_split(comm.get(), leader ? 0 : MPI_UNDEFINED, comm.rank(), &leaders),
            operation);
  int node_count = 0;
  if (leader) {
    ADLIB_MPI(MPI_Comm_size(leaders, &node_count), operation);
    nodes.leaders.resize(node_count);
    const int me = comm.rank();
    ADLIB_MPI(MPI_Allgather(&me, 1, MPI_INT, nodes.leaders.data(), 1, MPI_INT, leaders), operation);
    ADLIB_MPI(MPI_Comm_free(&leaders), operation);
  }
  // The node's leader is its rank 0 (ranks were ordered by comm rank).
  ADLIB_MPI(MPI_Bcast(&node_count, 1, MPI_INT, 0, node), operation);
  nodes.leaders.resize(node_count);
  ADLIB_MPI(MPI_Bcast(nodes.leaders.data(), node_count, MPI_INT, 0, node), operation);
  ADLIB_MPI(MPI_Comm_free(&node), operation);
  ADLIB_MPI(MPI_Allreduce(&node_size, &nodes.largest_node, 1, MPI_INT, MPI_MAX, comm.get()),
            operation);
  nodes.node_index = static_cast<int>(
      std::lower_bound(nodes.leaders.begin(), nodes.leaders.end(), nodes.node_members.front()) -
      nodes.leaders.begin());
  return nodes;
}

}  // namespace

const NodeTopology& node_topology(const Comm& comm, std::int64_t ranks_per_node) {
  const std::string key = "adlib::node_topology/" + std::to_string(ranks_per_node);
  std::shared_ptr<const void> kept = comm.attachment(key);
  if (!kept) {
    auto made = std::make_shared<const NodeTopology>(
        ranks_per_node > 0 ? consecutive_nodes(comm.rank(), comm.size(), ranks_per_node)
                           : shared_memory_nodes(comm));
    comm.attach(key, made);
    kept = made;
  }
  return *static_cast<const NodeTopology*>(kept.get());
}

}  // namespace adlib
