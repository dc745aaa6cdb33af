// The query engine (query.h): executes a Plan (internal/plan.h).
#include "query/query.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>

#include "arrow/concatenate.h"
#include "common/mutex.h"
#include "common/thread_pool.h"
#include "expr/eval.h"
#include "format/lance_proto.h"
#include "query/internal/plan.h"
#include "query/internal/sort_keys.h"
#include "query/top_k.h"
#include "store/counting_store.h"
#include "table/scan.h"
#include "table/take.h"

namespace quiver::query {

using internal::Metrics;
using internal::OutputColumn;
using internal::Plan;
using internal::StepMetrics;

namespace {

// Adds a step's elapsed time on scope exit (when metrics are being kept).
class Timer {
 public:
  explicit Timer(StepMetrics* step) : step_(step), start_(std::chrono::steady_clock::now()) {}
  ~Timer() {
    if (step_ != nullptr) {
      step_->nanos += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                std::chrono::steady_clock::now() - start_)
                                                .count());
    }
  }

 private:
  StepMetrics* step_;
  std::chrono::steady_clock::time_point start_;
};

StepMetrics* Step(Metrics* m, StepMetrics Metrics::*field) {
  return m == nullptr ? nullptr : &(m->*field);
}

// The scan a plan reads (every fragment, or one), with `_rowoffset` appended when the plan uses
// it.
class PlanScan {
 public:
  static Result<PlanScan> Open(const std::shared_ptr<const table::Dataset>& dataset,
                               const Plan& plan, uint64_t offset, std::optional<uint64_t> limit,
                               Metrics* metrics, std::optional<size_t> fragment = std::nullopt) {
    table::ScanOptions options;
    if (fragment) {
      options.fragments_begin = *fragment;
      options.fragments_end = *fragment + 1;
    }
    options.columns = plan.scan_columns;
    options.with_row_id = plan.scan_row_id;
    options.with_row_addr = plan.scan_row_addr;
    options.offset = offset;
    options.limit = limit;
    options.batch_rows = plan.request.batch_rows;
    PlanScan scan;
    QV_ASSIGN_OR_RETURN(scan.stream_, table::Scan(dataset, options));
    scan.deadline_ = plan.request.deadline;
    scan.row_offset_ = plan.row_offset;
    scan.next_offset_ = offset;
    scan.metrics_ = metrics;
    auto schema = std::make_shared<arrow::Schema>(*scan.stream_->schema());
    if (scan.row_offset_) {
      schema->fields.push_back(arrow::Field{"_rowoffset", arrow::DataType::UInt64(), false});
    }
    scan.schema_ = std::move(schema);
    return scan;
  }

  const std::shared_ptr<const arrow::Schema>& schema() const { return schema_; }

  Result<std::optional<arrow::RecordBatch>> Next() {
    Timer timer(Step(metrics_, &Metrics::scan));
    QV_ASSIGN_OR_RETURN(auto batch, stream_->Next());
    if (!batch) return batch;  // a scan that has ended is done, deadline or not
    if (deadline_ && deadline_->Expired()) return DeadlineExceeded(*deadline_, "the query");
    batch->schema = schema_;
    if (row_offset_) {
      std::vector<uint64_t> offsets(static_cast<size_t>(batch->length));
      for (auto& o : offsets) o = next_offset_++;
      QV_ASSIGN_OR_RETURN(auto column, arrow::MakeFixedArray(arrow::DataType::UInt64(), offsets));
      batch->columns.push_back(std::move(column));
    }
    if (metrics_ != nullptr) metrics_->scan.rows_out += static_cast<uint64_t>(batch->length);
    return batch;
  }

 private:
  std::unique_ptr<arrow::BatchStream> stream_;
  std::shared_ptr<const arrow::Schema> schema_;
  bool row_offset_ = false;
  uint64_t next_offset_ = 0;
  Metrics* metrics_ = nullptr;
  std::optional<Deadline> deadline_;
};

Result<arrow::ArrayPtr> ColumnByName(const arrow::RecordBatch& batch, const std::string& name) {
  const int at = batch.schema->FieldIndex(name);
  if (at < 0) return Status::Internal(fmt::format("query: column '{}' missing from a batch", name));
  return batch.columns[static_cast<size_t>(at)];
}

