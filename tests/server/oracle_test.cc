// No existence oracle: a caller who cannot see an object gets, for an existing one, byte for
// byte the answer a missing one gets (status, headers but x-request-id and date, body but the
// request id in "instance"), from every read and destructive door. Create doors do the
// opposite: a missing parent is named (404, with how to create it), an existing one without
// permission refuses (403).
#include <set>

#include "authz_fixture.h"
#include "catalog/object_id.h"

namespace quiver::server::testing {
namespace {

using nlohmann::json;

// The read and destructive doors of the spec aimed at ns$t / ns (ListAllTables, a read door on
// the project the stranger can see, is among the listings below).
const char* const kSpecDoors[] = {
    // read
    "ListNamespaces", "DescribeNamespace", "NamespaceExists", "ListTables", "DescribeTable",
    "TableExists", "ListTableVersions", "DescribeTableVersion", "GetTableStats", "CountTableRows",
    "QueryTable", "ExplainTableQueryPlan", "AnalyzeTableQueryPlan", "ListTableIndices",
    "DescribeTableIndexStats", "ListTableTags", "GetTableTagVersion", "ListTableBranches",
    // destructive
    "DropNamespace", "DropTable", "DeregisterTable", "RenameTable", "RestoreTable",
    "UpdateTableSchemaMetadata", "CreateTableVersion", "BatchDeleteTableVersions",
    "AlterTableAlterColumns", "UpdateFieldMetadata", "AlterTableDropColumns", "InsertIntoTable",
    "MergeInsertIntoTable", "UpdateTable", "DeleteFromTable", "AlterTableAddColumns",
    "AlterTableBackfillColumns", "RefreshMaterializedView", "CreateTableIndex",
    "CreateTableScalarIndex", "DropTableIndex", "CreateTableTag", "DeleteTableTag",
    "UpdateTableTag", "CreateTableBranch", "DeleteTableBranch"};

// The object each door is about exists in World::kExists only ("secret" project, "wh2"
// warehouse, user:victim's key) or also in kNamespaceOnly (ns without t).
std::vector<OpRequest> Doors() {
  std::vector<OpRequest> out;
  for (const char* op : kSpecDoors) out.push_back({op, RequestFor(op)});
  out.push_back({"DescribeProject", {"POST", "/v1/projects/secret/describe"}});
  out.push_back({"DeleteProject", {"POST", "/v1/projects/secret/delete"}});
  out.push_back({"DescribeWarehouse", {"POST", "/v1/warehouses/wh2/describe"}});
  out.push_back({"DeleteWarehouse", {"POST", "/v1/warehouses/wh2/delete"}});
  out.push_back({"DeactivateWarehouse", {"POST", "/v1/warehouses/wh2/deactivate"}});
  out.push_back({"ActivateWarehouse", {"POST", "/v1/warehouses/wh2/activate"}});
  out.push_back({"RevokeApiKey", {"POST", "/v1/access/api-keys/{victim_key}/revoke"}});
  // the tuple API names objects in any project
  out.push_back({"WriteTuples", RequestFor("WriteTuples")});
  out.push_back({"DeleteTuples", RequestFor("DeleteTuples")});
  out.push_back({"ReadTuples", RequestFor("ReadTuples")});
  out.push_back({"ReadTuples", {"GET", "/v1/access/tuples?object=namespace:default/ns", ""}});
  out.push_back({"CheckAccess",
                 {"POST", "/v1/access/check",
                  R"({"permission":"can_observe","object":"table:default/ns/t",)"
                  R"("subject":"user:victim"})"}});
  return out;
}

// Listings the caller may make: they must not change with the hidden objects either.
std::vector<OpRequest> Listings() {
  return {
      {"ListNamespaces", {"GET", "/v1/namespace/%24/list", ""}},
      {"ListAllTables", {"GET", "/v1/table", ""}},
      {"ListProjects", {"GET", "/v1/projects", ""}},
      {"ListWarehouses", {"GET", "/v1/warehouses", ""}},
      {"WhoAmI", {"GET", "/v1/access/whoami", ""}},
      {"CheckAccess",
       {"POST", "/v1/access/check",
        R"({"permission":"can_observe","object":"table:default/ns/t"})"}},
  };
}

// A reply with what differs between any two requests taken out: the request id (header, and
// the error body's "instance") and the date.
std::string Normalized(const Reply& reply) {
  std::string out = "HTTP " + std::to_string(reply.status) + "\n";
  std::string request_id;
  for (const auto& [name, value] : reply.headers) {
    if (name == "x-request-id") {
      request_id = value;
      continue;
    }
    if (name == "date") continue;
    out += name + ": " + value + "\n";
  }
  std::string body = reply.body;
  if (!request_id.empty()) {
    Fill(&body, "\"instance\":\"" + request_id + "\"", "\"instance\":\"\"");
  }
  return out + "\n" + body;
}

class OracleTest : public AuthzFixture {
 protected:
  enum class World {
    kExists,         // ns$t, project "secret", warehouse "wh2", user:victim's key all exist
    kNamespaceOnly,  // ns exists (empty); the rest does not
    kMissing,        // none of them exist
  };
  static constexpr World kWorlds[] = {World::kExists, World::kNamespaceOnly, World::kMissing};
  static const char* WorldName(World w) {
    return w == World::kExists ? "exists" : w == World::kNamespaceOnly ? "ns only" : "missing";
  }

