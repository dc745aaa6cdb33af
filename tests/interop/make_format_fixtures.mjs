#!/usr/bin/env node
// Writes the Lance *data file* fixtures for quiver's native reader/writer tests (docs/format-plan.md
// §3, docs/format-fixtures.md): LanceDB tables plus, for each, the source data as an Arrow IPC file.
//
//   node make_format_fixtures.mjs <out_dir> [--if-stale] [--only <regexp>]
//
//   <out_dir>/tables/<name>.lance     local LanceDB datasets (lancedb.connect(<out_dir>/tables))
//   <out_dir>/expected/<name>.arrow   Arrow IPC *file* of the rows the table holds (apache-arrow
//                                     18.1 tableToIPC(table, "file") of the very Arrow table given
//                                     to LanceDB; for `deletes_*` the rows left after the delete)
//   <out_dir>/expected.json           {generator, tables: {name: {rows, storage_version, columns,
//                                     ...}}, skipped, notes, summary}
//   <out_dir>/stamp.sha256            written last, only by a complete successful run: sha256 of
//                                     this script + lib.mjs + format_lib.mjs + package-lock.json +
//                                     QV_FORMAT_BIG_ROWS
//
// --if-stale: do nothing (exit 0) when stamp.sha256 matches and expected.json exists (CTest cache).
// --only:     only the tables whose name matches (for debugging; expected.json then lists only
//             them, and the stamp is removed so that the next --if-stale run regenerates).
// Without --only the whole <out_dir>/tables and <out_dir>/expected are removed first.
// <out_dir> defaults to $QUIVER_FORMAT_FIXTURES. QV_FORMAT_BIG_ROWS sets the largest matrix tier
// (default 100000, see BIG_ROWS below).
//
// Data is deterministic (mulberry32 seeded per table-data and column path; v2.0 and v2.1 variants of
// a matrix cell hold identical data, and their expected files are hard links of one file). UUIDs,
// data file names and timestamps are not deterministic.
//
// Every table is read back through LanceDB (schema + rows; sampled above 20,000 rows) and compared
// with its expected file as parsed back; a difference other than the documented ones (2.0 null
// structs, FixedSizeList item nullability/metadata) fails the run.
//
// Exit status: 0 ok, 1 a table failed or read back differently, 2 bad usage, 77 LanceDB not
// installed (CTest SKIP_RETURN_CODE).

import fs from "node:fs";
import path from "node:path";
import crypto from "node:crypto";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
// The lockfile is that of the LanceDB set the run uses (QV_LANCEDB, lib.mjs).
const LOCK = process.env.QV_LANCEDB ? `lancedb-${process.env.QV_LANCEDB}/package-lock.json` : "package-lock.json";
const STAMP_INPUTS = ["make_format_fixtures.mjs", "lib.mjs", "format_lib.mjs", LOCK];
// Row count of the largest matrix tier: 100,000 as the issue and docs/format-plan.md §3 ask (with
// every type in three wrappings that is ~60 MB of Arrow per table and ~500 MB for the whole
// output, ~25 s; it is what makes the matrix columns span several pages). QV_FORMAT_BIG_ROWS=10000
// gives a ~100 MB set for quick local runs.
const BIG_ROWS = Number(process.env.QV_FORMAT_BIG_ROWS ?? 100000);

// ---------------------------------------------------------------------------------------------
// Command line, cache stamp, skip when LanceDB is absent (before lib.mjs loads it)

function usage(msg) {
  if (msg) console.error(msg);
  console.error("usage: node make_format_fixtures.mjs <out_dir> [--if-stale] [--only <regexp>]");
  process.exit(2);
}

const argv = process.argv.slice(2);
let outArg = null, ifStale = false, only = null;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--if-stale") ifStale = true;
  else if (a === "--only") { if (i + 1 >= argv.length) usage("--only needs a value"); only = new RegExp(argv[++i]); }
  else if (a === "-h" || a === "--help") usage();
  else if (a.startsWith("-")) usage(`unknown option ${a}`);
  else if (outArg === null) outArg = a;
  else usage(`unexpected argument ${a}`);
}
outArg ??= process.env.QUIVER_FORMAT_FIXTURES;
if (!Number.isInteger(BIG_ROWS) || BIG_ROWS < 2) usage(`bad QV_FORMAT_BIG_ROWS=${process.env.QV_FORMAT_BIG_ROWS}`);
if (!outArg) usage("no <out_dir> (and QUIVER_FORMAT_FIXTURES is not set)");
const OUT = path.resolve(outArg);

function stampHash() {
  const h = crypto.createHash("sha256");
  h.update(`QV_FORMAT_BIG_ROWS=${BIG_ROWS}\0`);
  for (const f of STAMP_INPUTS) {
    h.update(`${f}\0`);
    h.update(fs.readFileSync(path.join(HERE, f)));
    h.update("\0");
  }
  return h.digest("hex");
}
const STAMP = stampHash();
const STAMP_FILE = path.join(OUT, "stamp.sha256");

const MODULES = path.join(HERE, path.dirname(LOCK), "node_modules");
if (!fs.existsSync(path.join(MODULES, "@lancedb", "lancedb"))
    || !fs.existsSync(path.join(MODULES, "apache-arrow"))) {
  console.log(`SKIP: ${MODULES} has no @lancedb/lancedb / apache-arrow (run scripts/install-interop.sh)`);
  process.exit(77);
}
if (ifStale && !only && fs.existsSync(path.join(OUT, "expected.json")) && fs.existsSync(STAMP_FILE)
    && fs.readFileSync(STAMP_FILE, "utf8").trim() === STAMP) {
  console.log(`format fixtures in ${OUT} are up to date (stamp ${STAMP.slice(0, 12)}); nothing to do`);
  process.exit(0);
}

const { lancedb, arrow, VERSIONS, mulberry32, lanceFileVersion, listFiles } = await import("./lib.mjs");
const { patchAllNullBoolWriter, readBack, toBitmap } = await import("./format_lib.mjs");

// The all-null Bool IPC writer fix (format_lib.mjs): applies to the buffers LanceDB receives and to
// expected/*.arrow alike.
patchAllNullBoolWriter();

// ---------------------------------------------------------------------------------------------
// Small helpers

function fnv1a(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
const SEED = 20260501;
const rngFor = (...parts) => mulberry32((SEED ^ fnv1a(parts.join("/"))) >>> 0);

const randInt = (rnd, lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1)); // inclusive
function randU64(rnd) {
  return (BigInt(Math.floor(rnd() * 2 ** 32)) << 32n) | BigInt(Math.floor(rnd() * 2 ** 32));
}
const I64_MIN = -(2n ** 63n), I64_MAX = 2n ** 63n - 1n, U64_MAX = 2n ** 64n - 1n;

const isValid = (valid, i) => !valid || valid[i] === 1;

// ---------------------------------------------------------------------------------------------
// Null policy
//
//   none: every field non-nullable, no nulls, no null structs/lists (lists may be empty).
//   some: nullable fields; a value slot is null where its index i % 7 == 3 (flat columns, struct
//         members, list items: the index inside the items array); the struct column `s` is null
//         where i % 11 == 5, the list columns `l_*` where i % 13 == 8; members/items under a null
//         parent are null too. Inside struct<a,b>: a null where i % 5 == 2, b where i % 3 == 1.
//         FixedSizeList items: null where item index % 13 == 5.
//   all:  every top-level value null (except the `id` row index); no list items at all.

const NULLS = ["none", "some", "all"];
const SLOT = (i) => i % 7 !== 3;

function validity(n, parent, np, pred = SLOT) {
  if (np.mode === "none") return null;
  const v = new Uint8Array(n);
  if (np.mode === "all") return v;
  for (let i = 0; i < n; i++) v[i] = (!parent || parent[i]) && pred(i) ? 1 : 0;
  return v;
}
// Children of a null parent are null; otherwise their own pattern applies.
function childValidity(n, parentValid, np, pred = SLOT) {
  if (np.mode === "none") return null;
  if (np.mode === "all") return new Uint8Array(n);
  return validity(n, parentValid, np, pred);
}

// ---------------------------------------------------------------------------------------------
// Value generators. Each returns arrow Data of length n with validity `valid`; slots under nulls
// hold zeros / empty values. Edge values come first (index 0 = the most extreme), then random
// values; integer blocks of 1024 pick a random bit width so bitpacking sees many widths.

const INT_SPECS = {
  int8: { bits: 8, signed: true, T: () => new arrow.Int8(), A: Int8Array },
  int16: { bits: 16, signed: true, T: () => new arrow.Int16(), A: Int16Array },
  int32: { bits: 32, signed: true, T: () => new arrow.Int32(), A: Int32Array },
  int64: { bits: 64, signed: true, T: () => new arrow.Int64(), A: BigInt64Array },
  uint8: { bits: 8, signed: false, T: () => new arrow.Uint8(), A: Uint8Array },
  uint16: { bits: 16, signed: false, T: () => new arrow.Uint16(), A: Uint16Array },
  uint32: { bits: 32, signed: false, T: () => new arrow.Uint32(), A: Uint32Array },
  uint64: { bits: 64, signed: false, T: () => new arrow.Uint64(), A: BigUint64Array },
};

function intEdges(bits, signed) {
  if (bits === 64) {
    return signed
      ? [I64_MIN, I64_MAX, 0n, -1n, 1n, -(2n ** 53n) - 1n, 2n ** 53n + 1n]
      : [U64_MAX, 0n, 1n, 2n ** 63n, 2n ** 63n - 1n, 2n ** 32n];
  }
  if (signed) {
    const max = 2 ** (bits - 1) - 1;
    return [-max - 1, max, 0, -1, 1];
  }
  const max = 2 ** bits - 1;
  return [max, 0, 1, max - 1, 2 ** (bits - 1)];
}

const WIDTHS = [0, 1, 2, 3, 5, 7, 8, 11, 13, 16, 20, 24, 31, 32, 40, 48, 63, 64];
function intValues(spec, n, valid, rnd) {
  const { bits, signed, A } = spec;
  const out = new A(n);
  const edges = intEdges(bits, signed);
  const big = bits === 64;
  let w = 0, neg = false;
  for (let i = 0; i < n; i++) {
    if (i % 1024 === 0) {
      const ws = WIDTHS.filter((x) => x <= (signed ? bits - 1 : bits));
      w = ws[Math.floor(rnd() * ws.length)];
      neg = signed && rnd() < 0.3;
    }
    let v;
    if (i < edges.length) v = edges[i];
    else if (big) {
      let u = randU64(rnd) & ((1n << BigInt(w)) - 1n);
      if (neg && rnd() < 0.5) u = -u - 1n;
      v = signed ? BigInt.asIntN(64, u) : u;
    } else {
      let u = w === 0 ? 0 : Math.floor(rnd() * 2 ** w);
      if (neg && rnd() < 0.5) u = -u - 1;
      v = u;
    }
    if (!isValid(valid, i)) v = big ? 0n : 0;
    out[i] = v;
  }
  return out;
}

