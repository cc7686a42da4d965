// SPDX-License-Identifier: BSD-3-Clause
// The main of every serial test: Kokkos up (the pack kernels are Kokkos
// kernels; MPI is not needed), then GoogleTest.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <iostream>

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  int result = RUN_ALL_TESTS();
  // Every ctest entry selects its file's suites with --gtest_filter: one
  // that selects nothing (a suite renamed, a filter gone stale) fails
  // instead of passing with no test run.
  if (::testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
    std::cerr << "no test matches the filter given\n";
    result = 1;
  }
  Kokkos::finalize();
  return result;
}
