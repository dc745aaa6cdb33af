// query::RunQuery / CountRows / ExplainQuery / AnalyzeQuery over tables written here (several
// fragments, nulls, deletions): plain queries (filter, projection, expressions, offset / limit,
// order by, special columns) and exact vector search checked against a brute-force reference
// computed in double precision (prefilter, postfilter, ranges, several query vectors, ties).
#include "query/query.h"

#include "query/delete_where.h"
#include "query/top_k.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <gtest/gtest.h>

#include "arrow/array.h"
#include "arrow/concatenate.h"
#include "store/memory_store.h"
#include "table/dataset.h"
#include "table/delete_rows.h"
#include "table/write.h"
#include "testing/status_matchers.h"
#include "testing/ticking_clock.h"

namespace quiver::query {
namespace {

constexpr int kDim = 5;
constexpr int64_t kRows = 300;

std::shared_ptr<const arrow::Schema> TableSchema() {
  auto schema = std::make_shared<arrow::Schema>();
  schema->fields.emplace_back("id", arrow::DataType::Int64(), false);
  schema->fields.emplace_back("cat", arrow::DataType::Utf8(), true);
  schema->fields.emplace_back("score", arrow::DataType::Float64(), true);
  schema->fields.emplace_back(
      "v",
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float32(), true}, kDim),
      true);
  return schema;
}

// Row i: cat = "c<i % 3>" (null when i % 11 == 5), score = (i * 37) % 100 (null when i % 13 == 0),
// v = small integers from a seeded generator (so distances tie often), null when i % 29 == 7.
struct Row {
  int64_t id;
  std::optional<std::string> cat;
  std::optional<double> score;
  std::optional<std::vector<float>> v;
};

std::vector<Row> MakeRows() {
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> value(-3, 3);
  std::vector<Row> rows;
  for (int64_t i = 0; i < kRows; ++i) {
    Row r;
    r.id = i;
    if (i % 11 != 5) r.cat = "c" + std::to_string(i % 3);
    if (i % 13 != 0) r.score = static_cast<double>((i * 37) % 100);
    std::vector<float> v(kDim);
    for (auto& x : v) x = static_cast<float>(value(rng));
    if (i % 29 != 7) r.v = v;
    rows.push_back(std::move(r));
  }
  return rows;
}

arrow::RecordBatch ToBatch(const std::vector<Row>& rows, size_t begin, size_t end) {
  std::vector<int64_t> ids;
  std::vector<std::string> cats;
  std::vector<bool> cat_valid, score_valid, v_valid;
  std::vector<double> scores;
  std::vector<float> items;
  for (size_t i = begin; i < end; ++i) {
    const Row& r = rows[i];
    ids.push_back(r.id);
    cats.push_back(r.cat.value_or(""));
    cat_valid.push_back(r.cat.has_value());
    scores.push_back(r.score.value_or(0));
    score_valid.push_back(r.score.has_value());
    v_valid.push_back(r.v.has_value());
    for (int d = 0; d < kDim; ++d) items.push_back(r.v ? (*r.v)[static_cast<size_t>(d)] : 0.0f);
  }
  auto schema = TableSchema();
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = static_cast<int64_t>(end - begin);
  batch.columns = {*arrow::MakeFixedArray(arrow::DataType::Int64(), ids),
                   *arrow::MakeBinaryArray(arrow::DataType::Utf8(), cats, cat_valid),
                   *arrow::MakeFixedArray(arrow::DataType::Float64(), scores, score_valid),
                   *arrow::MakeFixedSizeListArray(
                       schema->fields[3].type, batch.length,
                       *arrow::MakeFixedArray(arrow::DataType::Float32(), items), v_valid)};
  return batch;
}

// A table of MakeRows() in fragments of 64 rows (the last one short).
std::shared_ptr<const table::Dataset> MakeTable(const std::vector<Row>& rows,
                                                std::shared_ptr<ObjectStore>* root_out = nullptr) {
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  std::vector<arrow::RecordBatch> batches;
  for (size_t b = 0; b < rows.size(); b += 100) {
    batches.push_back(ToBatch(rows, b, std::min(rows.size(), b + 100)));
  }
  auto stream = arrow::MakeVectorStream(TableSchema(), std::move(batches));
  table::WriteOptions options;
  options.mode = table::WriteMode::kCreate;
  options.max_rows_per_file = 64;
  auto written = table::WriteData(table::CommitTarget{root, std::nullopt}, *stream, options);
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  auto dataset = table::Dataset::Open(root);
  EXPECT_TRUE(dataset.ok()) << dataset.status().ToString();
  if (root_out != nullptr) *root_out = root;
  return *dataset;
}