  // The callers who cannot see the objects: user:stranger holds a grant on ns2$u only (so it
  // resolves to project default and sees ns2 and the default warehouse); user:tenant is the
  // admin of project "other" (warehouse "main") and has nothing in default.
  void BuildWorld(World world) {
    StartAuthServer({"user:stranger", "user:tenant"});
    Root({"POST", "/v1/namespace/ns2/create"});
    RootTable({"ns2", "u"});
    Grant({"user:stranger#reader@table:default/ns2/u"});
    Root({"POST", "/v1/projects", R"({"name":"other"})"});
    Grant({"user:tenant#admin@project:other"});
    ASSERT_EQ(As("user:tenant", {"POST", "/v1/warehouses", R"({"name":"main"})"}).status, 200);
    if (world != World::kMissing) Root({"POST", "/v1/namespace/ns/create"});
    if (world == World::kExists) {
      RootTable({"ns", "t"});
      Root({"POST", "/v1/table/ns%24t/tags/create", R"({"tag":"v1","version":1})"});
      Root({"POST", "/v1/table/ns%24t/branches/create", R"({"name":"dev"})"});
      Grant({"user:victim#owner@namespace:default/ns", "user:victim#reader@table:default/ns/t"});
      Root({"POST", "/v1/projects", R"({"name":"secret"})"});
      Root({"POST", "/v1/warehouses", R"({"name":"wh2"})"});
      AddKey("user:victim");
      victim_key_id_ = key_ids_["user:victim"];  // kept for the worlds without it
    }
  }
};

TEST_F(OracleTest, HiddenObjectsAnswerExactlyLikeMissingOnes) {
  const std::vector<std::string> callers = {"user:stranger", "user:tenant"};
  std::vector<OpRequest> doors = Doors();
  std::vector<OpRequest> listings = Listings();
  // (caller, request index) -> normalized reply, per world
  std::map<std::pair<std::string, size_t>, std::string> first;
  for (World world : kWorlds) {
    BuildWorld(world);
    auto before = Snapshot();
    for (const std::string& caller : callers) {
      for (size_t i = 0; i < doors.size() + listings.size(); ++i) {
        bool door = i < doors.size();
        const OpRequest& r = door ? doors[i] : listings[i - doors.size()];
        Reply reply = As(caller, r.request);
        std::string where =
            r.op + " " + r.request.target + " as " + caller + " (" + WorldName(world) + ")";
        if (door) {
          // Never allowed, never 403 (which would say the object is there). The tenant acts in
          // its own project, where an unsupported operation answers 406 before any lookup.
          EXPECT_TRUE(reply.status >= 400 && reply.status != 403) << where << ": " << reply.body;
          if (caller == "user:stranger") {
            EXPECT_TRUE(reply.status == 404 || reply.status == 400) << where << ": " << reply.body;
            int code = CodeOf(reply);
            bool table = r.request.target.find("ns%24t") != std::string::npos ||
                         r.request.body.find("table:") != std::string::npos ||
                         r.request.target.find("table:") != std::string::npos;
            if (r.op == "RevokeApiKey") {
              EXPECT_EQ(code, 13) << where << ": " << reply.body;
            } else {
              EXPECT_EQ(code, table ? 4 : 1) << where << ": " << reply.body;
            }
          }
        } else {
          EXPECT_EQ(reply.status, 200) << where << ": " << reply.body;
        }
        std::string normalized = Normalized(reply);
        auto [it, inserted] = first.emplace(std::make_pair(caller, i), normalized);
        if (!inserted) {
          EXPECT_EQ(normalized, it->second)
              << where << " differs from the answer in world '" << WorldName(kWorlds[0]) << "'";
        }
      }
    }
    // A refused request changes nothing.
    EXPECT_TRUE(Snapshot() == before)
        << "a refused request changed the root in world " << WorldName(world);
  }
  EXPECT_EQ(first.size(), callers.size() * (doors.size() + listings.size()));
  std::cout << "[ oracle   ] " << doors.size() << " doors + " << listings.size() << " listings x "
            << callers.size() << " callers x 3 worlds\n";
}

// The stranger's answers name the object it asked about, never what is there.
TEST_F(OracleTest, TheHiddenAnswerIsTheMissingObjectsError) {
  BuildWorld(World::kExists);
  Reply table = As("user:stranger", RequestFor("DescribeTable"));
  ExpectError(table, 404, 4);
  EXPECT_EQ(table.Json()["error"], "table 'ns$t' does not exist");
  Reply ns = As("user:stranger", RequestFor("DescribeNamespace"));
  ExpectError(ns, 404, 1);
  EXPECT_EQ(ns.Json()["error"], "namespace 'ns' does not exist");
  // What the stranger sees of the project: only its own way down.
  EXPECT_EQ(As("user:stranger", {"GET", "/v1/namespace/%24/list", ""}).Json(),
            json({{"namespaces", {"ns2"}}}));
  EXPECT_EQ(As("user:stranger", {"GET", "/v1/table", ""}).Json(), json({{"tables", {"ns2$u"}}}));
  EXPECT_EQ(As("user:stranger", {"GET", "/v1/projects", ""}).Json(),
            json({{"projects", {"default"}}}));
  EXPECT_EQ(As("user:stranger", {"GET", "/v1/warehouses", ""}).Json(),
            json({{"warehouses", {"default"}}, {"project", "default"}}));
}

// Create doors reveal their parent: a missing one is named with how to create it (404), an
// existing one the caller may not create in refuses (403), even when the caller cannot see it.
TEST_F(OracleTest, CreateDoorsNameAMissingParentAndRefuseAnExistingOne) {
  BuildWorld(World::kExists);
  for (const char* caller : {"user:stranger", "user:tenant"}) {
    for (const Request& r : std::vector<Request>{
             {"POST", "/v1/namespace/nowhere%24child/create"},
             {"POST", "/v1/table/nowhere%24t/declare"},
             {"POST", "/v1/table/nowhere%24t/register", R"({"location":"elsewhere"})"},
             {"POST", "/v1/table/nowhere%24t/create"},
         }) {
      Reply reply = As(caller, r);
      std::string where = r.target + " as " + caller;
      ExpectError(reply, 404, 1, where);
      std::string error = reply.Json().value("error", "");
      EXPECT_NE(error.find("namespace 'nowhere' does not exist"), std::string::npos)
          << where << ": " << error;
      EXPECT_NE(error.find("create it"), std::string::npos) << where << ": " << error;
      EXPECT_NE(error.find("POST /v1/namespace/nowhere/create"), std::string::npos)
          << where << ": " << error;
    }
    // A deeper missing parent is named as a whole.
    Reply deep = As(caller, {"POST", "/v1/table/nowhere%24a%24t/declare"});
    ExpectError(deep, 404, 1, caller);
    EXPECT_NE(deep.Json().value("error", "").find("'nowhere$a'"), std::string::npos) << deep.body;
  }
  // The stranger under an existing parent: ns (which it cannot see), ns2 (which it can), the
  // warehouse a top-level namespace would live in.
  for (const Request& r : std::vector<Request>{
           {"POST", "/v1/namespace/ns%24child/create"},
           {"POST", "/v1/table/ns%24t2/declare"},
           {"POST", "/v1/table/ns%24t2/register", R"({"location":"elsewhere"})"},
           {"POST", "/v1/table/ns%24t2/create"},
           {"POST", "/v1/materialized_view/ns%24t2/create"},
           {"POST", "/v1/namespace/ns2%24child/create"},
           {"POST", "/v1/table/ns2%24t2/declare"},
           {"POST", "/v1/namespace/fresh/create"},
           {"POST", "/v1/warehouses/default/namespaces", R"({"name":"fresh"})"},
       }) {
    ExpectError(As("user:stranger", r), 403, 15, r.target);
  }
  // The other tenant creates in its own project, so an existing parent in default does not
  // exist for it: ns is missing there.
  Reply tenant = As("user:tenant", {"POST", "/v1/table/ns%24t2/declare"});
  ExpectError(tenant, 404, 1);
  EXPECT_NE(tenant.Json().value("error", "").find("namespace 'ns' does not exist; create it"),
            std::string::npos)
      << tenant.body;
}

// Names and ids longer than the naming rules allow (docs/catalog.md): nothing that long exists,
// so a read or destructive door answers byte for byte as for any missing object (the name
// aside), whoever asks; a create door refuses with a 400 that names the limit and no storage
// key.
// The project header too: a name longer than any project can have answers as a missing one.
TEST_F(OracleTest, ATooLongProjectHeaderAnswersLikeAMissingProject) {
  BuildWorld(World::kExists);
  const std::string too_long(300, 'p');
  for (const std::string caller : {"user:root", "user:stranger"}) {
    Reply long_reply =
        As(caller, {"POST", "/v1/namespace/ns/describe"}, {{"x-quiver-project", too_long}});
    Reply missing_reply =
        As(caller, {"POST", "/v1/namespace/ns/describe"}, {{"x-quiver-project", "zz"}});
    EXPECT_EQ(missing_reply.status, 404) << caller << missing_reply.body;
    EXPECT_EQ(long_reply.status, missing_reply.status) << caller << long_reply.body;
    EXPECT_EQ(long_reply.Json().value("code", -1), missing_reply.Json().value("code", -2))
        << caller << long_reply.body;
  }
}

TEST_F(OracleTest, TooLongNamesAnswerExactlyLikeMissingOnes) {
  BuildWorld(World::kExists);
  // Each case: the too-long id and a missing one of the same shape; level i of a long id is
  // made of one letter, so that each name can be put back by the other.
  struct Case {
    std::vector<std::string> too_long;
    std::vector<std::string> missing;
  };
  std::vector<Case> cases = {
      {{std::string(121, 'a')}, {"m0"}},              // one byte over the name limit
      {{"ns", std::string(200, 'b')}, {"ns", "m1"}},  // its key segment is over the store's
      {{}, {}},                                       // 8 names of 120 bytes: over the total
  };
  for (int i = 0; i < 8; ++i) {
    cases[2].too_long.push_back(std::string(120, static_cast<char>('c' + i)));
    cases[2].missing.push_back("m" + std::to_string(i));
  }
  auto join = [](const std::vector<std::string>& id) {
    std::string out;
    for (const std::string& name : id) out += (out.empty() ? "" : "%24") + name;
    return out;
  };
  const std::vector<Request> doors = {
      {"POST", "/v1/table/{id}/describe"},
      {"POST", "/v1/table/{id}/exists"},
      {"POST", "/v1/table/{id}/drop"},
      {"POST", "/v1/table/{id}/deregister"},
      {"POST", "/v1/table/{id}/version/list"},
      {"POST", "/v1/table/{id}/count_rows"},
      {"POST", "/v1/namespace/{id}/describe"},
      {"POST", "/v1/namespace/{id}/exists"},
      {"POST", "/v1/namespace/{id}/drop"},
      {"GET", "/v1/namespace/{id}/list", ""},
      {"GET", "/v1/namespace/{id}/table/list", ""},
  };
  int compared = 0;
  for (const std::string caller : {"user:root", "user:stranger"}) {
    for (const Case& c : cases) {
      for (const Request& door : doors) {
        Request long_request = door;
        Request missing_request = door;
        Fill(&long_request.target, "{id}", join(c.too_long));
        Fill(&missing_request.target, "{id}", join(c.missing));
        Reply long_reply = As(caller, long_request);
        Reply missing_reply = As(caller, missing_request);
        std::string where = door.method + " " + door.target + " as " + caller + " (" +
                            std::to_string(c.too_long.size()) + " levels)";
        EXPECT_GE(long_reply.status, 400) << where << ": " << long_reply.body;
        EXPECT_EQ(long_reply.body.find("_quiver"), std::string::npos) << where << long_reply.body;
        EXPECT_EQ(long_reply.body.find("object key"), std::string::npos)
            << where << long_reply.body;
        // The bodies differ in the names (so in content-length), nothing else.
        auto without_length = [](std::string text) {
          size_t at = text.find("content-length: ");
          if (at != std::string::npos) text.erase(at, text.find('\n', at) + 1 - at);
          return text;
        };
        std::string normalized = without_length(Normalized(long_reply));
        for (size_t i = 0; i < c.too_long.size(); ++i) {
          Fill(&normalized, c.too_long[i], c.missing[i]);
        }
        EXPECT_EQ(normalized, without_length(Normalized(missing_reply))) << where;
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 2 * 3 * 11);
  // Create doors: a clear 400 naming the limit, never a storage key; nothing written.
  auto before = Snapshot();
  for (const Case& c : cases) {
    for (const Request& door : std::vector<Request>{
             {"POST", "/v1/namespace/{id}/create"},
             {"POST", "/v1/table/{id}/declare"},
             {"POST", "/v1/table/{id}/register", R"({"location":"elsewhere"})"},
         }) {
      Request request = door;
      Fill(&request.target, "{id}", join(c.too_long));
      Reply reply = Root(request, 400);
      ExpectError(reply, 400, 13, door.target);
      std::string error = reply.Json().value("error", "");
      EXPECT_NE(error.find("at most"), std::string::npos) << door.target << ": " << error;
      EXPECT_EQ(reply.body.find("_quiver"), std::string::npos) << reply.body;
      EXPECT_EQ(reply.body.find("object key"), std::string::npos) << reply.body;
    }
  }
  // Project and warehouse names on their doors, whoever asks.
  for (const std::string caller : {"user:root", "user:stranger", "user:tenant"}) {
    for (size_t length : {catalog::kMaxNameBytes + 1, size_t{300}}) {
      const std::string name(length, 'w');
      for (const Request& door : std::vector<Request>{
               {"POST", "/v1/projects/{name}/describe"},
               {"POST", "/v1/projects/{name}/delete"},
               {"POST", "/v1/warehouses/{name}/describe"},
               {"POST", "/v1/warehouses/{name}/delete"},
               {"POST", "/v1/warehouses/{name}/deactivate"},
               {"POST", "/v1/warehouses/{name}/activate"},
           }) {
        Request long_request = door;
        Request missing_request = door;
        Fill(&long_request.target, "{name}", name);
        Fill(&missing_request.target, "{name}", "missing");
        Reply long_reply = As(caller, long_request);
        std::string normalized = Normalized(long_reply);
        Fill(&normalized, name, "missing");
        auto without_length = [](std::string text) {
          size_t at = text.find("content-length: ");
          if (at != std::string::npos) text.erase(at, text.find('\n', at) + 1 - at);
          return text;
        };
        EXPECT_EQ(without_length(normalized),
                  without_length(Normalized(As(caller, missing_request))))
            << door.target << " as " << caller << " (" << length << " bytes)";
      }
    }
  }
  // Tag and branch names too (table/refs.h): a table's refs are names as well.
  const std::string tag(300, 'g');
  for (const Request& door : std::vector<Request>{
           {"POST", "/v1/table/ns%24t/tags/version", R"({"tag":"{tag}"})"},
           {"POST", "/v1/table/ns%24t/tags/delete", R"({"tag":"{tag}"})"},
           {"POST", "/v1/table/ns%24t/tags/update", R"({"tag":"{tag}","version":1})"},
           {"POST", "/v1/table/ns%24t/branches/delete", R"({"name":"{tag}"})"},
       }) {
    Request long_request = door;
    Request missing_request = door;
    Fill(&long_request.body, "{tag}", tag);
    Fill(&missing_request.body, "{tag}", "missing");
    Reply long_reply = As("user:root", long_request);
    std::string normalized = Normalized(long_reply);
    Fill(&normalized, tag, "missing");
    std::string expected = Normalized(As("user:root", missing_request));
    auto without_length = [](std::string text) {
      size_t at = text.find("content-length: ");
      if (at != std::string::npos) text.erase(at, text.find('\n', at) + 1 - at);
      return text;
    };
    EXPECT_EQ(without_length(normalized), without_length(expected)) << door.target;
    EXPECT_EQ(long_reply.status, 404) << door.target << ": " << long_reply.body;
  }
  for (const Request& door : std::vector<Request>{
           {"POST", "/v1/table/ns%24t/tags/create", R"({"tag":"{tag}","version":1})"},
           {"POST", "/v1/table/ns%24t/branches/create", R"({"name":"{tag}"})"},
       }) {
    Request request = door;
    Fill(&request.body, "{tag}", tag);
    Reply reply = Root(request, 400);
    ExpectError(reply, 400, 13, door.target);
    EXPECT_NE(reply.Json().value("error", "").find("at most 200"), std::string::npos) << reply.body;
    EXPECT_EQ(reply.body.find("_refs"), std::string::npos) << reply.body;
  }
  EXPECT_TRUE(Snapshot() == before);
}

}  // namespace
}  // namespace quiver::server::testing
