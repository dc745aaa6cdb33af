// Hostile input for the Arrow IPC readers (arrow/ipc/reader.h): every truncation of small
// streams and files, single-byte corruptions at every offset, lying lengths, and the limits.
// Nothing may crash, hang or allocate without bound; truncations must be errors.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include <flatbuffers/flatbuffers.h>

#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"
#include "arrow/ipc_message.h"
#include "ipc_test_util.h"

namespace quiver::arrow::ipc {
namespace {

using testing::Must;
using testing::RandomArrays;

// A few rows of a handful of types, dictionary included: small enough to mutate every byte.
std::shared_ptr<const Schema> SmallSchema() {
  auto schema = std::make_shared<Schema>();
  schema->fields = {
      Field("i", DataType::Int32()),
      Field("s", DataType::Utf8()),
      Field("b", DataType::Bool()),
      Field("l", DataType::List(Field("item", DataType::Int16()))),
      Field("st", DataType::Struct(
                      {Field("x", DataType::Float64()), Field("f", DataType::FixedSizeBinary(3))})),
      Field("d", DataType::Dictionary(TypeId::kInt8, DataType::Utf8())),
  };
  return schema;
}

std::vector<RecordBatch> SmallBatches(const std::shared_ptr<const Schema>& schema) {
  RandomArrays gen(21, 0.3);
  gen.set_share_dictionaries(true);
  return {gen.MakeBatch(schema, 5), gen.MakeBatch(schema, 3)};
}

std::string SmallInput(bool file, Compression compression) {
  const auto schema = SmallSchema();
  WriteOptions options;
  options.compression = compression;
  return file ? Must(WriteFileToString(schema, SmallBatches(schema), options))
              : Must(WriteStreamToString(schema, SmallBatches(schema), options));
}

// Reads everything; the first error, or OK.
Status ReadAll(bool file, const std::string& bytes, const ReadOptions& options = {}) {
  // An aligned copy, so that the zero-copy paths are the ones exercised.
  auto input = Must(Buffer::CopyOf(bytes));
  if (file) {
    QV_ASSIGN_OR_RETURN(auto reader, FileReader::Open(input, options));
    for (int i = 0; i < reader->num_batches(); ++i) {
      QV_ASSIGN_OR_RETURN(auto batch, reader->ReadBatch(i));
      QV_RETURN_IF_ERROR(batch.Validate(true));
    }
    return Status::OK();
  }
  QV_ASSIGN_OR_RETURN(auto reader, StreamReader::Open(input, options));
  for (;;) {
    QV_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch.has_value()) return Status::OK();
    QV_RETURN_IF_ERROR(batch->Validate(true));
  }
}

struct Input {
  bool file;
  Compression compression;
};

void PrintTo(const Input& input, std::ostream* os) {
  *os << (input.file ? "file" : "stream") << "/" << CompressionName(input.compression);
}

std::string InputName(const ::testing::TestParamInfo<Input>& info) {
  return std::string(info.param.file ? "File" : "Stream") + "_" +
         std::string(CompressionName(info.param.compression));
}

class IpcHostile : public ::testing::TestWithParam<Input> {};

INSTANTIATE_TEST_SUITE_P(
    Inputs, IpcHostile,
    ::testing::Values(Input{false, Compression::kNone}, Input{false, Compression::kLz4Frame},
                      Input{false, Compression::kZstd}, Input{true, Compression::kNone},
                      Input{true, Compression::kLz4Frame}, Input{true, Compression::kZstd}),
    InputName);

TEST_P(IpcHostile, EveryTruncationIsCorruption) {
  const std::string bytes = SmallInput(GetParam().file, GetParam().compression);
  ASSERT_TRUE(ReadAll(GetParam().file, bytes).ok());
  for (size_t n = 0; n < bytes.size(); ++n) {
    const Status s = ReadAll(GetParam().file, bytes.substr(0, n));
    ASSERT_FALSE(s.ok()) << "a prefix of " << n << " of " << bytes.size() << " bytes was accepted";
    EXPECT_EQ(s.subcode(), Subcode::kCorruption) << n << ": " << s.ToString();
    EXPECT_EQ(s.message().rfind("arrow IPC ", 0), 0u) << s.message();
  }
}

TEST_P(IpcHostile, SingleByteCorruptionsNeverCrash) {
  const std::string bytes = SmallInput(GetParam().file, GetParam().compression);
  int rejected = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string copy = bytes;
      copy[i] = static_cast<char>(copy[i] ^ mask);
      const Status s = ReadAll(GetParam().file, copy);
      if (s.ok()) continue;  // padding, unused bits, or values that stay valid
      ++rejected;
      // Only the input's fault is reported: never Internal, never a crash.
      EXPECT_TRUE(s.subcode() == Subcode::kCorruption || s.code() == StatusCode::kUnsupported)
          << "byte " << i << " ^ " << int{mask} << ": " << s.ToString();
    }
  }
  EXPECT_GT(rejected, 0);
}

