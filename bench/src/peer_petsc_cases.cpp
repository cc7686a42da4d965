// SPDX-License-Identifier: BSD-3-Clause
// PETSc's lines of the peer comparison (bench/README.md, "Peer lines"): the
// cases RM1, GA1 and SC1 through VecScatter (`petsc-vecscatter`) and the halo
// cases H2D, H3D and H2DA through a DMDA (`petsc-dmda`), in the process
// layout, with the data and against the serial references of adlib's lines
// of the same cases, so that the figures stand side by side.  Each
// implementation has a set-up line (the PETSc objects a user creates once)
// and an op line (the communication a user repeats).
//
// PETSc is initialised at the first PETSc case, after MPI (adlib's
// Environment), on its own duplicate of MPI_COMM_WORLD so that none of its
// messages can match the harness's, adlib's or another peer's; PetscFinalize
// runs in finish_harness(), before MPI_Finalize.  Every PETSc object is
// destroyed at the end of its case, before the next implementation
// allocates.
//
// PETSc's headers compile cleanly under -Wall -Wextra -Wpedantic (3.18), and
// the imported target PkgConfig::ADLIB_PETSC puts them on the system include
// path anyway: no pragma is needed.
#include <petscdmda.h>
#include <petscis.h>
#include <petscsf.h>
#include <petscvec.h>

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common.hpp"
#include "halo_geometry.hpp"
#include "halo_reference.hpp"
#include "irregular_case.hpp"
#include "peers.hpp"