// The whole answer as one batch.
Result<arrow::RecordBatch> Collect(arrow::BatchStream& stream) {
  std::vector<std::vector<arrow::ArrayPtr>> parts(stream.schema()->fields.size());
  arrow::RecordBatch out;
  out.schema = stream.schema();
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream.Next());
    if (!batch) break;
    EXPECT_EQ(batch->schema->fields.size(), parts.size());
    for (size_t c = 0; c < parts.size(); ++c) parts[c].push_back(batch->columns[c]);
    out.length += batch->length;
  }
  for (size_t c = 0; c < parts.size(); ++c) {
    if (parts[c].empty()) {
      QV_ASSIGN_OR_RETURN(auto empty, arrow::MakeNullArray(out.schema->fields[c].type, 0));
      out.columns.push_back(std::move(empty));
      continue;
    }
    QV_ASSIGN_OR_RETURN(auto column, arrow::Concatenate(parts[c]));
    out.columns.push_back(std::move(column));
  }
  return out;
}

Result<arrow::RecordBatch> RunAll(const std::shared_ptr<const table::Dataset>& dataset,
                                  const QueryRequest& request) {
  QV_ASSIGN_OR_RETURN(auto stream, RunQuery(dataset, request));
  return Collect(*stream);
}

std::vector<std::string> Names(const arrow::RecordBatch& batch) {
  std::vector<std::string> names;
  for (const auto& f : batch.schema->fields) names.push_back(f.name);
  return names;
}

const arrow::ArrayData& Column(const arrow::RecordBatch& batch, const std::string& name) {
  const int at = batch.schema->FieldIndex(name);
  EXPECT_GE(at, 0) << name;
  return *batch.columns[static_cast<size_t>(std::max(at, 0))];
}

template <typename T>
std::vector<T> ValuesOf(const arrow::RecordBatch& batch, const std::string& name) {
  const auto& column = Column(batch, name);
  return std::vector<T>(arrow::Values<T>(column), arrow::Values<T>(column) + column.length);
}

// ---- the brute-force reference ----

double RefDistance(const std::vector<float>& v, const std::vector<double>& q, DistanceType type) {
  double dot = 0, l2 = 0, vv = 0, qq = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    dot += v[i] * q[i];
    l2 += (v[i] - q[i]) * (v[i] - q[i]);
    vv += v[i] * v[i];
    qq += q[i] * q[i];
  }
  switch (type) {
    case DistanceType::kL2:
      return l2;
    case DistanceType::kDot:
      return 1 - dot;
    case DistanceType::kCosine:
      return vv == 0 || qq == 0 ? NAN : 1 - dot / std::sqrt(vv * qq);
    case DistanceType::kHamming:
      break;
  }
  return NAN;
}

// The ids a flat search answers: rows passing `keep`, nearest first, ties by id (scan order).
std::vector<std::pair<int64_t, double>> RefNearest(const std::vector<Row>& rows,
                                                   const std::vector<double>& q, DistanceType type,
                                                   const std::function<bool(const Row&)>& keep) {
  std::vector<std::pair<int64_t, double>> out;
  for (const Row& r : rows) {
    if (!r.v || !keep(r)) continue;
    const double d = RefDistance(*r.v, q, type);
    if (std::isnan(d)) continue;
    out.emplace_back(r.id, d);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    // float32 as Lance reports it; ties decided on the reported value
    return static_cast<float>(a.second) < static_cast<float>(b.second);
  });
  return out;
}

// ---- distances ----

TEST(Distance, ParsesLanceNames) {
  EXPECT_EQ(*ParseDistanceType("L2"), DistanceType::kL2);
  EXPECT_EQ(*ParseDistanceType("euclidean"), DistanceType::kL2);
  EXPECT_EQ(*ParseDistanceType("Cosine"), DistanceType::kCosine);
  EXPECT_EQ(*ParseDistanceType("dot"), DistanceType::kDot);
  EXPECT_EQ(*ParseDistanceType("hamming"), DistanceType::kHamming);
  auto bad = ParseDistanceType("manhattan");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("manhattan"), std::string::npos);
}

