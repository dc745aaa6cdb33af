// Source tables that check_format_write.mjs builds itself (no LanceDB fixture): inputs that
// stretch quiver's 2.1 writer (docs/format-plan.md, "2.1 writer gaps"). Each entry:
//   { name, build() -> apache-arrow Table, note, import_args?: [...extra `table import` args],
//     min_fragments?: n (fragment count not known in advance, at least n),
//     stable_row_ids?: true (LanceDB's `_rowid` must then be the id column: ids 0..n-1 in order),
//     refused_below_22?: /regexp/ (in 2.1 quiver must refuse the import with this message, as
//     Lance 8 refuses such data) }
// The rows go through the same steps as the fixture tables: quiver imports them, LanceDB reads
// them, appends and compacts, quiver exports the result.

import { toBitmap } from "./format_lib.mjs";
import { arrow } from "./lib.mjs";  // the CJS instance LanceDB shares


function tableOf(cols, n) {
  const fields = cols.map((c) => c.field);
  const struct = arrow.makeData({ type: new arrow.Struct(fields), length: n, nullCount: 0, children: cols.map((c) => c.data) });
  return new arrow.Table([new arrow.RecordBatch(new arrow.Schema(fields), struct)]);
}

const idData = (n, first = 0) =>
  arrow.makeData({ type: new arrow.Int64(), length: n, nullCount: 0, data: BigInt64Array.from({ length: n }, (_, i) => BigInt(first + i)) });
const idCol = (n) => ({ field: new arrow.Field("id", new arrow.Int64(), false), data: idData(n) });

// list<int32> rows of `lengths[i]` items (-1 = null list); item k = k * 3.
function intLists(lengths, name = "l") {
  const n = lengths.length;
  const off = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) off[i + 1] = off[i] + Math.max(lengths[i], 0);
  const m = off[n];
  const items = arrow.makeData({ type: new arrow.Int32(), length: m, nullCount: 0, data: Int32Array.from({ length: m }, (_, k) => k * 3) });
  const lt = new arrow.List(new arrow.Field("item", new arrow.Int32(), true));
  const data = arrow.makeData({ type: lt, length: n, valueOffsets: off, child: items, ...toBitmap(lengths.map((l) => (l >= 0 ? 1 : 0))) });
  return { field: new arrow.Field(name, lt, true), data };
}

function largeUtf8(vals) {
  const enc = new TextEncoder();
  const parts = vals.map((v) => (v === null ? null : enc.encode(v)));
  const offs = new BigInt64Array(vals.length + 1);
  let total = 0;
  parts.forEach((p, i) => { total += p ? p.length : 0; offs[i + 1] = BigInt(total); });
  const bytes = new Uint8Array(total);
  parts.forEach((p, i) => { if (p) bytes.set(p, Number(offs[i])); });
  return arrow.makeData({ type: new arrow.LargeUtf8(), length: vals.length, valueOffsets: offs, data: bytes, ...toBitmap(vals.map((v) => (v === null ? 0 : 1))) });
}

// struct{l: list<fixed_size_list<float32, D>>} with null structs (i % 11 == 5), null lists
// (i % 13 == 8) and empty lists (i % 5 == 1).
function structListFsl(n, D) {
  const sv = Array.from({ length: n }, (_, i) => (i % 11 === 5 ? 0 : 1));
  const lv = Array.from({ length: n }, (_, i) => (i % 13 === 8 ? 0 : 1));
  const off = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) off[i + 1] = off[i] + (sv[i] && lv[i] && i % 5 !== 1 ? 1 + (i % 3) : 0);
  const m = off[n];
  const vals = Float32Array.from({ length: m * D }, (_, k) => (k % 1000) / 8);
  const ft = new arrow.FixedSizeList(D, new arrow.Field("item", new arrow.Float32(), true));
  const lt = new arrow.List(new arrow.Field("item", ft, true));
  const st = new arrow.Struct([new arrow.Field("l", lt, true)]);
  const fsl = arrow.makeData({ type: ft, length: m, nullCount: 0,
    child: arrow.makeData({ type: ft.children[0].type, length: m * D, data: vals, nullCount: 0 }) });
  const list = arrow.makeData({ type: lt, length: n, valueOffsets: off, child: fsl, ...toBitmap(lv) });
  const s = arrow.makeData({ type: st, length: n, children: [list], ...toBitmap(sv) });
  return tableOf([idCol(n), { field: new arrow.Field("s", st, true), data: s }], n);
}

