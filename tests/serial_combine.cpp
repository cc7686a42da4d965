// SPDX-License-Identifier: BSD-3-Clause
// Combine operations in the copy kernels (runtime/detail/pack.hpp, runtime/
// combine.hpp): unpacking with replace, add, min, max, product and a user's
// operation gives, element by element, what a sequential loop over the
// block's C order gives, including blocks whose targets repeat (a zero
// stride, overlapping dimensions), where every arriving value must count.
// And StridedBlock::injective(), which decides when that ordered walk is
// needed, never calls a repeating block injective.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <complex>
#include <cstdint>
#include <set>
#include <vector>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/detail/pack.hpp>
#include "block_reference.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_combine {

namespace {

using adlib::StridedBlock;
using Space = Kokkos::DefaultHostExecutionSpace;

// target[offsets[k]] op= buffer[k] for k in order: the reference.
template <class T, class Op>
std::vector<T> reference_unpack(std::vector<T> memory, const StridedBlock& block,
                                const std::vector<T>& buffer, Op op) {
  const auto offsets = adlib_test::offsets_of(block);
  for (std::size_t k = 0; k < offsets.size(); ++k) op(memory[offsets[k]], buffer[k]);
  return memory;
}

template <class T, class Op>
void check_unpack(const StridedBlock& block, Op op, const char* what) {
  const auto offsets = adlib_test::offsets_of(block);
  std::int64_t size = 1;
  for (auto o : offsets) size = std::max<std::int64_t>(size, o + 1);
  std::vector<T> memory(static_cast<std::size_t>(size)), buffer(offsets.size());
  for (std::size_t i = 0; i < memory.size(); ++i) memory[i] = T(3 + i % 5);
  for (std::size_t k = 0; k < buffer.size(); ++k) buffer[k] = T(1 + (7 * k) % 11);
  const std::vector<T> expected = reference_unpack(memory, block, buffer, op);
  adlib::detail::unpack_block<T>(Space(), memory.data(), block, buffer.data(), op);
  Space().fence();
  EXPECT_EQ(memory, expected) << what << " into " << block.to_string();
}

template <class T, class Op>
void check_all_blocks(Op op, const char* what) {
  // Injective blocks, and blocks that repeat targets: a zero stride, and
  // dimensions that overlap (stride 2 over extent 3 inside stride 3).
  for (const StridedBlock& b :
       {StridedBlock::make(2, {5}, {1}), StridedBlock::make(1, {3, 4}, {7, 2}),
        StridedBlock::make(4, {6}, {0}), StridedBlock::make(0, {4, 3}, {3, 2}),
        StridedBlock::make(9, {2, 3}, {-4, 1}), StridedBlock::make(3, {2, 2, 2}, {0, 5, 1})})
    check_unpack<T>(b, op, what);
}

TEST(SerialCombine, EveryOperationMatchesTheSequentialLoop) {
  check_all_blocks<long long>(adlib::op::replace, "replace");
  check_all_blocks<long long>(adlib::op::add, "add");
  check_all_blocks<long long>(adlib::op::min, "min");
  check_all_blocks<long long>(adlib::op::max, "max");
  check_all_blocks<long long>(adlib::op::product, "product");
  check_all_blocks<double>(adlib::op::add, "add");
  check_all_blocks<int>(adlib::op::combine([](int& t, int v) { t = 2 * t - v; }), "user");
  check_all_blocks<std::complex<double>>(adlib::op::add, "complex add");
  check_all_blocks<std::complex<double>>(adlib::op::product, "complex product");
}

// add and product work on std::complex's parts (device kernels cannot call
// its host operators: runtime/detail/complex_arithmetic.hpp): the same
// values as std::complex's own operators.  Integer-valued parts keep every
// product exact, so the comparison is exact whatever the compiler contracts.
template <class R>
void check_complex_parts() {
  using C = std::complex<R>;
  for (int a = -3; a <= 3; ++a)
    for (int b = -2; b <= 2; ++b)
      for (int c = -3; c <= 3; c += 2)
        for (int d = -2; d <= 2; ++d) {
          const C x{R(a), R(b)}, y{R(c), R(d)};
          C sum = x, product = x;
          adlib::op::add(sum, y);
          adlib::op::product(product, y);
          EXPECT_EQ(sum, x + y);
          EXPECT_EQ(product, x * y) << x << " * " << y;
          EXPECT_EQ(adlib::detail::conjugate(x), std::conj(x));
        }
  EXPECT_EQ(adlib::detail::conjugate(R(-2)), R(-2));  // not complex: unchanged
}

TEST(SerialCombine, ComplexPartsMatchStdComplex) {
  check_complex_parts<double>();
  check_complex_parts<float>();
}

TEST(SerialCombine, RepeatedTargetsCountEveryValue) {
  // Six values onto one element: the sum of all of them.
  std::vector<int> memory{10, 0};
  const std::vector<int> buffer{1, 2, 3, 4, 5, 6};
  adlib::detail::unpack_block<int>(Space(), memory.data(), StridedBlock::make(0, {6}, {0}),
                                   buffer.data(), adlib::op::add);
  Space().fence();
  EXPECT_EQ(memory[0], 31);
  EXPECT_EQ(memory[1], 0);
}

TEST(SerialCombine, InjectiveNeverAcceptsARepeatingBlock) {
  adlib_test::Rng rng(7);
  int injective_seen = 0, repeating_seen = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int rank = static_cast<int>(rng.uniform(1, 3));
    StridedBlock b;
    b.rank = rank;
    b.offset = 40;
    for (int d = 0; d < rank; ++d) {
      b.extents[d] = rng.uniform(1, 4);
      b.strides[d] = rng.uniform(-6, 6);
    }
    const auto offsets = adlib_test::offsets_of(b);
    const bool repeats =
        std::set<std::int64_t>(offsets.begin(), offsets.end()).size() != offsets.size();
    if (repeats) {
      ++repeating_seen;
      ASSERT_FALSE(b.injective()) << b.to_string();
    } else if (b.injective()) {
      ++injective_seen;
    }
  }
  EXPECT_GT(injective_seen, 100);
  EXPECT_GT(repeating_seen, 100);
  EXPECT_TRUE(StridedBlock::make(0, {4, 8}, {8, 1}).injective());
  EXPECT_TRUE(StridedBlock::make(0, {1}, {0}).injective());
  EXPECT_FALSE(StridedBlock::make(0, {2}, {0}).injective());
}

}  // namespace

}  // namespace serial_combine
