// Storage failures at every step of the catalog's multi-write operations: whatever step fails,
// the operation either happened or did not, and after Recover() the registry is consistent.
#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "common/clock.h"
#include "common/logging.h"
#include "common/sync_point.h"
#include "scoped_ids.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
#include "store/store_wrapper.h"
#include "testing/synthetic_dataset.h"

namespace quiver::catalog {
namespace {

struct Harness {
  ManualClock clock;
  std::shared_ptr<MemoryObjectStore> memory = MemoryObjectStore::Create({.clock = &clock});
  std::shared_ptr<FaultInjectingStore> faults = std::make_shared<FaultInjectingStore>(memory);
  std::unique_ptr<Catalog> catalog;
  Actor actor;

  Harness() {
    Logger::Default().SetLevel(LogLevel::kError);  // the injected failures are expected
    CatalogOptions options;
    options.clock = &clock;
    catalog = *Catalog::Open(faults, options);
  }
  void ExpectConsistentAfterRecovery(const std::string& where) {
    faults->Clear();
    clock.Advance(std::chrono::minutes(10));
    ASSERT_TRUE(catalog->Recover(std::chrono::minutes(1)).ok());
    auto report = catalog->CheckConsistency();
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    for (const std::string& p : report->problems) ADD_FAILURE() << where << ": " << p;
  }
};

// For each write (put or delete) of the operation: fail exactly that one.
template <typename Setup, typename Op, typename Check>
void ForEachFailingWrite(Setup setup, Op op, Check check) {
  for (StoreOp kind : {StoreOp::kPut, StoreOp::kDelete}) {
    for (uint64_t n = 1; n <= 8; ++n) {
      Harness h;
      setup(h);
      h.faults->FailNth(kind, n, Status::IOError("injected: disk gone"));
      Status result = op(h);
      bool fired = h.faults->fired() > 0;
      std::string where = std::string(StoreOpName(kind)) + " #" + std::to_string(n) +
                          (result.ok() ? " (op ok)" : " (op failed: " + result.ToString() + ")");
      h.ExpectConsistentAfterRecovery(where);
      check(h, result, where);
      if (!fired) break;  // the operation makes fewer writes of this kind
    }
  }
}

TEST(CatalogFaultTest, DeclareTable) {
  ForEachFailingWrite(
      [](Harness& h) {
        ASSERT_TRUE(h.catalog->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, h.actor).ok());
      },
      [](Harness& h) {
        return h.catalog->DeclareTable(S({"ns", "t"}), {}, h.actor).status();
      },
      [](Harness& h, const Status& result, const std::string& where) {
        auto t = h.catalog->GetTable(S({"ns", "t"}));
        if (result.ok()) {
          EXPECT_TRUE(t.ok()) << where;
        }
        // A failed declare may only leave a table when its record write itself succeeded.
        if (t.ok()) {
          EXPECT_TRUE(*h.catalog->IsOnlyDeclared(*t)) << where;
        }
      });
}

TEST(CatalogFaultTest, RenameTable) {
  std::string location;
  ForEachFailingWrite(
      [&](Harness& h) {
        auto t = h.catalog->DeclareTable(S({"src"}), {}, h.actor);
        ASSERT_TRUE(t.ok());
        location = t->location;
      },
      [](Harness& h) {
        return h.catalog->RenameTable(S({"src"}), std::nullopt, "dst", h.actor).status();
      },
      [&](Harness& h, const Status& result, const std::string& where) {
        auto src = h.catalog->GetTable(S({"src"}));
        auto dst = h.catalog->GetTable(S({"dst"}));
        // Exactly one name holds the table, whatever failed.
        EXPECT_NE(src.ok(), dst.ok()) << where;
        if (result.ok()) {
          EXPECT_TRUE(dst.ok()) << where;
        }
        if (dst.ok()) {
          EXPECT_EQ(dst->location, location) << where;
        }
        if (src.ok()) {
          EXPECT_EQ(src->location, location) << where;
        }
      });
}

TEST(CatalogFaultTest, DropTable) {
  ForEachFailingWrite(
      [](Harness& h) {
        auto t = h.catalog->DeclareTable(S({"t"}), {}, h.actor);
        ASSERT_TRUE(quiver::testing::WriteSyntheticDataset(*h.memory, t->location).ok());
      },
      [](Harness& h) { return h.catalog->DropTable(S({"t"}), h.actor).status(); },
      [](Harness& h, const Status& result, const std::string& where) {
        if (result.ok()) {
          EXPECT_FALSE(h.catalog->GetTable(S({"t"})).ok()) << where;
        }
      });
}

TEST(CatalogFaultTest, DropNamespaceCascade) {
  ForEachFailingWrite(
      [](Harness& h) {
        ASSERT_TRUE(h.catalog->CreateNamespace(S({"p"}), CreateMode::kCreate, {}, h.actor).ok());
        ASSERT_TRUE(
            h.catalog->CreateNamespace(S({"p", "c"}), CreateMode::kCreate, {}, h.actor).ok());
        ASSERT_TRUE(h.catalog->DeclareTable(S({"p", "t"}), {}, h.actor).ok());
        ASSERT_TRUE(h.catalog->DeclareTable(S({"p", "c", "u"}), {}, h.actor).ok());
      },
      [](Harness& h) {
        return h.catalog->DropNamespace(S({"p"}), {.cascade = true}, h.actor).status();
      },
      [](Harness& h, const Status& result, const std::string& where) {
        if (result.ok()) {
          EXPECT_FALSE(h.catalog->DescribeNamespace(S({"p"})).ok()) << where;
        } else {
          // A failed cascade may have dropped some contents, but what is left is usable:
          // retrying finishes the job.
          EXPECT_TRUE(h.catalog->DropNamespace(S({"p"}), {.cascade = true}, h.actor).ok()) << where;
        }
      });
}

// A namespace drop on a full disk cannot write its drop mark, so creates are not held off while
// it runs: space can come back meanwhile (here: the disk frees up after the mark failed), a table
// declared then is kept by its re-check (the namespace is still there), and the drop used to
// leave it behind with no namespace. The drop now sweeps what landed below before it finished.
TEST(CatalogFaultTest, ANamespaceDropOnAFullDiskTakesWhatRacedIt) {
  for (bool cascade : {false, true}) {
    SCOPED_TRACE(cascade ? "cascade" : "restrict");
    ManualClock clock;
    auto memory = MemoryObjectStore::Create({.clock = &clock});
    auto faults = std::make_shared<FaultInjectingStore>(memory);
    SyncPoints sync;
    CatalogOptions options;
    options.clock = &clock;
    options.sync_points = &sync;
    Logger::Default().SetLevel(LogLevel::kError);
    auto catalog = Catalog::Open(faults, options);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    Actor actor;
    ASSERT_TRUE((*catalog)->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, actor).ok());
    (*catalog)->registry().FlushLog();

    // The next put is the drop mark: it finds the disk full. Then space comes back, and a table
    // is declared before the drop deletes the namespace's record.
    faults->FailNth(StoreOp::kPut, 1, StatusFromErrno(ENOSPC, "writing"));
    Status raced;
    sync.Set(std::string(kDropNamespaceDeletingPoint), [&](std::string_view) {
      raced = (*catalog)->DeclareTable(S({"ns", "late"}), {}, actor).status();
      return Status::OK();
    });
    auto dropped = (*catalog)->DropNamespace(S({"ns"}), {.cascade = cascade}, actor);
    ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
    EXPECT_EQ(faults->fired(), 1u);
    ASSERT_TRUE(raced.ok()) << raced.ToString();  // the race happened: it was kept

    EXPECT_EQ((*catalog)->GetTable(S({"ns", "late"})).status().code(),
              StatusCode::kNamespaceNotFound);
    auto left = (*catalog)->registry().ListDescendants(RecordKind::kTable, S({"ns"}));
    ASSERT_TRUE(left.ok());
    EXPECT_TRUE(left->empty()) << "a table outlived its namespace";
    auto report = (*catalog)->CheckConsistency(std::chrono::nanoseconds(0));
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    for (const std::string& p : report->problems) ADD_FAILURE() << p;
  }
}