namespace bench {

namespace {

static_assert(std::is_same_v<PetscScalar, double>, "the cases are float64: PETSc must be real");

constexpr const char* kVecScatter = "petsc-vecscatter";
constexpr const char* kDmda = "petsc-dmda";
// Not periodic, PETSc's default: the local vector has no ghost layer beyond
// the domain's edge.  DM_BOUNDARY_GHOSTED would give it exactly the
// scenario's (N/P + 2) x (N + 2) storage, but then the owned rows are no
// longer contiguous in it and DMGlobalToLocal's copy of the owned part was
// about 2x slower (H2D-8192, H3D-256): a user would not pay that for ghosts
// PETSc never fills.
constexpr DMBoundaryType kDmdaBoundary = DM_BOUNDARY_NONE;

// ---- PETSc itself ----------------------------------------------------------------------

// A failed PETSc call ends the whole job: ranks may fail at different
// points, and only MPI_Abort ends a job cleanly then (PETSc's own error
// handler has already printed its traceback).
void check_petsc(PetscErrorCode code, const char* call) {
  if (code == 0) return;
  const char* text = nullptr;
  PetscErrorMessage(code, &text, nullptr);
  std::fprintf(stderr, "adlib_bench: PETSc call failed on rank %d: %s: error %d (%s)\n", rank(),
               call, static_cast<int>(code), text ? text : "unknown");
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

#define CHECK_PETSC(call) ::bench::check_petsc((call), #call)

// PETSc's communicator: set as PETSC_COMM_WORLD before PetscInitialize,
// freed after PetscFinalize.
MPI_Comm petsc_world = MPI_COMM_NULL;

// Collective: every rank runs the same cases in the same order, so every
// rank initialises PETSc at the same case.
void ensure_petsc() {
  PetscBool initialized = PETSC_FALSE;
  CHECK_PETSC(PetscInitialized(&initialized));
  if (initialized) return;
  MPI_Comm_dup(MPI_COMM_WORLD, &petsc_world);
  PETSC_COMM_WORLD = petsc_world;
  CHECK_PETSC(PetscInitializeNoArguments());
  at_finish([] {
    CHECK_PETSC(PetscFinalize());
    MPI_Comm_free(&petsc_world);
  });
}

// Write access to a vector's local entries for the lifetime of the object
// (VecGetArray tells PETSc the values may change).
class VecWrite {
 public:
  explicit VecWrite(Vec vec) : vec_(vec) { CHECK_PETSC(VecGetArray(vec_, &data_)); }
  VecWrite(const VecWrite&) = delete;
  VecWrite& operator=(const VecWrite&) = delete;
  ~VecWrite() { CHECK_PETSC(VecRestoreArray(vec_, &data_)); }
  double* data() const { return data_; }

 private:
  Vec vec_;
  PetscScalar* data_ = nullptr;
};

class VecRead {
 public:
  explicit VecRead(Vec vec) : vec_(vec) { CHECK_PETSC(VecGetArrayRead(vec_, &data_)); }
  VecRead(const VecRead&) = delete;
  VecRead& operator=(const VecRead&) = delete;
  ~VecRead() { CHECK_PETSC(VecRestoreArrayRead(vec_, &data_)); }
  const double* data() const { return data_; }

 private:
  Vec vec_;
  const PetscScalar* data_ = nullptr;
};

PetscInt local_size(Vec vec) {
  PetscInt n = 0;
  CHECK_PETSC(VecGetLocalSize(vec, &n));
  return n;
}

// ---- the lines -------------------------------------------------------------------------

// The set-up line and the op line of one implementation.  The first
// operation is timed alone (like adlib's Remap lines) and reported in the
// set-up line's note: PETSc finishes parts of a scatter's set-up at its
// first use and touches its buffers for the first time there.  Then the
// verified, timed phases of every line.
template <class Prepare, class Op, class Check>
Measurement setup_and_op_lines(const std::string& name, const std::string& impl,
                               const Measurement& setup, const std::string& setup_note,
                               Prepare&& prepare, Op&& op, Check&& check) {
  prepare();
  const double first_us = time_setup(op).median_us;
  check("first");
  char first[96];
  std::snprintf(first, sizeof first, "; the first operation took %.1f us", first_us);
  report({name, impl, "setup", setup, 0, 0, setup_note + first, false});
  return verified_time_op(prepare, op, check);
}

std::string scatter_type(VecScatter scatter) {
  PetscSFType type = nullptr;
  CHECK_PETSC(PetscSFGetType(scatter, &type));
  return type ? type : "unknown";
}

// ---- RM1-N: 1-D remap block -> cyclic ------------------------------------------------

// The case's two distributions (SCENARIOS.md, RM1-N): source block, rank q
// owns [q*N/P, (q+1)*N/P); destination cyclic, g on rank g mod P at local
// g div P.
struct BlockToCyclic {
  Index n;
  int p, r;
  Index lo(int q) const { return q * n / p; }
  Index block_count(int q) const { return lo(q + 1) - lo(q); }
  Index cyclic_count(int q) const { return (n - q + p - 1) / p; }
  // How many of rank s's block are cyclic-owned by q (they follow with step P).
  Index count_in_block(int s, int q) const {
    const Index m = (q - lo(s)) % p;
    const Index first = lo(s) + (m < 0 ? m + p : m);
    return first >= lo(s + 1) ? 0 : (lo(s + 1) - 1 - first) / p + 1;
  }
};

// petsc-vecscatter: two MPI vectors with the case's local sizes, so that
// the source's PETSc index is g and the destination's is rank q's first
// index + l.  Each rank names the entries it receives (destination-driven):
// from = stride(r, P) in the source, to = its own contiguous range.
void remap_vecscatter(Index n) {
  ensure_petsc();
  const std::string name = "RM1-" + std::to_string(n);
  const BlockToCyclic c{n, size(), rank()};
  const auto n_src = static_cast<PetscInt>(c.block_count(c.r));
  const auto n_dst = static_cast<PetscInt>(c.cyclic_count(c.r));
  const double bytes = static_cast<double>(n_dst) * sizeof(double);
  const double offrank = static_cast<double>((c.cyclic_count(c.r) - c.count_in_block(c.r, c.r)) *
                                             Index(sizeof(double)));

  Vec source = nullptr, destination = nullptr;
  CHECK_PETSC(VecCreateMPI(PETSC_COMM_WORLD, n_src, static_cast<PetscInt>(n), &source));
  CHECK_PETSC(VecCreateMPI(PETSC_COMM_WORLD, n_dst, static_cast<PetscInt>(n), &destination));
  {
    VecWrite s(source);
    for (PetscInt l = 0; l < n_src; ++l) s.data()[l] = static_cast<double>(c.lo(c.r) + l);
  }
  PetscInt first_destination = 0;
  CHECK_PETSC(VecGetOwnershipRange(destination, &first_destination, nullptr));

  IS from = nullptr, to = nullptr;
  VecScatter scatter = nullptr;
  const Measurement setup = time_setup([&] {
    CHECK_PETSC(ISCreateStride(PETSC_COMM_SELF, n_dst, c.r, c.p, &from));
    CHECK_PETSC(ISCreateStride(PETSC_COMM_SELF, n_dst, first_destination, 1, &to));
    CHECK_PETSC(VecScatterCreate(source, from, destination, to, &scatter));
  });
  const Measurement m = setup_and_op_lines(
      name, std::string(kVecScatter) + ":setup", setup,
      "ISCreateStride x2 (receiver-driven: stride P from r in the block source, my contiguous "
      "cyclic range), VecScatterCreate",
      [&] { CHECK_PETSC(VecSet(destination, kPoison)); },
      [&] {
        CHECK_PETSC(VecScatterBegin(scatter, source, destination, INSERT_VALUES, SCATTER_FORWARD));
        CHECK_PETSC(VecScatterEnd(scatter, source, destination, INSERT_VALUES, SCATTER_FORWARD));
      },
      [&](const char* phase) {
        const VecRead d(destination);
        // Cyclic: local l holds g = l*P + r.
        verify(name, kVecScatter, phase, d.data(), static_cast<std::size_t>(n_dst),
               [&](std::size_t l) { return static_cast<double>(Index(l) * c.p + c.r); });
      });
  report({name, kVecScatter, "op", m, bytes, offrank,
          "VecScatterBegin/End, INSERT_VALUES, SCATTER_FORWARD, block VECMPI -> cyclic VECMPI; "
          "PetscSF " +
              scatter_type(scatter)});

  CHECK_PETSC(VecScatterDestroy(&scatter));
  CHECK_PETSC(ISDestroy(&to));
  CHECK_PETSC(ISDestroy(&from));
  CHECK_PETSC(VecDestroy(&destination));
  CHECK_PETSC(VecDestroy(&source));
}

// ---- GA1-M and SC1-M: irregular gather and scatter-add --------------------------------

using irregular::IrregularCase;

// The block-distributed array of N (VECMPI, rank q's PETSc indices are
// [q*N/P, (q+1)*N/P), so its PETSc index is g) with x[g] = g, a sequential
// vector of this rank's M values, and the PETSc copy of the index stream.
struct IrregularVectors {
  Vec array = nullptr, values = nullptr;
  std::vector<PetscInt> indices;

  explicit IrregularVectors(const IrregularCase& c) : indices(c.idx.begin(), c.idx.end()) {
    const auto n_local = static_cast<PetscInt>(c.local_count());
    CHECK_PETSC(VecCreateMPI(PETSC_COMM_WORLD, n_local, static_cast<PetscInt>(c.n), &array));
    CHECK_PETSC(VecCreateSeq(PETSC_COMM_SELF, static_cast<PetscInt>(c.m), &values));
    reset_array(c);
  }
  IrregularVectors(const IrregularVectors&) = delete;
  IrregularVectors& operator=(const IrregularVectors&) = delete;
  ~IrregularVectors() {
    CHECK_PETSC(VecDestroy(&values));
    CHECK_PETSC(VecDestroy(&array));
  }
  void reset_array(const IrregularCase& c) const {
    const VecWrite a(array);
    const Index lo = c.lo(c.r);
    for (std::size_t l = 0; l < c.local_count(); ++l)
      a.data()[l] = static_cast<double>(lo + Index(l));
  }
};

// The scatter both cases use, built in the gather direction: from the
// array at the M global indices (duplicates kept) to entries 0..M-1 of the
// sequential vector.  The index sets are part of the set-up line.
struct GatherScatter {
  IS from = nullptr, to = nullptr;
  VecScatter scatter = nullptr;

  explicit GatherScatter(const IrregularVectors& v) {
    const auto m = static_cast<PetscInt>(v.indices.size());
    CHECK_PETSC(ISCreateGeneral(PETSC_COMM_SELF, m, v.indices.data(), PETSC_COPY_VALUES, &from));
    CHECK_PETSC(ISCreateStride(PETSC_COMM_SELF, m, 0, 1, &to));
    CHECK_PETSC(VecScatterCreate(v.array, from, v.values, to, &scatter));
  }
  GatherScatter(const GatherScatter&) = delete;
  GatherScatter& operator=(const GatherScatter&) = delete;
  ~GatherScatter() {
    CHECK_PETSC(VecScatterDestroy(&scatter));
    CHECK_PETSC(ISDestroy(&to));
    CHECK_PETSC(ISDestroy(&from));
  }
};

constexpr const char* kGatherSetupNote =
    "ISCreateGeneral of the M global indices (copied), ISCreateStride 0..M-1, VecScatterCreate "
    "(block VECMPI -> VECSEQ of M)";

// GA1: out[k] = A[idx[k]], a forward scatter with INSERT_VALUES.
void gather_vecscatter(Index m) {
  ensure_petsc();
  const IrregularCase c("GA1-" + std::to_string(m), Index(1) << 22, m);
  const IrregularVectors v(c);
  std::unique_ptr<GatherScatter> gather;
  const Measurement setup = time_setup([&] { gather = std::make_unique<GatherScatter>(v); });
  const Measurement op = setup_and_op_lines(
      c.name, std::string(kVecScatter) + ":setup", setup, kGatherSetupNote,
      [&] { CHECK_PETSC(VecSet(v.values, kPoison)); },
      [&] {
        CHECK_PETSC(
            VecScatterBegin(gather->scatter, v.array, v.values, INSERT_VALUES, SCATTER_FORWARD));
        CHECK_PETSC(
            VecScatterEnd(gather->scatter, v.array, v.values, INSERT_VALUES, SCATTER_FORWARD));
      },
      [&](const char* phase) {
        const VecRead out(v.values);
        irregular::verify_gather(c, kVecScatter, phase, out.data());
      });
  report({c.name, kVecScatter, "op", op, c.bytes(), c.offrank_bytes(),
          "VecScatterBegin/End, INSERT_VALUES, SCATTER_FORWARD into a VECSEQ of M; PetscSF " +
              scatter_type(gather->scatter)});
}

// SC1: x[idx[k]] += val[k], the gather's scatter run backwards
// (SCATTER_REVERSE, from the sequential vector of contributions into the
// array) with ADD_VALUES: PETSc's assembly idiom, no second scatter to build.
void scatter_add_vecscatter(Index m) {
  ensure_petsc();
  const IrregularCase c("SC1-" + std::to_string(m), Index(1) << 22, m);
  const irregular::ScatterAddReference reference(c);
  const IrregularVectors v(c);
  {
    const VecWrite values(v.values);
    for (Index k = 0; k < c.m; ++k) values.data()[k] = c.contribution(c.r, k);
  }
  std::unique_ptr<GatherScatter> gather;
  const Measurement setup = time_setup([&] { gather = std::make_unique<GatherScatter>(v); });
  // The array accumulates: every operation, warm-ups included, is counted,
  // and each verified phase starts again from x[g] = g.
  long long operations = 0;
  const Measurement op = setup_and_op_lines(
      c.name, std::string(kVecScatter) + ":setup", setup,
      std::string(kGatherSetupNote) + ", used backwards",
      [&] {
        v.reset_array(c);
        operations = 0;
      },
      [&] {
        CHECK_PETSC(
            VecScatterBegin(gather->scatter, v.values, v.array, ADD_VALUES, SCATTER_REVERSE));
        CHECK_PETSC(VecScatterEnd(gather->scatter, v.values, v.array, ADD_VALUES, SCATTER_REVERSE));
        ++operations;
      },
      [&](const char* phase) {
        const VecRead x(v.array);
        reference.verify(c, kVecScatter, phase, x.data(), operations);
      });
  report({c.name, kVecScatter, "op", op, c.bytes(), c.offrank_bytes(),
          "VecScatterBegin/End, ADD_VALUES, SCATTER_REVERSE of the gather's scatter (VECSEQ of "
          "contributions -> block VECMPI); PetscSF " +
              scatter_type(gather->scatter)});
}

// ---- H2D-N, H3D-N, H2DA-N: halo exchange and accumulate through a DMDA ---------------

// The DMDA of a halo case: PETSc's x is the scenario's last (fastest)
// dimension, so its vectors are row-major like the scenario's storage; the
// distributed dimension is split with the scenario's block ownership ranges
// (PETSc's default would give the remainder to the first ranks instead);
// ghost width 1, kDmdaBoundary.
DM create_dmda(const Geometry& g, int dims, Stencil stencil) {
  const int split = dims == 2 ? 1 : 0;  // the distributed dimension of the geometry
  std::vector<PetscInt> ownership;
  for (int q = 0; q < g.grid[split]; ++q)
    ownership.push_back(
        static_cast<PetscInt>((q + 1) * g.n / g.grid[split] - q * g.n / g.grid[split]));
  const auto n = static_cast<PetscInt>(g.n);
  const DMDAStencilType type = stencil == Stencil::kBox ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;
  const DMBoundaryType edge = kDmdaBoundary;
  DM da = nullptr;
  if (dims == 2)
    CHECK_PETSC(DMDACreate2d(PETSC_COMM_WORLD, edge, edge, type, n, n, 1, g.grid[1], 1, 1, nullptr,
                             ownership.data(), &da));
  else
    CHECK_PETSC(DMDACreate3d(PETSC_COMM_WORLD, edge, edge, edge, type, n, n, n, 1, 1, g.grid[0], 1,
                             1, nullptr, nullptr, ownership.data(), &da));
  CHECK_PETSC(DMSetUp(da));
  return da;
}

// The box of cells a DMDA's local vector holds (owned and ghost), in the
// geometry's order of dimensions (dimension 0 slowest): first global
// coordinate and extent.
struct LocalBox {
  std::array<Index, 3> start{}, extent{};
};

// The DMDA must own exactly what the scenario's rank owns, and its local
// vector must hold no cell that the scenario's storage lacks: otherwise the
// references would not apply.  Returns the local vector's box.
LocalBox require_scenario_layout(const std::string& name, DM da, Vec local, const Geometry& g) {
  std::array<PetscInt, 3> start{}, count{}, ghost_start{}, ghost_count{};  // PETSc's x, y, z
  CHECK_PETSC(DMDAGetCorners(da, &start[0], &start[1], &start[2], &count[0], &count[1], &count[2]));
  CHECK_PETSC(DMDAGetGhostCorners(da, &ghost_start[0], &ghost_start[1], &ghost_start[2],
                                  &ghost_count[0], &ghost_count[1], &ghost_count[2]));
  LocalBox box;
  bool same = true;
  for (int d = 0; d < 3; ++d) {
    const int x = 2 - d;  // PETSc's x is the geometry's last dimension
    box.start[d] = ghost_start[x];
    box.extent[d] = ghost_count[x];
    same = same && start[x] == g.lo[d] && count[x] == g.count[d] &&
           box.start[d] >= g.lo[d] - g.halo[d] &&
           box.start[d] + box.extent[d] <= g.lo[d] + g.count[d] + g.halo[d];
  }
  same = same && local_size(local) == box.extent[0] * box.extent[1] * box.extent[2];
  if (!same) {
    std::fprintf(stderr, "adlib_bench: %s: the DMDA's local block differs from the scenario's\n",
                 name.c_str());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return box;
}

// Visits the cells of the local vector in its order (last dimension
// fastest): f(position there, offset of the same cell in the scenario's
// storage).
template <class F>
void for_each_local_cell(const Geometry& g, const LocalBox& box, F&& f) {
  std::size_t at = 0;
  auto local = [&](int d, Index i) { return box.start[d] + i - g.lo[d] + g.halo[d]; };
  for (Index i = 0; i < box.extent[0]; ++i)
    for (Index j = 0; j < box.extent[1]; ++j)
      for (Index k = 0; k < box.extent[2]; ++k)
        f(at++, static_cast<std::size_t>(g.offset(local(0, i), local(1, j), local(2, k))));
}

// Visits the owned cells in the order of the DMDA's global vector (its
// local part: the owned box, last dimension fastest): f(position there,
// offset in the scenario's storage, global linear index).
template <class F>
void for_each_owned_cell(const Geometry& g, F&& f) {
  std::size_t at = 0;
  for (Index i = g.halo[0]; i < g.halo[0] + g.count[0]; ++i)
    for (Index j = g.halo[1]; j < g.halo[1] + g.count[1]; ++j)
      for (Index k = g.halo[2]; k < g.halo[2] + g.count[2]; ++k)
        f(at++, static_cast<std::size_t>(g.offset(i, j, k)), g.global_linear(i, j, k));
}

// Owned cells of the global vector: double(g).
void fill_global(const Geometry& g, Vec global) {
  const VecWrite x(global);
  for_each_owned_cell(g, [&](std::size_t at, std::size_t, Index global_index) {
    x.data()[at] = static_cast<double>(global_index);
  });
}

const std::string kDmdaSetupNote =
    std::string("DMDACreate + DMSetUp (block ownership ranges, ") +
    (kDmdaBoundary == DM_BOUNDARY_NONE ? "DM_BOUNDARY_NONE" : "DM_BOUNDARY_GHOSTED") +
    ", ghost width 1; builds the global-to-local scatter); global and local vectors created "
    "outside";

struct HaloCase {
  std::string name;
  int dims;
  Index n;
  Stencil stencil;
};

// H2D, H3D: DMGlobalToLocal with INSERT_VALUES into the local vector,
// whose every entry is poisoned first: PETSc also copies the owned part
// into it, so the owned cells are checked too.
void exchange_dmda(const HaloCase& c) {
  ensure_petsc();
  std::array<int, 3> grid{1, 1, 1};
  grid[3 - c.dims] = size();  // the scenario's dimension 0 is split
  const Geometry g(c.dims, c.n, grid, rank());
  const std::vector<Neighbour> plan = neighbour_plan(g, c.stencil);
  const double bytes = static_cast<double>(total_cells(plan, &Neighbour::recv)) * 8;
  const auto owned_cells = static_cast<long long>(g.count[0] * g.count[1] * g.count[2]);

  DM da = nullptr;
  const Measurement setup = time_setup([&] { da = create_dmda(g, c.dims, c.stencil); });
  Vec global = nullptr, local = nullptr;
  CHECK_PETSC(DMCreateGlobalVector(da, &global));
  CHECK_PETSC(DMCreateLocalVector(da, &local));
  const LocalBox box = require_scenario_layout(c.name, da, local, g);
  fill_global(g, global);
  std::vector<double> array(g.cells);

  const Measurement m = setup_and_op_lines(
      c.name, std::string(kDmda) + ":setup", setup, kDmdaSetupNote,
      [&] { CHECK_PETSC(VecSet(local, kPoison)); },
      [&] {
        CHECK_PETSC(DMGlobalToLocalBegin(da, global, INSERT_VALUES, local));
        CHECK_PETSC(DMGlobalToLocalEnd(da, global, INSERT_VALUES, local));
      },
      [&](const char* phase) {
        // The case's reference reads the scenario's storage: the local
        // vector's cells there, the cells it lacks (ghosts beyond the
        // domain's edge) poisoned.
        const VecRead l(local);
        poison(array);
        for_each_local_cell(
            g, box, [&](std::size_t at, std::size_t offset) { array[offset] = l.data()[at]; });
        check_array(c.name, kDmda, phase, g, c.stencil, array.data(), true);
      });
  report({c.name, kDmda, "op", m, bytes, bytes,
          std::string("DMGlobalToLocalBegin/End, INSERT_VALUES, ") +
              (c.stencil == Stencil::kBox ? "DMDA_STENCIL_BOX" : "DMDA_STENCIL_STAR") +
              "; also copies the owned part into the local vector (" +
              std::to_string(owned_cells * 8) +
              " B per rank, not in bytes), which the other lines do not"});

  CHECK_PETSC(VecDestroy(&local));
  CHECK_PETSC(VecDestroy(&global));
  CHECK_PETSC(DMDestroy(&da));
}

// H2DA: DMLocalToGlobal with ADD_VALUES, the exchange's scatter run
// backwards.  PETSc adds every entry of the local vector, owned ones
// included, into the global vector: the local vector holds the case's ghost
// values (1.0 inside the domain) and 0 in its owned cells, so that an owned
// cell receives exactly the ghost values other ranks hold for it.  The
// global vector is the destination and starts from double(g).
void accumulate_dmda(const std::string& name, Index n) {
  ensure_petsc();
  const Geometry g(2, n, {1, size(), 1}, rank());
  const std::vector<Neighbour> plan = neighbour_plan(g, Stencil::kBox);
  const double bytes = static_cast<double>(total_cells(plan, &Neighbour::send)) * 8;
  const auto owned_cells = static_cast<long long>(g.count[0] * g.count[1] * g.count[2]);

  DM da = nullptr;
  const Measurement setup = time_setup([&] { da = create_dmda(g, 2, Stencil::kBox); });
  Vec global = nullptr, local = nullptr;
  CHECK_PETSC(DMCreateGlobalVector(da, &global));
  CHECK_PETSC(DMCreateLocalVector(da, &local));
  const LocalBox box = require_scenario_layout(name, da, local, g);
  {
    std::vector<double> contributions = make_accumulate_array(g);
    for_each_owned_cell(
        g, [&](std::size_t, std::size_t offset, Index) { contributions[offset] = 0.0; });
    const VecWrite l(local);
    for_each_local_cell(
        g, box, [&](std::size_t at, std::size_t offset) { l.data()[at] = contributions[offset]; });
  }

  long long operations = 0;
  const Measurement m = setup_and_op_lines(
      name, std::string(kDmda) + ":setup", setup, kDmdaSetupNote,
      [&] {
        fill_global(g, global);
        operations = 0;
      },
      [&] {
        CHECK_PETSC(DMLocalToGlobalBegin(da, local, ADD_VALUES, global));
        CHECK_PETSC(DMLocalToGlobalEnd(da, local, ADD_VALUES, global));
        ++operations;
      },
      [&](const char* phase) {
        // The case's reference reads the scenario's storage: the local
        // vector's ghosts (unchanged, they are the source), the global
        // vector's owned values; ghosts beyond the domain's edge, which the
        // local vector lacks, as the case made them.
        const VecRead x(global), l(local);
        std::vector<double> array = make_accumulate_array(g);
        for_each_local_cell(
            g, box, [&](std::size_t at, std::size_t offset) { array[offset] = l.data()[at]; });
        for_each_owned_cell(
            g, [&](std::size_t at, std::size_t offset, Index) { array[offset] = x.data()[at]; });
        check_accumulated(name, kDmda, phase, g, array.data(), operations);
      });
  report({name, kDmda, "op", m, bytes, bytes,
          "DMLocalToGlobalBegin/End, ADD_VALUES, DMDA_STENCIL_BOX; also adds the owned part of "
          "the local vector (zeros here, " +
              std::to_string(owned_cells * 8) + " B per rank, not in bytes) into the global one"});

  CHECK_PETSC(VecDestroy(&local));
  CHECK_PETSC(VecDestroy(&global));
  CHECK_PETSC(DMDestroy(&da));
}

}  // namespace

// The same case names as the adlib lines (remap_cases.cpp,
// irregular_cases.cpp, halo_cases.cpp, halo_accumulate_cases.cpp), so that
// a filter selects both.
void register_petsc_cases() {
  add_case("RM1-4194304", [] { remap_vecscatter(4194304); });
  add_case("GA1-262144", [] { gather_vecscatter(Index(1) << 18); });
  add_case("SC1-262144", [] { scatter_add_vecscatter(Index(1) << 18); });
  for (const Index n : {512, 2048, 8192}) {
    const std::string name = "H2D-" + std::to_string(n);
    add_case(name, [name, n] { exchange_dmda({name, 2, n, Stencil::kBox}); });
  }
  for (const Index n : {64, 256}) {
    const std::string name = "H3D-" + std::to_string(n);
    add_case(name, [name, n] { exchange_dmda({name, 3, n, Stencil::kStar}); });
  }
  for (const Index n : {2048, 8192}) {
    const std::string name = "H2DA-" + std::to_string(n);
    add_case(name, [name, n] { accumulate_dmda(name, n); });
  }
}

}  // namespace bench
