// The typed catalog records (catalog/internal/records.h): each kind round-trips, today's on-disk
// JSON reads and is written back byte for byte, and a record with any field of the wrong type is
// Corruption naming the field, never an exception, also through the public Catalog,
// AccessControl and ApiKeyStore APIs and through AccessControl's change-log refresh.
#include "catalog/internal/records.h"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/access_control.h"
#include "catalog/api_keys.h"
#include "catalog/catalog.h"
#include "common/clock.h"
#include "common/logging.h"
#include "scoped_ids.h"
#include "store/memory_store.h"
#include "testing/status_matchers.h"

namespace quiver::catalog::internal {
namespace {

using nlohmann::json;

bool IsCorruption(const Status& s) { return !s.ok() && s.subcode() == Subcode::kCorruption; }
template <typename T>
bool IsCorruption(const Result<T>& r) {
  return IsCorruption(r.status());
}

// --- golden records: what quiver writes today ----------------------------------------------

const char* kGoldenProject = R"({
  "created_at": "2026-01-02T03:04:05.678Z",
  "grants": [{"relation": "admin", "subject": "user:alice"}],
  "id": ["sales"],
  "kind": "project",
  "properties": {"team": "s"}
})";

const char* kGoldenNamespace = R"({
  "created_at": "2026-01-02T03:04:05.678Z",
  "dropping_since": 1700000000000000000,
  "grants": [{"relation": "owner", "subject": "user:alice"}],
  "id": ["default", "ns"],
  "kind": "namespace",
  "properties": {"k": "v"},
  "warehouse": "default"
})";

const char* kGoldenTable = R"({
  "created_at": "2026-01-02T03:04:05.678Z",
  "declared": true,
  "grants": [{"relation": "owner", "subject": "user:alice"}],
  "id": ["default", "ns", "t"],
  "kind": "table",
  "location": "0a1b2c3d_ns$t",
  "managed_versioning": false,
  "properties": {},
  "renamed_from": ["default", "ns", "old"],
  "root": "",
  "state": "active",
  "warehouse": "default"
})";

const char* kGoldenWarehouse = R"({
  "active": true,
  "created_at": "2026-01-02T03:04:05.678Z",
  "grants": [{"relation": "owner", "subject": "user:alice"}],
  "kind": "warehouse",
  "name": "lake",
  "project": "default",
  "properties": {"tier": "cold"},
  "root": "file:///data/lake"
})";

const char* kGoldenDropIntent =
    R"({"delete_bytes":true,"id":["default","ns","t"],"location":"0a1b2c3d_ns$t","op":"drop","root":""})";
const char* kGoldenRenameIntent =
    R"({"dest":["default","ns","u"],"location":"0a1b2c3d_ns$t","op":"rename","source":["default","ns","t"]})";

const char* kGoldenApiKey = R"({
  "created_at": "2026-01-02T03:04:05.678Z",
  "created_by": "user:root",
  "description": "laptop",
  "expires_at_ms": 1800000000000,
  "hash": "00ff",
  "key_id": "0123456789abcdef",
  "minted_with": ["fedcba9876543210"],
  "principal": "user:alice",
  "revoked_at": "2026-02-02T03:04:05.678Z",
  "revoked_by": "user:root",
  "salt": "abcd"
})";

const char* kGoldenServer = R"({"grants": [{"relation": "admin", "subject": "user:ops"}]})";

const char* kGoldenEvent = R"({
  "action": "create_namespace", "actor": "user:alice", "at": "2026-01-02T03:04:05.678Z",
  "grants": [{"relation": "owner", "subject": "user:alice"}], "kind": "namespace",
  "object": ["default", "ns"], "outcome": "ok", "project": "default", "request_id": "r1",
  "seq": 7, "warehouse": "default"
})";