// --- atomic existence of created objects -----------------------------------------------------
//
// A create (project, warehouse, namespace, declared or registered table) writes its record and
// its creator's owner grant in one conditional put, guarded by reads before and re-checks after.
// Whichever single store call of it fails, and also when a write takes effect but its answer is
// lost, the object must afterwards exist completely (an active record holding the owner grant)
// or not at all, nothing else may have changed, and CheckConsistency must pass without any
// recovery.

// Between the catalog and the fault injector: records the calls the test thread makes (the
// change-log writer's thread is left out, so a clean run and a failing one count alike), and can
// perform one write and then report it failed: the "applied, but the answer was lost" failure,
// which FaultInjectingStore (it fails calls before they reach the store) does not model.
class CallTracer final : public StoreWrapper {
 public:
  struct Call {
    StoreOp op;
    std::string key;
  };

  explicit CallTracer(std::shared_ptr<ObjectStore> inner)
      : StoreWrapper(std::move(inner), "trace") {}

  // Starts recording the calls of the current thread, numbered from 1.
  void Record() {
    std::lock_guard<std::mutex> lock(mu_);
    thread_ = std::this_thread::get_id();
    calls_.clear();
    recording_ = true;
  }
  // The `k`-th recorded call (a put, delete or copy) is performed, then reported failed.
  void LoseAnswerOf(size_t k) {
    std::lock_guard<std::mutex> lock(mu_);
    lose_ = k;
  }
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    recording_ = false;
    lose_ = 0;
  }
  std::vector<Call> calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  bool lost() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lost_;
  }

  Result<GetResult> Get(std::string_view key, std::optional<ByteRange> range = {}) override {
    Note(StoreOp::kGet, key);
    return target()->Get(key, range);
  }
  // Through the generic paths (a ranged Get, a buffered Put), so that they are traced too.
  Status ReadAt(std::string_view key, uint64_t offset, std::span<std::byte> dst) override {
    return ObjectStore::ReadAt(key, offset, dst);
  }
  Result<std::unique_ptr<ObjectWriter>> OpenWriter(std::string_view key,
                                                   const PutOptions& options = {}) override {
    return ObjectStore::OpenWriter(key, options);
  }
  Result<ObjectMeta> Head(std::string_view key) override {
    Note(StoreOp::kHead, key);
    return target()->Head(key);
  }
  Result<ObjectMeta> Put(std::string_view key, std::string_view data,
                         const PutOptions& options = {}) override {
    bool lose = Note(StoreOp::kPut, key);
    auto put = target()->Put(key, data, options);
    if (lose && put.ok()) return LostAnswer();
    return put;
  }
  Status Delete(std::string_view key) override {
    bool lose = Note(StoreOp::kDelete, key);
    Status deleted = target()->Delete(key);
    if (lose && deleted.ok()) return LostAnswer();
    return deleted;
  }
  Result<ListPage> List(const ListOptions& options) override {
    Note(StoreOp::kList, options.prefix);
    return target()->List(options);
  }
  Status Copy(std::string_view src, std::string_view dst) override {
    bool lose = Note(StoreOp::kCopy, dst);
    Status copied = target()->Copy(src, dst);
    if (lose && copied.ok()) return LostAnswer();
    return copied;
  }

 private:
  static Status LostAnswer() {
    return Status::IOError("injected: the write happened but its answer was lost");
  }
  // Records the call; true when its answer is to be lost.
  bool Note(StoreOp op, std::string_view key) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!recording_ || std::this_thread::get_id() != thread_) return false;
    calls_.push_back({op, std::string(key)});
    if (lose_ != 0 && calls_.size() == lose_) {
      lost_ = true;
      return true;
    }
    return false;
  }

  mutable std::mutex mu_;
  std::thread::id thread_;
  bool recording_ = false;
  std::vector<Call> calls_;
  size_t lose_ = 0;
  bool lost_ = false;
};

