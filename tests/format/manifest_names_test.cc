#include "format/manifest_names.h"

#include <gtest/gtest.h>

namespace quiver::format {
namespace {

TEST(ManifestNamesTest, FormatsV1AndV2LikeLance) {
  EXPECT_EQ(ManifestFileName(1, ManifestNaming::kV2), "18446744073709551614.manifest");
  EXPECT_EQ(ManifestFileName(2, ManifestNaming::kV2), "18446744073709551613.manifest");
  EXPECT_EQ(ManifestFileName(1, ManifestNaming::kV1), "1.manifest");
  EXPECT_EQ(ManifestFileName(1234, ManifestNaming::kV1), "1234.manifest");
  // Padding only matters for absurd versions, but Lance always pads.
  EXPECT_EQ(ManifestFileName(18446744073709551615ull, ManifestNaming::kV2),
            "00000000000000000000.manifest");
}

TEST(ManifestNamesTest, ParsesWhatItFormats) {
  for (uint64_t v : {1ull, 2ull, 999ull, 1001ull, 123456789ull}) {
    for (ManifestNaming n : {ManifestNaming::kV1, ManifestNaming::kV2}) {
      auto parsed = ParseManifestName(ManifestFileName(v, n));
      ASSERT_TRUE(parsed.has_value());
      EXPECT_EQ(parsed->version, v);
      EXPECT_EQ(parsed->naming, n);
      EXPECT_FALSE(parsed->detached);
    }
  }
}

TEST(ManifestNamesTest, DetachedNamesHaveTheTopBitSet) {
  auto d = ParseManifestName("d9223372036854775809.manifest");
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->detached);
  EXPECT_EQ(d->version, 9223372036854775809ull);
  EXPECT_FALSE(ParseManifestName("d12.manifest").has_value()) << "top bit not set";
}

TEST(ManifestNamesTest, IgnoresTempFilesHintsAndGarbage) {
  for (const char* name :
       {"18446744073709551614.manifest#1", "18446744073709551614.manifest-4b7c", ".tmpAbC",
        "latest_version_hint.json", ".manifest", "x.manifest", "-1.manifest", "01.manifest",
        "1.2.manifest", "184467440737095516140.manifest", "18446744073709551616000.manifest"}) {
    EXPECT_FALSE(ParseManifestName(name).has_value()) << name;
  }
}

}  // namespace
}  // namespace quiver::format