TEST(RecordsTest, GoldenRecordsReadAsTodaysFieldsAndWriteBackUnchanged) {
  {
    ASSERT_OK_AND_ASSIGN(ProjectRecord p, ProjectRecord::FromJson(json::parse(kGoldenProject)));
    EXPECT_EQ(p.id, ObjectId({"sales"}));
    EXPECT_EQ(p.properties.at("team"), "s");
    EXPECT_EQ(p.grants.size(), 1u);
    EXPECT_FALSE(p.dropping_since.has_value());
    EXPECT_EQ(p.ToJson(), json::parse(kGoldenProject));
  }
  {
    ASSERT_OK_AND_ASSIGN(NamespaceRecord n,
                         NamespaceRecord::FromJson(json::parse(kGoldenNamespace)));
    EXPECT_EQ(n.warehouse, "default");
    EXPECT_EQ(n.dropping_since, 1700000000000000000);
    EXPECT_EQ(n.ToJson(), json::parse(kGoldenNamespace));
  }
  {
    ASSERT_OK_AND_ASSIGN(TableRecord t, TableRecord::FromJson(json::parse(kGoldenTable)));
    EXPECT_EQ(t.location, "0a1b2c3d_ns$t");
    EXPECT_TRUE(t.declared);
    EXPECT_EQ(t.state, TableState::kActive);
    EXPECT_EQ(t.renamed_from, ObjectId({"default", "ns", "old"}));
    EXPECT_FALSE(t.renamed_to.has_value());
    EXPECT_EQ(t.ToJson(), json::parse(kGoldenTable));
  }
  {
    ASSERT_OK_AND_ASSIGN(WarehouseRecord w,
                         WarehouseRecord::FromJson(json::parse(kGoldenWarehouse)));
    EXPECT_EQ(w.root, "file:///data/lake");
    EXPECT_TRUE(w.active);
    EXPECT_EQ(w.ToJson(), json::parse(kGoldenWarehouse));
  }
  {
    ASSERT_OK_AND_ASSIGN(IntentRecord d, IntentRecord::FromJson(json::parse(kGoldenDropIntent)));
    EXPECT_EQ(d.op, IntentOp::kDrop);
    EXPECT_TRUE(d.delete_bytes);
    EXPECT_EQ(d, IntentRecord::Drop({"default", "ns", "t"}, "", "0a1b2c3d_ns$t", true));
    // Intents are written compactly; the text is exactly today's.
    EXPECT_EQ(d.ToJson().dump(), kGoldenDropIntent);
    ASSERT_OK_AND_ASSIGN(IntentRecord r, IntentRecord::FromJson(json::parse(kGoldenRenameIntent)));
    EXPECT_EQ(
        r, IntentRecord::Rename({"default", "ns", "t"}, {"default", "ns", "u"}, "0a1b2c3d_ns$t"));
    EXPECT_EQ(r.ToJson().dump(), kGoldenRenameIntent);
  }
  {
    ASSERT_OK_AND_ASSIGN(ApiKeyRecord k, ApiKeyRecord::FromJson(json::parse(kGoldenApiKey)));
    EXPECT_EQ(k.expires_at_ms, 1800000000000);
    EXPECT_EQ(k.minted_with, std::vector<std::string>({"fedcba9876543210"}));
    EXPECT_EQ(k.revoked_by, "user:root");
    EXPECT_EQ(k.ToJson(), json::parse(kGoldenApiKey));
  }
  {
    ASSERT_OK_AND_ASSIGN(ServerRecord s, ServerRecord::FromJson(json::parse(kGoldenServer)));
    EXPECT_EQ(s.ToJson(), json::parse(kGoldenServer));
  }
  {
    ASSERT_OK_AND_ASSIGN(ChangeEvent e, ChangeEvent::FromJson(json::parse(kGoldenEvent)));
    EXPECT_EQ(e.seq, 7u);
    EXPECT_EQ(e.action, "create_namespace");
    EXPECT_EQ(e.object, ObjectId({"default", "ns"}));
    EXPECT_EQ(e.warehouse, "default");
    EXPECT_EQ(e.extra["actor"], "user:alice");
    EXPECT_EQ(e.ToJson(), json::parse(kGoldenEvent));
  }
}

