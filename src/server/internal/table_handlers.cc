// Table registration and metadata operations: DeclareTable, RegisterTable, DescribeTable,
// TableExists, DropTable, DeregisterTable, RenameTable, RestoreTable,
// UpdateTableSchemaMetadata, UpdateFieldMetadata, AlterTableDropColumns,
// AlterTableAlterColumns, AlterTableAddColumns, GetTableStats.
#include <fmt/format.h>

#include "format/arrow_schema.h"
#include "format/schema.h"
#include "query/add_columns_sql.h"
#include "query/cast_columns.h"
#include "server/internal/handlers.h"
#include "table/dataset.h"
#include "table/operations.h"
#include "table/stats.h"

namespace quiver::server::internal {

using nlohmann::json;

namespace {

bool AddressesVersion(const table::OpenOptions& o) {
  return o.version.has_value() || o.tag.has_value() || o.branch.has_value();
}

json TableIdJson(const catalog::TableInfo& info) {
  return {{"id", SpecId(info.id)}, {"properties", info.properties}};
}

Result<table::CommitTarget> CommitTargetOf(const OpenedTable& table, const Call& call) {
  QV_ASSIGN_OR_RETURN(auto branch, BranchOf(call));
  return table::CommitTarget{table.root, branch};
}

Result<table::MetadataUpdates> ParseMetadataUpdates(const json& map, std::string_view what) {
  if (!map.is_object()) return Status::InvalidInput(fmt::format("'{}' must be an object", what));
  table::MetadataUpdates updates;
  for (auto& [k, v] : map.items()) {
    if (v.is_null()) {
      updates[k] = std::nullopt;
    } else if (v.is_string()) {
      updates[k] = v.get<std::string>();
    } else {
      return Status::InvalidInput(fmt::format("'{}.{}' must be a string or null", what, k));
    }
  }
  return updates;
}

Result<std::shared_ptr<const table::Dataset>> OpenCommitted(const OpenedTable& table,
                                                            const table::CommitTarget& target,
                                                            uint64_t version) {
  table::OpenOptions options;
  options.version = version;
  options.branch = target.branch;
  return table::Dataset::Open(table.root, options);
}

const format::SchemaField* FindField(const std::vector<format::SchemaField>& fields,
                                     std::string_view path) {
  size_t dot = path.find('.');
  std::string_view head = path.substr(0, dot);
  for (const format::SchemaField& f : fields) {
    if (f.name != head) continue;
    if (dot == std::string_view::npos) return &f;
    return FindField(f.children, path.substr(dot + 1));
  }
  return nullptr;
}

}  // namespace

Result<HttpResponse> HandleDeclareTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(auto location, call.String("location"));
  if (location) {
    return Status::InvalidInput(
        "quiver chooses table locations itself; omit 'location' (use RegisterTable to point a "
        "name at an existing dataset)");
  }
  QV_ASSIGN_OR_RETURN(auto properties, call.StringMap("properties"));
  QV_ASSIGN_OR_RETURN(
      catalog::TableInfo info,
      ctx.catalog.DeclareTable(call.id, properties.value_or(catalog::Properties{}), ActorOf(call)));
  return JsonReply({{"location", ctx.catalog.ExternalLocation(info)},
                    {"properties", info.properties},
                    {"managed_versioning", info.managed_versioning}});
}

Result<HttpResponse> HandleRegisterTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string location, call.RequiredString("location"));
  QV_ASSIGN_OR_RETURN(auto mode_text, call.String("mode"));
  QV_ASSIGN_OR_RETURN(catalog::CreateMode mode, ParseCreateMode(mode_text));
  if (mode == catalog::CreateMode::kExistOk) {
    return Status::InvalidInput("RegisterTable 'mode' must be Create or Overwrite");
  }
  QV_ASSIGN_OR_RETURN(auto properties, call.StringMap("properties"));
  QV_ASSIGN_OR_RETURN(
      catalog::TableInfo info,
      ctx.catalog.RegisterTable(call.id, location, mode, properties.value_or(catalog::Properties{}),
                                ActorOf(call)));
  return JsonReply({{"location", info.location}, {"properties", info.properties}});
}

