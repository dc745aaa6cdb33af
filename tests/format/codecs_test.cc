// Tests for the Lance 2.1 codecs in src/format/internal/codecs/: every FastLanes (T, W) against
// a scalar reference written from the spec formula (lance-file-format.md §4.4), the framing of
// InlineBitpacking / OutOfLineBitpacking / RLE / ByteStreamSplit / FSST / LZ4 / ZSTD, and the
// error paths of every decoder.
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "format/internal/codecs/bitpacking.h"
#include "format/internal/codecs/byte_stream_split.h"
#include "format/internal/codecs/fastlanes.h"
#include "format/internal/codecs/fsst.h"
#include "format/internal/codecs/general.h"
#include "format/internal/codecs/rle.h"

namespace quiver::format::codecs {
namespace {

std::span<const uint8_t> Bytes(const std::vector<uint8_t>& v) { return {v.data(), v.size()}; }
std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

template <typename T>
std::vector<uint8_t> AsBytes(const std::vector<T>& v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

template <typename T>
T Mask(int width) {
  return width >= kWordBits<T> ? static_cast<T>(~T{0}) : static_cast<T>((T{1} << width) - 1);
}

template <typename T>
std::vector<T> RandomValues(size_t n, int width, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng()) & Mask<T>(width);
  return v;
}

// ---------------------------------------------------------------------------------------------
// FastLanes: a bit-by-bit reference written directly from the spec.

constexpr int kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};

template <typename T>
size_t SpecIndex(int row, int lane) {
  return static_cast<size_t>(128 * (row % 8) + 16 * kOrder[row / 8] + lane);
}

template <typename T>
std::vector<T> ReferencePack(const std::vector<T>& values, int width) {
  const int bits = kWordBits<T>;
  const int lanes = 1024 / bits;
  std::vector<T> packed(FastLanesPackedWords<T>(width), 0);
  for (int lane = 0; lane < lanes; ++lane) {
    for (int row = 0; row < bits; ++row) {
      const T v = values[SpecIndex<T>(row, lane)];
      for (int b = 0; b < width; ++b) {
        const int pos = row * width + b;  // position in the lane's virtual bit string
        const size_t word = static_cast<size_t>(lanes * (pos / bits) + lane);
        if ((v >> b) & 1) packed[word] = static_cast<T>(packed[word] | (T{1} << (pos % bits)));
      }
    }
  }
  return packed;
}

template <typename T>
std::vector<T> ReferenceUnpack(const std::vector<T>& packed, int width) {
  const int bits = kWordBits<T>;
  const int lanes = 1024 / bits;
  std::vector<T> values(1024, 0);
  for (int lane = 0; lane < lanes; ++lane) {
    for (int row = 0; row < bits; ++row) {
      T v = 0;
      for (int b = 0; b < width; ++b) {
        const int pos = row * width + b;
        const size_t word = static_cast<size_t>(lanes * (pos / bits) + lane);
        if ((packed[word] >> (pos % bits)) & 1) v = static_cast<T>(v | (T{1} << b));
      }
      values[SpecIndex<T>(row, lane)] = v;
    }
  }
  return values;
}

template <typename T>
void CheckAllWidths() {
  for (int width = 0; width <= kWordBits<T>; ++width) {
    SCOPED_TRACE(testing::Message() << "T=" << kWordBits<T> << " W=" << width);
    const auto values = RandomValues<T>(1024, width, 1000 * sizeof(T) + width);
    const auto expected_packed = ReferencePack<T>(values, width);

    std::vector<T> packed(FastLanesPackedWords<T>(width) + 1, T{0x5A});  // +1: overrun canary
    Pack<T>(values.data(), width, packed.data());
    EXPECT_EQ(packed.back(), T{0x5A}) << "Pack wrote past its output";
    packed.pop_back();
    ASSERT_EQ(packed, expected_packed);

    std::vector<T> unpacked(1024, T{0x33});
    Unpack<T>(expected_packed.data(), width, unpacked.data());
    ASSERT_EQ(unpacked, values);
    ASSERT_EQ(ReferenceUnpack<T>(packed, width), values);

    // Pack masks values to W bits (high garbage must not leak into neighbours).
    if (width < kWordBits<T>) {
      auto noisy = values;
      for (auto& v : noisy) v = static_cast<T>(v | static_cast<T>(~Mask<T>(width)));
      std::vector<T> packed2(FastLanesPackedWords<T>(width));
      Pack<T>(noisy.data(), width, packed2.data());
      ASSERT_EQ(packed2, expected_packed);
    }
  }
}

TEST(FastLanesTest, EveryWidthMatchesTheSpecFormulaU8) { CheckAllWidths<uint8_t>(); }
TEST(FastLanesTest, EveryWidthMatchesTheSpecFormulaU16) { CheckAllWidths<uint16_t>(); }
TEST(FastLanesTest, EveryWidthMatchesTheSpecFormulaU32) { CheckAllWidths<uint32_t>(); }
TEST(FastLanesTest, EveryWidthMatchesTheSpecFormulaU64) { CheckAllWidths<uint64_t>(); }

TEST(FastLanesTest, LayoutOfSmallExamples) {
  // u8, W=8: word[16*r + l] = value(128*r + l) (transposed copy).
  std::vector<uint8_t> v(1024);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(i * 7);
  std::vector<uint8_t> packed(1024);
  Pack<uint8_t>(v.data(), 8, packed.data());
  EXPECT_EQ(packed[0], v[0]);
  EXPECT_EQ(packed[128 * 1 + 5], v[128 * 1 + 5]);
  // u32, W=1: lane 0's word 0 holds row r's bit at bit r; row 8 is value 16*ORDER[1] = 64.
  std::vector<uint32_t> ones(1024, 0);
  ones[64] = 1;       // row 8, lane 0
  ones[128 + 3] = 1;  // row 1, lane 3
  std::vector<uint32_t> p32(32);
  Pack<uint32_t>(ones.data(), 1, p32.data());
  EXPECT_EQ(p32[0], 1u << 8);
  EXPECT_EQ(p32[3], 1u << 1);
}

TEST(FastLanesTest, BitWidthOf) {
  std::vector<uint32_t> v = {0, 1, 2, 5};
  EXPECT_EQ(BitWidthOf<uint32_t>(v.data(), v.size()), 3);
  EXPECT_EQ(BitWidthOf<uint32_t>(v.data(), 0), 0);
  std::vector<uint64_t> w = {~uint64_t{0}};
  EXPECT_EQ(BitWidthOf<uint64_t>(w.data(), 1), 64);
}

// ---------------------------------------------------------------------------------------------
// InlineBitpacking

template <typename T>
void CheckInlineRoundTrip() {
  for (size_t n : {size_t{0}, size_t{1}, size_t{5}, size_t{1000}, size_t{1023}, size_t{1024}}) {
    for (int width : {0, 1, 3, kWordBits<T> / 2 + 1, kWordBits<T>}) {
      SCOPED_TRACE(testing::Message() << "T=" << kWordBits<T> << " n=" << n << " W=" << width);
      auto values = RandomValues<T>(n, width, n + width);
      if (n > 0 && width > 0) values[0] = Mask<T>(width);  // the OR reaches exactly `width`
      std::vector<uint8_t> chunk = {0xEE};                 // encoders append
      int used = -1;
      ASSERT_TRUE(EncodeInlineChunk<T>(values, &chunk, &used).ok());
      const int expected_width = n == 0 ? 0 : width;
      EXPECT_EQ(used, expected_width);
      ASSERT_EQ(chunk.size(), 1 + InlineChunkBytes<T>(expected_width));
      T header = 0;
      std::memcpy(&header, chunk.data() + 1, sizeof(T));
      EXPECT_EQ(header, static_cast<T>(expected_width));

      // Decode from an odd (unaligned) address.
      std::span<const uint8_t> body(chunk.data() + 1, chunk.size() - 1);
      std::vector<T> out(n + 1, T{7});
      ASSERT_TRUE(DecodeInlineChunk<T>(body, n, out.data()).ok());
      EXPECT_EQ(out.back(), T{7}) << "wrote past n values";
      out.pop_back();
      EXPECT_EQ(out, values);
      std::vector<T> out2(n);
      ASSERT_TRUE(DecodeInlineBlock<T>(body, n, out2.data()).ok());
      EXPECT_EQ(out2, values);
    }
  }
}

TEST(InlineBitpackingTest, RoundTripU8) { CheckInlineRoundTrip<uint8_t>(); }
TEST(InlineBitpackingTest, RoundTripU16) { CheckInlineRoundTrip<uint16_t>(); }
TEST(InlineBitpackingTest, RoundTripU32) { CheckInlineRoundTrip<uint32_t>(); }
TEST(InlineBitpackingTest, RoundTripU64) { CheckInlineRoundTrip<uint64_t>(); }

TEST(InlineBitpackingTest, ChunkBytesAreTheFastLanesBlockAfterTheWidthWord) {
  std::vector<uint16_t> values(1024);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint16_t>(i % 8);
  std::vector<uint8_t> chunk;
  ASSERT_TRUE(EncodeInlineChunk<uint16_t>(values, &chunk).ok());
  ASSERT_EQ(chunk.size(), 2u + 128 * 3);
  EXPECT_EQ(chunk[0], 3);
  EXPECT_EQ(chunk[1], 0);
  const auto expected = ReferencePack<uint16_t>(values, 3);
  EXPECT_EQ(std::memcmp(chunk.data() + 2, expected.data(), 128 * 3), 0);
}

TEST(InlineBitpackingTest, RejectsMalformedChunks) {
  std::vector<uint32_t> out(1024);
  std::vector<uint8_t> chunk;
  std::vector<uint32_t> values(10, 5);
  ASSERT_TRUE(EncodeInlineChunk<uint32_t>(values, &chunk).ok());  // W=3: 4 + 384 bytes

  auto st = DecodeInlineChunk<uint32_t>(std::span(chunk.data(), 3), 10, out.data());
  EXPECT_EQ(st.subcode(), Subcode::kCorruption) << st.ToString();
  st = DecodeInlineChunk<uint32_t>(std::span(chunk.data(), chunk.size() - 1), 10, out.data());
  EXPECT_EQ(st.subcode(), Subcode::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find("bit width 3"), std::string::npos) << st.message();
  auto longer = chunk;
  longer.push_back(0);
  EXPECT_FALSE(DecodeInlineChunk<uint32_t>(Bytes(longer), 10, out.data()).ok());
  EXPECT_FALSE(DecodeInlineChunk<uint32_t>(Bytes(chunk), 1025, out.data()).ok());
  auto wide = chunk;
  wide[0] = 33;  // width > 32
  st = DecodeInlineChunk<uint32_t>(Bytes(wide), 10, out.data());
  EXPECT_EQ(st.subcode(), Subcode::kCorruption);
  EXPECT_NE(st.message().find("bit width 33"), std::string::npos) << st.message();
  std::vector<uint32_t> too_many(1025);
  std::vector<uint8_t> sink;
  EXPECT_TRUE(EncodeInlineChunk<uint32_t>(too_many, &sink).IsInvalidInput());
}

// ---------------------------------------------------------------------------------------------
// OutOfLineBitpacking

template <typename T>
void CheckOutOfLineRoundTrip() {
  for (size_t n :
       {size_t{0}, size_t{1}, size_t{63}, size_t{1024}, size_t{1025}, size_t{3000}, size_t{4096}}) {
    for (int width : {0, 1, 5, kWordBits<T>}) {
      SCOPED_TRACE(testing::Message() << "T=" << kWordBits<T> << " n=" << n << " W=" << width);
      const auto values = RandomValues<T>(n, width, 7 * n + width);
      std::vector<uint8_t> enc;
      ASSERT_TRUE(EncodeOutOfLine<T>(values, width, &enc).ok());
      ASSERT_EQ(enc.size(), OutOfLineEncodedBytes<T>(n, width));
      std::vector<T> out(n);
      ASSERT_TRUE(DecodeOutOfLine<T>(Bytes(enc), width, n, out.data()).ok());
      EXPECT_EQ(out, values);
    }
  }
}

TEST(OutOfLineBitpackingTest, RoundTripU8) { CheckOutOfLineRoundTrip<uint8_t>(); }
TEST(OutOfLineBitpackingTest, RoundTripU16) { CheckOutOfLineRoundTrip<uint16_t>(); }
TEST(OutOfLineBitpackingTest, RoundTripU32) { CheckOutOfLineRoundTrip<uint32_t>(); }
TEST(OutOfLineBitpackingTest, RoundTripU64) { CheckOutOfLineRoundTrip<uint64_t>(); }

TEST(OutOfLineBitpackingTest, DecodesAPackedTail) {
  // What Lance writes when packing the tail is smaller: 1024 + 900 u16 levels at W=2.
  const auto values = RandomValues<uint16_t>(1924, 2, 42);
  std::vector<uint16_t> words =
      ReferencePack<uint16_t>(std::vector<uint16_t>(values.begin(), values.begin() + 1024), 2);
  std::vector<uint16_t> tail(values.begin() + 1024, values.end());
  tail.resize(1024, 0);
  const auto packed_tail = ReferencePack<uint16_t>(tail, 2);
  words.insert(words.end(), packed_tail.begin(), packed_tail.end());
  const auto bytes = AsBytes(words);
  std::vector<uint16_t> out(values.size());
  ASSERT_TRUE(DecodeOutOfLine<uint16_t>(Bytes(bytes), 2, values.size(), out.data()).ok());
  EXPECT_EQ(out, values);
}

TEST(OutOfLineBitpackingTest, EqualLengthTailIsReadRaw) {
  // T=16, W=1, t=64: a packed tail and a raw tail are both 64 words; the decoder reads raw.
  std::vector<uint16_t> values(64);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint16_t>(i % 2);
  const auto bytes = AsBytes(values);
  std::vector<uint16_t> out(64);
  ASSERT_TRUE(DecodeOutOfLine<uint16_t>(Bytes(bytes), 1, 64, out.data()).ok());
  EXPECT_EQ(out, values);
  std::vector<uint8_t> enc;
  ASSERT_TRUE(EncodeOutOfLine<uint16_t>(values, 1, &enc).ok());
  EXPECT_EQ(enc, bytes);  // the encoder writes the raw tail where the lengths tie
}

// Lance 12's tail rule (bitpack_out_of_line): pad and pack the last block when the padding's
// bits cost less than packing saves, else store the tail raw. 1440 u16 levels at W=1 (a
// mini-block chunk LanceDB 0.39 wrote): 128 + 128 bytes, not 128 + 416 * 2.
TEST(OutOfLineBitpackingTest, TheTailIsPackedWhenPaddingCostsLessThanItSaves) {
  EXPECT_TRUE(OutOfLinePacksTail<uint16_t>(416, 1));     // 608 bits of padding < 6,240 saved
  EXPECT_FALSE(OutOfLinePacksTail<uint16_t>(64, 1));     // 960 = 960: a tie stays raw
  EXPECT_FALSE(OutOfLinePacksTail<uint32_t>(10, 20));    // 20,280 > 120
  EXPECT_FALSE(OutOfLinePacksTail<uint64_t>(1000, 63));  // 1,512 > 1,000
  EXPECT_TRUE(OutOfLinePacksTail<uint64_t>(1000, 10));   // 240 < 54,000
  std::vector<uint16_t> levels(1440);
  for (size_t i = 0; i < levels.size(); ++i) levels[i] = static_cast<uint16_t>(i % 3 == 0);
  std::vector<uint8_t> enc;
  ASSERT_TRUE(EncodeOutOfLine<uint16_t>(levels, 1, &enc).ok());
  EXPECT_EQ(enc.size(), 256u);
  EXPECT_EQ(OutOfLineEncodedBytes<uint16_t>(1440, 1), 256u);
  std::vector<uint16_t> out(levels.size());
  ASSERT_TRUE(DecodeOutOfLine<uint16_t>(Bytes(enc), 1, levels.size(), out.data()).ok());
  EXPECT_EQ(out, levels);
}

TEST(OutOfLineBitpackingTest, RejectsMalformedBuffers) {
  const auto values = RandomValues<uint16_t>(1500, 3, 9);
  std::vector<uint8_t> enc;
  ASSERT_TRUE(EncodeOutOfLine<uint16_t>(values, 3, &enc).ok());
  std::vector<uint16_t> out(2100);
  auto st = DecodeOutOfLine<uint16_t>(std::span(enc.data(), enc.size() - 2), 3, 1500, out.data());
  EXPECT_EQ(st.subcode(), Subcode::kCorruption) << st.ToString();
  st = DecodeOutOfLine<uint16_t>(std::span(enc.data(), enc.size() - 1), 3, 1500, out.data());
  EXPECT_EQ(st.subcode(), Subcode::kCorruption) << st.ToString();
  EXPECT_FALSE(DecodeOutOfLine<uint16_t>(Bytes(enc), 17, 1500, out.data()).ok());
  EXPECT_FALSE(DecodeOutOfLine<uint16_t>(Bytes(enc), -1, 1500, out.data()).ok());
  // (a count in (1024, 2048] reads the two packed blocks; 2,100 needs more)
  EXPECT_FALSE(DecodeOutOfLine<uint16_t>(Bytes(enc), 3, 2100, out.data()).ok());
  EXPECT_FALSE(DecodeOutOfLine<uint16_t>(Bytes(enc), 3, 1024, out.data()).ok());
  // A huge count must be rejected from the sizes alone, before any write.
  EXPECT_FALSE(DecodeOutOfLine<uint16_t>(Bytes(enc), 3, size_t{1} << 60, out.data()).ok());
  std::vector<uint8_t> sink;
  EXPECT_TRUE(EncodeOutOfLine<uint16_t>(values, 2, &sink).IsInvalidInput());
}

// ---------------------------------------------------------------------------------------------
// RLE

TEST(RleTest, RoundTripSplitsLongRuns) {
  std::vector<uint32_t> values;
  values.insert(values.end(), 1000, 7u);
  values.insert(values.end(), 3, 9u);
  values.push_back(7u);
  std::vector<uint8_t> run_values;
  std::vector<uint8_t> run_lengths;
  EncodeRle<uint32_t>(values, &run_values, &run_lengths);
  EXPECT_EQ(run_lengths, (std::vector<uint8_t>{255, 255, 255, 235, 3, 1}));
  EXPECT_EQ(run_values.size(), 6u * 4);
  EXPECT_EQ(RleEntries<uint32_t>(values), 6u);
  std::vector<uint32_t> out(values.size());
  ASSERT_TRUE(
      DecodeRle<uint32_t>(Bytes(run_values), Bytes(run_lengths), values.size(), out.data()).ok());
  EXPECT_EQ(out, values);
  // Decoding stops at n.
  std::vector<uint32_t> head(10);
  ASSERT_TRUE(DecodeRle<uint32_t>(Bytes(run_values), Bytes(run_lengths), 10, head.data()).ok());
  EXPECT_EQ(head, std::vector<uint32_t>(10, 7u));
}

template <typename T>
void CheckRleRandom() {
  std::mt19937_64 rng(sizeof(T));
  std::vector<T> values;
  while (values.size() < 5000) values.insert(values.end(), rng() % 600, static_cast<T>(rng()));
  std::vector<uint8_t> v;
  std::vector<uint8_t> l;
  EncodeRle<T>(values, &v, &l);
  std::vector<T> out(values.size());
  ASSERT_TRUE(DecodeRle<T>(Bytes(v), Bytes(l), values.size(), out.data()).ok());
  EXPECT_EQ(out, values);
  std::vector<uint8_t> block;
  EncodeRleBlock<T>(values, &block);
  std::vector<T> out2(values.size());
  ASSERT_TRUE(DecodeRleBlock<T>(Bytes(block), values.size(), out2.data()).ok());
  EXPECT_EQ(out2, values);
}

TEST(RleTest, RandomRoundTripAllWidths) {
  CheckRleRandom<uint8_t>();
  CheckRleRandom<uint16_t>();
  CheckRleRandom<uint32_t>();
  CheckRleRandom<uint64_t>();
}

TEST(RleTest, RejectsInconsistentBuffers) {
  std::vector<uint8_t> v = {1, 0, 2, 0};  // two u16 runs
  std::vector<uint8_t> l = {3, 4};
  std::vector<uint16_t> out(8);
  EXPECT_TRUE(DecodeRle<uint16_t>(Bytes(v), Bytes(l), 7, out.data()).ok());
  auto st = DecodeRle<uint16_t>(Bytes(v), Bytes(l), 8, out.data());
  EXPECT_EQ(st.subcode(), Subcode::kCorruption);
  EXPECT_NE(st.message().find("cover only 7 of 8"), std::string::npos) << st.message();
  std::vector<uint8_t> l1 = {3};
  EXPECT_FALSE(DecodeRle<uint16_t>(Bytes(v), Bytes(l1), 3, out.data()).ok());
  std::vector<uint8_t> v3 = {1, 0, 2};
  EXPECT_FALSE(DecodeRle<uint16_t>(Bytes(v3), Bytes(l), 3, out.data()).ok());
  EXPECT_FALSE(DecodeRle<uint16_t>({}, {}, 1, out.data()).ok());
  EXPECT_TRUE(DecodeRle<uint16_t>({}, {}, 0, out.data()).ok());
  // Block form: a header that points past the end.
  std::vector<uint8_t> block(8, 0);
  block[0] = 100;
  EXPECT_EQ(DecodeRleBlock<uint16_t>(Bytes(block), 1, out.data()).subcode(), Subcode::kCorruption);
  EXPECT_FALSE(DecodeRleBlock<uint16_t>(std::span(block.data(), 4), 1, out.data()).ok());
}

// ---------------------------------------------------------------------------------------------
// ByteStreamSplit

TEST(ByteStreamSplitTest, MatchesLanceExample) {
  // Lance's doc example: f32 [1, 2, 3, 4].
  const std::vector<float> f = {1.0f, 2.0f, 3.0f, 4.0f};
  const auto in = AsBytes(f);
  std::vector<uint8_t> out(16);
  ASSERT_TRUE(EncodeByteStreamSplit(Bytes(in), 4, 4, out.data()).ok());
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0x40, 0x80, 0x3F, 0x40,
                                       0x40, 0x40}));
  std::vector<uint8_t> back(16);
  ASSERT_TRUE(DecodeByteStreamSplit(Bytes(out), 4, 4, back.data()).ok());
  EXPECT_EQ(back, in);
}