const F32_EDGES = [-0, NaN, Infinity, -Infinity, 3.4028234663852886e38, -3.4028234663852886e38,
  1.401298464324817e-45, 1.1754943508222875e-38, 0, 1, -1.5];
const F64_EDGES = [-0, NaN, Infinity, -Infinity, Number.MAX_VALUE, -Number.MAX_VALUE, 5e-324,
  2.2250738585072014e-308, 0, 1, -1.5, 0.1];
// Float16 as raw bits: -0, NaN, +inf, -inf, 65504, -65504, min subnormal, min normal, 0, 1, -1.5
const F16_EDGES = [0x8000, 0x7e00, 0x7c00, 0xfc00, 0x7bff, 0xfbff, 0x0001, 0x0400, 0x0000, 0x3c00, 0xbe00];

function floatValues(kind, n, valid, rnd) {
  const out = kind === 16 ? new Uint16Array(n) : kind === 32 ? new Float32Array(n) : new Float64Array(n);
  const edges = kind === 16 ? F16_EDGES : kind === 32 ? F32_EDGES : F64_EDGES;
  let scale = 1, integral = false;
  for (let i = 0; i < n; i++) {
    if (i % 1024 === 0) {
      scale = 10 ** randInt(rnd, -3, 6);
      integral = rnd() < 0.25;
    }
    let v;
    if (i < edges.length) v = edges[i];
    else if (kind === 16) {
      v = (rnd() < 0.5 ? 0x8000 : 0) | (randInt(rnd, 1, 29) << 10) | randInt(rnd, 0, 1023);
    } else {
      v = (rnd() * 2 - 1) * scale;
      if (integral) v = Math.round(v);
    }
    out[i] = isValid(valid, i) ? v : 0;
  }
  return out;
}

const STR_EDGES = ["", "é", "日本語", "🦀 crab", "a\u0000b", "\u{10FFFF}", " ", "Grüße, Zürich — ünïcödé ✓"];
const MB_CHARS = ["é", "ß", "ø", "中", "文", "😀", "🦀", "ü", "Ω"];
const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
function randomString(rnd, maxLen) {
  const len = randInt(rnd, 0, maxLen);
  let s = "";
  for (let k = 0; k < len; k++) {
    s += rnd() < 0.1 ? MB_CHARS[Math.floor(rnd() * MB_CHARS.length)] : ALNUM[Math.floor(rnd() * ALNUM.length)];
  }
  return s;
}

const enc = new TextEncoder();
// Builds Utf8/Binary Data from an array of strings / Uint8Arrays / null.
function varData(type, vals) {
  const n = vals.length;
  const large = arrow.DataType.isLargeUtf8(type) || arrow.DataType.isLargeBinary(type);
  const offsets = large ? new BigInt64Array(n + 1) : new Int32Array(n + 1);
  const parts = new Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = vals[i];
    const b = v === null ? null : typeof v === "string" ? enc.encode(v) : v;
    parts[i] = b;
    total += b ? b.length : 0;
    if (total > 0x7fffffff) throw new Error("varData: too many bytes for 32-bit offsets");
    offsets[i + 1] = large ? BigInt(total) : total;
  }
  const data = new Uint8Array(total);
  for (let i = 0; i < n; i++) if (parts[i]) data.set(parts[i], Number(offsets[i]));
  const valid = vals.some((v) => v === null) ? Uint8Array.from(vals, (v) => (v === null ? 0 : 1)) : null;
  return arrow.makeData({ type, length: n, valueOffsets: offsets, data, ...toBitmap(valid, n) });
}

function utf8Values(n, valid, rnd, maxLen = 14) {
  const vals = new Array(n);
  for (let i = 0; i < n; i++) {
    vals[i] = !isValid(valid, i) ? null : i < STR_EDGES.length ? STR_EDGES[i] : randomString(rnd, maxLen);
  }
  return vals;
}

const BIN_EDGES = [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0xff, 0x00, 0xfe), new Uint8Array(16).fill(0xaa)];
function binaryValues(n, valid, rnd) {
  const vals = new Array(n);
  for (let i = 0; i < n; i++) {
    if (!isValid(valid, i)) vals[i] = null;
    else if (i < BIN_EDGES.length) vals[i] = BIN_EDGES[i];
    else {
      const b = new Uint8Array(randInt(rnd, 0, 8));
      for (let k = 0; k < b.length; k++) b[k] = Math.floor(rnd() * 256);
      vals[i] = b;
    }
  }
  return vals;
}

// 128-bit two's complement, little-endian u32 words
function putI128(words, i, v) {
  let u = BigInt.asUintN(128, v);
  for (let k = 0; k < 4; k++) {
    words[i * 4 + k] = Number(u & 0xffffffffn);
    u >>= 32n;
  }
}
const DEC_MAX = 10n ** 38n - 1n;
const DEC_EDGES = [-DEC_MAX, DEC_MAX, 0n, 1n, -1n, 10n ** 9n, -123456789012345678901234567890n];

const DAY_MS = 86400000n;
const DATE32_EDGES = [-719162, 2932896, 0, -1, 1]; // 0001-01-01, 9999-12-31, epoch, ±1 day
const TS_MS_EDGES = [-62135596800000n, 253402300799999n, 0n, -1n, 1n];
const TS_US_EDGES = [-62135596800000000n, 253402300799999999n, 0n, -1n, 1n];

const DICT_WORDS = ["", "alpha", "beta", "gamma", "delta", "é", "日本語", "🦀", "a much longer dictionary value, 40+ bytes"];
const LIST_LENGTHS = [0, 0, 1, 1, 1, 2, 2, 3]; // mean 1.25

// ---------------------------------------------------------------------------------------------
// The type catalog. type(np) makes a fresh Arrow type (nested fields nullable unless np.mode is
// "none"); gen(type, n, valid, rnd, np) makes Data of that type.

const nullableOf = (np) => np.mode !== "none";

function listOffsets(n, valid, rnd) {
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    let len = LIST_LENGTHS[Math.floor(rnd() * LIST_LENGTHS.length)];
    if (!isValid(valid, i) || i % 5 === 1) len = 0; // i % 5 == 1: always an empty list
    offsets[i + 1] = offsets[i] + len;
  }
  return offsets;
}

const CATALOG = [];
function def(key, type, gen, { matrix = true } = {}) {
  CATALOG.push({ key, type, gen, matrix });
}
for (const [key, spec] of Object.entries(INT_SPECS)) {
  def(key, spec.T, (type, n, valid, rnd) =>
    arrow.makeData({ type, length: n, data: intValues(spec, n, valid, rnd), ...toBitmap(valid, n) }));
}
def("float16", () => new arrow.Float16(), (type, n, valid, rnd) =>
  arrow.makeData({ type, length: n, data: floatValues(16, n, valid, rnd), ...toBitmap(valid, n) }));
def("float32", () => new arrow.Float32(), (type, n, valid, rnd) =>
  arrow.makeData({ type, length: n, data: floatValues(32, n, valid, rnd), ...toBitmap(valid, n) }));
def("float64", () => new arrow.Float64(), (type, n, valid, rnd) =>
  arrow.makeData({ type, length: n, data: floatValues(64, n, valid, rnd), ...toBitmap(valid, n) }));
def("bool", () => new arrow.Bool(), (type, n, valid, rnd) => {
  const bits = new Uint8Array(Math.max(1, Math.ceil(n / 8)));
  let cur = true, runLeft = 0;
  for (let i = 0; i < n; i++) {
    if (i === 0) cur = true;
    else if (i === 1) cur = false;
    else if (runLeft-- <= 0) { cur = rnd() < 0.5; runLeft = rnd() < 0.5 ? 0 : randInt(rnd, 1, 200); }
    if (cur && isValid(valid, i)) bits[i >> 3] |= 1 << (i & 7);
  }
  return arrow.makeData({ type, length: n, data: bits, ...toBitmap(valid, n) });
});
def("utf8", () => new arrow.Utf8(), (type, n, valid, rnd) => varData(type, utf8Values(n, valid, rnd)));
def("binary", () => new arrow.Binary(), (type, n, valid, rnd) => varData(type, binaryValues(n, valid, rnd)));
def("fsb16", () => new arrow.FixedSizeBinary(16), (type, n, valid, rnd) => {
  const data = new Uint8Array(n * 16);
  for (let i = 0; i < n; i++) {
    if (!isValid(valid, i)) continue;
    for (let k = 0; k < 16; k++) {
      data[i * 16 + k] = i === 0 ? 0xff : i === 1 ? 0 : i === 2 ? k : Math.floor(rnd() * 256);
    }
  }
  return arrow.makeData({ type, length: n, data, ...toBitmap(valid, n) });
});
def("date32", () => new arrow.DateDay(), (type, n, valid, rnd) => {
  const data = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = i < DATE32_EDGES.length ? DATE32_EDGES[i] : randInt(rnd, -40000, 40000);
    data[i] = isValid(valid, i) ? v : 0;
  }
  return arrow.makeData({ type, length: n, data, ...toBitmap(valid, n) });
});
def("date64", () => new arrow.DateMillisecond(), (type, n, valid, rnd) => {
  const data = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    const d = i < DATE32_EDGES.length ? DATE32_EDGES[i] : randInt(rnd, -40000, 40000);
    data[i] = isValid(valid, i) ? BigInt(d) * DAY_MS : 0n; // whole days, as the Arrow spec asks
  }
  return arrow.makeData({ type, length: n, data, ...toBitmap(valid, n) });
});
def("ts_ms_utc", () => new arrow.TimestampMillisecond("UTC"), (type, n, valid, rnd) => {
  const data = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    const v = i < TS_MS_EDGES.length ? TS_MS_EDGES[i] : BigInt(1.7e12 + Math.floor(rnd() * 1e10));
    data[i] = isValid(valid, i) ? v : 0n;
  }
  return arrow.makeData({ type, length: n, data, ...toBitmap(valid, n) });
});
def("ts_us", () => new arrow.TimestampMicrosecond(), (type, n, valid, rnd) => {
  const data = new BigInt64Array(n);
  for (let i = 0; i < n; i++) {
    const v = i < TS_US_EDGES.length ? TS_US_EDGES[i] : BigInt(1.7e15 + Math.floor(rnd() * 1e13));
    data[i] = isValid(valid, i) ? v : 0n;
  }
  return arrow.makeData({ type, length: n, data, ...toBitmap(valid, n) });
});
def("decimal128", () => new arrow.Decimal(9, 38, 128), (type, n, valid, rnd) => {
  const data = new Uint32Array(n * 4);
  for (let i = 0; i < n; i++) {
    if (!isValid(valid, i)) continue;
    let v;
    if (i < DEC_EDGES.length) v = DEC_EDGES[i];
    else {
      v = randU64(rnd) >> BigInt(randInt(rnd, 0, 40));
      if (rnd() < 0.4) v = -v;
    }
    putI128(data, i, v);
  }
  return arrow.makeData({ type, length: n, data, ...toBitmap(valid, n) });
});
def("list_int32", (np) => new arrow.List(new arrow.Field("item", new arrow.Int32(), nullableOf(np))),
  (type, n, valid, rnd, np) => {
    const offsets = listOffsets(n, valid, rnd);
    const m = offsets[n];
    const itemValid = childValidity(m, null, np);
    const child = arrow.makeData({ type: type.children[0].type, length: m,
      data: intValues(INT_SPECS.int32, m, itemValid, rnd), ...toBitmap(itemValid, m) });
    return arrow.makeData({ type, length: n, valueOffsets: offsets, child, ...toBitmap(valid, n) });
  });
