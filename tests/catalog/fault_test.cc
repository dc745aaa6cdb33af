// Storage failures at every step of the catalog's multi-write operations: whatever step fails,
// the operation either happened or did not, and after Recover() the registry is consistent.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "common/clock.h"
#include "common/logging.h"
#include "scoped_ids.h"
#include "store/fault_store.h"
#include "store/memory_store.h"
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

}  // namespace
}  // namespace quiver::catalog
