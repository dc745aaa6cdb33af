// Shared by make_format_fixtures.mjs and check_format_write.mjs: exact canonical values of Arrow
// data, the schema comparison with LanceDB's known quirks, and the row-by-row read-back check.
// Uses the one CJS apache-arrow instance that lib.mjs and LanceDB share.

import { arrow, interopRequire } from "./lib.mjs";

// makeData validity fields from `valid` (null = all valid; otherwise one truthy/falsy entry per
// slot, `n` of them).
export function toBitmap(valid, n = valid ? valid.length : 0) {
  if (!valid) return { nullCount: 0 };
  const bm = new Uint8Array(Math.max(1, Math.ceil(n / 8)));
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    if (valid[i]) bm[i >> 3] |= 1 << (i & 7);
    else nulls++;
  }
  return nulls ? { nullBitmap: bm, nullCount: nulls } : { nullCount: 0 };
}

// apache-arrow 18's IPC writer emits a 0-byte values buffer for a Bool array whose values are all
// null (assembleBoolVector's "fastest path"); arrow-rs, and so LanceDB, rejects that ("Need at
// least N bytes for bitmap in buffers[0] in array of type Boolean"). Write the (all-zero) bitmap
// instead. This patches the one CJS apache-arrow instance that lib.mjs and LanceDB share, so it
// applies to the buffers LanceDB receives and to IPC files written with tableToIPC alike.
// Idempotent.
let boolPatched = false;
export function patchAllNullBoolWriter() {
  if (boolPatched) return;
  boolPatched = true;
  const { VectorAssembler } = interopRequire("apache-arrow/visitor/vectorassembler");
  const visitBool = VectorAssembler.prototype.visitBool;
  VectorAssembler.prototype.visitBool = function (data) {
    if (data.length > 0 && data.nullCount >= data.length && data.values instanceof Uint8Array) {
      return visitBool.call(this, { nullCount: 0, length: data.length, offset: data.offset, values: data.values });
    }
    return visitBool.call(this, data);
  };
}

// ---------------------------------------------------------------------------------------------
// Canonical values: JSON-able, exact (bigints and bytes as strings, floats keep NaN / -0 / ±inf,
// float16 as raw bits), nested as arrays/objects.

const hex = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString("hex");
function canonFloat(v) {
  if (Number.isNaN(v)) return "NaN";
  if (Object.is(v, -0)) return "-0";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  return v;
}
export function canon(data, i) {
  if (!data.getValid(i)) return null;
  const t = data.type;
  switch (t.typeId) {
    case arrow.Type.Int:
      return t.bitWidth === 64 ? String(data.values[i]) : data.values[i];
    case arrow.Type.Float:
      return t.precision === arrow.Precision.HALF ? `f16:${data.values[i].toString(16)}` : canonFloat(data.values[i]);
    case arrow.Type.Bool: {
      const p = data.offset + i;
      return ((data.values[p >> 3] >> (p & 7)) & 1) === 1;
    }
    case arrow.Type.Utf8:
    case arrow.Type.LargeUtf8:
      return Buffer.from(data.values.subarray(Number(data.valueOffsets[i]), Number(data.valueOffsets[i + 1]))).toString("utf8");
    case arrow.Type.Binary:
    case arrow.Type.LargeBinary:
      return hex(data.values.subarray(Number(data.valueOffsets[i]), Number(data.valueOffsets[i + 1])));
    case arrow.Type.FixedSizeBinary:
      return hex(data.values.subarray(i * t.byteWidth, (i + 1) * t.byteWidth));
    case arrow.Type.Date:
    case arrow.Type.Timestamp:
      return String(data.values[i]);
    case arrow.Type.Decimal: {
      let u = 0n;
      for (let k = 3; k >= 0; k--) u = (u << 32n) | BigInt(data.values[i * 4 + k]);
      return `d:${BigInt.asIntN(128, u)}`;
    }
    case arrow.Type.List:
    case arrow.Type.Map: {  // a map as its entries, [{key, value}, ...]
      const out = [];
      for (let k = data.valueOffsets[i]; k < data.valueOffsets[i + 1]; k++) out.push(canon(data.children[0], k));
      return out;
    }
    case arrow.Type.FixedSizeList: {
      const out = [];
      for (let k = 0; k < t.listSize; k++) out.push(canon(data.children[0], i * t.listSize + k));
      return out;
    }
    case arrow.Type.Struct: {
      const out = {};
      t.children.forEach((f, k) => { out[f.name] = canon(data.children[k], i); });
      return out;
    }
    case arrow.Type.Dictionary:
      return data.dictionary.get(data.values[i]);
    default:
      throw new Error(`canon: unsupported type ${t}`);
  }
}