TEST(ByteStreamSplitTest, RoundTripAndErrors) {
  for (int width : {2, 4, 8}) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{511}, size_t{1024}}) {
      std::vector<uint8_t> in(n * width);
      std::mt19937 rng(static_cast<uint32_t>(n + width));
      for (auto& b : in) b = static_cast<uint8_t>(rng());
      std::vector<uint8_t> enc(in.size());
      ASSERT_TRUE(EncodeByteStreamSplit(Bytes(in), width, n, enc.data()).ok());
      if (n > 1) {
        EXPECT_EQ(enc[1], in[width]);  // stream 0, value 1
        EXPECT_EQ(enc[n], in[1]);      // stream 1, value 0
      }
      std::vector<uint8_t> dec(in.size());
      ASSERT_TRUE(DecodeByteStreamSplit(Bytes(enc), width, n, dec.data()).ok());
      EXPECT_EQ(dec, in);
    }
  }
  std::vector<uint8_t> buf(12);
  std::vector<uint8_t> out(12);
  EXPECT_EQ(DecodeByteStreamSplit(Bytes(buf), 4, 4, out.data()).subcode(), Subcode::kCorruption);
  EXPECT_EQ(DecodeByteStreamSplit(Bytes(buf), 3, 4, out.data()).subcode(), Subcode::kCorruption);
  EXPECT_TRUE(EncodeByteStreamSplit(Bytes(buf), 5, 2, out.data()).IsInvalidInput());
  EXPECT_FALSE(DecodeByteStreamSplit(Bytes(buf), 8, size_t{1} << 62, out.data()).ok());
}

