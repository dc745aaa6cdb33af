// The data plane's writes against LanceDB: tables quiver writes through its server (CreateTable,
// InsertIntoTable with Arrow IPC bodies made by apache-arrow, UpdateTable, DeleteFromTable) and its CLI
// (`quiver table delete --where`, `quiver table merge`, `quiver table add-columns`) are read by LanceDB with the rows a LanceDB-only twin holds
// (the same operations run by LanceDB on its own copy), and LanceDB appends, deletes and
// optimizes on top; quiver's QueryTable answers what LanceDB's query answers on the result. On a
// table with stable row ids, quiver's updates, deletes and merges keep ids and versions as
// LanceDB's do.
//
//   node check_writes.mjs <quiver binary> <scratch dir>
import fs from "node:fs";
import path from "node:path";

import { lancedb, arrow as A, VERSIONS, connectToDataset, resolveDatasetPath } from "./lib.mjs";
import { createReport, quiverRunner, startQuiverServe, stopQuiverServe } from "./checks.mjs";

const [QUIVER, SCRATCH] = process.argv.slice(2);
if (!QUIVER || !SCRATCH) {
  console.error("usage: node check_writes.mjs <quiver binary> <scratch dir>");
  process.exit(2);
}
const { check, finish } = createReport();
const quiver = quiverRunner(QUIVER);
const LANCE8 = VERSIONS.lancedb.startsWith("0.31");

const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
const schema = new A.Schema([
  f("id", new A.Int64(), false), f("s", new A.Utf8()), f("x", new A.Float64()),
  f("v", new A.FixedSizeList(3, f("item", new A.Float32()))),
]);
const rowsOf = (from, n) => Array.from({ length: n }, (_, i) => {
  const k = from + i;
  return { id: BigInt(k), s: k % 5 === 0 ? null : `s${k % 7}`, x: k % 3 === 0 ? null : k / 4,
    v: [k % 10, (k * 7) % 11, k % 3] };
});
const ipcStream = (rows) => Buffer.from(A.tableToIPC(lancedb.makeArrowTable(rows, { schema }), "stream"));

// Rows as comparable JSON, sorted by id.
async function snapshot(tbl) {
  const rows = await tbl.query().toArray();
  return JSON.stringify(rows.map((r) => ({ id: Number(r.id), s: r.s, x: r.x, v: Array.from(r.v ?? []) }))
    .sort((a, b) => a.id - b.id));
}

