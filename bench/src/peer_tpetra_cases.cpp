// SPDX-License-Identifier: BSD-3-Clause
// Tpetra's peer lines (bench/README.md, "Peer lines"): the irregular cases
// GA1-M and SC1-M through Trilinos' Tpetra, as a Tpetra user would write
// them, beside adlib's lines of the same cases (irregular_cases.cpp).
//
//   tpetra-import  GA1: the block-distributed array as a Vector over a
//                  contiguous Map, this rank's requests as a Map of their
//                  distinct global indices, one Import between the two;
//                  per operation doImport (INSERT), then the M outputs
//                  copied from the distinct values (duplicates expanded)
//   tpetra-export  SC1: the contributions summed per distinct index, a
//                  Vector over the Map of those indices, one Export to the
//                  block Map; per operation the local sums, then doExport
//                  with ADD_ASSIGN (added into every owned entry, the
//                  owner's own contributions included)
//
// Line order per case: tpetra-<method>:setup (the Maps, the distinct
// indices and the Import or Export), tpetra-<method>.
//
// Tpetra runs on the MPI and Kokkos that adlib::Environment initialised:
// Tpetra::initialize is not called (it would only wrap MPI_COMM_WORLD as
// Tpetra's default communicator, which these lines do not use), so there
// is nothing to finalise.  Each case gives Tpetra its own duplicate of
// MPI_COMM_WORLD in a Teuchos::MpiComm, freed with the last Tpetra object
// that holds it, so Tpetra's messages can never match the harness's or
// adlib's.  Tpetra's Kokkos is Trilinos' own, the one adlib is built with
// here (bench/CMakeLists.txt builds these lines only then).
#include <mpi.h>

#include <Teuchos_DefaultMpiComm.hpp>
#include <Teuchos_OpaqueWrapper.hpp>
#include <Teuchos_RCP.hpp>
#include <Tpetra_Export.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_Vector.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "irregular_case.hpp"
#include "peers.hpp"

namespace bench {

namespace {

using irregular::Index;
using irregular::IrregularCase;
using irregular::ScatterAddReference;
using irregular::verify_gather;

// Tpetra's default template arguments: int local and long long global
// ordinals, Kokkos' Serial node (the only ones Debian's Tpetra instantiates).
using Map = Tpetra::Map<>;
using GlobalOrdinal = Map::global_ordinal_type;
using Vector = Tpetra::Vector<double>;
using Import = Tpetra::Import<>;
using Export = Tpetra::Export<>;
using CommPointer = Teuchos::RCP<const Teuchos::Comm<int>>;

// A fresh duplicate of MPI_COMM_WORLD, freed (MPI_Comm_free) when the last
// Map or Vector holding it goes: before the case returns.
CommPointer private_comm() {
  MPI_Comm duplicate = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &duplicate);
  return Teuchos::rcp(new Teuchos::MpiComm<int>(Teuchos::opaqueWrapper(duplicate, MPI_Comm_free)));
}

// The block distribution (rank q owns [q*N/P, (q+1)*N/P)) as a contiguous
// Map: Tpetra numbers contiguous Maps in rank order, so each rank gives its
// count.
Teuchos::RCP<const Map> block_map(const IrregularCase& c, const CommPointer& comm) {
  return Teuchos::rcp(
      new Map(static_cast<Tpetra::global_size_t>(c.n), c.local_count(), GlobalOrdinal(0), comm));
}

// A Tpetra Map names each global index at most once per rank, but the
// scenario's index streams repeat indices.  So the Map holds this rank's
// distinct indices (ascending), and position[k] says which of them request
// k is.
struct DistinctIndices {
  std::vector<GlobalOrdinal> indices;
  std::vector<std::int32_t> position;  // per request k: its entry in indices

  explicit DistinctIndices(const std::vector<Index>& requests)
      : indices(requests.begin(), requests.end()), position(requests.size()) {
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    for (std::size_t k = 0; k < requests.size(); ++k)
      position[k] = static_cast<std::int32_t>(
          std::lower_bound(indices.begin(), indices.end(), requests[k]) - indices.begin());
  }

