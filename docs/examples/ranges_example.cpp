// SPDX-License-Identifier: BSD-3-Clause
// Who owns what: prints, for N = 10 elements over P = 3 processes, the owner
// and local position of every global index under each kind of Range, the
// local memory of a ghost-extended block, and the Blocks that describe each
// process's share of strided sections.  Planning-only grids (no
// communicator) make the pictures the same at any number of MPI ranks.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>

using adlib::Index;

// One line of owners and one of local positions, from Range::owner alone.
void print_ownership(const char* name, const adlib::Range& range) {
  std::string owners, locals;
  for (Index g = 0; g < range.extent(); ++g) {
    const adlib::Owner o = range.owner(g);
    owners += " " + std::to_string(o.coord);
    locals += " " + std::to_string(o.local);
  }
  std::printf("%-22s owner:%s\n%-22s local:%s\n", name, owners.c_str(), "", locals.c_str());
}

// The local memory of each process: ghosts first and last, owned in between.
// Which global index a ghost cell copies follows from the owned interval.
void print_ghost_memory(const adlib::Range& range) {
  for (int coord = 0; coord < range.process_count(); ++coord) {
    const Index first = range.global_index(coord, range.ghost_low());
    std::string memory;
    for (Index local = 0; local < range.local_allocation(coord); ++local) {
      const bool ghost =
          local < range.ghost_low() || local >= range.ghost_low() + range.local_count(coord);
      Index g = first + local - range.ghost_low();
      if (range.periodic()) g = (g + range.extent()) % range.extent();
      const bool outside = g < 0 || g >= range.extent();
      memory += ghost ? (outside ? "  . " : " (" + std::to_string(g) + ")")
                      : "  " + std::to_string(g) + " ";
    }
    std::printf("  coordinate %d, %lld cells:%s\n", coord,
                static_cast<long long>(range.local_allocation(coord)), memory.c_str());
  }
}

// Range::owned_blocks: a process's share of a section as strided Blocks.
void print_section(const char* name, const adlib::Range& range, const adlib::Triplet& section) {
  std::printf("%s, section %s:\n", name, section.to_string().c_str());
  for (int coord = 0; coord < range.process_count(); ++coord) {
    std::vector<adlib::Block> blocks;
    range.owned_blocks(coord, section, blocks);
    std::printf("  coordinate %d:", coord);
    for (const adlib::Block& b : blocks)
      std::printf(" {count %lld, global %lld step %lld, local %lld step %lld}",
                  static_cast<long long>(b.count), static_cast<long long>(b.global_base),
                  static_cast<long long>(b.global_step), static_cast<long long>(b.local_base),
                  static_cast<long long>(b.local_step));
    std::printf("%s\n", blocks.empty() ? " nothing" : "");
  }
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  if (adlib::Comm(MPI_COMM_WORLD).rank() != 0) return 0;

  adlib::ProcessGrid grid({3});  // for planning: 3 simulated processes
  const Index n = 10;
  const adlib::BlockRange block(n, grid.dim(0));
  const adlib::IrregularBlockRange irregular({5, 0, 5}, grid.dim(0));
  const adlib::CyclicRange cyclic(n, grid.dim(0));
  const adlib::BlockCyclicRange block_cyclic(n, grid.dim(0), 2);
  const adlib::CollapsedRange collapsed(n);
  const adlib::GhostBlockRange ghosts(n, grid.dim(0), /*low=*/1, /*high=*/2);
  const adlib::GhostBlockRange periodic(n, grid.dim(0), 1, 2, /*periodic=*/true);

  std::printf("%-22s global: 0 1 2 3 4 5 6 7 8 9\n", "N = 10 over P = 3");
  print_ownership("block", block);
  print_ownership("irregular {5, 0, 5}", irregular);
  print_ownership("cyclic", cyclic);
  print_ownership("block-cyclic, b = 2", block_cyclic);
  print_ownership("collapsed", collapsed);
  print_ownership("ghost block (1, 2)", ghosts);

  std::printf("\nghost block, low 1, high 2: local memory, (g) = ghost copy of g, . = none\n");
  print_ghost_memory(ghosts);
  std::printf("the same, periodic:\n");
  print_ghost_memory(periodic);

  std::printf("\n");
  print_section("block", block, adlib::Triplet{1, 8, 3});
  print_section("block", block, adlib::Triplet{9, 0, -2});
  print_section("cyclic", cyclic, adlib::Triplet{9, 0, -2});
  print_section("block-cyclic, b = 2", block_cyclic, adlib::Triplet{0, 9, 1});
  return 0;
}
