// LanceDB's remote protocol (the `db://` client of LanceDB Cloud/Enterprise;
// docs/reference/lancedb-remote-api.md) on the same operations and handlers as the Lance Namespace
// spec's. This file holds the rules that tell the two dialects apart and the ones that differ
// between them at the edges of the pipeline (routing, project, error statuses, response
// headers); what differs inside one operation (a response's shape) is decided by its handler on
// Call::dialect.
//
// Invariants:
//  1. A request is in the remote dialect when it carries `x-lancedb-database` (the client always
//     sends it with `hostOverride`, which is how it reaches a self-hosted server) or its path is
//     a `/v1/table...` route ending in '/' (every remote table route does; the spec's never).
//     Everything else is the spec's: a spec client is never answered in the remote vocabulary.
//  2. The remote "database" is a quiver project: `x-lancedb-database: NAME` chooses the project
//     as `x-quiver-project` does (both present must agree), and its tables are the project's,
//     with namespaces as the spec has them (`ns$t` ids). `x-lancedb-database-prefix` (db://N/p)
//     has no quiver meaning and is refused (Unsupported), never ignored.
//  3. The remote client reads errors by HTTP status alone and retries 409, 429 and 5xx (three
//     attempts). So a remote error is never 409 unless trying again can succeed (a lost commit
//     race, retryable): a permanent conflict ("already exists", "not empty") is 400, and the
//     body still says what happened (the spec's error JSON, which the client shows as text).
//     404 is only for a missing table, version, tag, branch, namespace or index (the client
//     reports "Table '…' was not found"); a missing column is 400. The one 409 kept is branch
//     creation's "already exists" (the client sends it without retry and reads 409 as exactly
//     that).
//  4. Remote responses carry `phalanx-version` (kPhalanxVersion), which tells the client it may
//     batch query vectors (0.2.0), send structured full-text queries (0.3.0) and use multipart
//     writes (0.4.0); quiver serves all three.
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "common/status.h"
#include "server/http_types.h"

namespace quiver::server {

enum class Dialect {
  kSpec,    // the Lance Namespace spec (namespace-spec.md)
  kRemote,  // LanceDB's remote protocol (lancedb-remote-api.md)
};

inline constexpr std::string_view kRemoteDatabaseHeader = "x-lancedb-database";
inline constexpr std::string_view kRemoteDatabasePrefixHeader = "x-lancedb-database-prefix";
inline constexpr std::string_view kPhalanxVersion = "0.4.0";

// Invariant 1.
Dialect DetectDialect(const HttpRequest& request);

// The HTTP status of an error answered to a remote-dialect request of `operation` (the
// operation table's name; "" when unrouted). Invariant 3.
int RemoteErrorStatus(const Status& status, std::string_view operation);

}  // namespace quiver::server
