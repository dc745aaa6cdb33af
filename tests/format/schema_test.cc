#include "format/schema.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "format/arrow_schema.h"
#include "format/lance_file_writer.h"
#include "format/lance_proto.h"
#include "store/memory_store.h"

namespace quiver::format {
namespace {

void AddField(lance::table::Manifest& m, int32_t id, int32_t parent, const std::string& name,
              const std::string& logical, bool nullable = true) {
  auto* f = m.add_fields();
  f->set_id(id);
  f->set_parent_id(parent);
  f->set_name(name);
  f->set_logical_type(logical);
  f->set_nullable(nullable);
}

TEST(SchemaTest, BuildsTheTreeFromPreOrderFields) {
  lance::table::Manifest m;
  AddField(m, 0, -1, "id", "int64", false);
  AddField(m, 1, -1, "s", "struct");
  AddField(m, 2, 1, "a", "string");
  AddField(m, 3, 1, "l", "list");
  AddField(m, 4, 3, "item", "double");
  AddField(m, 5, -1, "vec", "fixed_size_list:float:8");
  (*m.mutable_schema_metadata())["k"] = "v";
  auto schema = SchemaFromManifest(m, "m");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  ASSERT_EQ(schema->fields.size(), 3u);
  EXPECT_EQ(schema->num_fields_total, 6u);
  EXPECT_EQ(schema->max_field_id, 5);
  ASSERT_EQ(schema->fields[1].children.size(), 2u);
  EXPECT_EQ(schema->fields[1].children[1].children[0].name, "item");
  EXPECT_EQ(schema->metadata.at("k"), "v");

  nlohmann::json j = ToJsonArrowSchema(*schema);
  EXPECT_EQ(j["fields"][0]["type"]["type"], "int64");
  EXPECT_EQ(j["fields"][0]["nullable"], false);
  EXPECT_EQ(j["fields"][1]["type"]["type"], "struct");
  EXPECT_EQ(j["fields"][1]["type"]["fields"][0]["type"]["type"], "utf8");
  EXPECT_EQ(j["fields"][1]["type"]["fields"][1]["type"]["type"], "list");
  EXPECT_EQ(j["fields"][1]["type"]["fields"][1]["type"]["fields"][0]["type"]["type"], "float64");
  EXPECT_EQ(j["fields"][2]["type"]["type"], "fixed_size_list");
  EXPECT_EQ(j["fields"][2]["type"]["length"], 8);
  EXPECT_EQ(j["fields"][2]["type"]["fields"][0]["type"]["type"], "float32");
  EXPECT_EQ(j["metadata"]["k"], "v");
}

TEST(SchemaTest, MapsLogicalTypesToJsonArrowNames) {
  struct Case {
    const char* logical;
    const char* type;
    int64_t length;  // -1: none
  };
  const Case cases[] = {{"bool", "bool", -1},
                        {"halffloat", "float16", -1},
                        {"double", "float64", -1},
                        {"large_string", "large_utf8", -1},
                        {"date32:day", "date32", -1},
                        {"timestamp:us:UTC", "timestamp", -1},
                        {"decimal:128:10:2", "decimal128", 10002},
                        {"fixed_size_binary:16", "fixed_size_binary", 16},
                        {"dict:string:int32:false", "utf8", -1}};
  for (const Case& c : cases) {
    SchemaField f;
    f.logical_type = c.logical;
    nlohmann::json t = ToJsonArrowType(f);
    EXPECT_EQ(t["type"], c.type) << c.logical;
    if (c.length >= 0) {
      EXPECT_EQ(t["length"], c.length) << c.logical;
    } else {
      EXPECT_FALSE(t.contains("length")) << c.logical;
    }
  }
}

// Lance 12 writes Map columns (file format 2.2); quiver's Arrow model has none yet, and says so
// (Unsupported naming the field), not Corruption.
// Lance 12's map: one child, the entries struct of a non-nullable key and a value; it maps to
// Arrow's map and back. Malformed ones are corrupt, naming the field.
TEST(SchemaTest, MapColumnsMapToArrowMaps) {
  SchemaField map;
  map.id = 3;
  map.name = "m";
  map.logical_type = "map";
  SchemaField entries{4, 3, "entries", "struct", false, {}, {}};
  entries.children.push_back(SchemaField{5, 4, "key", "string", false, {}, {}});
  entries.children.push_back(SchemaField{6, 4, "value", "int32", true, {}, {}});
  map.children.push_back(entries);
  auto type = ToArrowType(map);
  ASSERT_TRUE(type.ok()) << type.status().ToString();
  EXPECT_EQ(type->ToString(), "map<utf8, int32>");
  EXPECT_EQ(type->item().name, "entries");
  EXPECT_FALSE(type->item().nullable);
  auto back = ToLogicalType(*type);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "map");

