// Nesting and numbers in what a Lance file or manifest describes are bounded before anything
// recurses over them or computes with them (issue 13): the field tree built from a manifest's
// flat field list (parent ids), the protobuf messages of page encodings, whose nested messages
// every decoder walks recursively, and the numbers in a logical type.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "format/internal/read20/decode20.h"
#include "format/lance_proto.h"
#include "format/proto/encodings20.pb.h"
#include "format/schema.h"

namespace quiver::format {
namespace {

void AddField(lance::table::Manifest& m, int32_t id, int32_t parent, const std::string& logical) {
  auto* f = m.add_fields();
  f->set_id(id);
  f->set_parent_id(parent);
  f->set_name("f" + std::to_string(id));
  f->set_logical_type(logical);
  f->set_nullable(true);
}

// A chain of `depth` structs with an int32 leaf: `depth + 1` fields, each the parent of the next.
lance::table::Manifest Chain(int32_t depth) {
  lance::table::Manifest m;
  for (int32_t id = 0; id < depth; ++id) AddField(m, id, id - 1, "struct");
  AddField(m, depth, depth - 1, "int32");
  return m;
}

TEST(NestingTest, ManifestFieldTreeDepthIsBounded) {
  auto deepest = SchemaFromManifest(Chain(63), "m");  // 64 levels of fields
  ASSERT_TRUE(deepest.ok()) << deepest.status().ToString();
  EXPECT_EQ(deepest->num_fields_total, 64u);
  // Its JSON rendering (a recursive walk) is fine at that depth.
  EXPECT_TRUE(ToJsonArrowSchema(*deepest).is_object());
  for (int32_t depth : {64, 100'000}) {
    auto deep = SchemaFromManifest(Chain(depth), "m");
    ASSERT_FALSE(deep.ok()) << depth;
    EXPECT_EQ(deep.status().subcode(), Subcode::kCorruption);
    EXPECT_NE(deep.status().message().find("deeper than 64 levels"), std::string::npos)
        << deep.status().message();
  }
}

// Parent ids cannot make a cycle: a parent must precede its child (pre-order), so a field that
// names itself or a later field is refused, and so is a second use of an id.
TEST(NestingTest, ManifestFieldParentsCannotCycle) {
  lance::table::Manifest self;
  AddField(self, 0, 0, "struct");
  EXPECT_EQ(SchemaFromManifest(self, "m").status().subcode(), Subcode::kCorruption);
  lance::table::Manifest forward;  // 0 -> 1 -> 0
  AddField(forward, 0, 1, "struct");
  AddField(forward, 1, 0, "struct");
  EXPECT_EQ(SchemaFromManifest(forward, "m").status().subcode(), Subcode::kCorruption);
  lance::table::Manifest reuse;  // 0 <- 1, then 0 again under 1
  AddField(reuse, 0, -1, "struct");
  AddField(reuse, 1, 0, "struct");
  AddField(reuse, 0, 1, "int32");
  EXPECT_EQ(SchemaFromManifest(reuse, "m").status().subcode(), Subcode::kCorruption);
}

// Numbers in a logical type are a manifest's text too: a decimal's rendered length is
// precision * 1000 + scale, which overflowed int64 for a precision of 2^53.
TEST(LogicalTypeNumbersTest, BoundedBeforeArithmetic) {
  lance::table::Manifest m;
  AddField(m, 0, -1, "decimal:128:9223372036854775:2");
  AddField(m, 1, -1, "decimal:128:38:2");
  auto schema = SchemaFromManifest(m, "m");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  nlohmann::json j = ToJsonArrowSchema(*schema);
  EXPECT_EQ(j["fields"][0]["type"]["length"], 2);  // the precision is not a number we take
  EXPECT_EQ(j["fields"][1]["type"]["length"], 38002);
}

// ArrayEncoding{list: List{offsets: ArrayEncoding{list: ...}}}, `levels` lists deep (two messages
// per level), written as raw protobuf bytes from the inside out.
std::string NestedListEncoding(int levels) {
  auto length_delimited = [](int field, const std::string& payload) {
    std::string out(1, static_cast<char>((field << 3) | 2));
    for (size_t n = payload.size();; n >>= 7) {
      if (n < 0x80) {
        out += static_cast<char>(n);
        break;
      }
      out += static_cast<char>((n & 0x7f) | 0x80);
    }
    return out + payload;
  };
  std::string encoding;  // the innermost ArrayEncoding: empty
  for (int i = 0; i < levels; ++i) {
    std::string list = length_delimited(1, encoding);  // List.offsets
    encoding = length_delimited(4, list);              // ArrayEncoding.list
  }
  return encoding;
}

// Page encodings come from data files (any writer's bytes). protobuf's parser refuses messages
// nested deeper than its recursion limit (100), so every decoded encoding tree, and with it the
// recursion of every decoder and of DescribeEncoding20, is bounded.
TEST(NestingTest, ProtobufRefusesDeeplyNestedPageEncodings) {
  lance::encodings::ArrayEncoding shallow;
  ASSERT_TRUE(shallow.ParseFromString(NestedListEncoding(40)));  // 80 messages
  EXPECT_FALSE(internal::DescribeEncoding20(shallow).empty());
  for (int levels : {60, 1000}) {
    lance::encodings::ArrayEncoding deep;
    EXPECT_FALSE(deep.ParseFromString(NestedListEncoding(levels))) << levels;
  }
}

}  // namespace
}  // namespace quiver::format
