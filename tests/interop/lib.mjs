// Shared helpers for make_fixtures.mjs and read_check.mjs.
//
// Everything under "reported by LanceDB" below comes from the public @lancedb/lancedb API
// (plus the raw microsecond timestamp from the native listVersions(), see versionsOf()).
// The "on_disk" block is observed by listing files; it is labelled as such.

import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { createRequire } from "node:module";

// Which LanceDB drives the run: the one pinned here (0.31.0, ./node_modules) by default, or with
// QV_LANCEDB=0.39 the one pinned in ./lancedb-0.39/ (its own package.json and lockfile; see
// README.md). Every package is resolved from that directory.
export const LANCEDB_SET = process.env.QV_LANCEDB || "";
const here = path.dirname(new URL(import.meta.url).pathname);
const packageDir = LANCEDB_SET ? path.join(here, `lancedb-${LANCEDB_SET}`) : here;
if (LANCEDB_SET && !fs.existsSync(path.join(packageDir, "package.json"))) {
  throw new Error(`QV_LANCEDB=${LANCEDB_SET}: no ${packageDir}/package.json`);
}

// Load the CommonJS builds so that lancedb and our code share one apache-arrow instance
// (mixing the ESM and CJS builds of apache-arrow breaks instanceof checks).
export const interopRequire = createRequire(path.join(packageDir, "package.json"));
const require = interopRequire;
// (Node resolves upwards: without lancedb-0.39/node_modules it would quietly find ours.)
if (LANCEDB_SET && !require.resolve("@lancedb/lancedb").startsWith(path.join(packageDir, "node_modules"))) {
  throw new Error(`QV_LANCEDB=${LANCEDB_SET}: ${packageDir}/node_modules is not installed (scripts/install-interop.sh)`);
}
export const lancedb = require("@lancedb/lancedb");
export const arrow = require("apache-arrow");