// ---------------------------------------------------------------------------------------------
// FSST

// A decoder written from the table layout only, reading exactly what Lance's decoder reads
// (magic, switch bit, n_symbols, symbols, lengths) one code at a time.
std::string ReferenceFsstDecode(std::span<const uint8_t> table, std::span<const uint8_t> in) {
  uint64_t header = 0;
  std::memcpy(&header, table.data(), 8);
  EXPECT_EQ(header >> 32, kFsstMagic);
  if (((header >> 24) & 1) == 0) return std::string(in.begin(), in.end());
  const size_t n = header & 0xFF;
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    const uint8_t c = in[i];
    if (c == 255) {
      EXPECT_LT(i + 1, in.size());
      out.push_back(static_cast<char>(in[++i]));
      continue;
    }
    EXPECT_LT(c, n);
    const uint8_t len = table[8 + 8 * n + c];  // lengths follow the n symbols
    for (size_t k = 0; k < len; ++k) out.push_back(static_cast<char>(table[8 + 8 * c + k]));
  }
  return out;
}

std::array<uint8_t, kFsstSymbolTableBytes> HandBuiltTable(bool compressed) {
  // Symbols: 0 = "hello", 1 = " ", 2 = "world", 3 = "abcdefgh".
  std::array<uint8_t, kFsstSymbolTableBytes> t{};
  const uint64_t header = (uint64_t{kFsstMagic} << 32) | (uint64_t{compressed} << 24) | 4;
  std::memcpy(t.data(), &header, 8);
  const char* syms[] = {"hello", " ", "world", "abcdefgh"};
  for (size_t i = 0; i < 4; ++i) {
    std::memcpy(t.data() + 8 + 8 * i, syms[i], std::strlen(syms[i]));
    t[8 + 8 * 4 + i] = static_cast<uint8_t>(std::strlen(syms[i]));  // after the 4 symbols
  }
  return t;
}