// Canonical strings of column `name` for the given rows (sorted row indices) of a table.
export function columnCanon(table, name, rows) {
  const out = [];
  let base = 0, r = 0;
  for (const batch of table.batches) {
    const data = batch.getChild(name).data[0];
    const end = base + batch.numRows;
    while (r < rows.length && rows[r] < end) {
      out.push(JSON.stringify(canon(data, rows[r] - base)));
      r++;
    }
    base = end;
  }
  return out;
}

// A 2.0 file cannot store struct validity: a null struct reads back as a struct of nulls (with
// the fixture data, members are null under a null struct, recursively). With allowNullStructs,
// `null` expected and such a struct read are taken as equal.
const nullLike = (v) => v === null || (typeof v === "object" && !Array.isArray(v) && Object.values(v).every(nullLike));
export function equivalent(exp, got) {
  if (exp === null) return nullLike(got) && (got === null || !Array.isArray(got));
  if (Array.isArray(exp)) return Array.isArray(got) && got.length === exp.length && exp.every((e, k) => equivalent(e, got[k]));
  if (typeof exp === "object") {
    if (got === null || typeof got !== "object" || Array.isArray(got)) return false;
    const ks = Object.keys(exp);
    return ks.length === Object.keys(got).length && ks.every((k) => k in got && equivalent(exp[k], got[k]));
  }
  return exp === got;
}

// Differences between two field lists, by dotted path.
export function schemaDiff(want, have, prefix = "", parentType = null) {
  const out = [];
  const names = (fs_) => fs_.map((f) => f.name).join(",");
  if (names(want) !== names(have)) return [{ path: prefix || "<root>", field: "children", expected: names(want), got: names(have) }];
  want.forEach((w, k) => {
    const h = have[k];
    const p = prefix ? `${prefix}.${w.name}` : w.name;
    if (String(w.type) !== String(h.type)) out.push({ path: p, field: "type", expected: String(w.type), got: String(h.type) });
    if (w.nullable !== h.nullable) {
      const d = { path: p, field: "nullable", expected: w.nullable, got: h.nullable };
      if (parentType && arrow.DataType.isFixedSizeList(parentType)) d.fsl_item = true;
      out.push(d);
    }
    const wm = JSON.stringify(Object.fromEntries(w.metadata ?? [])), hm = JSON.stringify(Object.fromEntries(h.metadata ?? []));
    if (wm !== hm) {
      const d = { path: p, field: "metadata", expected: wm, got: hm };
      if (parentType && arrow.DataType.isFixedSizeList(parentType)) d.fsl_item = true;
      out.push(d);
    }
    if (w.type.children?.length) out.push(...schemaDiff(w.type.children, h.type.children ?? [], p, w.type));
  });
  return out;
}
// LanceDB 0.31 reports the item field of every FixedSizeList as nullable and without metadata
// (the item field's nullability and metadata are not kept).
export const isKnownSchemaQuirk = (d) => d.fsl_item && ((d.field === "nullable" && d.expected === false && d.got === true) || (d.field === "metadata" && d.got === "{}"));

