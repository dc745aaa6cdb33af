#include "catalog/internal/records.h"

#include <set>

#include <fmt/format.h>

#include "common/json.h"

namespace quiver::catalog::internal {

namespace {

using nlohmann::json;

std::string_view TypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "a number";
    default:
      return "an unusable value";
  }
}

// Reads the members of one record, checking each one's type. Every member read is remembered,
// so that Extra() is what the reader did not know.
class FieldReader {
 public:
  FieldReader(const json& body, std::string_view record) : body_(body), record_(record) {}

  Status Check() const {
    if (!body_.is_object()) {
      return Status::Corruption(
          fmt::format("{} is {}, expected an object", record_, TypeName(body_)));
    }
    return Status::OK();
  }

  // Each reader leaves *out as it is (its default) when the member is absent.
  Status String(const char* key, std::string* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->is_string()) return Mistyped(key, *v, "a string");
    *out = v->get<std::string>();
    return Status::OK();
  }
  Status String(const char* key, std::optional<std::string>* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->is_string()) return Mistyped(key, *v, "a string");
    *out = v->get<std::string>();
    return Status::OK();
  }
  Status Bool(const char* key, bool* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->is_boolean()) return Mistyped(key, *v, "a boolean");
    *out = v->get<bool>();
    return Status::OK();
  }
  // An integer within int64 (no wrap of a large unsigned, no truncated float).
  Status Int64(const char* key, std::optional<int64_t>* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    std::optional<int64_t> n = JsonToInt64(*v);
    if (!n) return Mistyped(key, *v, "an integer (64-bit)");
    *out = *n;
    return Status::OK();
  }
  Status Uint64(const char* key, std::optional<uint64_t>* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->is_number_unsigned()) return Mistyped(key, *v, "an unsigned integer");
    *out = v->get<uint64_t>();
    return Status::OK();
  }
  Status Id(const char* key, ObjectId* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    return ReadStrings(key, *v, out);
  }
  Status Id(const char* key, std::optional<ObjectId>* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    ObjectId id;
    QV_RETURN_IF_ERROR(ReadStrings(key, *v, &id));
    *out = std::move(id);
    return Status::OK();
  }
  Status Strings(const char* key, std::vector<std::string>* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    return ReadStrings(key, *v, out);
  }
  // An array kept as JSON (its entries are checked where they are used).
  Status Array(const char* key, json* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->is_array()) return Mistyped(key, *v, "an array");
    *out = *v;
    return Status::OK();
  }
  Status Array(const char* key, std::optional<json>* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->is_array()) return Mistyped(key, *v, "an array");
    *out = *v;
    return Status::OK();
  }
  // An object of string values.
  Status Properties(const char* key, RecordProperties* out) {
    const json* v = Find(key);
    if (v == nullptr) return Status::OK();
    if (!v->is_object()) return Mistyped(key, *v, "an object");
    for (const auto& [name, value] : v->items()) {
      if (!value.is_string()) {
        return Status::Corruption(
            fmt::format("{}: field '{}' holds '{}', which is {}, expected a "
                        "string",
                        record_, key, name, TypeName(value)));
      }
      (*out)[name] = value.get<std::string>();
    }
    return Status::OK();
  }

  // The members no reader asked for.
  json Extra() const {
    json extra = json::object();
    for (const auto& [key, value] : body_.items()) {
      if (!known_.count(key)) extra[key] = value;
    }
    return extra;
  }

  // The member itself (null when absent), for a caller's own check; it counts as read.
  const json* Find(const char* key) {
    known_.insert(key);
    auto it = body_.find(key);
    return it == body_.end() ? nullptr : &*it;
  }
  Status Mistyped(const char* key, const json& value, std::string_view expected) const {
    return Status::Corruption(
        fmt::format("{}: field '{}' is {}, expected {}", record_, key, TypeName(value), expected));
  }

 private:
  Status ReadStrings(const char* key, const json& value, std::vector<std::string>* out) const {
    if (!value.is_array()) return Mistyped(key, value, "an array of strings");
    std::vector<std::string> parts;
    for (const json& part : value) {
      if (!part.is_string()) {
        return Status::Corruption(fmt::format(
            "{}: field '{}' holds {}, expected an array of strings", record_, key, TypeName(part)));
      }
      parts.push_back(part.get<std::string>());
    }
    *out = std::move(parts);
    return Status::OK();
  }

  const json& body_;
  std::string_view record_;
  std::set<std::string> known_;
};

