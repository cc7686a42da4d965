// SPDX-License-Identifier: BSD-3-Clause
// netns_topology_check H K: checks that the ranks run as H separate nodes of
// K ranks each, as scripts/netns-mpirun makes them, and that messages cross
// between the nodes.  Plain MPI, no adlib: it tests the launcher, which the
// node-aware tests then rely on.
//
//  - MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) forms exactly H node
//    communicators of K ranks each;
//  - they group the ranks as Open MPI placed them: by slot, host h holding
//    world ranks h*K .. h*K+K-1, in order, with the local rank and size that
//    Open MPI gave each process (OMPI_COMM_WORLD_LOCAL_RANK/_SIZE);
//  - the ranks of a node share one processor name, and different nodes have
//    different names;
//  - MPI_Allreduce over all ranks and over one rank per node, and
//    point-to-point messages to the same local rank on the next host (a small
//    one and a 1 MiB one, beyond the eager limit) arrive intact.
//
// Every rank checks; the verdict is agreed, and rank 0 prints it.  Exit code
// 0 when every check passed on every rank, 1 otherwise.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;
int world_rank = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "[rank %d] FAILED: %s\n", world_rank, what.c_str());
  }
}

int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value ? std::atoi(value) : fallback;
}

// Rank r's bytes of a message: a pattern that differs per sender and position.
unsigned char pattern(int sender, std::size_t i) {
  return static_cast<unsigned char>((sender * 131 + i * 7 + (i >> 10)) & 0xff);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 3) {
    if (world_rank == 0) std::fprintf(stderr, "usage: %s HOSTS RANKS_PER_HOST\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int hosts = std::atoi(argv[1]), per_host = std::atoi(argv[2]);
  check(size == hosts * per_host, "world size " + std::to_string(size) + " != " +
                                      std::to_string(hosts) + " x " + std::to_string(per_host));
  const int host = per_host > 0 ? world_rank / per_host : 0;

  // ---- node communicators ---------------------------------------------------
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0, node_size = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  int leaders = 0, is_leader = node_rank == 0 ? 1 : 0;
  MPI_Allreduce(&is_leader, &leaders, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  check(leaders == hosts,
        std::to_string(leaders) + " node communicators, expected " + std::to_string(hosts));
  check(node_size == per_host, "node communicator of " + std::to_string(node_size) +
                                   " ranks, expected " + std::to_string(per_host));
  // By-slot placement: node rank j of host h is world rank h*K + j.
  std::vector<int> members(node_size);
  MPI_Allgather(&world_rank, 1, MPI_INT, members.data(), 1, MPI_INT, node);
  for (int j = 0; j < node_size; ++j)
    check(members[j] == host * per_host + j, "node rank " + std::to_string(j) + " is world rank " +
                                                 std::to_string(members[j]) + ", expected " +
                                                 std::to_string(host * per_host + j));
  check(node_rank == env_int("OMPI_COMM_WORLD_LOCAL_RANK", node_rank),
        "node rank differs from OMPI_COMM_WORLD_LOCAL_RANK");
  check(node_size == env_int("OMPI_COMM_WORLD_LOCAL_SIZE", node_size),
        "node size differs from OMPI_COMM_WORLD_LOCAL_SIZE");

  // ---- processor names: one per node, distinct across nodes ------------------
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> node_names(static_cast<std::size_t>(node_size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, node_names.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, node);
  for (int j = 0; j < node_size; ++j)
    check(std::strcmp(&node_names[j * MPI_MAX_PROCESSOR_NAME], name) == 0,
          std::string("processor names differ within a node: ") + name + " and " +
              &node_names[j * MPI_MAX_PROCESSOR_NAME]);
  MPI_Comm across;  // node rank j of every node; the leaders' one spans the hosts
  MPI_Comm_split(MPI_COMM_WORLD, node_rank, world_rank, &across);
  int across_size = 0;
  MPI_Comm_size(across, &across_size);
  std::vector<char> host_names(static_cast<std::size_t>(across_size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, host_names.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, across);
  for (int a = 0; a < across_size; ++a)
    for (int b = a + 1; b < across_size; ++b)
      check(std::strcmp(&host_names[a * MPI_MAX_PROCESSOR_NAME],
                        &host_names[b * MPI_MAX_PROCESSOR_NAME]) != 0,
            std::string("two nodes share the processor name ") +
                &host_names[a * MPI_MAX_PROCESSOR_NAME]);

  // ---- collectives across hosts ----------------------------------------------
  long sum = 0, mine = world_rank + 1;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  check(sum == static_cast<long>(size) * (size + 1) / 2, "MPI_Allreduce over all ranks");
  int host_sum = 0;
  MPI_Allreduce(&host, &host_sum, 1, MPI_INT, MPI_SUM, across);
  check(across_size != hosts || host_sum == hosts * (hosts - 1) / 2,
        "MPI_Allreduce over one rank per node");

  // ---- point-to-point to the next host ---------------------------------------
  const int to = (world_rank + per_host) % size, from = (world_rank - per_host + size) % size;
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 20}) {
    std::vector<unsigned char> out(bytes), in(bytes, 0);
    for (std::size_t i = 0; i < bytes; ++i) out[i] = pattern(world_rank, i);
    MPI_Sendrecv(out.data(), static_cast<int>(bytes), MPI_UNSIGNED_CHAR, to, 7, in.data(),
                 static_cast<int>(bytes), MPI_UNSIGNED_CHAR, from, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < bytes; ++i) wrong += in[i] != pattern(from, i);
    check(wrong == 0, std::to_string(wrong) + " of " + std::to_string(bytes) + " bytes from rank " +
                          std::to_string(from) + " wrong");
  }

  // ---- verdict -----------------------------------------------------------------
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (node_rank == 0)
    std::printf("world rank %d: node %s, %d ranks (world ranks %d .. %d)\n", world_rank, name,
                node_size, members.front(), members.back());
  std::fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank == 0)
    std::printf("netns topology %d hosts x %d ranks: %s\n", hosts, per_host,
                total == 0 ? "OK" : "FAILED");
  MPI_Comm_free(&across);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