// Absent fields take the defaults older quivers assumed; fields this version does not know are
// kept and written back.
TEST(RecordsTest, AbsentFieldsTakeTheOldDefaultsAndUnknownFieldsSurvive) {
  ASSERT_OK_AND_ASSIGN(TableRecord t,
                       TableRecord::FromJson(json::parse(R"({"location": "l", "future": [1]})")));
  EXPECT_EQ(t.state, TableState::kActive);
  EXPECT_EQ(t.grants, json::array());
  EXPECT_FALSE(t.declared);
  EXPECT_EQ(t.root, "");
  EXPECT_EQ(t.ToJson()["future"], json::parse("[1]"));
  ASSERT_OK_AND_ASSIGN(WarehouseRecord w, WarehouseRecord::FromJson(json::object()));
  EXPECT_TRUE(w.active);
  ASSERT_OK_AND_ASSIGN(NamespaceRecord n, NamespaceRecord::FromJson(json::object()));
  EXPECT_FALSE(n.warehouse.has_value());
  EXPECT_FALSE(n.ToJson().contains("warehouse"));
  ASSERT_OK_AND_ASSIGN(ApiKeyRecord k, ApiKeyRecord::FromJson(json::object()));
  EXPECT_FALSE(k.ToJson().contains("minted_with"));
  EXPECT_FALSE(k.ToJson().contains("expires_at_ms"));
  // An expiry past int64 is no expiry that can be honoured: expired, never "none".
  ASSERT_OK_AND_ASSIGN(
      ApiKeyRecord huge,
      ApiKeyRecord::FromJson(json::parse(R"({"expires_at_ms": 18446744073709551615})")));
  EXPECT_EQ(huge.expires_at_ms, 0);
  // An unknown intent op parses (the intent is ignored), a mistyped one does not.
  ASSERT_OK_AND_ASSIGN(IntentRecord unknown, IntentRecord::FromJson(json::parse(R"({"op":"x"})")));
  EXPECT_FALSE(unknown.op.has_value());
  EXPECT_EQ(unknown.ToJson(), json::parse(R"({"op":"x"})"));
}

TEST(RecordsTest, EveryKindRoundTrips) {
  ProjectRecord p;
  p.id = {"p"};
  p.properties = {{"a", "b"}};
  p.created_at = "now";
  p.grants = OwnerGrants("user:a", "admin");
  p.dropping_since = -5;
  p.extra = {{"later", true}};
  EXPECT_EQ(*ProjectRecord::FromJson(p.ToJson()), p);

  NamespaceRecord n;
  n.id = {"p", "a"};
  n.warehouse = "w";
  n.grants = OwnerGrants("user:a", "owner");
  EXPECT_EQ(*NamespaceRecord::FromJson(n.ToJson()), n);

  for (TableState state : {TableState::kActive, TableState::kDropping, TableState::kRetired}) {
    TableRecord t;
    t.id = {"p", "a", "t"};
    t.warehouse = "w";
    t.root = "memory://x";
    t.location = "loc";
    t.properties = {{"k", "v"}};
    t.declared = true;
    t.managed_versioning = true;
    t.state = state;
    t.renamed_to = ObjectId{"p", "a", "u"};
    EXPECT_EQ(*TableRecord::FromJson(t.ToJson()), t);
    EXPECT_EQ(ParseTableState(TableStateName(state)), state);
  }

  WarehouseRecord w;
  w.project = "p";
  w.name = "w";
  w.active = false;
  w.dropping_since = 42;
  EXPECT_EQ(*WarehouseRecord::FromJson(w.ToJson()), w);

  for (const IntentRecord& i : {IntentRecord::Drop({"p", "t"}, "r", "l", false),
                                IntentRecord::Rename({"p", "t"}, {"p", "u"}, "l")}) {
    EXPECT_EQ(*IntentRecord::FromJson(i.ToJson()), i);
  }

  ApiKeyRecord k;
  k.key_id = "0123456789abcdef";
  k.principal = "user:a";
  k.expires_at_ms = 99;
  k.minted_with = {"a", "b"};
  k.revoked_at = "then";
  EXPECT_EQ(*ApiKeyRecord::FromJson(k.ToJson()), k);

  ServerRecord s;
  s.grants = OwnerGrants("user:ops", "admin");
  EXPECT_EQ(*ServerRecord::FromJson(s.ToJson()), s);

  ChangeEvent e;
  e.seq = 3;
  e.action = "rename_table";
  e.kind = "table";
  e.object = ObjectId{"p", "t"};
  e.to = ObjectId{"p", "u"};
  EXPECT_EQ(*ChangeEvent::FromJson(e.ToJson()), e);

  GrantEntry g{"user:a", "reader"};
  EXPECT_EQ(*GrantEntry::FromJson(g.ToJson()), g);
}

// A value of another type than `value`'s.
json Mistyped(const json& value) {
  if (value.is_string()) return 5;
  if (value.is_array()) return "x";
  if (value.is_object()) return json::array();
  if (value.is_boolean()) return "yes";
  return json::array();  // numbers
}

template <typename R>
void ExpectEveryMistypedFieldIsCorruption(const char* golden) {
  const json body = json::parse(golden);
  for (const auto& [key, value] : body.items()) {
    for (const json& bad : {Mistyped(value), json(nullptr)}) {
      json planted = body;
      planted[key] = bad;
      SCOPED_TRACE(planted.dump());
      Result<R> read = Status::OK();
      EXPECT_NO_THROW(read = R::FromJson(planted));
      ASSERT_TRUE(IsCorruption(read)) << read.status().ToString();
      EXPECT_NE(read.status().message().find("'" + key + "'"), std::string::npos)
          << read.status().ToString();
    }
  }
  // Not an object at all.
  EXPECT_TRUE(IsCorruption(R::FromJson(json::array())));
}

