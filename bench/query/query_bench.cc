// Query benchmark, quiver's side (the LanceDB side is lancedb_query_bench.mjs; run.sh runs both
// on the same dataset and prints the comparison). Everything runs through query::RunQuery on a
// dataset opened once, as a server holds it.
//
//   query_bench measure <dataset> <vector dim> [rounds=5]   JSON out:
//     scan_<shape>_ms   a filtered scan of the ids, for three predicate shapes
//     knn_1_qps         exact top-10 kNN, one client after another
//     knn_8_qps         the same with 8 clients at once (threads)
//     knn_ms            one kNN's latency (the median of the 1-client rounds)
//     floor_ms          the memory-bandwidth floor of one kNN: vector bytes / memcpy bytes per
//                       second, measured here on a buffer as large as the vectors
//
//   query_bench writes <dataset copy> <inputs dir>   JSON out, on a copy of the dataset (it is
//   changed), from the inputs LanceDB's side wrote (insert.arrow, merge.arrow):
//     insert_rows_per_s   appends of insert.arrow's 10,000-row batches, one commit each
//     merge_ms            merge-insert of merge.arrow on id (update all matched, insert the rest)
//     update_ms           UPDATE x = x + 1 WHERE cat = 'c3'
//     delete_ms           DELETE WHERE id % 100 = 7
//   with the row counts after each, to check against LanceDB's.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "arrow/ipc/io.h"
#include "arrow/ipc/reader.h"
#include "common/allocator.h"
#include "query/delete_where.h"
#include "query/merge_insert.h"
#include "query/query.h"
#include "query/update_where.h"
#include "store/local_store.h"
#include "table/dataset.h"
#include "table/write.h"

namespace {

using Clock = std::chrono::steady_clock;
using quiver::query::QueryRequest;

int Fail(const quiver::Status& s) {
  std::fprintf(stderr, "query_bench: %s\n", s.ToString().c_str());
  return 1;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// Runs the query to the end; the rows it answered.
quiver::Result<uint64_t> Drain(const std::shared_ptr<const quiver::table::Dataset>& ds,
                               const QueryRequest& r) {
  QV_ASSIGN_OR_RETURN(auto stream, quiver::query::RunQuery(ds, r));
  uint64_t rows = 0;
  while (true) {
    QV_ASSIGN_OR_RETURN(auto batch, stream->Next());
    if (!batch) break;
    rows += static_cast<uint64_t>(batch->length);
  }
  return rows;
}

std::vector<double> QueryVector(int dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(dim));
  for (auto& x : v) x = u(rng);
  return v;
}

QueryRequest Knn(int dim, uint32_t seed) {
  QueryRequest r;
  r.columns = {"id"};
  r.nearest = quiver::query::VectorSearch{};
  r.nearest->column = "v";
  r.nearest->vectors = {QueryVector(dim, seed)};
  r.nearest->k = 10;
  return r;
}

// memcpy bytes per second over `bytes` (the best of a few passes: the floor).
double MemcpyBytesPerSecond(size_t bytes) {
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  double best = 0;
  for (int pass = 0; pass < 5; ++pass) {
    auto t = Clock::now();
    std::memcpy(dst.data(), src.data(), bytes);
    const double s = std::chrono::duration<double>(Clock::now() - t).count();
    best = std::max(best, static_cast<double>(bytes) / s);
  }
  if (dst[bytes / 2] != 1) std::fprintf(stderr, "memcpy check failed\n");
  return best;
}

int Measure(const std::string& path, int dim, int rounds) {
  auto store = quiver::LocalObjectStore::Open(path, {false});
  if (!store.ok()) return Fail(store.status());
  auto ds = quiver::table::Dataset::Open(*store);
  if (!ds.ok()) return Fail(ds.status());
  const uint64_t rows = (*ds)->Stats().num_rows;
  std::string out = fmt::format("{{\"rows\": {}", rows);

  const std::pair<const char*, const char*> shapes[] = {
      {"range", "x > 0.5"}, {"equality", "cat = 'c3'"}, {"compound", "id % 100 = 7 AND x < 0.3"}};
  for (const auto& [name, filter] : shapes) {
    QueryRequest r;
    r.columns = {"id"};
    r.filter = filter;
    std::vector<double> ms;
    uint64_t answered = 0;
    for (int i = 0; i < rounds; ++i) {
      auto t = Clock::now();
      auto n = Drain(*ds, r);
      if (!n.ok()) return Fail(n.status());
      ms.push_back(Ms(Clock::now() - t));
      answered = *n;
    }
    std::sort(ms.begin(), ms.end());
    out += fmt::format(", \"scan_{}_ms\": {:.3f}, \"scan_{}_rows\": {}", name, ms[ms.size() / 2],
                       name, answered);
  }

  // kNN, one client: rounds × 4 queries, median latency and QPS.
  std::vector<double> ms;
  const int single = rounds * 4;
  auto t0 = Clock::now();
  for (int i = 0; i < single; ++i) {
    auto t = Clock::now();
    auto n = Drain(*ds, Knn(dim, static_cast<uint32_t>(i)));
    if (!n.ok()) return Fail(n.status());
    if (*n != 10) return Fail(quiver::Status::Internal("kNN answered " + std::to_string(*n)));
    ms.push_back(Ms(Clock::now() - t));
  }
  const double single_s = std::chrono::duration<double>(Clock::now() - t0).count();
  std::sort(ms.begin(), ms.end());
  out += fmt::format(", \"knn_ms\": {:.3f}, \"knn_1_qps\": {:.3f}", ms[ms.size() / 2],
                     single / single_s);

  // kNN, 8 clients at once.
  constexpr int kClients = 8;
  const int each = std::max(1, rounds);
  std::vector<std::thread> clients;
  std::vector<quiver::Status> errors(kClients);
  auto t1 = Clock::now();
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < each; ++i) {
        auto n = Drain(*ds, Knn(dim, static_cast<uint32_t>(1000 + c * each + i)));
        if (!n.ok()) {
          errors[static_cast<size_t>(c)] = n.status();
          return;
        }
      }
    });
  }
  for (auto& c : clients) c.join();
  const double multi_s = std::chrono::duration<double>(Clock::now() - t1).count();
  for (const auto& e : errors) {
    if (!e.ok()) return Fail(e);
  }
  out += fmt::format(", \"knn_8_qps\": {:.3f}", kClients * each / multi_s);

  const size_t vector_bytes = static_cast<size_t>(rows) * static_cast<size_t>(dim) * sizeof(float);
  const double bandwidth = MemcpyBytesPerSecond(vector_bytes);
  out += fmt::format(", \"floor_ms\": {:.3f}, \"memcpy_gbps\": {:.2f}}}",
                     1000.0 * static_cast<double>(vector_bytes) / bandwidth, bandwidth / 1e9);
  std::puts(out.c_str());
  return 0;
}

