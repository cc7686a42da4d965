// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/schedules/collective_plan.hpp>

#include <algorithm>

#include <adlib/runtime/error.hpp>

namespace adlib {

std::int64_t CollectivePlan::scratch_count() const {
  std::int64_t most = 0;
  for (const CollectiveStep& step : steps)
    if (step.arrival != Arrival::replace) most = std::max(most, step.receive_count);
  return most;
}

namespace {

// Members are numbered 0 .. size-1 inside an algorithm; `peers[i]` is the
// member behind number i (the identity, or a node's members, or the leaders).
struct Members {
  const std::vector<int>* peers = nullptr;  // null: the identity
  int operator[](int i) const { return peers ? (*peers)[i] : i; }
};

CollectiveStep exchange(int peer, std::int64_t send_begin, std::int64_t send_count,
                        std::int64_t receive_begin, std::int64_t receive_count, Arrival arrival) {
  CollectiveStep step;
  step.send_peer = step.receive_peer = peer;
  step.send_begin = send_begin;
  step.send_count = send_count;
  step.receive_begin = receive_begin;
  step.receive_count = receive_count;
  step.arrival = arrival;
  // The peer's step of the exchange treats what it receives as this one does.
  step.send_combined = arrival != Arrival::replace;
  return step;
}
// `combined`: the receiver combines the message (CollectiveStep::send_combined).
CollectiveStep send_only(int peer, std::int64_t begin, std::int64_t count, bool combined) {
  CollectiveStep step;
  step.send_peer = peer;
  step.send_begin = begin;
  step.send_count = count;
  step.send_combined = combined;
  return step;
}
CollectiveStep receive_only(int peer, std::int64_t begin, std::int64_t count, Arrival arrival) {
  CollectiveStep step;
  step.receive_peer = peer;
  step.receive_begin = begin;
  step.receive_count = count;
  step.arrival = arrival;
  return step;
}

int largest_power_of_two_at_most(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// The fold that reduces `size` members to a power of two: the first
// 2 * extra members pair up, the even one handing its vector to the odd one,
// which continues as member (rank / 2) of the power-of-two group; the rest
// continue as rank - extra.  Numbering in rank order keeps each folded
// member's contributions a contiguous run of ranks, in order.
struct Fold {
  int power = 1, extra = 0;
  int folded = -1;  // this member's number in the power-of-two group, -1: sits out
  Fold(int rank, int size) : power(largest_power_of_two_at_most(size)), extra(size - power) {
    if (rank < 2 * extra)
      folded = rank % 2 ? rank / 2 : -1;
    else
      folded = rank - extra;
  }
  int member_of(int folded_number) const {
    return folded_number < extra ? 2 * folded_number + 1 : folded_number + extra;
  }
};

void fold_in(const Fold& fold, int rank, std::int64_t count, const Members& members,
             std::vector<CollectiveStep>& steps) {
  if (rank >= 2 * fold.extra) return;
  if (rank % 2 == 0)
    steps.push_back(send_only(members[rank + 1], 0, count, true));
  else
    steps.push_back(receive_only(members[rank - 1], 0, count, Arrival::combine_from_lower));
}

void fold_out(const Fold& fold, int rank, std::int64_t count, const Members& members,
              std::vector<CollectiveStep>& steps) {
  if (rank >= 2 * fold.extra) return;
  if (rank % 2 == 0)
    steps.push_back(receive_only(members[rank + 1], 0, count, Arrival::replace));
  else
    steps.push_back(send_only(members[rank - 1], 0, count, false));
}

void recursive_doubling(int rank, int size, std::int64_t count, const Members& members,
                        std::vector<CollectiveStep>& steps) {
  if (size <= 1) return;
  const Fold fold(rank, size);
  fold_in(fold, rank, count, members, steps);
  if (fold.folded >= 0)
    for (int mask = 1; mask < fold.power; mask <<= 1) {
      const int partner = fold.folded ^ mask;
      steps.push_back(exchange(
          members[fold.member_of(partner)], 0, count, 0, count,
          partner < fold.folded ? Arrival::combine_from_lower : Arrival::combine_from_higher));
    }
  fold_out(fold, rank, count, members, steps);
}

// Rabenseifner: recursive halving with the distance doubling (so partial
// results stay contiguous runs of ranks, in order), then the same steps
// backwards, each member sending the part it completed.
void reduce_scatter_allgather(int rank, int size, std::int64_t count, const Members& members,
                              std::vector<CollectiveStep>& steps) {
  if (size <= 1) return;
  const Fold fold(rank, size);
  fold_in(fold, rank, count, members, steps);
  if (fold.folded >= 0) {
    struct Split {
      std::int64_t low, middle, high;
      bool keep_low;
      int peer;
    };
    std::vector<Split> splits;
    std::int64_t low = 0, high = count;
    for (int mask = 1; mask < fold.power; mask <<= 1) {
      const int partner = fold.folded ^ mask;
      const std::int64_t middle = low + (high - low) / 2;
      const bool keep_low = (fold.folded & mask) == 0;
      const int peer = members[fold.member_of(partner)];
      splits.push_back({low, middle, high, keep_low, peer});
      if (keep_low) {
        steps.push_back(
            exchange(peer, middle, high - middle, low, middle - low, Arrival::combine_from_higher));
        high = middle;
      } else {
        steps.push_back(
            exchange(peer, low, middle - low, middle, high - middle, Arrival::combine_from_lower));
        low = middle;
      }
    }
    for (auto split = splits.rbegin(); split != splits.rend(); ++split) {
      if (split->keep_low)
        steps.push_back(exchange(split->peer, split->low, split->middle - split->low, split->middle,
                                 split->high - split->middle, Arrival::replace));
      else
        steps.push_back(exchange(split->peer, split->middle, split->high - split->middle,
                                 split->low, split->middle - split->low, Arrival::replace));
    }
  }
  fold_out(fold, rank, count, members, steps);
}

// Segment k of the ring's P segments.
std::int64_t segment_begin(std::int64_t count, int segments, int k) {
  return count * k / segments;
}

void ring(int rank, int size, std::int64_t count, std::vector<CollectiveStep>& steps) {
  if (size <= 1) return;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  auto segment = [&](int k, std::int64_t& begin, std::int64_t& length) {
    k = ((k % size) + size) % size;
    begin = segment_begin(count, size, k);
    length = segment_begin(count, size, k + 1) - begin;
  };
  for (int s = 0; s + 1 < size; ++s) {
    CollectiveStep step;
    step.send_peer = right;
    segment(rank - s, step.send_begin, step.send_count);
    step.receive_peer = left;
    segment(rank - s - 1, step.receive_begin, step.receive_count);
    // The arrival carries the ranks before this one along the ring.
    step.arrival = Arrival::combine_from_lower;
    step.send_combined = true;
    steps.push_back(step);
  }
  for (int s = 0; s + 1 < size; ++s) {
    CollectiveStep step;
    step.send_peer = right;
    segment(rank + 1 - s, step.send_begin, step.send_count);
    step.receive_peer = left;
    segment(rank - s, step.receive_begin, step.receive_count);
    step.arrival = Arrival::replace;
    steps.push_back(step);
  }
}

// Binomial tree broadcast from member number `root` of `size`.
void binomial_broadcast(int root, int rank, int size, std::int64_t count, const Members& members,
                        std::vector<CollectiveStep>& steps) {
  if (size <= 1) return;
  const int relative = (rank - root + size) % size;
  int mask = 1;
  while (mask < size) {
    if (relative & mask) {
      steps.push_back(
          receive_only(members[(relative - mask + root) % size], 0, count, Arrival::replace));
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (relative + mask < size)
      steps.push_back(send_only(members[(relative + mask + root) % size], 0, count, false));
}

// Binomial tree reduction to member number 0 of `size`, in rank order.
void binomial_reduce_to_first(int rank, int size, std::int64_t count, const Members& members,
                              std::vector<CollectiveStep>& steps) {
  for (int mask = 1; mask < size; mask <<= 1) {
    if (rank & mask) {
      steps.push_back(send_only(members[rank - mask], 0, count, true));
      return;
    }
    if (rank + mask < size)
      steps.push_back(receive_only(members[rank + mask], 0, count, Arrival::combine_from_higher));
  }
}

int position_in(const std::vector<int>& sorted, int value) {
  auto at = std::lower_bound(sorted.begin(), sorted.end(), value);
  if (at == sorted.end() || *at != value)
    throw Error("rank " + std::to_string(value) + " is not among the node's members", -1,
                "plan_collective");
  return static_cast<int>(at - sorted.begin());
}

}  // namespace

CollectivePlan plan_allreduce(ReductionAlgorithm algorithm, int rank, int size, std::int64_t count,
                              const NodeTopology& nodes) {
  CollectivePlan plan;
  const Members identity;
  switch (algorithm) {
    case ReductionAlgorithm::recursive_doubling:
      recursive_doubling(rank, size, count, identity, plan.steps);
      break;
    case ReductionAlgorithm::reduce_scatter_allgather:
      reduce_scatter_allgather(rank, size, count, identity, plan.steps);
      break;
    case ReductionAlgorithm::ring:
      ring(rank, size, count, plan.steps);
      break;
    case ReductionAlgorithm::node_aware: {
      // On the node, to its leader; across the leaders; back over the node.
      const Members node{&nodes.node_members}, leaders{&nodes.leaders};
      const int on_node = position_in(nodes.node_members, rank);
      const int node_size = static_cast<int>(nodes.node_members.size());
      binomial_reduce_to_first(on_node, node_size, count, node, plan.steps);
      if (on_node == 0)
        recursive_doubling(nodes.node_index, static_cast<int>(nodes.leaders.size()), count, leaders,
                           plan.steps);
      binomial_broadcast(0, on_node, node_size, count, node, plan.steps);
      break;
    }
    case ReductionAlgorithm::automatic:
    case ReductionAlgorithm::mpi:
      throw Error(std::string("no step plan for the algorithm '") + algorithm_name(algorithm) + "'",
                  rank, "plan_allreduce");
  }
  return plan;
}

CollectivePlan plan_broadcast(BroadcastAlgorithm algorithm, int root, int rank, int size,
                              std::int64_t count, const NodeTopology& nodes, int root_leader) {
  CollectivePlan plan;
  switch (algorithm) {
    case BroadcastAlgorithm::binomial_tree:
      binomial_broadcast(root, rank, size, count, Members{}, plan.steps);
      break;
    case BroadcastAlgorithm::node_aware: {
      // The root hands the data to its node's leader, the leaders pass it on
      // among themselves, and each leader over its node.
      if (root != root_leader) {
        if (rank == root) plan.steps.push_back(send_only(root_leader, 0, count, false));
        if (rank == root_leader)
          plan.steps.push_back(receive_only(root, 0, count, Arrival::replace));
      }
      const Members node{&nodes.node_members}, leaders{&nodes.leaders};
      const int on_node = position_in(nodes.node_members, rank);
      if (on_node == 0)
        binomial_broadcast(position_in(nodes.leaders, root_leader), nodes.node_index,
                           static_cast<int>(nodes.leaders.size()), count, leaders, plan.steps);
      // A root that is not its node's leader gets its own data back from the
      // node's tree: one redundant message, and the same tree on every node.
      std::vector<CollectiveStep> local;
      binomial_broadcast(0, on_node, static_cast<int>(nodes.node_members.size()), count, node,
                         local);
      for (const CollectiveStep& step : local) plan.steps.push_back(step);
      break;
    }
    case BroadcastAlgorithm::automatic:
    case BroadcastAlgorithm::mpi:
      throw Error(std::string("no step plan for the algorithm '") + algorithm_name(algorithm) + "'",
                  rank, "plan_broadcast");
  }
  return plan;
}

ReductionAlgorithm choose_reduction(const Configuration& config, std::int64_t bytes, int size,
                                    int node_count, int largest_node) {
  if (config.reduction != ReductionAlgorithm::automatic) return config.reduction;
  if (size <= 1) return ReductionAlgorithm::recursive_doubling;  // no steps at all
  const bool long_vector = bytes >= config.reduction_long_bytes;
  if (!long_vector) {
    if (node_count > 1 && largest_node > 1) return ReductionAlgorithm::node_aware;
    return ReductionAlgorithm::mpi;
  }
  // Below 4 members, one or two exchanges of the whole vector beat splitting
  // it (reduce-scatter + allgather moves as many bytes at P = 2 in twice the
  // rounds: RDV-4096 6.4 against 10.6 us, RDV-65536 68 against 71-76 us), until
  // the vector is so long that combining it whole costs more than the second
  // round: then the ring, which at P = 2 and 3 needs no fold (RDV-1048576:
  // 1759-2092 against 2412-2869 us; docs/algorithm_selection.md).
  if (size < 4)
    return bytes >= config.reduction_split_bytes ? ReductionAlgorithm::ring
                                                 : ReductionAlgorithm::recursive_doubling;
  const bool power_of_two = (size & (size - 1)) == 0;
  // Folding a non-power-of-two count costs one more pass over the whole
  // vector; the ring avoids it when each of its P segments is itself long.
  if (!power_of_two && bytes / size >= config.reduction_long_bytes) return ReductionAlgorithm::ring;
  return ReductionAlgorithm::reduce_scatter_allgather;
}

BroadcastAlgorithm choose_broadcast(const Configuration& config, std::int64_t /*bytes*/, int size,
                                    int node_count, int largest_node) {
  if (config.broadcast != BroadcastAlgorithm::automatic) return config.broadcast;
  if (size <= 1) return BroadcastAlgorithm::binomial_tree;  // no steps at all
  if (node_count > 1 && largest_node > 1) return BroadcastAlgorithm::node_aware;
  return BroadcastAlgorithm::mpi;
}

}  // namespace adlib