def("fsl_f32_8", (np) => new arrow.FixedSizeList(8, new arrow.Field("item", new arrow.Float32(), nullableOf(np))),
  (type, n, valid, rnd, np) => {
    const m = n * 8;
    const rowOf = new Uint8Array(m);
    for (let k = 0; k < m; k++) rowOf[k] = isValid(valid, Math.floor(k / 8)) ? 1 : 0;
    const itemValid = childValidity(m, rowOf, np, (k) => k % 13 !== 5);
    const values = floatValues(32, m, itemValid, rnd);
    // LanceDB's add() refuses NaN in a FixedSizeList<float> ("vector") column; createTable takes it.
    if (np.noNaN) for (let k = 0; k < m; k++) if (Number.isNaN(values[k])) values[k] = 0.5;
    const child = arrow.makeData({ type: type.children[0].type, length: m, data: values, ...toBitmap(itemValid, m) });
    return arrow.makeData({ type, length: n, child, ...toBitmap(valid, n) });
  });
def("struct", (np) => new arrow.Struct([
  new arrow.Field("a", new arrow.Int32(), nullableOf(np)),
  new arrow.Field("b", new arrow.Utf8(), nullableOf(np)),
]), (type, n, valid, rnd, np) => {
  const av = childValidity(n, valid, np, (i) => i % 5 !== 2);
  const bv = childValidity(n, valid, np, (i) => i % 3 !== 1);
  const a = arrow.makeData({ type: type.children[0].type, length: n,
    data: intValues(INT_SPECS.int32, n, av, rnd), ...toBitmap(av, n) });
  const b = varData(type.children[1].type, utf8Values(n, bv, rnd));
  return arrow.makeData({ type, length: n, children: [a, b], ...toBitmap(valid, n) });
});
def("dict_utf8", () => new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()), (type, n, valid, rnd) => {
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = i === 0 ? DICT_WORDS.length - 1 : i === 1 ? 0 : Math.floor(rnd() * DICT_WORDS.length);
    idx[i] = isValid(valid, i) ? v : 0;
  }
  const dictionary = new arrow.Vector([varData(new arrow.Utf8(), DICT_WORDS)]);
  return arrow.makeData({ type, length: n, data: idx, dictionary, ...toBitmap(valid, n) });
});
// Not in the matrix (docs/format-plan.md lists them as impossible from JS, but apache-arrow 18.1
// builds them and LanceDB 0.31 takes them): the large_types_* tables. LargeList has no
// apache-arrow JS class.
def("large_utf8", () => new arrow.LargeUtf8(), (type, n, valid, rnd) => varData(type, utf8Values(n, valid, rnd)), { matrix: false });
def("large_binary", () => new arrow.LargeBinary(), (type, n, valid, rnd) => varData(type, binaryValues(n, valid, rnd)), { matrix: false });
const BY_KEY = Object.fromEntries(CATALOG.map((c) => [c.key, c]));
const MATRIX_KEYS = CATALOG.filter((c) => c.matrix).map((c) => c.key);

// A list<T> column of n rows (list validity `valid`), items generated by the catalog entry.
function listOf(entry, n, valid, rnd, np) {
  const itemType = entry.type(np);
  const type = new arrow.List(new arrow.Field("item", itemType, nullableOf(np)));
  const offsets = listOffsets(n, valid, rnd);
  const m = offsets[n];
  const itemValid = childValidity(m, null, np);
  const child = entry.gen(itemType, m, itemValid, rnd, np);
  return { type, data: arrow.makeData({ type, length: n, valueOffsets: offsets, child, ...toBitmap(valid, n) }) };
}

function idData(n, start = 0) {
  const ids = new BigInt64Array(n);
  for (let i = 0; i < n; i++) ids[i] = BigInt(start + i);
  return arrow.makeData({ type: new arrow.Int64(), length: n, data: ids, nullCount: 0 });
}

// Assembles an Arrow table from [{field, data}] (one record batch).
function tableOf(cols, n, metadataFor = null) {
  const fields = cols.map((c) => (metadataFor ? withMetadata(c.field, metadataFor) : c.field));
  const schema = new arrow.Schema(fields);
  const struct = arrow.makeData({ type: new arrow.Struct(fields), length: n, nullCount: 0, children: cols.map((c) => c.data) });
  return new arrow.Table([new arrow.RecordBatch(schema, struct)]);
}

// Field metadata on every field, recursively. Types with children are rebuilt around the new
// child fields; Data keeps the original type object, which apache-arrow accepts because the IPC
// writer takes types from the schema, and LanceDB reads the schema's metadata.
function withMetadata(field, md) {
  const t = field.type;
  let type = t;
  if (arrow.DataType.isList(t)) type = new arrow.List(withMetadata(t.children[0], md));
  else if (arrow.DataType.isFixedSizeList(t)) type = new arrow.FixedSizeList(t.listSize, withMetadata(t.children[0], md));
  else if (arrow.DataType.isStruct(t)) type = new arrow.Struct(t.children.map((f) => withMetadata(f, md)));
  return new arrow.Field(field.name, type, field.nullable, new Map(Object.entries(md)));
}

// The matrix columns: id, t_<key> for every catalog type, s (struct of all t_<key>), l_<key>.
function matrixColumns(n, mode, dataKey, keys = MATRIX_KEYS, { struct = true, lists = true, noNaN = false } = {}) {
  const np = { mode, noNaN };
  const nullable = mode !== "none";
  const cols = [{ field: new arrow.Field("id", new arrow.Int64(), false), data: idData(n) }];
  for (const key of keys) {
    const e = BY_KEY[key];
    const type = e.type(np);
    const v = validity(n, null, np);
    cols.push({ field: new arrow.Field(`t_${key}`, type, nullable), data: e.gen(type, n, v, rngFor(dataKey, `t_${key}`), np) });
  }
  if (struct) {
    const sv = validity(n, null, np, (i) => i % 11 !== 5);
    const fields = [], children = [];
    for (const key of keys) {
      const e = BY_KEY[key];
      const type = e.type(np);
      const v = childValidity(n, sv, np);
      fields.push(new arrow.Field(`t_${key}`, type, nullable));
      children.push(e.gen(type, n, v, rngFor(dataKey, `s.t_${key}`), np));
    }
    const type = new arrow.Struct(fields);
    cols.push({ field: new arrow.Field("s", type, nullable),
      data: arrow.makeData({ type, length: n, children, ...toBitmap(sv, n) }) });
  }
  if (lists) {
    for (const key of keys) {
      const lv = validity(n, null, np, (i) => i % 13 !== 8);
      const { type, data } = listOf(BY_KEY[key], n, lv, rngFor(dataKey, `l_${key}`), np);
      cols.push({ field: new arrow.Field(`l_${key}`, type, nullable), data });
    }
  }
  return cols;
}

// ---------------------------------------------------------------------------------------------
// The read-back check (canonical values, schema comparison, known LanceDB quirks) is readBack()
// in format_lib.mjs, shared with check_format_write.mjs.

// ---------------------------------------------------------------------------------------------
// On-disk facts

function describeColumns(fields) {
  return fields.map((f) => {
    const d = { name: f.name, type: String(f.type), nullable: f.nullable };
    if (f.metadata && f.metadata.size) d.metadata = Object.fromEntries(f.metadata);
    if (f.type.children && f.type.children.length) d.children = describeColumns(f.type.children);
    return d;
  });
}

// Manifest field 15 `data_format {file_format: "lance", version: "2.x"}` as protobuf bytes:
// 7a <len> 0a 05 "lance" 12 <len> <version>. (The writer version, field 13, has the same inner
// shape with "8.0.0", hence the field tag.)
function manifestDataFormat(file) {
  const s = fs.readFileSync(file).toString("latin1");
  const m = /\x7a[\x00-\x7f]\x0a\x05lance\x12([\x01-\x10])/.exec(s);
  return m ? s.substr(m.index + 11, m[1].charCodeAt(0)) : null;
}

// ---- Page layouts, read from the data files (a tiny protobuf walker; see reference F§1-2) ----

function pbFields(b, start = 0, end = b.length) {
  const out = [];
  let p = start;
  const varint = () => {
    let v = 0, mul = 1, byte;
    do {
      byte = b[p++];
      v += (byte & 0x7f) * mul;
      mul *= 128;
    } while (byte & 0x80);
    return v;
  };
  while (p < end) {
    const key = varint();
    const no = Math.floor(key / 8), wt = key & 7;
    if (wt === 0) out.push({ no, v: varint() });
    else if (wt === 2) {
      const len = varint();
      out.push({ no, s: p, e: p + len });
      p += len;
    } else if (wt === 1) { out.push({ no, s: p, e: p + 8 }); p += 8; }
    else if (wt === 5) { out.push({ no, s: p, e: p + 4 }); p += 4; }
    else throw new Error(`protobuf wire type ${wt}`);
  }
  return out;
}
const pbGet = (fields, no) => fields.find((f) => f.no === no);
function packedVarints(b, s, e) {
  const out = [];
  let p = s;
  while (p < e) {
    let v = 0, mul = 1, byte;
    do {
      byte = b[p++];
      v += (byte & 0x7f) * mul;
      mul *= 128;
    } while (byte & 0x80);
    out.push(v);
  }
  return out;
}

