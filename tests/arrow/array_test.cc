// Tests for arrow/buffer.h and arrow/array.h: buffers and pool accounting, bitmap helpers
// against naive references, every builder and accessor, slices, null arrays of every type, and
// Validate on valid and on broken layouts.
#include "arrow/array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arrow/buffer.h"
#include "must.h"

namespace quiver::arrow {
namespace {

__extension__ typedef __int128 Int128;

using testing::Must;

std::shared_ptr<ArrayData> Copy(const ArrayPtr& a) { return std::make_shared<ArrayData>(*a); }

std::shared_ptr<Buffer> Bytes(const std::vector<uint8_t>& bytes) {
  return Must(
      Buffer::CopyOf(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
}

template <typename T>
std::shared_ptr<Buffer> Words(const std::vector<T>& values) {
  return Must(Buffer::CopyOf(
      std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T))));
}

// Validate fails with Corruption and a message containing `needle`.
void ExpectCorrupt(const ArrayData& a, const std::string& needle, bool full = true) {
  Status s = Validate(a, full);
  ASSERT_FALSE(s.ok()) << "accepted: " << a.type.ToString() << " expected: " << needle;
  EXPECT_EQ(s.subcode(), Subcode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

void ExpectValid(const ArrayData& a) {
  Status s = Validate(a, true);
  EXPECT_TRUE(s.ok()) << a.type.ToString() << ": " << s.ToString();
}

const Field kInt32Item("item", DataType::Int32());

// ---------------------------------------------------------------- Buffer and MemoryPool

TEST(Buffer, AllocateIsAlignedZeroedAndPadded) {
  MemoryPool pool;
  for (uint64_t size : {1u, 7u, 63u, 64u, 65u, 1000u, 4096u}) {
    auto buffer = Must(Buffer::Allocate(size, &pool));
    EXPECT_EQ(buffer->size(), size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % kBufferAlignment, 0u);
    const uint64_t padded = (size + 63) / 64 * 64;
    EXPECT_EQ(pool.bytes_allocated(), padded);
    // Both the logical bytes and the padding up to the 64-byte boundary are zero.
    for (uint64_t i = 0; i < padded; ++i) ASSERT_EQ(buffer->data()[i], 0) << size << " @" << i;
    buffer.reset();
    EXPECT_EQ(pool.bytes_allocated(), 0u);
  }
}

TEST(Buffer, ZeroSizeNeedsNoPoolMemory) {
  MemoryPool pool;
  auto buffer = Must(Buffer::Allocate(0, &pool));
  EXPECT_EQ(buffer->size(), 0u);
  EXPECT_NE(buffer->data(), nullptr);
  EXPECT_EQ(pool.bytes_allocated(), 0u);
  EXPECT_EQ(buffer->view(), "");
}

TEST(Buffer, CopyOfIsAlignedAndPadded) {
  MemoryPool pool;
  auto buffer = Must(Buffer::CopyOf("hello", &pool));
  EXPECT_EQ(buffer->view(), "hello");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % kBufferAlignment, 0u);
  for (int i = 5; i < 64; ++i) EXPECT_EQ(buffer->data()[i], 0);
  EXPECT_EQ(pool.bytes_allocated(), 64u);
}

TEST(MemoryPool, AccountsPeakAndReturnsToZero) {
  MemoryPool pool;
  {
    auto a = Must(Buffer::Allocate(100, &pool));  // 128
    auto b = Must(Buffer::Allocate(200, &pool));  // 256
    EXPECT_EQ(pool.bytes_allocated(), 384u);
    a.reset();
    EXPECT_EQ(pool.bytes_allocated(), 256u);
    auto c = Must(Buffer::Allocate(64, &pool));
    EXPECT_EQ(pool.bytes_allocated(), 320u);
  }
  EXPECT_EQ(pool.bytes_allocated(), 0u);
  EXPECT_EQ(pool.peak(), 384u);
  EXPECT_EQ(pool.limit(), 0u);
}

TEST(MemoryPool, RefusesAllocationsAboveTheLimit) {
  MemoryPool pool(1024);
  auto a = Must(Buffer::Allocate(512, &pool));
  auto b = Must(Buffer::Allocate(500, &pool));  // 512 after rounding: exactly at the limit
  EXPECT_EQ(pool.bytes_allocated(), 1024u);
  auto c = Buffer::Allocate(1, &pool);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kServiceUnavailable) << c.status().ToString();
  EXPECT_TRUE(c.status().retryable());
  EXPECT_NE(c.status().message().find("limit of 1024"), std::string::npos);
  EXPECT_EQ(pool.bytes_allocated(), 1024u);  // the refused request left no trace
  EXPECT_EQ(pool.peak(), 1024u);
  a.reset();
  auto d = Must(Buffer::Allocate(512, &pool));  // room again
  EXPECT_EQ(pool.bytes_allocated(), 1024u);
  // A size that overflows when rounded up is refused, not wrapped.
  EXPECT_FALSE(pool.Allocate(std::numeric_limits<uint64_t>::max() - 3).ok());
  EXPECT_EQ(pool.bytes_allocated(), 1024u);
}

TEST(MemoryPool, DefaultPoolIsShared) {
  EXPECT_EQ(MemoryPool::Default(), MemoryPool::Default());
  const uint64_t before = MemoryPool::Default()->bytes_allocated();
  auto buffer = Must(Buffer::Allocate(10));
  EXPECT_EQ(MemoryPool::Default()->bytes_allocated(), before + 64);
}

TEST(Buffer, SliceKeepsParentAlive) {
  MemoryPool pool;
  auto parent = Must(Buffer::CopyOf("hello world", &pool));
  auto slice = Buffer::Slice(parent, 6, 5);
  auto inner = Buffer::Slice(slice, 1, 3);
  parent.reset();
  EXPECT_EQ(slice->view(), "world");
  EXPECT_EQ(inner->view(), "orl");
  EXPECT_EQ(pool.bytes_allocated(), 64u);
  slice.reset();
  EXPECT_EQ(inner->view(), "orl");
  EXPECT_EQ(pool.bytes_allocated(), 64u);
  inner.reset();
  EXPECT_EQ(pool.bytes_allocated(), 0u);
}

TEST(Buffer, FromStringAndWrapOwnTheirBytes) {
  auto from = Buffer::FromString(std::string(100, 'x'));
  EXPECT_EQ(from->size(), 100u);
  EXPECT_EQ(from->view(), std::string(100, 'x'));

  auto owner = std::make_shared<std::string>("abcdef");
  std::weak_ptr<std::string> watch = owner;
  const auto* bytes = reinterpret_cast<const uint8_t*>(owner->data());  // before the move
  auto wrapped = Buffer::Wrap(bytes + 2, 3, std::move(owner));
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ(wrapped->view(), "cde");
  wrapped.reset();
  EXPECT_TRUE(watch.expired());
}

TEST(Buffer, TruncateShrinksTheView) {
  MemoryPool pool;
  auto buffer = Must(Buffer::CopyOf("abcdef", &pool));
  buffer->Truncate(2);
  EXPECT_EQ(buffer->view(), "ab");
  buffer.reset();
  EXPECT_EQ(pool.bytes_allocated(), 0u);  // the whole allocation is freed
}

TEST(BufferBuilder, GrowsAndFinishes) {
  MemoryPool pool;
  std::shared_ptr<Buffer> buffer;
  {
    BufferBuilder builder(&pool);
    EXPECT_EQ(builder.size(), 0u);
    for (int32_t i = 0; i < 10000; ++i) ASSERT_TRUE(builder.AppendValue(i).ok());
    EXPECT_EQ(builder.size(), 40000u);
    EXPECT_GE(pool.bytes_allocated(), 40000u);
    // Geometric growth: the capacity is below twice the size plus a block.
    EXPECT_LE(pool.bytes_allocated(), 2 * 40000u + 64);
    buffer = Must(builder.Finish());
    EXPECT_EQ(builder.size(), 0u);
    // The builder is reusable after Finish.
    ASSERT_TRUE(builder.Append("xyz").ok());
    EXPECT_EQ(builder.size(), 3u);
  }
  ASSERT_EQ(buffer->size(), 40000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer->data()) % kBufferAlignment, 0u);
  const auto* values = reinterpret_cast<const int32_t*>(buffer->data());
  for (int32_t i = 0; i < 10000; ++i) ASSERT_EQ(values[i], i);
  EXPECT_GT(pool.bytes_allocated(), 0u);
  buffer.reset();
  EXPECT_EQ(pool.bytes_allocated(), 0u);
  EXPECT_GE(pool.peak(), 40000u);
}

TEST(BufferBuilder, ResizeZerosAndFinishZerosTheSlack) {
  MemoryPool pool;
  BufferBuilder builder(&pool);
  ASSERT_TRUE(builder.Append(std::string(100, '\xff')).ok());
  ASSERT_TRUE(builder.Resize(10).ok());
  EXPECT_EQ(builder.size(), 10u);
  ASSERT_TRUE(builder.Resize(20).ok());  // regrown bytes are zero, not the old 0xff
  for (int i = 10; i < 20; ++i) EXPECT_EQ(builder.data()[i], 0) << i;
  ASSERT_TRUE(builder.Resize(12).ok());
  auto buffer = Must(builder.Finish());
  ASSERT_EQ(buffer->size(), 12u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(buffer->data()[i], 0xff);
  // Everything after the logical end up to the 64-byte boundary of the allocation is zero.
  for (int i = 12; i < 128; ++i) ASSERT_EQ(buffer->data()[i], 0) << i;
}

TEST(BufferBuilder, AppendZerosReserveAndEmptyFinish) {
  MemoryPool pool;
  BufferBuilder builder(&pool);
  auto empty = Must(builder.Finish());
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_EQ(pool.bytes_allocated(), 0u);
  ASSERT_TRUE(builder.Reserve(1000).ok());
  EXPECT_EQ(builder.size(), 0u);
  EXPECT_GE(pool.bytes_allocated(), 1000u);
  ASSERT_TRUE(builder.AppendZeros(5).ok());
  ASSERT_TRUE(builder.Append("ab").ok());
  auto buffer = Must(builder.Finish());
  EXPECT_EQ(buffer->view(), std::string("\0\0\0\0\0ab", 7));
}

TEST(BufferBuilder, MovesAndFreesOnDestruction) {
  MemoryPool pool;
  {
    BufferBuilder a(&pool);
    ASSERT_TRUE(a.Append("abc").ok());
    BufferBuilder b(std::move(a));
    EXPECT_EQ(b.size(), 3u);
    BufferBuilder c(&pool);
    ASSERT_TRUE(c.Append(std::string(500, 'z')).ok());
    c = std::move(b);  // frees c's own bytes
    EXPECT_EQ(c.size(), 3u);
    EXPECT_EQ(pool.bytes_allocated(), 64u);
    auto buffer = Must(c.Finish());
    EXPECT_EQ(buffer->view(), "abc");
  }
  EXPECT_EQ(pool.bytes_allocated(), 0u);
}

TEST(BufferBuilder, RefusedGrowthKeepsTheBytes) {
  MemoryPool pool(256);
  BufferBuilder builder(&pool);
  ASSERT_TRUE(builder.Append(std::string(100, 'a')).ok());
  Status s = builder.Append(std::string(200, 'b'));
  EXPECT_EQ(s.code(), StatusCode::kServiceUnavailable) << s.ToString();
  EXPECT_EQ(builder.size(), 100u);
  auto buffer = Must(builder.Finish());
  EXPECT_EQ(buffer->view(), std::string(100, 'a'));
}

// ---------------------------------------------------------------- bitmaps

TEST(Bitmap, SetClearAndBytes) {
  uint8_t bits[2] = {0, 0};
  SetBit(bits, 0);
  SetBit(bits, 9);
  EXPECT_EQ(bits[0], 0x01);
  EXPECT_EQ(bits[1], 0x02);  // LSB-first
  SetBitTo(bits, 7, true);
  ClearBit(bits, 0);
  SetBitTo(bits, 9, false);
  EXPECT_EQ(bits[0], 0x80);
  EXPECT_EQ(bits[1], 0x00);
  EXPECT_TRUE(GetBit(bits, 7));
  EXPECT_FALSE(GetBit(bits, 6));
  EXPECT_EQ(BytesForBits(0), 0);
  EXPECT_EQ(BytesForBits(1), 1);
  EXPECT_EQ(BytesForBits(8), 1);
  EXPECT_EQ(BytesForBits(9), 2);
}

TEST(Bitmap, CountSetBitsMatchesNaive) {
  std::mt19937 rng(7);
  std::vector<uint8_t> bits(48);
  for (auto& b : bits) b = static_cast<uint8_t>(rng());
  for (int64_t offset = 0; offset < 20; ++offset) {
    for (int64_t length : {0, 1, 3, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200, 300}) {
      if (offset + length > 48 * 8) continue;
      int64_t naive = 0;
      for (int64_t i = offset; i < offset + length; ++i) naive += GetBit(bits.data(), i);
      ASSERT_EQ(CountSetBits(bits.data(), offset, length), naive) << offset << "+" << length;
    }
  }
}

TEST(Bitmap, CopyBitsMatchesNaiveAtAnyOffsets) {
  std::mt19937 rng(11);
  std::vector<uint8_t> src(40);
  for (auto& b : src) b = static_cast<uint8_t>(rng());
  for (int64_t src_offset : {0, 1, 3, 7, 8, 9, 16, 21}) {
    for (int64_t dst_offset : {0, 1, 5, 8, 13, 24}) {
      for (int64_t length : {0, 1, 5, 8, 9, 16, 17, 63, 64, 100, 250}) {
        std::vector<uint8_t> dst(40), before(40);
        for (auto& b : dst) b = static_cast<uint8_t>(rng());
        before = dst;
        CopyBits(src.data(), src_offset, length, dst.data(), dst_offset);
        for (int64_t i = 0; i < 40 * 8; ++i) {
          const bool expected = (i >= dst_offset && i < dst_offset + length)
                                    ? GetBit(src.data(), src_offset + (i - dst_offset))
                                    : GetBit(before.data(), i);
          ASSERT_EQ(GetBit(dst.data(), i), expected)
              << "src+" << src_offset << " dst+" << dst_offset << " len " << length << " bit " << i;
        }
      }
    }
  }
}

// An empty copy between empty builders (null data pointers) must not reach memcpy (UBSan; found
// by lance_file_fuzzer, input kept in fuzz/corpus/lance_file/regression-copybits-empty.lance).
TEST(Bitmap, EmptyCopyBetweenNullPointersIsANoOp) {
  CopyBits(nullptr, 0, 0, nullptr, 0);
  CopyBits(nullptr, 8, 0, nullptr, 16);
}

// ---------------------------------------------------------------- builders and accessors

template <typename T>
void CheckFixed(const DataType& type, std::vector<T> values) {
  SCOPED_TRACE(type.ToString());
  std::vector<bool> valid(values.size(), true);
  valid[1] = false;
  auto a = Must(MakeFixedArray(type, values, valid));
  ExpectValid(*a);
  EXPECT_TRUE(a->type == type);
  EXPECT_EQ(a->length, static_cast<int64_t>(values.size()));
  EXPECT_EQ(a->null_count, 1);
  ASSERT_EQ(a->buffers.size(), 2u);
  EXPECT_NE(a->buffers[0], nullptr);
  EXPECT_TRUE(IsValid(*a, 0));
  EXPECT_TRUE(IsNull(*a, 1));
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(std::memcmp(&Values<T>(*a)[i], &values[i], sizeof(T)), 0) << i;
    EXPECT_EQ(FixedValue(*a, static_cast<int64_t>(i)),
              std::string_view(reinterpret_cast<const char*>(&values[i]), sizeof(T)));
  }
  // All valid: no bitmap at all.
  auto b = Must(MakeFixedArray(type, values));
  EXPECT_EQ(b->buffers[0], nullptr);
  EXPECT_EQ(b->null_count, 0);
  ExpectValid(*b);
  auto c = Must(MakeFixedArray(type, values, std::vector<bool>(values.size(), true)));
  EXPECT_EQ(c->buffers[0], nullptr);
}

TEST(Builders, FixedWidthOfEveryType) {
  CheckFixed<int8_t>(DataType::Int8(), {-128, 0, 127});
  CheckFixed<uint8_t>(DataType::UInt8(), {0, 1, 255});
  CheckFixed<int16_t>(DataType::Int16(), {-32768, 5, 32767});
  CheckFixed<uint16_t>(DataType::UInt16(), {0, 7, 65535});
  CheckFixed<uint16_t>(DataType::Float16(), {0x3C00, 0x7E00, 0xFC00});
  CheckFixed<int32_t>(DataType::Int32(), {std::numeric_limits<int32_t>::min(), 1, 2, 3});
  CheckFixed<uint32_t>(DataType::UInt32(), {0, 1, 4294967295u});
  CheckFixed<float>(DataType::Float32(), {1.5f, NAN, -0.0f});
  CheckFixed<int32_t>(DataType::Date32(), {-1, 0, 19000});
  CheckFixed<int64_t>(DataType::Int64(), {std::numeric_limits<int64_t>::min(), 0, 1});
  CheckFixed<uint64_t>(DataType::UInt64(), {0, 1, std::numeric_limits<uint64_t>::max()});
  CheckFixed<double>(DataType::Float64(), {1e300, INFINITY, -2.5});
  CheckFixed<int64_t>(DataType::Date64(), {-86400000, 0, 86400000});
  CheckFixed<int64_t>(DataType::Timestamp(TimeUnit::kNano, "UTC"), {-1, 0, 1});
  CheckFixed<Int128>(DataType::Decimal128(38, 2), {-Int128{123456}, 0, Int128{1} << 100});
}

TEST(Builders, FixedWidthRejectsMismatches) {
  EXPECT_TRUE(MakeFixedArray<int64_t>(DataType::Int32(), {1}).status().IsInvalidInput());
  EXPECT_TRUE(MakeFixedArray<uint8_t>(DataType::Bool(), {1}).status().IsInvalidInput());
  EXPECT_TRUE(MakeFixedArray<int32_t>(DataType::Utf8(), {1}).status().IsInvalidInput());
  EXPECT_TRUE(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2}, {true}).status().IsInvalidInput());
}

