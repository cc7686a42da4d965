// SPDX-License-Identifier: BSD-3-Clause
// Counts the allocations of a test program: allocation_counter.cpp replaces
// the global operator new and delete of the program it is linked into (one
// per program).  Set `counting` to count; `allocations` and
// `allocated_bytes` accumulate.  The memory tests of the negotiation use it
// to show that building a schedule allocates nothing that grows with the
// number of ranks; while `counting` is false, which is everywhere else, the
// replaced operators only forward to malloc and free.
#pragma once

#include <atomic>
#include <cstddef>

namespace adlib_test {
extern std::atomic<bool> counting;
extern std::atomic<std::size_t> allocations;
extern std::atomic<std::size_t> allocated_bytes;
}  // namespace adlib_test
