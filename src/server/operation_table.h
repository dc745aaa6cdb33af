// The operation table: one row per operation (the Lance Namespace spec's 54 and quiver's own),
// saying everything the request pipeline (service.h) needs to know about it: its route (method,
// path pattern, success status, the client deviations it accepts), what its body is, who may
// call it at all, the door that authorizes it (internal/authorize.h) and its handler
// (internal/handlers.h; null: the operation answers Unsupported, 406 code 0).
//
// The table is in operation_table.cc, spec operations first in spec order; routes.h matches a
// request against it. The pipeline (service.h) names no operation: Healthz and Metrics are
// special only by their rows' `auth`. What still goes by name is operation-specific detail
// inside one step: the create door's shape checks and RenameTable's destination check
// (internal/authorize.cc), and UpdateTableSchemaMetadata's bare-map body (call.cc).
// Thread-safety: the table is immutable.
#pragma once

#include <string_view>
#include <vector>

#include "catalog/authz/model.h"
#include "common/result.h"
#include "server/http_types.h"

namespace quiver::server {

struct Call;
namespace internal {
struct HandlerContext;  // what handlers act on (internal/handlers.h)
}

// What the request body is, which decides its limit at admission and how it is parsed.
enum class BodyKind {
  kJson,   // a JSON object (or empty / `null`), bounded by max_json_body_bytes; may carry the
           // caller's `identity`
  kArrow,  // Arrow IPC, bounded by the transport's max_body_bytes; not parsed by the pipeline
  // Arrow IPC handed to the handler as it arrives (HttpRequest::body_reader: written to data
  // files as it comes, never held whole), bounded by max_streamed_body_bytes
  kArrowStream,
  kNone,  // none is read: nothing of the request is parsed (the call has only its route)
};
inline bool IsArrowBody(BodyKind kind) {
  return kind == BodyKind::kArrow || kind == BodyKind::kArrowStream;
}

// Who may call the operation at all, decided before its door.
enum class Auth {
  kOpen,           // everyone, answered before authentication (no identity is looked at)
  kAuthenticated,  // any authenticated caller; the door and the handler decide the rest
  kServerAdmin,    // server admins only (403 "<path> is for server admins" for anyone else)
};

// How a spec operation is authorized before its handler runs (internal/authorize.h).
enum class Door {
  kRead,         // reveals; 404 when the caller cannot observe
  kDestructive,  // changes or removes an existing object; same rule as kRead
  kCreate,       // creates under a parent
  kNone,         // not checked by the pipeline: quiver's own operations check in their handlers
                 // (in the same door order); the multi-table spec operations are unsupported
};

// The object a door checks its permission on.
enum class Target {
  kTable,      // the call's id is a table
  kNamespace,  // the call's id is a namespace (the root: the project)
  kProject,    // the call's project
};

// An operation's handler: turns the parsed, authorized call into a response or a Status.
using Handler = Result<HttpResponse> (*)(const internal::HandlerContext& ctx, Call& call);

struct Operation {
  std::string_view name;     // the spec's operationId, or ours ("Healthz", "CreateProject")
  std::string_view method;   // the spec's method
  std::string_view pattern;  // "/v1/table/{id}/describe"
  int success_status = 200;
  bool spec = true;       // one of the spec's 54 (its id is scoped to the caller's project)
  bool also_get = false;  // GET accepted too (client deviations)
  BodyKind body = BodyKind::kJson;
  Auth auth = Auth::kAuthenticated;
  Door door = Door::kNone;
  catalog::authz::Permission permission = catalog::authz::Permission::kObserve;  // of the door
  Target target = Target::kProject;                                              // of the door
  Handler handler = nullptr;  // null: Unsupported (406, code 0)
  // A route of LanceDB's remote protocol that the spec lacks (remote_dialect.h): matched only for
  // remote-dialect requests, and scoped and authorized through its door like a spec operation.
  bool remote = false;
};

// Every operation, spec ones first in spec order, then quiver's, then the remote protocol's.
const std::vector<Operation>& Operations();
const Operation* FindOperation(std::string_view name);

}  // namespace quiver::server
