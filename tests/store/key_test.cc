#include "store/key.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace quiver {
namespace {

TEST(KeyTest, AcceptsRelativeSlashSeparatedPaths) {
  for (const std::string& key : std::vector<std::string>{
           "a", "a/b/c", "_quiver/ns/x.json", "data/0001-abc.lance", "a b/ü/$x", ".hidden",
           "a/.qv-store", "..dots", "x..", std::string(255, 's')}) {
    EXPECT_TRUE(ValidateKey(key).ok()) << key;
  }
}

TEST(KeyTest, RejectsEscapesAndMalformedPaths) {
  struct Case {
    std::string key;
    std::string fragment;  // expected in the message
  };
  const Case cases[] = {
      {"", "empty"},
      {"/etc/passwd", "starts with '/'"},
      {"..", "'..'"},
      {"a/../../b", "'..'"},
      {"a/./b", "'.'"},
      {"a//b", "empty segment"},
      {"a/", "empty segment"},
      {std::string("a\0b", 3), "NUL"},
      {std::string(1025, 'k'), "1025 bytes"},
      {"a/" + std::string(256, 's'), "longer than 255"},
      {std::string(kReservedSegment) + "/x", "reserved"},
      {".qv-store", "reserved"},
  };
  for (const Case& c : cases) {
    Status s = ValidateKey(c.key);
    EXPECT_TRUE(s.IsInvalidInput()) << c.key;
    EXPECT_NE(s.message().find(c.fragment), std::string::npos) << s.message();
  }
}

TEST(KeyTest, KeyLengthLimitIsInclusive) {
  std::string key;
  while (key.size() + 101 <= 1024) key += std::string(100, 'x') + "/";
  key += std::string(1024 - key.size(), 'y');
  ASSERT_EQ(key.size(), 1024u);
  EXPECT_TRUE(ValidateKey(key).ok());
  EXPECT_TRUE(ValidateKey(key + "z").IsInvalidInput());
}

TEST(KeyTest, ListPrefixesMayBeEmptyOrEndWithSlash) {
  EXPECT_TRUE(ValidateListPrefix("").ok());
  EXPECT_TRUE(ValidateListPrefix("a/").ok());
  EXPECT_TRUE(ValidateListPrefix("a/b").ok());
  EXPECT_TRUE(ValidateListPrefix("a//").IsInvalidInput());
  EXPECT_TRUE(ValidateListPrefix("/").IsInvalidInput());
  EXPECT_TRUE(ValidateListPrefix("../").IsInvalidInput());
  EXPECT_TRUE(ValidateListPrefix(".qv-store/").IsInvalidInput());
}

TEST(KeyTest, StartAfterIsAnyBoundedStringWithoutNul) {
  EXPECT_TRUE(ValidateStartAfter("").ok());
  EXPECT_TRUE(ValidateStartAfter("../anything//").ok());
  EXPECT_TRUE(ValidateStartAfter(std::string("a\0", 2)).IsInvalidInput());
  EXPECT_TRUE(ValidateStartAfter(std::string(1025, 'x')).IsInvalidInput());
}

}  // namespace
}  // namespace quiver