// Every kernel against the double-precision reference, at dimensions that exercise the eight
// lanes and the tail, with nulls and a zero vector.
TEST(Distance, Float32MatchesReference) {
  std::mt19937 rng(7);
  std::normal_distribution<float> g(0, 1);
  for (int dim : {1, 3, 8, 13, 64, 100}) {
    const int n = 17;
    std::vector<float> items(static_cast<size_t>(n * dim));
    for (auto& x : items) x = g(rng);
    for (int d = 0; d < dim; ++d) items[static_cast<size_t>(4 * dim + d)] = 0;  // row 4: zero
    std::vector<bool> valid(n, true);
    valid[9] = false;
    auto type =
        arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float32(), true}, dim);
    auto vectors = *arrow::MakeFixedSizeListArray(
        type, n, *arrow::MakeFixedArray(arrow::DataType::Float32(), items), valid);
    std::vector<double> q(static_cast<size_t>(dim));
    for (auto& x : q) x = g(rng);
    for (DistanceType t : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
      auto prepared = PrepareQuery(q, type, "v", t);
      ASSERT_OK(prepared.status());
      std::vector<float> out(n);
      ComputeDistances(*vectors, *prepared, out.data());
      for (int r = 0; r < n; ++r) {
        SCOPED_TRACE(::testing::Message()
                     << "dim " << dim << " type " << DistanceTypeName(t) << " row " << r);
        if (r == 9) {
          EXPECT_TRUE(std::isnan(out[static_cast<size_t>(r)]));
          continue;
        }
        std::vector<float> row(items.begin() + r * dim, items.begin() + (r + 1) * dim);
        const double want = RefDistance(row, q, t);
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(out[static_cast<size_t>(r)]));
        } else {
          EXPECT_NEAR(out[static_cast<size_t>(r)], want, 1e-4 * (1 + std::abs(want)));
        }
      }
    }
  }
}

TEST(Distance, Float16AndFloat64AndSlices) {
  // float16: 1.0, 2.0, -1.0, 0.5 as bits; rows (1, 2) and (-1, 0.5)
  std::vector<uint16_t> halves = {0x3C00, 0x4000, 0xBC00, 0x3800};
  auto h_type =
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float16(), true}, 2);
  auto h = *arrow::MakeFixedSizeListArray(
      h_type, 2, *arrow::MakeFixedArray(arrow::DataType::Float16(), halves));
  auto hq = PrepareQuery({1, 1}, h_type, "h", DistanceType::kL2);
  ASSERT_OK(hq.status());
  std::vector<float> out(2);
  ComputeDistances(*h, *hq, out.data());
  EXPECT_FLOAT_EQ(out[0], 1.0f);          // (0)^2 + (1)^2
  EXPECT_FLOAT_EQ(out[1], 4.0f + 0.25f);  // (-2)^2 + (-0.5)^2

  std::vector<double> doubles = {1, 2, 3, 4, 5, 6};
  auto d_type =
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float64(), true}, 2);
  auto d = *arrow::MakeFixedSizeListArray(
      d_type, 3, *arrow::MakeFixedArray(arrow::DataType::Float64(), doubles));
  auto dq = PrepareQuery({1, 0}, d_type, "d", DistanceType::kDot);
  ASSERT_OK(dq.status());
  // a slice starting at row 1: the kernel honours the parent's offset
  auto slice = arrow::Slice(d, 1, 2);
  ComputeDistances(*slice, *dq, out.data());
  EXPECT_FLOAT_EQ(out[0], 1 - 3.0f);
  EXPECT_FLOAT_EQ(out[1], 1 - 5.0f);
}

TEST(Distance, HammingCountsDifferingBits) {
  std::vector<uint8_t> bytes = {0x00, 0xFF, 0x0F, 0x01, 0xAA, 0x55};
  auto type =
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::UInt8(), true}, 2);
  auto vectors = *arrow::MakeFixedSizeListArray(
      type, 3, *arrow::MakeFixedArray(arrow::DataType::UInt8(), bytes));
  auto q = PrepareQuery({0x0F, 0x01}, type, "b", DistanceType::kHamming);
  ASSERT_OK(q.status());
  std::vector<float> out(3);
  ComputeDistances(*vectors, *q, out.data());
  EXPECT_EQ(out[0], 4 + 7);  // 0x00^0x0F, 0xFF^0x01
  EXPECT_EQ(out[1], 0);
  EXPECT_EQ(out[2], 4 + 3);  // 0xAA^0x0F = 0xA5, 0x55^0x01 = 0x54
}

TEST(Distance, RefusesWhatLanceRefuses) {
  auto f32 =
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float32(), true}, 2);
  auto hamming = PrepareQuery({1, 2}, f32, "v", DistanceType::kHamming);
  ASSERT_FALSE(hamming.ok());
  EXPECT_EQ(hamming.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(hamming.status().message().find("hamming does not support Float32"), std::string::npos)
      << hamming.status().ToString();
  auto u8 = arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::UInt8(), true}, 2);
  for (DistanceType t : {DistanceType::kL2, DistanceType::kCosine, DistanceType::kDot}) {
    auto refused = PrepareQuery({1, 2}, u8, "b", t);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().message(), std::string("Distance type ") + DistanceTypeName(t) +
                                              " does not support UInt8 vectors");
  }
  auto dim = PrepareQuery({1, 2, 3}, f32, "v", DistanceType::kL2);
  ASSERT_FALSE(dim.ok());
  EXPECT_NE(dim.status().message().find("query dim(3) doesn't match the column v vector dim(2)"),
            std::string::npos)
      << dim.status().ToString();
  EXPECT_TRUE(IsVectorType(f32));
  EXPECT_FALSE(IsVectorType(
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Int32(), true}, 2)));
  EXPECT_FALSE(IsVectorType(arrow::DataType::Float32()));
}