std::string DecodeOne(const FsstDecoder& d, std::span<const uint8_t> in) {
  std::vector<uint8_t> out(d.MaxDecodedSize(in.size()) + kFsstDecodeSlack);
  auto n = d.DecodeString(in, out.data(), out.size());
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  if (!n.ok()) return {};
  return std::string(out.begin(), out.begin() + static_cast<ptrdiff_t>(*n));
}

TEST(FsstTest, DecodesWithAHandBuiltTable) {
  const auto table = HandBuiltTable(true);
  auto d = FsstDecoder::Parse(table);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(d->compressed());
  EXPECT_EQ(d->num_symbols(), 4);
  const std::vector<uint8_t> codes = {0, 1, 2, 255, '!', 1, 3, 3, 255, 0xFF, 0};
  const std::string expected = "hello world! abcdefghabcdefgh\xFFhello";
  EXPECT_EQ(DecodeOne(*d, codes), expected);
  EXPECT_EQ(ReferenceFsstDecode(table, codes), expected);
  // Every prefix length exercises the 4-code fast path and the tail path.
  for (size_t len = 0; len <= codes.size(); ++len) {
    if (len == 4 || len == 9) continue;  // would end on an escape (indices 3 and 8)
    std::span<const uint8_t> prefix(codes.data(), len);
    EXPECT_EQ(DecodeOne(*d, prefix), ReferenceFsstDecode(table, prefix)) << len;
  }
  EXPECT_EQ(d->MaxDecodedSize(10), 80u);
}