// The rows of `batch` where keep[i].
Result<arrow::RecordBatch> Select(const arrow::RecordBatch& batch, const std::vector<bool>& keep) {
  arrow::RecordBatch out;
  out.schema = batch.schema;
  for (const auto& column : batch.columns) {
    QV_ASSIGN_OR_RETURN(auto selected, arrow::SelectRows(column, keep));
    out.columns.push_back(std::move(selected));
  }
  out.length = 0;
  for (bool k : keep) out.length += k ? 1 : 0;
  return out;
}

// The output columns over `source` (rows already final). `distances` / `query_index` feed the
// columns of a vector search.
Result<arrow::RecordBatch> Project(const Plan& plan, const arrow::RecordBatch& source,
                                   const std::vector<float>* distances,
                                   const std::vector<int32_t>* query_index, Metrics* metrics) {
  Timer timer(Step(metrics, &Metrics::project));
  arrow::RecordBatch out;
  out.schema = plan.output_schema;
  out.length = source.length;
  for (size_t c = 0; c < plan.outputs.size(); ++c) {
    const OutputColumn& o = plan.outputs[c];
    arrow::ArrayPtr column;
    switch (o.kind) {
      case OutputColumn::Kind::kSource: {
        QV_ASSIGN_OR_RETURN(column, ColumnByName(source, o.source));
        break;
      }
      case OutputColumn::Kind::kExpression: {
        auto value = expr::Evaluate(*o.expression, source);
        if (!value.ok()) return value.status().WithContext(fmt::format("column '{}'", o.name));
        column = std::move(*value);
        if (!(column->type == plan.output_schema->fields[c].type)) {
          return Status::Internal(fmt::format("query: column '{}' evaluated to {}, planned {}",
                                              o.name, column->type.ToString(),
                                              plan.output_schema->fields[c].type.ToString()));
        }
        break;
      }
      case OutputColumn::Kind::kDistance: {
        QV_ASSIGN_OR_RETURN(column, arrow::MakeFixedArray(arrow::DataType::Float32(), *distances));
        break;
      }
      case OutputColumn::Kind::kQueryIndex: {
        QV_ASSIGN_OR_RETURN(column, arrow::MakeFixedArray(arrow::DataType::Int32(), *query_index));
        break;
      }
    }
    out.columns.push_back(std::move(column));
  }
  if (metrics != nullptr) {
    metrics->project.rows_in += static_cast<uint64_t>(source.length);
    metrics->project.rows_out += static_cast<uint64_t>(source.length);
  }
  return out;
}

Result<std::vector<bool>> Filter(const expr::Expr& filter, const arrow::RecordBatch& batch,
                                 Metrics* metrics) {
  Timer timer(Step(metrics, &Metrics::filter));
  auto keep = expr::EvaluateFilter(filter, batch);
  if (!keep.ok()) return keep.status().WithContext("filter");
  if (metrics != nullptr) {
    metrics->filter.rows_in += keep->size();
    for (bool k : *keep) metrics->filter.rows_out += k ? 1 : 0;
  }
  return keep;
}

// ---- plain queries: a stream ----

class PlainStream final : public arrow::BatchStream {
 public:
  PlainStream(Plan plan, PlanScan scan, Metrics* metrics)
      : plan_(std::move(plan)), scan_(std::move(scan)), metrics_(metrics) {
    // Without a filter the scan applies offset and limit itself.
    if (plan_.filter) {
      skip_ = plan_.request.offset;
      left_ = plan_.request.limit.value_or(UINT64_MAX);
    }
  }
  const std::shared_ptr<const arrow::Schema>& schema() const override {
    return plan_.output_schema;
  }
  Result<std::optional<arrow::RecordBatch>> Next() override {
    while (left_ > 0) {
      QV_ASSIGN_OR_RETURN(auto batch, scan_.Next());
      if (!batch) break;
      if (!plan_.filter) {
        QV_ASSIGN_OR_RETURN(auto out, Project(plan_, *batch, nullptr, nullptr, metrics_));
        return std::optional<arrow::RecordBatch>(std::move(out));
      }
      QV_ASSIGN_OR_RETURN(std::vector<bool> keep, Filter(*plan_.filter, *batch, metrics_));
      for (size_t i = 0; i < keep.size(); ++i) {
        if (!keep[i]) continue;
        if (skip_ > 0) {
          keep[i] = false;
          --skip_;
        } else if (left_ == 0) {
          keep[i] = false;
        } else {
          --left_;
        }
      }
      QV_ASSIGN_OR_RETURN(auto selected, Select(*batch, keep));
      if (selected.length == 0) continue;
      QV_ASSIGN_OR_RETURN(auto out, Project(plan_, selected, nullptr, nullptr, metrics_));
      return std::optional<arrow::RecordBatch>(std::move(out));
    }
    return std::optional<arrow::RecordBatch>();
  }

