#include "common/config.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace quiver {
namespace {

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// A fresh temporary directory per test, removed afterwards.
class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/quiver-config-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

  std::string Write(const std::string& name, const std::string& contents) {
    std::string path = dir_ + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << contents;
    out.close();
    EXPECT_TRUE(out.good()) << "writing " << path;
    return path;
  }

  std::string dir_;
};

TEST(ConfigTest, Defaults) {
  Config c;
  EXPECT_EQ(c.root, "./quiver-data");
  EXPECT_EQ(c.listen, "127.0.0.1:2333");
  EXPECT_EQ(c.log_level, LogLevel::kInfo);
  EXPECT_EQ(c.log_format, LogFormat::kText);

  Result<Config> loaded = LoadConfig(ConfigSources{});
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->root, "./quiver-data");
  EXPECT_EQ(loaded->listen, "127.0.0.1:2333");
  EXPECT_EQ(loaded->log_level, LogLevel::kInfo);
  EXPECT_EQ(loaded->log_format, LogFormat::kText);
}

TEST(ConfigTest, OptionsAreDeclaredConsistently) {
  const std::vector<ConfigOption>& options = ConfigOptions();
  std::set<std::string> keys;
  for (const ConfigOption& o : options) {
    keys.emplace(o.key);
    std::string env = "QUIVER_";
    std::string flag = "--";
    for (char c : o.key) {
      env += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      flag += c == '_' ? '-' : c;
    }
    EXPECT_EQ(o.env, env) << o.key;
    EXPECT_EQ(o.flag, flag) << o.key;
    EXPECT_FALSE(o.help.empty()) << o.key;
  }
  EXPECT_EQ(keys, (std::set<std::string>{"root",
                                         "listen",
                                         "log_level",
                                         "log_format",
                                         "managed_versioning",
                                         "workers",
                                         "max_header_bytes",
                                         "max_body_bytes",
                                         "max_streamed_body_bytes",
                                         "max_json_body_bytes",
                                         "max_unauthenticated_body_bytes",
                                         "max_inflight_body_bytes",
                                         "max_connections",
                                         "read_timeout_ms",
                                         "write_timeout_ms",
                                         "auth",
                                         "admins",
                                         "jwks_file",
                                         "jwks_url",
                                         "jwks_ca_file",
                                         "jwt_issuer",
                                         "jwt_audience",
                                         "authz_refresh_ms"}));
  EXPECT_EQ(keys.size(), options.size()) << "duplicate key";
}