// ---- TopK ----

TEST(TopK, KeepsTheNearestAndTiesInScanOrder) {
  TopK top(3);
  const float d[] = {5, 1, 3, 1, 2, 1, 0.5};
  for (uint64_t i = 0; i < 7; ++i) {
    if (top.Admits(d[i])) top.Offer({d[i], i, 100 + i});
  }
  auto best = top.Sorted();
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].position, 6u);  // 0.5
  EXPECT_EQ(best[1].position, 1u);  // the first 1
  EXPECT_EQ(best[2].position, 3u);  // the second 1 (the third, position 5, loses the tie)
  EXPECT_EQ(best[2].row_addr, 103u);

  TopK other(3);
  other.Offer({1, 0, 200});  // a tie earlier in scan order wins
  top.Merge(other);
  best = top.Sorted();
  EXPECT_EQ(best[0].position, 6u);
  EXPECT_EQ(best[1].position, 0u);
  EXPECT_EQ(best[2].position, 1u);
}

// ---- plain queries ----

class QueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rows_ = MakeRows();
    dataset_ = MakeTable(rows_, &root_);
    ASSERT_NE(dataset_, nullptr);
    ASSERT_GT(dataset_->Stats().num_fragments, 3u);
  }
  std::vector<Row> rows_;
  std::shared_ptr<ObjectStore> root_;
  std::shared_ptr<const table::Dataset> dataset_;
};

TEST_F(QueryTest, EveryColumnByDefault) {
  auto out = RunAll(dataset_, {});
  ASSERT_OK(out.status());
  EXPECT_EQ(Names(*out), (std::vector<std::string>{"id", "cat", "score", "v"}));
  EXPECT_EQ(out->length, kRows);
  auto ids = ValuesOf<int64_t>(*out, "id");
  for (int64_t i = 0; i < kRows; ++i) EXPECT_EQ(ids[static_cast<size_t>(i)], i);
}

TEST_F(QueryTest, FilterProjectOffsetLimit) {
  QueryRequest r;
  r.filter = "cat = 'c1' AND score >= 50";
  r.columns = {"score", "id"};
  r.offset = 3;
  r.limit = 7;
  r.with_row_id = true;
  auto out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(Names(*out), (std::vector<std::string>{"score", "id", "_rowid"}));
  std::vector<int64_t> want;
  for (const Row& row : rows_) {
    if (row.cat == std::optional<std::string>("c1") && row.score && *row.score >= 50)
      want.push_back(row.id);
  }
  want = std::vector<int64_t>(want.begin() + 3, want.begin() + 10);
  EXPECT_EQ(ValuesOf<int64_t>(*out, "id"), want);
  // Without stable row ids a row id is the row's address: fragment << 32 | offset (64 per file).
  auto row_ids = ValuesOf<uint64_t>(*out, "_rowid");
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(row_ids[i],
              (static_cast<uint64_t>(want[i] / 64) << 32) | static_cast<uint64_t>(want[i] % 64));
  }
}

TEST_F(QueryTest, OffsetAndLimitWithoutAFilter) {
  QueryRequest r;
  r.columns = {"id"};
  r.offset = 60;
  r.limit = 10;  // crosses a fragment boundary
  auto out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  std::vector<int64_t> want(10);
  for (int i = 0; i < 10; ++i) want[static_cast<size_t>(i)] = 60 + i;
  EXPECT_EQ(ValuesOf<int64_t>(*out, "id"), want);
  r.offset = 1000;
  out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(out->length, 0);
}

TEST_F(QueryTest, ExpressionColumns) {
  QueryRequest r;
  r.filter = "id < 4";
  r.expressions = {{"id", "id"}, {"twice", "id * 2"}, {"upper_cat", "upper(cat)"}};
  auto out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(Names(*out), (std::vector<std::string>{"id", "twice", "upper_cat"}));
  EXPECT_EQ(ValuesOf<int64_t>(*out, "twice"), (std::vector<int64_t>{0, 2, 4, 6}));
  const auto& upper = Column(*out, "upper_cat");
  EXPECT_EQ(arrow::BinaryValue(upper, 1), "C1");
}

