#include "cli/table_commands.h"

#include <cctype>
#include <cstdio>
#include <functional>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli_util.h"
#include "cli/query_commands.h"
#include "cli/table_data_commands.h"
#include "common/clock.h"
#include "common/numbers.h"
#include "format/arrow_schema.h"
#include "format/feature_flags.h"
#include "format/lance_proto.h"
#include "format/manifest_names.h"
#include "format/schema.h"
#include "query/cast_columns.h"
#include "table/branches.h"
#include "table/cleanup.h"
#include "table/dataset.h"
#include "table/operations.h"
#include "table/publish.h"
#include "table/refs.h"
#include "table/tags.h"
#include "table/versions.h"

namespace quiver::cli {
namespace {

using nlohmann::ordered_json;

struct InspectArgs {
  std::string uri;
  std::optional<uint64_t> version;
  std::optional<std::string> tag;
  std::optional<std::string> branch;
  bool json = false;
};

ordered_json TagsJson(const std::map<std::string, table::TagInfo>& tags) {
  ordered_json out = ordered_json::object();
  for (const auto& [name, tag] : tags) {
    out[name] = {{"version", tag.version},
                 {"branch", tag.branch ? ordered_json(*tag.branch) : ordered_json(nullptr)},
                 {"manifest_size", tag.manifest_size}};
  }
  return out;
}

ordered_json BranchesJson(const std::map<std::string, table::BranchInfo>& branches) {
  ordered_json out = ordered_json::object();
  for (const auto& [name, b] : branches) {
    out[name] = {
        {"parent_branch", b.parent_branch ? ordered_json(*b.parent_branch) : ordered_json(nullptr)},
        {"parent_version", b.parent_version},
        {"create_at", b.create_at},
        {"manifest_size", b.manifest_size}};
  }
  return out;
}

int RunInspect(const InspectArgs& args) {
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  table::OpenOptions options{args.version, args.tag, args.branch};
  auto dataset = table::Dataset::Open(*root, options);
  if (!dataset.ok()) return Fail(dataset.status());
  const table::Dataset& ds = **dataset;
  auto tags = table::ListTags(**root);
  if (!tags.ok()) return Fail(tags.status());
  auto branches = table::ListBranches(**root);
  if (!branches.ok()) return Fail(branches.status());
  table::TableStats stats = ds.Stats();
  std::vector<table::IndexInfo> indices = ds.Indices();

  if (args.json) {
    ordered_json out;
    out["version"] = ds.version();
    out["branch"] = ds.branch() ? ordered_json(*ds.branch()) : ordered_json(nullptr);
    out["timestamp_millis"] = ds.TimestampMillis();
    out["manifest_path"] = ds.version_ref().path;
    out["manifest_size"] = ds.version_ref().size;
    out["num_rows"] = stats.num_rows;
    out["num_deleted_rows"] = stats.num_deleted_rows;
    out["num_fragments"] = stats.num_fragments;
    out["num_data_files"] = stats.num_data_files;
    out["num_deletion_files"] = stats.num_deletion_files;
    out["total_bytes"] = stats.total_bytes;
    out["schema"] = format::ToJsonArrowSchema(ds.schema());
    out["tags"] = TagsJson(*tags);
    out["branches"] = BranchesJson(*branches);
    ordered_json idx = ordered_json::array();
    for (const table::IndexInfo& i : indices) {
      idx.push_back({{"name", i.name},
                     {"uuid", i.uuid},
                     {"columns", i.columns},
                     {"index_type", i.index_type},
                     {"dataset_version", i.dataset_version}});
    }
    out["indices"] = std::move(idx);
    out["data_storage_version"] = ds.DataStorageVersion();
    out["reader_feature_flags"] = ds.ReaderFlags();
    out["writer_feature_flags"] = ds.WriterFlags();
    out["max_fragment_id"] = ds.manifest().has_max_fragment_id()
                                 ? ordered_json(ds.manifest().max_fragment_id())
                                 : ordered_json(nullptr);
    const auto& wv = ds.manifest().writer_version();
    out["writer"] = wv.library().empty() ? "" : wv.library() + " " + wv.version();
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("version:        {}{}\n", ds.version(),
                           ds.branch() ? " (branch " + *ds.branch() + ")" : "");
  std::cout << fmt::format("committed:      {}\n",
                           FormatIso8601Millis(ds.TimestampMillis() * 1'000'000));
  std::cout << fmt::format("manifest:       {} ({} bytes)\n", ds.version_ref().path,
                           ds.version_ref().size);
  std::cout << fmt::format("rows:           {} live, {} deleted\n", stats.num_rows,
                           stats.num_deleted_rows);
  std::cout << fmt::format("fragments:      {} ({} small), {} data files, {} deletion files\n",
                           stats.num_fragments, stats.num_small_fragments, stats.num_data_files,
                           stats.num_deletion_files);
  std::cout << fmt::format("bytes:          {}\n", stats.total_bytes);
  std::cout << fmt::format("storage format: lance {}\n", ds.DataStorageVersion());
  std::cout << fmt::format("feature flags:  reader {}, writer {}\n",
                           format::FeatureFlagNames(ds.ReaderFlags()),
                           format::FeatureFlagNames(ds.WriterFlags()));
  std::cout << "schema:\n";
  std::function<void(const format::SchemaField&, int)> print = [&](const format::SchemaField& f,
                                                                   int depth) {
    std::cout << fmt::format("  {:{}}{}: {}{} (id {})\n", "", depth * 2, f.name, f.logical_type,
                             f.nullable ? "" : " not null", f.id);
    for (const format::SchemaField& c : f.children) print(c, depth + 1);
  };
  for (const format::SchemaField& f : ds.schema().fields) print(f, 0);
  std::cout << fmt::format("indices:        {}\n", indices.empty() ? "none" : "");
  for (const table::IndexInfo& i : indices) {
    std::cout << fmt::format("  {} [{}] on {} ({})\n", i.name, i.index_type,
                             fmt::join(i.columns, ", "), i.uuid);
  }
  std::cout << fmt::format("tags:           {}\n", tags->empty() ? "none" : "");
  for (const auto& [name, t] : *tags) {
    std::cout << fmt::format("  {} -> version {}{}\n", name, t.version,
                             t.branch ? " on " + *t.branch : "");
  }
  std::cout << fmt::format("branches:       {}\n", branches->empty() ? "none" : "");
  for (const auto& [name, b] : *branches) {
    std::cout << fmt::format("  {} from {} version {}\n", name,
                             b.parent_branch ? *b.parent_branch : "main", b.parent_version);
  }
  return 0;
}

struct VersionsArgs {
  std::string uri;
  std::optional<std::string> branch;
  bool json = false;
  bool descending = false;
  std::optional<uint64_t> after;
  size_t limit = 0;  // 0 = all
};

int RunVersions(const VersionsArgs& args) {
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  std::shared_ptr<ObjectStore> store = *root;
  if (args.branch) {
    auto branch_store = table::OpenBranchStore(*root, *args.branch);
    if (!branch_store.ok()) return Fail(branch_store.status());
    store = *branch_store;
  }
  table::VersionListOptions options{args.descending, args.after,
                                    args.limit == 0 ? kMaxListLimit : args.limit};
  auto page = table::ListVersions(*store, options);
  if (!page.ok()) return Fail(page.status());
  ordered_json out = ordered_json::array();
  for (const table::VersionInfo& v : page->versions) {
    if (args.json) {
      out.push_back({{"version", v.ref.version},
                     {"timestamp_millis", v.timestamp_millis},
                     {"manifest_path", v.ref.path},
                     {"manifest_size", v.ref.size},
                     {"etag", v.ref.etag},
                     {"naming", format::ManifestNamingName(v.ref.naming)}});
    } else {
      std::cout << fmt::format("{:>8}  {}  {:>8}  {}\n", v.ref.version,
                               FormatIso8601Millis(v.timestamp_millis * 1'000'000), v.ref.size,
                               v.ref.path);
    }
  }
  if (args.json) std::cout << out.dump(2) << "\n";
  if (page->next) std::cerr << fmt::format("more versions follow: --after {}\n", *page->next);
  return 0;
}

int RunRefs(const std::string& uri, bool branches, bool json) {
  auto root = OpenExistingStore(uri);
  if (!root.ok()) return Fail(root.status());
  if (branches) {
    auto list = table::ListBranches(**root);
    if (!list.ok()) return Fail(list.status());
    if (json) {
      std::cout << BranchesJson(*list).dump(2) << "\n";
    } else {
      for (const auto& [name, b] : *list) {
        std::cout << fmt::format("{}  from {} version {}\n", name,
                                 b.parent_branch ? *b.parent_branch : "main", b.parent_version);
      }
    }
    return 0;
  }
  auto list = table::ListTags(**root);
  if (!list.ok()) return Fail(list.status());
  if (json) {
    std::cout << TagsJson(*list).dump(2) << "\n";
  } else {
    for (const auto& [name, t] : *list) {
      std::cout << fmt::format("{}  version {}{}\n", name, t.version,
                               t.branch ? " on " + *t.branch : "");
    }
  }
  return 0;
}

struct TagArgs {
  std::string uri;
  std::string name;
  std::optional<uint64_t> version;
  std::optional<std::string> branch;
};

// create / update: the tag points at --version (default: the latest) of --branch (default: main).
int RunTagWrite(const TagArgs& args, bool update) {
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  table::TagTarget target{0, args.branch};
  if (args.version) {
    target.version = *args.version;
  } else {
    auto latest =
        table::Dataset::Open(*root, table::OpenOptions{std::nullopt, std::nullopt, args.branch});
    if (!latest.ok()) return Fail(latest.status());
    target.version = (*latest)->version();
  }
  auto tag = update ? table::UpdateTag(*root, args.name, target)
                    : table::CreateTag(*root, args.name, target);
  if (!tag.ok()) return Fail(tag.status());
  std::cout << fmt::format("tag '{}' -> version {}{}\n", args.name, tag->version,
                           tag->branch ? " on " + *tag->branch : "");
  return 0;
}

int RunTagDelete(const TagArgs& args) {
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  Status s = table::DeleteTag(*root, args.name);
  if (!s.ok()) return Fail(s);
  std::cout << fmt::format("tag '{}' deleted\n", args.name);
  return 0;
}

void AddTagCommands(CLI::App& table, int* exit_code) {
  CLI::App* tag = table.add_subcommand("tag", "Create, move or delete a tag (Lance 8.0 format)");
  tag->require_subcommand(1);
  for (const char* verb : {"create", "update"}) {
    auto args = std::make_shared<TagArgs>();
    bool update = std::string(verb) == "update";
    CLI::App* cmd = tag->add_subcommand(
        verb, update ? "Point an existing tag at another version" : "Create a new tag");
    cmd->add_option("uri", args->uri, "dataset root")->required();
    cmd->add_option("name", args->name, "tag name")->required();
    cmd->add_option("--version", args->version, "the version to tag (default: the latest)");
    cmd->add_option("--branch", args->branch, "the version is on this branch (default: main)");
    cmd->callback([args, update, exit_code] { *exit_code = RunTagWrite(*args, update); });
  }
  auto del_args = std::make_shared<TagArgs>();
  CLI::App* del = tag->add_subcommand("delete", "Delete a tag (the version stays)");
  del->add_option("uri", del_args->uri, "dataset root")->required();
  del->add_option("name", del_args->name, "tag name")->required();
  del->callback([del_args, exit_code] { *exit_code = RunTagDelete(*del_args); });
}

// Runs one metadata commit and reports the new version.
int RunCommit(const std::string& uri, const std::optional<std::string>& branch,
              const std::function<Result<table::CommitResult>(const table::CommitTarget&)>& op) {
  auto root = OpenExistingStore(uri);
  if (!root.ok()) return Fail(root.status());
  auto result = op(table::CommitTarget{*root, branch});
  if (!result.ok()) return Fail(result.status());
  std::cout << fmt::format("committed version {}{}\n", result->version,
                           branch ? " on branch " + *branch : "");
  return 0;
}

// "key=value" -> set, for --set.
Result<std::pair<std::string, std::string>> SplitAssignment(const std::string& s) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::InvalidInput(fmt::format("'{}' is not KEY=VALUE", s));
  }
  return std::make_pair(s.substr(0, eq), s.substr(eq + 1));
}

struct CommitArgs {
  std::string uri;
  std::optional<std::string> branch;
  uint64_t version = 0;
  std::string column;
  std::vector<std::string> columns;
  std::vector<std::string> set;
  std::vector<std::string> unset;
  std::optional<std::string> rename;
  bool nullable = false;
  std::optional<std::string> type;
};

void AddCommitCommands(CLI::App& table, int* exit_code) {
  auto add = [&table](const char* name, const char* help, const std::shared_ptr<CommitArgs>& args) {
    CLI::App* cmd = table.add_subcommand(name, help);
    cmd->add_option("uri", args->uri, "dataset root")->required();
    cmd->add_option("--branch", args->branch, "commit on this branch (default: main)");
    return cmd;
  };
  auto restore = std::make_shared<CommitArgs>();
  add("restore", "Commit a new version whose content is an earlier version's", restore)
      ->add_option("version", restore->version, "the version to restore")
      ->required();
  table.get_subcommand("restore")->callback([restore, exit_code] {
    *exit_code = RunCommit(restore->uri, restore->branch, [&](const table::CommitTarget& t) {
      return table::RestoreVersion(t, restore->version);
    });
  });

  auto metadata = std::make_shared<CommitArgs>();
  CLI::App* meta = add(
      "metadata", "Set or unset schema metadata (or, with --column, a field's metadata)", metadata);
  meta->add_option("--set", metadata->set, "KEY=VALUE to set (repeatable)");
  meta->add_option("--unset", metadata->unset, "KEY to remove (repeatable)");
  meta->add_option("--column", metadata->column, "a field path: update its metadata instead");
  meta->callback([metadata, exit_code] {
    table::MetadataUpdates updates;
    for (const std::string& s : metadata->set) {
      auto kv = SplitAssignment(s);
      if (!kv.ok()) {
        *exit_code = Fail(kv.status());
        return;
      }
      updates[kv->first] = kv->second;
    }
    for (const std::string& k : metadata->unset) updates[k] = std::nullopt;
    *exit_code = RunCommit(metadata->uri, metadata->branch, [&](const table::CommitTarget& t) {
      return metadata->column.empty() ? table::UpdateSchemaMetadata(t, updates)
                                      : table::UpdateFieldMetadata(t, metadata->column, updates);
    });
  });

  auto drop = std::make_shared<CommitArgs>();
  add("drop-columns", "Remove columns from the schema (metadata only; data stays until cleanup)",
      drop)
      ->add_option("columns", drop->columns, "field paths")
      ->required();
  table.get_subcommand("drop-columns")->callback([drop, exit_code] {
    *exit_code = RunCommit(drop->uri, drop->branch, [&](const table::CommitTarget& t) {
      return table::DropColumns(t, drop->columns);
    });
  });

  auto alter = std::make_shared<CommitArgs>();
  CLI::App* alter_cmd =
      add("alter-column", "Rename a column, make it nullable, or change its type", alter);
  alter_cmd->add_option("column", alter->column, "field path")->required();
  alter_cmd->add_option("--rename", alter->rename, "the new name");
  alter_cmd->add_flag("--nullable", alter->nullable, "allow nulls");
  alter_cmd->add_option("--type", alter->type,
                        "a new type (int64, double, string, ... as Lance or the spec names them): "
                        "the column is rewritten with its values cast, as Lance does");
  alter_cmd->callback([alter, exit_code] {
    table::ColumnAlteration alteration{alter->column, alter->rename, std::nullopt};
    if (alter->nullable) alteration.nullable = true;
    *exit_code = RunCommit(
        alter->uri, alter->branch,
        [&](const table::CommitTarget& t) -> Result<table::CommitResult> {
          table::CommitResult result;
          if (alter->type) {
            QV_ASSIGN_OR_RETURN(std::string logical,
                                format::LogicalTypeFromJson(nlohmann::json(*alter->type)));
            format::SchemaField typed;
            typed.logical_type = logical;
            QV_ASSIGN_OR_RETURN(arrow::DataType type, format::ToArrowType(typed));
            QV_ASSIGN_OR_RETURN(result.version, query::CastColumns(t, {{alter->column, type}}));
            if (!alteration.rename && !alteration.nullable) return result;
          }
          return table::AlterColumns(t, {alteration});
        });
  });
}

struct CleanupArgs {
  std::string uri;
  std::optional<std::string> branch;
  std::optional<std::string> older_than;
  std::optional<uint64_t> retain;
  bool dry_run = false;
  bool json = false;
  bool keep_tagged = false;
  bool delete_unverified = false;
};

int RunCleanup(const CleanupArgs& args) {
  table::CleanupPolicy policy;
  if (args.older_than) {  // checked before anything is opened
    auto age = ParseDuration(*args.older_than);
    if (!age.ok()) return UsageError(age.status().WithContext("--older-than"));
    policy.older_than = *age;
  }
  auto root = OpenExistingStore(args.uri);
  if (!root.ok()) return Fail(root.status());
  policy.retain_versions = args.retain;
  policy.dry_run = args.dry_run;
  policy.error_if_tagged_old_versions = !args.keep_tagged;
  policy.delete_unverified = args.delete_unverified;
  auto report = table::CleanupOldVersions(*root, args.branch, policy);
  if (!report.ok()) return Fail(report.status());
  if (args.json) {
    ordered_json out = {{"versions_removed", report->versions_removed},
                        {"files_removed", report->files_removed},
                        {"bytes_removed", report->bytes_removed}};
    if (args.dry_run) out["dry_run"] = true;
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{}{} version(s), {} file(s), {} byte(s)\n",
                           args.dry_run ? "would remove " : "removed ", report->versions_removed,
                           report->files_removed, report->bytes_removed);
  return 0;
}

void AddCleanupCommand(CLI::App& table, int* exit_code) {
  auto args = std::make_shared<CleanupArgs>();
  CLI::App* cmd = table.add_subcommand(
      "cleanup", "Remove old versions and the files only they use (Lance's cleanup_old_versions)");
  cmd->add_option("uri", args->uri, "dataset root")->required();
  cmd->add_option("--older-than", args->older_than,
                  "versions committed longer ago than this (7d, 12h, 30m, 45s)");
  cmd->add_option("--retain", args->retain, "keep at least the newest N versions");
  cmd->add_option("--branch", args->branch, "clean a branch instead of main");
  cmd->add_flag("--dry-run", args->dry_run, "report what would be removed; delete nothing");
  cmd->add_flag("--keep-tagged", args->keep_tagged,
                "keep tagged old versions instead of refusing to run");
  cmd->add_flag("--delete-unverified", args->delete_unverified,
                "also delete never-referenced files younger than 7 days (only when no writer "
                "is running)");
  cmd->add_flag("--json", args->json, "{versions_removed, files_removed, bytes_removed}");
  cmd->callback([args, exit_code] { *exit_code = RunCleanup(*args); });
}

struct BranchArgs {
  std::string uri;
  std::string name;
  std::optional<std::string> from;
  std::optional<uint64_t> version;
};

void AddBranchCommands(CLI::App& table, int* exit_code) {
  CLI::App* branch = table.add_subcommand("branch", "Create or delete a branch (Lance 8.0 format)");
  branch->require_subcommand(1);
  auto create_args = std::make_shared<BranchArgs>();
  CLI::App* create = branch->add_subcommand(
      "create", "Fork a branch from a version of main or of another branch (no data is copied)");
  create->add_option("uri", create_args->uri, "dataset root")->required();
  create->add_option("name", create_args->name, "branch name ('/' allowed between segments)")
      ->required();
  create->add_option("--from", create_args->from, "the source branch (default: main)");
  create->add_option("--version", create_args->version,
                     "the source version (default: the source's latest)");
  create->callback([create_args, exit_code] {
    auto root = OpenExistingStore(create_args->uri);
    if (!root.ok()) {
      *exit_code = Fail(root.status());
      return;
    }
    auto info = table::CreateBranch(*root, create_args->name,
                                    table::BranchSource{create_args->from, create_args->version});
    if (!info.ok()) {
      *exit_code = Fail(info.status());
      return;
    }
    std::cout << fmt::format("branch '{}' created from {} version {}\n", create_args->name,
                             create_args->from ? *create_args->from : "main", info->parent_version);
  });
  auto delete_args = std::make_shared<BranchArgs>();
  CLI::App* del = branch->add_subcommand("delete", "Delete a branch and its own files");
  del->add_option("uri", delete_args->uri, "dataset root")->required();
  del->add_option("name", delete_args->name, "branch name")->required();
  del->callback([delete_args, exit_code] {
    auto root = OpenExistingStore(delete_args->uri);
    if (!root.ok()) {
      *exit_code = Fail(root.status());
      return;
    }
    Status s = table::DeleteBranch(*root, delete_args->name);
    if (!s.ok()) {
      *exit_code = Fail(s);
      return;
    }
    std::cout << fmt::format("branch '{}' deleted\n", delete_args->name);
  });
}

void AddPublishCommand(CLI::App& table, int* exit_code) {
  auto args = std::make_shared<CommitArgs>();
  CLI::App* cmd = table.add_subcommand(
      "publish", "Make a manifest a writer staged the next version (managed versioning)");
  cmd->add_option("uri", args->uri, "dataset root")->required();
  cmd->add_option("staged", args->column, "the staged manifest's key, relative to the root")
      ->required();
  cmd->add_option("--version", args->version, "the version it becomes")->required();
  cmd->add_option("--branch", args->branch, "publish on this branch (default: main)");
  cmd->callback([args, exit_code] {
    auto root = OpenExistingStore(args->uri);
    if (!root.ok()) {
      *exit_code = Fail(root.status());
      return;
    }
    std::shared_ptr<ObjectStore> store = *root;
    if (args->branch) {
      auto branch_store = table::OpenBranchStore(*root, *args->branch);
      if (!branch_store.ok()) {
        *exit_code = Fail(branch_store.status());
        return;
      }
      store = *branch_store;
    }
    auto ref =
        table::PublishStagedManifest(*store, table::StagedManifest{args->column, args->version});
    if (!ref.ok()) {
      *exit_code = Fail(ref.status());
      return;
    }
    std::cout << fmt::format("published version {} as {}\n", ref->version, ref->path);
  });
}

}  // namespace

