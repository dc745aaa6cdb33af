// Round trips through the Arrow IPC writers and readers (arrow/ipc/reader.h, writer.h): every
// type, 0/1/many rows, with and without nulls, sliced arrays, nested types, dictionaries
// (replacement, deltas, nested), stream and file, uncompressed/LZ4/ZSTD; plus the I/O
// variants (file descriptors, legacy framing) and the writer's refusals.
#include <fcntl.h>
#include <unistd.h>
#include <filesystem>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "arrow/compare.h"
#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"
#include "ipc_test_util.h"

namespace quiver::arrow::ipc {
namespace {

using testing::EveryTypeSchema;
using testing::Must;
using testing::RandomArrays;
using testing::SliceBatch;

struct Mode {
  bool file;
  Compression compression;
};

void PrintTo(const Mode& mode, std::ostream* os) {
  *os << (mode.file ? "file" : "stream") << "/" << CompressionName(mode.compression);
}

std::string ModeName(const ::testing::TestParamInfo<Mode>& info) {
  return std::string(info.param.file ? "File" : "Stream") + "_" +
         std::string(CompressionName(info.param.compression));
}

Result<std::string> Write(const Mode& mode, const std::shared_ptr<const Schema>& schema,
                          const std::vector<RecordBatch>& batches, WriteOptions options = {}) {
  options.compression = mode.compression;
  return mode.file ? WriteFileToString(schema, batches, options)
                   : WriteStreamToString(schema, batches, options);
}

Result<IpcContents> Read(const Mode& mode, std::string bytes, const ReadOptions& options = {}) {
  return mode.file ? ReadFileFromString(std::move(bytes), options)
                   : ReadStreamFromString(std::move(bytes), options);
}

void ExpectSame(const std::shared_ptr<const Schema>& schema, const std::vector<RecordBatch>& want,
                const IpcContents& got) {
  ASSERT_NE(got.schema, nullptr);
  EXPECT_EQ(*got.schema, *schema) << "read:\n"
                                  << got.schema->ToString() << "\nwritten:\n"
                                  << schema->ToString();
  ASSERT_EQ(got.batches.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_TRUE(got.batches[i].Validate(true).ok());
    auto diff = Diff(want[i], got.batches[i]);
    EXPECT_FALSE(diff.has_value()) << "batch " << i << ": " << *diff;
  }
}

void RoundTrip(const Mode& mode, const std::shared_ptr<const Schema>& schema,
               const std::vector<RecordBatch>& batches, const WriteOptions& options = {}) {
  auto bytes = Write(mode, schema, batches, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  if (!mode.file) {
    EXPECT_EQ(bytes->size() % 8, 0u);
  }
  auto back = Read(mode, *bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(schema, batches, *back);
}

class IpcRoundTrip : public ::testing::TestWithParam<Mode> {};

INSTANTIATE_TEST_SUITE_P(
    Modes, IpcRoundTrip,
    ::testing::Values(Mode{false, Compression::kNone}, Mode{false, Compression::kLz4Frame},
                      Mode{false, Compression::kZstd}, Mode{true, Compression::kNone},
                      Mode{true, Compression::kLz4Frame}, Mode{true, Compression::kZstd}),
    ModeName);

TEST_P(IpcRoundTrip, EveryTypeZeroOneAndManyRows) {
  const auto schema = EveryTypeSchema();
  RandomArrays gen(1);
  gen.set_share_dictionaries(GetParam().file);
  RoundTrip(GetParam(), schema,
            {gen.MakeBatch(schema, 0), gen.MakeBatch(schema, 1), gen.MakeBatch(schema, 257)});
}

TEST_P(IpcRoundTrip, EveryTypeWithoutNulls) {
  const auto schema = EveryTypeSchema();
  RandomArrays gen(2, /*null_probability=*/0);
  gen.set_share_dictionaries(GetParam().file);
  RoundTrip(GetParam(), schema, {gen.MakeBatch(schema, 100), gen.MakeBatch(schema, 3)});
}

TEST_P(IpcRoundTrip, AllNulls) {
  const auto schema = EveryTypeSchema();
  RandomArrays gen(3, /*null_probability=*/1);
  gen.set_share_dictionaries(GetParam().file);
  RoundTrip(GetParam(), schema, {gen.MakeBatch(schema, 20)});
}

TEST_P(IpcRoundTrip, SlicedArrays) {
  const auto schema = EveryTypeSchema();
  RandomArrays gen(4);
  gen.set_share_dictionaries(GetParam().file);
  const RecordBatch whole = gen.MakeBatch(schema, 300);
  // Offsets at and off byte boundaries (bitmaps shift), and slices of one and zero rows.
  RoundTrip(GetParam(), schema,
            {SliceBatch(whole, 3, 250), SliceBatch(whole, 8, 17), SliceBatch(whole, 299, 1),
             SliceBatch(whole, 13, 0), SliceBatch(whole, 0, 300)});
}

TEST_P(IpcRoundTrip, EachTypeAlone) {
  // One column at a time, so that a failure names its type.
  const auto every = EveryTypeSchema();
  for (const Field& field : every->fields) {
    SCOPED_TRACE(field.ToString());
    auto schema = std::make_shared<Schema>();
    schema->fields = {field};
    RandomArrays gen(5);
    gen.set_share_dictionaries(GetParam().file);
    const RecordBatch batch = gen.MakeBatch(schema, 40);
    RoundTrip(GetParam(), schema, {batch, SliceBatch(batch, 5, 30)});
  }
}

TEST_P(IpcRoundTrip, SchemaWithoutFieldsAndBatchesWithoutColumns) {
  auto schema = std::make_shared<Schema>();
  RecordBatch batch;
  batch.schema = schema;
  batch.length = 7;
  RoundTrip(GetParam(), schema, {batch});
  RoundTrip(GetParam(), schema, {});
}

TEST_P(IpcRoundTrip, DictionaryDeltas) {
  auto schema = std::make_shared<Schema>();
  const DataType type = DataType::Dictionary(TypeId::kInt32, DataType::Utf8());
  schema->fields = {Field("d", type)};
  auto small = Must(MakeBinaryArray(DataType::Utf8(), {"a", "b"}));
  auto grown = Must(MakeBinaryArray(DataType::Utf8(), {"a", "b", "c", "d"}));
  auto batch = [&](ArrayPtr dictionary, std::vector<int32_t> indices) {
    RecordBatch b;
    b.schema = schema;
    b.length = static_cast<int64_t>(indices.size());
    b.columns = {Must(MakeDictionaryArray(type, Must(MakeFixedArray(DataType::Int32(), indices)),
                                          std::move(dictionary)))};
    return b;
  };
  WriteOptions options;
  options.emit_dictionary_deltas = true;
  const std::vector<RecordBatch> batches = {batch(small, {0, 1, 1}), batch(grown, {3, 2, 0})};
  RoundTrip(GetParam(), schema, batches, options);
  // Without deltas, a stream replaces the dictionary and a file refuses the change.
  auto bytes = Write(GetParam(), schema, batches);
  if (GetParam().file) {
    EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidInput) << bytes.status().ToString();
  } else {
    ASSERT_TRUE(bytes.ok());
    auto back = Read(GetParam(), *bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSame(schema, batches, *back);
  }
}

// ---- dictionaries ----

std::shared_ptr<const Schema> DictSchema(const DataType& type) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("d", type)};
  return schema;
}

RecordBatch DictBatch(const std::shared_ptr<const Schema>& schema, ArrayPtr dictionary,
                      const std::vector<int32_t>& indices) {
  RecordBatch b;
  b.schema = schema;
  b.length = static_cast<int64_t>(indices.size());
  b.columns = {Must(MakeDictionaryArray(schema->fields[0].type,
                                        Must(MakeFixedArray(DataType::Int32(), indices)),
                                        std::move(dictionary)))};
  return b;
}

TEST(IpcDictionaries, StreamReplacesDictionaries) {
  const auto schema = DictSchema(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()));
  const std::vector<RecordBatch> batches = {
      DictBatch(schema, Must(MakeBinaryArray(DataType::Utf8(), {"x", "y"})), {1, 0}),
      DictBatch(schema, Must(MakeBinaryArray(DataType::Utf8(), {"p", "q", "r"})), {2, 2, 0}),
      DictBatch(schema, Must(MakeBinaryArray(DataType::Utf8(), {"x", "y"})), {0})};
  auto bytes = WriteStreamToString(schema, batches);
  ASSERT_TRUE(bytes.ok());
  auto back = ReadStreamFromString(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(schema, batches, *back);
  // The second batch's dictionary is not the first one's.
  EXPECT_NE(back->batches[0].columns[0]->dictionary, back->batches[1].columns[0]->dictionary);
}

TEST(IpcDictionaries, UnchangedDictionaryIsWrittenOnce) {
  const auto schema = DictSchema(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()));
  auto dict = Must(MakeBinaryArray(DataType::Utf8(), {"x", "y"}));
  auto equal_copy = Must(MakeBinaryArray(DataType::Utf8(), {"x", "y"}));
  auto other = Must(MakeBinaryArray(DataType::Utf8(), {"x", "z"}));
  auto same =
      WriteStreamToString(schema, {DictBatch(schema, dict, {0}), DictBatch(schema, dict, {1})});
  auto equal = WriteStreamToString(
      schema, {DictBatch(schema, dict, {0}), DictBatch(schema, equal_copy, {1})});
  auto changed =
      WriteStreamToString(schema, {DictBatch(schema, dict, {0}), DictBatch(schema, other, {1})});
  ASSERT_TRUE(same.ok() && equal.ok() && changed.ok());
  EXPECT_EQ(same->size(), equal->size());
  EXPECT_GT(changed->size(), same->size());
}

TEST(IpcDictionaries, FileRejectsReplacement) {
  const auto schema = DictSchema(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()));
  auto r = WriteFileToString(
      schema, {DictBatch(schema, Must(MakeBinaryArray(DataType::Utf8(), {"a"})), {0}),
               DictBatch(schema, Must(MakeBinaryArray(DataType::Utf8(), {"b"})), {0})});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(r.status().message().find("dictionary 0 changes at batch 1"), std::string::npos)
      << r.status().ToString();
}

