// Tests for arrow/ipc_message.h: round trips, hostile bytes, and a stream written by
// apache-arrow (JS) through tests/interop/make_arrow_stream.mjs.
#include "arrow/ipc_message.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>

namespace quiver::arrow {
namespace {

IpcField Leaf(std::string name, std::string type, bool nullable) {
  return IpcField{std::move(name), nullable, std::move(type), {}};
}

IpcSchemaSummary SampleSchema() {
  IpcSchemaSummary s;
  s.fields = {
      Leaf("i32", "int32", false),
      Leaf("i64", "int64", true),
      Leaf("f32", "float32", true),
      Leaf("f64", "float64", false),
      Leaf("s", "utf8", true),
      Leaf("b", "bool", false),
      Leaf("raw", "binary", true),
      Leaf("u8", "uint8", false),
      Leaf("ls", "large_utf8", true),
      IpcField{"ints", true, "list", {Leaf("item", "int32", true)}},
      IpcField{"rec",
               false,
               "struct",
               {Leaf("a", "int32", false),
                IpcField{"inner", true, "struct", {Leaf("x", "float64", true)}}}},
  };
  return s;
}

TEST(IpcMessage, RoundTripsASchema) {
  const IpcSchemaSummary schema = SampleSchema();
  auto bytes = WriteIpcSchemaMessage(schema);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = ReadIpcSchemaMessage(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, schema);
}

TEST(IpcMessage, RoundTripsEmptyAndBigEndianSchemas) {
  IpcSchemaSummary empty;
  auto bytes = WriteIpcSchemaMessage(empty);
  ASSERT_TRUE(bytes.ok());
  auto back = ReadIpcSchemaMessage(*bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, empty);

  IpcSchemaSummary big;
  big.big_endian = true;
  big.fields = {Leaf("x", "int32", true)};
  bytes = WriteIpcSchemaMessage(big);
  ASSERT_TRUE(bytes.ok());
  back = ReadIpcSchemaMessage(*bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, big);
}

TEST(IpcMessage, RoundTripsThroughFramingAtAnUnalignedAddress) {
  auto bytes = WriteIpcSchemaMessage(SampleSchema());
  ASSERT_TRUE(bytes.ok());
  const std::string framed = EncapsulateIpcMessage(*bytes);
  EXPECT_EQ(framed.size() % 8, 0u);
  // Shift by one byte so the flatbuffer is not 8-aligned in memory.
  const std::string shifted = "x" + framed;
  auto meta = FirstIpcMessageMetadata(std::string_view(shifted).substr(1));
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  auto back = ReadIpcSchemaMessage(*meta);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, SampleSchema());
}

TEST(IpcMessage, WriterRejectsWhatItCannotWrite) {
  IpcSchemaSummary s;
  s.fields = {Leaf("t", "timestamp[us]", true)};
  EXPECT_EQ(WriteIpcSchemaMessage(s).status().code(), StatusCode::kInvalidInput);
  s.fields = {IpcField{"l", true, "list", {}}};
  EXPECT_EQ(WriteIpcSchemaMessage(s).status().code(), StatusCode::kInvalidInput);
  s.fields = {IpcField{"i", true, "int32", {Leaf("c", "int32", true)}}};
  EXPECT_EQ(WriteIpcSchemaMessage(s).status().code(), StatusCode::kInvalidInput);
}

TEST(IpcMessage, GarbageIsCorruption) {
  EXPECT_EQ(ReadIpcSchemaMessage("").status().subcode(), Subcode::kCorruption);
  EXPECT_EQ(ReadIpcSchemaMessage("not a flatbuffer").status().subcode(), Subcode::kCorruption);
  EXPECT_EQ(ReadIpcSchemaMessage(std::string(64, '\xff')).status().subcode(), Subcode::kCorruption);
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 256, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    auto r = ReadIpcSchemaMessage(junk);  // must not crash; random bytes never verify
    EXPECT_FALSE(r.ok());
  }
}

