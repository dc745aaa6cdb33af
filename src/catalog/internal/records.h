// The catalog's stored records, typed (private to src/catalog/).
//
// Every record the catalog keeps in a root is JSON that any writer with access to the root could
// have written (or damaged), so each one is read through FromJson, which checks the type of every
// field it knows: a field of the wrong type is Corruption naming the record kind and the field
// ("table record: field 'state' is a number, expected a string"), never an exception. A field that
// is absent takes the default older quivers assumed (an absent "state" is active, an absent
// "grants" is none). ToJson writes exactly the layout quiver has always written: records written
// by older quivers read, and records written now read in older ones. Fields a record holds that
// this version does not know are kept in `extra` and written back unchanged, so a read-modify-
// write never drops what a newer quiver added.
//
//   kind        where                                   struct
//   project     _quiver/ns/@<h>.json                    ProjectRecord
//   namespace   _quiver/ns/<h1>/.../@<hn>.json          NamespaceRecord
//   table       _quiver/tables/.../@<ht>.json           TableRecord
//   warehouse   _quiver/warehouses/<hp>/@<hw>.json      WarehouseRecord
//   intent      _quiver/intents/<ulid>.json             IntentRecord (a drop or a rename)
//   API key     _quiver/access/keys/<key id>.json       ApiKeyRecord
//   server      _quiver/server.json                     ServerRecord
//   log event   _quiver/log/... (one of a batch)        ChangeEvent
// and inside them, each entry of a "grants" array: GrantEntry.
//
// "grants" stays a JSON array in the records (its entries are validated one by one where they
// are used, AccessControl::GrantsFromJson, which skips and logs an unusable entry rather than
// refusing the whole record): a record whose "grants" is not an array is Corruption.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/object_id.h"
#include "catalog/registry.h"
#include "common/result.h"

namespace quiver::catalog::internal {

using RecordProperties = std::map<std::string, std::string>;

// A table record's state: "active"; "dropping" (a drop retired it and is removing it);
// "retired" (a rename moved it to "renamed_to" and is removing it).
enum class TableState { kActive, kDropping, kRetired };
std::string_view TableStateName(TableState state);
std::optional<TableState> ParseTableState(std::string_view text);

// An intent record's operation: "drop" or "rename".
enum class IntentOp { kDrop, kRename };
std::string_view IntentOpName(IntentOp op);
std::optional<IntentOp> ParseIntentOp(std::string_view text);

// One entry of a "grants" array: {"subject": "user:alice", "relation": "owner"}. FromJson checks
// the shape only (an object with two strings); what the strings mean is authz's to check.
struct GrantEntry {
  std::string subject;
  std::string relation;
  nlohmann::json extra = nlohmann::json::object();

  static Result<GrantEntry> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const GrantEntry&) const = default;
};

// The grants a create seeds: one entry, the creator's.
nlohmann::json OwnerGrants(const std::string& subject, std::string_view relation);

// A project: the depth-1 namespace record {project}.
struct ProjectRecord {
  std::string kind = "project";  // anything else is a depth-1 record that is not a project
  ObjectId id;                   // {name}
  RecordProperties properties;
  std::string created_at;
  // A ULID minted at creation: which project this is, across a delete and a re-creation of the
  // same name (written only when set; records from before it have none, see Incarnation).
  std::string uid;
  nlohmann::json grants = nlohmann::json::array();
  std::optional<int64_t> dropping_since;  // unix nanos: a delete is in progress (or crashed)
  nlohmann::json extra = nlohmann::json::object();

  static Result<ProjectRecord> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const ProjectRecord&) const = default;
  // The uid, or for a record without one its creation time ("created:<created_at>").
  std::string Incarnation() const;
};

// A namespace {project, n1, ..., nk}, k >= 1.
struct NamespaceRecord {
  std::string kind = "namespace";
  ObjectId id;
  RecordProperties properties;
  std::string created_at;
  nlohmann::json grants = nlohmann::json::array();
  std::optional<std::string> warehouse;   // top-level namespaces only
  std::optional<int64_t> dropping_since;  // unix nanos: a drop is in progress (or crashed)
  nlohmann::json extra = nlohmann::json::object();

  static Result<NamespaceRecord> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const NamespaceRecord&) const = default;
};

struct TableRecord {
  std::string kind = "table";
  ObjectId id;
  std::string warehouse;
  std::string root;      // the warehouse's storage root URI; "" = the catalog root
  std::string location;  // relative to `root`
  RecordProperties properties;
  bool declared = false;
  bool managed_versioning = false;
  std::string created_at;
  TableState state = TableState::kActive;
  nlohmann::json grants = nlohmann::json::array();
  std::optional<ObjectId> renamed_to;    // a retired source of a rename
  std::optional<ObjectId> renamed_from;  // the destination of a rename
  nlohmann::json extra = nlohmann::json::object();