TEST(IpcDictionaries, SchemaWithDictionaryButNoBatches) {
  const auto schema = DictSchema(DataType::Dictionary(TypeId::kInt32, DataType::Utf8()));
  for (bool file : {false, true}) {
    Mode mode{file, Compression::kNone};
    RoundTrip(mode, schema, {});
  }
}

// ---- compression ----

TEST(IpcCompression, CompressibleBodiesShrink) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("zeros", DataType::Int64()), Field("s", DataType::Utf8())};
  RecordBatch batch;
  batch.schema = schema;
  batch.length = 10000;
  batch.columns = {Must(MakeFixedArray(DataType::Int64(), std::vector<int64_t>(10000, 0))),
                   Must(MakeBinaryArray(DataType::Utf8(), std::vector<std::string>(10000, "abc")))};
  size_t sizes[3];
  int i = 0;
  for (Compression c : {Compression::kNone, Compression::kLz4Frame, Compression::kZstd}) {
    WriteOptions options;
    options.compression = c;
    auto bytes = WriteStreamToString(schema, {batch}, options);
    ASSERT_TRUE(bytes.ok());
    sizes[i++] = bytes->size();
    auto back = ReadStreamFromString(*bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSame(schema, {batch}, *back);
  }
  EXPECT_LT(sizes[1] * 3, sizes[0]);
  EXPECT_LT(sizes[2] * 5, sizes[0]);
}

