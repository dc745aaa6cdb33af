// Holes an adversarial review found in authorization, tenancy and storage, over HTTP: grants
// across projects, the quarantine of a deactivated warehouse's root-namespace tables, API keys
// minted with keys, the last owner of an object, and a full disk (docs/authorization.md).
#include <cerrno>

#include "authz_fixture.h"

namespace quiver::server::testing {
namespace {

using nlohmann::json;

class AccessHardeningTest : public AuthzFixture {
 protected:
  // Sends `request` with a raw API key.
  Reply WithKey(const std::string& key, const Request& request,
                const std::map<std::string, std::string>& extra = {}) {
    return SendWith({{"x-api-key", key}}, "", request, extra);
  }
  // Creates an API key as the holder of `key`; the reply's body.
  Reply MintWith(const std::string& key, const json& body) {
    return WithKey(key, {"POST", "/v1/access/api-keys", body.dump()});
  }
};

// One project's admin cannot grant anything to another project's principal (who would then
// "belong to several projects" and have every plain request refused), nor to a principal that
// is in no project yet: adding a principal to a project is a server admin's decision.
TEST_F(AccessHardeningTest, AProjectAdminCannotGrantToAnotherProjectsPrincipal) {
  StartAuthServer({"user:alice", "user:mallory", "user:newcomer", "user:teammate"});
  Root({"POST", "/v1/projects", R"({"name":"q"})"});
  Grant({"user:alice#admin@project:q", "user:mallory#admin@project:default",
         "user:teammate#reader@project:default"});
  const std::map<std::string, std::string> in_q = {{"x-quiver-project", "q"}};
  Root({"POST", "/v1/warehouses", R"({"name":"w"})"}, 200, in_q);
  ASSERT_EQ(As("user:alice", {"POST", "/v1/namespace/mine/create"}).status, 200);
  RootTable({"shared"});
  auto before = Snapshot();

  // mallory (admin of default) grants alice (of q) a relation on default's objects: refused,
  // whatever the object, and nothing is written.
  for (const std::string tuple :
       {"user:alice#writer@project:default", "user:alice#reader@table:default/shared",
        "user:alice#owner@warehouse:default/default"}) {
    Reply refused =
        As("user:mallory", {"POST", "/v1/access/tuples", json({{"writes", {tuple}}}).dump()});
    ExpectError(refused, 403, 15, tuple);
    EXPECT_NE(refused.body.find("not a member of project 'default'"), std::string::npos)
        << refused.body;
  }
  // The same answer for a principal that is in no project at all: it says nothing about
  // alice's standing elsewhere.
  Reply newcomer = As("user:mallory", {"POST", "/v1/access/tuples",
                                       R"({"writes":["user:newcomer#reader@project:default"]})"});
  ExpectError(newcomer, 403, 15);
  EXPECT_EQ(Snapshot(), before);

  // alice's plain requests (no project header, as every LanceDB client sends them) work
  // exactly as before.
  EXPECT_EQ(As("user:alice", {"GET", "/v1/access/whoami", ""}).Json()["projects"], json({"q"}));
  EXPECT_EQ(As("user:alice", {"POST", "/v1/namespace/more/create"}).status, 200);
  EXPECT_EQ(As("user:alice", {"GET", "/v1/namespace/%24/list", ""}).Json(),
            json({{"namespaces", {"mine", "more"}}}));

  // Members of the project are mallory's to govern.
  EXPECT_EQ(As("user:mallory", {"POST", "/v1/access/tuples",
                                R"({"writes":["user:teammate#writer@table:default/shared"]})"})
                .status,
            200);
  // A server admin may add alice to default; alice then names her project.
  Grant({"user:alice#reader@table:default/shared"});
  ExpectError(As("user:alice", {"POST", "/v1/namespace/again/create"}), 400, 13);
  EXPECT_EQ(As("user:alice", {"POST", "/v1/namespace/again/create"}, in_q).status, 200);
}

// A deactivated warehouse quarantines the tables of the project's root namespace that live in
// it, as it does its namespaces: every door that names one answers 403 and changes nothing.
TEST_F(AccessHardeningTest, ADeactivatedWarehouseQuarantinesTheRootNamespacesTables) {
  StartAuthServer({"user:padmin"});
  Grant({"user:padmin#admin@project:default"});
  Root({"POST", "/v1/namespace/ns/create"});
  RootTable({"rt"});
  RootTable({"ns", "t"});
  ASSERT_EQ(As("user:padmin", RequestFor("DeactivateWarehouse")).status, 200);
  auto before = Snapshot();
  const std::vector<Request> calls = {
      {"POST", "/v1/table/rt/describe"},
      {"POST", "/v1/table/rt/exists"},
      {"POST", "/v1/table/rt/version/list"},
      {"POST", "/v1/table/rt/stats"},
      {"POST", "/v1/table/rt/tags/create", R"({"tag":"x","version":1})"},
      {"POST", "/v1/table/rt/schema_metadata/update", R"({"a":"b"})"},
      {"POST", "/v1/table/rt/drop"},
      {"POST", "/v1/table/rt/deregister"},
      {"POST", "/v1/table/rt/rename", R"({"new_table_name":"moved"})"},
      {"POST", "/v1/table/rt/rename", R"({"new_table_name":"moved","new_namespace_id":["ns"]})"},
      {"POST", "/v1/table/ns%24t/rename", R"({"new_table_name":"moved","new_namespace_id":[]})"},
      {"POST", "/v1/table/rt/register", R"({"location":"elsewhere","mode":"ExistOk"})"},
      {"POST", "/v1/table/fresh/declare"},
  };
  for (const Request& r : calls) {
    for (const char* who : {"user:padmin", kRoot}) {
      Reply reply = As(who, r);
      ExpectError(reply, 403, 15, r.target + " " + r.body + " as " + who);
      EXPECT_NE(reply.body.find("deactivated"), std::string::npos)
          << r.target << ": " << reply.body;
    }
  }
  EXPECT_EQ(Snapshot(), before);
  ASSERT_EQ(As("user:padmin", RequestFor("ActivateWarehouse")).status, 200);
  EXPECT_EQ(As("user:padmin", {"POST", "/v1/table/rt/describe"}).status, 200);
}

// A key minted with a key expires no later than it and dies with it; only server admins mint
// unbounded keys.
TEST_F(AccessHardeningTest, AKeyMintedWithAKeyExpiresAndDiesWithIt) {
  StartAuthServer({"user:alice"});
  Grant({"user:alice#reader@project:default"});
  const std::string& base = keys_["user:alice"];  // unbounded: made on the root, like the CLI
  Reply hour = MintWith(base, {{"expires_in_seconds", 3600}});
  ASSERT_EQ(hour.status, 200) << hour.body;
  const std::string k1 = hour.Json()["key"];
  const int64_t k1_expiry = hour.Json()["expires_at_ms"];
  EXPECT_EQ(hour.Json()["minted_with"], json({key_ids_["user:alice"]}));

  // Minted with k1: no expiry asked, k1's given; a later one refused.
  Reply child = MintWith(k1, {{"description", "child"}});
  ASSERT_EQ(child.status, 200) << child.body;
  EXPECT_EQ(child.Json().value("expires_at_ms", int64_t{0}), k1_expiry) << child.body;
  const std::string k2 = child.Json()["key"];
  ExpectError(MintWith(k1, {{"expires_in_seconds", 7200}}), 400, 13);
  ExpectError(MintWith(k1, {{"expires_at_ms", k1_expiry + 1}}), 400, 13);
  EXPECT_EQ(WithKey(k2, {"GET", "/v1/access/whoami", ""}).status, 200);

  // Revoking k1 revokes k2 with it.
  const std::string k1_id = hour.Json()["key_id"];
  ASSERT_EQ(WithKey(base, {"POST", "/v1/access/api-keys/" + k1_id + "/revoke"}).status, 200);
  ExpectError(WithKey(k1, {"GET", "/v1/access/whoami", ""}), 401, 16);
  ExpectError(WithKey(k2, {"GET", "/v1/access/whoami", ""}), 401, 16);

  // A key minted with the unbounded base key has no expiry, but dies with the base key.
  Reply open_ended = MintWith(base, json::object());
  ASSERT_EQ(open_ended.status, 200) << open_ended.body;
  EXPECT_FALSE(open_ended.Json().contains("expires_at_ms")) << open_ended.body;
  const std::string k3 = open_ended.Json()["key"];
  Root({"POST", "/v1/access/api-keys/" + key_ids_["user:alice"] + "/revoke"});
  ExpectError(WithKey(k3, {"GET", "/v1/access/whoami", ""}), 401, 16);

  // A server admin mints what it likes, bound to nothing.
  Reply admin = Root({"POST", "/v1/access/api-keys", R"({"principal":"user:alice"})"});
  EXPECT_FALSE(admin.Json().contains("expires_at_ms")) << admin.body;
  EXPECT_FALSE(admin.Json().contains("minted_with")) << admin.body;
  Root({"POST", "/v1/access/api-keys/" + key_ids_[kRoot] + "/revoke"});
  EXPECT_EQ(WithKey(admin.Json()["key"], {"GET", "/v1/access/whoami", ""}).status, 200);
}

// The last owner grant of an object cannot be revoked, even when other (lesser) grants remain:
// the object would be left with nobody to govern it.
TEST_F(AccessHardeningTest, TheLastOwnerOfAnObjectCannotBeRevoked) {
  StartAuthServer({"user:bob"});
  Root({"POST", "/v1/namespace/ns/create"});
  RootTable({"ns", "t"});
  Grant({"user:bob#reader@table:default/ns/t", "user:bob#writer@namespace:default/ns",
         "user:bob#reader@project:default"});
  auto before = Snapshot();
  // (The default project and warehouse were created by user:anonymous, at the root's start.)
  for (const std::string tuple :
       {"user:root#owner@table:default/ns/t", "user:root#owner@namespace:default/ns",
        "user:anonymous#owner@warehouse:default/default", "user:anonymous#admin@project:default"}) {
    Reply refused =
        Root({"POST", "/v1/access/tuples/delete", json({{"deletes", {tuple}}}).dump()}, 409);
    ExpectError(refused, 409, 3, tuple);
  }
  EXPECT_EQ(Snapshot(), before);
  EXPECT_EQ(Root({"GET", "/v1/admin/consistency", ""}).Json()["problems"], json::array());
  // With another owner in place the first may go; a lesser grant may go any time.
  Grant({"user:bob#owner@table:default/ns/t"});
  Root({"POST", "/v1/access/tuples/delete",
        R"({"deletes":["user:root#owner@table:default/ns/t","user:bob#reader@project:default"]})"});
  EXPECT_EQ(Root({"GET", "/v1/admin/consistency", ""}).Json()["problems"], json::array());
}

// Deleting every owner in one batch is refused as a whole: the rule is judged on the object's
// final grants, before anything is written (it used to delete the first owner, then refuse the
// second, and answer 409 with half the batch applied).
TEST_F(AccessHardeningTest, ABatchRemovingEveryOwnerChangesNothing) {
  StartAuthServer({"user:bob"});
  Root({"POST", "/v1/namespace/ns/create"});
  RootTable({"ns", "t"});
  Grant({"user:bob#owner@table:default/ns/t", "user:bob#reader@project:default"});
  auto before = Snapshot();
  Reply refused =
      Root({"POST", "/v1/access/tuples/delete",
            json({{"deletes",
                   {"user:root#owner@table:default/ns/t", "user:bob#owner@table:default/ns/t"}}})
                .dump()},
           409);
  ExpectError(refused, 409, 3);
  EXPECT_EQ(Snapshot(), before);
  // Another object's edit in the same batch is not applied either.
  Reply mixed =
      Root({"POST", "/v1/access/tuples/delete",
            json({{"deletes",
                   {"user:bob#reader@project:default", "user:root#owner@table:default/ns/t",
                    "user:bob#owner@table:default/ns/t"}}})
                .dump()},
           409);
  ExpectError(mixed, 409, 3);
  EXPECT_EQ(Snapshot(), before);
}

// A key record planted with a field of the wrong type is read while the request's header is
// admitted, on the transport's own threads: it answers 500 (a corrupt record) instead of an
// exception that ended the server.
TEST_F(AccessHardeningTest, AMistypedKeyRecordIsA500NotACrash) {
  StartAuthServer({"user:bob"});
  const std::string record = "_quiver/access/keys/" + key_ids_["user:bob"] + ".json";
  auto got = memory_->Get(record);
  ASSERT_TRUE(got.ok()) << got.status().ToString() << " " << record;
  json body = json::parse(got->data);
  body["principal"] = 5;
  ASSERT_TRUE(memory_->Put(record, body.dump(), PutOptions()).ok());
  Reply reply = As("user:bob", {"GET", "/v1/access/whoami", ""});
  EXPECT_EQ(reply.status, 500) << reply.body;
  EXPECT_EQ(Root({"GET", "/v1/access/whoami", ""}).status, 200) << "the server still serves";
}

class FullDiskTest : public ServerFixture {};

// A full disk answers 503 (ServiceUnavailable, retryable, with Retry-After) saying so, and a
// table can still be dropped to free space.
TEST_F(FullDiskTest, AFullDiskIsRetryableAndDropsStillFreeSpace) {
  ASSERT_EQ(client_->Post("/v1/namespace/ns/create", json::object()).status, 200);
  ASSERT_EQ(client_->Post("/v1/namespace/old/create", json::object()).status, 200);
  ASSERT_EQ(client_->Post("/v1/namespace/old%24inner/create", json::object()).status, 200);
  catalog::TableInfo table = MakeTable({"ns", "t"});
  catalog::TableInfo old_table = MakeTable({"old", "inner", "t"});
  faults_->FailAlways(StoreOp::kPut, StatusFromErrno(ENOSPC, "writing a record"));
  Reply full = client_->Post("/v1/table/ns%24u/declare", json::object());
  ExpectError(full, 503, 17);
  EXPECT_EQ(full.headers.count("retry-after"), 1u);
  EXPECT_NE(full.body.find("storage is full"), std::string::npos) << full.body;

  Reply dropped = client_->Post("/v1/table/ns%24t/drop", json::object());
  ASSERT_EQ(dropped.status, 200) << dropped.body;
  EXPECT_TRUE(memory_->ListAll(table.location + "/")->empty());
  ExpectError(client_->Post("/v1/table/ns%24t/describe", json::object()), 404, 4);
  // Namespaces too: an empty one, and a cascade over a nested namespace and its table.
  Reply cascade = client_->Post("/v1/namespace/old/drop", {{"behavior", "Cascade"}});
  ASSERT_EQ(cascade.status, 200) << cascade.body;
  EXPECT_TRUE(memory_->ListAll(old_table.location + "/")->empty());
  ASSERT_EQ(client_->Post("/v1/namespace/ns/drop", json::object()).status, 200);
  ExpectError(client_->Post("/v1/namespace/old%24inner/describe", json::object()), 404, 1);

  // The drop's event waited for room in the change log and is written with the next one.
  catalog_->registry().FlushLog();
  faults_->Clear();
  ASSERT_EQ(client_->Post("/v1/namespace/ns2/create", json::object()).status, 200);
  auto events = catalog_->registry().ReadLog(0, 1000);
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  std::vector<std::string> actions;
  for (const json& e : *events) actions.push_back(e.value("action", ""));
  const std::vector<std::string> last(actions.end() - std::min<size_t>(actions.size(), 6),
                                      actions.end());
  EXPECT_EQ(last,
            (std::vector<std::string>{"drop_table", "drop_table", "drop_namespace",
                                      "drop_namespace", "drop_namespace", "create_namespace"}));
  auto report = catalog_->CheckConsistency();
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->problems.empty()) << ::testing::PrintToString(report->problems);
}

}  // namespace
}  // namespace quiver::server::testing