TEST(Builders, Bool) {
  auto a = Must(MakeBoolArray({true, false, true, true, false, false, true, false, true},
                              {true, true, false, true, true, true, true, true, true}));
  ExpectValid(*a);
  EXPECT_EQ(a->null_count, 1);
  EXPECT_TRUE(BoolValue(*a, 0));
  EXPECT_FALSE(BoolValue(*a, 1));
  EXPECT_TRUE(IsNull(*a, 2));
  EXPECT_TRUE(BoolValue(*a, 8));
  EXPECT_EQ(a->buffers[1]->size(), 2u);
  EXPECT_TRUE(MakeBoolArray({true}, {true, false}).status().IsInvalidInput());
}

TEST(Builders, BinaryLike) {
  const std::vector<std::string> values = {"", "a", "hello", std::string("\0\xff", 2)};
  for (const DataType& type :
       {DataType::Utf8(), DataType::LargeUtf8(), DataType::Binary(), DataType::LargeBinary()}) {
    SCOPED_TRACE(type.ToString());
    std::vector<std::string> v = values;
    if (type.id() == TypeId::kUtf8 || type.id() == TypeId::kLargeUtf8) v[3] = "\xc3\xa9";
    auto a = Must(MakeBinaryArray(type, v, {true, true, true, false}));
    ExpectValid(*a);
    ASSERT_EQ(a->buffers.size(), 3u);
    const uint64_t width = IsLargeOffsets(type.id()) ? 8 : 4;
    EXPECT_EQ(a->buffers[1]->size(), 5 * width);
    EXPECT_EQ(a->null_count, 1);
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(BinaryValue(*a, i), v[i]);
    EXPECT_TRUE(IsNull(*a, 3));
  }
  auto fsb = Must(
      MakeBinaryArray(DataType::FixedSizeBinary(3), {"abc", "def", "ghi"}, {true, false, true}));
  ExpectValid(*fsb);
  EXPECT_EQ(fsb->buffers.size(), 2u);
  EXPECT_EQ(FixedValue(*fsb, 2), "ghi");
  EXPECT_TRUE(IsNull(*fsb, 1));
  auto empty_width = Must(MakeBinaryArray(DataType::FixedSizeBinary(0), {"", ""}));
  ExpectValid(*empty_width);
  EXPECT_EQ(FixedValue(*empty_width, 1), "");

  EXPECT_TRUE(MakeBinaryArray(DataType::FixedSizeBinary(3), {"ab"}).status().IsInvalidInput());
  EXPECT_TRUE(MakeBinaryArray(DataType::Int32(), {"ab"}).status().IsInvalidInput());
  EXPECT_TRUE(MakeBinaryArray(DataType::Utf8(), {"ab"}, {true, true}).status().IsInvalidInput());
}