TEST(IpcCompression, IncompressibleBuffersAreStoredRaw) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("b", DataType::FixedSizeBinary(64), false)};
  RandomArrays gen(6);
  const RecordBatch batch = gen.MakeBatch(schema, 100);
  auto plain = WriteStreamToString(schema, {batch});
  WriteOptions options;
  options.compression = Compression::kZstd;
  auto zstd = WriteStreamToString(schema, {batch}, options);
  ASSERT_TRUE(plain.ok() && zstd.ok());
  // Random bytes do not compress: the values buffer is stored raw behind its -1 prefix.
  EXPECT_LE(zstd->size(), plain->size() + 64);
  auto back = ReadStreamFromString(*zstd);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(schema, {batch}, *back);
}

TEST(IpcCompression, DecompressionLimitIsEnforced) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("zeros", DataType::Int64())};
  RecordBatch batch;
  batch.schema = schema;
  batch.length = 100000;
  batch.columns = {Must(MakeFixedArray(DataType::Int64(), std::vector<int64_t>(100000, 0)))};
  for (Compression c : {Compression::kLz4Frame, Compression::kZstd}) {
    WriteOptions options;
    options.compression = c;
    auto bytes = WriteStreamToString(schema, {batch}, options);
    ASSERT_TRUE(bytes.ok());
    ReadOptions limited;
    limited.max_decompressed_bytes = 100000 * 8 - 1;
    auto r = ReadStreamFromString(*bytes, limited);
    EXPECT_EQ(r.status().subcode(), Subcode::kCorruption) << r.status().ToString();
    EXPECT_NE(r.status().message().find("decompression limit"), std::string::npos);
    limited.max_decompressed_bytes = 100000 * 8;
    EXPECT_TRUE(ReadStreamFromString(*bytes, limited).ok());
  }
}

// ---- inputs, outputs and framing ----

