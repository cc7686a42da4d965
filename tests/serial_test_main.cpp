// SPDX-License-Identifier: BSD-3-Clause
// The main of every serial test: Kokkos up (the pack kernels are Kokkos
// kernels; MPI is not needed), then GoogleTest.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
