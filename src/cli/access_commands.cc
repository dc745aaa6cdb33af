#include "cli/access_commands.h"

#include <iostream>

#include <fmt/format.h>

#include "catalog/access_control.h"
#include "catalog/api_keys.h"
#include "catalog/catalog.h"
#include "cli/cli_util.h"
#include "common/numbers.h"
#include "store/store_uri.h"

namespace quiver::cli {
namespace {

using nlohmann::json;

// Bootstrapping happens before the first `quiver serve`, so a missing root is created (with its
// default project and warehouse), exactly as the server would.
Result<std::unique_ptr<catalog::Catalog>> OpenCatalogAt(const std::string& uri) {
  QV_ASSIGN_OR_RETURN(auto store, OpenStore(uri));
  return catalog::Catalog::Open(store);
}

const catalog::Actor kOperator{"user:operator", ""};

int RunCreateKey(const std::string& uri, const std::string& principal, int64_t days,
                 const std::string& description) {
  std::optional<int64_t> expires;
  if (days > 0) {  // checked before the root is opened: `days * 86'400'000` used to wrap
    auto lifetime = CheckedDuration(days, std::chrono::hours(24));
    if (!lifetime.ok()) return UsageError(lifetime.status().WithContext("--expires-in-days"));
    expires = Clock::Real()->NowMillis() +
              std::chrono::duration_cast<std::chrono::milliseconds>(*lifetime).count();
  }
  auto catalog = OpenCatalogAt(uri);
  if (!catalog.ok()) return Fail(catalog.status());
  catalog::ApiKeyStore keys((*catalog)->registry().store_ptr(), nullptr);
  auto created = keys.Create(principal, expires, description, kOperator.principal);
  if (!created.ok()) return Fail(created.status());
  std::cout << created->key << '\n';
  std::cerr << fmt::format(
      "key {} for {} ({}); it is shown once and stored only as a salted hash\n",
      created->info.key_id, principal,
      expires ? fmt::format("expires in {} days", days) : "never expires");
  return 0;
}

int RunListKeys(const std::string& uri, const std::string& principal) {
  auto catalog = OpenCatalogAt(uri);
  if (!catalog.ok()) return Fail(catalog.status());
  catalog::ApiKeyStore keys((*catalog)->registry().store_ptr(), nullptr);
  auto list = keys.List(principal.empty() ? std::nullopt : std::optional<std::string>(principal));
  if (!list.ok()) return Fail(list.status());
  for (const catalog::ApiKeyInfo& k : *list) {
    std::cout << fmt::format(
        "{}  {}  created {}{}{}\n", k.key_id, k.principal, k.created_at,
        k.expires_at_ms ? fmt::format("  expires_at_ms {}", *k.expires_at_ms) : "",
        k.revoked_at ? "  REVOKED " + *k.revoked_at : "");
  }
  return 0;
}

int RunRevokeKey(const std::string& uri, const std::string& key_id) {
  auto catalog = OpenCatalogAt(uri);
  if (!catalog.ok()) return Fail(catalog.status());
  catalog::ApiKeyStore keys((*catalog)->registry().store_ptr(), nullptr);
  auto revoked = keys.Revoke(key_id, kOperator.principal);
  if (!revoked.ok()) return Fail(revoked.status());
  std::cout << fmt::format("revoked {} ({})\n", key_id, revoked->principal);
  return 0;
}

// Adds or removes one tuple ("user:alice#reader@table:p/ns/t").
int RunGrant(const std::string& uri, const std::string& text, bool add) {
  auto catalog = OpenCatalogAt(uri);
  if (!catalog.ok()) return Fail(catalog.status());
  auto tuple = catalog::authz::ParseTuple(text);
  if (!tuple.ok()) return Fail(tuple.status());
  json grant = {{"subject", tuple->subject},
                {"relation", catalog::authz::RelationName(tuple->relation)}};
  auto edit = [&](json& grants) -> Status {
    auto it = std::find(grants.begin(), grants.end(), grant);
    if (add && it == grants.end()) grants.push_back(grant);
    if (!add && it != grants.end()) grants.erase(it);
    return Status::OK();
  };
  auto access = catalog::AccessControl::Open(**catalog, {});
  if (!access.ok()) return Fail(access.status());
  auto changed = (*access)->UpdateGrantsOf(tuple->object, edit, kOperator);
  if (!changed.ok()) return Fail(changed.status());
  (*catalog)->registry().FlushLog();
  std::cout << fmt::format("{} {}\n", add ? "granted" : "revoked",
                           catalog::authz::FormatTuple(*tuple));
  return 0;
}

}  // namespace

void AddAccessCommands(CLI::App& app, int* exit_code) {
  CLI::App* access = app.add_subcommand(
      "access", "Offline identity and grant administration on a catalog root (bootstrap)");
  access->require_subcommand(1);
  auto uri = std::make_shared<std::string>();
  auto principal = std::make_shared<std::string>();

  auto days = std::make_shared<int64_t>(0);
  auto description = std::make_shared<std::string>();
  CLI::App* create = access->add_subcommand(
      "create-key", "Create an API key for a principal; prints the key (shown once) on stdout");
  create->add_option("root", *uri, "catalog root (path, file:///abs or memory://n)")->required();
  create->add_option("--principal", *principal, "who the key authenticates, e.g. user:ops")
      ->required();
  create->add_option("--expires-in-days", *days, "expiry in days (default: never)");
  create->add_option("--description", *description, "a note shown by list-keys");
  create->callback([=] { *exit_code = RunCreateKey(*uri, *principal, *days, *description); });

  CLI::App* list = access->add_subcommand("list-keys", "List API keys (never their secrets)");
  list->add_option("root", *uri, "catalog root")->required();
  list->add_option("--principal", *principal, "only this principal's keys");
  list->callback([=] { *exit_code = RunListKeys(*uri, *principal); });

  auto key_id = std::make_shared<std::string>();
  CLI::App* revoke = access->add_subcommand("revoke-key", "Revoke an API key by its key id");
  revoke->add_option("root", *uri, "catalog root")->required();
  revoke->add_option("key_id", *key_id, "the 16-hex key id")->required();
  revoke->callback([=] { *exit_code = RunRevokeKey(*uri, *key_id); });

  auto tuple = std::make_shared<std::string>();
  CLI::App* grant = access->add_subcommand(
      "grant", "Add a relation tuple, e.g. user:ops#admin@server:quiver (the first server admin)");
  grant->add_option("root", *uri, "catalog root")->required();
  grant->add_option("tuple", *tuple, "<subject>#<relation>@<object>")->required();
  grant->callback([=] { *exit_code = RunGrant(*uri, *tuple, true); });

  CLI::App* ungrant = access->add_subcommand("revoke", "Remove a relation tuple");
  ungrant->add_option("root", *uri, "catalog root")->required();
  ungrant->add_option("tuple", *tuple, "<subject>#<relation>@<object>")->required();
  ungrant->callback([=] { *exit_code = RunGrant(*uri, *tuple, false); });
}

}  // namespace quiver::cli
