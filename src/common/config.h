// Config: quiver's process configuration, and the loader that layers its sources.
//
// Precedence (later wins): built-in defaults < config file (TOML or JSON, chosen by extension)
// < environment (QUIVER_<KEY>) < command-line flags (--<key-with-dashes>). Every setting is
// declared once in ConfigOptions(), which the CLI uses to generate its flags and help text, so a
// setting cannot exist in one source and be missing from another.
//
// Thread-safety: Config is a plain value. The loader functions are pure apart from reading the
// file they are given.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/logging.h"
#include "common/result.h"

namespace quiver {

struct Config {
  std::string root = "./quiver-data";  // storage root URI or path
  std::string listen = "127.0.0.1:2333";
  LogLevel log_level = LogLevel::kInfo;
  LogFormat log_format = LogFormat::kText;
  bool managed_versioning = false;  // the catalog commits every table's versions
  int workers = 0;                  // request threads; 0 = 4 per core
  uint64_t max_header_bytes = 16 * 1024;
  uint64_t max_body_bytes = 256ull * 1024 * 1024;       // a body read whole (merge-insert's)
  uint64_t max_streamed_body_bytes = 64ull << 30;       // CreateTable / InsertIntoTable bodies
  uint64_t max_json_body_bytes = 8ull * 1024 * 1024;    // a JSON body (every other operation)
  uint64_t max_unauthenticated_body_bytes = 64 * 1024;  // with auth on and no header credential
  uint64_t max_inflight_body_bytes = 1ull << 30;        // all bodies being received at once
  uint64_t max_connections = 0;  // open connections; 0 = from RLIMIT_NOFILE, less headroom
  uint64_t read_timeout_ms = 30'000;
  uint64_t write_timeout_ms = 30'000;
  // Identity and authorization (docs/authorization.md).
  bool auth = false;         // every request authenticates and is authorized
  std::string admins;        // comma-separated server-admin principals ("user:ops,user:sre")
  std::string jwks_file;     // bearer JWTs: the key set, from a file ...
  std::string jwks_url;      // ... or a URL (https; http on loopback only)
  std::string jwks_ca_file;  // https jwks_url: PEM CA certificates to trust (default: system's)
  std::string jwt_issuer;    // required `iss` when set
  std::string jwt_audience;  // required `aud` when set
  uint64_t authz_refresh_ms = 1000;  // how stale another server's grant changes may be seen
};

// One declared setting.
struct ConfigOption {
  std::string_view key;            // "log_level": the file key
  std::string_view flag;           // "--log-level"
  std::string_view env;            // "QUIVER_LOG_LEVEL"
  std::string_view default_value;  // as text
  std::string_view help;
};

const std::vector<ConfigOption>& ConfigOptions();

// The environment variable naming a config file when --config is not given.
inline constexpr std::string_view kConfigFileEnv = "QUIVER_CONFIG";

struct ConfigSources {
  std::optional<std::string> file;           // path of a .toml or .json file
  std::map<std::string, std::string> env;    // QUIVER_* variables (others are ignored)
  std::map<std::string, std::string> flags;  // key (file-key spelling) -> value
};

// Sets one setting by its file key. InvalidInput names the key, the bad value and `source`.
Status SetConfigValue(Config& config, std::string_view key, std::string_view value,
                      std::string_view source);
// Applies a TOML (.toml) or JSON (.json) file; unknown keys are errors (typos must not be
// silently ignored).
Status ApplyConfigFile(Config& config, const std::string& path);
// Applies every QUIVER_<KEY> variable that names a declared setting.
Status ApplyConfigEnv(Config& config, const std::map<std::string, std::string>& env);
// Defaults, then file, env and flags in that order.
Result<Config> LoadConfig(const ConfigSources& sources);

// The QUIVER_* variables of this process.
std::map<std::string, std::string> QuiverEnvironment();

// Splits "host:port" (IPv6 as "[::1]:2333"); InvalidInput unless the port is 0-65535.
Result<std::pair<std::string, uint16_t>> ParseListenAddress(std::string_view listen);

}  // namespace quiver