TEST_P(IpcHostile, LimitsAreEnforced) {
  const std::string bytes = SmallInput(GetParam().file, GetParam().compression);
  ReadOptions tiny;
  tiny.max_message_bytes = 64;
  const Status s = ReadAll(GetParam().file, bytes, tiny);
  EXPECT_EQ(s.subcode(), Subcode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("limit"), std::string::npos) << s.message();
}

TEST(IpcHostileStream, LyingLengthsAllocateNothing) {
  // A metadata length of almost 2 GiB with nothing behind it, from memory and from a pipe.
  const std::string claim("\xff\xff\xff\xff\xf0\xff\xff\x7f", 8);
  MemoryPool pool(1 << 20);
  ReadOptions options;
  options.pool = &pool;
  Status s = StreamReader::Open(Buffer::FromString(claim), options).status();
  EXPECT_EQ(s.subcode(), Subcode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s.ToString();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], claim.data(), claim.size()), static_cast<ssize_t>(claim.size()));
  ::close(fds[1]);
  s = StreamReader::Open(std::make_unique<FdInputStream>(fds[0], &pool), options).status();
  ::close(fds[0]);
  EXPECT_EQ(s.subcode(), Subcode::kCorruption) << s.ToString();
  EXPECT_LE(pool.peak(), 1u << 20);

  // Negative and over-limit lengths.
  s = StreamReader::Open(Buffer::FromString(std::string("\xff\xff\xff\xff\x00\x00\x00\x80", 8)))
          .status();
  EXPECT_NE(s.message().find("negative"), std::string::npos) << s.ToString();
  options.max_message_bytes = 1000;
  s = StreamReader::Open(Buffer::FromString(std::string("\xff\xff\xff\xff\x00\x10\x00\x00", 8)),
                         options)
          .status();
  EXPECT_NE(s.message().find("exceeds the 1000-byte limit"), std::string::npos) << s.ToString();
}

TEST(IpcHostileStream, EmptyAndEndOnlyStreams) {
  EXPECT_EQ(StreamReader::Open(Buffer::FromString("")).status().subcode(), Subcode::kCorruption);
  const Status s =
      StreamReader::Open(Buffer::FromString(std::string("\xff\xff\xff\xff\0\0\0\0", 8))).status();
  EXPECT_NE(s.message().find("before its schema"), std::string::npos) << s.ToString();
  EXPECT_EQ(StreamReader::Open(Buffer::FromString(std::string(64, '\x07'))).status().subcode(),
            Subcode::kCorruption);
}

TEST(IpcHostileStream, AnErrorEndsTheStream) {
  std::string bytes = SmallInput(false, Compression::kNone);
  bytes.resize(bytes.size() - 20);  // inside the last batch
  auto reader = Must(StreamReader::Open(Buffer::FromString(bytes)));
  Status first;
  for (int i = 0; i < 10 && first.ok(); ++i) first = reader->Next().status();
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(reader->Next().status(), first);
}

TEST(IpcHostileFile, BadTrailers) {
  const std::string good = SmallInput(true, Compression::kNone);
  auto read = [](std::string bytes) { return ReadAll(true, bytes); };
  std::string no_tail = good;
  no_tail.back() = 'X';
  EXPECT_NE(read(no_tail).message().find("no ARROW1 magic at the end"), std::string::npos);
  std::string no_head = good;
  no_head[0] = 'X';
  EXPECT_NE(read(no_head).message().find("no ARROW1 magic at the start"), std::string::npos);
  for (int32_t length : {0, -5, 0x7fffffff, static_cast<int32_t>(good.size())}) {
    std::string bad = good;
    std::memcpy(bad.data() + bad.size() - 10, &length, 4);
    const Status s = read(bad);
    EXPECT_EQ(s.subcode(), Subcode::kCorruption) << length << ": " << s.ToString();
  }
  EXPECT_EQ(read("ARROW1").subcode(), Subcode::kCorruption);
}

// ---- schemas our writer refuses to produce, built with the raw flatbuffers API ----
//
// Vtable slots (4 + 2 * field index) and union discriminants from src/arrow/internal/fbs/*.fbs.

struct RawType {
  uint8_t type_type;  // Schema.fbs `union Type` discriminant
  int32_t decimal_bits = 0;
  int32_t decimal_precision = 30;
};
constexpr uint8_t kTypeNull = 1, kTypeDecimal = 7, kTypeList = 12, kTypeRunEndEncoded = 22,
                  kTypeBinaryView = 23, kTypeUtf8View = 24, kTypeListView = 25,
                  kTypeLargeListView = 26;