  // The Map over these indices; the global count is left for Tpetra to sum.
  Teuchos::RCP<const Map> map(const CommPointer& comm) const {
    return Teuchos::rcp(
        new Map(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                Teuchos::ArrayView<const GlobalOrdinal>(indices.data(), indices.size()),
                GlobalOrdinal(0), comm));
  }
  std::string repeats() const { return std::to_string(position.size() - indices.size()); }
};

// A Vector's local values on the host (one column, so contiguous).  The
// pointer outlives the view it comes from because the Vector owns the
// memory; with the Serial node host and device memory are the same, so the
// access mode only tells Tpetra what was read or written, and nothing is
// copied.
const double* host_values(const Vector& v) {
  return v.getLocalViewHost(Tpetra::Access::ReadOnly).data();
}
double* host_values(Vector& v, Tpetra::Access::ReadWriteStruct access) {
  return v.getLocalViewHost(access).data();
}
double* host_values(Vector& v, Tpetra::Access::OverwriteAllStruct access) {
  return v.getLocalViewHost(access).data();
}

// ---- GA1-M: Import ------------------------------------------------------------------------

void ga1_case(Index m) {
  const IrregularCase c("GA1-" + std::to_string(m), Index(1) << 22, m);
  const double bytes = c.bytes(), offrank = c.offrank_bytes();
  const CommPointer comm = private_comm();

  // The array A (x[g] = g), as adlib's line creates its DistArray before
  // timing the set-up.
  Vector source(block_map(c, comm));
  const std::vector<double> block = c.block_values();
  std::copy(block.begin(), block.end(), host_values(source, Tpetra::Access::OverwriteAll));
  std::vector<double> out(c.idx.size());

  std::unique_ptr<DistinctIndices> distinct;
  Teuchos::RCP<const Map> target_map;
  Teuchos::RCP<const Import> importer;
  const Measurement setup = time_setup([&] {
    distinct = std::make_unique<DistinctIndices>(c.idx);
    target_map = distinct->map(comm);
    importer = Teuchos::rcp(new Import(source.getMap(), target_map));
  });
  report({c.name, "tpetra-import:setup", "setup", setup, 0, 0,
          "distinct requested indices (sort, unique, positions), target Map over them, "
          "Tpetra::Import from the contiguous block Map",
          false});

  Vector target(target_map);
  const std::int32_t* position = distinct->position.data();
  const Measurement op = verified_time_op(
      [&] {
        poison(out);
        target.putScalar(kPoison);
      },
      [&] {
        target.doImport(source, *importer, Tpetra::INSERT);
        const double* values = host_values(target);
        for (std::size_t k = 0; k < out.size(); ++k) out[k] = values[position[k]];
      },
      [&](const char* phase) { verify_gather(c, "tpetra-import", phase, out.data()); });
  report({c.name, "tpetra-import", "op", op, bytes, offrank,
          "Vector::doImport (INSERT) onto the Map of the distinct requested indices, then the M "
          "outputs copied from it (" +
              distinct->repeats() + " repeated requests here), both timed"});
}

// ---- SC1-M: Export with add ---------------------------------------------------------------

void sc1_case(Index m) {
  const IrregularCase c("SC1-" + std::to_string(m), Index(1) << 22, m);
  const double bytes = c.bytes(), offrank = c.offrank_bytes();
  const ScatterAddReference reference(c);
  std::vector<double> values(c.idx.size());
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = c.contribution(c.r, Index(k));
  const CommPointer comm = private_comm();

  // The array x, as adlib's line creates its DistArray before the set-up.
  Vector x(block_map(c, comm));

  std::unique_ptr<DistinctIndices> distinct;
  Teuchos::RCP<const Map> contribution_map;
  Teuchos::RCP<const Export> exporter;
  const Measurement setup = time_setup([&] {
    distinct = std::make_unique<DistinctIndices>(c.idx);
    contribution_map = distinct->map(comm);
    exporter = Teuchos::rcp(new Export(contribution_map, x.getMap()));
  });
  report({c.name, "tpetra-export:setup", "setup", setup, 0, 0,
          "distinct target indices (sort, unique, positions), source Map over them, "
          "Tpetra::Export to the contiguous block Map",
          false});

  // One entry per distinct index: the sum of this rank's contributions to
  // it, rebuilt in every operation.
  Vector sums(contribution_map);
  const std::int32_t* position = distinct->position.data();
  long long operations = 0;
  const std::vector<double> start = c.block_values();
  const Measurement op = verified_time_op(
      [&] {
        std::copy(start.begin(), start.end(), host_values(x, Tpetra::Access::ReadWrite));
        operations = 0;
      },
      [&] {
        {
          double* s = host_values(sums, Tpetra::Access::OverwriteAll);
          std::fill(s, s + distinct->indices.size(), 0.0);
          for (std::size_t k = 0; k < values.size(); ++k) s[position[k]] += values[k];
        }
        // ADD_ASSIGN, not ADD: Tpetra 13.2's ADD sums what arrives from
        // other ranks but overwrites the entries this rank sends to itself
        // (MultiVector::copyAndPermute), which would drop x's own values.
        x.doExport(sums, *exporter, Tpetra::ADD_ASSIGN);
        ++operations;
      },
      [&](const char* phase) {
        reference.verify(c, "tpetra-export", phase, host_values(x), operations);
      });
  report({c.name, "tpetra-export", "op", op, bytes, offrank,
          "contributions summed per distinct index into a Vector (" + distinct->repeats() +
              " repeated indices here), Vector::doExport (ADD_ASSIGN) into the block Vector, "
              "both timed"});
}

}  // namespace

void register_tpetra_cases() {
  add_case("GA1-262144", [] { ga1_case(Index(1) << 18); });
  add_case("SC1-262144", [] { sc1_case(Index(1) << 18); });
}

}  // namespace bench
