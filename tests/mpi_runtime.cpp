// SPDX-License-Identifier: BSD-3-Clause
// Runtime pieces that need MPI: the cached communicator duplicate, tag
// leases, agreement on argument errors, and the environment guard adopting
// an MPI and Kokkos that are already initialised.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <string>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/environment.hpp>
#include <adlib/runtime/error.hpp>

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_runtime {

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

// The library's duplicate returns MPI errors as codes: without
// MPI_ERRORS_RETURN on it the call below aborts the job (the duplicate would
// inherit MPI_COMM_WORLD's MPI_ERRORS_ARE_FATAL) and the test fails.
TEST(Error, LibraryCommunicatorReturnsErrors) {
  adlib::Comm comm(MPI_COMM_WORLD);
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
  ASSERT_EQ(MPI_Comm_get_errhandler(comm.get(), &handler), MPI_SUCCESS);
  EXPECT_TRUE(handler == MPI_ERRORS_RETURN)
      << "the duplicate's error handler is not MPI_ERRORS_RETURN";
  MPI_Errhandler_free(&handler);
  int value = 0;
  try {
    ADLIB_MPI(MPI_Send(&value, 1, MPI_INT, comm.size() + 5, 0, comm.get()), "Remap");
    FAIL() << "no exception";
  } catch (const adlib::Error& e) {
    // The MPI function's name (not the whole expression), MPI's error
    // string, the rank and the library operation.
    EXPECT_EQ(e.message().rfind("MPI_Send failed: ", 0), 0u) << e.message();
    EXPECT_GT(e.message().size(), std::string("MPI_Send failed: ").size());
    EXPECT_EQ(e.rank(), comm.rank());
    EXPECT_EQ(e.operation(), "Remap");
  }
}

TEST(Error, MessageNamesTheCall) {
  EXPECT_EQ(adlib::mpi_error_message(MPI_SUCCESS, "MPI_Barrier(c)"), "");
  const std::string m = adlib::mpi_error_message(MPI_ERR_RANK, "MPI_Isend(a, 1, t, 9, 0, c, &r)");
  EXPECT_EQ(m.rfind("MPI_Isend failed: ", 0), 0u) << m;
}

TEST(Environment, ThreadLevelComparedWithTheRequiredOne) {
  int provided = -1;
  MPI_Query_thread(&provided);
  int argc = 0;
  char** argv = nullptr;
  {
    adlib::Environment inner(argc, argv);
    EXPECT_EQ(inner.thread_level(), provided);
    EXPECT_GE(inner.thread_level(), adlib::Environment::required_thread_level());
  }
  if (provided >= MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPI provides every thread level";
  // Asking for more than MPI provides: adlib::Error on every rank (every rank
  // runs the same MPI), naming both levels; nothing is finalised.
  int threw = 0;
  try {
    adlib::Environment inner(argc, argv, MPI_THREAD_MULTIPLE);
  } catch (const adlib::Error& e) {
    threw = 1;
    EXPECT_NE(e.message().find("MPI_THREAD_MULTIPLE"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find(adlib::thread_level_name(provided)), std::string::npos)
        << e.message();
    EXPECT_EQ(e.operation(), "Environment");
  }
  EXPECT_EQ(threw, 1);
  int finalized = 1;
  MPI_Finalized(&finalized);
  EXPECT_EQ(finalized, 0);
  EXPECT_TRUE(Kokkos::is_initialized());
}

TEST(Environment, ThreadLevelError) {
  EXPECT_EQ(adlib::thread_level_error(MPI_THREAD_FUNNELED, MPI_THREAD_FUNNELED), "");
  EXPECT_EQ(adlib::thread_level_error(MPI_THREAD_MULTIPLE, MPI_THREAD_SINGLE), "");
  EXPECT_EQ(adlib::thread_level_error(MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED),
            "MPI provides MPI_THREAD_SINGLE, lower than the MPI_THREAD_FUNNELED required");
}

// Tags chosen together are the lowest free on every rank, whatever each
// rank holds; lease_tag() alone would give different tags here.
TEST(Comm, AgreedTagIsLowestFreeOnEveryRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int before = comm.live_tags();
  std::vector<adlib::TagLease> held;
  // Rank r holds r + 1 extra tags.
  for (int k = 0; k <= comm.rank(); ++k) held.push_back(comm.lease_tag());
  adlib::TagLease agreed = comm.lease_agreed_tag("", 42, "test");
  int low = 0, high = 0, mine = agreed.tag();
  MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &high, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, high);
  // The highest rank holds the most: the agreed tag is just above its.
  int highest_held = held.back().tag(), most = 0;
  MPI_Allreduce(&highest_held, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(agreed.tag(), most + 1);
  // A disagreement or a failure leases nothing.
  const int live = comm.live_tags();
  EXPECT_THROW(comm.lease_agreed_tag(comm.rank() == 0 ? "bad" : "", 42, "test"), adlib::Error);
  if (comm.size() > 1) {
    EXPECT_THROW(comm.lease_agreed_tag("", comm.rank() == 0 ? 1 : 2, "test"), adlib::Error);
  }
  EXPECT_EQ(comm.live_tags(), live);
  held.clear();
  agreed = adlib::TagLease();
  EXPECT_EQ(comm.live_tags(), before);
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

}  // namespace mpi_runtime