TEST(Builders, Lists) {
  auto items = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3, 4, 5}));
  for (const DataType& type : {DataType::List(kInt32Item), DataType::LargeList(kInt32Item)}) {
    SCOPED_TRACE(type.ToString());
    auto a = Must(MakeListArray(type, {0, 2, 2, 5}, items, {true, false, true}));
    ExpectValid(*a);
    EXPECT_EQ(a->length, 3);
    EXPECT_EQ(a->null_count, 1);
    EXPECT_EQ(a->buffers[1]->size(), 4u * (IsLargeOffsets(type.id()) ? 8 : 4));
    EXPECT_EQ(ListRange(*a, 0), std::make_pair(int64_t{0}, int64_t{2}));
    EXPECT_EQ(ListRange(*a, 1), std::make_pair(int64_t{2}, int64_t{2}));
    EXPECT_EQ(ListRange(*a, 2), std::make_pair(int64_t{2}, int64_t{5}));
    EXPECT_EQ(a->children[0], items);
  }
  // Offsets beyond the items, a wrong item type, a non-list type, no offsets.
  EXPECT_FALSE(MakeListArray(DataType::List(kInt32Item), {0, 6}, items).ok());
  auto longs = Must(MakeFixedArray<int64_t>(DataType::Int64(), {1}));
  Status s = MakeListArray(DataType::List(kInt32Item), {0, 1}, longs).status();
  EXPECT_EQ(s.subcode(), Subcode::kCorruption) << s.ToString();
  EXPECT_TRUE(MakeListArray(DataType::Int32(), {0, 1}, items).status().IsInvalidInput());
  EXPECT_TRUE(MakeListArray(DataType::List(kInt32Item), {}, items).status().IsInvalidInput());
  EXPECT_TRUE(MakeListArray(DataType::List(kInt32Item), {0, 1}, items, {true, true})
                  .status()
                  .IsInvalidInput());
}

