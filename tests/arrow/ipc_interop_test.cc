// Arrow IPC interop with apache-arrow 18.1 (JS): tests/interop/check_ipc.mjs ("write") writes a
// stream, a file and a dictionary stream with every type JS can produce plus expected.json; this
// test reads them, checks schemas and every value against expected.json, and writes them back
// as quiver.arrows / quiver.arrow / quiver_dict.arrows, which check_ipc.mjs ("read") then reads
// with apache-arrow. CTest runs the three steps in order as fixtures (tests/arrow/CMakeLists.txt);
// without QUIVER_ARROW_JS_IPC_DIR (no node, or run outside that chain) the test skips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "arrow/compare.h"
#include "arrow/ipc/reader.h"
#include "arrow/ipc/writer.h"

namespace quiver::arrow::ipc {
namespace {

using nlohmann::json;

std::string ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string Hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

template <typename F>
json CanonFloat(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0 && std::signbit(v)) return "-0";
  return static_cast<double>(v);
}

// Row i of `a` in check_ipc.mjs's canonical form.
json Canon(const ArrayData& a, int64_t i) {
  if (IsNull(a, i)) return nullptr;
  switch (a.type.id()) {
    case TypeId::kNull:
      return nullptr;
    case TypeId::kBool:
      return BoolValue(a, i);
    case TypeId::kInt8:
      return Values<int8_t>(a)[i];
    case TypeId::kInt16:
      return Values<int16_t>(a)[i];
    case TypeId::kInt32:
    case TypeId::kDate32:
      return Values<int32_t>(a)[i];
    case TypeId::kUInt8:
      return Values<uint8_t>(a)[i];
    case TypeId::kUInt16:
    case TypeId::kFloat16:  // the bit pattern
      return Values<uint16_t>(a)[i];
    case TypeId::kUInt32:
      return Values<uint32_t>(a)[i];
    case TypeId::kInt64:
    case TypeId::kDate64:
    case TypeId::kTimestamp:
      return std::to_string(Values<int64_t>(a)[i]);
    case TypeId::kUInt64:
      return std::to_string(Values<uint64_t>(a)[i]);
    case TypeId::kFloat32:
      return CanonFloat(Values<float>(a)[i]);
    case TypeId::kFloat64:
      return CanonFloat(Values<double>(a)[i]);
    case TypeId::kUtf8:
    case TypeId::kLargeUtf8:
      return std::string(BinaryValue(a, i));
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return Hex(BinaryValue(a, i));
    case TypeId::kFixedSizeBinary:
    case TypeId::kDecimal128:
      return Hex(FixedValue(a, i));
    case TypeId::kList:
    case TypeId::kLargeList:
    case TypeId::kMap:
    case TypeId::kFixedSizeList: {
      json out = json::array();
      auto [begin, end] = ListRange(a, i);
      for (int64_t k = begin; k < end; ++k) out.push_back(Canon(*a.children[0], k));
      return out;
    }
    case TypeId::kStruct: {
      json out = json::object();
      for (size_t k = 0; k < a.children.size(); ++k) {
        out[a.type.children()[k].name] = Canon(*a.children[k], a.offset + i);
      }
      return out;
    }
    case TypeId::kDictionary:
      return Canon(*a.dictionary, DictionaryIndex(a, i));
  }
  return "?";
}

void CheckContents(const std::string& file, const IpcContents& got, const json& want,
                   const json& types) {
  SCOPED_TRACE(file);
  const json& fields = want["schema"];
  ASSERT_EQ(got.schema->fields.size(), fields.size());
  for (size_t k = 0; k < fields.size(); ++k) {
    const Field& f = got.schema->fields[k];
    EXPECT_EQ(f.name, fields[k]["name"].get<std::string>());
    EXPECT_EQ(f.nullable, fields[k]["nullable"].get<bool>()) << f.name;
    ASSERT_TRUE(types.contains(f.name)) << f.name;
    EXPECT_EQ(f.type.ToString(), types[f.name].get<std::string>()) << f.name;
  }
  Metadata metadata;
  for (const auto& [key, value] : want["metadata"].items()) {
    metadata.emplace_back(key, value.get<std::string>());
  }
  // (json objects sort their keys: compare as sorted lists)
  Metadata got_metadata = got.schema->metadata;
  std::sort(got_metadata.begin(), got_metadata.end());
  EXPECT_EQ(got_metadata, metadata);
  ASSERT_EQ(got.batches.size(), want["batches"].size());
  for (size_t b = 0; b < got.batches.size(); ++b) {
    const RecordBatch& batch = got.batches[b];
    const json& wb = want["batches"][b];
    ASSERT_EQ(batch.length, wb["length"].get<int64_t>());
    for (size_t k = 0; k < batch.columns.size(); ++k) {
      const std::string& name = got.schema->fields[k].name;
      const json& values = wb["columns"][name];
      ASSERT_EQ(static_cast<int64_t>(values.size()), batch.length) << name;
      for (int64_t i = 0; i < batch.length; ++i) {
        const json value = Canon(*batch.columns[k], i);
        EXPECT_EQ(value, values[i])
            << "batch " << b << " column " << name << " row " << i << ": quiver " << value.dump()
            << ", apache-arrow " << values[i].dump();
      }
    }
  }
}

TEST(IpcInterop, ReadsApacheArrowJsAndWritesBack) {
  const char* env = std::getenv("QUIVER_ARROW_JS_IPC_DIR");
  if (env == nullptr || *env == '\0') {
    GTEST_SKIP() << "QUIVER_ARROW_JS_IPC_DIR is not set (CTest sets it after check_ipc.mjs write)";
  }
  const std::filesystem::path dir(env);
  if (!std::filesystem::exists(dir / "expected.json")) {
    GTEST_SKIP() << dir << "/expected.json is absent (needs node + tests/interop `npm ci`)";
  }
  const json expected = json::parse(ReadBytes(dir / "expected.json"));
  struct Case {
    std::string input, output;
    bool file;
  };
  for (const Case& c :
       {Case{"js.arrows", "quiver.arrows", false}, Case{"js.arrow", "quiver.arrow", true},
        Case{"js_dict.arrows", "quiver_dict.arrows", false}}) {
    auto got = c.file ? ReadFileFromString(ReadBytes(dir / c.input))
                      : ReadStreamFromString(ReadBytes(dir / c.input));
    ASSERT_TRUE(got.ok()) << c.input << ": " << got.status().ToString();
    CheckContents(c.input, *got, expected["files"][c.input], expected["types"]);

    // Written back uncompressed in the same format; the dictionary stream keeps its delta.
    WriteOptions options;
    options.emit_dictionary_deltas = true;
    auto bytes = c.file ? WriteFileToString(got->schema, got->batches, options)
                        : WriteStreamToString(got->schema, got->batches, options);
    ASSERT_TRUE(bytes.ok()) << c.output << ": " << bytes.status().ToString();
    std::ofstream(dir / c.output, std::ios::binary) << *bytes;
    auto again = c.file ? ReadFileFromString(*bytes) : ReadStreamFromString(*bytes);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    ASSERT_EQ(again->batches.size(), got->batches.size());
    for (size_t b = 0; b < got->batches.size(); ++b) {
      auto diff = Diff(got->batches[b], again->batches[b]);
      EXPECT_FALSE(diff.has_value()) << c.output << " batch " << b << ": " << *diff;
    }
  }
  for (const auto& [file, type_name] : expected["unsupported"].items()) {
    auto r = ReadStreamFromString(ReadBytes(dir / file));
    EXPECT_EQ(r.status().code(), StatusCode::kUnsupported) << file << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find(type_name.get<std::string>()), std::string::npos)
        << r.status().ToString();
  }
}

}  // namespace
}  // namespace quiver::arrow::ipc
