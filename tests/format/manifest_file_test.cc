#include "format/manifest_file.h"

#include <cstring>
#include <random>

#include <gtest/gtest.h>

#include "format/feature_flags.h"
#include "format/lance_proto.h"

namespace quiver::format {
namespace {

lance::table::Manifest SampleManifest() {
  lance::table::Manifest m;
  m.set_version(7);
  auto* f = m.add_fields();
  f->set_name("id");
  f->set_id(0);
  f->set_parent_id(-1);
  f->set_logical_type("int64");
  auto* frag = m.add_fragments();
  frag->set_id(3);
  frag->set_physical_rows(100);
  auto* file = frag->add_files();
  file->set_path("0101.lance");
  file->add_fields(0);
  file->add_column_indices(0);
  file->set_file_major_version(2);
  file->set_file_minor_version(1);
  file->set_file_size_bytes(1017);
  m.set_max_fragment_id(3);
  m.mutable_writer_version()->set_library("lance-cpp");
  m.mutable_writer_version()->set_version("0.1.0");
  m.mutable_data_format()->set_file_format("lance");
  m.mutable_data_format()->set_version("2.1");
  return m;
}

TEST(ManifestFileTest, RoundTripsManifestTransactionAndIndexSection) {
  lance::table::Manifest m = SampleManifest();
  lance::table::Transaction txn;
  txn.set_read_version(6);
  txn.set_uuid("2aa6b9b7-0000-4000-8000-000000000000");
  txn.mutable_append()->add_fragments()->set_physical_rows(100);
  lance::table::IndexSection indices;
  auto* idx = indices.add_indices();
  idx->set_name("id_idx");
  idx->add_fields(0);
  std::string bytes = EncodeManifestFile(m, &txn, &indices);

  auto decoded = DecodeManifestFile(bytes, "v7.manifest");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->file_size, bytes.size());
  EXPECT_EQ(decoded->manifest->version(), 7u);
  EXPECT_EQ(decoded->manifest->fragments(0).files(0).file_size_bytes(), 1017u);
  ASSERT_NE(decoded->transaction, nullptr);
  EXPECT_EQ(decoded->transaction->read_version(), 6u);
  EXPECT_TRUE(decoded->transaction->has_append());
  ASSERT_NE(decoded->index_section, nullptr);
  EXPECT_EQ(decoded->index_section->indices(0).name(), "id_idx");
  // Layout as Lance writes it: index section at 0, then the transaction, then the manifest.
  EXPECT_EQ(decoded->manifest->index_section(), 0u);
  EXPECT_GT(decoded->manifest->transaction_section(), 0u);
  EXPECT_EQ(bytes.substr(bytes.size() - 4), "LANC");
  int16_t major, minor;
  std::memcpy(&major, bytes.data() + bytes.size() - 8, 2);
  std::memcpy(&minor, bytes.data() + bytes.size() - 6, 2);
  EXPECT_EQ(major, 0);
  EXPECT_EQ(minor, 2);
  // Re-encoding the decoded parts gives the same bytes.
  EXPECT_EQ(EncodeManifestFile(*decoded->manifest, decoded->transaction.get(),
                               decoded->index_section.get()),
            bytes);
}

TEST(ManifestFileTest, AbsentSectionsAreAbsent) {
  std::string bytes = EncodeManifestFile(SampleManifest(), nullptr, nullptr);
  auto decoded = DecodeManifestFile(bytes, "m");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->transaction, nullptr);
  EXPECT_EQ(decoded->index_section, nullptr);
  EXPECT_FALSE(decoded->manifest->has_transaction_section());
  EXPECT_FALSE(decoded->manifest->has_index_section());
  // The manifest starts at offset 0: the footer's position says so.
  int64_t pos;
  std::memcpy(&pos, bytes.data() + bytes.size() - 16, 8);
  EXPECT_EQ(pos, 0);
}

