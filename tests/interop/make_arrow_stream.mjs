#!/usr/bin/env node
// Writes a small Arrow IPC stream with apache-arrow (JS, pinned by package-lock.json) for the
// C++ arrow_test interop check (tests/arrow/ipc_message_test.cc), which reads its schema
// message and compares names, types and nullability with the expectations below.
//
//   node make_arrow_stream.mjs <out_file>
//
// Exit status: 0 on success, 1 on failure, 2 on bad usage.

import fs from "node:fs";
import path from "node:path";
import { arrow } from "./lib.mjs";

const out = process.argv[2];
if (!out || process.argv.length !== 3) {
  console.error("usage: node make_arrow_stream.mjs <out_file>");
  process.exit(2);
}

const { Field, Schema, Int32, Int64, Float64, Utf8, Bool, List, Struct } = arrow;

// Keep in sync with kExpectedJsFields in tests/arrow/ipc_message_test.cc.
const structType = new Struct([new Field("a", new Int32(), false), new Field("b", new Utf8(), true)]);
const listType = new List(new Field("item", new Int32(), true));
const columns = [
  ["i32", new Int32(), false, [1, 2, 3]],
  ["i32_null", new Int32(), true, [1, null, 3]],
  ["i64", new Int64(), false, [1n, 2n, 3n]],
  ["f64_null", new Float64(), true, [0.5, null, 2.5]],
  ["s", new Utf8(), false, ["a", "bc", ""]],
  ["s_null", new Utf8(), true, ["x", null, "z"]],
  ["flag", new Bool(), true, [true, false, null]],
  ["ints", listType, true, [[1, 2], null, []]],
  ["rec", structType, false, [{ a: 1, b: "p" }, { a: 2, b: null }, { a: 3, b: "r" }]],
];

try {
  const fields = columns.map(([name, type, nullable]) => new Field(name, type, nullable));
  const schema = new Schema(fields);
  const vectors = columns.map(([, type, , values]) => arrow.vectorFromArray(values, type));
  const data = arrow.makeData({
    type: new Struct(fields),
    length: 3,
    nullCount: 0,
    children: vectors.map((v) => v.data[0]),
  });
  const table = new arrow.Table([new arrow.RecordBatch(schema, data)]);
  const bytes = arrow.tableToIPC(table, "stream");
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  fs.writeFileSync(out, bytes);
  // Sanity: apache-arrow reads its own stream back with the same schema.
  const back = arrow.tableFromIPC(fs.readFileSync(out));
  for (const f of back.schema.fields) {
    console.log(`${f.name}: ${f.type} nullable=${f.nullable}`);
  }
  console.log(`wrote ${bytes.length} bytes to ${out}`);
} catch (e) {
  console.error(e);
  process.exit(1);
}
