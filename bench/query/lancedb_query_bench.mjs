// Query benchmark, LanceDB's side: create the dataset, or time on it what query_bench.cc times
// for quiver (filtered scans of three predicate shapes; exact top-10 kNN, LanceDB without an
// index, with 1 and 8 clients). JSON out. QV_LANCEDB=0.39 picks LanceDB 0.39 (Lance 12).
//   node lancedb_query_bench.mjs create <dir> <rows> <dim>    writes <dir>/bench.lance and the
//                                                            write inputs (insert/merge.arrow)
//   node lancedb_query_bench.mjs measure <dir> <dim> [rounds]
//   node lancedb_query_bench.mjs writes <copy dir> <inputs dir>   inserts, merge-insert, update
//                                                            and delete on a copy of bench.lance
import fs from "node:fs";
import { lancedb, arrow as A, mulberry32, VERSIONS } from "../../tests/interop/lib.mjs";

const [mode, dir, a, b] = process.argv.slice(2);
const db = await lancedb.connect(dir);

function queryVector(dim, seed) {
  const rnd = mulberry32(seed);
  return Array.from({ length: dim }, () => rnd() * 2 - 1);
}

// `n` rows from id `start`: id, cat = c(id % 10), x and v from `rnd`.
function makeBatch(schema, dim, start, n, rnd) {
  const ids = new BigInt64Array(n), xs = new Float64Array(n), vs = new Float32Array(n * dim);
  const cats = new Array(n);
  for (let i = 0; i < n; i++) {
    ids[i] = BigInt(start + i);
    xs[i] = rnd();
    cats[i] = `c${(start + i) % 10}`;
  }
  for (let i = 0; i < n * dim; i++) vs[i] = rnd() * 2 - 1;
  const vType = schema.fields[3].type;
  const data = A.makeData({ type: vType, length: n, nullCount: 0,
    child: A.makeData({ type: vType.children[0].type, length: n * dim, data: vs }) });
  return new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: n, nullCount: 0,
    children: [A.makeData({ type: new A.Int64(), length: n, data: ids }), A.vectorFromArray(cats, new A.Utf8()).data[0],
      A.makeData({ type: new A.Float64(), length: n, data: xs }), data] }));
}

function benchSchema(dim) {
  const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
  return new A.Schema([f("id", new A.Int64(), false), f("cat", new A.Utf8()), f("x", new A.Float64()),
    f("v", new A.FixedSizeList(dim, f("item", new A.Float32())))]);
}

// The write benchmark's inputs, for both sides: insert.arrow (10 batches of 10,000 new rows) and
// merge.arrow (100,000 rows keyed on id: the table's last 50,000 ids and 50,000 new ones), as
// Arrow IPC streams.
function writeInputs(rows, dim) {
  const schema = benchSchema(dim);
  const rnd = mulberry32(11);
  const batches = (start, count, size) =>
    Array.from({ length: count }, (_, b) => makeBatch(schema, dim, start + b * size, size, rnd));
  fs.writeFileSync(`${dir}/insert.arrow`, A.tableToIPC(new A.Table(batches(rows + 1_000_000, 10, 10_000)), "stream"));
  fs.writeFileSync(`${dir}/merge.arrow`, A.tableToIPC(new A.Table(batches(rows - 50_000, 10, 10_000)), "stream"));
}

if (mode === "create") {
  const rows = Number(a), dim = Number(b);
  const schema = benchSchema(dim);
  const rnd = mulberry32(7);
  const chunk = 100_000;
  let tbl = null;
  for (let start = 0; start < rows; start += chunk) {
    const n = Math.min(chunk, rows - start);
    const table = new A.Table([makeBatch(schema, dim, start, n, rnd)]);
    if (!tbl) tbl = await db.createTable("bench", table, { mode: "overwrite" });
    else await tbl.add(table);
    process.stderr.write(`\rsetup: ${start + n} of ${rows} rows`);
  }
  process.stderr.write("\n");
  writeInputs(rows, dim);
  console.log(JSON.stringify({ created: `${dir}/bench.lance`, lancedb: VERSIONS.lancedb }));
} else if (mode === "writes") {
  // On a copy of the dataset (run.sh makes it): what query_bench's `writes` times for quiver.
  const inputs = process.argv[4];
  const tbl = await db.openTable("bench");
  const now = () => Number(process.hrtime.bigint()) / 1e6;
  const out = { lancedb: VERSIONS.lancedb };
  const insert = A.tableFromIPC(fs.readFileSync(`${inputs}/insert.arrow`));
  let t = now();
  for (const batch of insert.batches) await tbl.add(new A.Table([batch]));
  out.insert_rows_per_s = insert.numRows / ((now() - t) / 1000);
  out.insert_batches = insert.batches.length;
  const merge = A.tableFromIPC(fs.readFileSync(`${inputs}/merge.arrow`));
  t = now();
  const merged = await tbl.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(merge);
  out.merge_ms = now() - t;
  out.rows_after_merge = await tbl.countRows();
  if (merged && typeof merged === "object" && "numUpdatedRows" in merged) {
    out.merge_updated = Number(merged.numUpdatedRows);
    out.merge_inserted = Number(merged.numInsertedRows);
  }
  t = now();
  await tbl.update({ where: "cat = 'c3'", valuesSql: { x: "x + 1" } });
  out.update_ms = now() - t;
  out.update_rows = await tbl.countRows("x >= 1");
  t = now();
  await tbl.delete("id % 100 = 7");
  out.delete_ms = now() - t;
  out.rows_after_delete = await tbl.countRows();
  console.log(JSON.stringify(out));
} else if (mode === "measure") {
  const dim = Number(a), rounds = Number(b ?? 5);
  const tbl = await db.openTable("bench");
  const out = { rows: await tbl.countRows(), lancedb: VERSIONS.lancedb };
  const median = (xs) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
  const now = () => Number(process.hrtime.bigint()) / 1e6;
  for (const [name, filter] of [["range", "x > 0.5"], ["equality", "cat = 'c3'"], ["compound", "id % 100 = 7 AND x < 0.3"]]) {
    const ms = [];
    let answered = 0;
    for (let i = 0; i < rounds; i++) {
      const t = now();
      const result = await tbl.query().where(filter).select(["id"]).toArrow();
      ms.push(now() - t);
      answered = result.numRows;
    }
    out[`scan_${name}_ms`] = median(ms);
    out[`scan_${name}_rows`] = answered;
  }
  const knn = (seed) => tbl.vectorSearch(queryVector(dim, seed)).column("v").select(["id"]).limit(10).toArrow();
  const ms = [];
  const single = rounds * 4;
  let t0 = now();
  for (let i = 0; i < single; i++) {
    const t = now();
    const r = await knn(i);
    if (r.numRows !== 10) throw new Error(`kNN answered ${r.numRows}`);
    ms.push(now() - t);
  }
  out.knn_1_qps = single / ((now() - t0) / 1000);
  out.knn_ms = median(ms);
  const clients = 8, each = Math.max(1, rounds);
  t0 = now();
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; i < each; i++) await knn(1000 + c * each + i);
  }));
  out.knn_8_qps = (clients * each) / ((now() - t0) / 1000);
  console.log(JSON.stringify(out));
} else {
  console.error("usage: node lancedb_query_bench.mjs create <dir> <rows> <dim> | measure <dir> <dim> [rounds] | writes <copy dir> <inputs dir>");
  process.exit(2);
}