TEST(RecordsTest, EveryMistypedFieldOfEveryKindIsCorruptionNamingIt) {
  ExpectEveryMistypedFieldIsCorruption<ProjectRecord>(kGoldenProject);
  ExpectEveryMistypedFieldIsCorruption<NamespaceRecord>(kGoldenNamespace);
  ExpectEveryMistypedFieldIsCorruption<TableRecord>(kGoldenTable);
  ExpectEveryMistypedFieldIsCorruption<WarehouseRecord>(kGoldenWarehouse);
  ExpectEveryMistypedFieldIsCorruption<IntentRecord>(kGoldenDropIntent);
  ExpectEveryMistypedFieldIsCorruption<IntentRecord>(kGoldenRenameIntent);
  ExpectEveryMistypedFieldIsCorruption<ApiKeyRecord>(kGoldenApiKey);
  ExpectEveryMistypedFieldIsCorruption<ServerRecord>(kGoldenServer);
  ExpectEveryMistypedFieldIsCorruption<GrantEntry>(R"({"subject": "user:a", "relation": "x"})");
  // The event's known fields (the rest is the logger's).
  ExpectEveryMistypedFieldIsCorruption<ChangeEvent>(
      R"({"seq": 1, "at": "t", "action": "a", "kind": "k", "object": ["p"], "grants": [],
          "warehouse": "w", "to": ["p", "u"]})");
  // Values inside a field: a non-string property, an id part, an unknown state, a mark past
  // int64.
  for (const char* planted : {R"({"properties": {"a": 1}})", R"({"id": ["p", 2]})",
                              R"({"state": "frozen"})", R"({"state": 5})", R"({"grants": "x"})",
                              R"({"created_at": []})", R"({"renamed_to": [null]})"}) {
    SCOPED_TRACE(planted);
    EXPECT_TRUE(IsCorruption(TableRecord::FromJson(json::parse(planted))));
  }
  EXPECT_TRUE(IsCorruption(
      NamespaceRecord::FromJson(json::parse(R"({"dropping_since": 18446744073709551615})"))));
  EXPECT_TRUE(IsCorruption(NamespaceRecord::FromJson(json::parse(R"({"dropping_since": 1.5})"))));
}

// --- through the public API ----------------------------------------------------------------

class RecordsApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Logger::Default().SetLevel(LogLevel::kError);  // the planted records are warned about
    CatalogOptions options;
    options.clock = &clock_;
    options.sync_points = &sync_points_;
    ASSERT_OK_AND_ASSIGN(catalog_, Catalog::Open(store_, options));
  }
  void TearDown() override { Logger::Default().SetLevel(LogLevel::kInfo); }

  // Rewrites one field of the record of (kind, id) behind the catalog's back.
  void Plant(RecordKind kind, const ObjectId& id, const std::string& field, json value) {
    ASSERT_OK_AND_ASSIGN(Record record, catalog_->registry().Get(kind, id));
    record.body[field] = std::move(value);
    ASSERT_OK(catalog_->registry().Replace(kind, id, record.body, record.etag));
  }
  // Restores the record of (kind, id) to `body`.
  void Restore(RecordKind kind, const ObjectId& id, const json& body) {
    ASSERT_OK_AND_ASSIGN(Record record, catalog_->registry().Get(kind, id));
    ASSERT_OK(catalog_->registry().Replace(kind, id, body, record.etag));
  }
  json BodyOf(RecordKind kind, const ObjectId& id) {
    auto record = catalog_->registry().Get(kind, id);
    return record.ok() ? record->body : json();
  }

  ManualClock clock_;
  SyncPoints sync_points_;
  std::shared_ptr<MemoryObjectStore> store_ = MemoryObjectStore::Create({.clock = &clock_});
  std::unique_ptr<Catalog> catalog_;
  Actor alice_{"user:alice", "r1"};
};