void AddTableCommands(CLI::App& app, int* exit_code) {
  CLI::App* table = app.add_subcommand("table", "Inspect a Lance dataset (a path or file:// URI)");
  table->require_subcommand(1);

  auto inspect_args = std::make_shared<InspectArgs>();
  CLI::App* inspect = table->add_subcommand(
      "inspect", "Version, schema, rows, fragments, bytes, indices, tags, branches, flags");
  inspect->add_option("uri", inspect_args->uri, "dataset root")->required();
  auto* version_opt = inspect->add_option("--version", inspect_args->version, "a version number");
  auto* tag_opt = inspect->add_option("--tag", inspect_args->tag, "the version a tag points at");
  version_opt->excludes(tag_opt);
  inspect->add_option("--branch", inspect_args->branch, "a branch (its latest version by default)");
  inspect->add_flag("--json", inspect_args->json, "one JSON object (documented in the README)");
  inspect->callback([inspect_args, exit_code] { *exit_code = RunInspect(*inspect_args); });

  auto versions_args = std::make_shared<VersionsArgs>();
  CLI::App* versions = table->add_subcommand("versions", "List versions, oldest first");
  versions->add_option("uri", versions_args->uri, "dataset root")->required();
  versions->add_option("--branch", versions_args->branch, "a branch's versions");
  versions->add_flag("--descending", versions_args->descending, "newest first");
  versions->add_option("--after", versions_args->after,
                       "continue after this version (the page token a previous page printed)");
  versions->add_option("--limit", versions_args->limit, "at most this many (default: all)");
  versions->add_flag("--json", versions_args->json, "a JSON array");
  versions->callback([versions_args, exit_code] { *exit_code = RunVersions(*versions_args); });

  auto uri = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* tags = table->add_subcommand("tags", "List tags");
  tags->add_option("uri", *uri, "dataset root")->required();
  tags->add_flag("--json", *json, "a JSON object: name -> {version, branch, manifest_size}");
  tags->callback([uri, json, exit_code] { *exit_code = RunRefs(*uri, false, *json); });

  CLI::App* branches = table->add_subcommand("branches", "List branches");
  branches->add_option("uri", *uri, "dataset root")->required();
  branches->add_flag("--json", *json,
                     "a JSON object: name -> {parent_branch, parent_version, create_at, "
                     "manifest_size}");
  branches->callback([uri, json, exit_code] { *exit_code = RunRefs(*uri, true, *json); });

  AddTagCommands(*table, exit_code);
  AddCommitCommands(*table, exit_code);
  AddCleanupCommand(*table, exit_code);
  AddBranchCommands(*table, exit_code);
  AddPublishCommand(*table, exit_code);
  AddTableDataCommands(*table, exit_code);
  AddQueryCommands(*table, exit_code);
}

}  // namespace quiver::cli
