// SPDX-License-Identifier: BSD-3-Clause
// The one GoogleTest main of every MPI test binary: MPI, then Kokkos, then
// GoogleTest.  Rank 0 prints the usual output; other ranks print only their
// failures, prefixed with the rank.  After each test the ranks agree on the
// verdict, and the exit code is agreed too, so a failure on any rank fails
// the test on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <iostream>

#include <adlib/runtime/environment.hpp>

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                   result.file_name() ? result.file_name() : "?", result.line_number(),
                   result.summary());
  }

 private:
  int rank_;
};

// Agrees on each test's verdict so rank 0 reports failures seen elsewhere.
class AgreeOnVerdict : public ::testing::EmptyTestEventListener {
 public:
  explicit AgreeOnVerdict(int rank) : rank_(rank) {}
  void OnTestEnd(const ::testing::TestInfo& info) override {
    int failed = info.result()->Failed() ? 1 : 0, any = 0, first = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int candidate = failed ? rank_ : 1 << 30;
    MPI_Allreduce(&candidate, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank_ == 0 && any > 0 && !failed)
      std::fprintf(stderr, "[rank 0] %s.%s failed on %d other rank(s), first on rank %d\n",
                   info.test_suite_name(), info.name(), any, first);
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  listeners.Append(new AgreeOnVerdict(rank));
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0, any = 0;
  // Every ctest entry selects its file's suites with --gtest_filter: one
  // that selects nothing (a suite renamed, a filter gone stale) fails
  // instead of passing with no test run.
  if (::testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    if (rank == 0) std::cerr << "no test matches the filter given\n";
    failed = 1;
  }
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && any && !failed) std::cerr << "[rank 0] tests failed on other ranks\n";
  return any;
}