// Every batch of the Arrow IPC stream at `path`.
struct IpcFile {
  std::shared_ptr<const quiver::arrow::Schema> schema;
  std::vector<quiver::arrow::RecordBatch> batches;
};
quiver::Result<IpcFile> ReadIpcFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return quiver::Status::IOError("cannot open " + path);
  QV_ASSIGN_OR_RETURN(auto reader, quiver::arrow::ipc::StreamReader::Open(
                                       std::make_unique<quiver::arrow::ipc::FdInputStream>(fd)));
  IpcFile file{reader->schema(), {}};
  while (true) {
    auto batch = reader->Next();
    if (!batch.ok()) {
      ::close(fd);
      return batch.status();
    }
    if (!*batch) break;
    file.batches.push_back(std::move(**batch));
  }
  ::close(fd);
  return file;
}

quiver::Result<uint64_t> CountRows(const std::shared_ptr<quiver::ObjectStore>& root,
                                   const std::string& filter) {
  QV_ASSIGN_OR_RETURN(auto ds, quiver::table::Dataset::Open(root));
  QueryRequest r;
  r.columns = {"id"};
  r.filter = filter;
  return Drain(ds, r);
}

int Writes(const std::string& path, const std::string& inputs) {
  auto store = quiver::LocalObjectStore::Open(path, {false});
  if (!store.ok()) return Fail(store.status());
  const quiver::table::CommitTarget target{*store, std::nullopt};
  auto insert = ReadIpcFile(inputs + "/insert.arrow");
  if (!insert.ok()) return Fail(insert.status());
  auto merge = ReadIpcFile(inputs + "/merge.arrow");
  if (!merge.ok()) return Fail(merge.status());

  uint64_t inserted = 0;
  auto t = Clock::now();
  for (const auto& batch : insert->batches) {
    auto one = quiver::arrow::MakeVectorStream(insert->schema, {batch});
    auto written = quiver::table::WriteData(target, *one);
    if (!written.ok()) return Fail(written.status());
    inserted += written->rows;
  }
  const double insert_s = std::chrono::duration<double>(Clock::now() - t).count();
  std::string out = fmt::format("{{\"insert_rows_per_s\": {:.1f}, \"insert_batches\": {}",
                                static_cast<double>(inserted) / insert_s, insert->batches.size());

  quiver::query::MergeInsertSpec spec;
  spec.on = {"id"};
  spec.when_matched_update_all = true;
  spec.when_not_matched_insert_all = true;
  t = Clock::now();
  auto merged = quiver::query::MergeInsert(target, merge->schema, std::move(merge->batches), spec);
  if (!merged.ok()) return Fail(merged.status());
  const double merge_ms = Ms(Clock::now() - t);
  auto after_merge = CountRows(*store, "");
  if (!after_merge.ok()) return Fail(after_merge.status());
  out += fmt::format(
      ", \"merge_ms\": {:.3f}, \"merge_updated\": {}, \"merge_inserted\": {}, "
      "\"rows_after_merge\": {}",
      merge_ms, merged->updated, merged->inserted, *after_merge);

  t = Clock::now();
  auto updated = quiver::query::UpdateWhere(target, {{"x", "x + 1"}}, "cat = 'c3'");
  if (!updated.ok()) return Fail(updated.status());
  const double update_ms = Ms(Clock::now() - t);
  auto update_rows = CountRows(*store, "x >= 1");
  if (!update_rows.ok()) return Fail(update_rows.status());
  out += fmt::format(", \"update_ms\": {:.3f}, \"update_rows\": {}", update_ms, *update_rows);

  t = Clock::now();
  auto deleted = quiver::query::DeleteWhere(target, "id % 100 = 7");
  if (!deleted.ok()) return Fail(deleted.status());
  const double delete_ms = Ms(Clock::now() - t);
  auto after_delete = CountRows(*store, "");
  if (!after_delete.ok()) return Fail(after_delete.status());
  out +=
      fmt::format(", \"delete_ms\": {:.3f}, \"rows_after_delete\": {}}}", delete_ms, *after_delete);
  std::puts(out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  quiver::TuneAllocatorForLargeBuffers();  // as the quiver binary does
  if (argc >= 4 && std::string(argv[1]) == "measure") {
    return Measure(argv[2], std::atoi(argv[3]), argc >= 5 ? std::atoi(argv[4]) : 5);
  }
  if (argc == 4 && std::string(argv[1]) == "writes") return Writes(argv[2], argv[3]);
  std::fprintf(stderr,
               "usage: query_bench measure <dataset> <vector dim> [rounds]\n"
               "       query_bench writes <dataset copy> <inputs dir>\n");
  return 2;
}