async function main() {
  fs.rmSync(SCRATCH, { recursive: true, force: true });
  const root = path.join(SCRATCH, "root");
  fs.mkdirSync(root, { recursive: true });
  const twinDb = await lancedb.connect(path.join(SCRATCH, "twin"));
  const server = startQuiverServe(QUIVER, ["serve", "--root", root, "--listen", "127.0.0.1:0"]);
  await server.ready;
  const post = async (p, body, type = "application/json") => {
    const r = await fetch(`${server.url}${p}`, { method: "POST", body, headers: { "content-type": type } });
    return { status: r.status, body: Buffer.from(await r.arrayBuffer()) };
  };
  const json = (r) => JSON.parse(r.body.toString() || "null");
  try {
    // 1. CreateTable (2.1 for Lance 8, whose files quiver writes as Lance 8 does) + InsertIntoTable.
    const storage = LANCE8 ? "?storage_version=2.1" : "";
    let r = await post(`/v1/table/w/create${storage}`, ipcStream(rowsOf(0, 120)), "application/vnd.apache.arrow.stream");
    check("CreateTable answers 200", r.status === 200, r.body.toString());
    const location = json(r)?.location;
    r = await post("/v1/table/w/insert", ipcStream(rowsOf(120, 80)), "application/vnd.apache.arrow.stream");
    check("InsertIntoTable answers 200 with 80 rows", r.status === 200 && json(r).num_inserted_rows === 80, r.body.toString());
    const twin = await twinDb.createTable("w", lancedb.makeArrowTable(rowsOf(0, 120), { schema }));
    await twin.add(lancedb.makeArrowTable(rowsOf(120, 80), { schema }));

    // 2. DeleteFromTable over HTTP and `table delete` offline.
    r = await post("/v1/table/w/delete", JSON.stringify({ predicate: "id % 3 = 1 OR s IS NULL" }));
    check("DeleteFromTable answers 200", r.status === 200, r.body.toString());
    await twin.delete("id % 3 = 1 OR s IS NULL");
    check("DeleteFromTable counts what LanceDB deletes", json(r)?.num_deleted_rows === 200 - (await twin.countRows()),
      JSON.stringify(json(r)));
    r = await post("/v1/table/w/update", JSON.stringify({ predicate: "id >= 150", updates: [["x", "x * 2 + 1"], ["s", "upper(s)"]] }));
    check("UpdateTable answers 200", r.status === 200, r.body.toString());
    await twin.update({ where: "id >= 150", valuesSql: { x: "x * 2 + 1", s: "upper(s)" } });
    check("UpdateTable counts the rows LanceDB updates", json(r)?.rows_updated === (await twin.countRows("id >= 150")),
      JSON.stringify(json(r)));
    const dsPath = resolveDatasetPath(location ?? "");
    const del = quiver("table", "delete", dsPath, "--where", "x > 30 AND id < 190");
    check("quiver table delete --where", del.ok && /deleted \d+ rows/.test(del.out), del.out);
    await twin.delete("x > 30 AND id < 190");
    // `table merge` offline, LanceDB's mergeInsert on the twin: ids 150..169 updated (or
    // re-inserted where deleted: they match nothing then), 300..309 inserted, rows with x > 45 the
    // source lacks deleted.
    const mergeRows = rowsOf(150, 20).map((row) => ({ ...row, s: "merged" })).concat(rowsOf(300, 10));
    const mergeFile = path.join(SCRATCH, "merge.arrow");
    fs.writeFileSync(mergeFile, ipcStream(mergeRows));
    const merged = quiver("table", "merge", dsPath, "--from", mergeFile, "--on", "id", "--update-all",
      "--insert-all", "--delete-if", "x > 45");
    const twinMerged = await twin.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
      .whenNotMatchedBySourceDelete({ where: "x > 45" }).execute(lancedb.makeArrowTable(mergeRows, { schema }));
    const counts = /inserted (\d+), updated (\d+), deleted (\d+) rows/.exec(merged.out);
    check("quiver table merge counts what LanceDB's mergeInsert does", merged.ok && counts &&
      Number(counts[1]) === twinMerged.numInsertedRows && Number(counts[2]) === twinMerged.numUpdatedRows &&
      Number(counts[3]) === twinMerged.numDeletedRows, `${merged.out} vs ${JSON.stringify(twinMerged)}`);

    // 3. LanceDB reads quiver's table as its twin.
    const linked = await connectToDataset(dsPath);
    const tbl = await linked.db.openTable(linked.name).catch(() => null);
    check("LanceDB opens quiver's table", !!tbl);
    if (tbl) {
      check("LanceDB reads the rows LanceDB's twin holds", (await snapshot(tbl)) === (await snapshot(twin)));
      // 4. LanceDB writes on top: append, delete, optimize; quiver reads it.
      await tbl.add(lancedb.makeArrowTable(rowsOf(1000, 30), { schema }));
      await tbl.delete("id = 1003");
      await tbl.optimize();
      await twin.add(lancedb.makeArrowTable(rowsOf(1000, 30), { schema }));
      await twin.delete("id = 1003");
      check("LanceDB appends, deletes and optimizes on top", (await snapshot(tbl)) === (await snapshot(twin)));
      r = await post("/v1/table/w/count_rows", JSON.stringify({ predicate: "id >= 1000" }));
      check("quiver counts LanceDB's rows", r.status === 200 && r.body.toString() === "29", r.body.toString());
      r = await post("/v1/table/w/query", JSON.stringify({ k: 5, vector: [1, 2, 0], columns: ["id"], filter: "id > 10" }));
      const got = r.status === 200 ? A.tableFromIPC(r.body).toArray().map((x) => [Number(x.id), x._distance]) : r.body.toString();
      const want = (await tbl.vectorSearch([1, 2, 0]).where("id > 10").select(["id"]).limit(5).toArray()).map((x) => [Number(x.id), x._distance]);
      check("quiver's QueryTable answers LanceDB's vector search", JSON.stringify(got) === JSON.stringify(want),
        `${JSON.stringify(got)} vs ${JSON.stringify(want)}`);
      // 5. `table add-columns` offline (a data file per fragment, one Merge), LanceDB's addColumns on
      // the twin: LanceDB reads the new columns, then deletes and optimizes on top.
      const ac = quiver("table", "add-columns", dsPath, "--column", "half=x / 2", "--column", "tag=upper(s)");
      check("quiver table add-columns", ac.ok && /added 2 columns/.test(ac.out), ac.out);
      await twin.addColumns([{ name: "half", valueSql: "x / 2" }, { name: "tag", valueSql: "upper(s)" }]);
      const withColumns = async (t) => JSON.stringify({
        schema: (await t.schema()).fields.map((x) => `${x.name}:${x.type}:${x.nullable}`),
        rows: (await t.query().select(["id", "half", "tag"]).toArray())
          .map((r) => [Number(r.id), r.half, r.tag]).sort((a, b) => a[0] - b[0]),
      });
      const reopened = await linked.db.openTable(linked.name);
      check("LanceDB reads the columns quiver added as its own addColumns makes them",
        (await withColumns(reopened)) === (await withColumns(twin)),
        `${(await withColumns(reopened)).slice(0, 400)} vs ${(await withColumns(twin)).slice(0, 400)}`);
      await reopened.delete("id % 4 = 0");
      await reopened.optimize();
      await twin.delete("id % 4 = 0");
      check("… and deletes and optimizes on top", (await withColumns(reopened)) === (await withColumns(twin)));
    }
    linked.cleanup();
    await stableRowIds(twinDb);
  } finally {
    await stopQuiverServe(server);
  }
  finish();
}