TEST(FsstTest, DecodeRejectsBadInput) {
  const auto table = HandBuiltTable(true);
  auto d = FsstDecoder::Parse(table);
  ASSERT_TRUE(d.ok());
  std::vector<uint8_t> out(1024);
  const std::vector<uint8_t> unknown = {0, 1, 7, 2};  // code 7 has no symbol
  auto r = d->DecodeString(unknown, out.data(), out.size());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().subcode(), Subcode::kCorruption);
  EXPECT_NE(r.status().message().find("code 7"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("offset 2"), std::string::npos) << r.status().message();
  for (const std::vector<uint8_t>& dangling :
       {std::vector<uint8_t>{255}, std::vector<uint8_t>{0, 1, 2, 255},
        std::vector<uint8_t>{0, 1, 2, 0, 255}, std::vector<uint8_t>{0, 255, 'x', 255}}) {
    r = d->DecodeString(dangling, out.data(), out.size());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("escape"), std::string::npos) << r.status().message();
  }
  // Output capacity below bound + slack.
  const std::vector<uint8_t> ok = {0, 1, 2};
  EXPECT_TRUE(d->DecodeString(ok, out.data(), 3 * 8 + 7).status().IsInvalidInput());
  EXPECT_TRUE(d->DecodeString(ok, out.data(), 3 * 8 + 8).ok());

  // Table checks.
  EXPECT_FALSE(FsstDecoder::Parse(std::span(table.data(), table.size() - 1)).ok());
  auto bad_magic = table;
  bad_magic[7] = 0;
  EXPECT_EQ(FsstDecoder::Parse(bad_magic).status().subcode(), Subcode::kCorruption);
  auto bad_len = table;
  bad_len[8 + 8 * 4 + 2] = 9;
  EXPECT_FALSE(FsstDecoder::Parse(bad_len).ok());
  bad_len[8 + 8 * 4 + 2] = 0;
  EXPECT_FALSE(FsstDecoder::Parse(bad_len).ok());
  auto too_many = table;
  too_many[0] = 255;  // 255 symbols, most of length 0
  EXPECT_FALSE(FsstDecoder::Parse(too_many).ok());
}

TEST(FsstTest, SwitchOffMeansVerbatim) {
  auto d = FsstDecoder::Parse(HandBuiltTable(false));
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->compressed());
  EXPECT_EQ(DecodeOne(*d, Bytes(std::string_view("\xFF\x00raw", 5))),
            std::string("\xFF\x00raw", 5));
  auto enc = FsstEncoder::Uncompressed();
  const auto t = enc.SerializeTable();
  uint64_t header = 0;
  std::memcpy(&header, t.data(), 8);
  EXPECT_EQ(header, uint64_t{kFsstMagic} << 32);
  std::vector<uint8_t> buf(10);
  EXPECT_EQ(enc.CompressString(Bytes(std::string_view("abc")), buf.data()), 3u);
}