TEST(IpcMessage, TruncatedAndBitFlippedMessagesNeverCrash) {
  auto bytes = WriteIpcSchemaMessage(SampleSchema());
  ASSERT_TRUE(bytes.ok());
  for (size_t n = 0; n < bytes->size(); ++n) {
    auto r = ReadIpcSchemaMessage(std::string_view(*bytes).substr(0, n));
    EXPECT_EQ(r.status().subcode(), Subcode::kCorruption) << "prefix of " << n << " bytes";
  }
  // Every single-byte corruption either still verifies (then it parses to something or is
  // Unsupported/Corruption) or is rejected; none may crash.
  for (size_t i = 0; i < bytes->size(); ++i) {
    std::string copy = *bytes;
    copy[i] = static_cast<char>(copy[i] ^ 0x5a);
    (void)ReadIpcSchemaMessage(copy);
  }
}

TEST(IpcMessage, FramingErrors) {
  EXPECT_EQ(FirstIpcMessageMetadata("").status().subcode(), Subcode::kCorruption);
  EXPECT_EQ(FirstIpcMessageMetadata(std::string("\xff\xff\xff\xff", 4)).status().subcode(),
            Subcode::kCorruption);
  // End-of-stream marker first.
  EXPECT_EQ(FirstIpcMessageMetadata(std::string("\xff\xff\xff\xff\0\0\0\0", 8)).status().subcode(),
            Subcode::kNotFound);
  // Negative length and a length beyond the end.
  EXPECT_EQ(FirstIpcMessageMetadata(std::string("\xff\xff\xff\xff\xf0\xff\xff\xff", 8))
                .status()
                .subcode(),
            Subcode::kCorruption);
  EXPECT_EQ(
      FirstIpcMessageMetadata(std::string("\xff\xff\xff\xff\x10\0\0\0abc", 11)).status().subcode(),
      Subcode::kCorruption);
  // Pre-0.15 framing (no continuation marker).
  auto bytes = WriteIpcSchemaMessage(SampleSchema());
  ASSERT_TRUE(bytes.ok());
  std::string legacy = EncapsulateIpcMessage(*bytes).substr(4);
  auto meta = FirstIpcMessageMetadata(legacy);
  ASSERT_TRUE(meta.ok());
  auto back = ReadIpcSchemaMessage(*meta);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, SampleSchema());
}

// Keep in sync with tests/interop/make_arrow_stream.mjs. apache-arrow names a list's element
// "item" by default; we pass it explicitly there.
IpcSchemaSummary ExpectedJsSchema() {
  IpcSchemaSummary s;
  s.fields = {
      Leaf("i32", "int32", false),
      Leaf("i32_null", "int32", true),
      Leaf("i64", "int64", false),
      Leaf("f64_null", "float64", true),
      Leaf("s", "utf8", false),
      Leaf("s_null", "utf8", true),
      Leaf("flag", "bool", true),
      IpcField{"ints", true, "list", {Leaf("item", "int32", true)}},
      IpcField{"rec", false, "struct", {Leaf("a", "int32", false), Leaf("b", "utf8", true)}},
  };
  return s;
}

TEST(IpcMessageInterop, ReadsTheSchemaApacheArrowJsWrote) {
  const char* path = std::getenv("QUIVER_ARROW_JS_STREAM");
  if (path == nullptr || *path == '\0') GTEST_SKIP() << "QUIVER_ARROW_JS_STREAM is not set";
  std::ifstream in(path, std::ios::binary);
  if (!in) GTEST_SKIP() << path << " is absent (needs node + tests/interop `npm ci`)";
  const std::string stream((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  auto meta = FirstIpcMessageMetadata(stream);
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  auto schema = ReadIpcSchemaMessage(*meta);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  const IpcSchemaSummary expected = ExpectedJsSchema();
  EXPECT_EQ(*schema, expected);
  ASSERT_EQ(schema->fields.size(), expected.fields.size());
  for (size_t i = 0; i < schema->fields.size(); ++i) {
    const IpcField& got = schema->fields[i];
    const IpcField& want = expected.fields[i];
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(got.type, want.type) << got.name;
    EXPECT_EQ(got.nullable, want.nullable) << got.name;
  }

  // What we write for the same schema is read back identically.
  auto ours = WriteIpcSchemaMessage(*schema);
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  auto again = ReadIpcSchemaMessage(*ours);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *schema);
}

}  // namespace
}  // namespace quiver::arrow
