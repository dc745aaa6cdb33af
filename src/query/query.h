// The query engine: LanceDB's query over one dataset version, as its scanner answers it.
//
//   scan ─▶ filter ─▶ [order by] ─▶ offset / limit ─▶ project            (a plain query)
//   scan ─▶ [prefilter] ─▶ distances ─▶ range ─▶ k nearest (+offset) ─▶ take ─▶
//        [postfilter] ─▶ offset / limit ─▶ project, `_distance`          (a vector query)
//
// A plain query streams: one scan batch at a time is filtered and projected, so memory stays at
// a scan's (scan.h) plus one batch. With order_by the rows' sort keys and addresses are kept
// (not the rows), sorted, and the rows taken back in order. A vector query keeps k + offset
// candidates per query vector while it streams over the table, then takes those rows: exact
// (flat) search, what Lance does without an index. Distances (distance.h) are computed on both
// cores, batch by batch. Ties keep scan order; rows with a null or NaN distance are dropped;
// `lower_bound <= _distance < upper_bound`; several query vectors each get their own k nearest
// and a leading int32 `query_index` column. Output columns: the selected ones (all by default),
// then `_distance` (float32) for a vector query, then `_rowid` and `_rowaddr` when asked.
//
// Everything is checked before any data file is read: the filter and projections (expr/), the
// vector column and dimension, k, the distance type; a bad request is InvalidInput naming the
// problem with Lance's wording where LanceDB has one.
//
// A deadline (x-request-timeout-ms) is checked at every scan batch: a query past it stops
// there with ServiceUnavailable (one whose scan has ended finishes).
//
// Thread-safety: RunQuery, CountRows and MatchingRowAddresses are reentrant; the stream returned is
// single-consumer.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrow/record_batch.h"
#include "common/clock.h"
#include "common/result.h"
#include "query/distance.h"
#include "table/dataset.h"

namespace quiver::query {

struct VectorSearch {
  std::string column;                        // empty: the table's only vector column
  std::vector<std::vector<double>> vectors;  // one or more query vectors
  uint64_t k = 10;
  DistanceType distance = DistanceType::kL2;
  std::optional<double> lower_bound;  // keep _distance >= lower_bound
  std::optional<double> upper_bound;  // keep _distance < upper_bound
  bool prefilter = true;              // filter, then the k nearest (else: k nearest, then filter)
};

struct SortKey {
  std::string column;  // a top-level column
  bool ascending = true;
  bool nulls_first = false;
};

struct QueryRequest {
  std::string filter;  // SQL (expr/); empty = every row
  // Output columns: names (top-level, or `_rowid` / `_rowaddr` / `_distance`), or (alias, SQL
  // expression) pairs; neither = every column of the table.
  std::vector<std::string> columns;
  std::vector<std::pair<std::string, std::string>> expressions;
  uint64_t offset = 0;
  std::optional<uint64_t> limit;  // for a vector query: at most k rows in any case
  bool with_row_id = false;
  bool with_row_addr = false;
  std::vector<SortKey> order_by;  // plain queries only
  std::optional<VectorSearch> nearest;
  uint32_t batch_rows = 8192;
  // Set: the query gives up (ServiceUnavailable, retryable) at the first scan batch after it.
  std::optional<Deadline> deadline;
};

// The error a query or write gets when its deadline passes.
Status DeadlineExceeded(const Deadline& deadline, std::string_view what);

// The answer as a stream (its schema is known before the first batch). Errors before any read:
// InvalidInput for a bad request; the scan's errors (scan.h) while streaming.
Result<std::unique_ptr<arrow::BatchStream>> RunQuery(std::shared_ptr<const table::Dataset> dataset,
                                                     const QueryRequest& request);

// The rows where `filter` is TRUE (every row when empty): only the filter's columns are read,
// the fragments in parallel.
Result<uint64_t> CountRows(std::shared_ptr<const table::Dataset> dataset, const std::string& filter,
                           std::optional<Deadline> deadline = std::nullopt);

// The addresses (`_rowaddr`) of the rows where `filter` is TRUE (every row when empty), in scan
// order: what a delete removes. Only the filter's columns are read, the fragments in parallel.
Result<std::vector<uint64_t>> MatchingRowAddresses(std::shared_ptr<const table::Dataset> dataset,
                                                   const std::string& filter,
                                                   std::optional<Deadline> deadline = std::nullopt);

// The plan RunQuery would run, as indented text (one step per line, innermost last).
Result<std::string> ExplainQuery(const std::shared_ptr<const table::Dataset>& dataset,
                                 const QueryRequest& request, bool verbose);

// Runs the query to the end and answers the plan with, per step, rows in and out and time spent,
// and the bytes the scan read.
Result<std::string> AnalyzeQuery(std::shared_ptr<const table::Dataset> dataset,
                                 const QueryRequest& request);

}  // namespace quiver::query