TEST(IpcIo, ReadsThroughFileDescriptors) {
  const auto schema = EveryTypeSchema();
  RandomArrays gen(7);
  gen.set_share_dictionaries(true);
  const std::vector<RecordBatch> batches = {gen.MakeBatch(schema, 50), gen.MakeBatch(schema, 9)};
  std::string path = (std::filesystem::temp_directory_path() / "quiver_ipc_XXXXXX").string();
  const int fd = ::mkstemp(path.data());
  ASSERT_GE(fd, 0);
  ::unlink(path.c_str());
  for (bool file : {false, true}) {
    ASSERT_EQ(::ftruncate(fd, 0), 0);
    ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
    FdSink sink(fd);
    if (file) {
      auto writer = Must(FileWriter::Open(&sink, schema));
      for (const auto& b : batches) ASSERT_TRUE(writer->Write(b).ok());
      ASSERT_TRUE(writer->Finish().ok());
      auto source = Must(FdSource::Open(fd));
      auto reader = FileReader::Open(std::shared_ptr<const RandomAccessSource>(std::move(source)));
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      ASSERT_EQ((*reader)->num_batches(), 2);
      IpcContents got{(*reader)->schema(), {}};
      for (int i = 0; i < 2; ++i) got.batches.push_back(Must((*reader)->ReadBatch(i)));
      ExpectSame(schema, batches, got);
    } else {
      auto writer = Must(StreamWriter::Open(&sink, schema));
      for (const auto& b : batches) ASSERT_TRUE(writer->Write(b).ok());
      ASSERT_TRUE(writer->Finish().ok());
      ASSERT_EQ(::lseek(fd, 0, SEEK_SET), 0);
      auto reader = StreamReader::Open(std::make_unique<FdInputStream>(fd));
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      IpcContents got{(*reader)->schema(), {}};
      for (;;) {
        auto next = Must((*reader)->Next());
        if (!next.has_value()) break;
        got.batches.push_back(std::move(*next));
      }
      ExpectSame(schema, batches, got);
    }
  }
  ::close(fd);
}

TEST(IpcIo, ReadsPre015FramingWithoutContinuationMarkers) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("x", DataType::Int32()), Field("s", DataType::Utf8())};
  RandomArrays gen(8);
  const RecordBatch batch = gen.MakeBatch(schema, 10);
  const std::string schema_only = Must(WriteStreamToString(schema, {}));
  const std::string full = Must(WriteStreamToString(schema, {batch}));
  // schema message | batch message | end-of-stream: drop each 0xFFFFFFFF marker.
  const size_t schema_end = schema_only.size() - 8;
  ASSERT_EQ(full.substr(0, schema_end), schema_only.substr(0, schema_end));
  ASSERT_EQ(full.substr(schema_end, 4), std::string(4, '\xff'));
  const std::string legacy = full.substr(4, schema_end - 4) +
                             full.substr(schema_end + 4, full.size() - 8 - schema_end - 4) +
                             std::string(4, '\0');
  auto back = ReadStreamFromString(legacy);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(schema, {batch}, *back);
}

TEST(IpcIo, MissingEndOfStreamIsCorruptionUnlessAllowed) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("x", DataType::Int32())};
  RandomArrays gen(9);
  const RecordBatch batch = gen.MakeBatch(schema, 10);
  std::string bytes = Must(WriteStreamToString(schema, {batch}));
  bytes.resize(bytes.size() - 8);
  auto r = ReadStreamFromString(bytes);
  EXPECT_EQ(r.status().subcode(), Subcode::kCorruption);
  EXPECT_NE(r.status().message().find("without an end-of-stream marker"), std::string::npos)
      << r.status().ToString();
  ReadOptions lenient;
  lenient.allow_missing_end_of_stream = true;
  auto ok = ReadStreamFromString(bytes, lenient);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ExpectSame(schema, {batch}, *ok);
}

TEST(IpcIo, InMemoryReadsAreZeroCopy) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("x", DataType::Int64()), Field("s", DataType::Utf8())};
  RandomArrays gen(10);
  const RecordBatch batch = gen.MakeBatch(schema, 1000);
  for (bool file : {false, true}) {
    Mode mode{file, Compression::kNone};
    auto input = Must(Buffer::CopyOf(Must(Write(mode, schema, {batch}))));  // 64-byte aligned
    auto got = file ? ReadFile(input) : ReadStream(input);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (const ArrayPtr& column : got->batches[0].columns) {
      for (const auto& buffer : column->buffers) {
        if (buffer == nullptr || buffer->size() == 0) continue;
        EXPECT_GE(buffer->data(), input->data());
        EXPECT_LE(buffer->data() + buffer->size(), input->data() + input->size());
      }
    }
  }
}

