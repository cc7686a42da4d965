// SPDX-License-Identifier: BSD-3-Clause
// The allocation counter of allocation_counter.hpp: the global operator new
// and delete of the test program, replaced.
#include "allocation_counter.hpp"

#include <cstdlib>
#include <new>

namespace adlib_test {
std::atomic<bool> counting{false};
std::atomic<std::size_t> allocations{0};
std::atomic<std::size_t> allocated_bytes{0};
}  // namespace adlib_test

namespace {
using adlib_test::allocated_bytes;
using adlib_test::allocations;
using adlib_test::counting;

void* counted_allocation(std::size_t bytes) {
  if (counting.load(std::memory_order_relaxed)) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    allocated_bytes.fetch_add(bytes, std::memory_order_relaxed);
  }
  if (void* p = std::malloc(bytes ? bytes : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t bytes) {
  return counted_allocation(bytes);
}
void* operator new[](std::size_t bytes) {
  return counted_allocation(bytes);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
// The nothrow forms too (std::stable_sort's temporary buffer uses them):
// every allocation is counted, and every block is freed by the allocator that
// made it (AddressSanitizer checks the pairing).
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return counted_allocation(bytes);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return counted_allocation(bytes);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
