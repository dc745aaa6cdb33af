#!/usr/bin/env node
// Arrow IPC interop between apache-arrow (JS, pinned by package-lock.json) and quiver's IPC
// reader/writer (src/arrow/ipc/), driven from CTest around the C++ test
// IpcInterop.ReadsApacheArrowJsAndWritesBack (tests/arrow/ipc_interop_test.cc):
//
//   node check_ipc.mjs write <dir>   apache-arrow writes js.arrows (stream), js.arrow (file) with
//                                    every type JS can produce, js_dict.arrows (a stream whose
//                                    dictionary is replaced and then grows by a delta), one
//                                    stream per type quiver does not support (unsupported_*.arrows),
//                                    and expected.json: schemas and every value in canonical form.
//   node check_ipc.mjs read <dir>    apache-arrow reads quiver.arrows, quiver.arrow and
//                                    quiver_dict.arrows (which the C++ test wrote back from the
//                                    js.* files) and deep-compares schemas and values with
//                                    expected.json.
//
// Canonical values (the C++ test renders its arrays the same way): null; bool; int8..int32,
// uint8..uint32 and date32 as numbers; int64, uint64, date64 and timestamps as decimal strings;
// float16 as its 16-bit pattern (a number); float32/64 as numbers, or "NaN", "Infinity",
// "-Infinity", "-0"; utf8 as strings; binary, fixed-size binary and decimal128 (16 bytes,
// little-endian) as lowercase hex; lists as arrays, maps as arrays of {key, value}; structs as objects; dictionaries as the
// value their index selects.
//
// Exit status: 0 on success, 1 on a failed check, 2 on bad usage.

import fs from "node:fs";
import path from "node:path";
import { arrow } from "./lib.mjs";

const [mode, dir] = process.argv.slice(2);
if (!["write", "read"].includes(mode) || !dir || process.argv.length !== 4) {
  console.error("usage: node check_ipc.mjs write|read <dir>");
  process.exit(2);
}

const { makeData, Field, Schema, Struct, Vector } = arrow;

// ---- deterministic data ----------------------------------------------------------------------

// Row r of a column is null when null(r); values come from the row number, so that every run
// and both batches are reproducible.
const everyThird = (r) => r % 3 === 1;
const never = () => false;

function bitmap(valid) {
  const bits = new Uint8Array(Math.max(1, Math.ceil(valid.length / 8)));
  valid.forEach((v, i) => {
    if (v) bits[i >> 3] |= 1 << (i & 7);
  });
  return bits;
}

function nullsOf(rows, isNull) {
  const valid = rows.map((r) => !isNull(r));
  const nullCount = valid.filter((v) => !v).length;
  return nullCount === 0 ? { nullCount: 0 } : { nullCount, nullBitmap: bitmap(valid) };
}

const enc = new TextEncoder();
const I64 = [-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 1234567890123456789n];
const F64 = [0.5, -0, NaN, Infinity, -Infinity, 1e300, -2.5e-300, 3];
const F32 = [0.5, -0, NaN, Infinity, 3.25, -1.5e30, 1];
const STRINGS = ["", "a", "héllo", "日本語", "🐍 snake", "x".repeat(40), "tab\tand\"quote"];