TEST(IpcIo, UnalignedInputIsCopiedNotMisread) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("x", DataType::Int64()), Field("d", DataType::Float64())};
  RandomArrays gen(11);
  const RecordBatch batch = gen.MakeBatch(schema, 100);
  for (bool file : {false, true}) {
    Mode mode{file, Compression::kNone};
    const std::string bytes = Must(Write(mode, schema, {batch}));
    auto shifted = Must(Buffer::CopyOf("x" + bytes));
    auto input = Buffer::Slice(shifted, 1, bytes.size());  // odd address
    auto got = file ? ReadFile(input) : ReadStream(input);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectSame(schema, {batch}, *got);
  }
}

TEST(IpcFile, ConcurrentReadsAndBatchStream) {
  const auto schema = EveryTypeSchema();
  RandomArrays gen(12);
  gen.set_share_dictionaries(true);
  std::vector<RecordBatch> batches;
  for (int i = 0; i < 8; ++i) batches.push_back(gen.MakeBatch(schema, 20 + i));
  auto bytes = Must(WriteFileToString(schema, batches));
  std::shared_ptr<const FileReader> reader = Must(FileReader::Open(Buffer::FromString(bytes)));
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        for (int i = 0; i < reader->num_batches(); ++i) {
          auto b = reader->ReadBatch((i + t) % reader->num_batches());
          if (!b.ok() || Diff(*b, batches[(i + t) % batches.size()]).has_value()) ++failures[t];
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  auto stream = FileReader::Batches(reader);
  IpcContents got{stream->schema(), {}};
  for (;;) {
    auto next = Must(stream->Next());
    if (!next.has_value()) break;
    got.batches.push_back(std::move(*next));
  }
  ExpectSame(schema, batches, got);
  EXPECT_EQ(reader->ReadBatch(8).status().code(), StatusCode::kInvalidInput);
}

// ---- writer refusals ----

TEST(IpcWriter, RefusesBatchesThatDoNotMatchTheSchema) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("x", DataType::Int32())};
  auto other = std::make_shared<Schema>();
  other->fields = {Field("x", DataType::Int64())};
  RandomArrays gen(13);
  std::string out;
  StringSink sink(&out);
  auto writer = Must(StreamWriter::Open(&sink, schema));
  EXPECT_EQ(writer->Write(gen.MakeBatch(other, 3)).code(), StatusCode::kInvalidInput);
  RecordBatch short_batch = gen.MakeBatch(schema, 3);
  short_batch.length = 4;
  EXPECT_EQ(writer->Write(short_batch).code(), StatusCode::kInvalidInput);
  EXPECT_TRUE(writer->Write(gen.MakeBatch(schema, 3)).ok());
  EXPECT_TRUE(writer->Finish().ok());
  EXPECT_EQ(writer->Write(gen.MakeBatch(schema, 3)).code(), StatusCode::kInvalidInput);
  EXPECT_EQ(writer->Finish().code(), StatusCode::kInvalidInput);
}

TEST(IpcWriter, RefusesSchemasDeeperThan64Levels) {
  DataType type = DataType::Int32();
  for (int i = 0; i < 64; ++i) type = DataType::List(Field("item", type));
  auto schema = std::make_shared<Schema>();
  schema->fields = {Field("deep", type)};
  std::string out;
  StringSink sink(&out);
  EXPECT_EQ(StreamWriter::Open(&sink, schema).status().code(), StatusCode::kInvalidInput);
  // 64 levels (63 lists around the int) are fine: one row of one-item lists.
  type = DataType::Int32();
  ArrayPtr array = Must(MakeFixedArray(type, std::vector<int32_t>{42}));
  for (int i = 0; i < 63; ++i) {
    type = DataType::List(Field("item", type));
    array = Must(MakeListArray(type, {0, 1}, array));
  }
  schema->fields = {Field("deep", type)};
  RecordBatch batch;
  batch.schema = schema;
  batch.length = 1;
  batch.columns = {array};
  RoundTrip(Mode{false, Compression::kNone}, schema, {batch});
}

TEST(IpcWriter, RefusesDictionariesOfDictionaries) {
  auto schema = std::make_shared<Schema>();
  schema->fields = {
      Field("dd", DataType::Dictionary(TypeId::kInt32,
                                       DataType::Dictionary(TypeId::kInt32, DataType::Utf8())))};
  std::string out;
  StringSink sink(&out);
  EXPECT_EQ(StreamWriter::Open(&sink, schema).status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace quiver::arrow::ipc