namespace {

// What DescribeTable and TableExists both read: the table, and the dataset when the request
// addresses a version or asks for detail. A version that is asked for must exist; a table
// without a version yet (declared only) is still described.
struct DescribedTable {
  OpenedTable table;
  std::shared_ptr<const table::Dataset> dataset;
  bool detailed = false;
  bool check_declared = false;
};

Result<DescribedTable> OpenDescribedTable(const HandlerContext& ctx, Call& call) {
  DescribedTable out;
  QV_ASSIGN_OR_RETURN(out.table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(table::OpenOptions target, ReadTarget(call));
  QV_ASSIGN_OR_RETURN(auto detailed, call.BoolParam("load_detailed_metadata"));
  QV_ASSIGN_OR_RETURN(auto check_declared, call.BoolParam("check_declared"));
  out.detailed = detailed.value_or(false);
  out.check_declared = check_declared.value_or(false);
  if (AddressesVersion(target) || out.detailed) {
    auto opened = table::Dataset::Open(out.table.root, target);
    if (opened.ok()) {
      out.dataset = *opened;
    } else if (AddressesVersion(target) || opened.status().code() != StatusCode::kTableNotFound) {
      return opened.status();
    }
  }
  return out;
}

// The remote protocol's describe: {version, schema in Lance's vocabulary, location} (the client
// requires the first two; lancedb-remote-api.md §5.1). A table only declared has neither, so it
// is not found here.
Result<HttpResponse> DescribeForRemote(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(table::OpenOptions target, ReadTarget(call));
  auto dataset = OpenRead(table, call, target);
  if (!dataset.ok()) {
    if (dataset.status().code() == StatusCode::kTableNotFound && !AddressesVersion(target)) {
      return Status(StatusCode::kTableNotFound,
                    fmt::format("table '{}' is declared but has no version yet",
                                catalog::JoinId(call.spec_id, call.delimiter)));
    }
    return dataset.status();
  }
  const catalog::TableInfo& info = table.info;
  return JsonReply({{"version", (*dataset)->version()},
                    {"schema", format::ToLanceJsonSchema((*dataset)->schema())},
                    {"location", ctx.catalog.ExternalLocation(info)},
                    {"table", catalog::LeafOf(info.id)},
                    {"namespace", SpecId(catalog::ParentOf(info.id))},
                    {"properties", info.properties}});
}

}  // namespace

Result<HttpResponse> HandleDescribeTable(const HandlerContext& ctx, Call& call) {
  if (call.dialect == Dialect::kRemote) return DescribeForRemote(ctx, call);
  QV_ASSIGN_OR_RETURN(DescribedTable described, OpenDescribedTable(ctx, call));
  const catalog::TableInfo& info = described.table.info;
  json body = {{"location", ctx.catalog.ExternalLocation(info)},
               {"table_uri", ctx.catalog.TableUri(info)},
               {"table", catalog::LeafOf(info.id)},
               {"namespace", SpecId(catalog::ParentOf(info.id))},
               {"properties", info.properties},
               {"managed_versioning", info.managed_versioning}};
  if (described.check_declared || described.detailed) {
    QV_ASSIGN_OR_RETURN(bool only_declared, ctx.catalog.IsOnlyDeclared(info));
    body["is_only_declared"] = only_declared;
  }
  if (described.detailed && described.dataset) {
    table::TableStats stats = described.dataset->Stats();
    body["version"] = described.dataset->version();
    body["schema"] = format::ToJsonArrowSchema(described.dataset->schema());
    body["stats"] = {{"num_deleted_rows", stats.num_deleted_rows},
                     {"num_fragments", stats.num_fragments}};
  }
  return JsonReply(body);
}

Result<HttpResponse> HandleTableExists(const HandlerContext& ctx, Call& call) {
  QV_RETURN_IF_ERROR(OpenDescribedTable(ctx, call).status());
  return EmptyReply();
}

Result<HttpResponse> HandleDropTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(catalog::TableInfo info, ctx.catalog.DropTable(call.id, ActorOf(call)));
  json body = TableIdJson(info);
  body["location"] = ctx.catalog.ExternalLocation(info);
  return JsonReply(body);
}

Result<HttpResponse> HandleDeregisterTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(catalog::TableInfo info, ctx.catalog.DeregisterTable(call.id, ActorOf(call)));
  json body = TableIdJson(info);
  body["location"] = ctx.catalog.ExternalLocation(info);
  return JsonReply(body);
}

Result<HttpResponse> HandleRenameTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(std::string new_name, call.RequiredString("new_table_name"));
  QV_ASSIGN_OR_RETURN(auto new_namespace, RenameDestination(call));
  std::optional<catalog::ObjectId> scoped_namespace;
  if (new_namespace) scoped_namespace = call.Scoped(*new_namespace);
  QV_RETURN_IF_ERROR(
      ctx.catalog.RenameTable(call.id, scoped_namespace, new_name, ActorOf(call)).status());
  return JsonReply(json::object());
}