// The row indices compared for a table of n rows: all of them up to sampleAbove, else the first
// and last `edge` (2,048) and every `step`th (37th).
export function sampleRows(n, sampleAbove = 20000, { edge = 2048, step = 37 } = {}) {
  if (n <= sampleAbove) return Array.from({ length: n }, (_, i) => i);
  const s = new Set();
  for (let i = 0; i < Math.min(edge, n); i++) { s.add(i); s.add(n - 1 - i); }
  for (let i = 0; i < n; i += step) s.add(i);
  return [...s].sort((a, b) => a - b);
}

// Compares the rows `rows` of Arrow table `got` with `source`, column by column (names and order,
// type strings, canonical values), recording into `res` (an object with `equal` and `mismatches`):
// up to 3 mismatching rows per column; with allowNullStructs, 2.0 null structs read as structs of
// nulls are counted in res.null_struct_as_struct_of_nulls instead.
export function compareRows(source, got, rows, res, { allowNullStructs = false } = {}) {
  const gotNames = got.schema.fields.map((f) => f.name);
  const srcNames = source.schema.fields.map((f) => f.name);
  if (JSON.stringify(gotNames) !== JSON.stringify(srcNames)) {
    res.equal = false;
    res.mismatches.push({ what: "column names", expected: srcNames, got: gotNames });
    return res;
  }
  for (const f of source.schema.fields) {
    const gotType = String(got.schema.fields.find((g) => g.name === f.name).type);
    if (gotType !== String(f.type)) res.mismatches.push({ column: f.name, what: "type", expected: String(f.type), got: gotType });
    const a = columnCanon(source, f.name, rows);
    const b = columnCanon(got, f.name, rows);
    let shown = 0, nullStructs = 0;
    for (let k = 0; k < rows.length; k++) {
      if (a[k] === b[k]) continue;
      if (allowNullStructs && equivalent(JSON.parse(a[k]), JSON.parse(b[k]))) { nullStructs++; continue; }
      res.equal = false;
      if (shown++ < 3) res.mismatches.push({ column: f.name, row: rows[k], expected: a[k].slice(0, 300), got: b[k].slice(0, 300) });
    }
    if (nullStructs) (res.null_struct_as_struct_of_nulls ??= {})[f.name] = nullStructs; // rows
  }
  if (res.mismatches.some((m) => m.what === "type")) res.equal = false;
  return res;
}

// Reads LanceDB table `tbl` (schema and every row, sampled above sampleAbove rows) and compares it
// with the Arrow table `source`: {rows_read, rows_compared, equal, mismatches, schema_equal,
// known_schema_differences?, null_struct_as_struct_of_nulls?, note?}.
// `sample`: sampleRows' edge/step.
export async function readBack(tbl, source, { sampleAbove = 20000, sample = {}, allowNullStructs = false } = {}) {
  const n = source.numRows;
  const rows = sampleRows(n, sampleAbove, sample);
  const res = { rows_read: null, rows_compared: rows.length, equal: true, mismatches: [] };
  // The schema LanceDB reports (types as apache-arrow prints them, nullability, field metadata).
  const diffs = schemaDiff(source.schema.fields, (await tbl.schema()).fields);
  const known = diffs.filter(isKnownSchemaQuirk);
  if (known.length) res.known_schema_differences = known;
  const other = diffs.filter((d) => !isKnownSchemaQuirk(d));
  res.schema_equal = other.length === 0;
  if (other.length) {
    res.equal = false;
    res.mismatches.push(...other.slice(0, 10).map((d) => ({ what: "schema", ...d })));
  }
  const got = await tbl.query().toArrow();
  res.rows_read = got.numRows;
  // LanceDB 0.31: toArrow() of a table without rows returns a table with no fields at all.
  if (n === 0 && got.numRows === 0) {
    res.note = "toArrow() of a 0-row table returns a table with 0 fields; only the schema (tbl.schema()) is compared";
    return res;
  }
  if (got.numRows !== n) {
    res.equal = false;
    res.mismatches.push({ what: "row count", expected: n, got: got.numRows });
    return res;
  }
  return compareRows(source, got, rows, res, { allowNullStructs });
}