// String corpora.
std::vector<std::string> EnglishSentences(size_t count, uint64_t seed) {
  static const char* kWords[] = {
      "the",        "of",       "and",         "to",          "in",        "is",        "that",
      "for",        "it",       "as",          "was",         "with",      "be",        "by",
      "on",         "not",      "he",          "this",        "are",       "or",        "his",
      "from",       "at",       "which",       "but",         "have",      "an",        "had",
      "they",       "you",      "were",        "their",       "one",       "all",       "we",
      "can",        "her",      "has",         "there",       "been",      "if",        "more",
      "when",       "will",     "would",       "who",         "so",        "no",        "people",
      "government", "country",  "information", "development", "national",  "between",   "through",
      "important",  "children", "education",   "business",    "question",  "different", "following",
      "without",    "another",  "experience",  "community",   "political", "research"};
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    std::string s;
    const size_t words = 5 + rng() % 20;
    for (size_t w = 0; w < words; ++w) {
      if (w > 0) s += ' ';
      std::string word = kWords[rng() % std::size(kWords)];
      if (w == 0) word[0] = static_cast<char>(word[0] - 'a' + 'A');
      s += word;
      if (rng() % 12 == 0) s += ',';
    }
    s += '.';
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::string> Urls(size_t count, uint64_t seed) {
  static const char* kHosts[] = {"www.example.com", "docs.lancedb.com", "github.com",
                                 "en.wikipedia.org", "news.ycombinator.com"};
  static const char* kPaths[] = {"wiki",          "item",   "blob/main",   "docs",
                                 "api/v1/tables", "search", "user/profile"};
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    out.push_back("https://" + std::string(kHosts[rng() % 5]) + "/" + kPaths[rng() % 7] + "/" +
                  std::to_string(rng() % 100000) + "?id=" + std::to_string(rng() % 1000));
  }
  return out;
}

std::vector<std::string> Uuids(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  const char* hex = "0123456789abcdef";
  for (size_t i = 0; i < count; ++i) {
    std::string s;
    for (int k = 0; k < 32; ++k) {
      if (k == 8 || k == 12 || k == 16 || k == 20) s += '-';
      s += hex[rng() % 16];
    }
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> Garbage(size_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) {
    std::string s(rng() % 40, '\0');
    for (auto& c : s) c = static_cast<char>(rng());
    out.push_back(s);
  }
  return out;
}

struct Flat {
  std::vector<uint8_t> data;
  std::vector<uint32_t> offsets = {0};
  size_t bytes() const { return data.size(); }
};

Flat Flatten(const std::vector<std::string>& strings) {
  Flat f;
  for (const auto& s : strings) {
    f.data.insert(f.data.end(), s.begin(), s.end());
    f.offsets.push_back(static_cast<uint32_t>(f.data.size()));
  }
  return f;
}

// Trains on `strings`, compresses them, checks the table format, decodes with FsstDecoder
// (bulk and per string) and the reference decoder, and returns compressed / original size.
double FsstRoundTrip(const std::vector<std::string>& strings) {
  const Flat in = Flatten(strings);
  auto enc = FsstEncoder::Train<uint32_t>(Bytes(in.data), in.offsets);
  EXPECT_TRUE(enc.ok()) << enc.status().ToString();
  if (!enc.ok()) return 0;
  const auto table = enc->SerializeTable();
  uint64_t header = 0;
  std::memcpy(&header, table.data(), 8);
  EXPECT_EQ(header >> 32, kFsstMagic);
  EXPECT_EQ((header >> 24) & 0xFF, 1u);
  EXPECT_EQ(header & 0xFF, static_cast<uint64_t>(enc->num_symbols()));
  EXPECT_LE(enc->num_symbols(), 255);
  // n symbols, then n lengths, then zeros.
  const size_t n = static_cast<size_t>(enc->num_symbols());
  for (size_t i = 0; i < n; ++i) {
    const uint8_t len = table[8 + 8 * n + i];
    EXPECT_GE(len, 1);
    EXPECT_LE(len, 8);
    if (len < 8) {
      EXPECT_EQ(table[8 + 8 * i + len], 0) << "symbol bytes beyond its length";
    }
  }
  for (size_t i = 8 + 9 * n; i < table.size(); ++i) {
    EXPECT_EQ(table[i], 0) << i;
  }

  std::vector<uint8_t> comp;
  std::vector<uint32_t> comp_offsets;
  EXPECT_TRUE(
      enc->CompressStrings<uint32_t>(Bytes(in.data), in.offsets, &comp, &comp_offsets).ok());
  EXPECT_EQ(comp_offsets.size(), in.offsets.size());

  auto dec = FsstDecoder::Parse(table);
  EXPECT_TRUE(dec.ok()) << dec.status().ToString();
  if (!dec.ok()) return 0;
  std::vector<uint8_t> out;
  std::vector<uint32_t> out_offsets;
  const Status st = dec->DecodeStrings<uint32_t>(Bytes(comp), comp_offsets, &out, &out_offsets);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(out, in.data);
  EXPECT_EQ(out_offsets, in.offsets);
  // 64-bit offsets give the same answer.
  std::vector<uint64_t> comp64(comp_offsets.begin(), comp_offsets.end());
  std::vector<uint8_t> out64;
  std::vector<uint64_t> out_offsets64;
  EXPECT_TRUE(dec->DecodeStrings<uint64_t>(Bytes(comp), comp64, &out64, &out_offsets64).ok());
  EXPECT_EQ(out64, in.data);
  // Per string, through the reference decoder too (a sample for speed).
  for (size_t i = 0; i < strings.size(); i += 1 + strings.size() / 200) {
    std::span<const uint8_t> one(comp.data() + comp_offsets[i],
                                 comp_offsets[i + 1] - comp_offsets[i]);
    EXPECT_EQ(DecodeOne(*dec, one), strings[i]);
    EXPECT_EQ(ReferenceFsstDecode(table, one), strings[i]);
  }
  return in.bytes() == 0 ? 1.0 : static_cast<double>(comp.size()) / in.bytes();
}

TEST(FsstTest, EnglishTextCompressesWell) {
  const double ratio = FsstRoundTrip(EnglishSentences(3000, 1));
  EXPECT_LT(ratio, 0.7);
  std::printf("fsst english ratio %.3f\n", ratio);
}

TEST(FsstTest, RoundTripsRealisticCorpora) {
  EXPECT_LT(FsstRoundTrip(Urls(3000, 2)), 0.8);
  EXPECT_LT(FsstRoundTrip(Uuids(3000, 3)), 1.0);
  EXPECT_LE(FsstRoundTrip(Garbage(2000, 4)), 2.0);
  // Mixed, with empty strings.
  std::vector<std::string> mixed = EnglishSentences(50, 5);
  auto more = Garbage(50, 6);
  for (size_t i = 0; i < more.size(); ++i) {
    mixed.push_back(more[i]);
    mixed.push_back("");
  }
  FsstRoundTrip(mixed);
  FsstRoundTrip({});
  FsstRoundTrip({"", "", ""});
  FsstRoundTrip({"a"});
}

TEST(FsstTest, RoundTripsHugeStrings) {
  // Strings of 70 KiB (longer than any internal chunking), text and binary.
  std::string text;
  for (const auto& s : EnglishSentences(1000, 7)) text += s + " ";
  text.resize(70 * 1024);
  std::string bin = Garbage(4000, 8)[0];
  std::mt19937_64 rng(9);
  bin.resize(70 * 1024);
  for (auto& c : bin) c = static_cast<char>(rng());
  EXPECT_LT(FsstRoundTrip({text, bin.substr(0, 100), text.substr(5)}), 0.8);
  FsstRoundTrip({bin});
}

TEST(FsstTest, BulkDecodeHonoursOffsetsAndBase) {
  const auto strings = Urls(100, 10);
  const Flat in = Flatten(strings);
  auto enc = FsstEncoder::Train<uint32_t>(Bytes(in.data), in.offsets);
  ASSERT_TRUE(enc.ok());
  std::vector<uint8_t> comp;
  std::vector<uint32_t> comp_offsets;
  ASSERT_TRUE(
      enc->CompressStrings<uint32_t>(Bytes(in.data), in.offsets, &comp, &comp_offsets).ok());
  auto dec = FsstDecoder::Parse(enc->SerializeTable());
  ASSERT_TRUE(dec.ok());
  // Decode strings 10..19 only (offsets that do not start at 0), appending at base 1000.
  std::span<const uint32_t> window(comp_offsets.data() + 10, 11);
  const size_t cap = dec->MaxDecodedSize(window.back() - window.front()) + kFsstDecodeSlack;
  std::vector<uint8_t> out(cap);
  std::vector<uint32_t> out_offsets(11);
  auto n = dec->DecodeStrings<uint32_t>(Bytes(comp), window, out.data(), out.size(),
                                        out_offsets.data(), 1000);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(*n, in.offsets[20] - in.offsets[10]);
  EXPECT_EQ(out_offsets[0], 1000u);
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(out_offsets[i + 1] - out_offsets[i], strings[10 + i].size());
    EXPECT_EQ(std::string(out.begin() + (out_offsets[i] - 1000),
                          out.begin() + (out_offsets[i + 1] - 1000)),
              strings[10 + i]);
  }
  // Capacity and offsets are checked.
  EXPECT_TRUE(
      dec->DecodeStrings<uint32_t>(Bytes(comp), window, out.data(), cap - 1, out_offsets.data())
          .status()
          .IsInvalidInput());
  std::vector<uint32_t> decreasing = {0, 5, 3};
  EXPECT_EQ(dec->DecodeStrings<uint32_t>(Bytes(comp), decreasing, out.data(), out.size(),
                                         out_offsets.data())
                .status()
                .subcode(),
            Subcode::kCorruption);
  std::vector<uint32_t> beyond = {0, static_cast<uint32_t>(comp.size() + 1)};
  EXPECT_FALSE(
      dec->DecodeStrings<uint32_t>(Bytes(comp), beyond, out.data(), out.size(), out_offsets.data())
          .ok());
  std::vector<uint32_t> none;
  EXPECT_FALSE(
      dec->DecodeStrings<uint32_t>(Bytes(comp), none, out.data(), out.size(), out_offsets.data())
          .ok());
  // Output offsets that overflow u32 are reported.
  EXPECT_FALSE(dec->DecodeStrings<uint32_t>(Bytes(comp), window, out.data(), out.size(),
                                            out_offsets.data(), 0xFFFFFFF0u)
                   .ok());
}