// Writes `extra` under the known members (a known member always wins).
json WithExtra(json body, const json& extra) {
  for (const auto& [key, value] : extra.items()) {
    if (!body.contains(key)) body[key] = value;
  }
  return body;
}

}  // namespace

std::string_view TableStateName(TableState state) {
  switch (state) {
    case TableState::kActive:
      return "active";
    case TableState::kDropping:
      return "dropping";
    case TableState::kRetired:
      return "retired";
  }
  return "active";
}

std::optional<TableState> ParseTableState(std::string_view text) {
  for (TableState s : {TableState::kActive, TableState::kDropping, TableState::kRetired}) {
    if (text == TableStateName(s)) return s;
  }
  return std::nullopt;
}

std::string_view IntentOpName(IntentOp op) { return op == IntentOp::kDrop ? "drop" : "rename"; }

std::optional<IntentOp> ParseIntentOp(std::string_view text) {
  if (text == "drop") return IntentOp::kDrop;
  if (text == "rename") return IntentOp::kRename;
  return std::nullopt;
}

// --- grants ------------------------------------------------------------------------------------

Result<GrantEntry> GrantEntry::FromJson(const json& json) {
  FieldReader r(json, "grant");
  QV_RETURN_IF_ERROR(r.Check());
  GrantEntry g;
  QV_RETURN_IF_ERROR(r.String("subject", &g.subject));
  QV_RETURN_IF_ERROR(r.String("relation", &g.relation));
  g.extra = r.Extra();
  return g;
}

json GrantEntry::ToJson() const {
  return WithExtra({{"subject", subject}, {"relation", relation}}, extra);
}

json OwnerGrants(const std::string& subject, std::string_view relation) {
  return json::array({GrantEntry{subject, std::string(relation)}.ToJson()});
}

// --- projects and namespaces -------------------------------------------------------------------

Result<ProjectRecord> ProjectRecord::FromJson(const json& json) {
  FieldReader r(json, "project record");
  QV_RETURN_IF_ERROR(r.Check());
  ProjectRecord p;
  p.kind.clear();
  QV_RETURN_IF_ERROR(r.String("kind", &p.kind));
  QV_RETURN_IF_ERROR(r.Id("id", &p.id));
  QV_RETURN_IF_ERROR(r.Properties("properties", &p.properties));
  QV_RETURN_IF_ERROR(r.String("created_at", &p.created_at));
  QV_RETURN_IF_ERROR(r.String("uid", &p.uid));
  QV_RETURN_IF_ERROR(r.Array("grants", &p.grants));
  QV_RETURN_IF_ERROR(r.Int64("dropping_since", &p.dropping_since));
  p.extra = r.Extra();
  return p;
}

std::string ProjectRecord::Incarnation() const {
  return uid.empty() ? "created:" + created_at : uid;
}

json ProjectRecord::ToJson() const {
  json body = {{"kind", kind},
               {"id", id},
               {"properties", properties},
               {"created_at", created_at},
               {"grants", grants}};
  if (!uid.empty()) body["uid"] = uid;
  if (dropping_since) body["dropping_since"] = *dropping_since;
  return WithExtra(std::move(body), extra);
}

