// The JSON body of a query (QueryTable, ExplainTableQueryPlan's `query`, AnalyzeTableQueryPlan)
// as query::QueryRequest, in both dialects: the spec's QueryTableRequest (`vector` as
// {single_vector | multi_vector}, `columns` as {column_names | column_aliases}) and LanceDB's
// remote client's (`vector` as [] / [x…] / [[x…]…], `columns` as [names] or {alias: sql},
// `order_by`, `minimum_nprobes` …; lancedb-remote-api.md §5.4).
//
// `k` is the row limit: for a scan 0 and i64::MAX (what the remote client sends for "no limit")
// mean none; for a vector search it is the number of neighbours (0: 10, as the spec's reference
// does). Index parameters (nprobes, ef, refine_factor, bypass_vector_index, fast_search,
// approx_mode) are type-checked and otherwise ignored: quiver's answer is the exact one.
// A full-text query is Unsupported (quiver builds no full-text index yet). Unknown fields are
// ignored (spec §2.3).
//
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "query/query.h"

namespace quiver::server::internal {

struct QueryJson {
  query::QueryRequest request;
  std::optional<uint64_t> version;  // `version` (null: the latest)
};

// InvalidInput naming the field for a wrong type or value.
Result<QueryJson> ParseQueryJson(const nlohmann::json& body);

}  // namespace quiver::server::internal
