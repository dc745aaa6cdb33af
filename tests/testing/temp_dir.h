// TempDir: a fresh directory for a test (under $TMPDIR, or /tmp), its path resolved through any
// link (so it is the canonical place tests compare locations with), removed with its contents
// on destruction, never through a link (nftw with FTW_PHYS).
// Thread-safety: one owner.
#pragma once

#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace quiver::testing {

class TempDir {
 public:
  explicit TempDir(std::string_view tag = "qv-test") {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr ? base : "/tmp") + "/" + std::string(tag) + "-XXXXXX";
    char* made = ::mkdtemp(pattern.data());
    char resolved[PATH_MAX];
    path_ = made != nullptr && ::realpath(made, resolved) != nullptr ? resolved : pattern;
  }
  ~TempDir() {
    ::nftw(
        path_.c_str(),
        [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace quiver::testing