Result<NamespaceRecord> NamespaceRecord::FromJson(const json& json) {
  FieldReader r(json, "namespace record");
  QV_RETURN_IF_ERROR(r.Check());
  NamespaceRecord n;
  n.kind.clear();
  QV_RETURN_IF_ERROR(r.String("kind", &n.kind));
  QV_RETURN_IF_ERROR(r.Id("id", &n.id));
  QV_RETURN_IF_ERROR(r.Properties("properties", &n.properties));
  QV_RETURN_IF_ERROR(r.String("created_at", &n.created_at));
  QV_RETURN_IF_ERROR(r.Array("grants", &n.grants));
  QV_RETURN_IF_ERROR(r.String("warehouse", &n.warehouse));
  QV_RETURN_IF_ERROR(r.Int64("dropping_since", &n.dropping_since));
  n.extra = r.Extra();
  return n;
}

json NamespaceRecord::ToJson() const {
  json body = {{"kind", kind},
               {"id", id},
               {"properties", properties},
               {"created_at", created_at},
               {"grants", grants}};
  if (warehouse) body["warehouse"] = *warehouse;
  if (dropping_since) body["dropping_since"] = *dropping_since;
  return WithExtra(std::move(body), extra);
}

// --- tables ------------------------------------------------------------------------------------

Result<TableRecord> TableRecord::FromJson(const json& json) {
  FieldReader r(json, "table record");
  QV_RETURN_IF_ERROR(r.Check());
  TableRecord t;
  t.kind.clear();
  QV_RETURN_IF_ERROR(r.String("kind", &t.kind));
  QV_RETURN_IF_ERROR(r.Id("id", &t.id));
  QV_RETURN_IF_ERROR(r.String("warehouse", &t.warehouse));
  QV_RETURN_IF_ERROR(r.String("root", &t.root));
  QV_RETURN_IF_ERROR(r.String("location", &t.location));
  QV_RETURN_IF_ERROR(r.Properties("properties", &t.properties));
  QV_RETURN_IF_ERROR(r.Bool("declared", &t.declared));
  QV_RETURN_IF_ERROR(r.Bool("managed_versioning", &t.managed_versioning));
  QV_RETURN_IF_ERROR(r.String("created_at", &t.created_at));
  std::string state(TableStateName(TableState::kActive));
  QV_RETURN_IF_ERROR(r.String("state", &state));
  std::optional<TableState> parsed = ParseTableState(state);
  if (!parsed) {
    return Status::Corruption(fmt::format(
        "table record: field 'state' is '{}', expected active, dropping or retired", state));
  }
  t.state = *parsed;
  QV_RETURN_IF_ERROR(r.Array("grants", &t.grants));
  QV_RETURN_IF_ERROR(r.Id("renamed_to", &t.renamed_to));
  QV_RETURN_IF_ERROR(r.Id("renamed_from", &t.renamed_from));
  t.extra = r.Extra();
  return t;
}

json TableRecord::ToJson() const {
  json body = {{"kind", kind},
               {"id", id},
               {"warehouse", warehouse},
               {"root", root},
               {"location", location},
               {"properties", properties},
               {"declared", declared},
               {"managed_versioning", managed_versioning},
               {"created_at", created_at},
               {"state", TableStateName(state)},
               {"grants", grants}};
  if (renamed_to) body["renamed_to"] = *renamed_to;
  if (renamed_from) body["renamed_from"] = *renamed_from;
  return WithExtra(std::move(body), extra);
}

// --- warehouses --------------------------------------------------------------------------------

Result<WarehouseRecord> WarehouseRecord::FromJson(const json& json) {
  FieldReader r(json, "warehouse record");
  QV_RETURN_IF_ERROR(r.Check());
  WarehouseRecord w;
  w.kind.clear();
  QV_RETURN_IF_ERROR(r.String("kind", &w.kind));
  QV_RETURN_IF_ERROR(r.String("project", &w.project));
  QV_RETURN_IF_ERROR(r.String("name", &w.name));
  QV_RETURN_IF_ERROR(r.String("root", &w.root));
  QV_RETURN_IF_ERROR(r.Bool("active", &w.active));
  QV_RETURN_IF_ERROR(r.Properties("properties", &w.properties));
  QV_RETURN_IF_ERROR(r.String("created_at", &w.created_at));
  QV_RETURN_IF_ERROR(r.Array("grants", &w.grants));
  QV_RETURN_IF_ERROR(r.Int64("dropping_since", &w.dropping_since));
  w.extra = r.Extra();
  return w;
}