TEST_F(QueryTest, SpecialColumnsInFilters) {
  QueryRequest r;
  r.columns = {"id"};
  r.filter = "_rowoffset >= 62 AND _rowoffset < 66";
  auto out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(ValuesOf<int64_t>(*out, "id"), (std::vector<int64_t>{62, 63, 64, 65}));
  r.filter = "_rowaddr = " + std::to_string((uint64_t{2} << 32) | 5);
  out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(ValuesOf<int64_t>(*out, "id"), (std::vector<int64_t>{2 * 64 + 5}));
}

TEST_F(QueryTest, OrderByWithNullsAndOffset) {
  QueryRequest r;
  r.columns = {"id", "score"};
  r.order_by = {SortKey{"score", /*ascending=*/false, /*nulls_first=*/true},
                SortKey{"id", /*ascending=*/true, false}};
  r.offset = 2;
  r.limit = 40;
  r.batch_rows = 16;  // the take runs in several chunks
  auto out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  std::vector<const Row*> want;
  for (const Row& row : rows_) want.push_back(&row);
  std::stable_sort(want.begin(), want.end(), [](const Row* a, const Row* b) {
    if (a->score.has_value() != b->score.has_value()) return !a->score.has_value();
    if (a->score && *a->score != *b->score) return *a->score > *b->score;
    return a->id < b->id;
  });
  std::vector<int64_t> want_ids;
  for (size_t i = 2; i < 42; ++i) want_ids.push_back(want[i]->id);
  EXPECT_EQ(ValuesOf<int64_t>(*out, "id"), want_ids);
}

TEST_F(QueryTest, CountRows) {
  auto all = CountRows(dataset_, "");
  ASSERT_OK(all.status());
  EXPECT_EQ(*all, static_cast<uint64_t>(kRows));
  auto some = CountRows(dataset_, "cat IS NULL OR score < 10");
  ASSERT_OK(some.status());
  uint64_t want = 0;
  for (const Row& row : rows_) want += (!row.cat || (row.score && *row.score < 10)) ? 1 : 0;
  EXPECT_EQ(*some, want);
  auto bad = CountRows(dataset_, "nope > 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
}

using quiver::testing::TickingClock;

// A deadline stops a scan, a vector search and a count at the next batch (ServiceUnavailable,
// naming the timeout); a generous one changes nothing.
TEST_F(QueryTest, DeadlinePassedStopsAtTheNextBatch) {
  TickingClock clock;
  QueryRequest r;
  r.batch_rows = 16;  // many batches
  r.deadline = Deadline::After(&clock, std::chrono::milliseconds(5));
  auto stopped = RunAll(dataset_, r);
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.status().code(), StatusCode::kServiceUnavailable);
  EXPECT_NE(stopped.status().message().find("timeout of 5 ms"), std::string::npos)
      << stopped.status().ToString();

  QueryRequest knn;
  knn.batch_rows = 16;
  knn.nearest = VectorSearch{};
  knn.nearest->vectors = {std::vector<double>(kDim, 0.0)};
  knn.deadline = Deadline::After(&clock, std::chrono::milliseconds(5));
  auto knn_stopped = RunAll(dataset_, knn);
  ASSERT_FALSE(knn_stopped.ok());
  EXPECT_EQ(knn_stopped.status().code(), StatusCode::kServiceUnavailable);

  auto count =
      CountRows(dataset_, "score > 1", Deadline::After(&clock, std::chrono::milliseconds(3)));
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().code(), StatusCode::kServiceUnavailable);

  r.deadline = Deadline::After(&clock, std::chrono::hours(1));
  auto finished = RunAll(dataset_, r);
  ASSERT_OK(finished.status());
  EXPECT_EQ(finished->length, kRows);
}

