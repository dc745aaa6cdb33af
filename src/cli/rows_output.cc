#include "cli/rows_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "arrow/json_lines.h"
#include "cli/cli_util.h"

namespace quiver::cli {

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

namespace {

// A cell of the text table: the JSON rendering, with top-level strings unquoted, cut to fit.
std::string Cell(const arrow::ArrayData& column, int64_t row) {
  std::string v = arrow::ValueToJson(column, row);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  constexpr size_t kMaxWidth = 48;
  if (v.size() > kMaxWidth) v = v.substr(0, kMaxWidth - 3) + "...";
  return v;
}

void PrintTable(const arrow::Schema& schema, const std::vector<arrow::RecordBatch>& batches) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header;
  for (const auto& f : schema.fields) header.push_back(f.name);
  std::vector<size_t> widths;
  for (const auto& h : header) widths.push_back(h.size());
  for (const auto& batch : batches) {
    for (int64_t r = 0; r < batch.length; ++r) {
      std::vector<std::string> row;
      for (size_t c = 0; c < batch.columns.size(); ++c) {
        row.push_back(Cell(*batch.columns[c], r));
        widths[c] = std::max(widths[c], row.back().size());
      }
      rows.push_back(std::move(row));
    }
  }
  auto print = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) line += "  ";
      line += cells[c];
      if (c + 1 < cells.size()) line.append(widths[c] - cells[c].size(), ' ');
    }
    std::cout << line << "\n";
  };
  print(header);
  for (const auto& row : rows) print(row);
  std::cout << fmt::format("({} row{})\n", rows.size(), rows.size() == 1 ? "" : "s");
}

}  // namespace

// One version (the latest when `version` is empty) of the dataset at `uri`, on `branch` (main
// when empty).
Result<std::shared_ptr<const table::Dataset>> OpenVersion(const std::string& uri,
                                                          std::optional<uint64_t> version,
                                                          const std::string& branch) {
  QV_ASSIGN_OR_RETURN(auto root, OpenExistingStore(uri));
  table::OpenOptions open;
  open.version = version;
  if (!branch.empty()) open.branch = branch;
  return table::Dataset::Open(root, open);
}

// Prints `batches` as JSON Lines or as an aligned text table. A streaming caller passes one batch
// at a time with `json` (the text table needs every row to size its columns).
int PrintBatches(const arrow::Schema& schema, const std::vector<arrow::RecordBatch>& batches,
                 bool json) {
  if (!json) {
    PrintTable(schema, batches);
  } else {
    for (const auto& batch : batches) {
      std::string out;
      Status s = arrow::WriteJsonLines(batch, &out);
      if (!s.ok()) return Fail(s);
      std::cout << out;
    }
  }
  std::cout.flush();
  return 0;
}

int PrintStream(arrow::BatchStream& stream, bool json) {
  std::vector<arrow::RecordBatch> batches;
  while (true) {
    auto batch = stream.Next();
    if (!batch.ok()) return Fail(batch.status());
    if (!*batch) break;
    batches.push_back(std::move(**batch));
    if (json) {
      if (int rc = PrintBatches(*stream.schema(), batches, true); rc != 0) return rc;
      batches.clear();
    }
  }
  return json ? 0 : PrintBatches(*stream.schema(), batches, false);
}

}  // namespace quiver::cli
