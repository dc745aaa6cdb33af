// Shared helpers for the store tests: temp directories and the list of store stacks that the
// conformance suite runs against.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/sync_point.h"
#include "store/object_store.h"

namespace quiver::testing {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One backend/decorator combination. `make` builds the stack over a directory (ignored by
// memory stacks, which get a fresh store each time); `sync_points`, when given, is handed to the
// backend. Stacks over `local` share state across processes and run the multi-process tests.
struct StackSpec {
  std::string name;
  bool shared_across_processes;
  std::function<std::shared_ptr<ObjectStore>(const std::string& dir, SyncPoints* sync_points)> make;
};

// gtest prints a parameter with this (instead of dumping its bytes).
void PrintTo(const StackSpec& spec, std::ostream* os);

std::vector<StackSpec> AllStacks();
std::vector<StackSpec> ProcessSharedStacks();

// Number of files in `dir` (non-recursive); -1 if it cannot be read.
int CountFiles(const std::string& dir);

}  // namespace quiver::testing