TEST_F(RecordsApiTest, AMistypedRecordIsCorruptionThroughTheCatalog) {
  ASSERT_OK(catalog_->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, alice_));
  ASSERT_OK(catalog_->DeclareTable(S({"ns", "t"}), {}, alice_));
  const ObjectId ns = S({"ns"});
  const ObjectId t = S({"ns", "t"});
  const ObjectId wh = {"default", "default"};
  using Call = std::function<Status()>;
  struct Case {
    RecordKind kind;
    ObjectId id;
    std::vector<std::pair<std::string, json>> fields;
    std::vector<Call> calls;
  };
  std::vector<Case> cases = {
      {RecordKind::kTable,
       t,
       {{"state", 5}, {"grants", "x"}, {"created_at", json::array()}, {"location", 7}},
       {[&] { return catalog_->GetTable(t).status(); },
        [&] { return catalog_->DropTable(t, alice_).status(); },
        [&] { return catalog_->RenameTable(t, std::nullopt, "u", alice_).status(); },
        [&] { return catalog_->ReadGrants(Catalog::GrantTarget::kTable, t).status(); },
        [&] {
          return catalog_
              ->UpdateGrants(
                  Catalog::GrantTarget::kTable, t, [](json&) { return Status::OK(); }, alice_)
              .status();
        },
        [&] {
          return catalog_->CreateWarehouse("default", "w2", "memory://w2", {}, alice_).status();
        }}},
      {RecordKind::kNamespace,
       ns,
       {{"dropping_since", "soon"}, {"warehouse", 1}, {"properties", "x"}, {"grants", "x"}},
       {[&] { return catalog_->DescribeNamespace(ns).status(); },
        [&] {
          return catalog_->CreateNamespace(S({"ns", "child"}), CreateMode::kCreate, {}, alice_)
              .status();
        },
        [&] {
          return catalog_->DeclareTable(S({"ns", "t2"}), {}, alice_).status();
        },
        [&] { return catalog_->DropNamespace(ns, {}, alice_).status(); },
        [&] { return catalog_->ReadGrants(Catalog::GrantTarget::kNamespace, ns).status(); }}},
      {RecordKind::kNamespace,
       {"default"},
       {{"dropping_since", json::array()}, {"created_at", 1}, {"kind", false}},
       {[&] { return catalog_->DescribeProject("default").status(); },
        [&] { return catalog_->DescribeNamespace({"default"}).status(); },
        [&] { return catalog_->DeleteProject("default", alice_).status(); },
        [&] { return catalog_->CreateWarehouse("default", "w3", "", {}, alice_).status(); }}},
      {RecordKind::kWarehouse,
       wh,
       {{"active", "yes"}, {"root", 5}, {"grants", json::object()}},
       {[&] { return catalog_->DescribeWarehouse("default", "default").status(); },
        [&] { return catalog_->SetWarehouseActive("default", "default", false, alice_).status(); },
        [&] { return catalog_->DeleteWarehouse("default", "default", alice_).status(); },
        [&] {
          return catalog_->CreateNamespace(S({"ns2"}), CreateMode::kCreate, {}, alice_).status();
        }}},
  };
  for (const Case& c : cases) {
    const json original = BodyOf(c.kind, c.id);
    for (const auto& [field, value] : c.fields) {
      Plant(c.kind, c.id, field, value);
      for (size_t i = 0; i < c.calls.size(); ++i) {
        SCOPED_TRACE(Registry::RecordKey(c.kind, c.id) + " " + field + "=" + value.dump() +
                     ", call #" + std::to_string(i));
        Status s;
        EXPECT_NO_THROW(s = c.calls[i]());
        EXPECT_TRUE(IsCorruption(s)) << s.ToString();
        if (IsCorruption(s)) {
          EXPECT_NE(s.message().find(field), std::string::npos) << s.ToString();
        }
      }
      Restore(c.kind, c.id, original);
    }
  }
  // The check reports what it cannot read, and goes on.
  Plant(RecordKind::kTable, t, "state", 5);
  ASSERT_OK_AND_ASSIGN(auto report, catalog_->CheckConsistency());
  ASSERT_EQ(report.problems.size(), 1u) << ::testing::PrintToString(report.problems);
  EXPECT_NE(report.problems[0].find("'state'"), std::string::npos) << report.problems[0];
}

