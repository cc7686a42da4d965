// SPDX-License-Identifier: BSD-3-Clause
// The misuse check shared by the MPI tests: f() must throw adlib::Error on
// every rank, with the same message everywhere, containing `needle`.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib_test {

template <class F>
void expect_error_everywhere(F&& f, const std::string& needle) {
  int threw = 0;
  std::string message;
  try {
    f();
  } catch (const adlib::Error& e) {
    threw = 1;
    message = e.message();
  }
  int size = 0, all = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&threw, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(threw, 1) << "no adlib::Error on this rank";
  EXPECT_EQ(all, size) << "adlib::Error on only some ranks";
  unsigned long long h = adlib::fingerprint_of(message), low = 0, high = 0;
  MPI_Allreduce(&h, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, high) << "ranks report different messages; here: " << message;
  EXPECT_NE(message.find(needle), std::string::npos) << "message: " << message;
}

}  // namespace adlib_test