TEST(Builders, FixedSizeList) {
  const DataType type = DataType::FixedSizeList(kInt32Item, 2);
  auto items = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3, 4, 5, 6}));
  auto a = Must(MakeFixedSizeListArray(type, 3, items, {true, true, false}));
  ExpectValid(*a);
  EXPECT_EQ(a->null_count, 1);
  EXPECT_EQ(a->buffers.size(), 1u);
  EXPECT_EQ(ListRange(*a, 1), std::make_pair(int64_t{2}, int64_t{4}));
  EXPECT_EQ(StructField(*a, 0)->length, 6);
  // Too few items: 3 rows of 2 need 6.
  auto five = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3, 4, 5}));
  EXPECT_FALSE(MakeFixedSizeListArray(type, 3, five).ok());
  EXPECT_TRUE(
      MakeFixedSizeListArray(DataType::List(kInt32Item), 3, items).status().IsInvalidInput());
  // list_size 0: any number of rows over no items.
  auto zero = Must(MakeFixedSizeListArray(DataType::FixedSizeList(kInt32Item, 0), 4,
                                          Must(MakeFixedArray<int32_t>(DataType::Int32(), {}))));
  ExpectValid(*zero);
  EXPECT_EQ(ListRange(*zero, 3), std::make_pair(int64_t{0}, int64_t{0}));
}

TEST(Builders, Struct) {
  const DataType type =
      DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Utf8())});
  auto a = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3}));
  auto b = Must(MakeBinaryArray(DataType::Utf8(), {"x", "y", "z"}, {true, false, true}));
  auto s = Must(MakeStructArray(type, 3, {a, b}, {true, true, false}));
  ExpectValid(*s);
  EXPECT_EQ(s->null_count, 1);
  EXPECT_EQ(StructField(*s, 0), a);  // no slice needed at offset 0
  EXPECT_EQ(BinaryValue(*StructField(*s, 1), 2), "z");
  // A member shorter than the struct, a missing member, a wrong member type.
  auto two = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2}));
  EXPECT_FALSE(MakeStructArray(type, 3, {two, b}).ok());
  EXPECT_FALSE(MakeStructArray(type, 3, {a}).ok());
  EXPECT_FALSE(MakeStructArray(type, 3, {b, a}).ok());
  EXPECT_TRUE(MakeStructArray(DataType::Int32(), 3, {a}).status().IsInvalidInput());
  // No members: length only.
  auto empty = Must(MakeStructArray(DataType::Struct({}), 5, {}));
  ExpectValid(*empty);
  EXPECT_EQ(empty->length, 5);
}

TEST(Builders, DictionaryWithEveryIndexType) {
  auto dictionary = Must(MakeBinaryArray(DataType::Utf8(), {"red", "green", "blue"}));
  auto check = [&](TypeId index, auto tag) {
    using T = decltype(tag);
    SCOPED_TRACE(static_cast<int>(index));
    const DataType type = DataType::Dictionary(index, DataType::Utf8());
    DataType index_type;
    switch (index) {
      case TypeId::kInt8:
        index_type = DataType::Int8();
        break;
      case TypeId::kUInt8:
        index_type = DataType::UInt8();
        break;
      case TypeId::kInt16:
        index_type = DataType::Int16();
        break;
      case TypeId::kUInt16:
        index_type = DataType::UInt16();
        break;
      case TypeId::kInt32:
        index_type = DataType::Int32();
        break;
      case TypeId::kUInt32:
        index_type = DataType::UInt32();
        break;
      case TypeId::kInt64:
        index_type = DataType::Int64();
        break;
      default:
        index_type = DataType::UInt64();
        break;
    }
    auto indices = Must(MakeFixedArray<T>(index_type, {2, 0, 1, 2}, {true, true, false, true}));
    auto d = Must(MakeDictionaryArray(type, indices, dictionary));
    ExpectValid(*d);
    EXPECT_EQ(d->null_count, 1);
    EXPECT_EQ(DictionaryIndex(*d, 0), 2);
    EXPECT_EQ(DictionaryIndex(*d, 1), 0);
    EXPECT_TRUE(IsNull(*d, 2));
    EXPECT_EQ(BinaryValue(*d->dictionary, DictionaryIndex(*d, 3)), "blue");
    // Out of range.
    auto bad = Must(MakeFixedArray<T>(index_type, {0, 3}));
    Status s = MakeDictionaryArray(type, bad, dictionary).status();
    EXPECT_EQ(s.subcode(), Subcode::kCorruption);
    EXPECT_NE(s.message().find("row 1: dictionary index 3 outside [0, 3)"), std::string::npos)
        << s.message();
  };
  check(TypeId::kInt8, int8_t{});
  check(TypeId::kUInt8, uint8_t{});
  check(TypeId::kInt16, int16_t{});
  check(TypeId::kUInt16, uint16_t{});
  check(TypeId::kInt32, int32_t{});
  check(TypeId::kUInt32, uint32_t{});
  check(TypeId::kInt64, int64_t{});
  check(TypeId::kUInt64, uint64_t{});
}

TEST(Builders, DictionaryRejectsMismatches) {
  auto dictionary = Must(MakeBinaryArray(DataType::Utf8(), {"a"}));
  auto indices = Must(MakeFixedArray<int32_t>(DataType::Int32(), {0}));
  EXPECT_TRUE(MakeDictionaryArray(DataType::Dictionary(TypeId::kInt8, DataType::Utf8()), indices,
                                  dictionary)
                  .status()
                  .IsInvalidInput());
  Status s = MakeDictionaryArray(DataType::Dictionary(TypeId::kInt32, DataType::Binary()), indices,
                                 dictionary)
                 .status();
  EXPECT_NE(s.message().find("dictionary type utf8 != binary"), std::string::npos) << s.message();
  // Negative and huge unsigned indices are out of range too; an index under a null is ignored.
  auto negative = Must(MakeFixedArray<int8_t>(DataType::Int8(), {-1}));
  EXPECT_FALSE(MakeDictionaryArray(DataType::Dictionary(TypeId::kInt8, DataType::Utf8()), negative,
                                   dictionary)
                   .ok());
  auto huge = Must(MakeFixedArray<uint64_t>(DataType::UInt64(), {~uint64_t{0}}));
  EXPECT_FALSE(
      MakeDictionaryArray(DataType::Dictionary(TypeId::kUInt64, DataType::Utf8()), huge, dictionary)
          .ok());
  auto hidden = Must(MakeFixedArray<int32_t>(DataType::Int32(), {0, 99}, {true, false}));
  EXPECT_TRUE(MakeDictionaryArray(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()), hidden,
                                  dictionary)
                  .ok());
}