TEST(ConfigTest, DeclaredDefaultsMatchConfigDefaults) {
  Config from_text;
  from_text.root = "x";
  from_text.listen = "h:1";
  from_text.log_level = LogLevel::kError;
  from_text.log_format = LogFormat::kJson;
  from_text.managed_versioning = true;
  from_text.workers = 3;
  from_text.max_header_bytes = 1;
  from_text.max_body_bytes = 1;
  from_text.max_streamed_body_bytes = 1;
  from_text.max_json_body_bytes = 1;
  from_text.max_unauthenticated_body_bytes = 1;
  from_text.max_inflight_body_bytes = 1;
  from_text.max_connections = 1;
  from_text.read_timeout_ms = 1;
  from_text.write_timeout_ms = 1;
  for (const ConfigOption& o : ConfigOptions()) {
    Status s = SetConfigValue(from_text, o.key, o.default_value, "default");
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  Config defaults;
  EXPECT_EQ(from_text.root, defaults.root);
  EXPECT_EQ(from_text.listen, defaults.listen);
  EXPECT_EQ(from_text.log_level, defaults.log_level);
  EXPECT_EQ(from_text.log_format, defaults.log_format);
  EXPECT_EQ(from_text.managed_versioning, defaults.managed_versioning);
  EXPECT_EQ(from_text.workers, defaults.workers);
  EXPECT_EQ(from_text.max_header_bytes, defaults.max_header_bytes);
  EXPECT_EQ(from_text.max_body_bytes, defaults.max_body_bytes);
  EXPECT_EQ(from_text.max_streamed_body_bytes, defaults.max_streamed_body_bytes);
  EXPECT_EQ(from_text.max_json_body_bytes, defaults.max_json_body_bytes);
  EXPECT_EQ(from_text.max_unauthenticated_body_bytes, defaults.max_unauthenticated_body_bytes);
  EXPECT_EQ(from_text.max_inflight_body_bytes, defaults.max_inflight_body_bytes);
  EXPECT_EQ(from_text.max_connections, defaults.max_connections);
  EXPECT_EQ(from_text.read_timeout_ms, defaults.read_timeout_ms);
  EXPECT_EQ(from_text.write_timeout_ms, defaults.write_timeout_ms);
}

TEST(ConfigTest, ServerSettingsParseAndRejectNonsense) {
  Config c;
  for (std::string v : {"true", "on", "1", "YES"}) {
    c.managed_versioning = false;
    ASSERT_TRUE(SetConfigValue(c, "managed_versioning", v, "test").ok()) << v;
    EXPECT_TRUE(c.managed_versioning) << v;
  }
  ASSERT_TRUE(SetConfigValue(c, "managed_versioning", "off", "test").ok());
  EXPECT_FALSE(c.managed_versioning);
  EXPECT_EQ(SetConfigValue(c, "managed_versioning", "maybe", "test").code(),
            StatusCode::kInvalidInput);
  ASSERT_TRUE(SetConfigValue(c, "workers", "16", "test").ok());
  EXPECT_EQ(c.workers, 16);
  ASSERT_TRUE(SetConfigValue(c, "max_body_bytes", "1048576", "test").ok());
  EXPECT_EQ(c.max_body_bytes, 1048576u);
  ASSERT_TRUE(SetConfigValue(c, "max_json_body_bytes", "4096", "test").ok());
  EXPECT_EQ(c.max_json_body_bytes, 4096u);
  ASSERT_TRUE(SetConfigValue(c, "max_unauthenticated_body_bytes", "1024", "test").ok());
  EXPECT_EQ(c.max_unauthenticated_body_bytes, 1024u);
  ASSERT_TRUE(SetConfigValue(c, "max_inflight_body_bytes", "2097152", "test").ok());
  EXPECT_EQ(c.max_inflight_body_bytes, 2097152u);
  ASSERT_TRUE(SetConfigValue(c, "max_connections", "0", "test").ok());  // 0: derived
  EXPECT_EQ(c.max_connections, 0u);
  ASSERT_TRUE(SetConfigValue(c, "max_connections", "100", "test").ok());
  EXPECT_EQ(c.max_connections, 100u);
  for (auto [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"workers", "-1"},
                                                        {"workers", "99999"},
                                                        {"max_body_bytes", "0"},
                                                        {"max_json_body_bytes", "0"},
                                                        {"max_inflight_body_bytes", "-5"},
                                                        {"max_connections", "many"},
                                                        {"read_timeout_ms", "soon"},
                                                        {"write_timeout_ms", ""},
                                                        {"max_header_bytes", "12k"}}) {
    Status s = SetConfigValue(c, key, value, "flag");
    EXPECT_EQ(s.code(), StatusCode::kInvalidInput) << key << "=" << value;
    EXPECT_NE(s.message().find(key), std::string::npos) << s.message();
  }
}

TEST(ConfigTest, SetConfigValueSetsEachKey) {
  Config c;
  ASSERT_TRUE(SetConfigValue(c, "root", "file:///srv/q", "test").ok());
  ASSERT_TRUE(SetConfigValue(c, "listen", "[::1]:8080", "test").ok());
  ASSERT_TRUE(SetConfigValue(c, "log_level", "error", "test").ok());
  ASSERT_TRUE(SetConfigValue(c, "log_format", "json", "test").ok());
  EXPECT_EQ(c.root, "file:///srv/q");
  EXPECT_EQ(c.listen, "[::1]:8080");
  EXPECT_EQ(c.log_level, LogLevel::kError);
  EXPECT_EQ(c.log_format, LogFormat::kJson);
}

TEST(ConfigTest, SetConfigValueUnknownKeyListsKnownKeys) {
  Config c;
  Status s = SetConfigValue(c, "log_levle", "debug", "file x.toml");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidInput());
  EXPECT_TRUE(Contains(s.message(), "log_levle")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "file x.toml")) << s.message();
  for (const ConfigOption& o : ConfigOptions()) {
    EXPECT_TRUE(Contains(s.message(), o.key)) << s.message();
  }
  // Keys use the file spelling, not the flag spelling.
  EXPECT_FALSE(SetConfigValue(c, "log-level", "debug", "flag").ok());
  EXPECT_FALSE(SetConfigValue(c, "LOG_LEVEL", "debug", "flag").ok());
}

