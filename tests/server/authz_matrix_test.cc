// The permission matrix over HTTP: every route (the 54 spec operations and quiver's own but
// Healthz and Metrics) for every persona, against the outcome the authorization model requires.
// The expectations are written out below, not derived from the server's policy table, so the
// two can disagree. Also: a deactivated warehouse refuses everyone, the other tenant acts in its
// own project only, and a grant written by one server is honoured at once by another.
#include <chrono>
#include <set>

#include "authz_fixture.h"
#include "catalog/access_control.h"

namespace quiver::server::testing {
namespace {

using catalog::authz::ObjectRef;
using catalog::authz::Permission;
using nlohmann::json;

enum class Outcome {
  kAllowed,  // the handler ran: not 401, not 403, not the hidden answer (200, 400, 406, 409...)
  kDenied,   // 403, code 15: the caller may see the object but lacks the permission
  kHidden,   // the answer a missing object gets: the caller may not see the object
  kAbsent,   // 404, code 1: the caller's own project has no such namespace or warehouse
};
constexpr Outcome A = Outcome::kAllowed;
constexpr Outcome D = Outcome::kDenied;
constexpr Outcome H = Outcome::kHidden;
constexpr Outcome X = Outcome::kAbsent;

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kAllowed:
      return "ALLOWED";
    case Outcome::kDenied:
      return "DENIED";
    case Outcome::kHidden:
      return "HIDDEN";
    case Outcome::kAbsent:
      return "ABSENT";
  }
  return "?";
}

// What a hidden object's answer looks like.
struct Hidden {
  int status;
  int code;
};
constexpr Hidden kTbl{404, 4};   // TableNotFound
constexpr Hidden kCtr{404, 1};   // NamespaceNotFound: namespaces, projects, warehouses
constexpr Hidden kKey{400, 13};  // someone else's API key: "no API key '<id>'", like a missing one

// Personas (besides the unauthenticated ones):
//   reader  user:reader  reader on table:default/ns/t
//   writer  user:writer  writer on table:default/ns/t
//   owner   user:owner   owner on namespace:default/ns
//   admin   user:padmin  admin on project:default (not a server admin)
//   tenant  user:tenant  admin of project "other", nothing in "default": it acts in "other",
//                        which has a warehouse "main" and no namespace. So its calls on ns and
//                        ns$t are ABSENT there, except those that reach the handler before
//                        anything is looked up: the unsupported ones, 406 (marked "406").
struct Row {
  const char* op;
  Hidden hidden;
  Outcome reader, writer, owner, admin, tenant;
  const char* variant = "";                       // what this row's request changes
  std::optional<Request> request = std::nullopt;  // default: RequestFor(op)
};