const CE_NAMES = [null, "flat", "variable", "constant", "ool_bitpacking", "inline_bitpacking", "fsst", "dictionary",
  "rle", "byte_stream_split", "general", "fixed_size_list", "packed_struct", "variable_packed_struct"];
// lance.encodings21.CompressiveEncoding -> "fsst(variable(flat32))" etc.
function ce(b, s, e) {
  const f = pbFields(b, s, e)[0];
  if (!f) return "?";
  const name = CE_NAMES[f.no] ?? `ce${f.no}`;
  if (f.s === undefined) return name;
  const inner = pbFields(b, f.s, f.e);
  const child = (no) => { const c = pbGet(inner, no); return c && c.s !== undefined ? ce(b, c.s, c.e) : null; };
  switch (name) {
    case "flat": return `flat${pbGet(inner, 1)?.v ?? ""}`;
    case "variable": return `variable(${child(1) ?? ""})`;
    case "inline_bitpacking": return `inline_bitpacking${pbGet(inner, 1)?.v ?? ""}`;
    case "ool_bitpacking": return `ool_bitpacking${pbGet(inner, 1)?.v ?? ""}(${child(3) ?? ""})`;
    case "fsst": return `fsst(${child(2) ?? ""})`;
    case "rle": return `rle(${child(1) ?? ""},${child(2) ?? ""})`;
    case "general": {
      const bc = pbGet(inner, 1);
      const scheme = bc ? pbGet(pbFields(b, bc.s, bc.e), 1)?.v : undefined;
      return `general_${["?", "lz4", "zstd"][scheme ?? 0] ?? scheme}(${child(3) ?? ""})`;
    }
    case "fixed_size_list": return `fsl${pbGet(inner, 1)?.v ?? ""}(${child(2) ?? ""})`;
    case "byte_stream_split": return `bss(${child(1) ?? ""})`;
    default: return name;
  }
}
// lance.encodings21.PageLayout -> short string
function layout21(b, s, e) {
  const f = pbFields(b, s, e)[0];
  if (!f) return "?";
  const inner = f.s !== undefined ? pbFields(b, f.s, f.e) : [];
  const sub = (no) => { const c = pbGet(inner, no); return c && c.s !== undefined ? ce(b, c.s, c.e) : null; };
  if (f.no === 1) {
    const parts = [`v=${sub(3)}`];
    if (sub(1)) parts.push(`rep=${sub(1)}`);
    if (sub(2)) parts.push(`def=${sub(2)}`);
    if (sub(4)) parts.push(`dict=${sub(4)}`);
    return `miniblock[${parts.join(" ")}]`;
  }
  if (f.no === 2) return "constant";
  if (f.no === 3) {
    const bpv = pbGet(inner, 3), bpo = pbGet(inner, 4), br = pbGet(inner, 1)?.v ?? 0, bd = pbGet(inner, 2)?.v ?? 0;
    return `fullzip[v=${sub(7)} ${bpv ? `bits=${bpv.v}` : `offset_bits=${bpo?.v}`}${br ? ` rep=${br}` : ""}${bd ? ` def=${bd}` : ""}]`;
  }
  if (f.no === 4) return "blob";
  return `layout${f.no}`;
}
const AE_NAMES = [null, "flat", "nullable", "fixed_size_list", "list", "struct", "binary", "dictionary", "fsst",
  "packed_struct", "bitpacked", "fixed_size_binary", "bitpacked_for_non_neg", "constant"];
// lance.encodings.ArrayEncoding (2.0) -> "nullable.some(flat64)" etc.
function ae(b, s, e) {
  const f = pbFields(b, s, e)[0];
  if (!f) return "?";
  const name = AE_NAMES[f.no] ?? `ae${f.no}`;
  const inner = f.s !== undefined ? pbFields(b, f.s, f.e) : [];
  const child = (no, fields = inner) => { const c = pbGet(fields, no); return c && c.s !== undefined ? ae(b, c.s, c.e) : "?"; };
  switch (name) {
    case "flat": {
      const comp = pbGet(inner, 3);
      const scheme = comp ? Buffer.from(b.subarray(...(() => { const x = pbGet(pbFields(b, comp.s, comp.e), 1); return [x.s, x.e]; })())).toString() : null;
      return `flat${pbGet(inner, 1)?.v ?? ""}${scheme ? `+${scheme}` : ""}`;
    }
    case "nullable": {
      const n = inner[0];
      if (!n) return "nullable";
      const nf = n.s !== undefined ? pbFields(b, n.s, n.e) : [];
      if (n.no === 1) return `nullable.no_nulls(${child(1, nf)})`;
      if (n.no === 2) return `nullable.some_nulls(${child(2, nf)})`;
      return "nullable.all_nulls";
    }
    case "fixed_size_list": return `fsl${pbGet(inner, 1)?.v ?? ""}(${child(2)})`;
    case "list": return `list(${child(1)})`;
    case "binary": return "binary";
    case "dictionary": return `dictionary(${child(1)},${child(2)})`;
    default: return name;
  }
}

// Leaf column names in file order (2.1: one column per leaf, structs/lists have none; 2.0: struct
// header and list offsets columns come before their children).
function columnNames(fields, v20, prefix = "") {
  const out = [];
  for (const f of fields) {
    const p = prefix ? `${prefix}.${f.name}` : f.name;
    const t = f.type;
    if (arrow.DataType.isStruct(t)) {
      if (v20) out.push(`${p} (struct header)`);
      out.push(...columnNames(t.children, v20, p));
    } else if (arrow.DataType.isList(t)) {
      if (v20) out.push(`${p} (list offsets)`);
      out.push(...columnNames([t.children[0]], v20, p).map((x) => x.replace(/\.item(?=$|[ .])/, "[]")));
    } else out.push(p);
  }
  return out;
}

// The largest mini-block chunk (bytes) of a 2.1/2.2 page, 0 for other layouts. Buffer 0 of a
// mini-block page is the chunk metadata: one word per chunk (u16, or u32 with has_large_chunk,
// MiniBlockLayout field 10) whose bits above the low 4 are the chunk's 8-byte words minus one.
function maxMiniBlockChunk(b, layoutAny, pageFields) {
  const f = pbFields(b, layoutAny.s, layoutAny.e)[0];
  if (!f || f.no !== 1 || f.s === undefined) return 0;
  const large = (pbGet(pbFields(b, f.s, f.e), 10)?.v ?? 0) === 1;
  const offsets = pbGet(pageFields, 1), sizes = pbGet(pageFields, 2);
  if (!offsets || !sizes) return 0;
  const start = packedVarints(b, offsets.s, offsets.e)[0], len = packedVarints(b, sizes.s, sizes.e)[0];
  let max = 0;
  for (let p = start; p + (large ? 4 : 2) <= start + len; p += large ? 4 : 2) {
    const w = large ? b.readUInt32LE(p) : b.readUInt16LE(p);
    max = Math.max(max, (Math.floor(w / 16) + 1) * 8);
  }
  return max;
}

// {column name: {pages, rows, layouts: {layout: pages}}} for one data file.
function pageLayouts(file, schemaFields) {
  const b = fs.readFileSync(file);
  const ft = b.length - 40;
  const u64 = (o) => Number(b.readBigUInt64LE(o));
  const cmoTable = u64(ft + 8), numCols = b.readUInt32LE(ft + 28), major = b.readUInt16LE(ft + 32);
  const v20 = major === 0;
  const names = columnNames(schemaFields, v20);
  const out = {};
  for (let c = 0; c < numCols; c++) {
    const pos = u64(cmoTable + c * 16), len = u64(cmoTable + c * 16 + 8);
    const pages = pbFields(b, pos, pos + len).filter((f) => f.no === 2);
    const col = { pages: pages.length, rows: 0, page_rows: [], bytes: 0, layouts: {} };
    for (const pg of pages) {
      const pf = pbFields(b, pg.s, pg.e);
      const rows = pbGet(pf, 3)?.v ?? 0;
      col.rows += rows;
      col.page_rows.push(rows);
      const sizes = pbGet(pf, 2);
      let nbuf = 0;
      if (sizes) for (const x of packedVarints(b, sizes.s, sizes.e)) { col.bytes += x; nbuf++; }
      let desc = "?";
      const enc = pbGet(pf, 4);
      if (enc) {
        const direct = pbGet(pbFields(b, enc.s, enc.e), 2);
        if (direct) {
          const anyBytes = pbGet(pbFields(b, direct.s, direct.e), 1);
          const any = pbFields(b, anyBytes.s, anyBytes.e);
          const value = pbGet(any, 2);
          desc = value ? (v20 ? ae(b, value.s, value.e) : layout21(b, value.s, value.e)) : "empty";
          if (value && !v20) {
            const chunk = maxMiniBlockChunk(b, value, pf);
            if (chunk > (col.max_chunk_bytes ?? 0)) col.max_chunk_bytes = chunk;
          }
        }
      }
      if (desc === "constant" && nbuf) desc = `constant(${nbuf} buffers)`;
      col.layouts[desc] = (col.layouts[desc] ?? 0) + 1;
    }
    if (col.pages > 12) col.page_rows = `${col.page_rows.length} pages, ${Math.min(...col.page_rows)}..${Math.max(...col.page_rows)} rows`;
    out[names.length === numCols ? names[c] : `column ${c}`] = col;
  }
  return out;
}

