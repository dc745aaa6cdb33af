// Helpers shared by the format tests: where the LanceDB-written fixtures are, reading a file
// whole, and draining a batch stream into one array per column.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "arrow/concatenate.h"
#include "arrow/record_batch.h"
#include "common/result.h"

namespace quiver::testing {

// $QUIVER_FORMAT_FIXTURES when it holds generated fixtures, else "" (the tests then skip).
inline std::string FormatFixtureDir() {
  const char* dir = std::getenv("QUIVER_FORMAT_FIXTURES");
  if (dir == nullptr || !std::filesystem::exists(std::filesystem::path(dir) / "expected.json")) {
    return "";
  }
  return dir;
}

inline std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every batch of `stream` joined into one array per column; `rows` gets the total.
inline Result<std::vector<arrow::ArrayPtr>> CollectColumns(arrow::BatchStream& stream,
                                                           int64_t* rows = nullptr) {
  std::vector<std::vector<arrow::ArrayPtr>> parts(stream.schema()->fields.size());
  int64_t total = 0;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream.Next());
    if (!batch) break;
    total += batch->length;
    for (size_t c = 0; c < parts.size(); ++c) parts[c].push_back(batch->columns[c]);
  }
  if (rows != nullptr) *rows = total;
  std::vector<arrow::ArrayPtr> out;
  for (size_t c = 0; c < parts.size(); ++c) {
    if (parts[c].empty()) {
      QV_ASSIGN_OR_RETURN(auto empty, arrow::MakeNullArray(stream.schema()->fields[c].type, 0));
      out.push_back(std::move(empty));
    } else {
      QV_ASSIGN_OR_RETURN(auto joined, arrow::Concatenate(parts[c]));
      out.push_back(std::move(joined));
    }
  }
  return out;
}

}  // namespace quiver::testing