// clang-format off
const Row kMatrix[] = {
  //  operation                  hidden  reader writer owner admin tenant
  // --- namespaces (ns; create doors: ns$fresh) ---------------------------------------------------
  {"CreateNamespace",            kCtr,   D,     D,     A,    A,    X},
  {"CreateNamespace",            kCtr,   D,     D,     D,    A,    A, "top-level 'fresh'",
       Request{"POST", "/v1/namespace/fresh/create"}},
  {"ListNamespaces",             kCtr,   A,     A,     A,    A,    X},
  {"DescribeNamespace",          kCtr,   A,     A,     A,    A,    X},
  {"DropNamespace",              kCtr,   D,     D,     A,    A,    X},
  {"NamespaceExists",            kCtr,   A,     A,     A,    A,    X},
  {"ListTables",                 kCtr,   A,     A,     A,    A,    X},
  {"ListAllTables",              kCtr,   A,     A,     A,    A,    A},
  // --- table lifecycle (ns$t; create doors: ns$fresh) --------------------------------------------
  {"RegisterTable",              kTbl,   D,     D,     A,    A,    X},
  {"DeclareTable",               kTbl,   D,     D,     A,    A,    X},
  {"CreateTable",                kTbl,   D,     D,     A,    A,    X},
  {"CreateMaterializedView",     kTbl,   D,     D,     A,    A,    X},
  {"DescribeTable",              kTbl,   A,     A,     A,    A,    X},
  {"TableExists",                kTbl,   A,     A,     A,    A,    X},
  {"DropTable",                  kTbl,   D,     D,     A,    A,    X},
  {"DeregisterTable",            kTbl,   D,     D,     A,    A,    X},
  {"RenameTable",                kTbl,   D,     D,     A,    A,    X},
  // --- reading a table ---------------------------------------------------------------------------
  {"ListTableVersions",          kTbl,   A,     A,     A,    A,    X},
  {"DescribeTableVersion",       kTbl,   A,     A,     A,    A,    X},
  {"GetTableStats",              kTbl,   A,     A,     A,    A,    X},
  {"CountTableRows",             kTbl,   A,     A,     A,    A,    X},
  {"QueryTable",                 kTbl,   A,     A,     A,    A,    X},
  {"ExplainTableQueryPlan",      kTbl,   A,     A,     A,    A,    X},
  {"AnalyzeTableQueryPlan",      kTbl,   A,     A,     A,    A,    X},
  {"ListTableIndices",           kTbl,   A,     A,     A,    A,    X},
  {"DescribeTableIndexStats",    kTbl,   A,     A,     A,    A,    X},
  {"ListTableTags",              kTbl,   A,     A,     A,    A,    X},
  {"GetTableTagVersion",         kTbl,   A,     A,     A,    A,    X},
  {"ListTableBranches",          kTbl,   A,     A,     A,    A,    X},
  // --- writing a table ---------------------------------------------------------------------------
  {"RestoreTable",               kTbl,   D,     A,     A,    A,    X},
  {"UpdateTableSchemaMetadata",  kTbl,   D,     A,     A,    A,    X},
  {"CreateTableVersion",         kTbl,   D,     A,     A,    A,    X},
  {"BatchDeleteTableVersions",   kTbl,   D,     A,     A,    A,    X},
  {"AlterTableAlterColumns",     kTbl,   D,     A,     A,    A,    X},
  {"UpdateFieldMetadata",        kTbl,   D,     A,     A,    A,    X},
  {"AlterTableDropColumns",      kTbl,   D,     A,     A,    A,    X},
  {"InsertIntoTable",            kTbl,   D,     A,     A,    A,    X},
  {"MergeInsertIntoTable",       kTbl,   D,     A,     A,    A,    X},
  {"UpdateTable",                kTbl,   D,     A,     A,    A,    X},
  {"DeleteFromTable",            kTbl,   D,     A,     A,    A,    X},
  {"AlterTableAddColumns",       kTbl,   D,     A,     A,    A,    X},
  {"AlterTableBackfillColumns",  kTbl,   D,     A,     A,    A,    A},  // 406
  {"RefreshMaterializedView",    kTbl,   D,     A,     A,    A,    A},  // 406
  {"CreateTableIndex",           kTbl,   D,     A,     A,    A,    A},  // 406
  {"CreateTableScalarIndex",     kTbl,   D,     A,     A,    A,    A},  // 406
  {"DropTableIndex",             kTbl,   D,     A,     A,    A,    X},
  {"CreateTableTag",             kTbl,   D,     A,     A,    A,    X},
  {"DeleteTableTag",             kTbl,   D,     A,     A,    A,    X},
  {"UpdateTableTag",             kTbl,   D,     A,     A,    A,    X},
  {"CreateTableBranch",          kTbl,   D,     A,     A,    A,    X},
  {"DeleteTableBranch",          kTbl,   D,     A,     A,    A,    X},
  // --- multi-table operations and transactions (unsupported: 406 to anyone authenticated) -------
  {"BatchCreateTableVersions",   kTbl,   A,     A,     A,    A,    A},
  {"BatchCommitTables",          kTbl,   A,     A,     A,    A,    A},
  {"DescribeTransaction",        kTbl,   A,     A,     A,    A,    A},
  {"AlterTransaction",           kTbl,   A,     A,     A,    A,    A},
  // --- projects (default) and warehouses (default; the tenant's "other" has only "main") ---------
  {"CreateProject",              kCtr,   D,     D,     D,    D,    D},
  {"ListProjects",               kCtr,   A,     A,     A,    A,    A},
  {"DescribeProject",            kCtr,   A,     A,     A,    A,    H},
  {"DeleteProject",              kCtr,   D,     D,     D,    A,    H},
  {"CreateWarehouse",            kCtr,   D,     D,     D,    A,    A},
  {"ListWarehouses",             kCtr,   A,     A,     A,    A,    A},
  {"DescribeWarehouse",          kCtr,   A,     A,     A,    A,    X},
  {"DeleteWarehouse",            kCtr,   D,     D,     D,    A,    X},
  {"DeactivateWarehouse",        kCtr,   D,     D,     D,    A,    X},
  {"ActivateWarehouse",          kCtr,   D,     D,     D,    A,    X},
  {"CreateWarehouseNamespace",   kCtr,   D,     D,     D,    A,    X},
  // --- identity and authorization (tuples name table:default/ns/t explicitly) --------------------
  {"CreateApiKey",               kKey,   A,     A,     A,    A,    A},
  {"CreateApiKey",               kKey,   D,     D,     D,    D,    D, "for another principal",
       Request{"POST", "/v1/access/api-keys", R"({"principal":"user:someone"})"}},
  {"ListApiKeys",                kKey,   A,     A,     A,    A,    A},
  {"RevokeApiKey",               kKey,   A,     A,     A,    A,    A, "the caller's own key"},
  {"RevokeApiKey",               kKey,   H,     H,     H,    H,    H, "user:victim's key",
       Request{"POST", "/v1/access/api-keys/{victim_key}/revoke"}},
  {"WriteTuples",                kTbl,   D,     D,     A,    A,    H},
  {"WriteTuples",                kTbl,   D,     D,     D,    D,    H, "to a principal of no project",
       Request{"POST", "/v1/access/tuples", R"({"writes":["user:x#reader@table:default/ns/t"]})"}},
  {"ReadTuples",                 kTbl,   D,     D,     A,    A,    H},
  {"DeleteTuples",               kTbl,   D,     D,     A,    A,    H},
  {"CheckAccess",                kTbl,   A,     A,     A,    A,    A, "about the caller"},
  {"CheckAccess",                kTbl,   D,     D,     A,    A,    H, "about user:someone",
       Request{"POST", "/v1/access/check",
               R"({"permission":"can_read_data","object":"table:default/ns/t","subject":"user:someone"})"}},
  {"WhoAmI",                     kCtr,   A,     A,     A,    A,    A},
  {"ListEvents",                 kCtr,   D,     D,     D,    A,    A},
  {"AdminConsistency",           kCtr,   D,     D,     D,    D,    D},
  // --- LanceDB's remote protocol (the remote dialect: trailing '/') -----------------------------
  {"CreateMultipartWrite",       kTbl,   D,     A,     A,    A,    X},
  {"CompleteMultipartWrite",     kTbl,   D,     A,     A,    A,    X},  // 400: no upload_id
  {"AbortMultipartWrite",        kTbl,   D,     A,     A,    A,    X},  // 400: no upload_id
  {"CloneTable",                 kTbl,   D,     D,     A,    A,    X},  // 406
  {"PrewarmTableIndex",          kTbl,   A,     A,     A,    A,    A},  // 406
  {"PrewarmTableData",           kTbl,   A,     A,     A,    A,    A},  // 406
};
// clang-format on

struct Persona {
  const char* name;
  const char* principal;
  Outcome Row::*column;
};
const Persona kPersonas[] = {
    {"reader", "user:reader", &Row::reader},       {"writer", "user:writer", &Row::writer},
    {"owner", "user:owner", &Row::owner},          {"project admin", "user:padmin", &Row::admin},
    {"other tenant", "user:tenant", &Row::tenant},
};

// Credentials that must get 401 (code 16) from every route.
std::vector<std::pair<std::string, std::map<std::string, std::string>>> BadCredentials() {
  return {
      {"no credentials", {}},
      {"unknown qv_ key", {{"x-api-key", "qv_0123456789abcdef_" + std::string(43, 'A')}}},
      {"garbage key", {{"x-api-key", "garbage"}}},
      {"garbage bearer token", {{"authorization", "Bearer garbage"}}},
  };
}

bool Matches(Outcome expected, Hidden hidden, const Reply& reply) {
  int code = CodeOf(reply);
  switch (expected) {
    case Outcome::kAllowed:
      return reply.status != 0 && reply.status != 401 && reply.status != 403 &&
             !(reply.status == 404 && (code == 1 || code == 4)) &&
             !(reply.status == hidden.status && code == hidden.code);
    case Outcome::kDenied:
      return reply.status == 403 && code == 15;
    case Outcome::kHidden:
      return reply.status == hidden.status && code == hidden.code;
    case Outcome::kAbsent:
      return reply.status == 404 && code == 1;
  }
  return false;
}

std::string Cell(const Row& row, std::string_view persona, const Reply& reply) {
  std::string out = std::string(row.op);
  if (*row.variant) out += std::string(" (") + row.variant + ")";
  return out + " as " + std::string(persona) + " -> " + std::to_string(reply.status) + " " +
         reply.body;
}

class AuthzMatrixTest : public AuthzFixture {
 protected:
  // A fresh server and the world the matrix is about (see the personas above).
  void BuildWorld() {
    StartAuthServer(
        {"user:reader", "user:writer", "user:owner", "user:padmin", "user:tenant", "user:victim"});
    Root({"POST", "/v1/namespace/ns/create"});
    RootTable({"ns", "t"});
    Root({"POST", "/v1/table/ns%24t/tags/create", R"({"tag":"v1","version":1})"});
    Root({"POST", "/v1/table/ns%24t/branches/create", R"({"name":"dev"})"});
    Grant({"user:reader#reader@table:default/ns/t", "user:writer#writer@table:default/ns/t",
           "user:owner#owner@namespace:default/ns", "user:padmin#admin@project:default"});
    Root({"POST", "/v1/projects", R"({"name":"other"})"});
    Grant({"user:tenant#admin@project:other"});
    Reply main = As("user:tenant", {"POST", "/v1/warehouses", R"({"name":"main"})"});
    ASSERT_EQ(main.status, 200) << main.body;
    EXPECT_EQ(main.Json()["project"], "other");
    victim_key_id_ = key_ids_["user:victim"];
    baseline_ = Snapshot();
    fingerprint_ = DefaultFingerprint();
  }

  // What root sees of project "default".
  std::string DefaultFingerprint() {
    std::string out;
    for (const Request& r : std::vector<Request>{
             {"GET", "/v1/namespace/%24/list", ""},
             {"GET", "/v1/namespace/ns/table/list", ""},
             {"GET", "/v1/table", ""},
             {"GET", "/v1/warehouses", ""},
             {"POST", "/v1/namespace/ns/describe"},
             {"POST", "/v1/table/ns%24t/describe?load_detailed_metadata=true"},
             {"POST", "/v1/table/ns%24t/tags/list"},
             {"POST", "/v1/table/ns%24t/branches/list"},
             {"POST", "/v1/table/ns%24t/version/list"},
             {"POST", "/v1/projects/default/describe"},
             {"POST", "/v1/warehouses/default/describe"},
             {"GET", "/v1/access/tuples?object=project:default", ""},
         }) {
      Reply reply = As(kRoot, r);
      out += r.target + " " + std::to_string(reply.status) + " " + reply.body + "\n";
    }
    return out;
  }

  std::map<std::string, std::string> baseline_;
  std::string fingerprint_;
};

TEST_F(AuthzMatrixTest, TheMatrixCoversEveryRoute) {
  std::set<std::string> rows;
  for (const Row& row : kMatrix) rows.insert(row.op);
  std::set<std::string> routes;
  int spec = 0;
  int quiver = 0;
  for (const Operation& op : Operations()) {
    if (op.auth != Auth::kAuthenticated) continue;  // Healthz, Metrics
    routes.insert(std::string(op.name));
    (op.spec ? spec : quiver)++;
  }
  EXPECT_EQ(spec, 54);
  EXPECT_EQ(quiver, 27);  // 21 of quiver's, 6 of the remote protocol's
  EXPECT_EQ(rows, routes);
  // Every plain request is routed to its own operation.
  std::set<std::string> requested;
  for (const OpRequest& r : OperationRequests()) {
    requested.insert(r.op);
    std::string path = r.request.target.substr(0, r.request.target.find('?'));
    Fill(&path, "{own_key}", "0123456789abcdef");
    int http_status = 0;
    std::string allow;
    HttpRequest as_sent;
    as_sent.path = path;
    auto match =
        MatchRoute(r.request.method, path, "$", &http_status, &allow, DetectDialect(as_sent));
    ASSERT_TRUE(match.ok()) << r.op << ": " << match.status().ToString();
    EXPECT_EQ(match->op->name, r.op);
  }
  EXPECT_EQ(requested, routes);
}

TEST_F(AuthzMatrixTest, EveryOperationForEveryPersona) {
  BuildWorld();
  int cells = 0;
  int rebuilds = 0;
  std::map<Outcome, int> by_outcome;
  for (const Row& row : kMatrix) {
    const Request& request = row.request ? *row.request : RequestFor(row.op);
    for (const auto& [who, credentials] : BadCredentials()) {
      Reply reply = SendWith(credentials, "", request);
      ++cells;
      EXPECT_TRUE(reply.status == 401 && CodeOf(reply) == 16)
          << "expected 401 code 16: " << Cell(row, who, reply);
    }
    for (const Persona& persona : kPersonas) {
      Outcome expected = row.*(persona.column);
      Reply reply = As(persona.principal, request);
      ++cells;
      ++by_outcome[expected];
      EXPECT_TRUE(Matches(expected, row.hidden, reply))
          << "expected " << OutcomeName(expected) << ": " << Cell(row, persona.name, reply);
      if (std::string_view(persona.principal) == "user:tenant") {
        // The tenant acts in its own project: nothing it does shows in "default".
        EXPECT_EQ(DefaultFingerprint(), fingerprint_)
            << "project default changed after " << Cell(row, persona.name, reply);
      }
      if (Snapshot() != baseline_) {  // the request changed something: start over
        BuildWorld();
        ++rebuilds;
      }
    }
  }
  // Every row: 4 unauthenticated callers + 5 personas.
  EXPECT_EQ(cells, static_cast<int>(std::size(kMatrix)) * 9);
  std::cout << "[ matrix   ] " << std::size(kMatrix) << " rows, " << cells << " cells ("
            << by_outcome[A] << " allowed, " << by_outcome[D] << " denied, " << by_outcome[H]
            << " hidden, " << by_outcome[X] << " absent, "
            << std::size(kMatrix) * BadCredentials().size() << " unauthenticated), " << rebuilds
            << " world rebuilds\n";
}

// Unauthenticated callers all get one and the same answer (no hint which credential failed).
TEST_F(AuthzMatrixTest, UnauthenticatedAnswersAreIndistinguishable) {
  BuildWorld();
  for (const Request& request :
       {RequestFor("DescribeTable"), RequestFor("CreateProject"), RequestFor("WhoAmI")}) {
    std::string first;
    for (const auto& [who, credentials] : BadCredentials()) {
      Reply reply = SendWith(credentials, "", request);
      ExpectError(reply, 401, 16, who + " " + request.target);
      json body = reply.Json();
      body.erase("instance");
      if (first.empty()) first = body.dump();
      EXPECT_EQ(body.dump(), first) << who << " " << request.target;
    }
  }
}

TEST_F(AuthzMatrixTest, TheOtherTenantActsInItsOwnProject) {
  BuildWorld();
  const std::string tenant = "user:tenant";
  EXPECT_EQ(As(tenant, {"GET", "/v1/access/whoami", ""}).Json()["projects"], json({"other"}));
  // Root-level creates land in "other" (in its warehouse "main").
  Reply ns = As(tenant, {"POST", "/v1/namespace/fresh/create"});
  EXPECT_EQ(ns.status, 200) << ns.body;
  Reply table = As(tenant, {"POST", "/v1/table/fresh%24t/declare"});
  EXPECT_EQ(table.status, 200) << table.body;
  Reply same_name = As(tenant, {"POST", "/v1/namespace/ns/create"});
  EXPECT_EQ(same_name.status, 200) << same_name.body;
  EXPECT_EQ(As(tenant, {"GET", "/v1/namespace/%24/list", ""}).Json(),
            json({{"namespaces", {"fresh", "ns"}}}));
  EXPECT_EQ(As(tenant, {"GET", "/v1/table", ""}).Json(), json({{"tables", {"fresh$t"}}}));
  // ... and nowhere else: "default" is as it was.
  EXPECT_EQ(DefaultFingerprint(), fingerprint_);
  EXPECT_EQ(Root({"GET", "/v1/namespace/%24/list", ""}).Json(), json({{"namespaces", {"ns"}}}));
  EXPECT_EQ(
      Root({"GET", "/v1/namespace/%24/list", ""}, 200, {{"x-quiver-project", "other"}}).Json(),
      json({{"namespaces", {"fresh", "ns"}}}));
  // Its ns is its own: ns$t is missing there (the table's own 404 now that ns exists).
  ExpectError(As(tenant, RequestFor("DescribeTable")), 404, 4);
  // It cannot pick "default" by header: the project is hidden like a missing one.
  Reply picked = As(tenant, RequestFor("DescribeTable"), {{"x-quiver-project", "default"}});
  ExpectError(picked, 404, 1);
  Reply missing = As(tenant, RequestFor("DescribeTable"), {{"x-quiver-project", "nowhere"}});
  ExpectError(missing, 404, 1);
  EXPECT_EQ(picked.Json()["error"], "project 'default' does not exist");
  EXPECT_EQ(missing.Json()["error"], "project 'nowhere' does not exist");
  // Nor by naming it in a body.
  ExpectError(As(tenant, {"POST", "/v1/warehouses", R"({"name":"w2","project":"default"})"}), 400,
              13);
  EXPECT_EQ(DefaultFingerprint(), fingerprint_);
}

// A deactivated warehouse refuses every operation on its namespaces and tables (403, naming
// the deactivation) to everyone who could otherwise act there, until it is activated again.
TEST_F(AuthzMatrixTest, DeactivatedWarehouseRefusesUntilActivated) {
  BuildWorld();
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"user:writer", "DescribeTable"},
      {"user:writer", "ListTableVersions"},
      {"user:writer", "CreateTableTag"},
      {"user:writer", "DescribeNamespace"},
      {"user:writer", "ListTables"},
      {"user:reader", "DescribeTable"},
      {"user:owner", "DropTable"},
      {"user:owner", "DeclareTable"},
      {"user:padmin", "DescribeTable"},
      {"user:padmin", "CreateTableTag"},
      {"user:padmin", "DropTable"},
      {"user:padmin", "DropNamespace"},
      {"user:padmin", "CreateNamespace"},
      {"user:padmin", "DeclareTable"},
      {"user:padmin", "RegisterTable"},
      {"user:padmin", "CreateWarehouseNamespace"},
      {"user:padmin", "UpdateTableSchemaMetadata"},
  };
  Reply off = As("user:padmin", RequestFor("DeactivateWarehouse"));
  ASSERT_EQ(off.status, 200) << off.body;
  EXPECT_EQ(off.Json()["active"], false);
  for (const auto& [who, op] : calls) {
    Reply reply = As(who, RequestFor(op));
    EXPECT_EQ(reply.status, 403) << op << " as " << who << ": " << reply.body;
    EXPECT_EQ(CodeOf(reply), 15) << op << " as " << who << ": " << reply.body;
    EXPECT_NE(reply.body.find("deactivated"), std::string::npos)
        << op << " as " << who << ": " << reply.body;
  }
  Reply top = As("user:padmin", {"POST", "/v1/namespace/fresh/create"});
  EXPECT_EQ(top.status, 403) << top.body;
  EXPECT_NE(top.body.find("deactivated"), std::string::npos) << top.body;
  // Project-level reads still answer, and the refused requests changed nothing.
  EXPECT_EQ(As("user:writer", RequestFor("ListAllTables")).status, 200);
  Reply on = As("user:padmin", RequestFor("ActivateWarehouse"));
  ASSERT_EQ(on.status, 200) << on.body;
  EXPECT_EQ(on.Json()["active"], true);
  EXPECT_EQ(DefaultFingerprint(), fingerprint_);
  for (const char* who : {"user:writer", "user:padmin"}) {
    for (const char* op : {"DescribeTable", "ListTableVersions", "DescribeNamespace"}) {
      Reply reply = As(who, RequestFor(op));
      EXPECT_EQ(reply.status, 200) << op << " as " << who << ": " << reply.body;
    }
    std::string tag = std::string(R"({"version":1,"tag":")") + (who + 5) + "\"}";
    Reply created = As(who, {"POST", "/v1/table/ns%24t/tags/create", tag});
    EXPECT_EQ(created.status, 200) << who << ": " << created.body;
  }
}

