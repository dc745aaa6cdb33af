// Identity and authorization administration: API keys, relation tuples, permission checks, the
// change log as events, and the consistency scan (docs/authorization.md).
#include <algorithm>

#include <fmt/format.h>

#include "catalog/api_keys.h"
#include "common/numbers.h"
#include "server/identity.h"
#include "server/internal/authorize.h"
#include "server/internal/handlers.h"

namespace quiver::server::internal {

namespace {

using catalog::authz::ObjectRef;
using catalog::authz::ObjectType;
using catalog::authz::Permission;
using catalog::authz::Tuple;
using nlohmann::json;

constexpr size_t kMaxTuplesPerRequest = 1000;

// API keys are not catalog objects, but creating and revoking one are control mutations: they
// go to the change log like every other.
void LogKeyEvent(catalog::Catalog& catalog, std::string_view action, const catalog::ApiKeyInfo& k,
                 const Call& call) {
  catalog.LogEvent({{"action", action},
                    {"kind", "api_key"},
                    {"object", json::array({k.key_id})},
                    {"principal", k.principal}},
                   ActorOf(call));
}

json KeyJson(const catalog::ApiKeyInfo& k) {
  json body = {{"key_id", k.key_id},
               {"principal", k.principal},
               {"description", k.description},
               {"created_at", k.created_at},
               {"created_by", k.created_by}};
  if (k.expires_at_ms) body["expires_at_ms"] = *k.expires_at_ms;
  if (k.revoked_at) body["revoked_at"] = *k.revoked_at;
  if (!k.minted_with.empty()) body["minted_with"] = k.minted_with;
  return body;
}

Status NotAdmin(std::string_view subject) {
  return Status(StatusCode::kPermissionDenied, fmt::format("{} is not a server admin", subject));
}

// The 404 a tuple's object gets when the caller cannot see it (whether or not it exists).
Status HiddenObject(const ObjectRef& obj) {
  return Status(
      obj.type == ObjectType::kTable ? StatusCode::kTableNotFound : StatusCode::kNamespaceNotFound,
      fmt::format("{} does not exist", catalog::authz::FormatObjectRef(obj)));
}

Result<Tuple> TupleOf(const json& value) {
  if (value.is_string()) return catalog::authz::ParseTuple(value.get<std::string>());
  return catalog::authz::TupleFromJson(value);
}

Result<std::vector<Tuple>> TuplesField(const Call& call, const std::string& field) {
  auto it = call.body.find(field);
  if (it == call.body.end() || !it->is_array() || it->empty()) {
    return Status::InvalidInput(fmt::format(
        "'{}' must be a non-empty array of tuples ({{\"subject\", \"relation\", \"object\"}} or "
        "\"user:alice#reader@table:p/ns/t\")",
        field));
  }
  if (it->size() > kMaxTuplesPerRequest) {
    return Status::InvalidInput(fmt::format("at most {} tuples per request", kMaxTuplesPerRequest));
  }
  std::vector<Tuple> out;
  for (const json& value : *it) {
    auto tuple = TupleOf(value);
    if (!tuple.ok()) {
      return Status::InvalidInput(
          fmt::format("tuple {}: {}", value.dump(), tuple.status().message()));
    }
    out.push_back(std::move(*tuple));
  }
  return out;
}

// The caller may grant on `obj`, and `obj` exists (a hidden object's 404 otherwise).
Status CheckGrantable(catalog::AccessControl& access, const Call& call, const ObjectRef& obj) {
  if (obj.type == ObjectType::kServer) {
    return access.IsServerAdmin(call.subject) ? Status::OK() : NotAdmin(call.subject);
  }
  QV_RETURN_IF_ERROR(Require(access, call.subject, Permission::kGrant, obj, HiddenObject(obj)));
  auto grants = access.ReadGrantsOf(obj);
  if (!grants.ok() && (grants.status().code() == StatusCode::kNamespaceNotFound ||
                       grants.status().code() == StatusCode::kTableNotFound)) {
    return HiddenObject(obj);
  }
  return grants.status();
}

// A grant to a principal who is not a member of the grant's project (holds no grant in it) is a
// server admin's: otherwise one project's admin could make another project's principal "belong
// to several projects", and since such a principal must then name its project in every request
// (the x-quiver-project header), all its plain requests, every LanceDB client's, would fail
// because of a grant it never asked for. The rule depends only on the grant's own project, so
// the answer says nothing about the principal's standing elsewhere (docs/authorization.md,
// "Grants across projects").
Status CheckMember(catalog::AccessControl& access, const Call& call, const Tuple& t) {
  if (t.object.type == ObjectType::kServer || t.subject == catalog::authz::kAnySubject ||
      access.IsServerAdmin(call.subject) || access.IsServerAdmin(t.subject)) {
    return Status::OK();
  }
  const std::string& project = t.object.path.front();
  auto member = [&]() -> Result<bool> {
    QV_ASSIGN_OR_RETURN(std::vector<std::string> projects, access.ProjectsOf(t.subject));
    return std::find(projects.begin(), projects.end(), project) != projects.end();
  };
  QV_ASSIGN_OR_RETURN(bool is_member, member());
  if (!is_member) {
    // About to refuse: a membership granted a moment ago on another server counts.
    QV_RETURN_IF_ERROR(access.Refresh());
    QV_ASSIGN_OR_RETURN(is_member, member());
  }
  if (is_member) return Status::OK();
  return Status(StatusCode::kPermissionDenied,
                fmt::format("{} is not a member of project '{}'; a server admin adds a principal "
                            "to a project (with its first grant there)",
                            t.subject, project));
}

json GrantJson(const Tuple& t) {
  return {{"subject", t.subject}, {"relation", catalog::authz::RelationName(t.relation)}};
}

bool SameGrant(const json& g, const Tuple& t) {
  return g.value("subject", "") == t.subject &&
         g.value("relation", "") == catalog::authz::RelationName(t.relation);
}

// Applies `tuples` (all on one object) to its grants: adds, or removes, what they name. Removing
// the last owner (a project's last admin) is refused: an object always keeps one, created with
// its creator's, so that someone can govern it (a project's record is its existence);
// CheckConsistency reports a record without one.
Status EditGrants(json& grants, const std::vector<Tuple>& tuples, bool add) {
  for (const Tuple& t : tuples) {
    auto it =
        std::find_if(grants.begin(), grants.end(), [&](const json& g) { return SameGrant(g, t); });
    if (add) {
      if (it == grants.end()) grants.push_back(GrantJson(t));
    } else if (it != grants.end()) {
      grants.erase(it);
    }
  }
  if (add || tuples.empty() || tuples.front().object.type == ObjectType::kServer) {
    return Status::OK();
  }
  const catalog::authz::ObjectRef& object = tuples.front().object;
  const std::string_view owner = object.type == ObjectType::kProject ? "admin" : "owner";
  const bool has_owner = std::any_of(grants.begin(), grants.end(), [&](const json& g) {
    return g.is_object() && g.value("relation", "") == owner;
  });
  if (has_owner) return Status::OK();
  for (const Tuple& t : tuples) {
    if (catalog::authz::RelationName(t.relation) != owner) continue;
    return Status(StatusCode::kNamespaceNotEmpty,
                  fmt::format("{} is the last {} of {}; grant another {} first", t.subject, owner,
                              catalog::authz::FormatObjectRef(object), owner));
  }
  return Status::OK();
}

}  // namespace

// --- API keys ---------------------------------------------------------------------------
Result<HttpResponse> HandleCreateApiKey(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(auto principal, call.String("principal"));
  QV_ASSIGN_OR_RETURN(auto expires_at_ms, call.Int("expires_at_ms"));
  QV_ASSIGN_OR_RETURN(auto expires_in, call.Int("expires_in_seconds"));
  QV_ASSIGN_OR_RETURN(auto description, call.String("description"));
  if (expires_at_ms && expires_in) {
    return Status::InvalidInput("give 'expires_at_ms' or 'expires_in_seconds', not both");
  }
  if (expires_in) {
    if (*expires_in <= 0) return Status::InvalidInput("'expires_in_seconds' must be positive");
    // Checked (common/numbers.h): `* 1000` wrapped a huge lifetime into a key already expired.
    auto lifetime = CheckedDuration(*expires_in, std::chrono::seconds(1));
    if (!lifetime.ok()) {
      return Status::InvalidInput(
          fmt::format("'expires_in_seconds' is out of range: {}", lifetime.status().message()));
    }
    expires_at_ms = Clock::Real()->NowMillis() +
                    std::chrono::duration_cast<std::chrono::milliseconds>(*lifetime).count();
  }
  std::string owner = principal.value_or(call.subject);
  QV_RETURN_IF_ERROR(catalog::ValidatePrincipal(owner));
  if (owner != call.subject && !ctx.access.IsServerAdmin(call.subject)) {
    return Status(StatusCode::kPermissionDenied,
                  "only a server admin creates API keys for another principal");
  }
  if (owner == kAnonymousPrincipal) {
    return Status::InvalidInput("name the 'principal' the key is for");
  }
  // A key minted with a credential expires no later than that credential and, minted with a
  // key, dies with that key (the key store records the chain and checks it at every
  // verification): a short-lived token cannot turn itself into a key that never expires.
  // Only server admins (and `quiver access create-key` on the root) mint unbounded keys.
  std::string minted_with;
  if (!ctx.access.IsServerAdmin(call.subject)) {
    const std::optional<int64_t>& bound = call.principal.expires_at_ms;
    if (bound && !expires_at_ms) expires_at_ms = bound;
    if (bound && *expires_at_ms > *bound) {
      return Status::InvalidInput(fmt::format(
          "a key expires no later than the credential it is created with (at {} ms)", *bound));
    }
    minted_with = call.principal.key_id;
  }
  QV_ASSIGN_OR_RETURN(catalog::CreatedApiKey created,
                      ctx.access.api_keys().Create(owner, expires_at_ms, description.value_or(""),
                                                   call.subject, minted_with));
  LogKeyEvent(ctx.catalog, "create_api_key", created.info, call);
  json body = KeyJson(created.info);
  body["key"] = created.key;
  body["note"] = "the key is shown once; quiver stores only a salted hash of it";
  return JsonReply(body);
}

Result<HttpResponse> HandleListApiKeys(const HandlerContext& ctx, Call& call) {
  std::optional<std::string> principal = call.Query("principal");
  if (!ctx.access.IsServerAdmin(call.subject)) {
    if (principal && *principal != call.subject) return NotAdmin(call.subject);
    principal = call.subject;
  }
  QV_ASSIGN_OR_RETURN(auto keys, ctx.access.api_keys().List(principal));
  json list = json::array();
  for (const auto& k : keys) list.push_back(KeyJson(k));
  return JsonReply({{"keys", list}});
}

Result<HttpResponse> HandleRevokeApiKey(const HandlerContext& ctx, Call& call) {
  if (call.id.size() != 1) return Status::InvalidInput("an API key is named by its key id");
  const std::string& key_id = call.id.front();
  QV_ASSIGN_OR_RETURN(catalog::ApiKeyInfo info, ctx.access.api_keys().Describe(key_id));
  if (info.principal != call.subject && !ctx.access.IsServerAdmin(call.subject)) {
    // Someone else's key looks exactly like a missing one.
    return Status::InvalidInput(fmt::format("no API key '{}'", key_id));
  }
  QV_ASSIGN_OR_RETURN(info, ctx.access.api_keys().Revoke(key_id, call.subject));
  LogKeyEvent(ctx.catalog, "revoke_api_key", info, call);
  return JsonReply(KeyJson(info));
}

// --- tuples -----------------------------------------------------------------------------

namespace {

Result<HttpResponse> EditTuples(const HandlerContext& ctx, Call& call, bool add) {
  QV_ASSIGN_OR_RETURN(std::vector<Tuple> tuples, TuplesField(call, add ? "writes" : "deletes"));
  // Everything is checked before anything is written.
  for (const Tuple& t : tuples) {
    QV_RETURN_IF_ERROR(CheckGrantable(ctx.access, call, t.object));
    // A grant to everyone reaches every tenant's principals (their listings, their projects):
    // a server-wide decision.
    if (add && t.subject == catalog::authz::kAnySubject &&
        !ctx.access.IsServerAdmin(call.subject)) {
      return Status(StatusCode::kPermissionDenied,
                    "only a server admin grants to user:* (every principal)");
    }
    if (add) QV_RETURN_IF_ERROR(CheckMember(ctx.access, call, t));
  }
  // One edit per object, with all of its tuples, so that the owner rule is judged on the
  // object's final grants; and every object's edit is tried on its current grants before any
  // is written, so a refusal leaves the whole batch unapplied (a concurrent change can still
  // make a later edit refuse, as a conflict would).
  std::vector<std::pair<catalog::authz::ObjectRef, std::vector<Tuple>>> by_object;
  for (const Tuple& t : tuples) {
    auto it = std::find_if(by_object.begin(), by_object.end(),
                           [&](const auto& entry) { return entry.first == t.object; });
    if (it == by_object.end()) {
      by_object.push_back({t.object, {t}});
    } else {
      it->second.push_back(t);
    }
  }
  auto edit_of = [add](const std::vector<Tuple>& object_tuples) {
    return [add, &object_tuples](json& grants) -> Status {
      return EditGrants(grants, object_tuples, add);
    };
  };
  if (!add) {
    for (const auto& [object, object_tuples] : by_object) {
      QV_ASSIGN_OR_RETURN(json current, ctx.access.ReadGrantsOf(object));
      QV_RETURN_IF_ERROR(edit_of(object_tuples)(current));
    }
  }
  json changed = json::array();
  for (const auto& [object, object_tuples] : by_object) {
    QV_RETURN_IF_ERROR(
        ctx.access.UpdateGrantsOf(object, edit_of(object_tuples), ActorOf(call)).status());
    for (const Tuple& t : object_tuples) changed.push_back(catalog::authz::TupleToJson(t));
  }
  return JsonReply({{add ? "written" : "deleted", changed}});
}

}  // namespace

Result<HttpResponse> HandleWriteTuples(const HandlerContext& ctx, Call& call) {
  return EditTuples(ctx, call, true);
}

Result<HttpResponse> HandleDeleteTuples(const HandlerContext& ctx, Call& call) {
  return EditTuples(ctx, call, false);
}

Result<HttpResponse> HandleReadTuples(const HandlerContext& ctx, Call& call) {
  catalog::authz::TupleFilter filter;
  filter.subject = call.Query("subject");
  if (auto r = call.Query("relation")) {
    QV_ASSIGN_OR_RETURN(filter.relation, catalog::authz::ParseRelation(*r));
  }
  if (auto o = call.Query("object")) {
    QV_ASSIGN_OR_RETURN(filter.object_prefix, catalog::authz::ParseObjectRef(*o));
  }
  QV_ASSIGN_OR_RETURN(Paging paging, QueryPaging(call));
  if (!paging.page_token.empty()) {
    QV_ASSIGN_OR_RETURN(filter.start_after, catalog::authz::ParseTuple(paging.page_token));
  }
  size_t limit = paging.limit.value_or(kMaxListLimit);
  filter.limit = limit + 1;
  // Who may read what: a server admin anything; others the grants on an object they may
  // grant on (and below it), or their own.
  if (!ctx.access.IsServerAdmin(call.subject)) {
    if (filter.object_prefix) {
      QV_RETURN_IF_ERROR(CheckGrantable(ctx.access, call, *filter.object_prefix));
    } else if (filter.subject != call.subject) {
      return Status(StatusCode::kPermissionDenied,
                    "name an 'object' you administer, or read your own grants "
                    "(subject=<you>)");
    }
  }
  std::vector<Tuple> tuples = ctx.access.index().Read(filter);
  json body = json::object();
  if (tuples.size() > limit) {
    tuples.resize(limit);
    if (!tuples.empty()) body["page_token"] = catalog::authz::FormatTuple(tuples.back());
  }
  json list = json::array();
  for (const Tuple& t : tuples) list.push_back(catalog::authz::TupleToJson(t));
  body["tuples"] = list;
  return JsonReply(body);
}

Result<HttpResponse> HandleCheckAccess(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string permission_text, call.RequiredString("permission"));
  QV_ASSIGN_OR_RETURN(Permission permission, catalog::authz::ParsePermission(permission_text));
  QV_ASSIGN_OR_RETURN(std::string object_text, call.RequiredString("object"));
  QV_ASSIGN_OR_RETURN(ObjectRef obj, catalog::authz::ParseObjectRef(object_text));
  QV_ASSIGN_OR_RETURN(auto subject, call.String("subject"));
  std::string who = subject.value_or(call.subject);
  QV_RETURN_IF_ERROR(catalog::authz::ValidateSubject(who));
  if (who != call.subject && !ctx.access.IsServerAdmin(call.subject)) {
    // Asking about someone else is a grant-holder's question.
    QV_RETURN_IF_ERROR(
        Require(ctx.access, call.subject, Permission::kGrant, obj, HiddenObject(obj)));
  }
  ctx.access.MaybeRefresh();
  QV_ASSIGN_OR_RETURN(bool allowed, ctx.access.CheckFresh(who, permission, obj));
  return JsonReply({{"subject", who},
                    {"permission", catalog::authz::PermissionName(permission)},
                    {"object", catalog::authz::FormatObjectRef(obj)},
                    {"allowed", allowed}});
}