TEST_F(RecordsApiTest, AMistypedRecordIsCorruptionThroughAccessControl) {
  ASSERT_OK(catalog_->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, alice_));
  ASSERT_OK(catalog_->DeclareTable(S({"ns", "t"}), {}, alice_));
  AccessOptions options;
  options.clock = &clock_;
  options.refresh_interval = std::chrono::hours(1);  // only explicit refreshes
  ASSERT_OK_AND_ASSIGN(auto access, AccessControl::Open(*catalog_, options));
  const auto table = authz::ObjectRef::Table(S({"ns", "t"}));

  // Reconcile (a refusal re-reads the chain) meets the mistyped record.
  Plant(RecordKind::kTable, S({"ns", "t"}), "grants", "x");
  Result<bool> checked = false;
  EXPECT_NO_THROW(checked = access->CheckFresh("user:bob", authz::Permission::kReadData, table));
  EXPECT_TRUE(IsCorruption(checked)) << checked.status().ToString();
  EXPECT_TRUE(IsCorruption(access->ReadGrantsOf(table)));

  // A refresh meets it through another server's grant change, and through a mistyped event.
  // Either way the refresh answers Corruption, applies what follows, and is not stuck there.
  ASSERT_OK_AND_ASSIGN(auto other, Catalog::Open(store_, {.clock = &clock_}));
  ASSERT_OK(other->CreateNamespace(S({"other"}), CreateMode::kCreate, {}, alice_));
  ASSERT_OK(other->UpdateGrants(
      Catalog::GrantTarget::kNamespace, S({"ns"}),
      [](json& grants) {
        grants.push_back({{"subject", "user:carol"}, {"relation", "reader"}});
        return Status::OK();
      },
      alice_));
  other->LogEvent({{"action", "set_grants"}, {"kind", "table"}, {"object", S({"ns", "t"})}},
                  alice_);
  other->LogEvent({{"action", 5}, {"kind", "table"}, {"object", "x"}}, alice_);
  other->registry().FlushLog();
  Status refreshed;
  EXPECT_NO_THROW(refreshed = access->Refresh());
  EXPECT_TRUE(IsCorruption(refreshed)) << refreshed.ToString();
  // The good events around the bad ones were applied.
  EXPECT_TRUE(access->Check("user:carol", authz::Permission::kReadData,
                            authz::ObjectRef::Namespace(S({"ns"}))));
  EXPECT_OK(access->Refresh());

  // A mistyped server record is Corruption where it is read.
  ASSERT_OK(store_->Put("_quiver/server.json", R"({"grants": "x"})"));
  EXPECT_TRUE(IsCorruption(access->ReadServerGrants()));
  EXPECT_TRUE(IsCorruption(access->Reconcile(authz::ObjectRef::Server())));
  auto reopened = AccessControl::Open(*catalog_, options);
  EXPECT_TRUE(IsCorruption(reopened)) << reopened.status().ToString();
  EXPECT_NE(reopened.status().message().find("'grants'"), std::string::npos);
  ASSERT_OK(store_->Delete("_quiver/server.json"));

  // A log batch whose event has a mistyped seq: ReadLog refuses it (it is not read as 0).
  other->LogEvent({{"action", "noop"}, {"kind", "table"}}, alice_);
  other->registry().FlushLog();
  ASSERT_OK_AND_ASSIGN(ListPage page, store_->List({.prefix = "_quiver/log/", .limit = 1}));
  ASSERT_EQ(page.objects.size(), 1u);
  ASSERT_OK_AND_ASSIGN(GetResult batch, store_->Get(page.objects[0].key));
  json body = json::parse(batch.data);
  body["events"][0]["seq"] = "seven";
  ASSERT_OK(store_->Put(page.objects[0].key, body.dump()));
  EXPECT_NO_THROW(refreshed = access->Refresh());
  EXPECT_TRUE(IsCorruption(refreshed)) << refreshed.ToString();
}

TEST_F(RecordsApiTest, AMistypedRecordLeftOutOfTheIndexAtOpenIsNotFatal) {
  ASSERT_OK(catalog_->CreateNamespace(S({"ns"}), CreateMode::kCreate, {}, alice_));
  ASSERT_OK(catalog_->DeclareTable(S({"ns", "t"}), {}, Actor{"user:bob", "r2"}));
  Plant(RecordKind::kTable, S({"ns", "t"}), "state", 5);
  AccessOptions options;
  options.clock = &clock_;
  Result<std::unique_ptr<AccessControl>> access = Status::OK();
  EXPECT_NO_THROW(access = AccessControl::Open(*catalog_, options));
  ASSERT_OK(access);
  // The unreadable table grants nothing; the rest of the index is there.
  EXPECT_FALSE((*access)->Check("user:bob", authz::Permission::kReadData,
                                authz::ObjectRef::Table(S({"ns", "t"}))));
  EXPECT_TRUE((*access)->Check("user:alice", authz::Permission::kReadData,
                               authz::ObjectRef::Namespace(S({"ns"}))));
}