TEST(Builders, MakeValidity) {
  int64_t nulls = -1;
  EXPECT_EQ(Must(MakeValidity({}, &nulls)), nullptr);
  EXPECT_EQ(nulls, 0);
  EXPECT_EQ(Must(MakeValidity({true, true}, &nulls)), nullptr);
  auto bits =
      Must(MakeValidity({true, false, true, false, false, true, true, true, false}, &nulls));
  EXPECT_EQ(nulls, 4);
  EXPECT_EQ(bits->data()[0], 0b11100101);
  EXPECT_EQ(bits->data()[1], 0);
}

TEST(HalfToFloat, ConvertsExactly) {
  EXPECT_EQ(HalfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(HalfToFloat(0xC000), -2.0f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(HalfToFloat(0x0400), std::ldexp(1.0f, -14));  // smallest normal
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(HalfToFloat(0x8000), 0.0f);
  EXPECT_EQ(HalfToFloat(0x7C00), INFINITY);
  EXPECT_EQ(HalfToFloat(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7E00)));
}

// ---------------------------------------------------------------- slices

TEST(Slice, FixedWidthRecountsNulls) {
  auto a = Must(
      MakeFixedArray<int32_t>(DataType::Int32(), {0, 1, 2, 3, 4, 5, 6, 7, 8, 9},
                              {true, false, true, false, false, true, true, true, true, false}));
  EXPECT_EQ(a->null_count, 4);
  auto s = Slice(a, 3, 5);  // rows 3..7: null, null, valid, valid, valid
  EXPECT_EQ(s->offset, 3);
  EXPECT_EQ(s->length, 5);
  EXPECT_EQ(s->null_count, 2);
  EXPECT_EQ(s->buffers[1], a->buffers[1]);  // zero-copy
  EXPECT_TRUE(IsNull(*s, 0));
  EXPECT_TRUE(IsValid(*s, 2));
  EXPECT_EQ(Values<int32_t>(*s)[2], 5);
  ExpectValid(*s);
  auto ss = Slice(s, 2, 3);  // rows 5..7
  EXPECT_EQ(ss->offset, 5);
  EXPECT_EQ(ss->null_count, 0);
  EXPECT_EQ(Values<int32_t>(*ss)[0], 5);
  ExpectValid(*ss);
  EXPECT_EQ(Slice(a, 0, 10), a);  // the whole array is the array
  auto empty = Slice(a, 10, 0);
  EXPECT_EQ(empty->null_count, 0);
  ExpectValid(*empty);
}

TEST(Slice, BoolAndBinaryAtOddOffsets) {
  std::vector<bool> values, valid;
  for (int i = 0; i < 37; ++i) {
    values.push_back(i % 3 == 0);
    valid.push_back(i % 5 != 0);
  }
  auto b = Must(MakeBoolArray(values, valid));
  auto s = Slice(b, 13, 17);
  ExpectValid(*s);
  int64_t nulls = 0;
  for (int i = 0; i < 17; ++i) {
    EXPECT_EQ(IsNull(*s, i), !valid[13 + i]);
    if (valid[13 + i]) {
      EXPECT_EQ(BoolValue(*s, i), values[13 + i]);
    }
    nulls += valid[13 + i] ? 0 : 1;
  }
  EXPECT_EQ(s->null_count, nulls);

  auto u = Must(MakeBinaryArray(DataType::LargeUtf8(), {"a", "bb", "ccc", "dddd"}));
  auto us = Slice(u, 1, 2);
  ExpectValid(*us);
  EXPECT_EQ(BinaryValue(*us, 0), "bb");
  EXPECT_EQ(BinaryValue(*us, 1), "ccc");
}

TEST(Slice, NestedArraysAddressChildrenThroughTheParent) {
  auto items = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3, 4, 5, 6}));
  auto list = Must(MakeListArray(DataType::List(kInt32Item), {0, 1, 3, 6}, items));
  auto ls = Slice(list, 1, 2);
  ExpectValid(*ls);
  EXPECT_EQ(ListRange(*ls, 0), std::make_pair(int64_t{1}, int64_t{3}));

  auto fsl = Must(MakeFixedSizeListArray(DataType::FixedSizeList(kInt32Item, 2), 3, items,
                                         {true, false, true}));
  auto fs = Slice(fsl, 1, 2);
  ExpectValid(*fs);
  EXPECT_EQ(fs->null_count, 1);
  EXPECT_EQ(ListRange(*fs, 1), std::make_pair(int64_t{4}, int64_t{6}));
  auto fs_items = StructField(*fs, 0);
  EXPECT_EQ(fs_items->length, 4);
  EXPECT_EQ(Values<int32_t>(*fs_items)[0], 3);

  const DataType st =
      DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Utf8())});
  auto a =
      Must(MakeFixedArray<int32_t>(DataType::Int32(), {10, 20, 30, 40}, {true, true, false, true}));
  auto b = Must(MakeBinaryArray(DataType::Utf8(), {"w", "x", "y", "z"}));
  auto s = Must(MakeStructArray(st, 4, {a, b}, {false, true, true, true}));
  auto ss = Slice(s, 1, 3);
  ExpectValid(*ss);
  EXPECT_EQ(ss->null_count, 0);
  auto ca = StructField(*ss, 0);
  EXPECT_EQ(ca->length, 3);
  EXPECT_EQ(ca->null_count, 1);
  EXPECT_EQ(Values<int32_t>(*ca)[0], 20);
  EXPECT_TRUE(IsNull(*ca, 1));
  EXPECT_EQ(BinaryValue(*StructField(*ss, 1), 2), "z");

  auto dict = Must(MakeDictionaryArray(
      DataType::Dictionary(TypeId::kInt8, DataType::Utf8()),
      Must(MakeFixedArray<int8_t>(DataType::Int8(), {0, 1, 1, 0}, {true, false, true, true})),
      Must(MakeBinaryArray(DataType::Utf8(), {"p", "q"}))));
  auto ds = Slice(dict, 1, 2);
  ExpectValid(*ds);
  EXPECT_EQ(ds->null_count, 1);
  EXPECT_EQ(DictionaryIndex(*ds, 1), 1);
}

// ---------------------------------------------------------------- null arrays

