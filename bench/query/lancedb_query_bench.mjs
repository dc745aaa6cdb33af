// Query benchmark, LanceDB's side: create the dataset, or time on it what query_bench.cc times
// for quiver (filtered scans of three predicate shapes; exact top-10 kNN, LanceDB without an
// index, with 1 and 8 clients). JSON out. QV_LANCEDB=0.39 picks LanceDB 0.39 (Lance 12).
//   node lancedb_query_bench.mjs create <dir> <rows> <dim>    writes <dir>/bench.lance
//   node lancedb_query_bench.mjs measure <dir> <dim> [rounds]
import { lancedb, arrow as A, mulberry32, VERSIONS } from "../../tests/interop/lib.mjs";

const [mode, dir, a, b] = process.argv.slice(2);
const db = await lancedb.connect(dir);

function queryVector(dim, seed) {
  const rnd = mulberry32(seed);
  return Array.from({ length: dim }, () => rnd() * 2 - 1);
}

if (mode === "create") {
  const rows = Number(a), dim = Number(b);
  const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
  const schema = new A.Schema([f("id", new A.Int64(), false), f("cat", new A.Utf8()), f("x", new A.Float64()),
    f("v", new A.FixedSizeList(dim, f("item", new A.Float32())))]);
  const rnd = mulberry32(7);
  const chunk = 100_000;
  let tbl = null;
  for (let start = 0; start < rows; start += chunk) {
    const n = Math.min(chunk, rows - start);
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
    const batch = new A.RecordBatch(schema, A.makeData({ type: new A.Struct(schema.fields), length: n, nullCount: 0,
      children: [A.makeData({ type: new A.Int64(), length: n, data: ids }), A.vectorFromArray(cats, new A.Utf8()).data[0],
        A.makeData({ type: new A.Float64(), length: n, data: xs }), data] }));
    const table = new A.Table([batch]);
    if (!tbl) tbl = await db.createTable("bench", table, { mode: "overwrite" });
    else await tbl.add(table);
    process.stderr.write(`\rsetup: ${start + n} of ${rows} rows`);
  }
  process.stderr.write("\n");
  console.log(JSON.stringify({ created: `${dir}/bench.lance`, lancedb: VERSIONS.lancedb }));
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
  console.error("usage: node lancedb_query_bench.mjs create <dir> <rows> <dim> | measure <dir> <dim> [rounds]");
  process.exit(2);
}
