#include "common/config.h"

#include <cctype>
#include <chrono>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>
#include <nlohmann/json.hpp>

#include "common/json.h"
#include "common/numbers.h"

extern char** environ;

namespace quiver {

const std::vector<ConfigOption>& ConfigOptions() {
  static const std::vector<ConfigOption>* options = new std::vector<ConfigOption>{
      {"root", "--root", "QUIVER_ROOT", "./quiver-data",
       "storage root: a path, file:///abs/path or memory://name"},
      {"listen", "--listen", "QUIVER_LISTEN", "127.0.0.1:2333", "address to serve on, HOST:PORT"},
      {"log_level", "--log-level", "QUIVER_LOG_LEVEL", "info", "debug, info, warn, error or off"},
      {"log_format", "--log-format", "QUIVER_LOG_FORMAT", "text",
       "text (readable) or json (JSON Lines)"},
      {"managed_versioning", "--managed-versioning", "QUIVER_MANAGED_VERSIONING", "false",
       "true: the catalog is the commit authority for every table (CreateTableVersion)"},
      {"workers", "--workers", "QUIVER_WORKERS", "0",
       "request-handling threads; 0 = 4 per core (handlers wait on storage)"},
      {"max_header_bytes", "--max-header-bytes", "QUIVER_MAX_HEADER_BYTES", "16384",
       "largest request header accepted; larger ones get 413"},
      {"max_body_bytes", "--max-body-bytes", "QUIVER_MAX_BODY_BYTES", "268435456",
       "largest request body read whole (MergeInsertIntoTable's Arrow source); larger ones get "
       "413"},
      {"max_streamed_body_bytes", "--max-streamed-body-bytes", "QUIVER_MAX_STREAMED_BODY_BYTES",
       "68719476736",
       "largest CreateTable / InsertIntoTable body; these stream into data files as they "
       "arrive (never held whole), larger ones get 413 and nothing is committed"},
      {"max_json_body_bytes", "--max-json-body-bytes", "QUIVER_MAX_JSON_BODY_BYTES", "8388608",
       "largest JSON request body accepted (every operation but CreateTable, InsertIntoTable "
       "and MergeInsertIntoTable); larger ones get 413"},
      {"max_unauthenticated_body_bytes", "--max-unauthenticated-body-bytes",
       "QUIVER_MAX_UNAUTHENTICATED_BODY_BYTES", "65536",
       "with auth on, the largest body read from a request that has no x-api-key or "
       "Authorization header (its body `identity` is read from it); larger ones get 401"},
      {"max_inflight_body_bytes", "--max-inflight-body-bytes", "QUIVER_MAX_INFLIGHT_BODY_BYTES",
       "1073741824",
       "request body bytes being received and handled at once, server-wide (a chunked body "
       "counts 1 MiB ahead of what has arrived; unauthenticated ones share a quarter); a "
       "request over it gets 503 with Retry-After"},
      {"max_connections", "--max-connections", "QUIVER_MAX_CONNECTIONS", "0",
       "open connections served at once (more wait to be accepted); 0 = the descriptor limit "
       "(RLIMIT_NOFILE) less a quarter (at least 64) kept for storage files"},
      {"read_timeout_ms", "--read-timeout-ms", "QUIVER_READ_TIMEOUT_MS", "30000",
       "time allowed to receive a request (and to idle on a keep-alive connection)"},
      {"write_timeout_ms", "--write-timeout-ms", "QUIVER_WRITE_TIMEOUT_MS", "30000",
       "time allowed to send a response"},
      {"auth", "--auth", "QUIVER_AUTH", "false",
       "true: every request must authenticate (x-api-key or Authorization: Bearer) and is "
       "authorized against the grants"},
      {"admins", "--admins", "QUIVER_ADMINS", "",
       "comma-separated server-admin principals, e.g. user:ops (they may create projects)"},
      {"jwks_file", "--jwks-file", "QUIVER_JWKS_FILE", "",
       "bearer JWTs (RS256/ES256) are verified against this JWKS file"},
      {"jwks_url", "--jwks-url", "QUIVER_JWKS_URL", "",
       "... or against the JWKS served at this URL: https://HOST/... (an OIDC issuer's jwks_uri), "
       "or plain http on the loopback interface only"},
      {"jwks_ca_file", "--jwks-ca-file", "QUIVER_JWKS_CA_FILE", "",
       "PEM CA certificates trusted for an https jwks_url (default: the system's CA store)"},
      {"jwt_issuer", "--jwt-issuer", "QUIVER_JWT_ISSUER", "", "required JWT `iss` (when set)"},
      {"jwt_audience", "--jwt-audience", "QUIVER_JWT_AUDIENCE", "",
       "required JWT `aud` (when set)"},
      {"authz_refresh_ms", "--authz-refresh-ms", "QUIVER_AUTHZ_REFRESH_MS", "1000",
       "how often grant changes made by other servers on the same root are read in"},
  };
  return *options;
}

Result<std::pair<std::string, uint16_t>> ParseListenAddress(std::string_view listen) {
  std::string_view host;
  std::string_view port;
  if (!listen.empty() && listen.front() == '[') {
    size_t close = listen.find(']');
    if (close == std::string_view::npos || close + 1 >= listen.size() || listen[close + 1] != ':') {
      return Status::InvalidInput(fmt::format("listen address '{}' is not [IPV6]:PORT", listen));
    }
    host = listen.substr(1, close - 1);
    port = listen.substr(close + 2);
  } else {
    size_t colon = listen.rfind(':');
    if (colon == std::string_view::npos) {
      return Status::InvalidInput(fmt::format("listen address '{}' is not HOST:PORT", listen));
    }
    host = listen.substr(0, colon);
    port = listen.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return Status::InvalidInput(fmt::format(
          "listen address '{}': write an IPv6 host in brackets, as [::1]:2333", listen));
    }
  }
  auto value = ParseUint64(port, 0, 65535);
  if (host.empty() || !value.ok()) {
    return Status::InvalidInput(
        fmt::format("listen address '{}' needs a host and a port 0-65535", listen));
  }
  return std::make_pair(std::string(host), static_cast<uint16_t>(*value));
}