std::vector<DataType> EveryType() {
  const Field item("item", DataType::Utf8());
  return {
      DataType::Null(),
      DataType::Bool(),
      DataType::Int8(),
      DataType::Int16(),
      DataType::Int32(),
      DataType::Int64(),
      DataType::UInt8(),
      DataType::UInt16(),
      DataType::UInt32(),
      DataType::UInt64(),
      DataType::Float16(),
      DataType::Float32(),
      DataType::Float64(),
      DataType::Utf8(),
      DataType::LargeUtf8(),
      DataType::Binary(),
      DataType::LargeBinary(),
      DataType::FixedSizeBinary(5),
      DataType::FixedSizeBinary(0),
      DataType::Date32(),
      DataType::Date64(),
      DataType::Timestamp(TimeUnit::kMicro, "UTC"),
      DataType::Decimal128(38, 9),
      DataType::List(item),
      DataType::LargeList(Field("item", DataType::List(kInt32Item))),
      DataType::FixedSizeList(Field("item", DataType::Float32(), false), 3),
      DataType::Struct({Field("a", DataType::Int32(), false), Field("b", DataType::List(item)),
                        Field("c", DataType::Struct({Field("d", DataType::Binary())}))}),
      DataType::Dictionary(TypeId::kInt16, DataType::Utf8()),
      DataType::Dictionary(TypeId::kUInt64, DataType::Struct({Field("x", DataType::Int8())})),
  };
}

TEST(MakeNullArray, EveryTypeValidates) {
  MemoryPool pool;
  for (const DataType& type : EveryType()) {
    for (int64_t length : {0, 1, 5, 70}) {
      SCOPED_TRACE(type.ToString() + " x" + std::to_string(length));
      auto a = Must(MakeNullArray(type, length, &pool));
      EXPECT_TRUE(a->type == type);
      EXPECT_EQ(a->length, length);
      EXPECT_EQ(a->null_count, length);
      ExpectValid(*a);
      for (int64_t i = 0; i < length; ++i) ASSERT_TRUE(IsNull(*a, i));
      if (length >= 5) {
        auto s = Slice(a, 2, 3);
        EXPECT_EQ(s->null_count, 3);
        ExpectValid(*s);
      }
    }
  }
  EXPECT_EQ(pool.bytes_allocated(), 0u);
}

// ---------------------------------------------------------------- Validate

TEST(Validate, AcceptsBuiltArraysAndEmptyOffsets) {
  auto u = Must(MakeBinaryArray(DataType::Utf8(), {}));
  ExpectValid(*u);
  // Some writers omit the offsets of an empty binary array altogether.
  auto bare = Copy(u);
  bare->buffers = {nullptr, nullptr, nullptr};
  ExpectValid(*bare);
  auto list = Copy(Must(MakeNullArray(DataType::List(kInt32Item), 0)));
  list->buffers[1] = nullptr;
  ExpectValid(*list);
}

TEST(Validate, RejectsNegativeLengthOrOffset) {
  auto a = Copy(Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2})));
  a->length = -1;
  ExpectCorrupt(*a, "negative length or offset");
  a->length = 2;
  a->offset = -1;
  ExpectCorrupt(*a, "negative length or offset");
  a->offset = 1;
  a->length = std::numeric_limits<int64_t>::max();
  ExpectCorrupt(*a, "length + offset overflows");
}

TEST(Validate, RejectsWrongBufferCounts) {
  auto i32 = Copy(Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2})));
  i32->buffers.pop_back();
  ExpectCorrupt(*i32, "int32 needs 2 buffers, has 1");
  auto utf8 = Copy(Must(MakeBinaryArray(DataType::Utf8(), {"a"})));
  utf8->buffers.pop_back();
  ExpectCorrupt(*utf8, "utf8 needs 3 buffers, has 2");
  auto st = Copy(Must(MakeStructArray(DataType::Struct({}), 2, {})));
  st->buffers.push_back(nullptr);
  ExpectCorrupt(*st, "needs 1 buffers, has 2");
  auto null = Copy(Must(MakeNullArray(DataType::Null(), 3)));
  null->buffers.push_back(nullptr);
  ExpectCorrupt(*null, "a null array has no buffers");
}

TEST(Validate, RejectsShortBuffers) {
  auto i32 = Copy(Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3})));
  i32->buffers[1] = Buffer::Slice(i32->buffers[1], 0, 11);
  ExpectCorrupt(*i32, "values buffer has 11 bytes, needs 12");
  // A slice offset that runs past the values.
  auto shifted = Copy(Must(MakeFixedArray<int64_t>(DataType::Int64(), {1, 2, 3})));
  shifted->offset = 1;
  ExpectCorrupt(*shifted, "values buffer has 24 bytes, needs 32");
  auto missing = Copy(Must(MakeFixedArray<int64_t>(DataType::Int64(), {1})));
  missing->buffers[1] = nullptr;
  ExpectCorrupt(*missing, "values buffer missing");
  // Validity: 17 rows need 3 bytes.
  std::vector<bool> valid(17, true);
  valid[3] = false;
  auto bools = Copy(Must(MakeBoolArray(std::vector<bool>(17, true), valid)));
  bools->buffers[0] = Buffer::Slice(bools->buffers[0], 0, 2);
  ExpectCorrupt(*bools, "validity buffer has 2 bytes, needs 3");
  auto bits = Copy(Must(MakeBoolArray(std::vector<bool>(17, true))));
  bits->buffers[1] = Buffer::Slice(bits->buffers[1], 0, 2);
  ExpectCorrupt(*bits, "values buffer has 2 bytes, needs 3");
  auto dec = Copy(Must(MakeFixedArray<Int128>(DataType::Decimal128(10, 0), {1, 2})));
  dec->buffers[1] = Buffer::Slice(dec->buffers[1], 0, 31);
  ExpectCorrupt(*dec, "needs 32");
  auto fsb = Copy(Must(MakeBinaryArray(DataType::FixedSizeBinary(4), {"abcd", "efgh"})));
  fsb->buffers[1] = Buffer::Slice(fsb->buffers[1], 0, 7);
  ExpectCorrupt(*fsb, "needs 8");
  auto utf8 = Copy(Must(MakeBinaryArray(DataType::Utf8(), {"ab", "c"})));
  utf8->buffers[1] = Buffer::Slice(utf8->buffers[1], 0, 8);
  ExpectCorrupt(*utf8, "offsets buffer has 8 bytes, needs 12");
  auto large = Copy(Must(MakeBinaryArray(DataType::LargeBinary(), {"ab", "c"})));
  large->buffers[1] = Buffer::Slice(large->buffers[1], 0, 23);
  ExpectCorrupt(*large, "offsets buffer has 23 bytes, needs 24");
  auto dict =
      Copy(Must(MakeDictionaryArray(DataType::Dictionary(TypeId::kInt16, DataType::Utf8()),
                                    Must(MakeFixedArray<int16_t>(DataType::Int16(), {0, 0, 0})),
                                    Must(MakeBinaryArray(DataType::Utf8(), {"a"})))));
  dict->buffers[1] = Buffer::Slice(dict->buffers[1], 0, 5);
  ExpectCorrupt(*dict, "indices buffer has 5 bytes, needs 6");
}

