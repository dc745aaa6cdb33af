// The 2.1/2.2 block decompressor (src/format/internal/read21/block.h) and the 2.2 constant pages
// (page21.cc): blocks built here with quiver's own encoders in every form Lance 12 writes
// (lance-2.2-notes.md §9.1): RLE levels, General(LZ4/ZSTD) around an inner block, 64-bit and
// LZ4-wrapped dictionary items, constant pages with an inline or a buffered scalar, all-null
// pages with compressed levels; and the damage each decoder must refuse.
#include "format/internal/read21/block.h"

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arrow/array.h"
#include "format/internal/codecs/bitpacking.h"
#include "format/internal/codecs/general.h"
#include "format/internal/codecs/rle.h"
#include "format/internal/read21/compressive.h"
#include "format/internal/read21/page21.h"
#include "testing/status_matchers.h"

namespace quiver::format::internal {
namespace {

namespace pb = lance::encodings21;

std::span<const uint8_t> Span(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
std::string Str(const std::vector<uint8_t>& v) { return std::string(v.begin(), v.end()); }
template <typename T>
std::string Raw(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

pb::CompressiveEncoding Flat(uint64_t bits) {
  pb::CompressiveEncoding e;
  e.mutable_flat()->set_bits_per_value(bits);
  return e;
}
pb::CompressiveEncoding Rle(uint64_t bits) {
  pb::CompressiveEncoding e;
  *e.mutable_rle()->mutable_values() = Flat(bits);
  *e.mutable_rle()->mutable_run_lengths() = Flat(8);
  return e;
}
pb::CompressiveEncoding General(pb::CompressionScheme scheme, pb::CompressiveEncoding inner) {
  pb::CompressiveEncoding e;
  e.mutable_general()->mutable_compression()->set_scheme(scheme);
  *e.mutable_general()->mutable_values() = std::move(inner);
  return e;
}
pb::CompressiveEncoding Variable(uint64_t offset_bits) {
  pb::CompressiveEncoding e;
  *e.mutable_variable()->mutable_offsets() = Flat(offset_bits);
  return e;
}
std::string Lz4(const std::string& raw) {
  std::vector<uint8_t> unit;
  EXPECT_TRUE(codecs::CompressLz4Unit(Span(raw), &unit).ok());
  return Str(unit);
}
std::string Zstd(const std::string& raw) {
  std::vector<uint8_t> unit;
  EXPECT_TRUE(codecs::CompressZstdUnit(Span(raw), 0, &unit).ok());
  return Str(unit);
}
std::string RleBlock(const std::vector<uint16_t>& levels) {
  std::vector<uint8_t> block;
  codecs::EncodeRleBlock<uint16_t>(levels, &block);
  return Str(block);
}

// Levels as Lance 12 writes them: runs, so RLE wins.
std::vector<uint16_t> SomeLevels(size_t n) {
  std::vector<uint16_t> levels(n);
  for (size_t i = 0; i < n; ++i) levels[i] = static_cast<uint16_t>((i / 300) % 3);
  return levels;
}

TEST(BlockTest, LevelsDecodeUnderEveryBlockEncodingLance12Writes) {
  const std::vector<uint16_t> levels = SomeLevels(5000);
  struct Case {
    const char* name;
    pb::CompressiveEncoding encoding;
    std::string buffer;
  };
  std::vector<Case> cases = {
      {"flat", Flat(16), Raw(levels)},
      {"rle", Rle(16), RleBlock(levels)},
      {"lz4(flat)", General(pb::COMPRESSION_ALGORITHM_LZ4, Flat(16)), Lz4(Raw(levels))},
      {"zstd(rle)", General(pb::COMPRESSION_ALGORITHM_ZSTD, Rle(16)), Zstd(RleBlock(levels))},
  };
  for (const Case& c : cases) {
    std::vector<uint16_t> out = {7};  // appended to, not replaced
    ASSERT_OK(DecodeLevels(c.encoding, c.buffer, levels.size(), &out)) << c.name;
    ASSERT_EQ(out.size(), levels.size() + 1) << c.name;
    EXPECT_EQ(out[0], 7) << c.name;
    EXPECT_TRUE(std::equal(levels.begin(), levels.end(), out.begin() + 1)) << c.name;
  }
}

TEST(BlockTest, OutOfLineBitpackedSixtyFourBitValues) {
  std::vector<uint64_t> values(3000);
  std::iota(values.begin(), values.end(), uint64_t{1} << 40);
  for (uint64_t& v : values) v -= uint64_t{1} << 40;  // 0..2999: 12 bits
  std::vector<uint8_t> packed;
  ASSERT_OK(codecs::EncodeOutOfLine<uint64_t>(values, 12, &packed));
  pb::CompressiveEncoding e;
  e.mutable_out_of_line_bitpacking()->set_uncompressed_bits_per_value(64);
  *e.mutable_out_of_line_bitpacking()->mutable_values() = Flat(12);
  std::vector<uint8_t> out;
  ASSERT_OK(DecodeFixedWidthBlock(e, Str(packed), values.size(), 64, &out));
  ASSERT_EQ(out.size(), values.size() * 8);
  EXPECT_EQ(std::memcmp(out.data(), values.data(), out.size()), 0);
  EXPECT_EQ(BlockValueBits(e), 64u);
  EXPECT_EQ(BlockValueBits(General(pb::COMPRESSION_ALGORITHM_LZ4, e)), 64u);
}

TEST(BlockTest, ConstantBlocksRepeatTheirValue) {
  pb::CompressiveEncoding e;
  const uint32_t v = 0xA1B2C3D4;
  e.mutable_constant()->set_value(std::string(reinterpret_cast<const char*>(&v), 4));
  std::vector<uint8_t> out;
  ASSERT_OK(DecodeFixedWidthBlock(e, "", 5, 32, &out));
  ASSERT_EQ(out.size(), 20u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(std::memcmp(out.data() + 4 * i, &v, 4), 0);
  // A count no page has is refused before anything is allocated.
  ASSERT_STATUS(Subcode::kCorruption, DecodeFixedWidthBlock(e, "", uint64_t{1} << 40, 32, &out));
}

TEST(BlockTest, DictionaryItemsThroughLz4AndAsSixtyFourBitValues) {
  // Strings: General(LZ4) around a Variable block (u32 header: bits, data start; offsets).
  const std::vector<std::string> words = {"alpha", "", "gamma-ray", "δέλτα"};
  std::string block;
  auto put32 = [&](uint32_t x) { block.append(reinterpret_cast<const char*>(&x), 4); };
  const uint32_t header = 8, data_start = header + 4 * static_cast<uint32_t>(words.size() + 1);
  put32(32);
  put32(data_start);
  uint32_t at = 0;
  put32(at);
  for (const std::string& w : words) put32(at += static_cast<uint32_t>(w.size()));
  for (const std::string& w : words) block += w;
  ASSERT_OK_AND_ASSIGN(
      arrow::ArrayPtr strings,
      DecodeDictionaryItems(General(pb::COMPRESSION_ALGORITHM_LZ4, Variable(32)), Lz4(block),
                            words.size(), arrow::DataType::Utf8(), arrow::MemoryPool::Default()));
  ASSERT_EQ(strings->length, static_cast<int64_t>(words.size()));
  for (size_t i = 0; i < words.size(); ++i) {
    EXPECT_EQ(arrow::BinaryValue(*strings, static_cast<int64_t>(i)), words[i]) << i;
  }
  // 64-bit items (new in 2.2), LZ4-wrapped.
  const std::vector<int64_t> ints = {-1, INT64_MAX, 0, 42};
  ASSERT_OK_AND_ASSIGN(
      arrow::ArrayPtr items,
      DecodeDictionaryItems(General(pb::COMPRESSION_ALGORITHM_LZ4, Flat(64)), Lz4(Raw(ints)),
                            ints.size(), arrow::DataType::Int64(), arrow::MemoryPool::Default()));
  ASSERT_EQ(items->length, 4);
  for (size_t i = 0; i < ints.size(); ++i) EXPECT_EQ(arrow::Values<int64_t>(*items)[i], ints[i]);
  // Items of the wrong width for the column.
  ASSERT_STATUS(Subcode::kCorruption,
                DecodeDictionaryItems(Flat(32), Raw(ints), ints.size(), arrow::DataType::Int64(),
                                      arrow::MemoryPool::Default())
                    .status());
}

TEST(BlockTest, DamagedBlocksAreRefused) {
  const std::vector<uint16_t> levels = SomeLevels(2000);
  std::vector<uint16_t> out;
  // Too short for what the encoding claims.
  ASSERT_STATUS(Subcode::kCorruption,
                DecodeLevels(Flat(16), Raw(levels).substr(0, 100), levels.size(), &out));
  std::string rle = RleBlock(levels);
  ASSERT_STATUS(Subcode::kCorruption,
                DecodeLevels(Rle(16), rle.substr(0, rle.size() / 2), levels.size(), &out));
  // RLE run lengths Lance does not write.
  pb::CompressiveEncoding wide_runs = Rle(16);
  *wide_runs.mutable_rle()->mutable_run_lengths() = Flat(16);
  ASSERT_STATUS(Subcode::kCorruption, DecodeLevels(wide_runs, rle, levels.size(), &out));
  // Levels are u16: 32-bit values are not levels.
  ASSERT_STATUS(Subcode::kCorruption, DecodeLevels(Flat(32), Raw(levels), 10, &out));
  // General nested in General, a General without a scheme, a corrupt LZ4 unit.
  auto nested =
      General(pb::COMPRESSION_ALGORITHM_LZ4, General(pb::COMPRESSION_ALGORITHM_LZ4, Flat(16)));
  ASSERT_STATUS(Subcode::kCorruption,
                DecodeLevels(nested, Lz4(Lz4(Raw(levels))), levels.size(), &out));
  auto no_scheme = General(pb::COMPRESSION_ALGORITHM_LZ4, Flat(16));
  no_scheme.mutable_general()->mutable_compression()->clear_scheme();
  ASSERT_STATUS(Subcode::kCorruption,
                DecodeLevels(no_scheme, Lz4(Raw(levels)), levels.size(), &out));
  std::string lz4 = Lz4(Raw(levels));
  lz4.resize(lz4.size() / 2);
  EXPECT_FALSE(
      DecodeLevels(General(pb::COMPRESSION_ALGORITHM_LZ4, Flat(16)), lz4, levels.size(), &out)
          .ok());
  // A General unit that claims to decompress to far more than the block can hold.
  std::string bomb = Lz4(std::string(1 << 20, '\0'));
  ASSERT_STATUS(Subcode::kCorruption,
                DecodeLevels(General(pb::COMPRESSION_ALGORITHM_LZ4, Flat(16)), bomb, 10, &out));
  // An encoding the block decompressor does not take.
  ASSERT_STATUS(StatusCode::kUnsupported, DecodeLevels(Variable(32), "", 0, &out));
}

// --- 2.2 constant pages ------------------------------------------------------------------------

PageInfo ConstantPage(uint64_t rows, std::vector<pb::RepDefLayer> layers) {
  PageInfo page;
  page.rows = rows;
  auto* constant = page.layout.mutable_constant_layout();
  for (pb::RepDefLayer l : layers) constant->add_layers(l);
  return page;
}

TEST(ConstantPageTest, AnInlineValueFillsEveryRow) {
  PageInfo page = ConstantPage(5, {pb::REPDEF_ALL_VALID_ITEM});
  const int32_t v = -77;
  page.layout.mutable_constant_layout()->set_inline_value(
      std::string(reinterpret_cast<const char*>(&v), 4));
  ASSERT_OK_AND_ASSIGN(DecodedPage decoded, DecodePage21(page, {}, arrow::DataType::Int32(),
                                                         arrow::MemoryPool::Default()));
  ASSERT_EQ(decoded.values->length, 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(arrow::Values<int32_t>(*decoded.values)[i], v);
  // An inline value with one or three buffers is not a layout Lance accepts.
  EXPECT_FALSE(
      DecodePage21(page, {"x"}, arrow::DataType::Int32(), arrow::MemoryPool::Default()).ok());
  // Nor one of the wrong width.
  page.layout.mutable_constant_layout()->set_inline_value("abc");
  EXPECT_FALSE(DecodePage21(page, {}, arrow::DataType::Int32(), arrow::MemoryPool::Default()).ok());
}

TEST(ConstantPageTest, AScalarBufferWithLevelsFillsTheVisibleItems) {
  // A nullable utf8 column whose non-null rows all hold "same": [scalar, rep, def].
  PageInfo page = ConstantPage(4, {pb::REPDEF_NULLABLE_ITEM});
  std::string scalar;
  auto put32 = [&](uint32_t x) { scalar.append(reinterpret_cast<const char*>(&x), 4); };
  put32(2);  // buffers: offsets [0, 4], data "same"
  put32(8);
  put32(4);
  put32(0);
  put32(4);
  scalar += "same";
  const std::vector<uint16_t> def = {0, 1, 0, 0};  // the second row is null
  ASSERT_OK_AND_ASSIGN(DecodedPage decoded,
                       DecodePage21(page, {scalar, "", Raw(def)}, arrow::DataType::Utf8(),
                                    arrow::MemoryPool::Default()));
  EXPECT_EQ(decoded.def, def);
  EXPECT_TRUE(decoded.rep.empty());
  ASSERT_EQ(decoded.values->length, 4);  // every slot, the null one's value unseen
  EXPECT_EQ(arrow::BinaryValue(*decoded.values, 0), "same");
  EXPECT_EQ(arrow::BinaryValue(*decoded.values, 3), "same");
  // Damaged scalars: trailing bytes, a length past the end, no buffers.
  for (std::string bad :
       {scalar + "!", scalar.substr(0, scalar.size() - 1), std::string(4, '\0')}) {
    EXPECT_STATUS(Subcode::kCorruption,
                  DecodePage21(page, {bad, "", Raw(def)}, arrow::DataType::Utf8(),
                               arrow::MemoryPool::Default()));
  }
}

TEST(ConstantPageTest, AllNullPagesWithCompressedLevels) {
  // list<int32> rows, all null at the leaf, levels RLE-compressed (Lance 12's
  // ComplexAllNull): rep marks row starts, def says null list or null item.
  PageInfo page = ConstantPage(3, {pb::REPDEF_NULLABLE_ITEM, pb::REPDEF_NULLABLE_LIST});
  const std::vector<uint16_t> rep = {1, 0, 1, 1};
  const std::vector<uint16_t> def = {1, 1, 2, 1};
  auto* constant = page.layout.mutable_constant_layout();
  *constant->mutable_rep_compression() = Rle(16);
  *constant->mutable_def_compression() = General(pb::COMPRESSION_ALGORITHM_LZ4, Flat(16));
  constant->set_num_rep_values(rep.size());
  constant->set_num_def_values(def.size());
  ASSERT_OK_AND_ASSIGN(DecodedPage decoded,
                       DecodePage21(page, {RleBlock(rep), Lz4(Raw(def))}, arrow::DataType::Int32(),
                                    arrow::MemoryPool::Default()));
  EXPECT_EQ(decoded.rep, rep);
  EXPECT_EQ(decoded.def, def);
  EXPECT_EQ(decoded.num_levels, 4u);
  EXPECT_EQ(decoded.values->length, 3);  // the three null items (def 1) are visible slots
}

}  // namespace
}  // namespace quiver::format::internal