 private:
  Plan plan_;
  PlanScan scan_;
  Metrics* metrics_;
  uint64_t skip_ = 0;
  uint64_t left_ = UINT64_MAX;
};

// ---- rows taken back by address, in a given order (vector search, order by) ----

struct Ranked {
  std::vector<uint64_t> addrs;
  std::vector<float> distances;      // vector search
  std::vector<int32_t> query_index;  // vector search
};

Result<arrow::RecordBatch> TakeRows(const std::shared_ptr<const table::Dataset>& dataset,
                                    const Plan& plan, const std::vector<uint64_t>& addrs,
                                    Metrics* metrics) {
  Timer timer(Step(metrics, &Metrics::take));
  table::TakeOptions options;
  options.columns = plan.take_columns;
  options.with_row_id = plan.take_row_id;
  options.with_row_addr = plan.take_row_addr;
  if (options.columns.empty()) options.columns = {plan.scan_columns[0]};  // never "all"
  QV_ASSIGN_OR_RETURN(auto batch, table::Take(dataset, addrs, options));
  if (metrics != nullptr) {
    metrics->take.rows_in += addrs.size();
    metrics->take.rows_out += static_cast<uint64_t>(batch.length);
  }
  return batch;
}

// Streams the ranked rows in chunks: take, [postfilter], offset/limit per group, project.
class RankedStream final : public arrow::BatchStream {
 public:
  RankedStream(std::shared_ptr<const table::Dataset> dataset, Plan plan, Ranked ranked,
               Metrics* metrics)
      : dataset_(std::move(dataset)),
        plan_(std::move(plan)),
        ranked_(std::move(ranked)),
        metrics_(metrics) {}
  const std::shared_ptr<const arrow::Schema>& schema() const override {
    return plan_.output_schema;
  }
  Result<std::optional<arrow::RecordBatch>> Next() override {
    const size_t chunk = plan_.request.batch_rows == 0 ? 8192 : plan_.request.batch_rows;
    while (at_ < ranked_.addrs.size()) {
      const size_t end = std::min(ranked_.addrs.size(), at_ + chunk);
      std::vector<uint64_t> addrs(ranked_.addrs.begin() + static_cast<ptrdiff_t>(at_),
                                  ranked_.addrs.begin() + static_cast<ptrdiff_t>(end));
      QV_ASSIGN_OR_RETURN(auto taken, TakeRows(dataset_, plan_, addrs, metrics_));
      std::vector<bool> keep(addrs.size(), true);
      if (plan_.filter && plan_.postfilter) {
        QV_ASSIGN_OR_RETURN(keep, Filter(*plan_.filter, taken, metrics_));
      }
      // A postfiltered vector search applies offset and k per query vector after the filter.
      std::vector<float> distances;
      std::vector<int32_t> query_index;
      const bool vector = plan_.request.nearest.has_value();
      for (size_t i = 0; i < keep.size(); ++i) {
        if (!keep[i]) continue;
        if (vector && plan_.postfilter) {
          const int32_t q = ranked_.query_index[at_ + i];
          if (q != group_) {
            group_ = q;
            group_seen_ = 0;
          }
          const uint64_t seen = group_seen_++;
          if (seen < plan_.request.offset || seen >= plan_.k_scan) {
            keep[i] = false;
            continue;
          }
        }
        if (vector) {
          distances.push_back(ranked_.distances[at_ + i]);
          query_index.push_back(ranked_.query_index[at_ + i]);
        }
      }
      at_ = end;
      QV_ASSIGN_OR_RETURN(auto selected, Select(taken, keep));
      if (selected.length == 0) continue;
      QV_ASSIGN_OR_RETURN(auto out, Project(plan_, selected, &distances, &query_index, metrics_));
      return std::optional<arrow::RecordBatch>(std::move(out));
    }
    return std::optional<arrow::RecordBatch>();
  }

