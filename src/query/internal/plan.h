// A checked query plan (query.h): what to scan, how to filter, rank, take and project, with the
// output schema, built from a QueryRequest and a dataset's schema before any data is read; and
// its text form for ExplainQuery / AnalyzeQuery.
//
// Thread-safety: a Plan is immutable once made.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/type.h"
#include "common/result.h"
#include "expr/ast.h"
#include "query/distance.h"
#include "query/query.h"
#include "table/dataset.h"

namespace quiver::query::internal {

// One output column: a column of the source batch (the scanned or taken rows) by name, an
// expression over it, the distance, or the query vector's index.
struct OutputColumn {
  enum class Kind { kSource, kExpression, kDistance, kQueryIndex };
  Kind kind = Kind::kSource;
  std::string name;    // the output name
  std::string source;  // kSource: the source column
  expr::ExprPtr expression;
};

// Time and rows per step, filled by an analyzed run.
struct StepMetrics {
  uint64_t rows_in = 0;
  uint64_t rows_out = 0;
  uint64_t nanos = 0;
};
struct Metrics {
  StepMetrics scan, filter, rank, take, sort, limit, project;
  uint64_t bytes_read = 0;
  uint64_t requests = 0;
};

struct Plan {
  QueryRequest request;
  expr::ExprPtr filter;  // null: none
  // The scan: table columns (top-level names; never empty), and the special columns it adds.
  std::vector<std::string> scan_columns;
  bool scan_row_id = false;
  bool scan_row_addr = false;
  bool row_offset = false;  // `_rowoffset` appended by the engine (the row's place in the scan)
  // Vector search: the column and the prepared query vectors.
  std::string vector_column;
  std::vector<PreparedQuery> queries;
  uint64_t k_scan = 0;  // candidates kept per query vector: k + offset
  // The columns the take after ranking (or sorting) reads, and whether it adds `_rowid`.
  std::vector<std::string> take_columns;
  bool take_row_id = false;
  bool take_row_addr = false;
  bool postfilter = false;  // the filter runs on the taken rows
  // Order by: each key as a column expression.
  std::vector<expr::ExprPtr> sort_keys;
  std::vector<OutputColumn> outputs;
  std::shared_ptr<const arrow::Schema> output_schema;
};

Result<Plan> MakePlan(const table::Dataset& dataset, const QueryRequest& request);

// The plan as an indented tree (outermost step first). With metrics: each step's rows, time,
// and the scan's bytes read.
std::string DescribePlan(const Plan& plan, const table::Dataset& dataset, bool verbose,
                         const Metrics* metrics);

// The top-level columns `e` reads, in first-mention order, added to `out` without repeats.
void CollectColumns(const expr::Expr& e, std::vector<std::string>* out);

}  // namespace quiver::query::internal