bool IsWrite(StoreOp op) {
  return op == StoreOp::kPut || op == StoreOp::kDelete || op == StoreOp::kCopy;
}

struct AtomicHarness {
  ManualClock clock;
  std::shared_ptr<MemoryObjectStore> memory = MemoryObjectStore::Create({.clock = &clock});
  std::shared_ptr<FaultInjectingStore> faults = std::make_shared<FaultInjectingStore>(memory);
  std::shared_ptr<CallTracer> tracer = std::make_shared<CallTracer>(faults);
  std::unique_ptr<Catalog> catalog;
  Actor setup_actor{"user:setup", ""};
  Actor actor{"user:creator", ""};

  AtomicHarness() {
    Logger::Default().SetLevel(LogLevel::kError);  // the injected failures are expected
    CatalogOptions options;
    options.clock = &clock;
    auto opened = Catalog::Open(tracer, options);
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (opened.ok()) catalog = std::move(*opened);
  }

  // Every key and its bytes but the change log's (a failed create may or may not have logged).
  std::map<std::string, std::string> Keys() {
    catalog->registry().FlushLog();
    std::map<std::string, std::string> out;
    auto all = memory->ListAll("");
    EXPECT_TRUE(all.ok());
    if (!all.ok()) return out;
    for (const ObjectMeta& m : *all) {
      if (m.key.rfind("_quiver/log/", 0) == 0) continue;
      out[m.key] = memory->Get(m.key)->data;
    }
    return out;
  }
};