  SchemaField nullable_key = map;
  nullable_key.children[0].children[0].nullable = true;
  auto bad = ToArrowType(nullable_key);
  EXPECT_EQ(bad.status().subcode(), Subcode::kCorruption);
  EXPECT_NE(bad.status().message().find("field 'm' (id 3)"), std::string::npos);
  SchemaField no_entries = map;
  no_entries.children.clear();
  EXPECT_EQ(ToArrowType(no_entries).status().subcode(), Subcode::kCorruption);
  // Lance stores no sorted-keys maps (Python's Arrow would lose the flag).
  const arrow::DataType sorted = arrow::DataType::Map(type->item(), /*keys_sorted=*/true);
  EXPECT_EQ(ToLogicalType(sorted).status().code(), StatusCode::kUnsupported);
}

// Lance 12 data files list a blob v2 column's descriptor members with id -1 and parent -1
// right after the column's struct: they belong to it. A blob v2 field (the manifest's
// struct<data, uri> with the extension name) reads as the descriptor struct.
TEST(SchemaTest, BlobV2DescriptorsAndTheirUnnumberedMembers) {
  lance::table::Manifest file;
  AddField(file, 0, -1, "id", "int64", false);
  AddField(file, 1, -1, "b", "struct");
  for (const char* member : {"kind", "position", "size", "blob_id", "blob_uri"}) {
    AddField(file, -1, -1, member, "uint64", false);
  }
  AddField(file, 4, -1, "after", "int32");
  auto schema = SchemaFromManifest(file, "f");
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  ASSERT_EQ(schema->fields.size(), 3u);
  ASSERT_EQ(schema->fields[1].children.size(), 5u);
  EXPECT_EQ(schema->fields[1].children[4].name, "blob_uri");
  EXPECT_EQ(schema->fields[1].children[4].parent_id, 1);
  EXPECT_EQ(schema->fields[2].name, "after");

  lance::table::Manifest orphan;
  AddField(orphan, 0, -1, "id", "int64");
  AddField(orphan, -1, -1, "kind", "uint8");
  EXPECT_EQ(SchemaFromManifest(orphan, "f").status().subcode(), Subcode::kCorruption);

  SchemaField blob{1, -1, "b", "struct", true, {}, {}};
  blob.metadata["ARROW:extension:name"] = "lance.blob.v2";
  blob.children.push_back(SchemaField{2, 1, "data", "large_binary", true, {}, {}});
  blob.children.push_back(SchemaField{3, 1, "uri", "string", true, {}, {}});
  EXPECT_TRUE(IsBlobV2Field(blob));
  auto field = ToArrowField(blob);
  ASSERT_TRUE(field.ok());
  EXPECT_EQ(field->type.ToString(),
            "struct<kind: uint8 not null, position: uint64 not null, size: uint64 not null, "
            "blob_id: uint32 not null, blob_uri: utf8 not null>");
  Schema table;
  table.fields.push_back(blob);
  auto writer = LanceFileWriter::Open(MemoryObjectStore::Create(), "x.lance", table, {});
  EXPECT_EQ(writer.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(writer.status().message().find("blob v2"), std::string::npos);
}

TEST(SchemaTest, RejectsOrphansAndDuplicateIds) {
  lance::table::Manifest orphan;
  AddField(orphan, 0, 7, "child", "int32");
  EXPECT_EQ(SchemaFromManifest(orphan, "m").status().subcode(), Subcode::kCorruption);
  lance::table::Manifest dup;
  AddField(dup, 0, -1, "a", "int32");
  AddField(dup, 0, -1, "b", "int32");
  EXPECT_EQ(SchemaFromManifest(dup, "m").status().subcode(), Subcode::kCorruption);
}

}  // namespace
}  // namespace quiver::format