TEST_F(QueryTest, DeletedRowsAreNotAnswered) {
  std::vector<uint64_t> even;
  for (uint64_t id = 0; id < kRows; id += 2) even.push_back((id / 64) << 32 | (id % 64));
  ASSERT_OK(
      table::DeleteRows(table::CommitTarget{root_, std::nullopt}, even, "id % 2 = 0").status());
  auto dataset = table::Dataset::Open(root_);
  ASSERT_OK(dataset.status());
  QueryRequest r;
  r.columns = {"id"};
  r.filter = "id < 10";
  auto out = RunAll(*dataset, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(ValuesOf<int64_t>(*out, "id"), (std::vector<int64_t>{1, 3, 5, 7, 9}));
  auto count = CountRows(*dataset, "id < 10");
  ASSERT_OK(count.status());
  EXPECT_EQ(*count, 5u);
}

// ---- bad requests ----

TEST_F(QueryTest, BadRequestsAreInvalidInputBeforeAnyRead) {
  auto expect_invalid = [&](const QueryRequest& r, const std::string& needle) {
    auto out = RunQuery(dataset_, r);
    ASSERT_FALSE(out.ok()) << needle;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidInput) << out.status().ToString();
    EXPECT_NE(out.status().message().find(needle), std::string::npos) << out.status().ToString();
  };
  QueryRequest r;
  r.filter = "id >";
  expect_invalid(r, "filter");
  r = {};
  r.columns = {"missing"};
  expect_invalid(r, "missing");
  r = {};
  r.nearest = VectorSearch{};
  r.nearest->vectors = {{1, 2, 3, 4, 5}};
  r.nearest->k = 0;
  expect_invalid(r, "k must be positive");
  r.nearest->k = 3;
  r.nearest->vectors = {{1, 2}};
  expect_invalid(r, "No vector column found to match with the query vector dimension: 2");
  r.nearest->column = "v";
  expect_invalid(r, "query dim(2) doesn't match the column v vector dim(5)");
  r.nearest->vectors = {{1, 2, 3, 4, 5}};
  r.nearest->column = "x";
  expect_invalid(r, "x");
  r.nearest->column = "id";
  expect_invalid(r, "id");
  r.nearest->column = "v";
  r.order_by = {SortKey{"id"}};
  expect_invalid(r, "order");
  r = {};
  r.filter = "_rowoffset > 1";
  r.nearest = VectorSearch{};
  r.nearest->vectors = {{1, 2, 3, 4, 5}};
  r.nearest->prefilter = false;
  expect_invalid(r, "_rowoffset");
}

