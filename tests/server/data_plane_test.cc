// The data plane over HTTP: QueryTable (scans, filters, projections, time travel, exact vector
// search in both wire shapes, several query vectors), CountTableRows with a predicate,
// ExplainTableQueryPlan, AnalyzeTableQueryPlan, and the writes CreateTable, InsertIntoTable
// and DeleteFromTable; bad requests answer 400 / code 13 (406 / 0 for full-text search) and
// leave every byte of the store as it was.
#include <fmt/format.h>

#include "data_plane_fixture.h"
#include "testing/ticking_clock.h"

namespace quiver::server::testing {
namespace {

using nlohmann::json;

TEST_F(DataPlaneTest, ScansWithFilterColumnsLimitAndVersion) {
  // The spec's shape: `vector` required but empty for a scan, columns as column_names.
  auto rows = Rows(client_->Post("/v1/table/d/query", {{"k", 5},
                                                       {"vector", json::object()},
                                                       {"filter", "id >= 57"},
                                                       {"columns", {{"column_names", {"id"}}}}}));
  EXPECT_EQ(Names(rows), (std::vector<std::string>{"id"}));
  EXPECT_EQ(Column<int64_t>(rows, "id"), (std::vector<int64_t>{57, 58, 59, 60, 61}));

  // Time travel: version 1 holds ids 0..59; the remote client's "no limit" k and aliases.
  rows = Rows(client_->Post("/v1/table/d/query", {{"k", 9223372036854775807LL},
                                                  {"vector", json::array()},
                                                  {"version", 1},
                                                  {"filter", "id >= 57"},
                                                  {"columns", {{"twice", "id * 2"}}},
                                                  {"with_row_id", true}}));
  EXPECT_EQ(Names(rows), (std::vector<std::string>{"twice", "_rowid"}));
  EXPECT_EQ(Column<int64_t>(rows, "twice"), (std::vector<int64_t>{114, 116, 118}));

  // offset, and order_by as the remote client sends it
  rows = Rows(client_->Post("/v1/table/d/query",
                            {{"k", 3},
                             {"offset", 2},
                             {"vector", json::array()},
                             {"columns", {"id"}},
                             {"order_by", {{{"column_name", "id"}, {"ascending", false}}}}}));
  EXPECT_EQ(Column<int64_t>(rows, "id"), (std::vector<int64_t>{97, 96, 95}));
}

TEST_F(DataPlaneTest, VectorSearchInBothShapes) {
  // spec: single_vector; v of id 23 is [3, 2]
  auto rows = Rows(client_->Post("/v1/table/d/query", {{"k", 3},
                                                       {"vector", {{"single_vector", {3, 2}}}},
                                                       {"vector_column", "v"},
                                                       {"columns", {{"column_names", {"id"}}}},
                                                       {"nprobes", 20},
                                                       {"refine_factor", 5},
                                                       {"bypass_vector_index", true}}));
  EXPECT_EQ(Names(rows), (std::vector<std::string>{"id", "_distance"}));
  EXPECT_EQ(Column<int64_t>(rows, "id"), (std::vector<int64_t>{23, 13, 22}));
  EXPECT_EQ(Column<float>(rows, "_distance"), (std::vector<float>{0, 1, 1}));

  // remote: several vectors and a filter
  rows = Rows(client_->Post("/v1/table/d/query", {{"k", 2},
                                                  {"vector", {{3, 2}, {0, 9}}},
                                                  {"filter", "id % 2 = 1"},
                                                  {"columns", {"id"}},
                                                  {"prefilter", true},
                                                  {"distance_type", "l2"}}));
  EXPECT_EQ(Names(rows), (std::vector<std::string>{"query_index", "id", "_distance"}));
  EXPECT_EQ(Column<int32_t>(rows, "query_index"), (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(Column<int64_t>(rows, "id"), (std::vector<int64_t>{23, 13, 91, 81}));

  // a distance range
  rows = Rows(client_->Post("/v1/table/d/query", {{"k", 100},
                                                  {"vector", {3, 2}},
                                                  {"columns", {"id"}},
                                                  {"lower_bound", 0.5},
                                                  {"upper_bound", 1.5}}));
  EXPECT_EQ(Column<int64_t>(rows, "id"), (std::vector<int64_t>{13, 22, 24, 33}));
}

TEST_F(DataPlaneTest, CountExplainAnalyze) {
  EXPECT_EQ(client_->Post("/v1/table/d/count_rows", json::object()).body, "100");
  EXPECT_EQ(client_->Post("/v1/table/d/count_rows", {{"predicate", "id % 3 = 0"}}).body, "34");
  EXPECT_EQ(
      client_->Post("/v1/table/d/count_rows", {{"predicate", "id >= 50"}, {"version", 1}}).body,
      "10");
  EXPECT_EQ(client_->Get("/v1/table/d/count_rows?predicate=id%20%3C%205").body, "5");

  auto explained = client_->Post(
      "/v1/table/d/explain_plan",
      {{"query", {{"k", 3}, {"vector", {1, 2}}, {"filter", "id > 4"}}}, {"verbose", true}});
  ASSERT_EQ(explained.status, 200) << explained.body;
  ASSERT_TRUE(explained.Json().is_string()) << explained.body;
  EXPECT_NE(explained.Json().get<std::string>().find("KNN"), std::string::npos);
  ExpectError(client_->Post("/v1/table/d/explain_plan", {{"verbose", true}}), 400, 13);

  auto analyzed =
      client_->Post("/v1/table/d/analyze_plan", {{"k", 10}, {"vector", {}}, {"filter", "id > 4"}});
  ASSERT_EQ(analyzed.status, 200) << analyzed.body;
  ASSERT_TRUE(analyzed.Json().is_string()) << analyzed.body;
  EXPECT_NE(analyzed.Json().get<std::string>().find("rows: 10"), std::string::npos)
      << analyzed.body;
}

TEST_F(DataPlaneTest, BadRequestsAnswer400AndChangeNothing) {
  const auto before = Snapshot();
  const json bad[] = {
      {{"k", 3}, {"vector", json::array()}, {"filter", "id >"}},
      {{"k", 3}, {"vector", json::array()}, {"filter", "nope = 1"}},
      {{"k", 3}, {"vector", json::array()}, {"columns", {"nope"}}},
      {{"k", 3}, {"vector", {1, 2, 3}}},
      {{"k", 3}, {"vector", {1, 2}}, {"distance_type", "manhattan"}},
      {{"k", 3}, {"vector", {1, 2}}, {"distance_type", "hamming"}},
      {{"k", 3}, {"vector", {1, 2}}, {"vector_column", "name"}},
      {{"k", -1}, {"vector", json::array()}},
      {{"k", 3}, {"vector", {"a", "b"}}},
      {{"k", 3}, {"vector", json::array()}, {"columns", 5}},
      {{"k", 3}, {"vector", json::array()}, {"version", 99}},
  };
  for (const json& body : bad) {
    auto reply = client_->Post("/v1/table/d/query", body);
    if (body.contains("version")) {
      EXPECT_EQ(reply.status, 404) << body.dump() << " " << reply.body;
      continue;
    }
    ExpectError(reply, 400, 13, body.dump());
  }
  ExpectError(client_->Post("/v1/table/d/query",
                            {{"k", 3},
                             {"vector", json::array()},
                             {"full_text_query", {{"string_query", {{"query", "n1"}}}}}}),
              406, 0);
  ExpectError(client_->Post("/v1/table/d/count_rows", {{"predicate", "id >"}}), 400, 13);
  ExpectError(client_->Post("/v1/table/nope/query", {{"k", 1}, {"vector", json::array()}}), 404, 4);
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(DataPlaneTest, InsertAppendsAndOverwrites) {
  auto appended = SendArrow("/v1/table/d/insert", Stream(100, 10));
  ASSERT_EQ(appended.status, 200) << appended.body;
  EXPECT_EQ(appended.Json()["version"], 3);
  EXPECT_EQ(appended.Json()["num_inserted_rows"], 10);
  EXPECT_EQ(Count("d"), "110");
  EXPECT_EQ(Count("d", "id >= 100"), "10");

  auto overwritten = SendArrow("/v1/table/d/insert?mode=overwrite", Stream(500, 3));
  ASSERT_EQ(overwritten.status, 200) << overwritten.body;
  EXPECT_EQ(overwritten.Json()["version"], 4);
  EXPECT_EQ(Count("d"), "3");
  auto rows = Rows(client_->Post("/v1/table/d/query",
                                 {{"k", 10}, {"vector", json::array()}, {"columns", {"id"}}}));
  EXPECT_EQ(Column<int64_t>(rows, "id"), (std::vector<int64_t>{500, 501, 502}));
  // The overwritten rows are still there at version 3.
  EXPECT_EQ(client_->Post("/v1/table/d/count_rows", {{"version", 3}}).body, "110");

  // A declared table gets its first version from an insert.
  ASSERT_TRUE(catalog_->DeclareTable(Scoped({"later"}), {}, {}).ok());
  auto first = SendArrow("/v1/table/later/insert", Stream(0, 4));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.Json()["version"], 1);
  EXPECT_EQ(Count("later"), "4");
}

TEST_F(DataPlaneTest, BadWritesAnswer400AndChangeNothing) {
  const auto before = Snapshot();
  ExpectError(SendArrow("/v1/table/d/insert", ""), 400, 13, "empty body");
  ExpectError(SendArrow("/v1/table/d/insert", "not arrow at all"), 400, 13, "garbage");
  std::string truncated = Stream(100, 50);
  truncated.resize(truncated.size() / 2);
  ExpectError(SendArrow("/v1/table/d/insert", truncated), 400, 13, "truncated");
  ExpectError(SendArrow("/v1/table/d/insert?mode=sometimes", Stream(100, 1)), 400, 13, "mode");
  {
    auto schema = std::make_shared<arrow::Schema>();
    schema->fields.emplace_back("other", arrow::DataType::Int32(), true);
    arrow::RecordBatch batch;
    batch.schema = schema;
    batch.length = 1;
    batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int32(), std::vector<int32_t>{1})};
    ExpectError(SendArrow("/v1/table/d/insert", *arrow::ipc::WriteStreamToString(schema, {batch})),
                400, 13, "schema");
  }
  ExpectError(client_->Post("/v1/table/d/delete", json::object()), 400, 13, "no predicate");
  ExpectError(client_->Post("/v1/table/d/delete", {{"predicate", "id >"}}), 400, 13, "bad SQL");
  ExpectError(client_->Post("/v1/table/d/delete", {{"predicate", "nope = 3"}}), 400, 13, "column");
  ExpectError(client_->Post("/v1/table/d/delete", {{"predicate", " "}}), 400, 13, "blank");
  ExpectError(SendArrow("/v1/table/d/create", Stream(0, 1)), 409, 5, "exists");
  ExpectError(SendArrow("/v1/table/fresh/create", "garbage"), 400, 13, "create garbage");
  ExpectError(SendArrow("/v1/table/nope/insert", Stream(0, 1)), 404, 4, "no table");
  EXPECT_EQ(Snapshot(), before);
  // The failed create left no name behind.
  ExpectError(client_->Post("/v1/table/fresh/describe", json::object()), 404, 4);
}

TEST_F(DataPlaneTest, CreateTableModes) {
  auto created = SendArrow("/v1/table/fresh/create", Stream(0, 5));
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(created.Json()["version"], 1);
  EXPECT_EQ(created.Json()["location"],
            client_->Post("/v1/table/fresh/describe", json::object()).Json()["location"]);
  EXPECT_EQ(Count("fresh"), "5");
  auto kept = SendArrow("/v1/table/fresh/create?mode=exist_ok", Stream(0, 9));
  ASSERT_EQ(kept.status, 200) << kept.body;
  EXPECT_EQ(kept.Json()["version"], 1);
  EXPECT_EQ(Count("fresh"), "5");
  auto replaced = SendArrow("/v1/table/fresh/create?mode=overwrite", Stream(0, 9));
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(replaced.Json()["version"], 2);
  EXPECT_EQ(Count("fresh"), "9");

  // A schema and no batches: an empty table with that schema.
  auto schema = Batch(0, 1).schema;
  auto empty = SendArrow("/v1/table/empty/create?properties=%7B%22team%22%3A%22ml%22%7D",
                         *arrow::ipc::WriteStreamToString(schema, {}));
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.Json()["properties"]["team"], "ml");
  EXPECT_EQ(Count("empty"), "0");
  auto rows = Rows(client_->Post("/v1/table/empty/query", {{"k", 10}, {"vector", json::array()}}));
  EXPECT_EQ(Names(rows), (std::vector<std::string>{"id", "name", "v"}));
}

// UpdateTable's `updates`: a JSON array of [column, expression] arrays (braces alone would make
// nlohmann build an object of them).
json Pairs(const std::vector<std::pair<std::string, std::string>>& pairs) {
  json out = json::array();
  for (const auto& [column, sql] : pairs) out.push_back(json::array({column, sql}));
  return out;
}

TEST_F(DataPlaneTest, UpdateByPredicate) {
  auto updated = client_->Post(
      "/v1/table/d/update", {{"predicate", "id >= 90"},
                             {"updates", Pairs({{"name", "upper(name)"}, {"id", "id + 1000"}})}});
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(updated.Json()["version"], 3);
  EXPECT_EQ(updated.Json()["rows_updated"], 10);
  EXPECT_EQ(updated.Json()["updated_rows"], 10);
  EXPECT_EQ(Count("d"), "100");
  EXPECT_EQ(Count("d", "id >= 1090 AND name LIKE 'N%'"), "10");
  EXPECT_EQ(Count("d", "id >= 90 AND id < 100"), "0");
  // Without a predicate: every row.
  auto all = client_->Post("/v1/table/d/update", {{"updates", Pairs({{"name", "'x'"}})}});
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(all.Json()["rows_updated"], 100);
  EXPECT_EQ(Count("d", "name = 'x'"), "100");
  // The vector search still finds every row (v of 23 is [3, 2]).
  auto rows =
      Rows(client_->Post("/v1/table/d/query", {{"k", 1}, {"vector", {3, 2}}, {"columns", {"id"}}}));
  EXPECT_EQ(Column<int64_t>(rows, "id"), (std::vector<int64_t>{23}));

  const auto before = Snapshot();
  ExpectError(client_->Post("/v1/table/d/update", json::object()), 400, 13, "no updates");
  ExpectError(client_->Post("/v1/table/d/update", {{"updates", json::array()}}), 400, 13, "empty");
  ExpectError(
      client_->Post("/v1/table/d/update", {{"updates", json::array({json::array({"name"})})}}), 400,
      13, "pair");
  ExpectError(client_->Post("/v1/table/d/update", {{"updates", Pairs({{"nope", "1"}})}}), 404, 12,
              "column");
  ExpectError(client_->Post("/v1/table/d/update", {{"updates", Pairs({{"id", "name"}})}}), 400, 13,
              "type");
  ExpectError(client_->Post("/v1/table/d/update", {{"updates", Pairs({{"id", "id +"}})}}), 400, 13,
              "SQL");
  ExpectError(client_->Post("/v1/table/d/update",
                            {{"predicate", "nope"}, {"updates", Pairs({{"id", "1"}})}}),
              400, 13, "predicate");
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(DataPlaneTest, MergeInsertUpsertsOnTheKey) {
  // ids 90..109 over a table of 0..99: 10 updated, 10 inserted.
  auto merged = SendArrow(
      "/v1/table/d/"
      "merge_insert?on=id&when_matched_update_all=true&when_not_matched_insert_all=true",
      Stream(90, 20));
  ASSERT_EQ(merged.status, 200) << merged.body;
  EXPECT_EQ(merged.Json()["version"], 3);
  EXPECT_EQ(merged.Json()["num_updated_rows"], 10);
  EXPECT_EQ(merged.Json()["num_inserted_rows"], 10);
  EXPECT_EQ(merged.Json()["num_deleted_rows"], 0);
  EXPECT_EQ(Count("d"), "110");
  // Deleting what the source lacks, where a filter holds.
  auto pruned = SendArrow(
      "/v1/table/d/merge_insert?on=id&when_matched_update_all=true"
      "&when_not_matched_by_source_delete=true&when_not_matched_by_source_delete_filt=id%20%3C%"
      "2010",
      Stream(50, 1));
  ASSERT_EQ(pruned.status, 200) << pruned.body;
  EXPECT_EQ(pruned.Json()["num_deleted_rows"], 10);
  EXPECT_EQ(Count("d"), "100");

  const auto before = Snapshot();
  const std::string upsert = "&when_matched_update_all=true&when_not_matched_insert_all=true";
  ExpectError(SendArrow("/v1/table/d/merge_insert?when_matched_update_all=true", Stream(0, 1)), 400,
              13, "no key");
  ExpectError(SendArrow("/v1/table/d/merge_insert?on=nope" + upsert, Stream(0, 1)), 404, 12,
              "unknown key");
  ExpectError(SendArrow("/v1/table/d/merge_insert?on=id", Stream(0, 1)), 400, 13, "no action");
  ExpectError(SendArrow("/v1/table/d/merge_insert?on=id" + upsert, "not arrow"), 400, 13, "IPC");
  auto batch = Batch(50, 1);  // twice: two source rows for one target row
  auto dup = arrow::ipc::WriteStreamToString(batch.schema, {batch, batch});
  ASSERT_TRUE(dup.ok());
  auto ambiguous = SendArrow("/v1/table/d/merge_insert?on=id" + upsert, *dup);
  ExpectError(ambiguous, 400, 13, "ambiguous");
  EXPECT_NE(ambiguous.body.find("Ambiguous merge inserts"), std::string::npos);
  ExpectError(SendArrow("/v1/table/d/merge_insert?on=id&when_matched_update_all=true"
                        "&when_matched_update_all_filt=target.id%20%3E",
                        Stream(0, 1)),
              400, 13, "condition");
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(DataPlaneTest, AddColumnsFromSql) {
  auto added = client_->Post(
      "/v1/table/d/add_columns",
      {{"new_columns", json::array({json{{"name", "twice"}, {"expression", "id * 2"}},
                                    json{{"name", "shout"}, {"expression", "upper(name)"}}})}});
  ASSERT_EQ(added.status, 200) << added.body;
  EXPECT_EQ(added.Json()["version"], 3);
  EXPECT_EQ(Count("d", "twice = id * 2 AND shout = upper(name)"), "100");
  auto rows = Rows(client_->Post(
      "/v1/table/d/query",
      {{"k", 3}, {"vector", json::array()}, {"filter", "id >= 97"}, {"columns", {"twice"}}}));
  EXPECT_EQ(Column<int64_t>(rows, "twice"), (std::vector<int64_t>{194, 196, 198}));

  // A type change: the spec's type name and Lance's both.
  auto cast =
      client_->Post("/v1/table/d/alter_columns",
                    {{"alterations",
                      json::array({json{{"path", "twice"}, {"data_type", {{"type", "int32"}}}}})}});
  ASSERT_EQ(cast.status, 200) << cast.body;
  EXPECT_EQ(cast.Json()["version"], 4);
  auto as_double = client_->Post(
      "/v1/table/d/alter_columns",
      {{"alterations", json::array({json{{"path", "twice"}, {"data_type", "double"}}})}});
  ASSERT_EQ(as_double.status, 200) << as_double.body;
  EXPECT_EQ(Count("d", "twice = id * 2"), "100");
  auto described = client_->Post("/v1/table/d/describe/", json::object());
  ASSERT_EQ(described.status, 200) << described.body;
  EXPECT_EQ(described.Json()["schema"]["fields"][3]["type"], json({{"type", "double"}}));

  const auto before = Snapshot();
  auto add = [&](const json& entry) {
    return client_->Post("/v1/table/d/add_columns", {{"new_columns", json::array({entry})}});
  };
  ExpectError(client_->Post("/v1/table/d/add_columns", json::object()), 400, 13, "none");
  ExpectError(add({{"name", "id"}, {"expression", "1"}}), 400, 13, "exists");
  ExpectError(add({{"name", "c"}, {"expression", "id +"}}), 400, 13, "SQL");
  ExpectError(add({{"name", "c"}}), 400, 13, "no expression");
  ExpectError(add({{"name", "c"}, {"computed", "id * 2"}}), 406, 0, "computed");
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(DataPlaneTest, DeleteByPredicate) {
  auto deleted = client_->Post("/v1/table/d/delete", {{"predicate", "id % 2 = 0 OR id >= 90"}});
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_EQ(deleted.Json()["version"], 3);
  EXPECT_EQ(deleted.Json()["num_deleted_rows"], 55);
  EXPECT_EQ(Count("d"), "45");
  EXPECT_EQ(Count("d", "id % 2 = 0"), "0");
  // Nothing matches: no new version.
  auto none = client_->Post("/v1/table/d/delete", {{"predicate", "id > 1000"}});
  ASSERT_EQ(none.status, 200) << none.body;
  EXPECT_EQ(none.Json()["version"], 3);
  EXPECT_EQ(none.Json()["num_deleted_rows"], 0);
  // Vector search no longer finds deleted rows (v of 22 was [2, 2]).
  auto rows =
      Rows(client_->Post("/v1/table/d/query", {{"k", 1}, {"vector", {2, 2}}, {"columns", {"id"}}}));
  EXPECT_NE(Column<int64_t>(rows, "id"), (std::vector<int64_t>{22}));
  // Every row: the fragments leave the manifest.
  auto all = client_->Post("/v1/table/d/delete", {{"predicate", "true"}});
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(all.Json()["num_deleted_rows"], 45);
  EXPECT_EQ(Count("d"), "0");
}

// Inserts and creates stream: a body many times the server's body limit and its budget of body
// bytes in flight is written as it arrives; one over the streamed limit is 413 and leaves the
// table byte-identical. A large result streams back chunked and reads as one Arrow IPC file.
TEST_F(DataPlaneTest, WritesAndResultsStreamPastTheBodyLimits) {
  StopServer();
  HttpServerOptions options;
  options.max_body_bytes = 64 * 1024;
  options.max_inflight_body_bytes = 1 << 20;
  StartServer(options);  // a fresh store: `d` again, from a (small) create
  ASSERT_EQ(SendArrow("/v1/table/d/create", Stream(0, 100)).status, 200);
  const std::string big = Stream(100, 100'000);
  ASSERT_GT(big.size(), 2u << 20);
  auto inserted = SendArrow("/v1/table/d/insert", big);
  ASSERT_EQ(inserted.status, 200) << inserted.body;
  EXPECT_EQ(inserted.Json()["num_inserted_rows"], 100'000);
  EXPECT_EQ(Count("d"), "100100");
  auto created = SendArrow("/v1/table/big/create", big);
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(Count("big"), "100000");
  // A merge-insert source is read whole: the body limit applies.
  ExpectError(SendArrow("/v1/table/d/merge_insert?on=id&when_matched_update_all=true", big), 413,
              13, "merge source");

  Reply result = client_->Post("/v1/table/d/query",
                               {{"k", 200'000}, {"vector", json::array()}, {"columns", {"id"}}});
  EXPECT_EQ(result.headers["transfer-encoding"], "chunked");
  auto rows = Rows(result);
  auto ids = Column<int64_t>(rows, "id");
  ASSERT_EQ(ids.size(), 100'100u);
  EXPECT_EQ(ids.front(), 0);
  EXPECT_EQ(ids.back(), 100'099);

  auto kept = memory_;
  StopServer();
  service_options_.max_streamed_body_bytes = 1 << 20;
  StartServer(options, false, false, "", kept);
  memory_ = kept;
  const auto before = Snapshot();
  ExpectError(SendArrow("/v1/table/d/insert", big), 413, 13, "over the streamed limit");
  ExpectError(SendArrow("/v1/table/huge/create", big), 413, 13, "create over the limit");
  EXPECT_EQ(Snapshot(), before);
  ExpectError(client_->Post("/v1/table/huge/describe", json::object()), 404, 4);
  EXPECT_EQ(Count("d"), "100100");
}

using quiver::testing::TickingClock;

// LanceDB's `x-request-timeout-ms` (and the spec's merge-insert `timeout`): a query past it is
// answered 503 (retryable) with its error body; a malformed one is 400 and changes nothing.
TEST_F(DataPlaneTest, RequestTimeoutsAreHonouredAndChecked) {
  const std::string query = R"({"k": 50, "vector": [], "columns": ["id"]})";
  auto within =
      client_->Send("POST", "/v1/table/d/query", query, {{"x-request-timeout-ms", "60000"}});
  EXPECT_EQ(within.status, 200) << within.body;
  const auto before = Snapshot();
  for (const char* bad : {"soon", "0", "-5", "1.5"}) {
    ExpectError(client_->Send("POST", "/v1/table/d/query", query, {{"x-request-timeout-ms", bad}}),
                400, 13, bad);
  }
  ExpectError(SendArrow("/v1/table/d/merge_insert?on=id&when_matched_update_all=true&timeout=ever",
                        Stream(0, 1)),
              400, 13, "merge timeout");
  EXPECT_EQ(Snapshot(), before);
  auto merged = SendArrow("/v1/table/d/merge_insert?on=id&when_matched_update_all=true&timeout=30s",
                          Stream(0, 1));
  EXPECT_EQ(merged.status, 200) << merged.body;

  // On a clock that moves on each read, a 1 ms budget has passed by the first batch.
  TickingClock clock(1'700'000'000'000'000'000);
  auto kept = memory_;
  StopServer();
  service_clock_ = &clock;
  StartServer(HttpServerOptions{}, false, false, "", kept);
  memory_ = kept;
  auto late = client_->Send("POST", "/v1/table/d/query", query, {{"x-request-timeout-ms", "1"}});
  ExpectError(late, 503, 17, "timed out");
  EXPECT_NE(late.Json()["error"].get<std::string>().find("timeout of 1 ms"), std::string::npos)
      << late.body;
  EXPECT_EQ(late.headers["retry-after"], "1");
  ExpectError(client_->Send("POST", "/v1/table/d/count_rows", R"({"predicate": "id > 3"})",
                            {{"x-request-timeout-ms", "1"}}),
              503, 17, "count timed out");
  EXPECT_EQ(client_->Send("POST", "/v1/table/d/query", query).status, 200);  // none: no limit
  StopServer();
  service_clock_ = nullptr;
}

// LanceDB sends every insert chunked: the handler reads the body to its terminator, so the
// connection serves the next request; bytes after the IPC stream's end refuse the write.
TEST_F(DataPlaneTest, ChunkedInsertsKeepTheConnectionAndRefuseTrailingBytes) {
  auto chunked = [](const std::string& target, const std::string& body) {
    std::string out = "POST " + target +
                      " HTTP/1.1\r\nHost: x\r\nContent-Type: application/vnd.apache.arrow.stream"
                      "\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (size_t at = 0; at < body.size(); at += 1000) {
      const std::string part = body.substr(at, 1000);
      out += fmt::format("{:x}\r\n", part.size()) + part + "\r\n";
    }
    return out + "0\r\n\r\n";
  };
  RawConnection conn(http_->port());
  ASSERT_TRUE(conn.Send(chunked("/v1/table/d/insert", Stream(100, 500))));
  Reply inserted = conn.Read();
  EXPECT_EQ(inserted.status, 200) << inserted.body;
  EXPECT_TRUE(inserted.keep_alive);
  ASSERT_TRUE(conn.Send("GET /v1/namespace/%24/list HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(conn.Read().status, 200);  // the same connection

  const auto before = Snapshot();
  ExpectError(SendArrow("/v1/table/d/insert", Stream(600, 5) + "trailing"), 400, 13, "trailing");
  EXPECT_EQ(Snapshot(), before);
  EXPECT_EQ(Count("d"), "600");
}

}  // namespace
}  // namespace quiver::server::testing