TEST(FsstTest, TrainsFromStringViews) {
  const auto strings = EnglishSentences(200, 11);
  std::vector<std::string_view> views(strings.begin(), strings.end());
  const auto enc = FsstEncoder::Train(views);
  EXPECT_GT(enc.num_symbols(), 50);
  std::vector<uint8_t> out(FsstEncoder::MaxCompressedSize(strings[0].size()));
  const size_t n = enc.CompressString(Bytes(strings[0]), out.data());
  auto dec = FsstDecoder::Parse(enc.SerializeTable());
  ASSERT_TRUE(dec.ok());
  EXPECT_EQ(DecodeOne(*dec, std::span(out.data(), n)), strings[0]);
}

// ---------------------------------------------------------------------------------------------
// General (LZ4 / ZSTD)

std::vector<uint8_t> Compressible(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>((i * 31) % 97 < 50 ? 'a' : i % 7);
  return v;
}

TEST(GeneralTest, Lz4RoundTripAndFraming) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{1} << 20}) {
    const auto in = Compressible(n);
    std::vector<uint8_t> unit = {9};  // appends
    ASSERT_TRUE(CompressLz4Unit(Bytes(in), &unit).ok());
    uint32_t declared = 0;
    std::memcpy(&declared, unit.data() + 1, 4);
    EXPECT_EQ(declared, n);
    std::vector<uint8_t> out = {1, 2};
    ASSERT_TRUE(DecompressLz4Unit(std::span(unit.data() + 1, unit.size() - 1), n, &out).ok());
    ASSERT_EQ(out.size(), n + 2);
    EXPECT_TRUE(std::equal(in.begin(), in.end(), out.begin() + 2));
  }
}