// Without a column named, LanceDB searches the vector column whose dimension is the query's.
TEST(QueryColumns, TheColumnIsPickedByDimension) {
  auto schema = std::make_shared<arrow::Schema>();
  auto type2 =
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float32(), true}, 2);
  auto type3 =
      arrow::DataType::FixedSizeList(arrow::Field{"item", arrow::DataType::Float64(), true}, 3);
  schema->fields.emplace_back("v", type2, true);
  schema->fields.emplace_back("h", type2, true);
  schema->fields.emplace_back("w", type3, true);
  arrow::RecordBatch batch;
  batch.schema = schema;
  batch.length = 2;
  std::vector<float> items = {0, 0, 1, 1};
  for (int c = 0; c < 2; ++c) {
    batch.columns.push_back(*arrow::MakeFixedSizeListArray(
        type2, 2, *arrow::MakeFixedArray(arrow::DataType::Float32(), items)));
  }
  std::vector<double> items3 = {0, 0, 0, 1, 1, 1};
  batch.columns.push_back(*arrow::MakeFixedSizeListArray(
      type3, 2, *arrow::MakeFixedArray(arrow::DataType::Float64(), items3)));
  std::shared_ptr<ObjectStore> root = MemoryObjectStore::Create();
  auto stream = arrow::MakeVectorStream(schema, {batch});
  table::WriteOptions options;
  options.mode = table::WriteMode::kCreate;
  ASSERT_OK(table::WriteData(table::CommitTarget{root, std::nullopt}, *stream, options).status());
  auto dataset = table::Dataset::Open(root);
  ASSERT_OK(dataset.status());
  QueryRequest r;
  r.nearest = VectorSearch{};
  r.nearest->vectors = {{1, 1}};
  auto refused = RunQuery(*dataset, r);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "More than one vector columns found, please specify which column to create index "
                "or query: [\"v\", \"h\"]"),
            std::string::npos)
      << refused.status().ToString();
  r.nearest->vectors = {{1, 1, 1, 1, 1}};
  refused = RunQuery(*dataset, r);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "No vector column found to match with the query vector dimension: 5"),
            std::string::npos)
      << refused.status().ToString();
  r.nearest->vectors = {{1, 1, 1}};
  r.columns = {"v"};
  auto out = RunAll(*dataset, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(Names(*out), (std::vector<std::string>{"v", "_distance"}));
  EXPECT_EQ(ValuesOf<float>(*out, "_distance"), (std::vector<float>{0, 3}));  // w, nearest first
  r.nearest->vectors = {{1, 1}};
  r.nearest->column = "h";
  out = RunAll(*dataset, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(ValuesOf<float>(*out, "_distance"), (std::vector<float>{0, 2}));
}

// ---- vector search ----

struct KnnCase {
  std::string name;
  DistanceType distance;
  std::string filter;
  bool prefilter;
  uint64_t k;
  uint64_t offset;
  std::optional<double> lower, upper;
};

class KnnTest : public QueryTest, public ::testing::WithParamInterface<KnnCase> {};

TEST_P(KnnTest, MatchesBruteForce) {
  const KnnCase& c = GetParam();
  const std::vector<std::vector<double>> queries = {{1, 0, -1, 2, 0}, {0, 0, 0, 0, 1}};
  QueryRequest r;
  r.columns = {"id"};
  r.filter = c.filter;
  r.offset = c.offset;
  r.batch_rows = 50;  // scan and take in several batches
  r.nearest = VectorSearch{};
  r.nearest->vectors = queries;
  r.nearest->k = c.k;
  r.nearest->distance = c.distance;
  r.nearest->prefilter = c.prefilter;
  r.nearest->lower_bound = c.lower;
  r.nearest->upper_bound = c.upper;
  auto out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  EXPECT_EQ(Names(*out), (std::vector<std::string>{"query_index", "id", "_distance"}));

  // the filter in C++: "score >= 40" or none
  auto passes = [&](const Row& row) {
    if (c.filter.empty()) return true;
    return row.score.has_value() && *row.score >= 40;
  };
  auto in_range = [&](double d) {
    const float f = static_cast<float>(d);
    return (!c.lower || f >= static_cast<float>(*c.lower)) &&
           (!c.upper || f < static_cast<float>(*c.upper));
  };
  std::vector<int32_t> want_q;
  std::vector<int64_t> want_ids;
  std::vector<float> want_d;
  for (size_t q = 0; q < queries.size(); ++q) {
    std::vector<std::pair<int64_t, double>> ranked;
    if (c.prefilter) {
      for (auto& p : RefNearest(rows_, queries[q], c.distance, passes)) {
        if (in_range(p.second)) ranked.push_back(p);
      }
      if (ranked.size() > c.k + c.offset) ranked.resize(c.k + c.offset);
      ranked.erase(ranked.begin(), ranked.begin() + static_cast<ptrdiff_t>(
                                                        std::min<size_t>(ranked.size(), c.offset)));
    } else {
      // k + offset nearest, then the filter, then offset
      std::vector<std::pair<int64_t, double>> all;
      for (auto& p : RefNearest(rows_, queries[q], c.distance, [](const Row&) { return true; })) {
        if (in_range(p.second)) all.push_back(p);
      }
      if (all.size() > c.k + c.offset) all.resize(c.k + c.offset);
      size_t seen = 0;
      for (auto& p : all) {
        if (!passes(rows_[static_cast<size_t>(p.first)])) continue;
        if (seen++ < c.offset) continue;
        ranked.push_back(p);
      }
    }
    for (auto& p : ranked) {
      want_q.push_back(static_cast<int32_t>(q));
      want_ids.push_back(p.first);
      want_d.push_back(static_cast<float>(p.second));
    }
  }
  EXPECT_EQ(ValuesOf<int32_t>(*out, "query_index"), want_q);
  // Integer vectors make l2 and dot exact, so their ids must match exactly. Cosine divides by
  // norms: two parallel vectors have the same true distance and float results one ulp apart,
  // so where the ids differ their true distances must tie.
  auto got_ids = ValuesOf<int64_t>(*out, "id");
  ASSERT_EQ(got_ids.size(), want_ids.size());
  for (size_t i = 0; i < got_ids.size(); ++i) {
    if (got_ids[i] == want_ids[i]) continue;
    const auto& q = queries[static_cast<size_t>(want_q[i])];
    const Row& a = rows_[static_cast<size_t>(got_ids[i])];
    const Row& b = rows_[static_cast<size_t>(want_ids[i])];
    ASSERT_TRUE(a.v && b.v);
    EXPECT_EQ(c.distance, DistanceType::kCosine) << "row " << i;
    EXPECT_NEAR(RefDistance(*a.v, q, c.distance), RefDistance(*b.v, q, c.distance), 1e-6)
        << "row " << i << ": id " << got_ids[i] << " vs " << want_ids[i];
  }
  auto got_d = ValuesOf<float>(*out, "_distance");
  ASSERT_EQ(got_d.size(), want_d.size());
  for (size_t i = 0; i < got_d.size(); ++i) EXPECT_NEAR(got_d[i], want_d[i], 1e-5) << i;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, KnnTest,
    ::testing::Values(KnnCase{"l2", DistanceType::kL2, "", true, 10, 0, {}, {}},
                      KnnCase{"l2_offset", DistanceType::kL2, "", true, 7, 5, {}, {}},
                      KnnCase{"dot", DistanceType::kDot, "", true, 12, 0, {}, {}},
                      KnnCase{"cosine", DistanceType::kCosine, "", true, 9, 0, {}, {}},
                      KnnCase{"prefilter", DistanceType::kL2, "score >= 40", true, 15, 2, {}, {}},
                      KnnCase{"postfilter", DistanceType::kL2, "score >= 40", false, 15, 2, {}, {}},
                      KnnCase{"range", DistanceType::kL2, "", true, 50, 0, 4.0, 9.0},
                      KnnCase{"range_cosine", DistanceType::kCosine, "score >= 40", true, 400, 0,
                              0.5, 1.0},
                      KnnCase{"k_beyond_rows", DistanceType::kL2, "", true, 1000, 0, {}, {}}),
    [](const ::testing::TestParamInfo<KnnCase>& p) { return p.param.name; });

TEST_F(QueryTest, VectorSearchColumnsAndSpecialColumns) {
  QueryRequest r;
  r.columns = {"cat"};
  r.with_row_id = true;
  r.nearest = VectorSearch{};
  r.nearest->vectors = {{0, 0, 0, 0, 0}};
  r.nearest->k = 3;
  auto out = RunAll(dataset_, r);
  ASSERT_OK(out.status());
  // one query vector: no query_index
  EXPECT_EQ(Names(*out), (std::vector<std::string>{"cat", "_distance", "_rowid"}));
  EXPECT_EQ(out->length, 3);
  auto d = ValuesOf<float>(*out, "_distance");
  EXPECT_TRUE(std::is_sorted(d.begin(), d.end()));
}

// ---- explain / analyze ----

TEST_F(QueryTest, ExplainNamesEveryStep) {
  QueryRequest r;
  r.filter = "score > 3";
  r.columns = {"id"};
  r.nearest = VectorSearch{};
  r.nearest->vectors = {{0, 0, 0, 0, 1}};
  r.nearest->prefilter = false;
  auto plan = ExplainQuery(dataset_, r, /*verbose=*/false);
  ASSERT_OK(plan.status());
  for (const char* step : {"KNN", "Take", "Filter", "Scan"}) {
    EXPECT_NE(plan->find(step), std::string::npos) << step << " in\n" << *plan;
  }
  r.nearest->k = 0;
  EXPECT_FALSE(ExplainQuery(dataset_, r, false).ok());
}

TEST_F(QueryTest, AnalyzeCountsRowsAndBytes) {
  QueryRequest r;
  r.filter = "score > 3";
  r.columns = {"id"};
  auto analyzed = AnalyzeQuery(dataset_, r);
  ASSERT_OK(analyzed.status());
  uint64_t want = 0;
  for (const Row& row : rows_) want += (row.score && *row.score > 3) ? 1 : 0;
  EXPECT_NE(analyzed->find("rows: " + std::to_string(want)), std::string::npos) << *analyzed;
  EXPECT_NE(analyzed->find("bytes_read="), std::string::npos) << *analyzed;
  EXPECT_EQ(analyzed->find("bytes_read=0"), std::string::npos) << *analyzed;
}

// ---- delete by predicate ----

TEST_F(QueryTest, DeleteWhereRemovesWhatTheFilterSelects) {
  const table::CommitTarget target{root_, std::nullopt};
  auto blank = DeleteWhere(target, "  ");
  ASSERT_FALSE(blank.ok());
  EXPECT_EQ(blank.status().code(), StatusCode::kInvalidInput);
  EXPECT_FALSE(DeleteWhere(target, "nope > 1").ok());
  auto none = DeleteWhere(target, "id < 0");
  ASSERT_OK(none.status());
  EXPECT_EQ(none->rows_deleted, 0u);
  EXPECT_EQ(none->version, 1u);  // nothing committed
  auto deleted = DeleteWhere(target, "cat = 'c2' OR score IS NULL");
  ASSERT_OK(deleted.status());
  uint64_t want = 0;
  for (const Row& row : rows_)
    want += (row.cat == std::optional<std::string>("c2") || !row.score) ? 1 : 0;
  EXPECT_EQ(deleted->rows_deleted, want);
  EXPECT_EQ(deleted->version, 2u);
  auto dataset = table::Dataset::Open(root_);
  ASSERT_OK(dataset.status());
  EXPECT_EQ(*CountRows(*dataset, ""), kRows - want);
  EXPECT_EQ(*CountRows(*dataset, "cat = 'c2' OR score IS NULL"), 0u);
  // again: nothing left to delete
  auto again = DeleteWhere(target, "cat = 'c2' OR score IS NULL");
  ASSERT_OK(again.status());
  EXPECT_EQ(again->rows_deleted, 0u);
  EXPECT_EQ(again->version, 2u);
}

}  // namespace
}  // namespace quiver::query