Result<HttpResponse> HandleRestoreTable(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(int64_t version, call.RequiredInt("version"));
  if (version <= 0) return Status::InvalidInput("'version' must be positive");
  QV_ASSIGN_OR_RETURN(table::CommitTarget target, CommitTargetOf(table, call));
  QV_ASSIGN_OR_RETURN(table::CommitResult result,
                      table::RestoreVersion(target, static_cast<uint64_t>(version)));
  return JsonReply({{"version", result.version}});
}

Result<HttpResponse> HandleUpdateTableSchemaMetadata(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  // The body is the bare map (spec); a {"metadata": {...}} model body is accepted too.
  const json* map = &call.body;
  if (call.body.size() == 1 && call.body.contains("metadata") &&
      call.body["metadata"].is_object()) {
    map = &call.body["metadata"];
  }
  QV_ASSIGN_OR_RETURN(table::MetadataUpdates updates, ParseMetadataUpdates(*map, "metadata"));
  table::CommitTarget target{table.root, std::nullopt};
  if (auto b = call.Query("branch"); b && !b->empty() && *b != "main") target.branch = *b;
  QV_ASSIGN_OR_RETURN(table::CommitResult result, table::UpdateSchemaMetadata(target, updates));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenCommitted(table, target, result.version));
  return JsonReply(json(dataset->schema().metadata));
}

Result<HttpResponse> HandleUpdateFieldMetadata(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(table::CommitTarget target, CommitTargetOf(table, call));
  auto it = call.body.find("updates");
  if (it == call.body.end() || !it->is_array() || it->empty()) {
    return Status::InvalidInput("'updates' is required (a non-empty array)");
  }
  // Validate every entry before the first commit, so bad input changes nothing.
  struct Update {
    std::string path;
    table::MetadataUpdates metadata;
    bool replace;
  };
  std::vector<Update> updates;
  for (const json& entry : *it) {
    if (!entry.is_object() || !entry.contains("path") || !entry["path"].is_string()) {
      return Status::InvalidInput("each update needs a string 'path'");
    }
    if (!entry.contains("metadata")) return Status::InvalidInput("each update needs 'metadata'");
    QV_ASSIGN_OR_RETURN(table::MetadataUpdates metadata,
                        ParseMetadataUpdates(entry["metadata"], "metadata"));
    auto replace = entry.find("replace");
    if (replace != entry.end() && !replace->is_null() && !replace->is_boolean()) {
      return Status::InvalidInput("'replace' must be a boolean");
    }
    updates.push_back({entry["path"].get<std::string>(), std::move(metadata),
                       replace != entry.end() && replace->is_boolean() && replace->get<bool>()});
  }
  uint64_t version = 0;
  for (const Update& u : updates) {
    QV_ASSIGN_OR_RETURN(table::CommitResult result,
                        table::UpdateFieldMetadata(target, u.path, u.metadata, u.replace));
    version = result.version;
  }
  QV_ASSIGN_OR_RETURN(auto dataset, OpenCommitted(table, target, version));
  json fields = json::object();
  for (const Update& u : updates) {
    const format::SchemaField* field = FindField(dataset->schema().fields, u.path);
    if (field != nullptr) fields[u.path] = field->metadata;
  }
  return JsonReply({{"version", version}, {"fields", fields}});
}

Result<HttpResponse> HandleAlterTableDropColumns(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(auto columns, call.StringList("columns"));
  if (!columns || columns->empty())
    return Status::InvalidInput("'columns' is required (non-empty)");
  QV_ASSIGN_OR_RETURN(table::CommitTarget target, CommitTargetOf(table, call));
  QV_ASSIGN_OR_RETURN(table::CommitResult result, table::DropColumns(target, *columns));
  return JsonReply({{"version", result.version}});
}

