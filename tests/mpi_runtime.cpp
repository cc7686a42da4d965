// SPDX-License-Identifier: BSD-3-Clause
// Runtime pieces that need MPI: the cached communicator duplicate, tag
// leases, agreement on argument errors, and the environment guard adopting
// an MPI and Kokkos that are already initialised.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/environment.hpp>
#include <adlib/runtime/error.hpp>

namespace {

TEST(Comm, OneDuplicatePerUserCommunicator) {
  adlib::Comm a(MPI_COMM_WORLD), b(MPI_COMM_WORLD);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.get(), b.get());
  int result = MPI_UNEQUAL;
  MPI_Comm_compare(a.get(), MPI_COMM_WORLD, &result);
  EXPECT_EQ(result, MPI_CONGRUENT);  // a duplicate, never the user's own
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(a.rank(), rank);
  EXPECT_EQ(a.size(), size);

  // Another user communicator gets its own duplicate; freeing the user
  // communicator releases the cached one.
  MPI_Comm mine;
  MPI_Comm_dup(MPI_COMM_WORLD, &mine);
  {
    adlib::Comm c(mine);
    EXPECT_FALSE(c == a);
    EXPECT_NE(c.get(), a.get());
  }
  MPI_Comm_free(&mine);
}

TEST(Comm, TagLeasesAreDistinctAndRecycled) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int before = comm.live_tags();
  int first_tag;
  {
    adlib::TagLease a = comm.lease_tag();
    adlib::TagLease b = comm.lease_tag();
    EXPECT_NE(a.tag(), b.tag());
    EXPECT_EQ(comm.live_tags(), before + 2);
    first_tag = a.tag();
    adlib::TagLease moved = std::move(a);
    EXPECT_EQ(moved.tag(), first_tag);
    EXPECT_EQ(comm.live_tags(), before + 2);
  }
  EXPECT_EQ(comm.live_tags(), before);
  adlib::TagLease again = comm.lease_tag();
  EXPECT_EQ(again.tag(), first_tag);  // lowest free tag, identical on every rank
  int upper = 0, flag = 0;
  int* value = nullptr;
  MPI_Comm_get_attr(comm.get(), MPI_TAG_UB, &value, &flag);
  upper = flag ? *value : 32767;
  EXPECT_LE(again.tag(), upper);
}

TEST(AgreeOnErrors, SilentWhenAllAgree) {
  adlib::Comm comm(MPI_COMM_WORLD);
  EXPECT_NO_THROW(adlib::agree_on_errors(comm, "", 42, "test"));
}

TEST(AgreeOnErrors, OneRankFailsEveryRankThrowsItsMessage) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int culprit = comm.size() - 1;
  const std::string local = comm.rank() == culprit ? "bad width on the last rank" : "";
  try {
    adlib::agree_on_errors(comm, local, 7, "test");
    FAIL() << "no exception";
  } catch (const adlib::Error& e) {
    EXPECT_EQ(e.message(), "bad width on the last rank");
    EXPECT_EQ(e.rank(), culprit);
    EXPECT_EQ(e.operation(), "test");
  }
}

TEST(AgreeOnErrors, DifferentArgumentsAcrossRanksThrowEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const std::uint64_t fingerprint = comm.rank() == 0 ? 1 : 2;
  EXPECT_THROW(adlib::agree_on_errors(comm, "", fingerprint, "test"), adlib::Error);
}

TEST(Environment, AdoptsWhatIsAlreadyInitialised) {
  int argc = 0;
  char** argv = nullptr;
  {
    adlib::Environment inner(argc, argv);
    EXPECT_FALSE(inner.owns_mpi());
    EXPECT_FALSE(inner.owns_kokkos());
  }
  // Destroying the inner guard must have finalised nothing.
  int finalized = 1;
  MPI_Finalized(&finalized);
  EXPECT_EQ(finalized, 0);
  EXPECT_TRUE(Kokkos::is_initialized());
}

TEST(Error, MpiFailureBecomesException) {
  // MPI_ERRORS_RETURN on a private duplicate, so the failure reaches us.
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int size = 0;
  MPI_Comm_size(comm, &size);
  int value = 0;
  try {
    ADLIB_MPI(MPI_Send(&value, 1, MPI_INT, size + 5, 0, comm), "test");
    FAIL() << "no exception";
  } catch (const adlib::Error& e) {
    EXPECT_NE(std::string(e.what()).find("MPI_Send"), std::string::npos);
    EXPECT_EQ(e.operation(), "test");
  }
  MPI_Comm_free(&comm);
}

}  // namespace

namespace {

// Move-assigning over a live lease must return the overwritten tag (the
// first version destroyed the lease in place and reused its members).
TEST(Comm, MoveAssignedLeaseReturnsTheOverwrittenTag) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int before = comm.live_tags();
  {
    adlib::TagLease a = comm.lease_tag();
    adlib::TagLease b = comm.lease_tag();
    const int b_tag = b.tag();
    a = std::move(b);
    EXPECT_EQ(a.tag(), b_tag);
    EXPECT_EQ(b.tag(), -1);
    EXPECT_EQ(comm.live_tags(), before + 1);
  }
  EXPECT_EQ(comm.live_tags(), before);
}

}  // namespace