TEST_F(RecordsApiTest, AMistypedApiKeyRecordIsCorruptionNotAnAcceptedKey) {
  ApiKeyStore keys(store_, &clock_);
  ASSERT_OK_AND_ASSIGN(CreatedApiKey created,
                       keys.Create("user:alice", std::nullopt, "", "user:root"));
  const std::string key = "_quiver/access/keys/" + created.info.key_id + ".json";
  ASSERT_OK_AND_ASSIGN(GetResult original, store_->Get(key));
  for (const char* field : {"revoked_at", "expires_at_ms", "minted_with", "hash", "principal"}) {
    SCOPED_TRACE(field);
    json body = json::parse(original.data);
    body[field] = json::object();
    ASSERT_OK(store_->Put(key, body.dump()));
    ApiKeyStore fresh(store_, &clock_);  // nothing cached
    Result<VerifiedApiKey> verified = Status::OK();
    EXPECT_NO_THROW(verified = fresh.VerifyKey(created.key));
    EXPECT_TRUE(IsCorruption(verified)) << verified.status().ToString();
    EXPECT_TRUE(IsCorruption(fresh.Describe(created.info.key_id)));
    EXPECT_TRUE(IsCorruption(fresh.Revoke(created.info.key_id, "user:root")));
    ASSERT_OK_AND_ASSIGN(auto listed, fresh.List(std::nullopt));
    EXPECT_TRUE(listed.empty());  // a broken record lists as nothing
  }
}

// --- the create protocol's withdraw path (create_protocol.h) -------------------------------

// Between a create's write and its re-check (kCreateWrittenPoint), `race` runs once: what a
// concurrent writer does there must make the create withdraw what it wrote.
class CreateProtocolTest : public RecordsApiTest {
 protected:
  void RaceOnce(std::function<void()> race) {
    auto done = std::make_shared<bool>(false);
    sync_points_.Set(std::string(kCreateWrittenPoint),
                     [race = std::move(race), done](std::string_view) {
                       if (!*done) {
                         *done = true;
                         race();
                       }
                       return Status::OK();
                     });
  }
  // Marks the namespace (or project) `ns` as being dropped, as a drop's first step does.
  void MarkDropping(const ObjectId& ns) {
    Plant(RecordKind::kNamespace, ns, "dropping_since", clock_.NowNanos());
  }
  bool Exists(RecordKind kind, const ObjectId& id) {
    return *catalog_->registry().Exists(kind, id);
  }
  size_t ReservationMarkers() {
    size_t n = 0;
    auto all = store_->ListAll("");
    EXPECT_OK(all);
    if (!all.ok()) return 0;
    for (const ObjectMeta& m : *all) {
      if (m.key.find(".lance-reserved") != std::string::npos) ++n;
    }
    return n;
  }
};

TEST_F(CreateProtocolTest, ANamespaceCreatedWhileItsParentIsDroppedIsWithdrawn) {
  ASSERT_OK(catalog_->CreateNamespace(S({"a"}), CreateMode::kCreate, {}, alice_));
  const uint64_t hits = sync_points_.HitCount(kCreateWrittenPoint);
  RaceOnce([&] { MarkDropping(S({"a"})); });
  auto created = catalog_->CreateNamespace(S({"a", "b"}), CreateMode::kCreate, {}, alice_);
  ASSERT_STATUS(StatusCode::kConcurrentModification, created);
  EXPECT_TRUE(created.status().retryable());
  EXPECT_FALSE(Exists(RecordKind::kNamespace, S({"a", "b"})));
  EXPECT_EQ(sync_points_.HitCount(kCreateWrittenPoint), hits + 1);
}

TEST_F(CreateProtocolTest, ANamespaceWhoseNameATableTookMeanwhileIsWithdrawn) {
  RaceOnce([&] {
    ASSERT_OK(catalog_->registry().Create(RecordKind::kTable, S({"x"}),
                                          TableRecord{.location = "elsewhere"}.ToJson()));
  });
  auto created = catalog_->CreateNamespace(S({"x"}), CreateMode::kCreate, {}, alice_);
  ASSERT_STATUS(StatusCode::kNamespaceAlreadyExists, created);
  EXPECT_NE(created.status().message().find("created concurrently"), std::string::npos);
  EXPECT_FALSE(Exists(RecordKind::kNamespace, S({"x"})));
}