// 6. Stable row ids: a LanceDB table with them, updated, deleted and merged into by quiver's CLI,
// and its twin by LanceDB: every row keeps its `_rowid` and created-at version as LanceDB's do,
// the last-updated versions are the same, inserted rows get the next ids; LanceDB appends and
// optimizes on top and the rows stay equal.
async function stableRowIds(twinDb) {
  const lineage = async (t) => JSON.stringify((await t.query()
    .select(["id", "s", "x", "_rowid", "_row_created_at_version", "_row_last_updated_at_version"]).withRowId().toArray())
    .map((r) => [Number(r.id), r.s, r.x, Number(r._rowid), Number(r._row_created_at_version),
      Number(r._row_last_updated_at_version)]).sort((a, b) => a[0] - b[0]));
  const opts = { enableStableRowIds: true, storageOptions: { new_table_enable_stable_row_ids: "true" } };
  const mine = await twinDb.createTable("stable_q", lancedb.makeArrowTable(rowsOf(0, 40), { schema }), opts);
  const twin = await twinDb.createTable("stable_t", lancedb.makeArrowTable(rowsOf(0, 40), { schema }), opts);
  for (const t of [mine, twin]) await t.add(lancedb.makeArrowTable(rowsOf(40, 10), { schema }));
  const ds = path.join(SCRATCH, "twin", "stable_q.lance");
  const upd = quiver("table", "update", ds, "--set", "x=x + 100", "--set", "s=upper(s)", "--where", "id % 6 = 1 OR id >= 45");
  await twin.update({ where: "id % 6 = 1 OR id >= 45", valuesSql: { x: "x + 100", s: "upper(s)" } });
  const del = quiver("table", "delete", ds, "--where", "id % 10 = 3");
  await twin.delete("id % 10 = 3");
  const mergeRows = rowsOf(20, 6).map((row) => ({ ...row, s: "merged" })).concat(rowsOf(500, 4));
  const mergeFile = path.join(SCRATCH, "merge_stable.arrow");
  fs.writeFileSync(mergeFile, ipcStream(mergeRows));
  const merged = quiver("table", "merge", ds, "--from", mergeFile, "--on", "id", "--update-all", "--insert-all");
  await twin.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(lancedb.makeArrowTable(mergeRows, { schema }));
  check("quiver updates, deletes and merges on a stable-row-id table", upd.ok && del.ok && merged.ok,
    [upd.out, del.out, merged.out].join("\n"));
  const reread = await twinDb.openTable("stable_q");
  const [got, want] = [await lineage(reread), await lineage(twin)];
  check("… every row keeps its _rowid and created-at version, last-updated as LanceDB's", got === want,
    `${got.slice(0, 700)}\n  vs ${want.slice(0, 700)}`);
  for (const t of [reread, twin]) {
    await t.add(lancedb.makeArrowTable(rowsOf(900, 5), { schema }));
    await t.optimize();
  }
  const [after, wantAfter] = [await lineage(reread), await lineage(twin)];
  check("… and LanceDB appends and optimizes on top", after === wantAfter, `${after.slice(0, 400)}\n  vs ${wantAfter.slice(0, 400)}`);
}

await main();