 private:
  std::shared_ptr<const table::Dataset> dataset_;
  Plan plan_;
  Ranked ranked_;
  Metrics* metrics_;
  size_t at_ = 0;
  int32_t group_ = -1;
  uint64_t group_seen_ = 0;
};

// The search's state over one run of batches: a TopK per query vector, and the bounds.
class NearestRanker {
 public:
  explicit NearestRanker(const Plan& plan)
      : plan_(plan), heaps_(plan.queries.size(), TopK(plan.k_scan)) {
    const VectorSearch& nn = *plan.request.nearest;
    lower_ = nn.lower_bound ? static_cast<float>(*nn.lower_bound) : -INFINITY;
    upper_ = nn.upper_bound ? static_cast<float>(*nn.upper_bound) : INFINITY;
    bounded_ = nn.upper_bound.has_value();
  }

  // Offers the rows of `batch` (rows at scan positions position, position + 1, ...) to every
  // query vector's TopK. `parallel`: the distances are computed on every core (the batch is cut
  // into slices, one task per slice and query vector); otherwise on this thread.
  Status Offer(const arrow::RecordBatch& batch, uint64_t position, bool parallel,
               Metrics* metrics) {
    std::vector<bool> keep;
    if (plan_.filter && !plan_.postfilter) {
      QV_ASSIGN_OR_RETURN(keep, Filter(*plan_.filter, batch, metrics));
    }
    Timer timer(Step(metrics, &Metrics::rank));
    QV_ASSIGN_OR_RETURN(auto vectors, ColumnByName(batch, plan_.vector_column));
    QV_ASSIGN_OR_RETURN(auto addr_column, ColumnByName(batch, "_rowaddr"));
    const uint64_t* addrs = arrow::Values<uint64_t>(*addr_column);
    const auto n = static_cast<size_t>(batch.length);
    const size_t queries = plan_.queries.size();
    distances_.resize(n * queries);
    if (parallel) {
      constexpr size_t kSlice = 1024;
      const size_t slices = (n + kSlice - 1) / kSlice;
      QV_RETURN_IF_ERROR(ThreadPool::Cpu()->ParallelFor(slices * queries, [&](size_t task) {
        const size_t q = task / slices, s = task % slices;
        const size_t begin = s * kSlice, len = std::min(kSlice, n - begin);
        auto slice = arrow::Slice(vectors, static_cast<int64_t>(begin), static_cast<int64_t>(len));
        ComputeDistances(*slice, plan_.queries[q], distances_.data() + q * n + begin);
        return Status::OK();
      }));
    } else {
      for (size_t q = 0; q < queries; ++q) {
        ComputeDistances(*vectors, plan_.queries[q], distances_.data() + q * n);
      }
    }
    for (size_t q = 0; q < queries; ++q) {
      const float* d = distances_.data() + q * n;
      TopK& heap = heaps_[q];
      for (size_t r = 0; r < n; ++r) {
        if (!keep.empty() && !keep[r]) continue;
        const float v = d[r];
        if (std::isnan(v) || v < lower_ || (bounded_ && !(v < upper_))) continue;
        if (!heap.Admits(v)) continue;
        heap.Offer({v, position + r, addrs[r]});
      }
    }
    if (metrics != nullptr) metrics->rank.rows_in += n;
    return Status::OK();
  }

  void Merge(const NearestRanker& other) {
    for (size_t q = 0; q < heaps_.size(); ++q) heaps_[q].Merge(other.heaps_[q]);
  }

  Ranked Finish(Metrics* metrics) const {
    Ranked ranked;
    for (size_t q = 0; q < heaps_.size(); ++q) {
      const std::vector<Candidate> best = heaps_[q].Sorted();
      // With a prefilter (or none) offset is applied here; a postfilter applies it after.
      const size_t skip =
          plan_.postfilter ? 0 : std::min<size_t>(best.size(), plan_.request.offset);
      for (size_t i = skip; i < best.size(); ++i) {
        ranked.addrs.push_back(best[i].row_addr);
        ranked.distances.push_back(best[i].distance);
        ranked.query_index.push_back(static_cast<int32_t>(q));
      }
    }
    if (metrics != nullptr) metrics->rank.rows_out += ranked.addrs.size();
    return ranked;
  }