TEST(ManifestFileTest, UnknownFieldsSurviveARoundTrip) {
  lance::table::Manifest m = SampleManifest();
  std::string body = m.SerializeAsString();
  // Field 99 (varint 42): a field some newer Lance might add.
  body += std::string("\x98\x06\x2a", 3);
  lance::table::Manifest with_unknown;
  ASSERT_TRUE(with_unknown.ParseFromString(body));
  std::string bytes = EncodeManifestFile(with_unknown, nullptr, nullptr);
  auto decoded = DecodeManifestFile(bytes, "m");
  ASSERT_TRUE(decoded.ok());
  std::string again = decoded->manifest->SerializeAsString();
  EXPECT_NE(again.find(std::string("\x98\x06\x2a", 3)), std::string::npos);
}

TEST(ManifestFileTest, CorruptOrTruncatedFilesAreCorruptionNamingTheFile) {
  lance::table::Transaction txn;
  txn.set_uuid("u");
  std::string good = EncodeManifestFile(SampleManifest(), &txn, nullptr);
  auto expect_corrupt = [](const std::string& bytes, const char* label) {
    auto r = DecodeManifestFile(bytes, "_versions/x.manifest");
    ASSERT_FALSE(r.ok()) << label;
    EXPECT_EQ(r.status().subcode(), Subcode::kCorruption) << label << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find("_versions/x.manifest"), std::string::npos) << label;
  };
  expect_corrupt("", "empty");
  expect_corrupt("LANC", "only magic");
  expect_corrupt(good.substr(0, good.size() - 1), "last byte cut");
  expect_corrupt(good.substr(1), "first byte cut");
  expect_corrupt(good.substr(0, good.size() / 2) + good.substr(good.size() - 16), "middle cut");
  std::string bad_pos = good;
  int64_t huge = 1 << 30;
  std::memcpy(bad_pos.data() + bad_pos.size() - 16, &huge, 8);
  expect_corrupt(bad_pos, "position past the end");
  std::string negative = good;
  int64_t minus = -5;
  std::memcpy(negative.data() + negative.size() - 16, &minus, 8);
  expect_corrupt(negative, "negative position");
}

TEST(ManifestFileTest, AnotherFooterVersionIsUnsupported) {
  std::string bytes = EncodeManifestFile(SampleManifest(), nullptr, nullptr);
  int16_t minor = 3;
  std::memcpy(bytes.data() + bytes.size() - 6, &minor, 2);
  auto r = DecodeManifestFile(bytes, "m");
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
}

TEST(ManifestFileTest, RandomGarbageNeverCrashes) {
  std::mt19937_64 rng(7);
  std::string good = EncodeManifestFile(SampleManifest(), nullptr, nullptr);
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    if (rng() % 3 == 0) bytes.resize(rng() % (bytes.size() + 1));
    (void)DecodeManifestFile(bytes, "fuzz");  // must return, OK or not
  }
}

TEST(FeatureFlagsTest, BitsAbove32AreRefusedLikeLance8) {
  for (uint64_t ok : {0ull, 1ull, 2ull, 4ull, 8ull, 16ull, 32ull, 63ull}) {
    EXPECT_TRUE(CheckReaderFlags(ok, "m").ok()) << ok;
    EXPECT_TRUE(CheckWriterFlags(ok, "m").ok()) << ok;
  }
  for (uint64_t bad : {64ull, 128ull, 4096ull, 1ull | 256ull}) {
    Status s = CheckReaderFlags(bad, "_versions/m.manifest");
    EXPECT_EQ(s.code(), StatusCode::kUnsupported) << bad;
    EXPECT_NE(s.message().find("_versions/m.manifest"), std::string::npos);
    EXPECT_EQ(CheckWriterFlags(bad, "m").code(), StatusCode::kUnsupported);
  }
  EXPECT_EQ(FeatureFlagNames(17), "deletion_files|base_paths");
  EXPECT_EQ(FeatureFlagNames(64), "bit64");
  EXPECT_EQ(FeatureFlagNames(0), "none");
}

}  // namespace
}  // namespace quiver::format
