#include "server/call.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "common/json.h"

namespace quiver::server {

using nlohmann::json;

std::string Principal::Name() const {
  switch (kind) {
    case Kind::kAnonymous:
      return "anonymous";
    case Kind::kApiKey:
      return "api-key:" + credential.substr(0, std::min<size_t>(8, credential.size()));
    case Kind::kBearer:
      return "bearer";
  }
  return "anonymous";
}

catalog::ObjectId Call::Scoped(const catalog::ObjectId& spec) const {
  catalog::ObjectId out;
  out.reserve(spec.size() + 1);
  out.push_back(project);
  out.insert(out.end(), spec.begin(), spec.end());
  return out;
}

std::string NormalizeEnum(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '_' || c == '-') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

Result<std::optional<size_t>> ParseEnumChoice(std::string_view field,
                                              const std::optional<std::string>& value,
                                              std::initializer_list<std::string_view> choices) {
  if (!value) return std::optional<size_t>();
  std::string normal = NormalizeEnum(*value);
  std::string expected;
  size_t index = 0;
  for (std::string_view choice : choices) {
    if (normal == NormalizeEnum(choice)) return std::optional<size_t>(index);
    if (index > 0) expected += index + 1 == choices.size() ? " or " : ", ";
    expected += choice;
    ++index;
  }
  return Status::InvalidInput(fmt::format("'{}' must be {}, not '{}'", field, expected, *value));
}

Result<catalog::ObjectId> SplitId(const std::string& segment, const std::string& delimiter) {
  catalog::ObjectId id;
  if (segment.empty() || segment == delimiter) return id;
  if (delimiter.empty()) return Status::InvalidInput("'delimiter' must not be empty");
  size_t start = 0;
  while (true) {
    size_t pos = segment.find(delimiter, start);
    std::string part =
        segment.substr(start, pos == std::string::npos ? std::string::npos : pos - start);
    if (part.empty()) {
      return Status::InvalidInput(
          fmt::format("identifier '{}' has an empty element (delimiter '{}')", segment, delimiter));
    }
    id.push_back(std::move(part));
    if (pos == std::string::npos) break;
    start = pos + delimiter.size();
  }
  return id;
}

std::optional<std::string> Call::Query(const std::string& name) const {
  auto it = http->query.find(name);
  if (it == http->query.end()) return std::nullopt;
  return it->second;
}

Result<std::optional<bool>> Call::QueryBool(const std::string& name) const {
  auto v = Query(name);
  if (!v) return std::optional<bool>();
  std::string s = NormalizeEnum(*v);
  if (s == "true" || s == "1") return std::optional<bool>(true);
  if (s == "false" || s == "0") return std::optional<bool>(false);
  return Status::InvalidInput(
      fmt::format("query parameter '{}' must be true or false, not '{}'", name, *v));
}

Result<std::optional<int64_t>> Call::QueryInt(const std::string& name) const {
  auto v = Query(name);
  if (!v || v->empty()) return std::optional<int64_t>();
  int64_t out = 0;
  auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || ptr != v->data() + v->size()) {
    return Status::InvalidInput(
        fmt::format("query parameter '{}' must be an integer, not '{}'", name, *v));
  }
  return std::optional<int64_t>(out);
}

namespace {
const json* Field(const json& body, const std::string& name) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return nullptr;
  return &*it;
}
}  // namespace

Result<std::optional<std::string>> Call::String(const std::string& name) const {
  const json* f = Field(body, name);
  if (f == nullptr) return std::optional<std::string>();
  if (!f->is_string()) return Status::InvalidInput(fmt::format("'{}' must be a string", name));
  return std::optional<std::string>(f->get<std::string>());
}

Result<std::optional<bool>> Call::Bool(const std::string& name) const {
  const json* f = Field(body, name);
  if (f == nullptr) return std::optional<bool>();
  if (!f->is_boolean()) return Status::InvalidInput(fmt::format("'{}' must be a boolean", name));
  return std::optional<bool>(f->get<bool>());
}

Result<std::optional<int64_t>> Call::Int(const std::string& name) const {
  const json* f = Field(body, name);
  if (f == nullptr) return std::optional<int64_t>();
  if (f->is_number_unsigned()) {
    if (f->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return Status::InvalidInput(fmt::format("'{}' is out of range", name));
    }
    return std::optional<int64_t>(static_cast<int64_t>(f->get<uint64_t>()));
  }
  if (!f->is_number_integer())
    return Status::InvalidInput(fmt::format("'{}' must be an integer", name));
  return std::optional<int64_t>(f->get<int64_t>());
}

Result<std::optional<std::map<std::string, std::string>>> Call::StringMap(
    const std::string& name) const {
  const json* f = Field(body, name);
  if (f == nullptr) return std::optional<std::map<std::string, std::string>>();
  if (!f->is_object())
    return Status::InvalidInput(fmt::format("'{}' must be an object of strings", name));
  std::map<std::string, std::string> out;
  for (auto& [k, v] : f->items()) {
    if (!v.is_string()) {
      return Status::InvalidInput(fmt::format("'{}.{}' must be a string", name, k));
    }
    out[k] = v.get<std::string>();
  }
  return std::optional<std::map<std::string, std::string>>(std::move(out));
}