// Packed structs (`lance-encoding:packed: true`): fixed-width members (mini-block PackedStruct
// rows, 2.1 and 2.2), variable-width ones with a fixed-size-list member (full-zip
// VariablePackedStruct, 2.2 only), null struct rows over non-null members (Lance packs those; it
// refuses member nulls), and lists of packed structs.
function packedStructs(n, variable) {
  const packed = new Map([["lance-encoding:packed", "true"]]);
  const sv = Array.from({ length: n }, (_, i) => (i % 7 === 3 ? 0 : 1));
  const num = (T, Arr, f) => arrow.makeData({ type: new T(), length: n, nullCount: 0, data: Arr.from({ length: n }, (_, i) => f(i)) });
  const ft = new arrow.Struct([new arrow.Field("a", new arrow.Int32(), false), new arrow.Field("b", new arrow.Float64(), false),
    new arrow.Field("c", new arrow.Int16(), false)]);
  const fixed = arrow.makeData({ type: ft, length: n, ...toBitmap(sv), children: [
    num(arrow.Int32, Int32Array, (i) => i + 1), num(arrow.Float64, Float64Array, (i) => i / 2), num(arrow.Int16, Int16Array, (i) => -(i % 30000))] });
  const enc = new TextEncoder();
  const utf8 = (vals) => {
    const parts = vals.map((v) => enc.encode(v));
    const offs = new Int32Array(vals.length + 1);
    parts.forEach((p, i) => { offs[i + 1] = offs[i] + p.length; });
    const bytes = new Uint8Array(offs[vals.length]);
    parts.forEach((p, i) => bytes.set(p, offs[i]));
    return arrow.makeData({ type: new arrow.Utf8(), length: vals.length, valueOffsets: offs, data: bytes, nullCount: 0 });
  };
  const fsl = new arrow.FixedSizeList(2, new arrow.Field("item", new arrow.Float32(), true));
  const vt = new arrow.Struct([new arrow.Field("id", new arrow.Int32(), false), new arrow.Field("s", new arrow.Utf8(), false),
    new arrow.Field("v", fsl, false)]);
  const varStructs = (m, valid) => arrow.makeData({ type: vt, length: m, ...toBitmap(valid), children: [
    arrow.makeData({ type: new arrow.Int32(), length: m, nullCount: 0, data: Int32Array.from({ length: m }, (_, i) => 3 * i - 100) }),
    utf8(Array.from({ length: m }, (_, i) => "x".repeat(i % 4) + (i % 3 ? "" : `#${i}`))),
    arrow.makeData({ type: fsl, length: m, nullCount: 0, child: arrow.makeData({ type: new arrow.Float32(), length: 2 * m, nullCount: 0,
      data: Float32Array.from({ length: 2 * m }, (_, k) => k / 8) }) })] });
  const off = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) off[i + 1] = off[i] + (i % 9 === 4 ? 0 : i % 3);
  const m = off[n];
  const itemValid = Array.from({ length: m }, (_, k) => (k % 5 === 2 ? 0 : 1));
  const lt = new arrow.List(new arrow.Field("item", variable ? vt : ft, true, packed));
  const items = variable ? varStructs(m, itemValid) : arrow.makeData({ type: ft, length: m, ...toBitmap(itemValid), children: [
    arrow.makeData({ type: new arrow.Int32(), length: m, nullCount: 0, data: Int32Array.from({ length: m }, (_, k) => k) }),
    arrow.makeData({ type: new arrow.Float64(), length: m, nullCount: 0, data: Float64Array.from({ length: m }, (_, k) => k / 4) }),
    arrow.makeData({ type: new arrow.Int16(), length: m, nullCount: 0, data: Int16Array.from({ length: m }, (_, k) => k % 999) })] });
  const list = arrow.makeData({ type: lt, length: n, valueOffsets: off, child: items,
    ...toBitmap(Array.from({ length: n }, (_, i) => (i % 9 === 4 ? 0 : 1))) });
  const cols = [idCol(n), { field: new arrow.Field("pf", ft, true, packed), data: fixed }];
  if (variable) cols.push({ field: new arrow.Field("pv", vt, true, packed), data: varStructs(n, sv) });
  cols.push({ field: new arrow.Field("lp", lt, true), data: list });
  return tableOf(cols, n);
}