namespace {

// Settings taken as given.
const std::map<std::string_view, std::string Config::*> kTextSettings = {
    {"admins", &Config::admins},         {"jwks_file", &Config::jwks_file},
    {"jwks_url", &Config::jwks_url},     {"jwks_ca_file", &Config::jwks_ca_file},
    {"jwt_issuer", &Config::jwt_issuer}, {"jwt_audience", &Config::jwt_audience}};

// Integer settings and their ranges. The upper bounds are those of the consumers: the HTTP
// parser's header limit is a uint32, and a timeout or interval must stay a valid
// std::chrono::milliseconds after it is added to a clock reading (kMaxDuration).
struct IntegerSetting {
  uint64_t Config::*field;
  uint64_t min;
  uint64_t max;
};
constexpr uint64_t kMaxMillis = static_cast<uint64_t>(
    std::chrono::duration_cast<std::chrono::milliseconds>(kMaxDuration).count());
const std::map<std::string_view, IntegerSetting> kIntegerSettings = {
    {"max_header_bytes", {&Config::max_header_bytes, 1, std::numeric_limits<uint32_t>::max()}},
    {"max_body_bytes", {&Config::max_body_bytes, 1, std::numeric_limits<uint64_t>::max()}},
    {"max_streamed_body_bytes",
     {&Config::max_streamed_body_bytes, 1, std::numeric_limits<uint64_t>::max()}},
    {"max_json_body_bytes",
     {&Config::max_json_body_bytes, 1, std::numeric_limits<uint64_t>::max()}},
    {"max_unauthenticated_body_bytes",
     {&Config::max_unauthenticated_body_bytes, 1, std::numeric_limits<uint64_t>::max()}},
    {"max_inflight_body_bytes",
     {&Config::max_inflight_body_bytes, 1, std::numeric_limits<uint64_t>::max()}},
    // 0: derived from the descriptor limit.
    {"max_connections", {&Config::max_connections, 0, uint64_t{1} << 24}},
    {"read_timeout_ms", {&Config::read_timeout_ms, 1, kMaxMillis}},
    {"write_timeout_ms", {&Config::write_timeout_ms, 1, kMaxMillis}},
    // 0: read other servers' changes on every request.
    {"authz_refresh_ms", {&Config::authz_refresh_ms, 0, kMaxMillis}}};
constexpr uint64_t kMaxWorkers = 1024;

}  // namespace