// Primitive columns: [name, JS type, quiver type, nullable, typed array ctor, value(r)].
function primitives() {
  const wrap8 = (r) => ((r * 37 + 5) % 256) - 128;
  return [
    ["i8", new arrow.Int8(), "int8", true, Int8Array, (r) => wrap8(r)],
    ["i16", new arrow.Int16(), "int16", false, Int16Array, (r) => [-32768, 32767, 0, r][r % 4]],
    ["i32", new arrow.Int32(), "int32", true, Int32Array, (r) => [-(2 ** 31), 2 ** 31 - 1, r * 1000][r % 3]],
    ["i64", new arrow.Int64(), "int64", true, BigInt64Array, (r) => I64[r % I64.length]],
    ["u8", new arrow.Uint8(), "uint8", true, Uint8Array, (r) => (r * 53) % 256],
    ["u16", new arrow.Uint16(), "uint16", true, Uint16Array, (r) => [0, 65535, r][r % 3]],
    ["u32", new arrow.Uint32(), "uint32", true, Uint32Array, (r) => [0, 2 ** 32 - 1, r][r % 3]],
    ["u64", new arrow.Uint64(), "uint64", true, BigUint64Array, (r) => [0n, 2n ** 64n - 1n, BigInt(r)][r % 3]],
    ["f16", new arrow.Float16(), "float16", true, Uint16Array, (r) => [0x3c00, 0x8000, 0x7c00, 0x7e00, 0x0001, r][r % 6]],
    ["f32", new arrow.Float32(), "float32", true, Float32Array, (r) => F32[r % F32.length]],
    ["f64", new arrow.Float64(), "float64", false, Float64Array, (r) => F64[r % F64.length]],
    ["date_day", new arrow.DateDay(), "date32", true, Int32Array, (r) => [-719162, 0, 19723, 2932896][r % 4]],
    ["date_ms", new arrow.DateMillisecond(), "date64", true, BigInt64Array, (r) => [0n, -62135596800000n, 1700000000123n][r % 3]],
    ["ts_s", new arrow.TimestampSecond(), "timestamp[s]", true, BigInt64Array, (r) => BigInt(r) * 86400n - 5n],
    ["ts_ms_utc", new arrow.TimestampMillisecond("UTC"), "timestamp[ms, tz=UTC]", true, BigInt64Array, (r) => 1700000000123n + BigInt(r)],
    ["ts_us_paris", new arrow.TimestampMicrosecond("Europe/Paris"), "timestamp[us, tz=Europe/Paris]", true, BigInt64Array, (r) => -1n - BigInt(r)],
    ["ts_ns", new arrow.TimestampNanosecond(), "timestamp[ns]", true, BigInt64Array, (r) => 1700000000123456789n + BigInt(r)],
  ];
}

function primitiveData(type, Ctor, value, rows, isNull) {
  const values = new Ctor(rows.length);
  rows.forEach((r, i) => {
    values[i] = isNull(r) ? (Ctor === BigInt64Array || Ctor === BigUint64Array ? 0n : 0) : value(r);
  });
  return makeData({ type, length: rows.length, ...nullsOf(rows, isNull), data: values });
}

function boolData(rows, isNull) {
  return makeData({
    type: new arrow.Bool(),
    length: rows.length,
    ...nullsOf(rows, isNull),
    data: bitmap(rows.map((r) => r % 2 === 0 || r % 5 === 0)),
  });
}

// Variable-size binary: bytes(r) gives each row's bytes; large selects 64-bit offsets.
function varData(type, large, bytes, rows, isNull) {
  const parts = rows.map((r) => (isNull(r) ? new Uint8Array(0) : bytes(r)));
  const offsets = large ? new BigInt64Array(rows.length + 1) : new Int32Array(rows.length + 1);
  let total = 0;
  parts.forEach((p, i) => {
    total += p.length;
    offsets[i + 1] = large ? BigInt(total) : total;
  });
  const data = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  return makeData({ type, length: rows.length, ...nullsOf(rows, isNull), valueOffsets: offsets, data });
}

const strBytes = (r) => enc.encode(STRINGS[r % STRINGS.length]);
const binBytes = (r) => Uint8Array.from({ length: r % 5 }, (_, k) => (r * 31 + k * 7) % 256);

function fsbData(rows, isNull) {
  const data = new Uint8Array(rows.length * 4);
  rows.forEach((r, i) => {
    for (let k = 0; k < 4; k++) data[i * 4 + k] = isNull(r) ? 0 : (r * 13 + k) % 256;
  });
  return makeData({ type: new arrow.FixedSizeBinary(4), length: rows.length, ...nullsOf(rows, isNull), data });
}

// decimal128(20, 2): little-endian 32-bit words of a signed 128-bit value.
function decimalData(rows, isNull) {
  const data = new Uint32Array(rows.length * 4);
  rows.forEach((r, i) => {
    if (isNull(r)) return;
    let v = [0n, 12345n, -1n, 10n ** 20n - 1n, -(10n ** 19n)][r % 5];
    if (v < 0n) v += 2n ** 128n;
    for (let k = 0; k < 4; k++) data[i * 4 + k] = Number((v >> BigInt(32 * k)) & 0xffffffffn);
  });
  return makeData({ type: new arrow.Decimal(2, 20, 128), length: rows.length, ...nullsOf(rows, isNull), data });
}

