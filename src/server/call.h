// Call: one parsed API request as the operation handlers see it: the route, the object id split
// by the request's delimiter, the JSON body (an object; `{}` for an empty or `null` body), the
// query parameters, the request id and the caller's identity.
//
// Parsing follows the wire rules of namespace-spec.md §2 and the real clients' deviations
// (§10): the id may arrive raw or percent-encoded, with '+' as a space, with a multi-character
// delimiter, or as the delimiter itself for the root; a body `id` must equal the path's; enum
// values are case-insensitive and accept PascalCase and snake_case.
// Thread-safety: a Call belongs to one request.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/object_id.h"
#include "common/result.h"
#include "server/http_types.h"
#include "server/remote_dialect.h"
#include "server/routes.h"

namespace quiver::server {

// Who is calling (parsed now; enforced by the authorization layer).
struct Principal {
  enum class Kind { kAnonymous, kApiKey, kBearer };
  Kind kind = Kind::kAnonymous;
  std::string credential;    // the key or token as sent
  std::string Name() const;  // "anonymous", "api-key:<8 chars>", "bearer"
  // What bounds the verified credential (set by Authenticator::Authenticate): when it stops
  // being valid (unix milliseconds; nullopt = never) and, for an API key, its key id. A key
  // minted with this credential expires no later and, minted with a key, dies with that key
  // (docs/authorization.md).
  std::optional<int64_t> expires_at_ms;
  std::string key_id;
};

struct Call {
  const HttpRequest* http = nullptr;
  const Operation* op = nullptr;
  std::string request_id;
  Dialect dialect = Dialect::kSpec;  // the spec's or LanceDB's remote protocol (remote_dialect.h)
  std::string delimiter = "$";
  catalog::ObjectId id;                   // from the path (root = empty)
  std::optional<std::string> index_name;  // from the path
  nlohmann::json body = nlohmann::json::object();
  Principal principal;
  std::map<std::string, std::string> context;  // legacy x-lance-ctx-* and body `context`

  // Set by the service after authentication and project resolution (service.h):
  std::string subject = "user:anonymous";  // the authenticated principal
  std::string project;                     // the tenant, derived from the principal
  catalog::ObjectId spec_id;               // the id as the client sent it; `id` is then scoped
                                           // ({project, ...spec_id}) for catalog calls
  // {project, ...spec} for an id the request names elsewhere (e.g. a rename's destination).
  catalog::ObjectId Scoped(const catalog::ObjectId& spec) const;

  // Query parameters. InvalidInput for values that do not parse.
  std::optional<std::string> Query(const std::string& name) const;
  Result<std::optional<bool>> QueryBool(const std::string& name) const;
  Result<std::optional<int64_t>> QueryInt(const std::string& name) const;

  // Body fields (absent or JSON null → nullopt). InvalidInput naming the field on a wrong type.
  Result<std::optional<std::string>> String(const std::string& name) const;
  Result<std::optional<bool>> Bool(const std::string& name) const;
  Result<std::optional<int64_t>> Int(const std::string& name) const;
  Result<std::optional<std::map<std::string, std::string>>> StringMap(
      const std::string& name) const;
  Result<std::optional<std::vector<std::string>>> StringList(const std::string& name) const;
  // REQUIRES: field present → InvalidInput "'<name>' is required" otherwise.
  Result<std::string> RequiredString(const std::string& name) const;
  Result<int64_t> RequiredInt(const std::string& name) const;

  // The body field, overridden by the query parameter of the same name when present.
  Result<std::optional<bool>> BoolParam(const std::string& name) const;
  Result<std::optional<std::string>> StringParam(const std::string& name) const;
};

// Splits a path id by `delimiter`; the delimiter alone (or "") is the root. Empty elements
// ("a$$b", "$a") are InvalidInput.
Result<catalog::ObjectId> SplitId(const std::string& segment, const std::string& delimiter);

// Normalises an enum value: lower case, '_' and '-' removed ("ExistOk", "exist_ok" → "existok").
std::string NormalizeEnum(std::string_view value);

// `value` of the enum field `field` as an index into `choices` (spelled as the spec spells them,
// "ExistOk"; compared normalised, NormalizeEnum); nullopt when absent. InvalidInput naming the
// choices otherwise ("'mode' must be Fail or Skip, not 'x'").
Result<std::optional<size_t>> ParseEnumChoice(std::string_view field,
                                              const std::optional<std::string>& value,
                                              std::initializer_list<std::string_view> choices);

// The credential in the headers (x-api-key, else Authorization: Bearer); kAnonymous when none.
Principal HeaderPrincipal(const HttpRequest& http);

// Builds the Call: dialect, delimiter, id, body (JSON; left empty unless the operation's body kind
// is BodyKind::kJson, operation_table.h), identity, context. InvalidInput on malformed JSON, a
// non-object body, a bad id or an id mismatch between path and body.
Result<Call> ParseCall(const HttpRequest& http, const RouteMatch& match, std::string request_id);

}  // namespace quiver::server
