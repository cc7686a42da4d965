// SPDX-License-Identifier: BSD-3-Clause
// Who owns what: prints, for N = 10 elements over P = 3 processes, the owner,
// local position and ghost copies of every global index under each kind of
// Range (adlib::print_layout), the local memory of a ghost-extended block,
// the owned and ghost boxes of each process, the binding of range factories
// to grid axes, and the Blocks that describe each process's share of strided
// sections.  Planning-only grids (no communicator) make the pictures the same
// at any number of MPI ranks.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>

using adlib::Index;

// Who owns each global index of a 1-D array over `range`, its local
// position there and who holds ghost copies of it (adlib::print_layout).
void print_ownership(const char* name, const adlib::RangePtr& range, const adlib::Group& group) {
  adlib::PrintOptions options;
  options.name = name;
  adlib::print_layout(adlib::ArrayLayout(group, {range}), options);
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

// The owned box and the ghost box of each process of a 1-D array over
// `range` (adlib::owned_box / ghost_box, what DistArray::owned_box() and
// ghost_box() answer for the calling process): local index range, then the
// global indices of its first and last cell and the step between them.
void print_boxes(const char* name, const adlib::RangePtr& range) {
  const adlib::ArrayLayout layout(range->dimension()->grid(), {range});
  std::printf("%s:\n", name);
  for (int rank = 0; rank < range->process_count(); ++rank) {
    const adlib::LocalBox<1> owned = adlib::owned_box<1>(layout, rank);
    const adlib::LocalBox<1> all = adlib::ghost_box<1>(layout, rank);
    std::printf("  coordinate %d: owned local [%lld, %lld)", rank,
                static_cast<long long>(owned.begin(0)), static_cast<long long>(owned.end(0)));
    if (owned.empty()) {
      std::printf(" empty\n");
      continue;
    }
    std::printf(" global %lld..%lld", static_cast<long long>(owned.global_begin(0)),
                static_cast<long long>(owned.global_last(0)));
    if (owned.contiguous(0))
      std::printf(" contiguous");
    else if (owned.global_step(0) != 0)
      std::printf(" step %lld", static_cast<long long>(owned.global_step(0)));
    else
      std::printf(" no constant step");
    std::printf("; ghost local [%lld, %lld) global %lld..%lld\n",
                static_cast<long long>(all.begin(0)), static_cast<long long>(all.end(0)),
                static_cast<long long>(all.global_begin(0)),
                static_cast<long long>(all.global_last(0)));
  }
}

// Inside a kernel: every owned cell of u gets g0 * m + g1, its global
// indices from the owned box (a trivially copyable value, captured by copy).
void fill_from_global_indices(const adlib::DistArray<double, 2>& u, Index m) {
  const adlib::LocalBox<2> owned = u.owned_box();
  auto v = u.local_view();
  Kokkos::parallel_for(
      "fill",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({owned.begin(0), owned.begin(1)},
                                             {owned.end(0), owned.end(1)}),
      KOKKOS_LAMBDA(Index i, Index j) {
        v(i, j) = double(owned.global(0, i) * m + owned.global(1, j));
      });
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
  const adlib::RangePtr block = adlib::block(n).on(grid.dim(0));
  const adlib::RangePtr irregular = adlib::irregular_block({5, 0, 5}).on(grid.dim(0));
  const adlib::RangePtr cyclic = adlib::cyclic(n).on(grid.dim(0));
  const adlib::RangePtr block_cyclic = adlib::block_cyclic(n, 2).on(grid.dim(0));
  const adlib::RangePtr collapsed = adlib::collapsed(n).make();
  const adlib::RangePtr ghosts = adlib::block(n).ghosts(1, 2).on(grid.dim(0));
  const adlib::RangePtr periodic = adlib::block(n).ghosts(1, 2).periodic().on(grid.dim(0));

  print_ownership("block", block, grid);
  print_ownership("irregular {5, 0, 5}", irregular, grid);
  print_ownership("cyclic", cyclic, grid);
  print_ownership("block-cyclic, b = 2", block_cyclic, grid);
  print_ownership("collapsed", collapsed, grid);
  print_ownership("ghost block (1, 2)", ghosts, grid);

  std::printf("\nghost block, low 1, high 2: local memory, (g) = ghost copy of g, . = none\n");
  print_ghost_memory(*ghosts);
  std::printf("the same, periodic:\n");
  print_ghost_memory(*periodic);

  std::printf("\n");
  print_boxes("ghost block (1, 2)", ghosts);
  print_boxes("irregular {5, 0, 5}", irregular);
  print_boxes("cyclic", cyclic);
  print_boxes("block-cyclic, b = 2", block_cyclic);

  // Factories bound to the axes of a 2 x 3 grid by position: the first
  // distributed one takes axis 0, the next axis 1; collapsed takes none.
  adlib::ProcessGrid grid2({2, 3});
  const std::vector<adlib::RangePtr> bound =
      adlib::bind_ranges(grid2, {adlib::block(n).ghosts(1), adlib::collapsed(4), adlib::cyclic(n)});
  std::printf("\nbound to grid(2x3):\n");
  for (const adlib::RangePtr& r : bound) std::printf("  %s\n", r->describe().c_str());

  // A DistArray takes the factories directly (here on rank 0 alone).
  adlib::ProcessGrid self(adlib::Comm(MPI_COMM_WORLD), {1, 1});
  adlib::DistArray<double, 2> u(self,
                                {adlib::block(4).ghosts(1), adlib::block(3).ghosts(1).periodic()});
  fill_from_global_indices(u, 3);
  double sum = 0;
  u.host_mirror().for_each_local([&](const auto&, double value) { sum += value; });
  std::printf("filled in a kernel from the owned box: sum %g (expected %d)\n", sum, 11 * 12 / 2);
  if (sum != 11 * 12 / 2) return 1;

  std::printf("\n");
  print_section("block", *block, adlib::Triplet{1, 8, 3});
  print_section("block", *block, adlib::Triplet{9, 0, -2});
  print_section("cyclic", *cyclic, adlib::Triplet{9, 0, -2});
  print_section("block-cyclic, b = 2", *block_cyclic, adlib::Triplet{0, 9, 1});
  return 0;
}