Result<HttpResponse> HandleAlterTableAlterColumns(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  auto it = call.body.find("alterations");
  if (it == call.body.end() || !it->is_array() || it->empty()) {
    return Status::InvalidInput("'alterations' is required (a non-empty array)");
  }
  std::vector<table::ColumnAlteration> alterations;
  std::vector<std::pair<std::string, arrow::DataType>> casts;
  for (const json& entry : *it) {
    if (!entry.is_object() || !entry.contains("path") || !entry["path"].is_string()) {
      return Status::InvalidInput("each alteration needs a string 'path'");
    }
    table::ColumnAlteration a;
    a.path = entry["path"].get<std::string>();
    if (auto r = entry.find("rename"); r != entry.end() && !r->is_null()) {
      if (!r->is_string()) return Status::InvalidInput("'rename' must be a string");
      a.rename = r->get<std::string>();
    }
    if (auto n = entry.find("nullable"); n != entry.end() && !n->is_null()) {
      if (!n->is_boolean()) return Status::InvalidInput("'nullable' must be a boolean");
      a.nullable = n->get<bool>();
    }
    if (auto t = entry.find("data_type"); t != entry.end() && !t->is_null()) {
      // The spec's JsonArrowDataType or the remote client's Lance JsonDataType.
      QV_ASSIGN_OR_RETURN(std::string logical, format::LogicalTypeFromJson(*t));
      format::SchemaField typed;
      typed.logical_type = logical;
      QV_ASSIGN_OR_RETURN(arrow::DataType type, format::ToArrowType(typed));
      if (a.path.find('.') != std::string::npos) {
        return Status::InvalidInput(
            fmt::format("'{}': only a top-level column's type can change", a.path));
      }
      casts.emplace_back(a.path, std::move(type));
    }
    if (auto v = entry.find("virtual_column"); v != entry.end() && !v->is_null()) {
      return Status::Unsupported("virtual columns are not supported");
    }
    if (a.rename || a.nullable) alterations.push_back(std::move(a));
  }
  QV_ASSIGN_OR_RETURN(table::CommitTarget target, CommitTargetOf(table, call));
  // Type changes first (they name the columns as they are), then renames and nullability: a
  // commit each, when both are asked for.
  uint64_t version = 0;
  if (!casts.empty()) {
    QV_ASSIGN_OR_RETURN(version, query::CastColumns(target, casts));
  }
  if (!alterations.empty() || casts.empty()) {
    QV_ASSIGN_OR_RETURN(table::CommitResult result, table::AlterColumns(target, alterations));
    version = result.version;
  }
  return JsonReply({{"version", version}});
}

Result<HttpResponse> HandleAlterTableAddColumns(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  auto it = call.body.find("new_columns");
  if (it == call.body.end() || !it->is_array() || it->empty()) {
    return Status::InvalidInput("'new_columns' is required (a non-empty array)");
  }
  std::vector<std::pair<std::string, std::string>> columns;
  for (const json& entry : *it) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
      return Status::InvalidInput("each new column needs a string 'name'");
    }
    const std::string name = entry["name"].get<std::string>();
    for (const char* other : {"computed", "virtual_column"}) {
      if (auto v = entry.find(other); v != entry.end() && !v->is_null()) {
        return Status::Unsupported(
            fmt::format("new column '{}': '{}' columns are not supported yet", name, other));
      }
    }
    auto e = entry.find("expression");
    if (e == entry.end() || !e->is_string()) {
      return Status::InvalidInput(
          fmt::format("new column '{}' needs an 'expression' (SQL over the row)", name));
    }
    columns.emplace_back(name, e->get<std::string>());
  }
  QV_ASSIGN_OR_RETURN(table::CommitTarget target, CommitTargetOf(table, call));
  QV_ASSIGN_OR_RETURN(uint64_t version, query::AddColumnsSql(target, columns));
  return JsonReply({{"version", version}});
}

Result<HttpResponse> HandleGetTableStats(const HandlerContext& ctx, Call& call) {
  QV_ASSIGN_OR_RETURN(OpenedTable table, OpenTable(ctx.catalog, call));
  QV_ASSIGN_OR_RETURN(table::OpenOptions target, ReadTarget(call));
  QV_ASSIGN_OR_RETURN(auto dataset, OpenRead(table, call, target));
  table::TableStats s = dataset->Stats();
  // Integers, as the spec and Lance have them (Lance's mean is an integer division).
  json lengths = {{"min", s.lengths.min},
                  {"max", s.lengths.max},
                  {"mean", static_cast<uint64_t>(s.lengths.mean)},
                  {"p25", s.lengths.p25},
                  {"p50", s.lengths.p50},
                  {"p75", s.lengths.p75},
                  {"p99", s.lengths.p99}};
  return JsonReply({{"total_bytes", s.total_bytes},
                    {"num_rows", s.num_rows},
                    {"num_indices", s.num_indices},
                    {"fragment_stats",
                     {{"num_fragments", s.num_fragments},
                      {"num_small_fragments", s.num_small_fragments},
                      {"lengths", lengths}}}});
}

}  // namespace quiver::server::internal