function onDisk(dsDir, schemaFields) {
  const files = listFiles(dsDir);
  const data = files.filter((f) => f.startsWith("data/") && f.endsWith(".lance"));
  const manifests = files.filter((f) => f.startsWith("_versions/") && f.endsWith(".manifest")).sort();
  const latest = manifests[0]; // V2 names: u64::MAX - version, so the newest sorts first
  const footers = {};
  const dataFiles = data.map((f) => {
    const v = lanceFileVersion(path.join(dsDir, f));
    footers[v ? v.label : "unknown"] = (footers[v ? v.label : "unknown"] ?? 0) + 1;
    const rec = { path: f, bytes: fs.statSync(path.join(dsDir, f)).size, footer_version: v ? `${v.major}.${v.minor}` : null };
    try {
      rec.columns = pageLayouts(path.join(dsDir, f), schemaFields);
    } catch (err) {
      rec.columns_error = String(err.message ?? err);
    }
    return rec;
  });
  const deletions = files.filter((f) => f.startsWith("_deletions/"));
  let bytes = 0;
  for (const f of files) bytes += fs.statSync(path.join(dsDir, f)).size;
  return {
    manifest_data_format_version: latest ? manifestDataFormat(path.join(dsDir, latest)) : null,
    manifests: manifests.length,
    data_files: dataFiles,
    data_file_footer_versions: footers,
    deletion_files: deletions.map((f) => ({ path: f, bytes: fs.statSync(path.join(dsDir, f)).size })),
    file_count: files.length,
    bytes,
  };
}

// ---------------------------------------------------------------------------------------------
// Table definitions

const STORAGE = { v21: null, v20: "2.0" }; // null: LanceDB's default ("stable" = 2.1)
const ROWS = [0, 1, 1000, BIG_ROWS];

const TABLES = []; // {name, build: async (ctx) => record}
function table(name, build) {
  TABLES.push({ name, build });
}

function storageOpts(version) {
  return version ? { storageOptions: { new_table_data_storage_version: version } } : {};
}

// Shared between the v2.0/v2.1 twins of a matrix cell.
const expectedCache = new Map(); // dataKey -> {file, table}

for (const rows of ROWS) {
  for (const nulls of NULLS) {
    for (const [sv, version] of Object.entries(STORAGE)) {
      const name = `m_r${rows}_${nulls}_${sv}`;
      table(name, async (ctx) => {
        const dataKey = `m_r${rows}_${nulls}`;
        let src = expectedCache.get(dataKey);
        if (!src) {
          const t = tableOf(matrixColumns(rows, nulls, dataKey), rows);
          src = { table: t, file: null };
          expectedCache.set(dataKey, src);
        }
        const rec = { kind: "matrix", rows, nulls, requested_storage_version: version ?? "default" };
        let tbl;
        if (rows === 0) {
          tbl = await ctx.db.createEmptyTable(name, src.table.schema, { mode: "create", ...storageOpts(version) });
          rec.created_with = "createEmptyTable(schema)";
        } else {
          tbl = await ctx.db.createTable(name, src.table, { mode: "create", ...storageOpts(version) });
          rec.created_with = "createTable(arrowTable)";
        }
        src.file = ctx.writeExpected(name, src.table, src.file);
        return { rec, tbl, source: src.table };
      });
    }
  }
}

// With default settings a 2.0 column only gets several pages when the written data is large (the
// 100,000-row matrix: 4-6 pages per column); every column of the default matrix tiers is one page.
// This narrow table is written with LANCE_FILE_WRITER_MAX_PAGE_BYTES=16384 (read by lance's 2.0
// writer at each write; set only around this createTable) so that 2.0 multi-page columns exist.
const MULTIPAGE_V20_PAGE_BYTES = "16384";
table("multipage_v20", async (ctx) => {
  const n = 20000;
  const keys = ["int8", "int32", "bool", "utf8", "list_int32", "struct", "dict_utf8"];
  const cols = matrixColumns(n, "some", "multipage", keys, { struct: false, lists: false });
  const np = { mode: "some" };
  const sv = validity(n, null, np, (i) => i % 11 !== 5);
  const st = new arrow.Struct([new arrow.Field("t_int32", new arrow.Int32(), true), new arrow.Field("t_utf8", new arrow.Utf8(), true)]);
  const sc = [
    BY_KEY.int32.gen(st.children[0].type, n, childValidity(n, sv, np), rngFor("multipage", "s.t_int32"), np),
    BY_KEY.utf8.gen(st.children[1].type, n, childValidity(n, sv, np), rngFor("multipage", "s.t_utf8"), np),
  ];
  cols.push({ field: new arrow.Field("s", st, true), data: arrow.makeData({ type: st, length: n, children: sc, ...toBitmap(sv, n) }) });
  for (const key of ["utf8"]) {
    const { type, data } = listOf(BY_KEY[key], n, validity(n, null, np, (i) => i % 13 !== 8), rngFor("multipage", `l_${key}`), np);
    cols.push({ field: new arrow.Field(`l_${key}`, type, true), data });
  }
  const src = tableOf(cols, n);
  let tbl;
  const before = process.env.LANCE_FILE_WRITER_MAX_PAGE_BYTES;
  process.env.LANCE_FILE_WRITER_MAX_PAGE_BYTES = MULTIPAGE_V20_PAGE_BYTES;
  try {
    tbl = await ctx.db.createTable("multipage_v20", src, { mode: "create", ...storageOpts("2.0") });
  } finally {
    if (before === undefined) delete process.env.LANCE_FILE_WRITER_MAX_PAGE_BYTES;
    else process.env.LANCE_FILE_WRITER_MAX_PAGE_BYTES = before;
  }
  ctx.writeExpected("multipage_v20", src);
  return {
    tbl, source: src,
    rec: { kind: "extra", rows: n, nulls: "some", requested_storage_version: "2.0",
      written_with_env: { LANCE_FILE_WRITER_MAX_PAGE_BYTES: MULTIPAGE_V20_PAGE_BYTES },
      meant_to_hit: "2.0 columns with many pages each (16 KiB pages), list offsets and items columns paged independently, struct header (always one page) over multi-page children, Arrow dictionary over pages" },
  };
});

// LargeUtf8 / LargeBinary (64-bit offsets), flat, in a struct and in lists, both storage versions.
for (const [sv, version] of Object.entries(STORAGE)) {
  const name = `large_types_${sv}`;
  table(name, async (ctx) => {
    const n = 5000;
    let src = expectedCache.get("large_types");
    if (!src) {
      src = { table: tableOf(matrixColumns(n, "some", "large_types", ["large_utf8", "large_binary"]), n), file: null };
      expectedCache.set("large_types", src);
    }
    const tbl = await ctx.db.createTable(name, src.table, { mode: "create", ...storageOpts(version) });
    src.file = ctx.writeExpected(name, src.table, src.file);
    return {
      tbl, source: src.table,
      rec: { kind: "extra", rows: n, nulls: "some", requested_storage_version: version ?? "default",
        meant_to_hit: "64-bit offsets: 2.1 variable(flat64) / FSST over 64-bit offsets; 2.0 Binary (offsets are u64 there anyway); the matrix's null and edge-value patterns" },
    };
  });
}

table("vec128", async (ctx) => {
  const n = 1000, D = 128, rnd = rngFor("vec128");
  const np = { mode: "some" };
  const fslType = (nullableItems) => new arrow.FixedSizeList(D, new arrow.Field("item", new arrow.Float32(), nullableItems));
  const vec = (m, valid) => {
    const vals = new Float32Array(m * D);
    for (let k = 0; k < m * D; k++) vals[k] = isValid(valid, Math.floor(k / D)) ? rnd() * 2 - 1 : 0;
    if (m > 0 && isValid(valid, 0)) { vals[0] = -0; vals[1] = NaN; vals[2] = Infinity; vals[3] = -Infinity; }
    return vals;
  };
  const t1 = fslType(false);
  const v = arrow.makeData({ type: t1, length: n, nullCount: 0,
    child: arrow.makeData({ type: t1.children[0].type, length: n * D, nullCount: 0, data: vec(n, null) }) });
  const nv = validity(n, null, np);
  const t2 = fslType(true);
  const vn = arrow.makeData({ type: t2, length: n, ...toBitmap(nv, n),
    child: arrow.makeData({ type: t2.children[0].type, length: n * D, nullCount: 0, data: vec(n, nv) }) });
  const lv = validity(n, null, np, (i) => i % 13 !== 8);
  const offsets = listOffsets(n, lv, rnd);
  const m = offsets[n];
  const t3 = fslType(true);
  const lt = new arrow.List(new arrow.Field("item", t3, true));
  const mv = arrow.makeData({ type: lt, length: n, valueOffsets: offsets, ...toBitmap(lv, n),
    child: arrow.makeData({ type: t3, length: m, nullCount: 0,
      child: arrow.makeData({ type: t3.children[0].type, length: m * D, nullCount: 0, data: vec(m, null) }) }) });
  const src = tableOf([
    { field: new arrow.Field("id", new arrow.Int64(), false), data: idData(n) },
    { field: new arrow.Field("v", t1, false), data: v },
    { field: new arrow.Field("v_nullable", t2, true), data: vn },
    { field: new arrow.Field("mv", lt, true), data: mv },
  ], n);
  const tbl = await ctx.db.createTable("vec128", src, { mode: "create" });
  ctx.writeExpected("vec128", src);
  return {
    tbl, source: src,
    rec: { kind: "extra", rows: n, requested_storage_version: "default",
      meant_to_hit: { v: "FullZip fixed (4096 bits/value), no rep/def", v_nullable: "FullZip fixed, def levels (every 7th row null), FSL validity",
        mv: "list<fsl<f32,128>> multivector: FullZip fixed with rep+def levels and a repetition index (null lists at i%13==8, empty at i%5==1)" } },
  };
});

// Text-like filler (compressible, for ZSTD/FSST) of exactly `len` bytes (ASCII).
const WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua lance quiver arrow column page chunk".split(" ");
function text(rnd, len) {
  let s = "";
  while (s.length < len) s += WORDS[Math.floor(rnd() * WORDS.length)] + (rnd() < 0.1 ? ". " : " ");
  return s.slice(0, len);
}

