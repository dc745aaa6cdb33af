// The error contract (namespace-spec.md §4): every non-2xx response is the spec's ErrorResponse
// JSON with the numeric Lance `code`, plus RFC 9457 `type`/`title`/`status`:
//   {"error": "...", "code": 4, "detail": "...", "instance": "<request id>",
//    "type": "/errors/table-not-found", "title": "TableNotFound", "status": 404}
// HTTP statuses come from HttpStatusForCode (common/status.h), the one code→status table; only
// transport-level failures (unknown route 404, wrong method 405, oversize 413) override it.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "common/status.h"
#include "server/http_types.h"

namespace quiver::server {

// REQUIRES: !status.ok(). `http_status` 0 = HttpStatusForCode(status.code()).
HttpResponse MakeErrorResponse(const Status& status, const std::string& request_id,
                               int http_status = 0);

// "/errors/table-not-found" for kTableNotFound.
std::string ErrorTypeUri(StatusCode code);

}  // namespace quiver::server