// Another server on the same root (a second Catalog and AccessControl over the same store)
// honours a grant written through this one at once: a check about to refuse re-reads the
// records along the object's chain (AccessControl::Reconcile) instead of waiting for the
// change log.
TEST_F(AuthzMatrixTest, GrantWrittenByOneServerIsHonouredAtOnceByAnother) {
  BuildWorld();
  auto catalog2 = catalog::Catalog::Open(memory_, {});
  ASSERT_TRUE(catalog2.ok()) << catalog2.status().ToString();
  catalog::AccessOptions options;
  options.server_admins = {kRoot};
  options.refresh_interval = std::chrono::hours(1);  // the change log plays no part here
  auto access2 = catalog::AccessControl::Open(**catalog2, options);
  ASSERT_TRUE(access2.ok()) << access2.status().ToString();
  Authenticator auth2(true, (*access2)->api_keys(), nullptr);
  NamespaceService service2(**catalog2, **access2, auth2, nullptr);
  auto send2 = [&](const std::string& principal, const Request& r) {
    HttpRequest request;
    request.method = r.method;
    request.target = r.target;
    request.path = r.target;
    request.body = r.body;
    request.headers["x-api-key"] = keys_.at(principal);
    request.headers["content-type"] = "application/json";
    request.remote = "127.0.0.1:1";
    return service2.Handle(request);
  };
  const ObjectRef table = ObjectRef::Table({"default", "ns", "t"});
  const Request tag = RequestFor("CreateTableTag");

  // Server 2 knows the reader as a reader: a write is refused.
  EXPECT_TRUE((*access2)->Check("user:reader", Permission::kReadData, table));
  EXPECT_FALSE((*access2)->Check("user:reader", Permission::kWriteData, table));
  EXPECT_EQ(send2("user:reader", tag).status, 403);

  // Server 1 makes the reader a writer.
  Grant({"user:reader#writer@table:default/ns/t"});

  // Server 2's index has not seen it (no refresh for an hour) ...
  EXPECT_FALSE((*access2)->Check("user:reader", Permission::kWriteData, table));
  // ... but a request it would refuse re-reads the table's chain first, so it succeeds at once.
  HttpResponse written = send2("user:reader", tag);
  EXPECT_EQ(written.status, 200) << written.body;
  EXPECT_TRUE((*access2)->Check("user:reader", Permission::kWriteData, table));

  // The same through the AccessControl alone, for a grant on the namespace.
  const ObjectRef ns = ObjectRef::Namespace({"default", "ns"});
  EXPECT_FALSE((*access2)->Check("user:writer", Permission::kDrop, ns));
  Grant({"user:writer#owner@namespace:default/ns"});
  EXPECT_FALSE((*access2)->Check("user:writer", Permission::kDrop, ns));
  ASSERT_TRUE((*access2)->Reconcile(table).ok());  // the table's chain includes ns
  EXPECT_TRUE((*access2)->Check("user:writer", Permission::kDrop, ns));
  EXPECT_TRUE((*access2)->Check("user:writer", Permission::kDrop, table));

  // And server 1 sees server 2's write (the tag) as well.
  EXPECT_EQ(As("user:reader", RequestFor("ListTableTags")).Json()["tags"].contains("v2"), true);
}

}  // namespace
}  // namespace quiver::server::testing