flatbuffers::Offset<void> TypeTable(flatbuffers::FlatBufferBuilder& fbb, const RawType& t) {
  const auto start = fbb.StartTable();
  if (t.type_type == kTypeDecimal) {
    fbb.AddElement<int32_t>(4, t.decimal_precision, 0);
    fbb.AddElement<int32_t>(6, 2, 0);  // scale
    fbb.AddElement<int32_t>(8, t.decimal_bits, 128);
  }
  return flatbuffers::Offset<void>(fbb.EndTable(start));
}

// A field of `type` wrapped in `depth - 1` lists.
flatbuffers::Offset<void> RawField(flatbuffers::FlatBufferBuilder& fbb, const RawType& type,
                                   int depth) {
  std::vector<flatbuffers::Offset<void>> children;
  if (depth > 1) children.push_back(RawField(fbb, type, depth - 1));
  const RawType own = depth > 1 ? RawType{kTypeList} : type;
  const auto children_vec = fbb.CreateVector(children);
  const auto name = fbb.CreateString(depth > 1 ? "l" : "x");
  const auto type_table = TypeTable(fbb, own);
  const auto start = fbb.StartTable();
  fbb.AddOffset(4, name);
  fbb.AddElement<uint8_t>(6, 1, 0);  // nullable
  fbb.AddElement<uint8_t>(8, own.type_type, 0);
  fbb.AddOffset(10, type_table);
  fbb.AddOffset(14, children_vec);
  return flatbuffers::Offset<void>(fbb.EndTable(start));
}

// A stream holding only a Schema message with one such field.
std::string RawSchemaStream(const RawType& type, int depth = 1) {
  flatbuffers::FlatBufferBuilder fbb;
  const auto field = RawField(fbb, type, depth);
  const auto fields = fbb.CreateVector(std::vector<flatbuffers::Offset<void>>{field});
  auto start = fbb.StartTable();
  fbb.AddOffset(6, fields);
  const auto schema = flatbuffers::Offset<void>(fbb.EndTable(start));
  start = fbb.StartTable();
  fbb.AddElement<int64_t>(10, 0, 0);  // bodyLength
  fbb.AddOffset(8, schema);
  fbb.AddElement<int16_t>(4, 4, 0);  // MetadataVersion V5
  fbb.AddElement<uint8_t>(6, 1, 0);  // MessageHeader Schema
  fbb.Finish(flatbuffers::Offset<void>(fbb.EndTable(start)));
  const std::string message(reinterpret_cast<const char*>(fbb.GetBufferPointer()), fbb.GetSize());
  return arrow::EncapsulateIpcMessage(message) + std::string("\xff\xff\xff\xff\0\0\0\0", 8);
}

TEST(IpcHostileSchema, TypesQuiverLacksAreUnsupportedByName) {
  const std::pair<RawType, std::string> cases[] = {
      {RawType{kTypeDecimal, 256}, "decimal256(30, 2)"},
      {RawType{kTypeBinaryView}, "binary_view"},
      {RawType{kTypeUtf8View}, "utf8_view"},
      {RawType{kTypeListView}, "list_view"},
      {RawType{kTypeLargeListView}, "large_list_view"},
      {RawType{kTypeRunEndEncoded}, "run_end_encoded"},
      {RawType{77}, "newer than this reader"},
  };
  for (const auto& [type, name] : cases) {
    auto r = ReadStreamFromString(RawSchemaStream(type));
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << name << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find(name), std::string::npos) << r.status().ToString();
  }
  // The raw builder itself is sound: a decimal128 reads.
  auto ok = ReadStreamFromString(RawSchemaStream(RawType{kTypeDecimal, 128}));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->schema->fields[0].type, DataType::Decimal128(30, 2));
  // ... unless its precision does not fit 128 bits.
  auto wide = ReadStreamFromString(RawSchemaStream(RawType{kTypeDecimal, 128, 39}));
  EXPECT_EQ(wide.status().subcode(), Subcode::kCorruption) << wide.status().ToString();
}

TEST(IpcHostileSchema, NestingBeyond64LevelsIsCorruption) {
  auto ok = ReadStreamFromString(RawSchemaStream(RawType{kTypeNull}, 64));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  auto deep = ReadStreamFromString(RawSchemaStream(RawType{kTypeNull}, 65));
  EXPECT_EQ(deep.status().subcode(), Subcode::kCorruption) << deep.status().ToString();
  EXPECT_NE(deep.status().message().find("deeper than 64"), std::string::npos)
      << deep.status().ToString();
  // Far deeper than the verifier's depth bound: refused before any recursion.
  auto deeper = ReadStreamFromString(RawSchemaStream(RawType{kTypeNull}, 500));
  EXPECT_EQ(deeper.status().subcode(), Subcode::kCorruption) << deeper.status().ToString();
}

}  // namespace
}  // namespace quiver::arrow::ipc
