// Eight LanceDB remote clients (db://, each its own connection) inserting, merging, updating and
// deleting on one table through `quiver serve`, while an embedded LanceDB commits to the same
// table directly (its location on disk) in the default mode. Each writer owns an id range and
// touches only its own rows, so whatever the interleaving the final rows are a model's: no
// acknowledged commit may be lost, every version the table lists must open, and the rows the
// server answers must equal the model (and what LanceDB itself reads from the files).
//
//   node check_data_concurrency.mjs <quiver binary> <scratch dir> [rounds]
//
// Prints one line per check and a closing "N passed, N failed"; exits 1 if any check failed.
import fs from "node:fs";
import path from "node:path";

import { lancedb, arrow as A, VERSIONS, connectToDataset } from "./lib.mjs";
import { createReport, startQuiverServe, stopQuiverServe } from "./checks.mjs";

const [QUIVER, SCRATCH, ROUNDS_ARG] = process.argv.slice(2);
if (!QUIVER || !SCRATCH) {
  console.error("usage: node check_data_concurrency.mjs <quiver binary> <scratch dir> [rounds]");
  process.exit(2);
}
const ROUNDS = Number(ROUNDS_ARG ?? 12);
const REMOTE_WRITERS = 8;
const EMBEDDED = REMOTE_WRITERS;  // the embedded writer's number
const { check, finish } = createReport();
console.log(`LanceDB ${VERSIONS.lancedb}, ${REMOTE_WRITERS} remote writers + 1 embedded, ${ROUNDS} rounds`);

const f = (name, type, nullable = true) => new A.Field(name, type, nullable);
const schema = new A.Schema([
  f("id", new A.Int64(), false), f("owner", new A.Int32(), false), f("x", new A.Int64()), f("tag", new A.Utf8()),
]);
const tableOf = (rows) => lancedb.makeArrowTable(rows.map((r) => ({ ...r, id: BigInt(r.id), x: BigInt(r.x) })), { schema });

// The model: id → row, per writer.
const model = new Map();
const base = (w) => w * 1_000_000;
let appends = 0;  // acknowledged inserts and merges: each is a version whatever it finds

// A writer's rounds: insert, merge (update two of its rows, insert two), update by predicate,
// delete by predicate, in turn. Every operation is applied to the model once it is acknowledged.
async function writer(w, tbl, errors) {
  let next = 0;
  const mine = () => [...model.values()].filter((r) => r.owner === w);
  const fresh = (n, r) => Array.from({ length: n }, () => ({ id: base(w) + next++, owner: w, x: 0, tag: `w${w}r${r}` }));
  for (let r = 0; r < ROUNDS; r++) {
    const op = (w + r) % 4;
    try {
      if (op === 0 || mine().length < 4) {
        const rows = fresh(5, r);
        await withRetry(w, () => tbl.add(tableOf(rows)));
        for (const row of rows) model.set(row.id, row);
        appends++;
      } else if (op === 1) {
        const old = mine().slice(0, 2).map((row) => ({ ...row, x: row.x + 100, tag: `m${r}` }));
        const rows = [...old, ...fresh(2, r)];
        await withRetry(w, () => tbl.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(tableOf(rows)));
        for (const row of rows) model.set(row.id, row);
        appends++;
      } else if (op === 2) {
        await withRetry(w, () => tbl.update({ where: `owner = ${w} AND id % 2 = 0`, valuesSql: { x: "x + 1" } }));
        for (const row of mine()) if (row.id % 2 === 0) row.x += 1;
      } else {
        const k = r % 3;
        await withRetry(w, () => tbl.delete(`owner = ${w} AND id % 3 = ${k}`));
        for (const row of mine()) if (row.id % 3 === k) model.delete(row.id);
      }
    } catch (e) {
      errors.push(`writer ${w} round ${r} (op ${op}): ${String(e.message ?? e).split("\n")[0]}`);
      return;
    }
  }
}

// The embedded writer commits to the files directly, where a lost race is the caller's to
// retry ("Retryable commit conflict"), as a LanceDB user's code would; the remote client retries
// what quiver answers retryable on its own.
async function withRetry(w, fn) {
  if (w !== EMBEDDED) return fn();
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= 20 || !/retryable|conflict/i.test(String(e.message ?? e))) throw e;
    }
  }
}

const plain = (rows) => rows.map((r) => ({ id: Number(r.id), owner: r.owner, x: r.x === null ? null : Number(r.x), tag: r.tag }))
  .sort((a, b) => a.id - b.id);
const modelRows = () => [...model.values()].map((r) => ({ ...r })).sort((a, b) => a.id - b.id);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function firstDifference(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (!same(a[i], b[i])) return `at ${i}: ${JSON.stringify(a[i])} vs model ${JSON.stringify(b[i])}`;
  }
  return "";
}

async function main() {
  fs.rmSync(SCRATCH, { recursive: true, force: true });
  const root = path.join(SCRATCH, "root");
  fs.mkdirSync(root, { recursive: true });
  const server = startQuiverServe(QUIVER, ["serve", "--root", root, "--listen", "127.0.0.1:0"]);
  await server.ready;
  try {
    const admin = await lancedb.connect("db://default", { apiKey: "quiver-without-auth", hostOverride: server.url });
    await admin.createEmptyTable("shared", schema);
    const d = await fetch(`${server.url}/v1/table/shared/describe`, {
      method: "POST", headers: { "content-type": "application/json" }, body: "{}",
    });
    const location = (await d.json()).location;
    check("the table has a location on disk", d.status === 200 && !!location, String(location));
    const embedded = await connectToDataset(location);
    try {
      const tables = [];
      for (let w = 0; w < REMOTE_WRITERS; w++) {
        const c = await lancedb.connect("db://default", { apiKey: "quiver-without-auth", hostOverride: server.url });
        tables.push(await c.openTable("shared"));
      }
      tables.push(await embedded.db.openTable(embedded.name));
      const errors = [];
      await Promise.all(tables.map((t, w) => writer(w, t, errors)));
      check("every operation of every writer was acknowledged", errors.length === 0, errors.slice(0, 5).join("\n  "));

      const want = modelRows();
      const served = plain(await tables[0].query().toArray());
      check(`the rows quiver serves equal the model (${want.length} rows)`, same(served, want), firstDifference(served, want));
      const fresh = await connectToDataset(location);
      try {
        const t = await fresh.db.openTable(fresh.name);
        const read = plain(await t.query().toArray());
        check("LanceDB reads the same rows from the files", same(read, want), firstDifference(read, want));
        const versions = (await t.listVersions()).map((v) => Number(v.version));
        const contiguous = versions.every((v, i) => i === 0 || v === versions[i - 1] + 1);
        // Updates and deletes that match nothing may commit nothing; inserts and merges always do.
        check(`the versions are contiguous and hold every insert and merge (${versions.length})`,
          contiguous && versions.length >= 1 + appends, `${versions.length} versions, ${appends} inserts and merges`);
        let unopened = [];
        for (const v of versions) {
          try {
            await t.checkout(v);
            await t.countRows();
          } catch (e) {
            unopened.push(`${v}: ${String(e.message ?? e).split("\n")[0]}`);
          }
        }
        check("every version opens", unopened.length === 0, unopened.slice(0, 3).join("\n  "));
      } finally {
        fresh.cleanup();
      }
    } finally {
      embedded.cleanup();
    }
  } finally {
    const stopped = await stopQuiverServe(server);
    check("quiver serve stops cleanly", stopped && !stopped.timedOut, server.err.slice(-2000));
  }
}

await main();
finish();