// list<int32>: row r has r % 4 items (an empty list every fourth row).
function listData(rows, isNull) {
  const offsets = new Int32Array(rows.length + 1);
  const items = [];
  rows.forEach((r, i) => {
    if (!isNull(r)) for (let k = 0; k < r % 4; k++) items.push(r * 10 + k);
    offsets[i + 1] = items.length;
  });
  const itemRows = items.map((_, k) => k);
  const child = makeData({
    type: new arrow.Int32(),
    length: items.length,
    ...nullsOf(itemRows, (k) => k % 5 === 4),
    data: Int32Array.from(items),
  });
  const type = new arrow.List(new Field("item", new arrow.Int32(), true));
  return makeData({ type, length: rows.length, ...nullsOf(rows, isNull), valueOffsets: offsets, child });
}

// fixed_size_list<float32>[3]
function fslData(rows, isNull) {
  const values = new Float32Array(rows.length * 3);
  rows.forEach((r, i) => {
    for (let k = 0; k < 3; k++) values[i * 3 + k] = r + k / 4;
  });
  const child = makeData({ type: new arrow.Float32(), length: values.length, nullCount: 0, data: values });
  const type = new arrow.FixedSizeList(3, new Field("item", new arrow.Float32(), false));
  return makeData({ type, length: rows.length, ...nullsOf(rows, isNull), child });
}

// struct<a: int32 not null, b: utf8>
function structData(rows, isNull) {
  const a = primitiveData(new arrow.Int32(), Int32Array, (r) => r * 7, rows, never);
  const b = varData(new arrow.Utf8(), false, strBytes, rows, (r) => r % 4 === 2);
  const type = new Struct([new Field("a", new arrow.Int32(), false), new Field("b", new arrow.Utf8(), true)]);
  return makeData({ type, length: rows.length, ...nullsOf(rows, isNull), children: [a, b] });
}

// list<struct<x: int64>>
function listStructData(rows, isNull) {
  const offsets = new Int32Array(rows.length + 1);
  const xs = [];
  rows.forEach((r, i) => {
    if (!isNull(r)) for (let k = 0; k < (r % 3) + 1; k++) xs.push(BigInt(r) * 100n + BigInt(k));
    offsets[i + 1] = xs.length;
  });
  const itemRows = xs.map((_, k) => k);
  const x = makeData({ type: new arrow.Int64(), length: xs.length, ...nullsOf(itemRows, (k) => k % 4 === 3), data: BigInt64Array.from(xs) });
  const structType = new Struct([new Field("x", new arrow.Int64(), true)]);
  const child = makeData({ type: structType, length: xs.length, nullCount: 0, children: [x] });
  const type = new arrow.List(new Field("item", structType, true));
  return makeData({ type, length: rows.length, ...nullsOf(rows, isNull), valueOffsets: offsets, child });
}

// map<utf8, int32>: entries struct<key: utf8 not null, value: int32> (values sometimes null).
function mapData(rows, isNull) {
  const offsets = new Int32Array(rows.length + 1);
  const keys = [], values = [];
  rows.forEach((r, i) => {
    if (!isNull(r)) for (let k = 0; k < r % 3; k++) { keys.push(r * 10 + k); values.push(r + k); }
    offsets[i + 1] = keys.length;
  });
  const entryRows = keys.map((_, k) => k);
  const key = varData(new arrow.Utf8(), false, (e) => enc.encode(`k${e}`), keys, never);
  const value = primitiveData(new arrow.Int32(), Int32Array, (e) => values[e], entryRows, (k) => k % 4 === 1);
  const entriesType = new Struct([new Field("key", new arrow.Utf8(), false), new Field("value", new arrow.Int32(), true)]);
  const child = makeData({ type: entriesType, length: keys.length, nullCount: 0, children: [key, value] });
  const type = new arrow.Map_(new Field("entries", entriesType, false));
  return makeData({ type, length: rows.length, ...nullsOf(rows, isNull), valueOffsets: offsets, child });
}

