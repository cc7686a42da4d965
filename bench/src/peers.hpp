// SPDX-License-Identifier: BSD-3-Clause
// Peer lines (bench/README.md, "Peer lines"): the same cases through the
// libraries a user would otherwise pick (PETSc, Tpetra, ScaLAPACK), in the
// same run and process layout as adlib's lines, verified the same way.
// Each peer's cases are compiled only where its Debian package is installed
// (bench/CMakeLists.txt defines ADLIB_BENCH_HAVE_<PEER>); a missing peer is
// announced by a line instead.
#pragma once

#include <functional>
#include <string>

namespace bench {

// Registers the peer cases of each library (its file: peer_<name>_cases.cpp).
// Each case is registered under its scenario's name with impl names
// "<peer>-<method>" (petsc-vecscatter, tpetra-import, ...).
void register_petsc_cases();
void register_tpetra_cases();
void register_scalapack_cases();

// Rank 0: one line saying the peer's lines are skipped and which package
// would give them (ADLIB_BENCH_PEERS=1 scripts/bench installs it).
void announce_missing_peer(const std::string& peer, const std::string& packages);

// Runs `finish` in finish_harness(), before MPI_Finalize (PetscFinalize,
// Cblacs_exit), in reverse order of registration.
void at_finish(std::function<void()> finish);

}  // namespace bench