table("long_strings", async (ctx) => {
  const n = 48, rnd = rngFor("long_strings");
  const big = [], mid = [], bin = [];
  for (let i = 0; i < n; i++) {
    const len = randInt(rnd, 40 * 1024, 100 * 1024);
    big.push(i % 7 === 3 ? null : i === 5 ? "" : i === 9 ? "日本語🦀".repeat(Math.floor(len / 16)) : text(rnd, len));
    mid.push(i % 7 === 3 ? null : text(rnd, 300));
    if (i % 2 === 1) bin.push(null);
    else {
      const b = new Uint8Array(randInt(rnd, 40 * 1024, 100 * 1024));
      for (let k = 0; k < b.length; k++) b[k] = (rnd() * 256) | 0;
      bin.push(b);
    }
  }
  const src = tableOf([
    { field: new arrow.Field("id", new arrow.Int64(), false), data: idData(n) },
    { field: new arrow.Field("big", new arrow.Utf8(), true), data: varData(new arrow.Utf8(), big) },
    { field: new arrow.Field("mid", new arrow.Utf8(), true), data: varData(new arrow.Utf8(), mid) },
    { field: new arrow.Field("big_bin", new arrow.Binary(), true), data: varData(new arrow.Binary(), bin) },
  ], n);
  const tbl = await ctx.db.createTable("long_strings", src, { mode: "create" });
  ctx.writeExpected("long_strings", src);
  return {
    tbl, source: src,
    rec: { kind: "extra", rows: n, requested_storage_version: "default",
      meant_to_hit: { big: "FullZip variable, General(ZSTD) per value (values 40-100 KiB > 32 KiB; row 5 empty, every 7th null, row 9 multi-byte)",
        mid: "FullZip variable without compression (300-byte text, every 7th null; 14 KB in all, below FSST's 32 KiB minimum; encodings.s300_utf8 has the FSST case)",
        big_bin: "FullZip variable, General(ZSTD) per value on incompressible bytes (odd rows null)" } },
  };
});

table("encodings", async (ctx) => {
  const n = 100000, rnd = rngFor("encodings");
  const cols = [];
  const add = (name, type, data, nullable = true) => cols.push({ field: new arrow.Field(name, type, nullable), data });
  const prim = (type, A, f, valid = null) => {
    const a = new A(n);
    for (let i = 0; i < n; i++) a[i] = isValid(valid, i) ? f(i) : (A === BigInt64Array ? 0n : 0);
    return arrow.makeData({ type, length: n, data: a, ...toBitmap(valid, n) });
  };
  add("id", new arrow.Int64(), idData(n), false);
  add("seq_i32", new arrow.Int32(), prim(new arrow.Int32(), Int32Array, (i) => i), false);
  add("rand_i64", new arrow.Int64(), prim(new arrow.Int64(), BigInt64Array, () => BigInt.asIntN(64, randU64(rnd))), false);
  add("mod100_i64", new arrow.Int64(), prim(new arrow.Int64(), BigInt64Array, (i) => BigInt(i % 100)), false);
  let run = 0, runVal = 0;
  add("runs_i32", new arrow.Int32(), prim(new arrow.Int32(), Int32Array, () => {
    if (run-- <= 0) { run = randInt(rnd, 200, 2000); runVal = randInt(rnd, -1e6, 1e6); }
    return runVal;
  }), false);
  add("unit_f32", new arrow.Float32(), prim(new arrow.Float32(), Float32Array, () => rnd()), false);
  add("date32", new arrow.DateDay(), prim(new arrow.DateDay(), Int32Array, (i) => 19000 + (i % 3000)), false);
  add("u16", new arrow.Uint16(), prim(new arrow.Uint16(), Uint16Array, () => randInt(rnd, 0, 4095)), false);
  add("i8_neg", new arrow.Int8(), prim(new arrow.Int8(), Int8Array, () => randInt(rnd, -128, 127)), false);
  const bools = new Uint8Array(Math.ceil(n / 8));
  for (let i = 0; i < bools.length; i++) bools[i] = (rnd() * 256) | 0;
  add("bool", new arrow.Bool(), arrow.makeData({ type: new arrow.Bool(), length: n, data: bools, nullCount: 0 }), false);
  const lowcard = Array.from({ length: 20 }, (_, k) => (k === 0 ? "" : `category-${k}-${"é".repeat(k % 3)}`));
  add("lowcard_utf8", new arrow.Utf8(), varData(new arrow.Utf8(), Array.from({ length: n }, () => lowcard[Math.floor(rnd() * lowcard.length)])), false);
  add("highcard_utf8", new arrow.Utf8(), varData(new arrow.Utf8(),
    Array.from({ length: n }, (_, i) => `u${(i * 2654435761 >>> 0).toString(36)}-${WORDS[i % WORDS.length]}`)), false);
  add("short_bin", new arrow.Binary(), varData(new arrow.Binary(), Array.from({ length: n }, () => {
    const b = new Uint8Array(randInt(rnd, 0, 16));
    for (let k = 0; k < b.length; k++) b[k] = (rnd() * 256) | 0;
    return b;
  })), false);
  // 300-byte strings on every 16th row ("" elsewhere, null at i % 16 == 8) keep the table small
  // while every page's longest value is >= 256 bytes (full-zip) and holds >= 32 KiB of text (FSST).
  add("s300_utf8", new arrow.Utf8(), varData(new arrow.Utf8(), Array.from({ length: n }, (_, i) =>
    (i % 16 === 0 ? text(rnd, 300) : i % 16 === 8 ? null : ""))));
  // ~43 KB strings every 5000th row, null elsewhere: pages holding one get per-value ZSTD.
  add("zstd_utf8", new arrow.Utf8(), varData(new arrow.Utf8(), Array.from({ length: n }, (_, i) =>
    (i % 5000 === 0 ? text(rnd, 43000) : null))));
  const fslT = new arrow.FixedSizeList(8, new arrow.Field("item", new arrow.Float32(), true));
  const fv = new Float32Array(n * 8);
  for (let k = 0; k < fv.length; k++) fv[k] = rnd();
  add("fsl_f32_8", fslT, arrow.makeData({ type: fslT, length: n, nullCount: 0,
    child: arrow.makeData({ type: fslT.children[0].type, length: n * 8, nullCount: 0, data: fv }) }));
  const nv = Uint8Array.from({ length: n }, () => (rnd() < 0.1 ? 0 : 1));
  add("nullable_i32", new arrow.Int32(), prim(new arrow.Int32(), Int32Array, () => randInt(rnd, 0, 50000), nv));
  add("allnull_f64", new arrow.Float64(), prim(new arrow.Float64(), Float64Array, () => 0, new Uint8Array(n)));
  const lt = () => new arrow.List(new arrow.Field("item", new arrow.Int32(), true));
  const anl = lt();
  add("allnull_list", anl, arrow.makeData({ type: anl, length: n, valueOffsets: new Int32Array(n + 1), ...toBitmap(new Uint8Array(n), n),
    child: arrow.makeData({ type: anl.children[0].type, length: 0, data: new Int32Array(0), nullCount: 0 }) }));
  const npSome = { mode: "some" };
  const lv = validity(n, null, npSome, (i) => i % 13 !== 8);
  const l1 = lt();
  add("list_i32", l1, BY_KEY.list_int32.gen(l1, n, lv, rnd, npSome));
  const fsbVals = Array.from({ length: 8 }, (_, k) => Uint8Array.from({ length: 16 }, (_, j) => (k * 37 + j * 11) & 255));
  const fsb = new Uint8Array(n * 16);
  for (let i = 0; i < n; i++) fsb.set(fsbVals[Math.floor(rnd() * 8)], i * 16);
  add("fsb16_lowcard", new arrow.FixedSizeBinary(16), arrow.makeData({ type: new arrow.FixedSizeBinary(16), length: n, data: fsb, nullCount: 0 }), false);
  const dt = BY_KEY.dict_utf8.type();
  add("dict_utf8", dt, BY_KEY.dict_utf8.gen(dt, n, null, rnd, { mode: "none" }));

  const src = tableOf(cols, n);
  const tbl = await ctx.db.createTable("encodings", src, { mode: "create" });
  ctx.writeExpected("encodings", src);
  return {
    tbl, source: src,
    rec: { kind: "extra", rows: n, requested_storage_version: "default", meant_to_hit: {
      id: "MiniBlock InlineBitpacking(64)",
      seq_i32: "MiniBlock InlineBitpacking(32)",
      rand_i64: "MiniBlock Flat(64)",
      mod100_i64: "MiniBlock InlineBitpacking(64)",
      runs_i32: "MiniBlock Rle (runs of 200-2000)",
      unit_f32: "MiniBlock InlineBitpacking(32) on float bits",
      date32: "MiniBlock InlineBitpacking(32)",
      u16: "MiniBlock InlineBitpacking(16)",
      i8_neg: "MiniBlock Flat(8)",
      bool: "MiniBlock Flat(1)",
      lowcard_utf8: "MiniBlock + dictionary (20 values), indices bitpacked, items Variable",
      highcard_utf8: "MiniBlock Fsst{Variable32}",
      short_bin: "MiniBlock Variable32 (no FSST for binary)",
      s300_utf8: "FullZip variable Fsst{Variable32} + def levels (300 B text every 16th row, '' elsewhere, null at i%16==8)",
      zstd_utf8: "FullZip variable General(ZSTD) per value (43,000 B every 5000th row, null elsewhere)",
      fsl_f32_8: "MiniBlock FixedSizeList(8, Flat32)",
      nullable_i32: "def levels (~10% null), values InlineBitpacking(32)",
      allnull_f64: "ConstantLayout, no buffers",
      allnull_list: "ConstantLayout with list layers",
      list_i32: "MiniBlock, rep + def levels, repetition index, several pages (null at i%13==8, empty at i%5==1 and at random, items null j%7==3)",
      fsb16_lowcard: "MiniBlock + dictionary, items Flat(128)",
      dict_utf8: "Arrow dictionary<int32,utf8>: MiniBlock + dictionary",
    } },
  };
});