json WarehouseRecord::ToJson() const {
  json body = {{"kind", kind},
               {"project", project},
               {"name", name},
               {"root", root},
               {"active", active},
               {"properties", properties},
               {"created_at", created_at},
               {"grants", grants}};
  if (dropping_since) body["dropping_since"] = *dropping_since;
  return WithExtra(std::move(body), extra);
}

// --- intents -----------------------------------------------------------------------------------

IntentRecord IntentRecord::Drop(ObjectId id, std::string root, std::string location,
                                bool delete_bytes) {
  IntentRecord i;
  i.op = IntentOp::kDrop;
  i.op_text = IntentOpName(IntentOp::kDrop);
  i.id = std::move(id);
  i.root = std::move(root);
  i.location = std::move(location);
  i.delete_bytes = delete_bytes;
  return i;
}

IntentRecord IntentRecord::Rename(ObjectId source, ObjectId dest, std::string location) {
  IntentRecord i;
  i.op = IntentOp::kRename;
  i.op_text = IntentOpName(IntentOp::kRename);
  i.source = std::move(source);
  i.dest = std::move(dest);
  i.location = std::move(location);
  return i;
}

Result<IntentRecord> IntentRecord::FromJson(const json& json) {
  FieldReader r(json, "intent record");
  QV_RETURN_IF_ERROR(r.Check());
  IntentRecord i;
  QV_RETURN_IF_ERROR(r.String("op", &i.op_text));
  i.op = ParseIntentOp(i.op_text);
  QV_RETURN_IF_ERROR(r.Id("id", &i.id));
  QV_RETURN_IF_ERROR(r.String("root", &i.root));
  QV_RETURN_IF_ERROR(r.Bool("delete_bytes", &i.delete_bytes));
  QV_RETURN_IF_ERROR(r.Id("source", &i.source));
  QV_RETURN_IF_ERROR(r.Id("dest", &i.dest));
  QV_RETURN_IF_ERROR(r.String("location", &i.location));
  i.extra = r.Extra();
  return i;
}

json IntentRecord::ToJson() const {
  json body = {{"op", op ? std::string(IntentOpName(*op)) : op_text}};
  if (op == IntentOp::kDrop) {
    body["id"] = id;
    body["root"] = root;
    body["location"] = location;
    body["delete_bytes"] = delete_bytes;
  } else if (op == IntentOp::kRename) {
    body["source"] = source;
    body["dest"] = dest;
    body["location"] = location;
  }
  return WithExtra(std::move(body), extra);
}

// --- released locations ------------------------------------------------------------------------

Result<ReleasedRecord> ReleasedRecord::FromJson(const json& json) {
  FieldReader r(json, "released location record");
  QV_RETURN_IF_ERROR(r.Check());
  ReleasedRecord rel;
  QV_RETURN_IF_ERROR(r.String("project", &rel.project));
  QV_RETURN_IF_ERROR(r.String("project_incarnation", &rel.project_incarnation));
  QV_RETURN_IF_ERROR(r.String("root", &rel.root));
  QV_RETURN_IF_ERROR(r.String("location", &rel.location));
  QV_RETURN_IF_ERROR(r.Id("table", &rel.table));
  QV_RETURN_IF_ERROR(r.String("released_at", &rel.released_at));
  rel.extra = r.Extra();
  return rel;
}

json ReleasedRecord::ToJson() const {
  return WithExtra({{"project", project},
                    {"project_incarnation", project_incarnation},
                    {"root", root},
                    {"location", location},
                    {"table", table},
                    {"released_at", released_at}},
                   extra);
}

// --- API keys ----------------------------------------------------------------------------------