TEST(ConfigTest, SetConfigValueBadValues) {
  Config c;
  struct Case {
    std::string_view key;
    std::string_view value;
  };
  for (const Case& bad : {Case{"root", ""}, Case{"listen", "noport"}, Case{"listen", "h:70000"},
                          Case{"log_level", "loud"}, Case{"log_format", "xml"}}) {
    Status s = SetConfigValue(c, bad.key, bad.value, "env QUIVER_X");
    ASSERT_FALSE(s.ok()) << bad.key << "=" << bad.value;
    EXPECT_TRUE(s.IsInvalidInput());
    EXPECT_TRUE(Contains(s.message(), bad.key)) << s.message();
    EXPECT_TRUE(Contains(s.message(), "env QUIVER_X")) << s.message();
    if (!bad.value.empty()) {
      EXPECT_TRUE(Contains(s.message(), bad.value)) << s.message();
    }
  }
  // Failed sets leave the config untouched.
  Config defaults;
  EXPECT_EQ(c.root, defaults.root);
  EXPECT_EQ(c.listen, defaults.listen);
  EXPECT_EQ(c.log_level, defaults.log_level);
  EXPECT_EQ(c.log_format, defaults.log_format);
}

TEST_F(ConfigFileTest, TomlFile) {
  std::string path = Write("quiver.toml",
                           "# quiver settings\n"
                           "root = \"/data/quiver\"\n"
                           "listen = \"0.0.0.0:9000\"\n"
                           "log_level = \"debug\"\n"
                           "log_format = \"json\"\n");
  Config c;
  Status s = ApplyConfigFile(c, path);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.root, "/data/quiver");
  EXPECT_EQ(c.listen, "0.0.0.0:9000");
  EXPECT_EQ(c.log_level, LogLevel::kDebug);
  EXPECT_EQ(c.log_format, LogFormat::kJson);
}

TEST_F(ConfigFileTest, PartialFileKeepsOtherDefaults) {
  std::string path = Write("partial.toml", "log_level = \"warn\"\n");
  Config c;
  ASSERT_TRUE(ApplyConfigFile(c, path).ok());
  EXPECT_EQ(c.log_level, LogLevel::kWarn);
  EXPECT_EQ(c.root, Config().root);
  EXPECT_EQ(c.listen, Config().listen);
}

TEST_F(ConfigFileTest, JsonFile) {
  std::string path = Write("quiver.json",
                           R"({"root": "memory://t", "listen": "[::1]:80",
                               "log_level": "error", "log_format": "json"})");
  Config c;
  Status s = ApplyConfigFile(c, path);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.root, "memory://t");
  EXPECT_EQ(c.listen, "[::1]:80");
  EXPECT_EQ(c.log_level, LogLevel::kError);
  EXPECT_EQ(c.log_format, LogFormat::kJson);
}

TEST_F(ConfigFileTest, UnknownKeyInTomlIsAnError) {
  std::string path = Write("typo.toml", "root = \"/x\"\nlog_levle = \"debug\"\n");
  Config c;
  Status s = ApplyConfigFile(c, path);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidInput());
  EXPECT_TRUE(Contains(s.message(), "log_levle")) << s.message();
  EXPECT_TRUE(Contains(s.message(), path)) << s.message();
}

TEST_F(ConfigFileTest, UnknownKeyInJsonIsAnError) {
  std::string path = Write("typo.json", R"({"colour": "blue"})");
  Config c;
  Status s = ApplyConfigFile(c, path);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.message(), "colour")) << s.message();
}

TEST_F(ConfigFileTest, BadTomlSyntaxNamesLine) {
  std::string path = Write("bad.toml",
                           "root = \"/x\"\n"
                           "listen = \"h:1\"\n"
                           "log_level = = \"debug\"\n");
  Config c;
  Status s = ApplyConfigFile(c, path);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidInput());
  EXPECT_TRUE(Contains(s.message(), "line 3")) << s.message();
  EXPECT_TRUE(Contains(s.message(), path)) << s.message();
}

TEST_F(ConfigFileTest, BadValueInFileNamesFile) {
  std::string path = Write("bad_value.toml", "log_format = \"xml\"\n");
  Config c;
  Status s = ApplyConfigFile(c, path);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.message(), "log_format")) << s.message();
  EXPECT_TRUE(Contains(s.message(), path)) << s.message();
}