  static Result<TableRecord> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const TableRecord&) const = default;
};

struct WarehouseRecord {
  std::string kind = "warehouse";
  std::string project;
  std::string name;
  std::string root;  // storage root URI; "" = the catalog root
  bool active = true;
  RecordProperties properties;
  std::string created_at;
  nlohmann::json grants = nlohmann::json::array();
  std::optional<int64_t> dropping_since;  // unix nanos: a delete is in progress (or crashed)
  nlohmann::json extra = nlohmann::json::object();

  static Result<WarehouseRecord> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const WarehouseRecord&) const = default;
};

// What a table drop or rename is about to do, written before it starts (Catalog::Recover):
//   drop    {"op": "drop", "id", "root", "location", "delete_bytes"}
//   rename  {"op": "rename", "source", "dest", "location"}
// FromJson: an "op" that is not a string is Corruption; an unknown op string parses (the
// caller ignores such an intent), with op unset.
struct IntentRecord {
  std::optional<IntentOp> op;
  std::string op_text;  // as stored (for messages about an unknown op)
  ObjectId id;          // drop
  std::string root;     // drop
  bool delete_bytes = false;
  ObjectId source;  // rename
  ObjectId dest;    // rename
  std::string location;
  nlohmann::json extra = nlohmann::json::object();

  static IntentRecord Drop(ObjectId id, std::string root, std::string location, bool delete_bytes);
  static IntentRecord Rename(ObjectId source, ObjectId dest, std::string location);
  static Result<IntentRecord> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const IntentRecord&) const = default;
};

// _quiver/released/<ULID>.json: a location whose table the project deregistered. The
// bytes stay, and stay the project's: another project may not register that location, nor one
// at, inside or above it (Catalog::RegisterTable). A project deleted and created again under the
// same name is another project (its incarnation differs).
struct ReleasedRecord {
  std::string project;
  std::string project_incarnation;  // ProjectRecord::Incarnation()
  std::string root;      // the warehouse root the location is relative to ("" = the catalog's)
  std::string location;  // as the table record had it
  ObjectId table;        // the deregistered table (scoped id), for messages and `catalog check`
  std::string released_at;
  nlohmann::json extra = nlohmann::json::object();

  static Result<ReleasedRecord> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const ReleasedRecord&) const = default;
};

// An API key (api_keys.h). expires_at_ms: an integer beyond int64 (a planted record) is no
// expiry that can be honoured and reads as 0 (expired), never as "no expiry".
struct ApiKeyRecord {
  std::string key_id;
  std::string principal;
  std::string salt;
  std::string hash;
  std::string description;
  std::string created_at;
  std::string created_by;
  std::optional<int64_t> expires_at_ms;
  std::vector<std::string> minted_with;  // written only when non-empty
  std::optional<std::string> revoked_at;
  std::optional<std::string> revoked_by;
  nlohmann::json extra = nlohmann::json::object();

  static Result<ApiKeyRecord> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const ApiKeyRecord&) const = default;
};

// _quiver/server.json: {"grants": [...]}, the grants on server:quiver.
struct ServerRecord {
  nlohmann::json grants = nlohmann::json::array();
  nlohmann::json extra = nlohmann::json::object();

  static Result<ServerRecord> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const ServerRecord&) const = default;
};

// One change-log event as AccessControl reads it: {"seq", "at", "action", "kind", "object",
// "grants"?, "warehouse"?, "to"?, ...}; the rest of what the catalog logs (actor, request_id,
// outcome, location, ...) is kept in `extra`.
struct ChangeEvent {
  std::optional<uint64_t> seq;
  std::optional<std::string> at;
  std::string action;
  std::string kind;
  std::optional<ObjectId> object;  // [] for the server
  std::optional<nlohmann::json> grants;
  std::optional<std::string> warehouse;
  std::optional<ObjectId> to;
  nlohmann::json extra = nlohmann::json::object();

  static Result<ChangeEvent> FromJson(const nlohmann::json& json);
  nlohmann::json ToJson() const;
  bool operator==(const ChangeEvent&) const = default;
};

// A registry record read and typed, with the etag that changes or deletes it.
template <typename R>
struct Stored {
  R record;
  std::string etag;
};

// Registry::Get, then R::FromJson: NotFound as Get; a mistyped record is Corruption naming its
// key and the field.
template <typename R>
Result<Stored<R>> GetRecord(Registry& registry, RecordKind kind, const ObjectId& id) {
  QV_ASSIGN_OR_RETURN(Record raw, registry.Get(kind, id));
  Result<R> typed = R::FromJson(raw.body);
  if (!typed.ok()) return typed.status().WithContext(Registry::RecordKey(kind, id));
  return Stored<R>{std::move(*typed), std::move(raw.etag)};
}

}  // namespace quiver::catalog::internal
