// Table-level benchmark, quiver's side (the LanceDB side is lancedb_bench.mjs; run.sh runs both
// on the same dataset and prints the comparison).
//
//   table_bench grow <dataset> <versions>   commit metadata-only versions until the dataset has
//                                            <versions> (setup; inline transactions, create-only)
//   table_bench measure <dataset> [rounds]   time open-latest and list-versions, count the
//                                            object-store requests of one open-latest; JSON out
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "format/lance_proto.h"
#include "format/manifest_file.h"
#include "format/manifest_names.h"
#include "store/counting_store.h"
#include "store/local_store.h"
#include "table/dataset.h"
#include "table/versions.h"

namespace {

using Clock = std::chrono::steady_clock;

int Fail(const quiver::Status& s) {
  std::fprintf(stderr, "table_bench: %s\n", s.ToString().c_str());
  return 1;
}

int Grow(const std::string& path, uint64_t target) {
  auto store = quiver::LocalObjectStore::Open(path, {false});
  if (!store.ok()) return Fail(store.status());
  auto latest = quiver::table::ResolveLatestVersion(**store);
  if (!latest.ok()) return Fail(latest.status());
  auto loaded = quiver::table::LoadManifest(**store, *latest);
  if (!loaded.ok()) return Fail(loaded.status());
  lance::table::Manifest m = *loaded->file.manifest;
  m.set_transaction_file("");
  for (uint64_t v = latest->version + 1; v <= target; ++v) {
    m.set_version(v);
    m.mutable_timestamp()->set_seconds(m.timestamp().seconds() + 1);
    lance::table::Transaction txn;
    txn.set_read_version(v - 1);
    txn.set_uuid(fmt::format("00000000-0000-4000-8000-{:012}", v));
    auto* entry =
        txn.mutable_update_config()->mutable_table_metadata_updates()->add_update_entries();
    entry->set_key("bench");
    entry->set_value(std::to_string(v));
    (*m.mutable_table_metadata())["bench"] = std::to_string(v);
    auto put =
        (*store)->Put("_versions/" + quiver::format::ManifestFileName(v, latest->naming),
                      quiver::format::EncodeManifestFile(m, &txn, loaded->file.index_section.get()),
                      quiver::PutOptions::CreateOnly());
    if (!put.ok()) return Fail(put.status());
  }
  std::printf("{\"versions\":%llu}\n", static_cast<unsigned long long>(target));
  return 0;
}

template <typename F>
double MillisPerOp(int rounds, F&& f) {
  auto start = Clock::now();
  for (int i = 0; i < rounds; ++i) f();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count() / rounds;
}

int Measure(const std::string& path, int rounds) {
  auto local = quiver::LocalObjectStore::Open(path, {false});
  if (!local.ok()) return Fail(local.status());
  auto counting = std::make_shared<quiver::CountingStore>(*local);
  uint64_t version = 0;
  bool failed = false;
  double open_ms = MillisPerOp(rounds, [&] {
    auto ds = quiver::table::Dataset::Open(counting);
    if (!ds.ok())
      failed = true;
    else
      version = (*ds)->version();
  });
  counting->Reset();
  (void)quiver::table::Dataset::Open(counting);
  quiver::StoreCounts one_open = counting->Snapshot();
  size_t listed = 0;
  int list_rounds = std::max(1, rounds / 10);
  double list_ms = MillisPerOp(list_rounds, [&] {
    // What `quiver table versions` does: every version with its commit time.
    auto refs = quiver::table::ListVersionRefs(**local);
    if (!refs.ok()) {
      failed = true;
      return;
    }
    listed = refs->size();
    for (const auto& ref : *refs) {
      if (!quiver::table::LoadManifest(**local, ref).ok()) failed = true;
    }
  });
  if (failed) return Fail(quiver::Status::Internal("a measured operation failed"));
  std::printf(
      "{\"version\":%llu,\"open_latest_ms\":%.4f,\"list_versions_ms\":%.3f,\"listed\":%zu,"
      "\"open_latest_requests\":{\"list\":%llu,\"get\":%llu,\"head\":%llu,\"total\":%llu}}\n",
      static_cast<unsigned long long>(version), open_ms, list_ms, listed,
      static_cast<unsigned long long>(one_open.Calls(quiver::StoreOp::kList)),
      static_cast<unsigned long long>(one_open.Calls(quiver::StoreOp::kGet)),
      static_cast<unsigned long long>(one_open.Calls(quiver::StoreOp::kHead)),
      static_cast<unsigned long long>(one_open.TotalCalls()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "grow")
    return Grow(argv[2], std::strtoull(argv[3], nullptr, 10));
  if (argc >= 3 && std::string(argv[1]) == "measure") {
    return Measure(argv[2], argc >= 4 ? std::atoi(argv[3]) : 200);
  }
  std::fprintf(stderr,
               "usage: table_bench grow <dataset> <versions> | measure <dataset> [rounds]\n");
  return 2;
}