TEST_F(ConfigFileTest, TomlNonScalarValueIsAnError) {
  std::string path = Write("nested.toml", "[server]\nlisten = \"h:1\"\n");
  Config c;
  EXPECT_FALSE(ApplyConfigFile(c, path).ok());
  std::string array = Write("array.toml", "root = [\"a\", \"b\"]\n");
  EXPECT_FALSE(ApplyConfigFile(c, array).ok());
}

TEST_F(ConfigFileTest, BadJson) {
  Config c;
  Status syntax = ApplyConfigFile(c, Write("syntax.json", R"({"root": "x",})"));
  ASSERT_FALSE(syntax.ok());
  EXPECT_TRUE(syntax.IsInvalidInput());
  Status not_object = ApplyConfigFile(c, Write("array.json", R"(["root", "x"])"));
  ASSERT_FALSE(not_object.ok());
  EXPECT_TRUE(Contains(not_object.message(), "object")) << not_object.message();
  Status nested = ApplyConfigFile(c, Write("nested.json", R"({"root": {"path": "x"}})"));
  EXPECT_FALSE(nested.ok());
  Status fractional = ApplyConfigFile(c, Write("float.json", R"({"root": 1.5})"));
  EXPECT_FALSE(fractional.ok());
  EXPECT_EQ(c.root, Config().root);
}

// A repeated key used to keep its last value: `"auth": true ... "auth": false` served with auth
// off. Refused at any depth, as the TOML reader refuses it, naming the key and the file.
TEST_F(ConfigFileTest, JsonDuplicateKeyIsAnError) {
  Config c;
  std::string path = Write("dup.json", R"({"auth": true, "root": "memory://d", "auth": false})");
  Status s = ApplyConfigFile(c, path);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidInput());
  EXPECT_TRUE(Contains(s.message(), "duplicate key 'auth'")) << s.message();
  EXPECT_TRUE(Contains(s.message(), path)) << s.message();
  EXPECT_FALSE(c.auth);
  EXPECT_EQ(c.root, Config().root);  // nothing applied
  Status nested = ApplyConfigFile(c, Write("dup2.json", R"({"root": {"a": 1, "a": 2}})"));
  ASSERT_FALSE(nested.ok());
  EXPECT_TRUE(Contains(nested.message(), "duplicate key 'a'")) << nested.message();
  // TOML refuses the same (toml++), so the two readers agree.
  Status toml = ApplyConfigFile(c, Write("dup.toml", "auth = true\nauth = false\n"));
  EXPECT_FALSE(toml.ok());
}

TEST_F(ConfigFileTest, JsonNestingIsBounded) {
  Config c;
  std::string deep = "{\"root\": " + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  Status s = ApplyConfigFile(c, Write("deep.json", deep));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Contains(s.message(), "nested deeper than")) << s.message();
}

// Integer settings are range-checked against what consumes them, from every source.
TEST_F(ConfigFileTest, IntegerSettingsAreRangeChecked) {
  struct Case {
    std::string key;
    std::string value;
    std::string_view expect;
  };
  for (const Case& bad : {
           // The HTTP parser's header limit is a uint32: 2^32 used to wrap to 0.
           Case{"max_header_bytes", "4294967296", "out of range (1..4294967295)"},
           Case{"max_header_bytes", "99999999999999999999", "out of range"},
           Case{"max_body_bytes", "18446744073709551616", "out of range"},
           // A timeout is a std::chrono::milliseconds added to a clock reading.
           Case{"read_timeout_ms", "18446744073709551615", "out of range (1..3155760000000)"},
           Case{"write_timeout_ms", "9223372036854775807", "out of range"},
           Case{"authz_refresh_ms", "9223372036854775808", "out of range (0..3155760000000)"},
           Case{"workers", "4294967297", "out of range (0..1024)"},
       }) {
    Config c;
    Status flag = SetConfigValue(c, bad.key, bad.value, "flag");
    ASSERT_FALSE(flag.ok()) << bad.key << "=" << bad.value;
    EXPECT_TRUE(flag.IsInvalidInput());
    EXPECT_TRUE(Contains(flag.message(), bad.key)) << flag.message();
    EXPECT_TRUE(Contains(flag.message(), bad.expect)) << flag.message();
    // The same number in a JSON file (an unsigned or out-of-range JSON integer) and in TOML.
    Status from_json =
        ApplyConfigFile(c, Write("n.json", "{\"" + bad.key + "\": " + bad.value + "}"));
    EXPECT_FALSE(from_json.ok()) << bad.key << "=" << bad.value;
    Status toml = ApplyConfigFile(c, Write("n.toml", bad.key + " = " + bad.value + "\n"));
    EXPECT_FALSE(toml.ok()) << bad.key << "=" << bad.value;
    EXPECT_EQ(c.max_header_bytes, Config().max_header_bytes);
    EXPECT_EQ(c.read_timeout_ms, Config().read_timeout_ms);
  }
  Config c;
  ASSERT_TRUE(SetConfigValue(c, "max_header_bytes", "4294967295", "flag").ok());
  EXPECT_EQ(c.max_header_bytes, 4294967295u);
  ASSERT_TRUE(SetConfigValue(c, "read_timeout_ms", "3155760000000", "flag").ok());
  ASSERT_TRUE(SetConfigValue(c, "authz_refresh_ms", "0", "flag").ok());
}