// Maps (file format 2.2 only: LanceDB 0.31 refuses them, and the set records that). Null maps,
// empty maps, several entries, null values; a map in a list and in a struct.
const MAP_N = 3000;
function mapData(n, keyOf, valueData, mapValid, rnd) {
  const offsets = new Int32Array(n + 1);
  const keys = [];
  for (let i = 0; i < n; i++) {
    const m = !isValid(mapValid, i) || i % 5 === 0 ? 0 : (i % 4) + 1;
    for (let k = 0; k < m; k++) keys.push(keyOf(i, k));
    offsets[i + 1] = keys.length;
  }
  const nk = keys.length;
  const keyType = typeof keys[0] === "bigint" ? new arrow.Int64() : new arrow.Utf8();
  const keyData = typeof keys[0] === "bigint"
    ? arrow.makeData({ type: keyType, length: nk, data: BigInt64Array.from(keys), nullCount: 0 })
    : varData(keyType, keys);
  const value = valueData(nk, rnd);
  const entriesType = new arrow.Struct([new arrow.Field("key", keyType, false), new arrow.Field("value", value.type, true)]);
  const entries = arrow.makeData({ type: entriesType, length: nk, nullCount: 0, children: [keyData, value] });
  const type = new arrow.Map_(new arrow.Field("entries", entriesType, false));
  return arrow.makeData({ type, length: n, valueOffsets: offsets, child: entries, ...toBitmap(mapValid, n) });
}
table("maps", async (ctx) => {
  const n = MAP_N, rnd = rngFor("maps");
  const np = { mode: "some" };
  const mv = validity(n, null, np, (i) => i % 7 !== 3);
  const i32Values = (m, r) => {
    const valid = Array.from({ length: m }, (_, k) => k % 3 !== 0);
    return arrow.makeData({ type: new arrow.Int32(), length: m, data: Int32Array.from({ length: m }, (_, k) => (valid[k] ? Math.floor(r() * 2 ** 31) : 0)), ...toBitmap(valid, m) });
  };
  const strValues = (m, r) => varData(new arrow.Utf8(), Array.from({ length: m }, (_, k) => (k % 4 === 2 ? null : randomString(r, 20))));
  const f64Values = (m, r) => arrow.makeData({ type: new arrow.Float64(), length: m, data: Float64Array.from({ length: m }, () => r() * 1e6 - 5e5), nullCount: 0 });
  const mStr = mapData(n, (i, k) => `k${i % 50}-${k}`, i32Values, mv, rnd);
  const mI64 = mapData(n, (i, k) => BigInt(i * 8 + k), strValues, validity(n, null, np), rnd);
  // list<map<utf8, float64>>: null lists at i%13==8, maps null at j%7==3.
  const lv = validity(n, null, np, (i) => i % 13 !== 8);
  const lOffsets = listOffsets(n, lv, rnd);
  const m = lOffsets[n];
  const inner = mapData(m, (j, k) => `j${j}-${k}`, f64Values, validity(m, null, np, (j) => j % 7 !== 3), rnd);
  const lType = new arrow.List(new arrow.Field("item", inner.type, true));
  const lMap = arrow.makeData({ type: lType, length: n, valueOffsets: lOffsets, child: inner, ...toBitmap(lv, n) });
  // struct<m: map<utf8, int32>, x: int32>, the struct never null (null structs differ by version).
  const sm = mapData(n, (i, k) => `s${k}`, i32Values, validity(n, null, np), rnd);
  const sx = arrow.makeData({ type: new arrow.Int32(), length: n, data: Int32Array.from({ length: n }, (_, i) => i), nullCount: 0 });
  const sType = new arrow.Struct([new arrow.Field("m", sm.type, true), new arrow.Field("x", new arrow.Int32(), false)]);
  const sMap = arrow.makeData({ type: sType, length: n, nullCount: 0, children: [sm, sx] });
  const src = tableOf([
    { field: new arrow.Field("id", new arrow.Int64(), false), data: idData(n) },
    { field: new arrow.Field("m_str_i32", mStr.type, true), data: mStr },
    { field: new arrow.Field("m_i64_str", mI64.type, true), data: mI64 },
    { field: new arrow.Field("l_map", lType, true), data: lMap },
    { field: new arrow.Field("s_map", sType, false), data: sMap },
  ], n);
  const tbl = await ctx.db.createTable("maps", src, { mode: "create" });
  ctx.writeExpected("maps", src);
  return {
    tbl, source: src,
    rec: { kind: "extra", rows: n, requested_storage_version: "default",
      meant_to_hit: "Map columns (2.2 only): list-like layers over the entries struct (non-nullable key, nullable value); null and empty maps; a map in a list and in a struct" },
  };
});

// Mini-block chunks over 32 KiB (2.2's u32 chunk grammar carries them; 2.1's u16 words cannot).
// A chunk holds at most ~8 KiB of values but up to 16 KiB each of repetition and definition
// levels (lance-encoding miniblock.rs, max_repdef_levels_per_chunk): lists of lists that are
// mostly null or empty have many levels per value, in random patterns no RLE shortens.
table("large_chunks", async (ctx) => {
  const n = 20000, rnd = rngFor("large_chunks");
  const outerOffsets = new Int32Array(n + 1), outerValid = new Uint8Array(n);
  const innerOffsets = [0], innerValid = [], values = [];
  for (let i = 0; i < n; i++) {
    outerValid[i] = rnd() < 0.9 ? 1 : 0;
    const len = outerValid[i] ? randInt(rnd, 0, 40) : 0;
    for (let k = 0; k < len; k++) {
      const r = rnd();
      innerValid.push(r < 0.45 ? 0 : 1);
      const m = r < 0.45 ? 0 : r < 0.9 ? 0 : randInt(rnd, 1, 3);
      for (let j = 0; j < m; j++) values.push(rnd() < 0.3 ? null : Math.floor(rnd() * 2 ** 31));
      innerOffsets.push(innerOffsets[innerOffsets.length - 1] + m);
    }
    outerOffsets[i + 1] = innerValid.length;
  }
  const nv = values.length, ni = innerValid.length;
  const itemValid = Uint8Array.from(values, (v) => (v === null ? 0 : 1));
  const items = arrow.makeData({ type: new arrow.Int32(), length: nv, data: Int32Array.from(values, (v) => v ?? 0), ...toBitmap(itemValid, nv) });
  const innerType = new arrow.List(new arrow.Field("item", new arrow.Int32(), true));
  const inner = arrow.makeData({ type: innerType, length: ni, valueOffsets: Int32Array.from(innerOffsets), child: items, ...toBitmap(Uint8Array.from(innerValid), ni) });
  const outerType = new arrow.List(new arrow.Field("item", innerType, true));
  const outer = arrow.makeData({ type: outerType, length: n, valueOffsets: outerOffsets, child: inner, ...toBitmap(outerValid, n) });
  const src = tableOf([
    { field: new arrow.Field("id", new arrow.Int64(), false), data: idData(n) },
    { field: new arrow.Field("ll", outerType, true), data: outer },
  ], n);
  const tbl = await ctx.db.createTable("large_chunks", src, { mode: "create" });
  ctx.writeExpected("large_chunks", src);
  return {
    tbl, source: src,
    rec: { kind: "extra", rows: n, requested_storage_version: "default",
      meant_to_hit: "2.2 mini-block chunks over 32 KiB (on_disk.data_files[].columns[].max_chunk_bytes): list<list<int32>>, mostly null or empty inner lists, so levels fill the chunks" },
  };
});

table("none_compression", async (ctx) => {
  const n = 1000;
  const md = { "lance-encoding:compression": "none" };
  const cols = matrixColumns(n, "some", "m_r1000_some");
  const src = tableOf(cols, n, md);
  const tbl = await ctx.db.createTable("none_compression", src, { mode: "create" });
  ctx.writeExpected("none_compression", src);
  return {
    tbl, source: src,
    rec: { kind: "extra", rows: n, nulls: "some", requested_storage_version: "default",
      same_data_as: "m_r1000_some_v21",
      field_metadata: md,
      meant_to_hit: "only Flat / Variable value compression (no bitpacking, RLE, FSST, dictionary-values compression); levels may still be bitpacked" },
  };
});

// deletes_10 / deletes_10k: one 12,000-row fragment, then one delete.
const DEL_N = 12000;
function deletesSource(n) {
  const np = { mode: "some" };
  const cols = [{ field: new arrow.Field("id", new arrow.Int64(), false), data: idData(n) }];
  for (const key of ["utf8", "float32", "fsl_f32_8", "list_int32"]) {
    const e = BY_KEY[key];
    const type = e.type(np);
    cols.push({ field: new arrow.Field(`t_${key}`, type, true), data: e.gen(type, n, validity(n, null, np), rngFor("deletes", key), np) });
  }
  return tableOf(cols, n);
}
// The rows of `src` (one batch) where keep(i), as a table of slices of that batch (one per run of
// kept rows); tableToIPC writes each slice as its own record batch.
function keepRows(src, keep) {
  const batches = [];
  const b = src.batches[0];
  let i = 0;
  const n = b.numRows;
  while (i < n) {
    if (!keep(i)) { i++; continue; }
    let j = i;
    while (j < n && keep(j)) j++;
    batches.push(b.slice(i, j));
    i = j;
  }
  return new arrow.Table(src.schema, batches.length ? batches : [b.slice(0, 0)]);
}
for (const [name, pred, deleted] of [
  ["deletes_10", "id IN (0, 1, 7, 1000, 4095, 4096, 6000, 9999, 11998, 11999)", new Set([0, 1, 7, 1000, 4095, 4096, 6000, 9999, 11998, 11999])],
  ["deletes_10k", "id >= 1000 AND id < 11000", null],
]) {
  table(name, async (ctx) => {
    const src = deletesSource(DEL_N);
    const tbl = await ctx.db.createTable(name, src, { mode: "create" });
    const r = await tbl.delete(pred);
    const keep = deleted ? (i) => !deleted.has(i) : (i) => i < 1000 || i >= 11000;
    const visible = keepRows(src, keep);
    ctx.writeExpected(name, visible);
    return {
      tbl, source: visible,
      rec: { kind: "extra", rows: visible.numRows, physical_rows: DEL_N, requested_storage_version: "default",
        delete_predicate: pred, deleted_rows: r.numDeletedRows,
        deleted_row_offsets: deleted ? [...deleted].sort((a, b) => a - b) : { from: 1000, to_exclusive: 11000 },
        expected_holds: "the rows left after the delete (the data file still holds all 12,000)",
        meant_to_hit: deleted ? "deletion file .arrow (set, <= 5,000 deleted rows)" : "deletion file .bin (roaring bitmap, > 5,000 deleted rows)" },
    };
  });
}