struct CreateCase {
  std::string name;
  RecordKind kind;
  ObjectId record;       // the record the create writes
  std::string relation;  // the owner grant it must hold
  std::function<void(AtomicHarness&)> setup;
  std::function<Status(AtomicHarness&)> create;
};

void ExpectNoProblems(AtomicHarness& h, const std::string& where) {
  auto report = h.catalog->CheckConsistency();
  ASSERT_TRUE(report.ok()) << where << ": " << report.status().ToString();
  for (const std::string& p : report->problems) ADD_FAILURE() << where << ": " << p;
}

// After one create ran (`result`) from the storage state `before`: all or nothing.
void ExpectAllOrNothing(AtomicHarness& h, const CreateCase& c, const Status& result,
                        bool answer_lost, const std::map<std::string, std::string>& before,
                        const std::string& where) {
  h.tracer->Stop();
  h.faults->Clear();
  ExpectNoProblems(h, where);
  auto record = h.catalog->registry().Get(c.kind, c.record);
  ASSERT_TRUE(record.ok() || record.status().IsNotFound())
      << where << ": " << record.status().ToString();
  if (result.ok()) {
    EXPECT_TRUE(record.ok()) << where << ": the create succeeded but left no record";
  }
  std::string location = record.ok() ? record->body.value("location", "") : "";
  const std::string record_key = Registry::RecordKey(c.kind, c.record);
  std::map<std::string, std::string> after = h.Keys();
  for (const auto& [key, bytes] : before) {
    auto it = after.find(key);
    if (it == after.end()) {
      ADD_FAILURE() << where << ": the create removed '" << key << "'";
    } else if (it->second != bytes) {
      ADD_FAILURE() << where << ": the create changed '" << key << "'";
    }
  }
  for (const auto& [key, bytes] : after) {
    if (before.count(key)) continue;
    if (record.ok()) {
      bool inside = key == record_key || (!location.empty() && key.rfind(location + "/", 0) == 0);
      EXPECT_TRUE(inside) << where << ": unexpected new key '" << key << "'";
    } else {
      // Only a lost answer to the table's (empty, non-durable) reservation marker can leave
      // something behind: the catalog cannot know that put took effect.
      bool stray_marker = answer_lost && key.rfind("_quiver/", 0) != 0 && key.size() > 16 &&
                          key.compare(key.size() - 16, 16, "/.lance-reserved") == 0;
      EXPECT_TRUE(stray_marker) << where << ": the failed create left '" << key << "' behind";
    }
  }
  if (record.ok()) {
    const nlohmann::json& body = record->body;
    nlohmann::json owner = {{"subject", h.actor.principal}, {"relation", c.relation}};
    nlohmann::json grants = body.value("grants", nlohmann::json::array());
    EXPECT_TRUE(grants.is_array() && std::find(grants.begin(), grants.end(), owner) != grants.end())
        << where << ": the record lacks its owner grant: " << body.dump();
    EXPECT_EQ(body.value("state", "active"), "active") << where << ": " << body.dump();
    EXPECT_FALSE(body.contains("dropping_since")) << where << ": " << body.dump();
  }
  // Whatever happened, the create can be retried: it succeeds now, or finds the object.
  Status retry = c.create(h);
  EXPECT_TRUE(retry.ok() || retry.code() == StatusCode::kNamespaceAlreadyExists ||
              retry.code() == StatusCode::kTableAlreadyExists)
      << where << ": retry: " << retry.ToString();
  EXPECT_TRUE(h.catalog->registry().Get(c.kind, c.record).ok()) << where << ": after a retry";
  ExpectNoProblems(h, where + " (after a retry)");
}