TEST_F(ConfigFileTest, ExtensionIsCheckedBeforeTheFileIsOpened) {
  Config c;
  Status s = ApplyConfigFile(c, "/nonexistent/quiver.yaml");
  ASSERT_TRUE(s.IsInvalidInput());
  EXPECT_TRUE(Contains(s.message(), "must end in .toml or .json")) << s.message();
}

TEST_F(ConfigFileTest, OtherExtensionIsAnError) {
  std::string path = Write("quiver.yaml", "root: /x\n");
  Config c;
  Status s = ApplyConfigFile(c, path);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidInput());
  EXPECT_TRUE(Contains(s.message(), ".toml")) << s.message();
  EXPECT_TRUE(Contains(s.message(), ".json")) << s.message();
  EXPECT_EQ(c.root, Config().root);
}

TEST_F(ConfigFileTest, MissingFileIsAnError) {
  Config c;
  Status s = ApplyConfigFile(c, dir_ + "/absent.toml");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsInvalidInput());
  EXPECT_TRUE(Contains(s.message(), "absent.toml")) << s.message();
}

TEST_F(ConfigFileTest, PrecedenceFileThenEnvThenFlags) {
  std::string path = Write("p.toml",
                           "root = \"/from/file\"\n"
                           "listen = \"file:1\"\n"
                           "log_level = \"debug\"\n"
                           "log_format = \"json\"\n");
  ConfigSources sources;
  sources.file = path;
  sources.env = {{"QUIVER_LISTEN", "env:2"}, {"QUIVER_LOG_LEVEL", "warn"}};
  sources.flags = {{"log_level", "error"}};
  Result<Config> c = LoadConfig(sources);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->root, "/from/file");            // file only
  EXPECT_EQ(c->listen, "env:2");               // env beats file
  EXPECT_EQ(c->log_level, LogLevel::kError);   // flag beats env and file
  EXPECT_EQ(c->log_format, LogFormat::kJson);  // file beats default
}

TEST(ConfigLoadTest, EnvBeatsDefaultsAndFlagsBeatEnv) {
  ConfigSources sources;
  sources.env = {{"QUIVER_ROOT", "/env"}, {"QUIVER_LOG_FORMAT", "json"}};
  sources.flags = {{"root", "/flag"}};
  Result<Config> c = LoadConfig(sources);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->root, "/flag");
  EXPECT_EQ(c->log_format, LogFormat::kJson);
  EXPECT_EQ(c->listen, Config().listen);
}

TEST(ConfigLoadTest, EnvIgnoresUndeclaredVariables) {
  Config c;
  Status s = ApplyConfigEnv(c, {{"QUIVER_SOMETHING_ELSE", "x"},
                                {"QUIVER_CONFIG", "/nope.toml"},
                                {"HOME", "/root"},
                                {"QUIVER_ROOT", "/r"}});
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(c.root, "/r");
}

TEST(ConfigLoadTest, BadEnvValueNamesVariable) {
  ConfigSources sources;
  sources.env = {{"QUIVER_LOG_LEVEL", "chatty"}};
  Result<Config> c = LoadConfig(sources);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsInvalidInput());
  EXPECT_TRUE(Contains(c.status().message(), "QUIVER_LOG_LEVEL")) << c.status().message();
  EXPECT_TRUE(Contains(c.status().message(), "chatty")) << c.status().message();
}