 private:
  const Plan& plan_;
  std::vector<TopK> heaps_;
  float lower_ = -INFINITY, upper_ = INFINITY;
  bool bounded_ = false;
  std::vector<float> distances_;
};

void AddMetrics(const Metrics& from, Metrics* to) {
  for (StepMetrics Metrics::*step :
       {&Metrics::scan, &Metrics::filter, &Metrics::rank, &Metrics::take, &Metrics::sort,
        &Metrics::limit, &Metrics::project}) {
    (to->*step).rows_in += (from.*step).rows_in;
    (to->*step).rows_out += (from.*step).rows_out;
    (to->*step).nanos += (from.*step).nanos;
  }
}

// Whether ForEachFragment runs one task per fragment: with more than one fragment and more
// than one core, and unless `_rowoffset` (a row's place in one ordered scan) is used.
bool ScansFragmentsInParallel(const table::Dataset& dataset, const Plan& plan) {
  return !plan.row_offset && dataset.manifest().fragments_size() > 1 &&
         ThreadPool::Cpu()->threads() > 0;
}

// Runs each(f, scan, metrics) over a scan of every fragment f of `dataset`, one task per
// fragment on every core (reading, decoding and whatever `each` does run in parallel, memory
// stays one decoded batch per core); with `_rowoffset`, one fragment or no pool, once over
// the whole scan in order (f = 0). `each` gets its own Metrics (null when none are kept),
// added to `metrics` when it ends; tasks after a failure are skipped, and the first error by
// fragment is returned.
Status ForEachFragment(const std::shared_ptr<const table::Dataset>& dataset, const Plan& plan,
                       Metrics* metrics,
                       const std::function<Status(size_t, PlanScan&, Metrics*)>& each) {
  if (!ScansFragmentsInParallel(*dataset, plan)) {
    QV_ASSIGN_OR_RETURN(PlanScan scan, PlanScan::Open(dataset, plan, 0, std::nullopt, metrics));
    return each(0, scan, metrics);
  }
  const auto fragments = static_cast<size_t>(dataset->manifest().fragments_size());
  Mutex mu;
  std::atomic<bool> failed{false};
  return ThreadPool::Cpu()->ParallelFor(fragments, [&](size_t f) -> Status {
    if (failed.load(std::memory_order_relaxed)) return Status::OK();  // the error is reported
    Metrics local;
    Metrics* m = metrics != nullptr ? &local : nullptr;
    Status status = [&]() -> Status {
      QV_ASSIGN_OR_RETURN(PlanScan scan, PlanScan::Open(dataset, plan, 0, std::nullopt, m, f));
      return each(f, scan, m);
    }();
    if (!status.ok()) {
      failed.store(true, std::memory_order_relaxed);
      return status;
    }
    if (metrics != nullptr) {
      MutexLock lock(&mu);
      AddMetrics(local, metrics);
    }
    return Status::OK();
  });
}

// The k + offset nearest rows of every query vector, over ForEachFragment's scans. A row's tie
// position is (its fragment's index in the manifest) << 32 | (its place among the fragment's
// scanned rows), or its place in the one ordered scan: either way the sequential scan's order,
// so ties break as they do there. Each task ranks into its own TopKs, merged when it ends; the
// distances of a batch are computed on every core when one scan runs alone, on the task's
// thread when the fragments already share the cores.
Result<Ranked> RankNearest(const std::shared_ptr<const table::Dataset>& dataset, const Plan& plan,
                           Metrics* metrics) {
  const bool by_fragment = ScansFragmentsInParallel(*dataset, plan);
  Mutex mu;
  NearestRanker merged(plan);
  const Status done =
      ForEachFragment(dataset, plan, metrics, [&](size_t f, PlanScan& scan, Metrics* m) -> Status {
        NearestRanker ranker(plan);
        uint64_t position = static_cast<uint64_t>(f) << 32;
        while (true) {
          QV_ASSIGN_OR_RETURN(auto batch, scan.Next());
          if (!batch) break;
          QV_RETURN_IF_ERROR(ranker.Offer(*batch, position, /*parallel=*/!by_fragment, m));
          position += static_cast<uint64_t>(batch->length);
        }
        MutexLock lock(&mu);
        merged.Merge(ranker);
        return Status::OK();
      });
  QV_RETURN_IF_ERROR(done);
  return merged.Finish(metrics);
}

