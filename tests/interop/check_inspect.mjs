// Compares `quiver table inspect|versions --json` with what LanceDB itself reported for every
// fixture dataset (expected.json from make_fixtures.mjs).
//
//   node check_inspect.mjs <quiver binary> <fixtures dir>
//
// Prints one line per check and a closing "N passed, N failed"; exits 1 if any check failed.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

import { createReport, parseArgs } from "./checks.mjs";

const { quiver, dir } = parseArgs("node check_inspect.mjs <quiver binary> <fixtures dir>");
const expected = JSON.parse(readFileSync(path.join(dir, "expected.json"), "utf8"));
const { check, finish } = createReport();

function run(args) {
  return JSON.parse(execFileSync(quiver, args, { encoding: "utf8", maxBuffer: 1 << 28 }));
}

// LanceDB's Arrow type names ("Int64", "Utf8", "FixedSizeList[8]<Float32>") in the spec's
// JsonArrowDataType spelling.
function arrowTypeName(field) {
  if (field.type_id === "FixedSizeList") return "fixed_size_list";
  const t = String(field.type);
  const names = { Utf8: "utf8", LargeUtf8: "large_utf8", Bool: "bool", Binary: "binary" };
  return names[t] ?? t.toLowerCase();
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function compareSchema(label, ours, theirs) {
  const o = ours.fields.map((f) => [f.name, f.type.type, f.nullable]);
  const t = theirs.fields.map((f) => [f.name, arrowTypeName(f), f.nullable]);
  check(`${label} schema`, same(o, t), `quiver ${JSON.stringify(o)} lancedb ${JSON.stringify(t)}`);
  for (const f of theirs.fields) {
    if (f.type_id !== "FixedSizeList") continue;
    const ourField = ours.fields.find((x) => x.name === f.name);
    check(`${label} ${f.name} list size`, ourField?.type?.length === f.list_size,
          `quiver ${ourField?.type?.length} lancedb ${f.list_size}`);
  }
}

function compareView(label, uri, extraArgs, theirs) {
  const ours = run(["table", "inspect", uri, "--json", ...extraArgs]);
  check(`${label} version`, ours.version === theirs.version,
        `quiver ${ours.version} lancedb ${theirs.version}`);
  check(`${label} num_rows`, ours.num_rows === theirs.num_rows,
        `quiver ${ours.num_rows} lancedb ${theirs.num_rows}`);
  compareSchema(label, ours.schema, theirs.schema);
  const versions = run(["table", "versions", uri, "--json", ...extraArgs.filter((a, i, all) =>
    a === "--branch" || all[i - 1] === "--branch")]);
  const ourVersions = versions.map((v) => [v.version, v.timestamp_millis]);
  const theirVersions = theirs.versions.map((v) => [v.version, v.timestamp_ms]);
  check(`${label} versions and timestamps`, same(ourVersions, theirVersions),
        `quiver ${JSON.stringify(ourVersions.slice(0, 5))}… (${ourVersions.length}) lancedb ` +
        `${JSON.stringify(theirVersions.slice(0, 5))}… (${theirVersions.length})`);
  return ours;
}

for (const [name, ds] of Object.entries(expected.datasets)) {
  if (ds.error) {
    check(`${name} fixture`, false, `LanceDB failed to write it: ${ds.error}`);
    continue;
  }
  const uri = path.join(dir, ds.relative_path);
  let ours;
  try {
    ours = compareView(name, uri, [], ds);
  } catch (e) {
    check(`${name} inspect`, false, String(e.stderr || e.message).trim());
    continue;
  }
  const ourTags = Object.fromEntries(Object.entries(ours.tags).map(([k, v]) => [k, v.version]));
  const theirTags = Object.fromEntries(Object.entries(ds.tags).map(([k, v]) => [k, v.version]));
  check(`${name} tags`, same(ourTags, theirTags),
        `quiver ${JSON.stringify(ourTags)} lancedb ${JSON.stringify(theirTags)}`);
  const ourBranches = Object.fromEntries(Object.entries(ours.branches).map(
    ([k, v]) => [k, [v.parent_branch, v.parent_version]]));
  const theirBranches = Object.fromEntries(Object.entries(ds.branches).map(
    ([k, v]) => [k, [v.parent_branch ?? null, v.parent_version]]));
  check(`${name} branches`, same(ourBranches, theirBranches),
        `quiver ${JSON.stringify(ourBranches)} lancedb ${JSON.stringify(theirBranches)}`);
  const ourIndices = ours.indices.map((i) => [i.name, i.columns.join(","), i.uuid]).sort();
  const theirIndices = ds.indices.map((i) => [i.name, i.columns.join(","), i.index_uuid]).sort();
  check(`${name} indices`, same(ourIndices, theirIndices),
        `quiver ${JSON.stringify(ourIndices)} lancedb ${JSON.stringify(theirIndices)}`);
  if (ds.requested_data_storage_version) {
    check(`${name} data storage version`,
          ours.data_storage_version === ds.requested_data_storage_version,
          `quiver ${ours.data_storage_version} requested ${ds.requested_data_storage_version}`);
  }
  for (const [branch, handle] of Object.entries(ds.branch_handles ?? {})) {
    try {
      compareView(`${name}@${branch}`, uri, ["--branch", branch], handle);
    } catch (e) {
      check(`${name}@${branch} inspect`, false, String(e.stderr || e.message).trim());
    }
  }
  for (const [version, rows] of Object.entries(ds.num_rows_by_version ?? {})) {
    try {
      const at = run(["table", "inspect", uri, "--json", "--version", version]);
      check(`${name} v${version} num_rows`, at.num_rows === rows,
            `quiver ${at.num_rows} lancedb ${rows}`);
    } catch (e) {
      check(`${name} v${version} inspect`, false, String(e.stderr || e.message).trim());
    }
  }
}

finish();