TEST_F(CreateProtocolTest, ADeclaredTableWithdrawsItsRecordAndItsReservation) {
  ASSERT_OK(catalog_->CreateNamespace(S({"a"}), CreateMode::kCreate, {}, alice_));
  const size_t markers = ReservationMarkers();
  RaceOnce([&] { MarkDropping(S({"a"})); });
  auto declared = catalog_->DeclareTable(S({"a", "t"}), {}, alice_);
  ASSERT_STATUS(StatusCode::kConcurrentModification, declared);
  EXPECT_FALSE(Exists(RecordKind::kTable, S({"a", "t"})));
  EXPECT_EQ(ReservationMarkers(), markers);
  // A namespace taking the name meanwhile withdraws it too.
  ASSERT_OK(catalog_->CreateNamespace(S({"b"}), CreateMode::kCreate, {}, alice_));
  RaceOnce([&] {
    ASSERT_OK(catalog_->registry().Create(RecordKind::kNamespace, S({"b", "t"}),
                                          NamespaceRecord{}.ToJson()));
  });
  ASSERT_STATUS(StatusCode::kTableAlreadyExists, catalog_->DeclareTable(S({"b", "t"}), {}, alice_));
  EXPECT_FALSE(Exists(RecordKind::kTable, S({"b", "t"})));
  EXPECT_EQ(ReservationMarkers(), markers);
}

TEST_F(CreateProtocolTest, AWarehouseCreatedWhileItsProjectIsDeletedIsWithdrawn) {
  ASSERT_OK(catalog_->CreateProject("p", {}, alice_));
  RaceOnce([&] { MarkDropping({"p"}); });
  auto created = catalog_->CreateWarehouse("p", "w", "", {}, alice_);
  ASSERT_STATUS(StatusCode::kConcurrentModification, created);
  EXPECT_FALSE(Exists(RecordKind::kWarehouse, {"p", "w"}));
}

TEST_F(CreateProtocolTest, ARenameWhoseDestinationIsWithdrawnRestoresItsSource) {
  ASSERT_OK(catalog_->CreateNamespace(S({"a"}), CreateMode::kCreate, {}, alice_));
  ASSERT_OK(catalog_->CreateNamespace(S({"b"}), CreateMode::kCreate, {}, alice_));
  ASSERT_OK_AND_ASSIGN(TableInfo before, catalog_->DeclareTable(S({"a", "t"}), {}, alice_));
  RaceOnce([&] { MarkDropping(S({"b"})); });
  auto renamed = catalog_->RenameTable(S({"a", "t"}), S({"b"}), "u", alice_);
  ASSERT_STATUS(StatusCode::kConcurrentModification, renamed);
  EXPECT_FALSE(Exists(RecordKind::kTable, S({"b", "u"})));
  ASSERT_OK_AND_ASSIGN(TableInfo after, catalog_->GetTable(S({"a", "t"})));  // active again
  EXPECT_EQ(after.location, before.location);
  EXPECT_TRUE(store_->ListAll("_quiver/intents/")->empty());
}

// A stop at the point is a crash right after the write: nothing is withdrawn, and the
// consistency check calls the young orphan in flight (create_protocol.h, invariant 6).
TEST_F(CreateProtocolTest, ACrashAfterTheWriteLeavesARecordTheCheckSeesInFlight) {
  ASSERT_OK(catalog_->CreateNamespace(S({"a"}), CreateMode::kCreate, {}, alice_));
  sync_points_.Set(std::string(kCreateWrittenPoint), [&](std::string_view) {
    // The parent goes, and the create stops before it can see that.
    auto parent = catalog_->registry().Get(RecordKind::kNamespace, S({"a"}));
    EXPECT_OK(parent);
    if (parent.ok()) {
      EXPECT_OK(catalog_->registry().Delete(RecordKind::kNamespace, S({"a"}), parent->etag));
    }
    return Status::IOError("injected: crashed");
  });
  ASSERT_STATUS(StatusCode::kInternal,
                catalog_->CreateNamespace(S({"a", "b"}), CreateMode::kCreate, {}, alice_));
  sync_points_.ClearAll();
  EXPECT_TRUE(Exists(RecordKind::kNamespace, S({"a", "b"})));
  ASSERT_OK_AND_ASSIGN(auto report, catalog_->CheckConsistency());
  EXPECT_TRUE(report.problems.empty()) << ::testing::PrintToString(report.problems);
  ASSERT_EQ(report.in_flight.size(), 1u) << ::testing::PrintToString(report.in_flight);
}

}  // namespace
}  // namespace quiver::catalog::internal