void RunAtomicCreate(const CreateCase& c) {
  // A clean run counts the store calls the create makes.
  std::vector<CallTracer::Call> calls;
  {
    AtomicHarness h;
    c.setup(h);
    (void)h.Keys();  // the setup's change-log events are written: the writer is idle
    h.tracer->Record();
    Status clean = c.create(h);
    calls = h.tracer->calls();
    h.tracer->Stop();
    ASSERT_TRUE(clean.ok()) << c.name << ": " << clean.ToString();
    ExpectNoProblems(h, c.name + " (clean run)");
  }
  ASSERT_FALSE(calls.empty()) << c.name;
  int runs = 0;
  for (size_t k = 1; k <= calls.size(); ++k) {
    const CallTracer::Call& call = calls[k - 1];
    uint64_t nth = 0;
    for (size_t i = 0; i < k; ++i) nth += calls[i].op == call.op ? 1 : 0;
    for (bool answer_lost : {false, true}) {
      if (answer_lost && !IsWrite(call.op)) continue;
      std::string where = c.name + ": call " + std::to_string(k) + "/" +
                          std::to_string(calls.size()) + " (" + std::string(StoreOpName(call.op)) +
                          " " + call.key + ") " +
                          (answer_lost ? "performed, answer lost" : "failed");
      AtomicHarness h;
      c.setup(h);
      std::map<std::string, std::string> before = h.Keys();
      h.tracer->Record();
      if (answer_lost) {
        h.tracer->LoseAnswerOf(k);
      } else {
        h.faults->FailNth(call.op, nth, Status::IOError("injected: disk gone"));
      }
      Status result = c.create(h);
      bool fired = answer_lost ? h.tracer->lost() : h.faults->fired() > 0;
      EXPECT_TRUE(fired) << where << ": the run took another path than the clean one";
      EXPECT_FALSE(result.ok() && !answer_lost && fired)
          << where << ": the create reported success over a failed store call";
      ExpectAllOrNothing(h, c, result, answer_lost, before, where);
      ++runs;
    }
  }
  // Every call was failed once, and every write also had its answer lost once.
  EXPECT_GE(runs, static_cast<int>(calls.size())) << c.name;
  ::testing::Test::RecordProperty("store_calls", static_cast<int>(calls.size()));
  ::testing::Test::RecordProperty("faulty_runs", runs);
}

TEST(CatalogAtomicCreateTest, CreateProject) {
  RunAtomicCreate(
      {"CreateProject",
       RecordKind::kNamespace,
       {"p"},
       "admin",
       [](AtomicHarness&) {},
       [](AtomicHarness& h) { return h.catalog->CreateProject("p", {}, h.actor).status(); }});
}