// Order by: the keys and addresses of every matching row, sorted; offset and limit applied.
Result<Ranked> SortRows(const Plan& plan, PlanScan& scan, Metrics* metrics) {
  std::vector<std::vector<arrow::ArrayPtr>> key_parts(plan.sort_keys.size());
  std::vector<arrow::ArrayPtr> addr_parts;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, scan.Next());
    if (!batch) break;
    arrow::RecordBatch rows = std::move(*batch);
    if (plan.filter) {
      QV_ASSIGN_OR_RETURN(auto keep, Filter(*plan.filter, rows, metrics));
      QV_ASSIGN_OR_RETURN(rows, Select(rows, keep));
    }
    if (rows.length == 0) continue;
    Timer timer(Step(metrics, &Metrics::sort));
    for (size_t k = 0; k < plan.sort_keys.size(); ++k) {
      QV_ASSIGN_OR_RETURN(auto key, expr::Evaluate(*plan.sort_keys[k], rows));
      key_parts[k].push_back(std::move(key));
    }
    QV_ASSIGN_OR_RETURN(auto addrs, ColumnByName(rows, "_rowaddr"));
    addr_parts.push_back(std::move(addrs));
    if (metrics != nullptr) metrics->sort.rows_in += static_cast<uint64_t>(rows.length);
  }
  Ranked ranked;
  if (addr_parts.empty()) return ranked;
  Timer timer(Step(metrics, &Metrics::sort));
  std::vector<arrow::ArrayPtr> keys;
  for (auto& parts : key_parts) {
    QV_ASSIGN_OR_RETURN(auto key, arrow::Concatenate(parts));
    keys.push_back(std::move(key));
  }
  QV_ASSIGN_OR_RETURN(auto addr_array, arrow::Concatenate(addr_parts));
  const std::vector<uint64_t> order = internal::SortOrder(keys, plan.request.order_by);
  const uint64_t* addrs = arrow::Values<uint64_t>(*addr_array);
  const uint64_t begin = std::min<uint64_t>(order.size(), plan.request.offset);
  const uint64_t count =
      std::min<uint64_t>(order.size() - begin, plan.request.limit.value_or(UINT64_MAX));
  for (uint64_t i = begin; i < begin + count; ++i) ranked.addrs.push_back(addrs[order[i]]);
  if (metrics != nullptr) metrics->sort.rows_out += ranked.addrs.size();
  return ranked;
}

Result<std::unique_ptr<arrow::BatchStream>> Execute(std::shared_ptr<const table::Dataset> dataset,
                                                    Plan plan, Metrics* metrics) {
  const QueryRequest& r = plan.request;
  const bool ranked = r.nearest.has_value() || !plan.sort_keys.empty();
  Ranked rows;
  if (r.nearest) {
    QV_ASSIGN_OR_RETURN(rows, RankNearest(dataset, plan, metrics));
  } else {
    // A plain query without a filter lets the scan skip and stop.
    const bool scan_limits = !ranked && !plan.filter;
    QV_ASSIGN_OR_RETURN(PlanScan scan,
                        PlanScan::Open(dataset, plan, scan_limits ? r.offset : 0,
                                       scan_limits ? r.limit : std::nullopt, metrics));
    if (!ranked) {
      return std::unique_ptr<arrow::BatchStream>(
          new PlainStream(std::move(plan), std::move(scan), metrics));
    }
    QV_ASSIGN_OR_RETURN(rows, SortRows(plan, scan, metrics));
  }
  return std::unique_ptr<arrow::BatchStream>(
      new RankedStream(std::move(dataset), std::move(plan), std::move(rows), metrics));
}

}  // namespace

Result<std::unique_ptr<arrow::BatchStream>> RunQuery(std::shared_ptr<const table::Dataset> dataset,
                                                     const QueryRequest& request) {
  QV_ASSIGN_OR_RETURN(Plan plan, internal::MakePlan(*dataset, request));
  return Execute(std::move(dataset), std::move(plan), nullptr);
}

Status DeadlineExceeded(const Deadline& deadline, std::string_view what) {
  return Status::ServiceUnavailable(
      fmt::format("{} did not finish within its timeout of {} ms", what,
                  std::chrono::duration_cast<std::chrono::milliseconds>(deadline.budget).count()));
}