// dictionary<utf8, int32> over a fixed dictionary (shared by every batch).
const DICT_VALUES = ["red", "green", "blue", ""];
const sharedDictionary = arrow.vectorFromArray(DICT_VALUES, new arrow.Utf8());
function dictType(id) {
  return new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32(), id, false);
}
function dictData(rows, isNull, dictionary = sharedDictionary, id = 0) {
  const indices = Int32Array.from(rows, (r) => (isNull(r) ? 0 : (r * 3) % dictionary.length));
  return makeData({ type: dictType(id), length: rows.length, ...nullsOf(rows, isNull), data: indices, dictionary });
}

function nullData(rows) {
  return makeData({ type: new arrow.Null(), length: rows.length, nullCount: rows.length });
}

// Every column: [name, quiver type, nullable, build(rows) -> Data].
function columns() {
  const cols = primitives().map(([name, type, qtype, nullable, Ctor, value]) => [
    name,
    qtype,
    nullable,
    (rows) => primitiveData(type, Ctor, value, rows, nullable ? everyThird : never),
  ]);
  cols.push(
    ["bool", "bool", true, (rows) => boolData(rows, everyThird)],
    ["utf8", "utf8", true, (rows) => varData(new arrow.Utf8(), false, strBytes, rows, everyThird)],
    ["large_utf8", "large_utf8", true, (rows) => varData(new arrow.LargeUtf8(), true, strBytes, rows, everyThird)],
    ["binary", "binary", true, (rows) => varData(new arrow.Binary(), false, binBytes, rows, everyThird)],
    ["large_binary", "large_binary", false, (rows) => varData(new arrow.LargeBinary(), true, binBytes, rows, never)],
    ["fsb4", "fixed_size_binary[4]", true, (rows) => fsbData(rows, everyThird)],
    ["dec", "decimal128(20, 2)", true, (rows) => decimalData(rows, everyThird)],
    ["list_i32", "list<item: int32>", true, (rows) => listData(rows, everyThird)],
    ["fsl_f32", "fixed_size_list<item: float32 not null>[3]", true, (rows) => fslData(rows, everyThird)],
    ["struct", "struct<a: int32 not null, b: utf8>", true, (rows) => structData(rows, everyThird)],
    ["list_struct", "list<item: struct<x: int64>>", true, (rows) => listStructData(rows, everyThird)],
    ["dict", "dictionary<values=utf8, indices=int32>", true, (rows) => dictData(rows, everyThird)],
    ["map", "map<utf8, int32>", true, (rows) => mapData(rows, everyThird)],
    ["null", "null", true, (rows) => nullData(rows)],
  );
  return cols;
}

function makeTable(cols, batchRows, metadata) {
  const fields = cols.map(([name, , nullable, build]) => new Field(name, build([0]).type, nullable));
  const schema = new Schema(fields, metadata);
  let row = 0;
  const batches = batchRows.map((n) => {
    const rows = Array.from({ length: n }, (_, k) => row + k);
    row += n;
    const data = makeData({
      type: new Struct(fields),
      length: n,
      nullCount: 0,
      children: cols.map(([, , , build]) => build(rows)),
    });
    return new arrow.RecordBatch(schema, data);
  });
  return new arrow.Table(schema, batches);
}

// js_dict.arrows: batch 1 with dictionary A, batch 2 replaces it with B, batch 3 uses B plus
// a second chunk, which apache-arrow writes as a delta dictionary batch.
function makeDictTable() {
  const type = dictType(7);
  const field = new Field("d", type, true);
  const schema = new Schema([field]);
  const a = arrow.vectorFromArray(["a", "b"], new arrow.Utf8());
  const b = arrow.vectorFromArray(["c", "d", "e"], new arrow.Utf8());
  const bGrown = b.concat(arrow.vectorFromArray(["f"], new arrow.Utf8()));
  const batch = (dictionary, indices) => {
    const rows = indices.map((_, k) => k);
    const d = makeData({ type, length: indices.length, ...nullsOf(rows, (k) => indices[k] < 0), data: Int32Array.from(indices, (v) => Math.max(v, 0)), dictionary });
    const data = makeData({ type: new Struct([field]), length: indices.length, nullCount: 0, children: [d] });
    return new arrow.RecordBatch(schema, data);
  };
  return new arrow.Table(schema, [batch(a, [0, 1, -1, 1]), batch(b, [2, 0]), batch(bGrown, [3, 1, -1])]);
}