TEST(Validate, RejectsSizesThatOverflow) {
  // Lengths near INT64_MAX must be refused, not wrap around in the size arithmetic.
  auto i64 = Copy(Must(MakeFixedArray<int64_t>(DataType::Int64(), {1})));
  i64->length = std::numeric_limits<int64_t>::max();
  ExpectCorrupt(*i64, "values size overflows");
  auto with_nulls = Copy(Must(MakeBoolArray({true, false}, {true, false})));
  with_nulls->length = std::numeric_limits<int64_t>::max();
  ExpectCorrupt(*with_nulls, "validity size overflows", /*full=*/false);
  auto utf8 = Copy(Must(MakeBinaryArray(DataType::Utf8(), {"a"})));
  utf8->length = std::numeric_limits<int64_t>::max();
  ExpectCorrupt(*utf8, "offsets size overflows");
  utf8->length = std::numeric_limits<int64_t>::max() / 2;
  ExpectCorrupt(*utf8, "offsets size overflows");
  auto fsl =
      Copy(Must(MakeFixedSizeListArray(DataType::FixedSizeList(kInt32Item, 1 << 20), 0,
                                       Must(MakeFixedArray<int32_t>(DataType::Int32(), {})))));
  fsl->length = std::numeric_limits<int64_t>::max() / 2;
  ExpectCorrupt(*fsl, "fewer than (offset + length) * list_size");
}

TEST(Validate, RejectsBadOffsets) {
  auto make = [](const DataType& type, std::vector<int64_t> offsets, std::string data) {
    auto a = std::make_shared<ArrayData>();
    a->type = type;
    a->length = static_cast<int64_t>(offsets.size()) - 1;
    std::shared_ptr<Buffer> offsets_buffer;
    if (IsLargeOffsets(type.id())) {
      offsets_buffer = Words(offsets);
    } else {
      std::vector<int32_t> narrow(offsets.begin(), offsets.end());
      offsets_buffer = Words(narrow);
    }
    a->buffers = {nullptr, offsets_buffer, Buffer::FromString(std::move(data))};
    return a;
  };
  for (const DataType& type : {DataType::Utf8(), DataType::LargeBinary()}) {
    SCOPED_TRACE(type.ToString());
    ExpectValid(*make(type, {0, 2, 2, 5}, "abcde"));
    ExpectCorrupt(*make(type, {0, 3, 2, 5}, "abcde"), "offsets decrease at row 1");
    ExpectCorrupt(*make(type, {0, 2, 6}, "abcde"), "data buffer has 5 bytes, needs 6");
    ExpectCorrupt(*make(type, {-1, 2, 5}, "abcde"), "offsets run from -1 to 5");
    ExpectCorrupt(*make(type, {3, 2, 1}, "abcde"), "offsets run from 3 to 1");
    // The cheap check does not walk the offsets, but still bounds the first and last.
    EXPECT_TRUE(Validate(*make(type, {0, 3, 2, 5}, "abcde"), false).ok());
    ExpectCorrupt(*make(type, {0, 2, 6}, "abcde"), "needs 6", false);
  }
  // A non-zero first offset is fine (slices of values buffers).
  ExpectValid(*make(DataType::Utf8(), {2, 3, 5}, "abcde"));

  auto items = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3}));
  auto list = Copy(Must(MakeListArray(DataType::List(kInt32Item), {0, 1, 3}, items)));
  list->buffers[1] = Words(std::vector<int32_t>{0, 2, 4});
  ExpectCorrupt(*list, "offsets reach 4 but the items have 3 rows");
  list->buffers[1] = Words(std::vector<int32_t>{0, 2, 1});
  ExpectCorrupt(*list, "offsets decrease at row 1");
}

TEST(Validate, RejectsChildTypeMismatches) {
  auto ints = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2}));
  auto longs = Must(MakeFixedArray<int64_t>(DataType::Int64(), {1, 2}));
  auto list = Copy(Must(MakeListArray(DataType::List(kInt32Item), {0, 2}, ints)));
  list->children[0] = longs;
  ExpectCorrupt(*list, "child type int64 != declared int32");
  list->children.clear();
  ExpectCorrupt(*list, "a list needs one child");
  auto fsl = Copy(Must(MakeFixedSizeListArray(DataType::FixedSizeList(kInt32Item, 2), 1, ints)));
  fsl->children[0] = longs;
  ExpectCorrupt(*fsl, "child type int64 != declared int32");
  fsl->children[0] = nullptr;
  ExpectCorrupt(*fsl, "child missing");
  const DataType st = DataType::Struct({Field("a", DataType::Int32())});
  auto s = Copy(Must(MakeStructArray(st, 2, {ints})));
  s->children[0] = longs;
  ExpectCorrupt(*s, "child type int64 != declared int32");
  s->children.push_back(ints);
  ExpectCorrupt(*s, "struct has 2 children, type 1");
}

// Arrow's map: a list of non-null entries whose keys are never null.
TEST(Validate, MapsNeedNonNullEntriesAndKeys) {
  const DataType entries_type =
      DataType::Struct({Field("key", DataType::Utf8(), false), Field("value", DataType::Int32())});
  const DataType map = DataType::Map(Field("entries", entries_type, false));
  auto keys = Must(MakeBinaryArray(DataType::Utf8(), {"a", "b", "c"}));
  auto values = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3}, {true, false, true}));
  auto entries = Must(MakeStructArray(entries_type, 3, {keys, values}));
  auto good = Must(MakeListArray(map, {0, 2, 2, 3}, entries, {true, false, true}));
  ExpectValid(*good);
  EXPECT_EQ(good->type.ToString(), "map<utf8, int32>");
  auto null_entry = Copy(Must(MakeListArray(map, {0, 3}, entries)));
  null_entry->children[0] =
      Must(MakeStructArray(entries_type, 3, {keys, values}, {true, false, true}));
  ExpectCorrupt(*null_entry, "a map has null entries");
  auto null_keys = Must(MakeBinaryArray(DataType::Utf8(), {"a", "", "c"}, {true, false, true}));
  auto bad = Copy(Must(MakeListArray(map, {0, 3}, entries)));
  bad->children[0] = Must(MakeStructArray(entries_type, 3, {null_keys, values}));
  ExpectCorrupt(*bad, "a map has null keys");
}

TEST(Validate, RejectsShortStructMembers) {
  const DataType st =
      DataType::Struct({Field("a", DataType::Int32()), Field("b", DataType::Int32())});
  auto three = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3}));
  auto two = Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2}));
  auto s = Copy(Must(MakeStructArray(st, 3, {three, three})));
  s->children[1] = two;
  ExpectCorrupt(*s, "array b: shorter than its struct");
  // Sliced: the members are addressed through the struct's offset, so they need offset + length.
  auto sliced = Copy(Must(MakeStructArray(st, 3, {three, three})));
  sliced->offset = 1;
  ExpectCorrupt(*sliced, "shorter than its struct");
  sliced->length = 2;
  ExpectValid(*sliced);
}

TEST(Validate, RejectsShortFixedSizeListItems) {
  // 3 rows of 4 need 12 items; 9 is not enough (nor 2, which is what a bytes-vs-items mix-up
  // would accept).
  const DataType type = DataType::FixedSizeList(kInt32Item, 4);
  auto nine = Must(MakeFixedArray<int32_t>(DataType::Int32(), std::vector<int32_t>(9, 1)));
  auto a = std::make_shared<ArrayData>();
  a->type = type;
  a->length = 3;
  a->buffers = {nullptr};
  a->children = {nine};
  ExpectCorrupt(*a, "the items have 9 rows, fewer than (offset + length) * list_size");
  a->children = {Must(MakeFixedArray<int32_t>(DataType::Int32(), std::vector<int32_t>(12, 1)))};
  ExpectValid(*a);
  a->offset = 1;  // rows 1..3 need items 4..15
  ExpectCorrupt(*a, "the items have 12 rows");
}