TEST(ConfigLoadTest, BadOrUnknownFlag) {
  ConfigSources bad_value;
  bad_value.flags = {{"listen", "nope"}};
  Result<Config> a = LoadConfig(bad_value);
  ASSERT_FALSE(a.ok());
  EXPECT_TRUE(Contains(a.status().message(), "flag")) << a.status().message();

  ConfigSources unknown;
  unknown.flags = {{"colour", "blue"}};
  Result<Config> b = LoadConfig(unknown);
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(Contains(b.status().message(), "colour")) << b.status().message();
}

TEST_F(ConfigFileTest, QuiverConfigEnvNamesFile) {
  std::string path = Write("from_env.json", R"({"root": "/via/env/file"})");
  ConfigSources sources;
  sources.env = {{std::string(kConfigFileEnv), path}};
  Result<Config> c = LoadConfig(sources);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->root, "/via/env/file");
}

TEST_F(ConfigFileTest, ExplicitFileBeatsQuiverConfigEnv) {
  std::string explicit_path = Write("explicit.toml", "root = \"/explicit\"\n");
  std::string env_path = Write("env.toml", "root = \"/env\"\nlog_level = \"debug\"\n");
  ConfigSources sources;
  sources.file = explicit_path;
  sources.env = {{"QUIVER_CONFIG", env_path}};
  Result<Config> c = LoadConfig(sources);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->root, "/explicit");
  EXPECT_EQ(c->log_level, LogLevel::kInfo);  // env.toml was not read
}

TEST_F(ConfigFileTest, QuiverConfigEnvMissingFileIsAnError) {
  ConfigSources sources;
  sources.env = {{"QUIVER_CONFIG", dir_ + "/absent.json"}};
  EXPECT_FALSE(LoadConfig(sources).ok());
}

TEST(ConfigLoadTest, EmptyQuiverConfigIsIgnored) {
  ConfigSources sources;
  sources.env = {{"QUIVER_CONFIG", ""}};
  EXPECT_TRUE(LoadConfig(sources).ok());
}

TEST(ConfigLoadTest, QuiverEnvironmentReadsOnlyQuiverVariables) {
  ASSERT_EQ(setenv("QUIVER_CONFIG_TEST_VAR", "a=b", 1), 0);
  ASSERT_EQ(setenv("NOT_QUIVER_CONFIG_TEST_VAR", "x", 1), 0);
  std::map<std::string, std::string> env = QuiverEnvironment();
  unsetenv("QUIVER_CONFIG_TEST_VAR");
  unsetenv("NOT_QUIVER_CONFIG_TEST_VAR");
  auto it = env.find("QUIVER_CONFIG_TEST_VAR");
  ASSERT_NE(it, env.end());
  EXPECT_EQ(it->second, "a=b");  // only the first '=' separates
  EXPECT_EQ(env.count("NOT_QUIVER_CONFIG_TEST_VAR"), 0u);
  for (const auto& [k, v] : env) EXPECT_EQ(k.rfind("QUIVER_", 0), 0u) << k;
}

TEST(ParseListenAddressTest, Accepts) {
  auto v4 = ParseListenAddress("127.0.0.1:2333");
  ASSERT_TRUE(v4.ok()) << v4.status().ToString();
  EXPECT_EQ(v4->first, "127.0.0.1");
  EXPECT_EQ(v4->second, 2333);

  auto v6 = ParseListenAddress("[::1]:80");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->first, "::1");
  EXPECT_EQ(v6->second, 80);

  auto zero = ParseListenAddress("host:0");
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  EXPECT_EQ(zero->first, "host");
  EXPECT_EQ(zero->second, 0);

  auto max = ParseListenAddress("localhost:65535");
  ASSERT_TRUE(max.ok());
  EXPECT_EQ(max->second, 65535);
}

TEST(ParseListenAddressTest, Rejects) {
  for (std::string_view bad :
       {"", "noport", ":80", "h:", "h:99999", "h:65536", "h:12a", "h:-1", "h:+1", "h: 80", "[::1]",
        "[::1]80", "[::1:80", "[]:80", "h:99999999999999999999", "::1:80", "fe80::1:2333"}) {
    auto r = ParseListenAddress(bad);
    EXPECT_FALSE(r.ok()) << "accepted '" << bad << "'";
    if (!r.ok()) {
      EXPECT_TRUE(r.status().IsInvalidInput()) << bad;
    }
  }
}

}  // namespace
}  // namespace quiver