TEST(CatalogAtomicCreateTest, CreateWarehouse) {
  RunAtomicCreate(
      {"CreateWarehouse",
       RecordKind::kWarehouse,
       {"p", "w"},
       "owner",
       [](AtomicHarness& h) { ASSERT_TRUE(h.catalog->CreateProject("p", {}, h.setup_actor).ok()); },
       [](AtomicHarness& h) {
         return h.catalog->CreateWarehouse("p", "w", "", {{"k", "v"}}, h.actor).status();
       }});
}

TEST(CatalogAtomicCreateTest, CreateTopLevelNamespace) {
  RunAtomicCreate(
      {"CreateNamespace top-level", RecordKind::kNamespace, S({"ns"}), "owner",
       [](AtomicHarness&) {},
       [](AtomicHarness& h) {
         return h.catalog->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, h.actor).status();
       }});
}

TEST(CatalogAtomicCreateTest, CreateTopLevelNamespaceInNamedWarehouse) {
  RunAtomicCreate({"CreateNamespace top-level, named warehouse",
                   RecordKind::kNamespace,
                   {"p", "ns"},
                   "owner",
                   [](AtomicHarness& h) {
                     ASSERT_TRUE(h.catalog->CreateProject("p", {}, h.setup_actor).ok());
                     ASSERT_TRUE(h.catalog->CreateWarehouse("p", "w1", "", {}, h.setup_actor).ok());
                     ASSERT_TRUE(h.catalog->CreateWarehouse("p", "w2", "", {}, h.setup_actor).ok());
                   },
                   [](AtomicHarness& h) {
                     return h.catalog
                         ->CreateNamespace({"p", "ns"}, CreateMode::kCreate,
                                           {{std::string(kWarehouseProperty), "w2"}}, h.actor)
                         .status();
                   }});
}

TEST(CatalogAtomicCreateTest, CreateNestedNamespace) {
  RunAtomicCreate(
      {"CreateNamespace nested", RecordKind::kNamespace, S({"ns", "child"}), "owner",
       [](AtomicHarness& h) {
         ASSERT_TRUE(
             h.catalog->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, h.setup_actor).ok());
       },
       [](AtomicHarness& h) {
         return h.catalog->CreateNamespace(S({"ns", "child"}), CreateMode::kCreate, {}, h.actor)
             .status();
       }});
}

TEST(CatalogAtomicCreateTest, DeclareTable) {
  RunAtomicCreate(
      {"DeclareTable", RecordKind::kTable, S({"ns", "t"}), "owner",
       [](AtomicHarness& h) {
         ASSERT_TRUE(
             h.catalog->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, h.setup_actor).ok());
       },
       [](AtomicHarness& h) {
         return h.catalog->DeclareTable(S({"ns", "t"}), {}, h.actor).status();
       }});
}

TEST(CatalogAtomicCreateTest, DeclareTableInProjectRoot) {
  RunAtomicCreate(
      {"DeclareTable in the project root", RecordKind::kTable, S({"t"}), "owner",
       [](AtomicHarness&) {},
       [](AtomicHarness& h) { return h.catalog->DeclareTable(S({"t"}), {}, h.actor).status(); }});
}

TEST(CatalogAtomicCreateTest, RegisterTable) {
  RunAtomicCreate(
      {"RegisterTable", RecordKind::kTable, S({"ns", "r"}), "owner",
       [](AtomicHarness& h) {
         ASSERT_TRUE(
             h.catalog->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, h.setup_actor).ok());
         ASSERT_TRUE(quiver::testing::WriteSyntheticDataset(*h.memory, "data/reg").ok());
         // Another table, whose location the register must compare with its own.
         ASSERT_TRUE(h.catalog->DeclareTable(S({"ns", "other"}), {}, h.setup_actor).ok());
       },
       [](AtomicHarness& h) {
         return h.catalog
             ->RegisterTable(S({"ns", "r"}), "data/reg", CreateMode::kCreate, {}, h.actor)
             .status();
       }});
}

}  // namespace
}  // namespace quiver::catalog