// ---- canonical values ------------------------------------------------------------------------

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

function canonFloat(v) {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "-Infinity";
  if (Object.is(v, -0)) return "-0";
  return v;
}

// Value i (0-based within `data`) of one Data chunk.
function canon(data, i) {
  if (data.type.typeId === arrow.Type.Null) return null;
  if (!data.getValid(i)) return null;
  const t = data.type;
  const j = data.offset + i;
  switch (t.typeId) {
    case arrow.Type.Bool:
      return ((data.values[j >> 3] >> (j & 7)) & 1) === 1;
    case arrow.Type.Int:
    case arrow.Type.Date:
    case arrow.Type.Timestamp: {
      const v = data.values[j];
      return typeof v === "bigint" ? v.toString() : v;
    }
    case arrow.Type.Float:
      if (t.precision === arrow.Precision.HALF) return data.values[j];
      return canonFloat(data.values[j]);
    case arrow.Type.Utf8:
    case arrow.Type.LargeUtf8:
    case arrow.Type.Binary:
    case arrow.Type.LargeBinary: {
      const begin = Number(data.valueOffsets[j]);
      const end = Number(data.valueOffsets[j + 1]);
      const bytes = data.values.subarray(begin, end);
      const isText = t.typeId === arrow.Type.Utf8 || t.typeId === arrow.Type.LargeUtf8;
      return isText ? new TextDecoder().decode(bytes) : hex(bytes);
    }
    case arrow.Type.FixedSizeBinary:
      return hex(data.values.subarray(j * t.byteWidth, (j + 1) * t.byteWidth));
    case arrow.Type.Decimal:
      return hex(new Uint8Array(data.values.buffer, data.values.byteOffset + j * 16, 16));
    case arrow.Type.List:
    case arrow.Type.Map: {
      const begin = data.valueOffsets[j];
      const end = data.valueOffsets[j + 1];
      const out = [];
      for (let k = begin; k < end; k++) out.push(canon(data.children[0], k));
      return out;
    }
    case arrow.Type.FixedSizeList: {
      const out = [];
      for (let k = 0; k < t.listSize; k++) out.push(canon(data.children[0], j * t.listSize + k));
      return out;
    }
    case arrow.Type.Struct: {
      const out = {};
      t.children.forEach((f, k) => {
        out[f.name] = canon(data.children[k], i);
      });
      return out;
    }
    case arrow.Type.Dictionary:
      return canonVector(data.dictionary, Number(data.values[j]));
    default:
      throw new Error(`no canonical form for ${t}`);
  }
}

function canonVector(vector, index) {
  let i = index;
  for (const chunk of vector.data) {
    if (i < chunk.length) return canon(chunk, i);
    i -= chunk.length;
  }
  throw new Error(`index ${index} beyond a vector of ${vector.length}`);
}

// Schema and values of everything in an IPC stream or file, batch by batch.
function describe(bytes) {
  const reader = arrow.RecordBatchReader.from(bytes);
  const batches = [];
  let schema = null;
  for (const batch of reader) {
    schema = batch.schema;
    const cols = {};
    batch.schema.fields.forEach((f, k) => {
      const d = batch.data.children[k];
      cols[f.name] = Array.from({ length: batch.numRows }, (_, i) => canon(d, i));
    });
    batches.push({ length: batch.numRows, columns: cols });
  }
  schema = schema ?? reader.schema;
  return {
    schema: schema.fields.map((f) => ({ name: f.name, js_type: String(f.type), nullable: f.nullable })),
    metadata: Object.fromEntries(schema.metadata),
    batches,
  };
}

// ---- modes ------------------------------------------------------------------------------------