Result<uint64_t> CountRows(std::shared_ptr<const table::Dataset> dataset, const std::string& filter,
                           std::optional<Deadline> deadline) {
  if (filter.empty()) return dataset->Stats().num_rows;
  QueryRequest request;
  request.filter = filter;
  request.deadline = deadline;
  request.columns = {"_rowaddr"};  // nothing but the filter's columns is read
  QV_ASSIGN_OR_RETURN(Plan plan, internal::MakePlan(*dataset, request));
  std::atomic<uint64_t> count{0};
  const Status done =
      ForEachFragment(dataset, plan, nullptr, [&](size_t, PlanScan& scan, Metrics*) -> Status {
        uint64_t here = 0;
        while (true) {
          QV_ASSIGN_OR_RETURN(auto batch, scan.Next());
          if (!batch) break;
          QV_ASSIGN_OR_RETURN(auto keep, Filter(*plan.filter, *batch, nullptr));
          for (bool k : keep) here += k ? 1 : 0;
        }
        count += here;
        return Status::OK();
      });
  QV_RETURN_IF_ERROR(done);
  return count.load();
}

Result<std::vector<uint64_t>> MatchingRowAddresses(std::shared_ptr<const table::Dataset> dataset,
                                                   const std::string& filter,
                                                   std::optional<Deadline> deadline) {
  QueryRequest request;
  request.filter = filter;
  request.deadline = deadline;
  request.columns = {"_rowaddr"};
  QV_ASSIGN_OR_RETURN(Plan plan, internal::MakePlan(*dataset, request));
  std::vector<std::vector<uint64_t>> by_fragment(
      std::max<size_t>(1, static_cast<size_t>(dataset->manifest().fragments_size())));
  const Status done =
      ForEachFragment(dataset, plan, nullptr, [&](size_t f, PlanScan& scan, Metrics*) -> Status {
        std::vector<uint64_t>& out = by_fragment[f];
        while (true) {
          QV_ASSIGN_OR_RETURN(auto batch, scan.Next());
          if (!batch) break;
          std::vector<bool> keep(static_cast<size_t>(batch->length), true);
          if (plan.filter) {
            QV_ASSIGN_OR_RETURN(keep, Filter(*plan.filter, *batch, nullptr));
          }
          QV_ASSIGN_OR_RETURN(auto addr_column, ColumnByName(*batch, "_rowaddr"));
          const uint64_t* addrs = arrow::Values<uint64_t>(*addr_column);
          for (size_t i = 0; i < keep.size(); ++i) {
            if (keep[i]) out.push_back(addrs[i]);
          }
        }
        return Status::OK();
      });
  QV_RETURN_IF_ERROR(done);
  std::vector<uint64_t> all;
  for (const auto& part : by_fragment) all.insert(all.end(), part.begin(), part.end());
  return all;
}

Result<std::string> ExplainQuery(const std::shared_ptr<const table::Dataset>& dataset,
                                 const QueryRequest& request, bool verbose) {
  QV_ASSIGN_OR_RETURN(Plan plan, internal::MakePlan(*dataset, request));
  return internal::DescribePlan(plan, *dataset, verbose, nullptr);
}

Result<std::string> AnalyzeQuery(std::shared_ptr<const table::Dataset> dataset,
                                 const QueryRequest& request) {
  // The same version reopened over a counting store, so the requests it makes are its own.
  auto counting = std::make_shared<CountingStore>(dataset->root());
  table::OpenOptions at;
  at.version = dataset->version();
  at.branch = dataset->branch();
  QV_ASSIGN_OR_RETURN(auto counted, table::Dataset::Open(counting, at));
  QV_ASSIGN_OR_RETURN(Plan plan, internal::MakePlan(*counted, request));
  const StoreCounts before = counting->Snapshot();
  Metrics metrics;
  Plan described = plan;
  uint64_t rows = 0;
  {
    QV_ASSIGN_OR_RETURN(auto stream, Execute(counted, std::move(plan), &metrics));
    while (true) {
      QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
      if (!batch) break;
      rows += static_cast<uint64_t>(batch->length);
    }
  }
  const StoreCounts used = counting->Snapshot().Since(before);
  metrics.requests = used.TotalCalls();
  metrics.bytes_read = used.bytes_read;
  metrics.limit.rows_out = rows;
  return internal::DescribePlan(described, *counted, /*verbose=*/true, &metrics) +
         fmt::format("rows: {}\n", rows);
}

}  // namespace quiver::query
