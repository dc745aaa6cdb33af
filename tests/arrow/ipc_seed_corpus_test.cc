// Writes the seed corpus of fuzz/ipc_fuzzer.cc (fuzz/corpus/ipc/): small streams and files
// covering every type, each compression, dictionary replacement and deltas, and the legacy
// framing. Runs only when QUIVER_IPC_SEED_DIR names the output directory:
//   QUIVER_IPC_SEED_DIR=fuzz/corpus/ipc build/tests/arrow/arrow_test --gtest_filter=IpcSeeds.*
// (the apache-arrow JS seeds there come from tests/interop/check_ipc.mjs write).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"
#include "ipc_test_util.h"

namespace quiver::arrow::ipc {
namespace {

using testing::EveryTypeSchema;
using testing::Must;
using testing::RandomArrays;
using testing::SliceBatch;

TEST(IpcSeeds, WriteFuzzCorpus) {
  const char* env = std::getenv("QUIVER_IPC_SEED_DIR");
  if (env == nullptr || *env == '\0') GTEST_SKIP() << "QUIVER_IPC_SEED_DIR is not set";
  const std::filesystem::path dir(env);
  std::filesystem::create_directories(dir);
  auto save = [&](const std::string& name, const std::string& bytes) {
    EXPECT_LT(bytes.size(), 16u << 10) << name;
    std::ofstream(dir / name, std::ios::binary) << bytes;
  };

  // Every type (in two halves, to keep seeds small), a few rows with nulls and a slice; stream
  // and file, each compression.
  const auto every = EveryTypeSchema();
  const size_t half = every->fields.size() / 2;
  for (int part = 0; part < 2; ++part) {
    auto schema = std::make_shared<Schema>();
    schema->fields.assign(every->fields.begin() + (part == 0 ? 0 : half),
                          part == 0 ? every->fields.begin() + half : every->fields.end());
    schema->metadata = every->metadata;
    RandomArrays gen(31, 0.3);
    gen.set_share_dictionaries(true);
    const RecordBatch whole = gen.MakeBatch(schema, 4);
    const std::vector<RecordBatch> batches = {SliceBatch(whole, 1, 3), gen.MakeBatch(schema, 1)};
    for (Compression c : {Compression::kNone, Compression::kLz4Frame, Compression::kZstd}) {
      WriteOptions options;
      options.compression = c;
      const std::string name =
          "every_type_" + std::string(part == 0 ? "a_" : "b_") + std::string(CompressionName(c));
      save(name + ".arrows", Must(WriteStreamToString(schema, batches, options)));
      save(name + ".arrow", Must(WriteFileToString(schema, batches, options)));
    }
  }

  // One small column per kind of layout, so that mutations stay near one decoder.
  for (const Field& field : every->fields) {
    auto schema = std::make_shared<Schema>();
    schema->fields = {field};
    RandomArrays one(32, 0.4);
    WriteOptions options;
    options.compression = field.name.size() % 2 ? Compression::kZstd : Compression::kNone;
    save("column_" + field.name + ".arrows",
         Must(WriteStreamToString(schema, {one.MakeBatch(schema, 3)}, options)));
  }

  // Dictionaries: replaced, then grown by a delta (stream); grown by a delta (file).
  auto schema = std::make_shared<Schema>();
  const DataType dict_type = DataType::Dictionary(TypeId::kInt16, DataType::Utf8());
  schema->fields = {Field("d", dict_type)};
  auto batch = [&](std::vector<std::string> values, std::vector<int16_t> indices) {
    RecordBatch b;
    b.schema = schema;
    b.length = static_cast<int64_t>(indices.size());
    b.columns = {
        Must(MakeDictionaryArray(dict_type, Must(MakeFixedArray(DataType::Int16(), indices)),
                                 Must(MakeBinaryArray(DataType::Utf8(), values))))};
    return b;
  };
  WriteOptions deltas;
  deltas.emit_dictionary_deltas = true;
  save("dictionaries.arrows",
       Must(WriteStreamToString(
           schema,
           {batch({"a", "b"}, {0, 1}), batch({"c"}, {0, 0}), batch({"c", "d", "e"}, {2, 1, 0})},
           deltas)));
  save("dictionary_delta.arrow",
       Must(WriteFileToString(schema, {batch({"a"}, {0}), batch({"a", "b"}, {1, 0})}, deltas)));

  // Legacy framing (no continuation markers): schema, one batch, a 4-byte end marker.
  auto plain = std::make_shared<Schema>();
  plain->fields = {Field("x", DataType::Int32()), Field("s", DataType::Utf8())};
  RandomArrays small(33);
  const std::string schema_only = Must(WriteStreamToString(plain, {}));
  const std::string full = Must(WriteStreamToString(plain, {small.MakeBatch(plain, 4)}));
  const size_t schema_end = schema_only.size() - 8;
  save("legacy_framing.arrows", full.substr(4, schema_end - 4) +
                                    full.substr(schema_end + 4, full.size() - 8 - schema_end - 4) +
                                    std::string(4, '\0'));
  // Every seed reads back.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const bool file = entry.path().extension() == ".arrow";
    auto r = file ? ReadFileFromString(bytes) : ReadStreamFromString(bytes);
    if (entry.path().filename().string().rfind("unsupported_", 0) == 0) continue;
    EXPECT_TRUE(r.ok()) << entry.path() << ": " << r.status().ToString();
  }
}

}  // namespace
}  // namespace quiver::arrow::ipc