export const QUIVER_WRITE_CASES = [
  {
    name: "qv_long_list_rows",
    note: "list<int32> with two rows of 200,000 items: mini-block chunks inside one row",
    build: () => tableOf([idCol(7), intLists([2, 0, 200000, -1, 3, 200000, 1])], 7),
  },
  {
    name: "qv_empty_list_runs",
    note: "list<int32>: 100,000 empty then 100,000 null lists between values, 70,000 empty at the end: pages cut by rows (constant pages for the runs)",
    build: () => {
      const lengths = [2, ...new Array(100000).fill(0), ...new Array(100000).fill(-1), 1, ...new Array(70000).fill(0)];
      return tableOf([idCol(lengths.length), intLists(lengths)], lengths.length);
    },
  },
  {
    name: "qv_sparse_list_values",
    note: "list<int32>: 70 empty or null lists before each value: bit-packed chunks shrink below 1,024 values (u16 level count)",
    build: () => {
      const lengths = [];
      for (let v = 0; v < 3000; v++) {
        for (let k = 0; k < 70; k++) lengths.push(k % 3 === 0 ? -1 : 0);
        lengths.push(1 + (v % 2));
      }
      return tableOf([idCol(lengths.length), intLists(lengths)], lengths.length);
    },
  },
  {
    name: "qv_nested_list_run",
    note: "list<list<int32>>: one row with 70,000 empty inner lists before its values: that page is full-zip",
    build: () => {
      const inner = intLists([1, 2, ...new Array(70000).fill(0), 2, -1, 3], "item");
      const m = inner.data.length;
      const lt = new arrow.List(new arrow.Field("item", inner.field.type, true));
      const off = Int32Array.from([0, 2, m - 2, m, m, m]);
      const data = arrow.makeData({ type: lt, length: 5, valueOffsets: off, child: inner.data, ...toBitmap([1, 1, 1, 0, 1]) });
      return tableOf([idCol(5), { field: new arrow.Field("ll", lt, true), data }], 5);
    },
  },
  {
    name: "qv_large_dictionaries",
    note: "large_utf8 (low cardinality: dictionary with a 64-bit block, as Lance 8.0 writes in 2.1) and dictionary<int32, large_utf8>",
    build: () => {
      const n = 5000;
      const valid = Array.from({ length: n }, (_, i) => (i % 7 === 3 ? 0 : 1));
      const words = largeUtf8(Array.from({ length: n }, (_, i) => (valid[i] ? (i % 4 === 3 ? "" : `word-${i % 4}`) : null)));
      const dt = new arrow.Dictionary(new arrow.LargeUtf8(), new arrow.Int32());
      const dict = largeUtf8(["alpha", "beta", "", "gamma", "x".repeat(40)]);
      const d = arrow.makeData({ type: dt, length: n, data: Int32Array.from({ length: n }, (_, i) => i % 5),
        dictionary: arrow.makeVector(dict), ...toBitmap(valid) });
      return tableOf([idCol(n), { field: new arrow.Field("ls", new arrow.LargeUtf8(), true), data: words },
        { field: new arrow.Field("d", dt, true), data: d }], n);
    },
  },
  {
    name: "qv_struct_list_fsl64",
    note: "struct{list<fsl<f32,64>>} with null structs and null lists: mini-block (Lance 8.0 misreads this full-zip shape)",
    build: () => structListFsl(1000, 64),
  },
  {
    name: "qv_struct_list_fsl9000",
    note: "struct{list<fsl<f32,9000>>} with null structs and null lists: vectors too wide for a chunk, pages cut so none holds both",
    build: () => structListFsl(60, 9000),
  },
  {
    name: "qv_max_bytes_per_file",
    note: "20 batches of 1,000 rows imported with --max-bytes-per-file 150000: several fragments, rows in order",
    import_args: ["--max-bytes-per-file", "150000"],
    min_fragments: 3,
    build: () => {
      const fields = [new arrow.Field("id", new arrow.Int64(), false), new arrow.Field("text", new arrow.Utf8(), false)];
      const schema = new arrow.Schema(fields);
      const batches = [];
      for (let b = 0; b < 20; b++) {
        const n = 1000;
        const text = Array.from({ length: n }, (_, i) => `row ${b * n + i} `.padEnd(100, String.fromCharCode(97 + ((b * n + i) % 26))));
        const enc = new TextEncoder();
        const parts = text.map((t) => enc.encode(t));
        const offs = new Int32Array(n + 1);
        parts.forEach((p, i) => { offs[i + 1] = offs[i] + p.length; });
        const bytes = new Uint8Array(offs[n]);
        parts.forEach((p, i) => bytes.set(p, offs[i]));
        const t = arrow.makeData({ type: new arrow.Utf8(), length: n, valueOffsets: offs, data: bytes, nullCount: 0 });
        const struct = arrow.makeData({ type: new arrow.Struct(fields), length: n, nullCount: 0, children: [idData(n, b * n), t] });
        batches.push(new arrow.RecordBatch(schema, struct));
      }
      return new arrow.Table(schema, batches);
    },
  },
  {
    name: "qv_packed_fixed",
    note: "structs marked lance-encoding:packed with fixed-width members (null struct rows, a list of them): one column each, PackedStruct rows, as Lance 8 (2.1) and Lance 12 (2.2) store them",
    build: () => packedStructs(3000, false),
  },
  {
    name: "qv_packed_variable",
    note: "a packed struct with string and fixed-size-list members (and a list of them): VariablePackedStruct rows in 2.2; refused in 2.1, as Lance 8 refuses it",
    refused_below_22: /Unsupported.*column 'pv' is a packed struct .*variable-width members/,
    build: () => packedStructs(3000, true),
  },
  {
    name: "qv_stable_row_ids",
    note: "imported with --stable-row-ids in fragments of 1,000: LanceDB's withRowId() is the stable id (0..n-1 in import order), not the row address; LanceDB appends and compacts on top",
    import_args: ["--stable-row-ids", "--max-rows-per-file", "1000"],
    min_fragments: 3,
    stable_row_ids: true,
    build: () => {
      const n = 2500;
      const fields = [new arrow.Field("id", new arrow.Int64(), false), new arrow.Field("v", new arrow.Float64(), true)];
      const v = arrow.makeData({ type: new arrow.Float64(), length: n, nullCount: 0, data: Float64Array.from({ length: n }, (_, i) => i / 4) });
      const struct = arrow.makeData({ type: new arrow.Struct(fields), length: n, nullCount: 0, children: [idData(n), v] });
      return new arrow.Table([new arrow.RecordBatch(new arrow.Schema(fields), struct)]);
    },
  },
];