// The installed version of a package (its package.json may not be in its "exports").
function installedVersion(name) {
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const pj = path.join(dir, "package.json");
    if (fs.existsSync(pj)) {
      const j = JSON.parse(fs.readFileSync(pj, "utf8"));
      if (j.name === name) return j.version;
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

export const VERSIONS = {
  lancedb: installedVersion("@lancedb/lancedb"),
  apache_arrow: installedVersion("apache-arrow"),
  node: process.version,
};

// ---------------------------------------------------------------------------------------------
// Schema description

// type: apache-arrow's display name ("Int64", "Utf8", "FixedSizeList[8]<Float32>", ...);
// type_id: the Arrow type id's name ("Int", "Utf8", "FixedSizeList", ...).
function describeType(t) {
  const d = { type: t.toString(), type_id: arrow.Type[t.typeId] ?? String(t.typeId) };
  if (arrow.DataType.isFixedSizeList(t)) d.list_size = t.listSize;
  if (arrow.DataType.isTimestamp(t)) {
    d.unit = arrow.TimeUnit[t.unit];
    d.timezone = t.timezone ?? null;
  }
  if (t.children && t.children.length) d.children = t.children.map(describeField);
  return d;
}

function describeField(f) {
  const out = { name: f.name, ...describeType(f.type), nullable: f.nullable };
  if (f.metadata && f.metadata.size) out.metadata = Object.fromEntries(f.metadata);
  return out;
}

export function describeSchema(schema) {
  const out = { fields: schema.fields.map(describeField) };
  if (schema.metadata && schema.metadata.size) out.metadata = Object.fromEntries(schema.metadata);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Versions, tags, branches, indices

// Table.listVersions() converts the native microsecond timestamp into a JS Date (ms precision).
// The native handle (LocalTable.inner, a private TS field) gives the raw integer microseconds.
export async function versionsOf(tbl) {
  const pub = await tbl.listVersions();
  let raw = null;
  try {
    if (tbl.inner && typeof tbl.inner.listVersions === "function") raw = await tbl.inner.listVersions();
  } catch {
    raw = null;
  }
  return pub.map((v, i) => ({
    version: v.version,
    timestamp: v.timestamp.toISOString(),
    timestamp_ms: v.timestamp.getTime(),
    timestamp_us: raw && raw[i] && raw[i].version === v.version ? raw[i].timestamp : null,
    metadata: v.metadata,
  }));
}

export async function tagsOf(tbl) {
  const tags = await (await tbl.tags()).list();
  const out = {};
  // TagContents is a napi class: read the fields explicitly (JSON.stringify gives {}).
  for (const name of Object.keys(tags).sort()) {
    out[name] = { version: tags[name].version, manifest_size: tags[name].manifestSize };
  }
  return out;
}

export async function branchesOf(tbl) {
  const br = await (await tbl.branches()).list();
  const out = {};
  for (const name of Object.keys(br).sort()) {
    const b = br[name];
    out[name] = {
      parent_branch: b.parentBranch ?? null,
      parent_version: b.parentVersion,
      manifest_size: b.manifestSize,
    };
  }
  return out;
}

export async function indicesOf(tbl) {
  const idx = await tbl.listIndices();
  const out = [];
  for (const i of idx) {
    const e = {
      name: i.name,
      index_type: i.indexType,
      columns: i.columns,
      index_uuid: i.indexUuid ?? null,
      type_url: i.typeUrl ?? null,
      created_at: i.createdAt ? i.createdAt.toISOString() : null,
      num_indexed_rows: i.numIndexedRows ?? null,
      num_unindexed_rows: i.numUnindexedRows ?? null,
      size_bytes: i.sizeBytes ?? null,
      num_segments: i.numSegments ?? null,
      index_version: i.indexVersion ?? null,
      index_details: i.indexDetails ?? null,
    };
    try {
      const s = await tbl.indexStats(i.name);
      if (s) {
        e.stats = {
          index_type: s.indexType,
          distance_type: s.distanceType ?? null,
          num_indexed_rows: s.numIndexedRows,
          num_unindexed_rows: s.numUnindexedRows,
          num_indices: s.numIndices ?? null,
        };
      }
    } catch (err) {
      e.stats_error = String(err.message ?? err);
    }
    out.push(e);
  }
  out.sort((a, b) => a.name.localeCompare(b.name));
  return out;
}

// count / sum / min / max of the int64 column `col` at the checked-out version (null if absent).
export async function idChecksum(tbl, col = "id") {
  const schema = await tbl.schema();
  if (!schema.fields.some((f) => f.name === col)) return null;
  const t = await tbl.query().select([col]).toArrow();
  let n = 0, sum = 0n, min = null, max = null, nulls = 0;
  for (const batch of t.batches) {
    const c = batch.getChild(col);
    for (let i = 0; i < c.length; i++) {
      const v = c.get(i);
      if (v === null) { nulls++; continue; }
      const b = BigInt(v);
      n++; sum += b;
      if (min === null || b < min) min = b;
      if (max === null || b > max) max = b;
    }
  }
  return { column: col, count: n, nulls, sum: sum.toString(), min: min?.toString() ?? null, max: max?.toString() ?? null };
}

// Everything LanceDB reports about the table handle at its current (checked-out or latest)
// version. perVersion: also check out every listed version and record its countRows()
// (true), a list of versions to sample, or nothing (false).
export async function describeTable(tbl, { perVersion = true } = {}) {
  const out = {};
  out.version = await tbl.version();
  out.num_rows = await tbl.countRows();
  out.schema = describeSchema(await tbl.schema());
  out.current_branch = tbl.currentBranch();
  out.versions = await versionsOf(tbl);
  out.tags = await tagsOf(tbl);
  try {
    out.branches = await branchesOf(tbl);
  } catch (err) {
    out.branches_error = String(err.message ?? err);
  }
  out.indices = await indicesOf(tbl);
  out.uses_v2_manifest_paths = await tbl.usesV2ManifestPaths();
  const st = await tbl.stats();
  out.stats = {
    total_bytes: st.totalBytes,
    num_rows: st.numRows,
    num_indices: st.numIndices,
    num_fragments: st.fragmentStats.numFragments,
    num_small_fragments: st.fragmentStats.numSmallFragments,
  };
  out.id_checksum = await idChecksum(tbl);

  if (perVersion) {
    const wanted = perVersion === true ? out.versions.map((v) => v.version) : perVersion;
    const latest = out.version;
    const counts = {};
    for (const v of wanted) {
      await tbl.checkout(v);
      counts[v] = await tbl.countRows();
    }
    // Return the handle to where it was: latest, or the pinned version.
    await tbl.checkoutLatest();
    if ((await tbl.version()) !== latest) await tbl.checkout(latest);
    out.num_rows_by_version = counts;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// On-disk observation (not from the LanceDB API)

export function listFiles(dir) {
  const out = [];
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, "");
  return out.sort();
}

// Lance file footer: ... u16 major, u16 minor, "LANC". 2.0 files say 0.3, 2.1 files say 2.1.
export function lanceFileVersion(file) {
  const fd = fs.openSync(file, "r");
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(8);
    fs.readSync(fd, buf, 0, 8, size - 8);
    if (buf.toString("latin1", 4, 8) !== "LANC") return null;
    const major = buf.readUInt16LE(0), minor = buf.readUInt16LE(2);
    const label = major === 0 && minor === 3 ? "2.0" : major === 0 ? "legacy(0.1)" : `${major}.${minor}`;
    return { major, minor, label };
  } finally {
    fs.closeSync(fd);
  }
}

function classify(rel) {
  const parts = rel.split("/");
  let prefix = "";
  if (parts[0] === "tree") {
    // tree/<branch>/... — branch names may contain '/', find the known subdir.
    const k = parts.findIndex((p, i) => i > 1 && ["_versions", "_transactions", "_deletions", "data", "_indices", "_refs"].includes(p));
    if (k > 0) {
      prefix = parts.slice(0, k).join("/") + "/";
      return { prefix, dir: parts[k], name: parts.slice(k + 1).join("/") };
    }
  }
  return { prefix, dir: parts.length > 1 ? parts[0] : ".", name: parts.slice(1).join("/") || parts[0] };
}

export function describeOnDisk(dsDir, { maxListed = 250 } = {}) {
  const files = listFiles(dsDir);
  const groups = {};
  const dataVersions = {};
  const manifestNaming = new Set();
  for (const rel of files) {
    const { prefix, dir, name } = classify(rel);
    const key = prefix + dir;
    const ext = name.includes(".") ? name.slice(name.lastIndexOf(".")) : "";
    groups[key] ??= { count: 0, by_ext: {} };
    groups[key].count++;
    groups[key].by_ext[ext] = (groups[key].by_ext[ext] ?? 0) + 1;
    if (dir === "_versions" && ext === ".manifest") {
      const stem = name.slice(0, -".manifest".length);
      manifestNaming.add(/^\d{20}$/.test(stem) ? "v2" : /^\d+$/.test(stem) ? "v1" : "other");
    }
    if (dir === "data" && ext === ".lance") {
      const v = lanceFileVersion(path.join(dsDir, rel));
      const label = v ? v.label : "unknown";
      dataVersions[label] = (dataVersions[label] ?? 0) + 1;
    }
  }
  const refs = {};
  for (const rel of files) {
    if (rel.startsWith("_refs/") && rel.endsWith(".json")) {
      refs[rel] = JSON.parse(fs.readFileSync(path.join(dsDir, rel), "utf8"));
    }
  }
  const versionHints = {};
  for (const rel of files) {
    if (rel.endsWith("_versions/latest_version_hint.json")) {
      versionHints[rel] = JSON.parse(fs.readFileSync(path.join(dsDir, rel), "utf8"));
    }
  }
  const out = {
    note: "observed by listing the dataset directory, not reported by the LanceDB API",
    file_count: files.length,
    groups,
    manifest_naming: [...manifestNaming].sort(),
    data_file_versions: dataVersions,
    refs,
    version_hints: versionHints,
  };
  if (files.length <= maxListed) out.files = files;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Opening a dataset by path

// LanceDB opens tables by name under a connection root (<root>/<name>.lance), and connect()
// creates <root>/__manifest. To open an arbitrary dataset directory without writing next to it,
// link it into a private temporary root as t.lance. Returns { db, name, cleanup }.
export function resolveDatasetPath(uri) {
  let p = uri;
  if (p.startsWith("file://")) p = decodeURIComponent(new URL(p).pathname);
  else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) throw new Error(`only local paths and file:// URIs are supported: ${uri}`);
  return path.resolve(p.replace(/\/+$/, ""));
}

export async function connectToDataset(uri) {
  const p = resolveDatasetPath(uri);
  if (!fs.existsSync(p) || !fs.statSync(p).isDirectory()) throw new Error(`no such dataset directory: ${p}`);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "qv-read-"));
  fs.symlinkSync(p, path.join(root, "t.lance"), "dir");
  const db = await lancedb.connect(root);
  return {
    db,
    name: "t",
    root,
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

export function bigintReplacer(_k, v) {
  return typeof v === "bigint" ? v.toString() : v;
}

// A deterministic PRNG (mulberry32): returns a function yielding floats in [0, 1) from `seed`.
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// An Arrow table of `schema` = (id Int64, a Utf8 column, a FixedSizeList<Float32> vector):
// `ids` a BigInt64Array, `texts` strings, `vec` a Float32Array of ids.length * list size floats.
export function idTextVectorTable(schema, ids, texts, vec) {
  const n = ids.length;
  const vectorType = schema.fields[2].type;
  const idData = arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: ids });
  const textData = arrow.vectorFromArray(texts, new arrow.Utf8()).data[0];
  const child = arrow.makeData({
    type: new arrow.Float32(), length: n * vectorType.listSize, nullCount: 0, data: vec });
  const vecData = arrow.makeData({ type: vectorType, length: n, nullCount: 0, child });
  const struct = arrow.makeData({
    type: new arrow.Struct(schema.fields),
    length: n,
    nullCount: 0,
    children: [idData, textData, vecData],
  });
  return new arrow.Table([new arrow.RecordBatch(schema, struct)]);
}