table("appended", async (ctx) => {
  const keys = MATRIX_KEYS;
  const sizes = [1000, 1, 2000];
  // Make the three batches' dictionaries one object so the expected IPC file needs one dictionary.
  const parts = [];
  let start = 0;
  let schema = null;
  for (let k = 0; k < sizes.length; k++) {
    const n = sizes[k];
    const cols = matrixColumns(n, "some", `appended_${k}`, keys, { struct: false, lists: false, noNaN: true });
    cols[0].data = idData(n, start);
    const t = tableOf(cols, n);
    parts.push(t);
    schema ??= t.schema;
    start += n;
  }
  // One schema object for all batches (types must be identical objects for the dictionary id).
  const dictIdx = schema.fields.findIndex((f) => f.name === "t_dict_utf8");
  const sharedDict = parts[0].batches[0].data.children[dictIdx].dictionary;
  const batches = parts.map((t) => {
    const d = t.batches[0].data;
    const children = d.children.map((c, j) => {
      const fieldType = schema.fields[j].type;
      if (j === dictIdx) return arrow.makeData({ type: fieldType, length: c.length, data: c.values, dictionary: sharedDict,
        nullBitmap: c.nullBitmap, nullCount: c.nullCount });
      return c.clone(fieldType);
    });
    return new arrow.RecordBatch(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: d.length, nullCount: 0, children }));
  });
  const tbl = await ctx.db.createEmptyTable("appended", schema, { mode: "create" });
  for (const b of batches) await tbl.add(new arrow.Table([b]));
  const src = new arrow.Table(batches);
  ctx.writeExpected("appended", src);
  return {
    tbl, source: src,
    rec: { kind: "extra", rows: src.numRows, nulls: "some", requested_storage_version: "default",
      steps: ["createEmptyTable(schema)", ...sizes.map((s) => `add(${s} rows)`)],
      fragment_rows: sizes,
      meant_to_hit: "3 fragments / 3 data files (one per add), fragment order = expected row order; flat matrix columns (t_*) with 'some' nulls" },
  };
});

// ---------------------------------------------------------------------------------------------

// What a newer LanceDB refuses to write (its error message), for the tables that ask for it.
// What one LanceDB refuses to write and the other writes: Lance 12 refuses null structs in 2.0
// files (lance#8507); Lance 8 refuses maps (file format 2.2 only).
const LANCE12_REFUSALS = [/Lance file version 2\.0 does not encode struct validity/, /only supported in Lance file format 2\.2/];

const SKIPPED = [
  { what: "large_list", why: "apache-arrow 18.1 JS has no LargeList type class (LargeUtf8 and LargeBinary do work from JS, contrary to reference F§8: see large_types_*)" },
  { what: "0-row data files", why: "LanceDB 0.31 writes no data file for 0 rows: createEmptyTable, createTable of a 0-row table and add() of 0 rows all commit a manifest without a new fragment; m_r0_* tables test the schema round trip only" },
];

async function main() {
  const t0 = performance.now();
  const tablesDir = path.join(OUT, "tables");
  const expDir = path.join(OUT, "expected");
  fs.mkdirSync(OUT, { recursive: true });
  fs.rmSync(STAMP_FILE, { force: true });
  if (!only) {
    fs.rmSync(tablesDir, { recursive: true, force: true });
    fs.rmSync(expDir, { recursive: true, force: true });
  }
  fs.mkdirSync(tablesDir, { recursive: true });
  fs.mkdirSync(expDir, { recursive: true });
  const db = await lancedb.connect(tablesDir);

  const ctx = {
    db,
    // Writes expected/<name>.arrow; with `linkTo` (an earlier expected file of identical data) it
    // hard-links instead. Returns the file written.
    writeExpected(name, table, linkTo = null) {
      const file = path.join(expDir, `${name}.arrow`);
      fs.rmSync(file, { force: true });
      if (linkTo) {
        try {
          fs.linkSync(linkTo, file);
          return file;
        } catch {
          fs.copyFileSync(linkTo, file);
          return file;
        }
      }
      fs.writeFileSync(file, arrow.tableToIPC(table, "file"));
      return file;
    },
  };

  const expected = {
    generator: {
      script: "tests/interop/make_format_fixtures.mjs",
      versions: VERSIONS,
      stamp_sha256: STAMP,
      seed: SEED,
      generated_at: new Date().toISOString(),
      connect: "lancedb.connect(<out_dir>/tables)",
    },
    out_dir: OUT,
    layout: {
      tables: "tables/<name>.lance (tables/__manifest is LanceDB's directory-namespace table, not a fixture)",
      expected: "expected/<name>.arrow: Arrow IPC file (apache-arrow 18.1, one record batch unless noted) of the rows the table holds",
    },
    matrix: {
      tables: "m_r<rows>_<nulls>_<v21|v20>",
      rows: ROWS,
      big_rows_note: BIG_ROWS === 100000 ? "literal plan (100,000 rows)" : `largest tier is ${BIG_ROWS} rows, not the plan's 100,000 (QV_FORMAT_BIG_ROWS); unset it for the literal plan (~500 MB)`,
      nulls: NULLS,
      storage: { v21: "LanceDB default (2.1 for LanceDB 0.31, 2.2 for 0.39; the table names keep _v21)", v20: "storageOptions {new_table_data_storage_version: '2.0'}" },
      columns: "id (Int64, non-null row index), t_<type> for each type, s (struct holding s.t_<type> for each type), l_<type> (list<type>) for each type",
      types: Object.fromEntries(MATRIX_KEYS.map((k) => [k, String(BY_KEY[k].type({ mode: "some" }))])),
    },
    null_patterns: {
      none: "all fields non-nullable; no nulls; lists can be empty (i % 5 == 1 always empty)",
      some: "flat values / struct members / list items null where (index % 7 == 3); column s null where i % 11 == 5; l_* null where i % 13 == 8; members/items under a null parent are null; struct<a,b>: a null at i%5==2, b at i%3==1; fsl items null at item index % 13 == 5",
      all: "every top-level column null except id; s and its members all null; l_* all null (no items)",
    },
    notes: [
      "v2.0 and v2.1 twins of a matrix cell hold identical data; their expected files are hard links of one file.",
      "A 2.0 data file cannot store struct validity: LanceDB reads a null struct back as a struct whose members are null (readback.null_struct_as_struct_of_nulls counts them).",
      "Edge values come first in every column (row 0 = the most extreme: int min / uint max, -0.0, ...), so 1-row tables hold the first edge of each type.",
      "Integer columns pick a random bit width per 1024-value block so bitpacking sees many widths.",
    ],
    skipped: SKIPPED,
    tables: {},
  };

  let failed = 0;
  const refused = [];
  const selected = TABLES.filter((t) => !only || only.test(t.name));
  for (const t of selected) {
    const s0 = performance.now();
    try {
      fs.rmSync(path.join(tablesDir, `${t.name}.lance`), { recursive: true, force: true });
      const { rec, tbl, source } = await t.build(ctx);
      const w = performance.now();
      rec.path = `tables/${t.name}.lance`;
      rec.expected = `expected/${t.name}.arrow`;
      rec.columns = describeColumns(source.schema.fields);
      rec.count_rows = await tbl.countRows();
      const disk = onDisk(path.join(tablesDir, `${t.name}.lance`), source.schema.fields);
      // Compare what LanceDB returns with the expected file as written (parsed back), which is
      // what the C++ tests compare against.
      const fromFile = arrow.tableFromIPC(fs.readFileSync(path.join(OUT, rec.expected)));
      if (fromFile.numRows !== source.numRows) throw new Error(`${rec.expected}: ${fromFile.numRows} rows, expected ${source.numRows}`);
      rec.expected_batches = fromFile.batches.length;
      rec.readback = await readBack(tbl, fromFile, { allowNullStructs: disk.manifest_data_format_version === "2.0" });
      rec.storage_version = disk.manifest_data_format_version;
      rec.on_disk = disk;
      rec.expected_bytes = fs.statSync(path.join(OUT, rec.expected)).size;
      rec.seconds = +((performance.now() - s0) / 1000).toFixed(2);
      rec.seconds_readback = +((performance.now() - w) / 1000).toFixed(2);
      expected.tables[t.name] = rec;
      const fv = Object.entries(disk.data_file_footer_versions).map(([k, v]) => `${k}×${v}`).join(",") || "no data files";
      console.log(
        `${rec.readback.equal ? "ok  " : "DIFF"} ${t.name.padEnd(20)} rows=${String(rec.rows).padStart(6)} manifest=${rec.storage_version} footers=${fv} ` +
        `del=${disk.deletion_files.map((d) => path.extname(d.path)).join(",") || "-"} lance=${(disk.bytes / 1e6).toFixed(2)}MB ` +
        `expected=${(rec.expected_bytes / 1e6).toFixed(2)}MB ${rec.seconds}s`);
      if (!rec.readback.equal) {
        // The expected file would not describe what the table holds: a failure.
        failed++;
        for (const m of rec.readback.mismatches.slice(0, 5)) console.log(`       ${JSON.stringify(m).slice(0, 400)}`);
      }
    } catch (err) {
      const message = String(err.message ?? err);
      if (LANCE12_REFUSALS.some((re) => re.test(message))) {
        // Data this LanceDB will not write (Lance 12 refuses null structs in 2.0 files,
        // lance#8507): no table, and nothing to compare; the other set covers it.
        refused.push(t.name);
        expected.tables[t.name] = { refused_by_lancedb: message };
        console.log(`REFUSED ${t.name}: ${message}`);
      } else {
        failed++;
        expected.tables[t.name] = { error: String(err.stack ?? err) };
        console.log(`FAIL ${t.name}: ${err.stack ?? err}`);
      }
    }
  }

  // Sizes (hard links counted once) and totals.
  const seen = new Set();
  let bytes = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.statSync(p);
        if (!seen.has(st.ino)) { seen.add(st.ino); bytes += st.size; }
      }
    }
  };
  walk(tablesDir);
  const tablesBytes = bytes;
  walk(expDir);
  expected.summary = {
    tables: selected.length,
    failed,
    refused_by_lancedb: refused,
    readback_differences: Object.entries(expected.tables).filter(([, r]) => r.readback && !r.readback.equal).map(([n]) => n),
    bytes_tables: tablesBytes,
    bytes_expected: bytes - tablesBytes,
    seconds: +((performance.now() - t0) / 1000).toFixed(2),
  };
  fs.writeFileSync(path.join(OUT, "expected.json"), JSON.stringify(expected, (_k, v) => (typeof v === "bigint" ? v.toString() : v), 1) + "\n");
  if (!failed && !only) fs.writeFileSync(STAMP_FILE, STAMP + "\n");
  const s = expected.summary;
  console.log(`${selected.length - failed - refused.length}/${selected.length} tables ok, ${failed} failed, ${refused.length} refused by LanceDB ${VERSIONS.lancedb}, ` +
    `${s.readback_differences.length} with read-back differences; tables ${(s.bytes_tables / 1e6).toFixed(1)} MB, ` +
    `expected ${(s.bytes_expected / 1e6).toFixed(1)} MB; ${s.seconds}s; ${OUT}`);
  process.exitCode = failed ? 1 : 0;
}

await main();