Result<std::optional<std::vector<std::string>>> Call::StringList(const std::string& name) const {
  const json* f = Field(body, name);
  if (f == nullptr) return std::optional<std::vector<std::string>>();
  if (!f->is_array())
    return Status::InvalidInput(fmt::format("'{}' must be an array of strings", name));
  std::vector<std::string> out;
  for (const json& v : *f) {
    if (!v.is_string())
      return Status::InvalidInput(fmt::format("'{}' must be an array of strings", name));
    out.push_back(v.get<std::string>());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<std::string> Call::RequiredString(const std::string& name) const {
  QV_ASSIGN_OR_RETURN(auto v, String(name));
  if (!v) return Status::InvalidInput(fmt::format("'{}' is required", name));
  return std::move(*v);
}

Result<int64_t> Call::RequiredInt(const std::string& name) const {
  QV_ASSIGN_OR_RETURN(auto v, Int(name));
  if (!v) return Status::InvalidInput(fmt::format("'{}' is required", name));
  return *v;
}

Result<std::optional<bool>> Call::BoolParam(const std::string& name) const {
  QV_ASSIGN_OR_RETURN(auto q, QueryBool(name));
  if (q) return q;
  return Bool(name);
}

Result<std::optional<std::string>> Call::StringParam(const std::string& name) const {
  auto q = Query(name);
  if (q) return std::optional<std::string>(*q);
  return String(name);
}

Principal HeaderPrincipal(const HttpRequest& http) {
  const std::string& api_key = http.Header("x-api-key");
  const std::string& authorization = http.Header("authorization");
  if (!api_key.empty()) return {Principal::Kind::kApiKey, api_key};
  if (authorization.size() > 7 && (authorization.compare(0, 7, "Bearer ") == 0 ||
                                   authorization.compare(0, 7, "bearer ") == 0)) {
    return {Principal::Kind::kBearer, authorization.substr(7)};
  }
  return {};
}

Result<Call> ParseCall(const HttpRequest& http, const RouteMatch& match, std::string request_id) {
  Call call;
  call.http = &http;
  call.op = match.op;
  call.request_id = std::move(request_id);
  call.dialect = DetectDialect(http);
  if (auto d = http.query.find("delimiter"); d != http.query.end()) {
    if (d->second.empty()) return Status::InvalidInput("'delimiter' must not be empty");
    call.delimiter = d->second;
  }
  call.index_name = match.index_name;
  if (match.id) {
    QV_ASSIGN_OR_RETURN(call.id, SplitId(*match.id, call.delimiter));
  }

  // Identity: headers win over the body.
  call.principal = HeaderPrincipal(http);
  for (const auto& [name, value] : http.headers) {
    if (name.rfind("x-lance-ctx-", 0) == 0) call.context[name.substr(12)] = value;
  }

  if (match.op->body != BodyKind::kJson) return call;
  std::string_view body = http.body;
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.front())))
    body.remove_prefix(1);
  while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back())))
    body.remove_suffix(1);
  if (body.empty() || body == "null") return call;
  // Bounded depth (a deep value would overflow the stack of whatever walks it later) and no
  // repeated keys (two `id` fields are ambiguous): common/json.h.
  auto parsed_body = ParseJson(body);
  if (!parsed_body.ok()) {
    return Status::InvalidInput(
        fmt::format("the request body is not accepted: {}", parsed_body.status().message()));
  }
  json parsed = std::move(*parsed_body);
  if (!parsed.is_object()) {
    return Status::InvalidInput(
        fmt::format("the request body must be a JSON object, not {}", parsed.type_name()));
  }
  call.body = std::move(parsed);
  // A map-bodied operation carries no request model fields.
  if (match.op->name == "UpdateTableSchemaMetadata") return call;

  if (auto it = call.body.find("id"); it != call.body.end() && !it->is_null()) {
    if (!it->is_array() ||
        !std::all_of(it->begin(), it->end(), [](const json& v) { return v.is_string(); })) {
      return Status::InvalidInput("'id' must be an array of strings");
    }
    catalog::ObjectId body_id = it->get<catalog::ObjectId>();
    if (match.id && body_id != call.id) {
      return Status::InvalidInput(fmt::format("the body id [{}] does not match the path id [{}]",
                                              fmt::join(body_id, ", "), fmt::join(call.id, ", ")));
    }
    if (!match.id) call.id = std::move(body_id);
  }
  if (auto it = call.body.find("identity"); it != call.body.end() && it->is_object() &&
                                            call.principal.kind == Principal::Kind::kAnonymous) {
    if (auto k = it->find("api_key");
        k != it->end() && k->is_string() && !k->get<std::string>().empty()) {
      call.principal = {Principal::Kind::kApiKey, k->get<std::string>()};
    } else if (auto t = it->find("auth_token");
               t != it->end() && t->is_string() && !t->get<std::string>().empty()) {
      call.principal = {Principal::Kind::kBearer, t->get<std::string>()};
    }
  }
  if (auto it = call.body.find("context"); it != call.body.end() && it->is_object()) {
    for (auto& [k, v] : it->items()) {
      if (v.is_string()) call.context[k] = v.get<std::string>();
    }
  }
  return call;
}

}  // namespace quiver::server