TEST(GeneralTest, Lz4RejectsBadUnits) {
  const auto in = Compressible(5000);
  std::vector<uint8_t> unit;
  ASSERT_TRUE(CompressLz4Unit(Bytes(in), &unit).ok());
  std::vector<uint8_t> out;
  // The limit is checked against the prefix before anything is allocated.
  auto st = DecompressLz4Unit(Bytes(unit), 4999, &out);
  EXPECT_EQ(st.subcode(), Subcode::kCorruption);
  EXPECT_NE(st.message().find("exceeds"), std::string::npos);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(DecompressLz4Unit(std::span(unit.data(), 3), 1 << 20, &out).ok());
  EXPECT_FALSE(DecompressLz4Unit(std::span(unit.data(), unit.size() - 5), 1 << 20, &out).ok());
  EXPECT_TRUE(out.empty());
  auto wrong_len = unit;
  wrong_len[0] = static_cast<uint8_t>(wrong_len[0] + 1);  // declared 5001
  EXPECT_FALSE(DecompressLz4Unit(Bytes(wrong_len), 1 << 20, &out).ok());
  auto huge = unit;
  huge[3] = 0x7F;
  EXPECT_FALSE(DecompressLz4Unit(Bytes(huge), 1 << 20, &out).ok());
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {  // random corruption never crashes
    auto bad = unit;
    bad[4 + rng() % (bad.size() - 4)] ^= static_cast<uint8_t>(1 + rng() % 255);
    std::vector<uint8_t> o;
    (void)DecompressLz4Unit(Bytes(bad), 1 << 20, &o);
  }
}

TEST(GeneralTest, ZstdRoundTripAndFraming) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, size_t{1} << 20}) {
    const auto in = Compressible(n);
    std::vector<uint8_t> unit;
    ASSERT_TRUE(CompressZstdUnit(Bytes(in), 0, &unit).ok());
    uint64_t declared = 0;
    std::memcpy(&declared, unit.data(), 8);
    EXPECT_EQ(declared, n);
    std::vector<uint8_t> out;
    ASSERT_TRUE(DecompressZstdUnit(Bytes(unit), n, &out).ok());
    EXPECT_EQ(out, in);
    // The frame alone (bare zstd, as older writers produced) decodes too.
    std::vector<uint8_t> bare(unit.begin() + 8, unit.end());
    uint32_t magic = 0;
    std::memcpy(&magic, bare.data(), 4);
    EXPECT_EQ(magic, 0xFD2FB528u);
    out.clear();
    ASSERT_TRUE(DecompressZstdUnit(Bytes(bare), n, &out).ok());
    EXPECT_EQ(out, in);
    std::vector<uint8_t> via;
    ASSERT_TRUE(CompressGeneral(GeneralCodec::kZstd, Bytes(in), 19, &via).ok());
    out.clear();
    ASSERT_TRUE(DecompressGeneral(GeneralCodec::kZstd, Bytes(via), n, &out).ok());
    EXPECT_EQ(out, in);
  }
  EXPECT_TRUE(DecompressZstdUnit({}, 0, nullptr).ok());  // empty unit: nothing to do
}

// A zstd frame built by hand: no content size, one raw block.
std::vector<uint8_t> RawZstdFrame(const std::string& payload) {
  std::vector<uint8_t> f = {0x28, 0xB5, 0x2F, 0xFD, 0x00 /*FHD*/, 0x18 /*window 8 KiB*/};
  const uint32_t block = 1u | (static_cast<uint32_t>(payload.size()) << 3);  // last, raw
  f.push_back(static_cast<uint8_t>(block));
  f.push_back(static_cast<uint8_t>(block >> 8));
  f.push_back(static_cast<uint8_t>(block >> 16));
  f.insert(f.end(), payload.begin(), payload.end());
  return f;
}

TEST(GeneralTest, ZstdBareStreamsWithoutContentSize) {
  auto frame = RawZstdFrame("hello zstd");
  std::vector<uint8_t> out;
  ASSERT_TRUE(DecompressZstdUnit(Bytes(frame), 100, &out).ok());
  EXPECT_EQ(std::string(out.begin(), out.end()), "hello zstd");
  // Concatenated frames.
  auto two = frame;
  auto second = RawZstdFrame("!!");
  two.insert(two.end(), second.begin(), second.end());
  out.clear();
  ASSERT_TRUE(DecompressZstdUnit(Bytes(two), 100, &out).ok());
  EXPECT_EQ(std::string(out.begin(), out.end()), "hello zstd!!");
  // The limit stops a bare stream.
  out.clear();
  auto st = DecompressZstdUnit(Bytes(frame), 5, &out);
  EXPECT_EQ(st.subcode(), Subcode::kCorruption) << st.ToString();
  EXPECT_TRUE(out.empty());
  // Truncated.
  EXPECT_FALSE(DecompressZstdUnit(std::span(frame.data(), frame.size() - 3), 100, &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(GeneralTest, ZstdRejectsBadUnits) {
  const auto in = Compressible(5000);
  std::vector<uint8_t> unit;
  ASSERT_TRUE(CompressZstdUnit(Bytes(in), 3, &unit).ok());
  std::vector<uint8_t> out;
  EXPECT_EQ(DecompressZstdUnit(Bytes(unit), 4999, &out).subcode(), Subcode::kCorruption);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(DecompressZstdUnit(std::span(unit.data(), unit.size() - 4), 1 << 20, &out).ok());
  auto wrong_len = unit;
  wrong_len[0] = static_cast<uint8_t>(wrong_len[0] - 1);
  EXPECT_FALSE(DecompressZstdUnit(Bytes(wrong_len), 1 << 20, &out).ok());
  EXPECT_FALSE(DecompressZstdUnit(Bytes(std::string_view("garbage!garbage!")), 1 << 20, &out).ok());
  EXPECT_FALSE(DecompressZstdUnit(Bytes(std::string_view("short")), 1 << 20, &out).ok());
  // Magic at offset 0 but FHD bit 0x10 set: Lance reads it as a length prefix (here a length of
  // ~64 GiB, which the limit rejects before allocating).
  std::vector<uint8_t> looks_bare = {0x28, 0xB5, 0x2F, 0xFD, 0x10, 0, 0, 0, 1, 2, 3};
  auto st = DecompressZstdUnit(Bytes(looks_bare), 1 << 20, &out);
  EXPECT_NE(st.message().find("declared length"), std::string::npos) << st.ToString();
  EXPECT_TRUE(out.empty());
  std::mt19937 rng(4);
  for (int trial = 0; trial < 200; ++trial) {
    auto bad = unit;
    bad[8 + rng() % (bad.size() - 8)] ^= static_cast<uint8_t>(1 + rng() % 255);
    std::vector<uint8_t> o;
    (void)DecompressZstdUnit(Bytes(bad), 1 << 20, &o);
  }
}

}  // namespace
}  // namespace quiver::format::codecs