Status SetConfigValue(Config& config, std::string_view key, std::string_view value,
                      std::string_view source) {
  auto bad = [&](const Status& s) {
    return Status::InvalidInput(fmt::format("{} ({}): {}", key, source, s.message()));
  };
  if (key == "root") {
    if (value.empty()) return Status::InvalidInput(fmt::format("root ({}) is empty", source));
    config.root = std::string(value);
  } else if (key == "listen") {
    auto parsed = ParseListenAddress(value);
    if (!parsed.ok()) return bad(parsed.status());
    config.listen = std::string(value);
  } else if (key == "log_level") {
    auto parsed = ParseLogLevel(value);
    if (!parsed.ok()) return bad(parsed.status());
    config.log_level = *parsed;
  } else if (key == "log_format") {
    auto parsed = ParseLogFormat(value);
    if (!parsed.ok()) return bad(parsed.status());
    config.log_format = *parsed;
  } else if (key == "managed_versioning" || key == "auth") {
    bool& target = key == "auth" ? config.auth : config.managed_versioning;
    std::string v(value);
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v == "true" || v == "1" || v == "yes" || v == "on") {
      target = true;
    } else if (v == "false" || v == "0" || v == "no" || v == "off") {
      target = false;
    } else {
      return Status::InvalidInput(
          fmt::format("{} ({}): '{}' is not true or false", key, source, value));
    }
  } else if (auto text = kTextSettings.find(key); text != kTextSettings.end()) {
    config.*(text->second) = std::string(value);
  } else if (key == "workers") {
    auto n = ParseUint64(value, 0, kMaxWorkers);
    if (!n.ok()) return bad(n.status());
    config.workers = static_cast<int>(*n);
  } else if (auto integer = kIntegerSettings.find(key); integer != kIntegerSettings.end()) {
    auto n = ParseUint64(value, integer->second.min, integer->second.max);
    if (!n.ok()) return bad(n.status());
    config.*(integer->second.field) = *n;
  } else {
    std::string known;
    for (const ConfigOption& o : ConfigOptions()) {
      known += known.empty() ? "" : ", ";
      known += o.key;
    }
    return Status::InvalidInput(
        fmt::format("unknown setting '{}' ({}); known settings: {}", key, source, known));
  }
  return Status::OK();
}

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidInput(fmt::format("cannot open config file '{}'", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status ApplyToml(Config& config, const std::string& path, const std::string& text) {
  // toml++ reports parse errors by exception here; it never leaves this function.
  toml::table table;
  try {
    table = toml::parse(text, path);
  } catch (const toml::parse_error& err) {
    return Status::InvalidInput(fmt::format("config file '{}' line {}: {}", path,
                                            err.source().begin.line, err.description()));
  }
  for (const auto& [k, node] : table) {
    std::string value;
    if (auto s = node.value<std::string>()) {
      value = *s;
    } else if (auto i = node.value<int64_t>()) {
      value = std::to_string(*i);
    } else if (auto b = node.value<bool>()) {
      value = *b ? "true" : "false";
    } else {
      return Status::InvalidInput(
          fmt::format("config file '{}': setting '{}' must be a string, "
                      "integer or boolean",
                      path, k.str()));
    }
    QV_RETURN_IF_ERROR(SetConfigValue(config, k.str(), value, "file " + path));
  }
  return Status::OK();
}

Status ApplyJson(Config& config, const std::string& path, const std::string& text) {
  // Duplicate keys are refused (as toml++ refuses them): a repeated "auth" must not silently
  // mean its last value.
  auto parsed = ParseJson(text);
  if (!parsed.ok()) {
    return Status::InvalidInput(
        fmt::format("config file '{}': {}", path, parsed.status().message()));
  }
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) {
    return Status::InvalidInput(fmt::format("config file '{}' must hold a JSON object", path));
  }
  for (const auto& [k, v] : j.items()) {
    std::string value;
    if (v.is_string()) {
      value = v.get<std::string>();
    } else if (v.is_number_integer() || v.is_boolean()) {
      value = v.dump();
    } else {
      return Status::InvalidInput(fmt::format(
          "config file '{}': setting '{}' must be a string, integer or boolean", path, k));
    }
    QV_RETURN_IF_ERROR(SetConfigValue(config, k, value, "file " + path));
  }
  return Status::OK();
}

}  // namespace

Status ApplyConfigFile(Config& config, const std::string& path) {
  const bool toml = EndsWith(path, ".toml");
  if (!toml && !EndsWith(path, ".json")) {
    return Status::InvalidInput(fmt::format("config file '{}' must end in .toml or .json", path));
  }
  QV_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return toml ? ApplyToml(config, path, text) : ApplyJson(config, path, text);
}

Status ApplyConfigEnv(Config& config, const std::map<std::string, std::string>& env) {
  for (const ConfigOption& o : ConfigOptions()) {
    auto it = env.find(std::string(o.env));
    if (it == env.end()) continue;
    QV_RETURN_IF_ERROR(SetConfigValue(config, o.key, it->second, "env " + std::string(o.env)));
  }
  return Status::OK();
}

Result<Config> LoadConfig(const ConfigSources& sources) {
  Config config;
  std::optional<std::string> file = sources.file;
  if (!file) {
    auto it = sources.env.find(std::string(kConfigFileEnv));
    if (it != sources.env.end() && !it->second.empty()) file = it->second;
  }
  if (file) QV_RETURN_IF_ERROR(ApplyConfigFile(config, *file));
  QV_RETURN_IF_ERROR(ApplyConfigEnv(config, sources.env));
  for (const auto& [key, value] : sources.flags) {
    QV_RETURN_IF_ERROR(SetConfigValue(config, key, value, "flag"));
  }
  return config;
}

std::map<std::string, std::string> QuiverEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    if (kv.substr(0, 7) != "QUIVER_") continue;
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

}  // namespace quiver