Result<HttpResponse> HandleWhoAmI(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::vector<std::string> projects, ctx.access.ProjectsOf(call.subject));
  return JsonReply({{"principal", call.subject},
                    {"server_admin", ctx.access.IsServerAdmin(call.subject)},
                    {"projects", projects}});
}

// --- events and the consistency scan ------------------------------------------------------
Result<HttpResponse> HandleListEvents(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(auto since, call.QueryInt("since"));
  QV_ASSIGN_OR_RETURN(auto limit, call.QueryInt("limit"));
  if (since && *since < 0) return Status::InvalidInput("'since' must not be negative");
  size_t n = static_cast<size_t>(std::clamp<int64_t>(limit.value_or(100), 1, 1000));
  std::optional<std::string> only_project;
  if (!ctx.access.IsServerAdmin(call.subject)) {
    QV_ASSIGN_OR_RETURN(std::string project, ResolveProject(ctx.catalog, ctx.access, call));
    ObjectRef proj = ObjectRef::Project(project);
    if (!ctx.access.Check(call.subject, Permission::kAdminister, proj)) {
      return Status(StatusCode::kPermissionDenied,
                    "the change log is for server admins and project admins");
    }
    only_project = project;
  }
  QV_ASSIGN_OR_RETURN(std::vector<json> events,
                      ctx.catalog.registry().ReadLog(static_cast<uint64_t>(since.value_or(0)), n));
  json list = json::array();
  uint64_t last = static_cast<uint64_t>(since.value_or(0));
  for (json& e : events) {
    last = std::max<uint64_t>(last, e.value("seq", uint64_t{0}));
    if (only_project && e.value("project", "") != *only_project) continue;
    e["generation"] = e.value("seq", uint64_t{0});
    list.push_back(std::move(e));
  }
  // `next_since` continues after the last event read, also when a project filter hid it.
  return JsonReply({{"events", list}, {"next_since", last}});
}

Result<HttpResponse> HandleAdminConsistency(const HandlerContext& ctx, Call& call) {
  if (!ctx.access.IsServerAdmin(call.subject)) return NotAdmin(call.subject);
  QV_ASSIGN_OR_RETURN(catalog::Catalog::ConsistencyReport report, ctx.catalog.CheckConsistency());
  return JsonReply({{"ok", report.problems.empty()},
                    {"projects", report.projects},
                    {"warehouses", report.warehouses},
                    {"namespaces", report.namespaces},
                    {"tables", report.tables},
                    {"problems", report.problems},
                    {"in_flight", report.in_flight}});
}

}  // namespace quiver::server::internal