TEST(Validate, RejectsDictionaryProblems) {
  const DataType type = DataType::Dictionary(TypeId::kInt32, DataType::Utf8());
  auto d =
      Copy(Must(MakeDictionaryArray(type, Must(MakeFixedArray<int32_t>(DataType::Int32(), {0, 1})),
                                    Must(MakeBinaryArray(DataType::Utf8(), {"a", "b"})))));
  ExpectValid(*d);
  auto missing = Copy(d);
  missing->dictionary = nullptr;
  ExpectCorrupt(*missing, "dictionary missing");
  auto small = Copy(d);
  small->dictionary = Must(MakeBinaryArray(DataType::Utf8(), {"a"}));
  ExpectCorrupt(*small, "row 1: dictionary index 1 outside [0, 1)");
  // The dictionary itself is validated, with its own path.
  auto bad_values = Copy(d);
  bad_values->dictionary = Must(MakeBinaryArray(DataType::Binary(), {"a", "\xff"}));
  ExpectCorrupt(*bad_values, "dictionary type binary != utf8");
  auto utf8 = Copy(Must(MakeBinaryArray(DataType::Utf8(), {"a", "b"})));
  utf8->buffers[2] = Buffer::FromString("a\xff");
  bad_values->dictionary = utf8;
  ExpectCorrupt(*bad_values, "array dictionary: row 1 is not valid UTF-8");
}

TEST(Validate, RejectsWrongNullCounts) {
  auto a = Copy(Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3}, {true, false, false})));
  ExpectValid(*a);
  a->null_count = 1;
  ExpectCorrupt(*a, "null_count 1 but the bitmap has 2");
  EXPECT_TRUE(Validate(*a, false).ok());  // the count is only checked by the full pass
  a->null_count = 4;
  ExpectCorrupt(*a, "null_count out of range", false);
  auto b = Copy(Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3})));
  b->null_count = 1;
  ExpectCorrupt(*b, "null_count 1 without a validity bitmap");
  auto n = Copy(Must(MakeNullArray(DataType::Null(), 3)));
  n->null_count = 2;
  ExpectCorrupt(*n, "null_count of a null array != length");
  // A bitmap without nulls is allowed (null_count 0).
  auto c = Copy(Must(MakeFixedArray<int32_t>(DataType::Int32(), {1, 2, 3})));
  c->buffers[0] = Bytes({0x07});
  ExpectValid(*c);
}

TEST(Validate, Utf8) {
  const std::vector<std::string> good = {
      "",
      "plain ascii that is longer than eight bytes",
      "\xc3\xa9",          // é
      "\xe2\x82\xac",      // €
      "\xf0\x9d\x84\x9e",  // U+1D11E
      "\xf4\x8f\xbf\xbf",  // U+10FFFF, the last code point
      "\xed\x9f\xbf",      // U+D7FF, just below the surrogates
      "\xee\x80\x80",      // U+E000, just above them
      "12345678\xc3\xa9"
      "abc",  // a multi-byte sequence after the 8-byte ASCII fast path
  };
  const std::vector<std::string> bad = {
      "\x80",                  // a lone continuation byte
      "\xc3",                  // truncated
      "abcdefgh\xc3",          // truncated after the fast path
      "\xe2\x82",              // truncated 3-byte
      "\xc3\x28",              // bad continuation
      "\xc0\xaf",              // overlong '/'
      "\xc1\xbf",              // overlong
      "\xe0\x80\xaf",          // overlong 3-byte
      "\xf0\x80\x80\xaf",      // overlong 4-byte
      "\xed\xa0\x80",          // U+D800, a surrogate
      "\xed\xbf\xbf",          // U+DFFF
      "\xf4\x90\x80\x80",      // U+110000
      "\xf8\x88\x80\x80\x80",  // 5-byte form
      "\xff",
  };
  for (const DataType& type : {DataType::Utf8(), DataType::LargeUtf8()}) {
    for (const std::string& s : good) {
      auto a = Must(MakeBinaryArray(type, {"ok", s}));
      EXPECT_TRUE(Validate(*a).ok()) << type.ToString() << " rejected " << s;
    }
    for (const std::string& s : bad) {
      SCOPED_TRACE(type.ToString() + " " + s);
      auto a = Must(MakeBinaryArray(type, {"ok", s}));
      ExpectCorrupt(*a, "row 1 is not valid UTF-8");
      EXPECT_TRUE(Validate(*a, false).ok());  // only the full pass reads the bytes
      // Under a null slot, any bytes are fine; binary never cares.
      EXPECT_TRUE(Validate(*Must(MakeBinaryArray(type, {"ok", s}, {true, false}))).ok());
      EXPECT_TRUE(Validate(*Must(MakeBinaryArray(DataType::Binary(), {"ok", s}))).ok());
    }
  }
}

TEST(Validate, PathsNameNestedMembers) {
  const DataType inner = DataType::Struct({Field("name", DataType::Utf8())});
  const DataType outer = DataType::Struct({Field("s", DataType::List(Field("item", inner)))});
  // Built valid (the builders validate), then the innermost bytes are broken.
  auto names = Copy(Must(MakeBinaryArray(DataType::Utf8(), {"a", "b"})));
  auto structs = Copy(Must(MakeStructArray(inner, 2, {names})));
  auto list = Copy(Must(MakeListArray(outer.children()[0].type, {0, 2}, structs)));
  auto top = Copy(Must(MakeStructArray(outer, 1, {list})));
  ExpectValid(*top);
  names->buffers[2] = Buffer::FromString("a\xc0");
  ExpectCorrupt(*top, "array s.items.name: row 1 is not valid UTF-8");
}

TEST(Validate, LimitsNestingTo64Levels) {
  // `levels` nested lists around an int32: levels + 1 array nodes.
  auto nest = [](int levels) {
    ArrayPtr array = Must(MakeFixedArray<int32_t>(DataType::Int32(), {}));
    for (int i = 0; i < levels; ++i) {
      array = Must(MakeListArray(DataType::List(Field("item", array->type)), {0}, array));
    }
    return array;
  };
  ExpectValid(*nest(63));  // 64 nodes
  auto deep = Copy(nest(63));
  auto deeper = std::make_shared<ArrayData>();
  deeper->type = DataType::List(Field("item", deep->type));
  deeper->buffers = {nullptr, Words(std::vector<int32_t>{0})};
  deeper->children = {deep};
  ExpectCorrupt(*deeper, "nesting deeper than 64 levels");  // 65 nodes
  // Structs count too.
  ArrayPtr s = Must(MakeFixedArray<int32_t>(DataType::Int32(), {7}));
  for (int i = 0; i < 64; ++i) {
    auto next = std::make_shared<ArrayData>();
    next->type = DataType::Struct({Field("x", s->type)});
    next->length = 1;
    next->buffers = {nullptr};
    next->children = {s};
    s = next;
  }
  ExpectCorrupt(*s, "nesting deeper than 64 levels");
}

}  // namespace
}  // namespace quiver::arrow