const UNSUPPORTED = [
  ["time32_ms", new arrow.TimeMillisecond(), "time32[ms]"],
  ["time64_ns", new arrow.TimeNanosecond(), "time64[ns]"],
  ["duration_s", new arrow.DurationSecond(), "duration[s]"],
  ["interval_day_time", new arrow.IntervalDayTime(), "interval[day_time]"],
  ["dense_union", new arrow.DenseUnion([0, 1], [new Field("i", new arrow.Int32()), new Field("s", new arrow.Utf8())]), "dense_union"],
];

function writeMode() {
  fs.mkdirSync(dir, { recursive: true });
  const cols = columns();
  const table = makeTable(cols, [7, 4], new Map([["origin", "apache-arrow js"], ["empty", ""]]));
  const expected = { files: {}, types: {}, unsupported: {} };
  for (const [name, qtype] of cols.map(([n, q]) => [n, q])) expected.types[name] = qtype;
  const outputs = [
    ["js.arrows", arrow.tableToIPC(table, "stream")],
    ["js.arrow", arrow.tableToIPC(table, "file")],
    ["js_dict.arrows", arrow.tableToIPC(makeDictTable(), "stream")],
  ];
  expected.types.d = "dictionary<values=utf8, indices=int32>";
  for (const [file, bytes] of outputs) {
    fs.writeFileSync(path.join(dir, file), bytes);
    // What apache-arrow reads back from its own bytes is the expectation for both sides.
    expected.files[file] = describe(fs.readFileSync(path.join(dir, file)));
  }
  for (const [name, type, qname] of UNSUPPORTED) {
    const schema = new Schema([new Field(name, type, true)]);
    const file = `unsupported_${name}.arrows`;
    fs.writeFileSync(path.join(dir, file), arrow.tableToIPC(new arrow.Table(schema), "stream"));
    expected.unsupported[file] = qname;
  }
  fs.writeFileSync(path.join(dir, "expected.json"), JSON.stringify(expected, null, 1));
  const rows = table.numRows;
  console.log(`wrote ${outputs.length + UNSUPPORTED.length} IPC inputs (${cols.length} columns, ${rows} rows) and expected.json to ${dir}`);
}

function readMode() {
  const expected = JSON.parse(fs.readFileSync(path.join(dir, "expected.json"), "utf8"));
  let failed = 0;
  const check = (label, ok, detail) => {
    if (!ok) failed++;
    console.log(`${ok ? "ok  " : "FAIL"}  ${label}${!ok && detail ? ": " + detail : ""}`);
  };
  const pairs = [
    ["quiver.arrows", "js.arrows"],
    ["quiver.arrow", "js.arrow"],
    ["quiver_dict.arrows", "js_dict.arrows"],
  ];
  for (const [ours, theirs] of pairs) {
    const file = path.join(dir, ours);
    if (!fs.existsSync(file)) {
      check(`${ours} exists`, false, "the C++ test did not write it");
      continue;
    }
    let got;
    try {
      got = describe(fs.readFileSync(file));
    } catch (e) {
      check(`apache-arrow reads ${ours}`, false, String(e));
      continue;
    }
    const want = expected.files[theirs];
    check(`${ours}: schema`, JSON.stringify(got.schema) === JSON.stringify(want.schema),
      `${JSON.stringify(got.schema)} != ${JSON.stringify(want.schema)}`);
    check(`${ours}: schema metadata`, JSON.stringify(got.metadata) === JSON.stringify(want.metadata),
      `${JSON.stringify(got.metadata)} != ${JSON.stringify(want.metadata)}`);
    check(`${ours}: ${want.batches.length} batches`, got.batches.length === want.batches.length, `${got.batches.length}`);
    want.batches.forEach((wb, b) => {
      const gb = got.batches[b];
      if (!gb) return;
      for (const [name, values] of Object.entries(wb.columns)) {
        const a = JSON.stringify(gb.columns[name]);
        const e = JSON.stringify(values);
        check(`${ours}: batch ${b} column ${name}`, a === e, `${a} != ${e}`);
      }
    });
  }
  console.log(failed === 0 ? "all checks passed" : `${failed} checks failed`);
  process.exit(failed === 0 ? 0 : 1);
}

try {
  if (mode === "write") writeMode();
  else readMode();
} catch (e) {
  console.error(e);
  process.exit(1);
}
