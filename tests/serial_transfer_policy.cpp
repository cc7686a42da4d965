// SPDX-License-Identifier: BSD-3-Clause
// TransferPolicy: which messages the automatic rule hands to MPI as derived
// datatypes (long messages of short rows, small messages of long rows up to
// the dense limit), the forced choices, and the
// environment variables that set the default.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include <adlib/runtime/error.hpp>
#include <adlib/schedules/transfer_policy.hpp>

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_transfer_policy {

namespace {

using adlib::PeerMessage;
using adlib::StridedBlock;
using adlib::TransferMethod;
using adlib::TransferPolicy;

PeerMessage message(std::vector<StridedBlock> blocks) {
  PeerMessage m;
  m.peer = 1;
  for (const auto& b : blocks) m.count += b.count();
  m.direct = blocks.size() == 1 && blocks[0].contiguous();
  m.blocks = std::move(blocks);
  return m;
}

// A column of n doubles in a row-major array with leading dimension ld.
PeerMessage column(std::int64_t n, std::int64_t ld) {
  return message({StridedBlock::make(5, {n}, {ld})});
}

TEST(TransferPolicy, AutomaticTakesLongMessagesOfShortRows) {
  const TransferPolicy automatic;  // 16 KiB threshold
  EXPECT_TRUE(adlib::uses_datatype(column(2048, 1026), sizeof(double), automatic));
  EXPECT_TRUE(adlib::uses_datatype(column(8192, 4098), sizeof(double), automatic));
  // Too short: 4 KiB.
  EXPECT_FALSE(adlib::uses_datatype(column(512, 258), sizeof(double), automatic));
  // The threshold is in bytes: 512 elements of 32 bytes are 16 KiB.
  EXPECT_TRUE(adlib::uses_datatype(column(512, 258), 32, automatic));
  // Rows of 7 doubles (56 B) are short, rows of 8 (a cache line) are not.
  EXPECT_TRUE(
      adlib::uses_datatype(message({StridedBlock::make(0, {512, 7}, {1000, 1})}), 8, automatic));
  EXPECT_FALSE(
      adlib::uses_datatype(message({StridedBlock::make(0, {512, 8}, {1000, 1})}), 8, automatic));
  // Every block must qualify.
  EXPECT_TRUE(adlib::uses_datatype(
      message({StridedBlock::make(0, {2048}, {1000}), StridedBlock::make(1, {4, 6}, {1000, 1})}), 8,
      automatic));
  EXPECT_FALSE(adlib::uses_datatype(
      message({StridedBlock::make(0, {2048}, {1000}), StridedBlock::make(1, {4, 64}, {1000, 1})}),
      8, automatic));
  // Rows closer than a page pack at memory speed: every other element, rows
  // of 4 doubles 6 apart, or one double per 4080 bytes stay packed; one per
  // 4160 bytes is a page per row.
  EXPECT_FALSE(adlib::uses_datatype(column(1 << 20, 2), sizeof(double), automatic));
  EXPECT_FALSE(
      adlib::uses_datatype(message({StridedBlock::make(0, {4096, 4}, {6, 1})}), 8, automatic));
  EXPECT_FALSE(adlib::uses_datatype(column(4096, 510), sizeof(double), automatic));
  EXPECT_TRUE(adlib::uses_datatype(column(4096, 520), sizeof(double), automatic));
  // Pitches that are multiples of 2 KiB (4096, 6144, 8192 bytes...) keep
  // every row in the same cache sets: packed.  4608 bytes (8 positions in a
  // page) is not such a pitch.
  for (const std::int64_t ld : {512, 768, 1024, 4096})
    EXPECT_FALSE(adlib::uses_datatype(column(4096, ld), sizeof(double), automatic)) << ld;
  EXPECT_TRUE(adlib::uses_datatype(column(4096, 576), sizeof(double), automatic));
  // Many blocks make a large type: packed.
  std::vector<StridedBlock> many;
  for (int k = 0; k < 65; ++k) many.push_back(StridedBlock::make(k, {64}, {1000}));
  EXPECT_FALSE(adlib::uses_datatype(message(many), 8, automatic));
  many.pop_back();
  EXPECT_TRUE(adlib::uses_datatype(message(many), 8, automatic));
}

// Messages whose rows are all a cache line or longer (H3D-64's face: 64
// rows of 64 doubles, 66 apart) are packed unless the policy's dense limit
// admits them, up to and including that many bytes; other shapes do not
// change with the limit.
TEST(TransferPolicy, AutomaticTakesSmallMessagesOfLongRowsUpToTheDenseLimit) {
  const PeerMessage face = message({StridedBlock::make(0, {64, 64}, {66, 1})});  // 32 KiB
  TransferPolicy automatic;
  EXPECT_EQ(automatic.dense_datatype_max_bytes, 0);
  EXPECT_FALSE(adlib::uses_datatype(face, 8, automatic));
  automatic.dense_datatype_max_bytes = 32768;
  EXPECT_TRUE(adlib::uses_datatype(face, 8, automatic));
  automatic.dense_datatype_max_bytes = 32767;
  EXPECT_FALSE(adlib::uses_datatype(face, 8, automatic));
  automatic.dense_datatype_max_bytes = 1 << 20;
  EXPECT_TRUE(adlib::uses_datatype(face, 8, automatic));
  // Larger than the limit: packed (H3D-256's 512 KiB face).
  EXPECT_FALSE(adlib::uses_datatype(message({StridedBlock::make(0, {256, 256}, {258, 1})}), 8,
                                    {TransferMethod::automatic, 16384, false, 256 * 1024}));
  // Rows of exactly a cache line are long; several blocks of long rows too.
  EXPECT_TRUE(
      adlib::uses_datatype(message({StridedBlock::make(0, {512, 8}, {1000, 1})}), 8, automatic));
  EXPECT_TRUE(adlib::uses_datatype(
      message({StridedBlock::make(0, {16, 64}, {66, 1}), StridedBlock::make(9000, {64}, {1})}), 8,
      automatic));
  // A short row anywhere: not a message of long rows.  Short rows closer
  // than a page stay packed; scattered ones follow datatype_min_bytes only.
  EXPECT_FALSE(adlib::uses_datatype(
      message({StridedBlock::make(0, {16, 64}, {66, 1}), StridedBlock::make(9000, {64}, {2})}), 8,
      automatic));
  EXPECT_FALSE(adlib::uses_datatype(column(2048, 2), sizeof(double), automatic));
  EXPECT_FALSE(adlib::uses_datatype(column(512, 1026), sizeof(double), automatic));
  EXPECT_TRUE(adlib::uses_datatype(column(2048, 1026), sizeof(double), automatic));
  // Forced packing wins over the limit.
  EXPECT_FALSE(adlib::uses_datatype(face, 8, {TransferMethod::pack, 16384, false, 1 << 20}));
}

TEST(TransferPolicy, ForcedChoicesAndDirectMessages) {
  const TransferPolicy pack{TransferMethod::pack, 0}, datatype{TransferMethod::datatype, 0};
  EXPECT_FALSE(adlib::uses_datatype(column(8192, 4098), 8, pack));
  EXPECT_TRUE(adlib::uses_datatype(column(3, 4), 8, datatype));
  // One contiguous block goes to MPI as it is, whatever the policy.
  const PeerMessage contiguous = message({StridedBlock::make(7, {100}, {1})});
  for (const auto& policy : {pack, datatype, TransferPolicy{}})
    EXPECT_FALSE(adlib::uses_datatype(contiguous, 8, policy));
}

TEST(TransferPolicy, FromEnvironment) {
  unsetenv("ADLIB_TRANSFER");
  unsetenv("ADLIB_DATATYPE_MIN_BYTES");
  TransferPolicy p = TransferPolicy::from_environment();
  EXPECT_EQ(p.method, TransferMethod::automatic);
  EXPECT_EQ(p.datatype_min_bytes, 16384);
  setenv("ADLIB_TRANSFER", "datatype", 1);
  setenv("ADLIB_DATATYPE_MIN_BYTES", "4096", 1);
  setenv("ADLIB_DENSE_DATATYPE_MAX_BYTES", "65536", 1);
  p = TransferPolicy::from_environment();
  EXPECT_EQ(p.method, TransferMethod::datatype);
  EXPECT_EQ(p.datatype_min_bytes, 4096);
  EXPECT_EQ(p.dense_datatype_max_bytes, 65536);
  unsetenv("ADLIB_DENSE_DATATYPE_MAX_BYTES");
  EXPECT_EQ(TransferPolicy::from_environment().dense_datatype_max_bytes, 0);
  setenv("ADLIB_TRANSFER", "pack", 1);
  EXPECT_EQ(TransferPolicy::from_environment().method, TransferMethod::pack);
  setenv("ADLIB_TRANSFER", "packed", 1);
  EXPECT_THROW(TransferPolicy::from_environment(), adlib::Error);
  setenv("ADLIB_TRANSFER", "auto", 1);
  for (const char* bad : {"-1", "12kB", "+5", " 7"}) {
    setenv("ADLIB_DATATYPE_MIN_BYTES", bad, 1);
    EXPECT_THROW(TransferPolicy::from_environment(), adlib::Error) << bad;
  }
  unsetenv("ADLIB_TRANSFER");
  unsetenv("ADLIB_DATATYPE_MIN_BYTES");
}

}  // namespace

}  // namespace serial_transfer_policy