Result<ApiKeyRecord> ApiKeyRecord::FromJson(const json& json) {
  FieldReader r(json, "API key record");
  QV_RETURN_IF_ERROR(r.Check());
  ApiKeyRecord k;
  QV_RETURN_IF_ERROR(r.String("key_id", &k.key_id));
  QV_RETURN_IF_ERROR(r.String("principal", &k.principal));
  QV_RETURN_IF_ERROR(r.String("salt", &k.salt));
  QV_RETURN_IF_ERROR(r.String("hash", &k.hash));
  QV_RETURN_IF_ERROR(r.String("description", &k.description));
  QV_RETURN_IF_ERROR(r.String("created_at", &k.created_at));
  QV_RETURN_IF_ERROR(r.String("created_by", &k.created_by));
  // Past int64 (a planted record) is no expiry that can be honoured: expired, never "none".
  if (const nlohmann::json* v = r.Find("expires_at_ms"); v != nullptr) {
    std::optional<int64_t> n = JsonToInt64(*v);
    if (!n && !v->is_number_unsigned()) return r.Mistyped("expires_at_ms", *v, "an integer");
    k.expires_at_ms = n.value_or(0);
  }
  QV_RETURN_IF_ERROR(r.Strings("minted_with", &k.minted_with));
  QV_RETURN_IF_ERROR(r.String("revoked_at", &k.revoked_at));
  QV_RETURN_IF_ERROR(r.String("revoked_by", &k.revoked_by));
  k.extra = r.Extra();
  return k;
}

json ApiKeyRecord::ToJson() const {
  json body = {{"key_id", key_id},
               {"principal", principal},
               {"salt", salt},
               {"hash", hash},
               {"description", description},
               {"created_at", created_at},
               {"created_by", created_by}};
  if (expires_at_ms) body["expires_at_ms"] = *expires_at_ms;
  if (!minted_with.empty()) body["minted_with"] = minted_with;
  if (revoked_at) body["revoked_at"] = *revoked_at;
  if (revoked_by) body["revoked_by"] = *revoked_by;
  return WithExtra(std::move(body), extra);
}

// --- the server's record -----------------------------------------------------------------------

Result<ServerRecord> ServerRecord::FromJson(const json& json) {
  FieldReader r(json, "server record");
  QV_RETURN_IF_ERROR(r.Check());
  ServerRecord s;
  QV_RETURN_IF_ERROR(r.Array("grants", &s.grants));
  s.extra = r.Extra();
  return s;
}

json ServerRecord::ToJson() const { return WithExtra({{"grants", grants}}, extra); }

// --- change-log events -------------------------------------------------------------------------

Result<ChangeEvent> ChangeEvent::FromJson(const json& json) {
  FieldReader r(json, "change-log event");
  QV_RETURN_IF_ERROR(r.Check());
  ChangeEvent e;
  QV_RETURN_IF_ERROR(r.Uint64("seq", &e.seq));
  QV_RETURN_IF_ERROR(r.String("at", &e.at));
  QV_RETURN_IF_ERROR(r.String("action", &e.action));
  QV_RETURN_IF_ERROR(r.String("kind", &e.kind));
  QV_RETURN_IF_ERROR(r.Id("object", &e.object));
  QV_RETURN_IF_ERROR(r.Array("grants", &e.grants));
  QV_RETURN_IF_ERROR(r.String("warehouse", &e.warehouse));
  QV_RETURN_IF_ERROR(r.Id("to", &e.to));
  e.extra = r.Extra();
  return e;
}

json ChangeEvent::ToJson() const {
  json body = {{"action", action}, {"kind", kind}};
  if (seq) body["seq"] = *seq;
  if (at) body["at"] = *at;
  if (object) body["object"] = *object;
  if (grants) body["grants"] = *grants;
  if (warehouse) body["warehouse"] = *warehouse;
  if (to) body["to"] = *to;
  return WithExtra(std::move(body), extra);
}

}  // namespace quiver::catalog::internal
