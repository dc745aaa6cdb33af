// Table shapes as a LanceDB user makes them, read through quiver and compared with LanceDB's own
// read of the same table:
//
//   node check_shapes.mjs <quiver binary> <scratch dir> [--only <regexp>]
//
// For each shape LanceDB (0.31, or 0.39 with QV_LANCEDB=0.39: 2.2 files) builds a table by the
// operations named (appends, deletes, updates, merge-insert, schema evolution, an index, optimize,
// tags, branches, stable row ids, wide and nested values, dictionaries, constants and all-null
// columns);
// then `quiver table export` must give every row LanceDB's `query().toArrow()` gives, in order,
// and `quiver table take --by-id` the rows LanceDB returns for `_rowid`s it reports. The latest
// version is compared, a tagged older one where the shape tags one, and each branch it makes
// (`--branch`). Exit status 0 when every
// shape reads equal.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";

const { lancedb, arrow, VERSIONS } = await import("./lib.mjs");
const { compareRows, sampleRows } = await import("./format_lib.mjs");

const argv = process.argv.slice(2);
if (argv.length < 2) {
  console.error("usage: node check_shapes.mjs <quiver binary> <scratch dir> [--only <regexp>]");
  process.exit(2);
}
const [QUIVER, SCRATCH] = argv;
const onlyAt = argv.indexOf("--only");
const only = onlyAt >= 0 ? new RegExp(argv[onlyAt + 1]) : null;

function quiver(...args) {
  try {
    return { ok: true, out: execFileSync(QUIVER, args, { encoding: "utf8", stdio: "pipe", maxBuffer: 1 << 30 }) };
  } catch (e) {
    return { ok: false, out: `${String(e.stderr ?? "").trim() || String(e.message)} (exit ${e.status})` };
  }
}

// Every table has an explicit schema (LanceDB infers none for all-null or empty-list columns).
const A = arrow;
const f = (name, type, nullable = true, metadata = null) => new A.Field(name, type, nullable, metadata);
const BASE = [
  f("id", new A.Int64(), false),
  f("name", new A.Utf8()),
  f("city", new A.Utf8()),
  f("score", new A.Float64()),
  f("vector", new A.FixedSizeList(8, f("item", new A.Float32()))),
  f("tags", new A.List(f("item", new A.Utf8()))),
];
function tableOf(data, extraFields = []) {
  return lancedb.makeArrowTable(data, { schema: new A.Schema([...BASE, ...extraFields]) });
}

const N = 3000;
const words = ["alpha", "beta", "gamma", "delta"];
function rows(from, n, extra = () => ({})) {
  const out = [];
  for (let i = from; i < from + n; i++) {
    out.push({
      id: i,
      name: i % 9 === 4 ? null : `name-${i}`,
      city: words[i % words.length],                       // low cardinality: dictionary
      score: i % 7 === 3 ? null : (i * 37) % 1000 / 10,
      vector: Array.from({ length: 8 }, (_, k) => ((i * 31 + k * 7) % 97) / 97),
      tags: i % 11 === 5 ? null : Array.from({ length: i % 4 }, (_, k) => words[(i + k) % 4]),
      ...extra(i),
    });
  }
  return out;
}

// Each shape: async (db, name) => {table, tag?}.
const SHAPES = {
  appends: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    for (let k = 1; k <= 3; k++) await t.add(tableOf(rows(k * N, 500)));
    return { table: t };
  },
  deletes: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    await t.delete("id % 10 = 3");
    await t.delete("id > 2900");
    return { table: t };
  },
  updates: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    await t.update({ where: "id % 5 = 0", values: { score: 99.5 } });
    await t.update({ where: "city = 'beta'", valuesSql: { name: "upper(name)" } });
    return { table: t };
  },
  merge_insert: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    await t.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
      .execute(tableOf(rows(N - 200, 400).map((r) => ({ ...r, name: `merged-${r.id}` }))));
    return { table: t };
  },
  schema_evolution: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    await t.addColumns([{ name: "double_score", valueSql: "score * 2" }]);
    await t.alterColumns([{ path: "name", rename: "label" }]);
    await t.dropColumns(["tags"]);
    await t.add(rows(N, 300).map(({ tags, name, ...r }) => ({ ...r, label: name, double_score: r.score === null ? null : r.score * 2 })));  // LanceDB casts to the table's schema
    return { table: t };
  },
  scalar_index_and_optimize: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    for (let k = 1; k <= 4; k++) await t.add(tableOf(rows(k * N, 200)));
    await t.createIndex("id");
    await t.delete("id % 13 = 0");
    await t.optimize();
    return { table: t };
  },
  vector_index: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    await t.createIndex("vector", { config: lancedb.Index.ivfPq({ numPartitions: 2, numSubVectors: 2 }) });
    await t.add(tableOf(rows(N, 100)));
    return { table: t };
  },
  tagged_version: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    await t.add(tableOf(rows(N, 500)));
    const v = await t.version();
    await (await t.tags()).create("release", v);
    await t.delete("id < 1000");
    await t.add(tableOf(rows(2 * N, 100)));
    return { table: t, tag: "release" };
  },
  // A branch forked from main, appended to and deleted from on its own while main moves on:
  // `--branch dev` must read the branch's rows, and the latest version main's.
  branches: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)));
    const dev = await (await t.branches()).create("dev");
    await dev.add(tableOf(rows(N, 200)));
    await dev.delete("id % 7 = 3");
    await t.add(tableOf(rows(2 * N, 50)));
    return { table: t, branches: { dev } };
  },
  stable_row_ids: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, N)), { storageOptions: { new_table_enable_stable_row_ids: "true" } });
    await t.delete("id % 4 = 1");
    await t.update({ where: "id % 6 = 0", values: { score: 1.5 } });
    await t.optimize();
    return { table: t };
  },
  wide_and_nested: async (db, name) => {
    const inner = new A.Struct([f("c", new A.List(f("item", new A.Int32())))]);
    const extra = [
      f("big_text", new A.Utf8()),
      f("blob", new A.Binary()),
      f("nested", new A.Struct([f("a", new A.Int32()), f("b", new A.Utf8()), f("inner", inner)])),
      f("items", new A.List(f("item", new A.Struct([f("k", new A.Int32()), f("v", new A.Utf8())])))),
    ];
    const t = await db.createTable(name, tableOf(rows(0, 600, (i) => ({
      big_text: i % 5 === 2 ? null : "x".repeat(300 + (i % 50)) + i,
      blob: Buffer.alloc(400 + (i % 17), i % 251),
      nested: i % 8 === 6 ? null : { a: i, b: i % 3 === 0 ? null : `b${i}`, inner: { c: [i, i + 1] } },
      items: i % 10 === 7 ? null : Array.from({ length: i % 3 }, (_, k) => ({ k, v: `v${i}-${k}` })),
    })), extra));
    return { table: t };
  },
  constants_and_all_null: async (db, name) => {
    const extra = [f("same", new A.Utf8()), f("same_num", new A.Int32()), f("nothing", new A.Utf8()),
      f("maybe", new A.Utf8()), f("no_list", new A.List(f("item", new A.Int32())))];
    const t = await db.createTable(name, tableOf(rows(0, N, (i) => ({
      same: "the same value",
      same_num: 42,
      nothing: null,
      maybe: i === 7 ? "only one" : null,
      no_list: null,
    })), extra));
    return { table: t };
  },
  // Lance 12 stores a packed struct with variable-width members as one full-zip column
  // (VariablePackedStruct); Lance 8 stores it unpacked. Empty values; no nulls, which Lance 12
  // refuses to pack, in a member or in the struct ("Per-value compression not yet supported for
  // block type Nullable").
  packed_struct: async (db, name) => {
    const ps = f("ps", new A.Struct([f("a", new A.Int32()), f("s", new A.Utf8()), f("b", new A.Int64()), f("bin", new A.Binary())]), true,
      new Map([["lance-encoding:packed", "true"]]));
    const schema = new A.Schema([f("id", new A.Int32(), false), ps]);
    const data = Array.from({ length: 300 }, (_, i) => ({ id: i, ps: {
      a: i * 3 - 100, s: `s${i}`.repeat(i % 4), b: BigInt(i) * 1000000007n,
      bin: Uint8Array.from({ length: i % 5 }, (_, k) => (i + k) & 255) } }));
    const t = await db.createTable(name, lancedb.makeArrowTable(data, { schema }));
    return { table: t, quiverAppends: true };
  },
  // Fixed-width members only: Lance 8 packs these in 2.1 too (mini-block PackedStruct) where
  // the metadata reaches the schema (LanceDB 0.31's makeArrowTable drops it).
  packed_struct_fixed: async (db, name) => {
    const ps = f("pf", new A.Struct([f("x", new A.Float32()), f("y", new A.Int64()), f("z", new A.Int16())]), true,
      new Map([["lance-encoding:packed", "true"]]));
    const schema = new A.Schema([f("id", new A.Int32(), false), ps]);
    const data = Array.from({ length: 5000 }, (_, i) => ({ id: i, pf: { x: i / 8, y: BigInt(i) * 3n, z: i % 300 } }));
    const t = await db.createTable(name, lancedb.makeArrowTable(data, { schema }));
    return { table: t, quiverAppends: true };
  },
  // Blob v2 (LanceDB 0.39): payloads inline in the data file, in a packed sidecar and in
  // dedicated files, and null blobs. Reads answer the descriptors, as LanceDB's queries do.
  blob_v2: async (db, name) => {
    if (typeof lancedb.blob !== "function") throw new Error("blob v2 is only supported in Lance file format 2.2 (no lancedb.blob)");
    const schema = new A.Schema([f("id", new A.Int64(), false), lancedb.blob("b", { inlineSizeThreshold: 64, dedicatedSizeThreshold: 4096 })]);
    const data = Array.from({ length: 40 }, (_, i) => ({ id: BigInt(i), b: i % 5 === 3 ? null : { data: Buffer.alloc(i < 12 ? i : i < 30 ? 1000 + i : 5000 + i, i), uri: null } }));
    const t = await db.createTable(name, data, { schema });
    return { table: t, blobColumns: ["b"] };
  },
  map: async (db, name) => {
    const entries = f("entries", new A.Struct([f("key", new A.Utf8(), false), f("value", new A.Int32())]), false);
    const schema = new A.Schema([f("id", new A.Int32(), false), f("m", new A.Map_(entries))]);
    // Null maps, empty maps, several entries, null values.
    const entriesOf = (i) => Array.from({ length: i % 5 === 0 ? 0 : (i % 4) + 1 }, (_, k) => [`k${i}-${k}`, (i + k) % 3 === 0 ? null : i * 10 + k]);
    const data = Array.from({ length: 300 }, (_, i) => ({ id: i, m: i % 7 === 3 ? null : new Map(entriesOf(i)) }));
    const t = await db.createTable(name, lancedb.makeArrowTable(data, { schema }));
    return { table: t };
  },
  one_row: async (db, name) => {
    const t = await db.createTable(name, tableOf(rows(0, 1, () => ({ nothing: null })), [f("nothing", new A.Int64())]));
    return { table: t };
  },
};

function exportRows(dsDir, version, branch) {
  const out = path.join(SCRATCH, `${path.basename(dsDir)}-${branch ?? "main"}-${version ?? "latest"}.arrows`);
  const args = ["table", "export", dsDir, "--to", out];
  if (version !== undefined) args.push("--version", String(version));
  if (branch !== undefined) args.push("--branch", branch);
  const r = quiver(...args);
  if (!r.ok) return { error: r.out };
  try {
    return { table: arrow.tableFromIPC(fs.readFileSync(out)) };
  } finally {
    fs.rmSync(out, { force: true });
  }
}

function compare(failures, what, want, got) {
  if (got.error) { failures.push(`${what}: quiver failed: ${got.error.slice(0, 500)}`); return; }
  const res = { equal: true, mismatches: [] };
  if (got.table.numRows !== want.numRows) {
    failures.push(`${what}: ${got.table.numRows} rows, LanceDB reads ${want.numRows}`);
    return;
  }
  compareRows(want, got.table, sampleRows(want.numRows), res);
  if (!res.equal) failures.push(`${what}: ${JSON.stringify(res.mismatches.slice(0, 3)).slice(0, 800)}`);
}

async function main() {
  fs.rmSync(SCRATCH, { recursive: true, force: true });
  fs.mkdirSync(SCRATCH, { recursive: true });
  const db = await lancedb.connect(path.join(SCRATCH, "tables"));
  let failed = 0, total = 0;
  for (const [name, build] of Object.entries(SHAPES)) {
    if (only && !only.test(name)) continue;
    total++;
    const failures = [];
    const t0 = performance.now();
    try {
      let built;
      try {
        built = await build(db, name);
      } catch (e) {
        // A type LanceDB 0.31 (file format 2.1) cannot write at all: nothing to read.
        if (/only supported in Lance file format 2\.2/.test(String(e.message))) {
          console.log(`skip ${name.padEnd(26)} LanceDB ${VERSIONS.lancedb} does not write it (2.2 only)`);
          total--;
          continue;
        }
        throw e;
      }
      const { table, tag, unsupported } = built;
      const dsDir = path.join(SCRATCH, "tables", `${name}.lance`);
      // A layout quiver does not read may be refused, only with its clear Unsupported; whatever
      // is read must read equal (LanceDB 0.31 writes a "packed" struct with a string member
      // unpacked, and quiver reads it).
      if (unsupported) {
        const got = exportRows(dsDir);
        if (got.error) {
          if (!/Unsupported/.test(got.error) || !unsupported.test(got.error)) failures.push(`export: expected a clear Unsupported, got: ${got.error.slice(0, 300)}`);
          console.log(`${failures.length ? "FAIL" : "ok  "} ${name.padEnd(26)} refused clearly: ${got.error.split("\n").pop().slice(0, 160)}`);
          for (const x of failures) console.log(`       ${x}`);
          if (failures.length) failed++;
          continue;
        }
      }
      compare(failures, "export (latest)", await table.query().toArrow(), exportRows(dsDir));
      if (tag) {
        const version = (await (await table.tags()).list())[tag].version;
        await table.checkout(version);
        compare(failures, `export (tag ${tag}, version ${version})`, await table.query().toArrow(), exportRows(dsDir, version));
        await table.checkoutLatest();
      }
      for (const [branch, handle] of Object.entries(built.branches ?? {})) {
        const want = await handle.query().toArrow();
        compare(failures, `export (branch ${branch})`, want, exportRows(dsDir, undefined, branch));
        const bid = await handle.query().withRowId().limit(5).toArrow();
        const r = quiver("table", "take", dsDir, "--branch", branch, "--by-id", "--columns", "id", "--json",
          "--rows", Array.from(bid.getChild("_rowid").toArray(), String).join(","));
        const got = r.ok ? r.out.trim().split("\n").map((l) => Number(JSON.parse(l).id)) : r.out;
        const wantIds = Array.from(bid.getChild("id").toArray(), Number);
        if (JSON.stringify(got) !== JSON.stringify(wantIds)) failures.push(`take --by-id --branch ${branch}: ${JSON.stringify(got).slice(0, 300)}, LanceDB's ${JSON.stringify(wantIds)}`);
      }
      // take by _rowid: the rows LanceDB says have these ids.
      const withIds = await table.query().withRowId().limit(5000).toArrow();
      const ids = withIds.getChild("_rowid").toArray();
      const pick = [0, Math.floor(ids.length / 3), ids.length - 1].filter((k, j, a) => k >= 0 && a.indexOf(k) === j);
      const r = quiver("table", "take", dsDir, "--rows", pick.map((k) => String(ids[k])).join(","), "--by-id", "--columns", "id", "--json");
      if (!r.ok) {
        failures.push(`take --by-id: ${r.out.slice(0, 400)}`);
      } else {
        const got = r.out.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l).id);
        const want = pick.map((k) => Number(withIds.getChild("id").get(k)));
        if (JSON.stringify(got.map(Number)) !== JSON.stringify(want)) failures.push(`take --by-id: ids ${JSON.stringify(got)}, LanceDB's ${JSON.stringify(want)}`);
      }
      // Blob v2 payloads: every row's bytes, as LanceDB's fetchBlobs gives them.
      for (const col of built.blobColumns ?? []) {
        const all = Array.from(ids, (v) => BigInt(v));
        const want = await table.fetchBlobs(col, all);
        const out = path.join(SCRATCH, `${name}-${col}.arrows`);
        const b = quiver("table", "blobs", dsDir, "--column", col, "--rows", all.map(String).join(","), "--by-id", "--to", out);
        if (!b.ok) { failures.push(`blobs ${col}: ${b.out.slice(0, 400)}`); continue; }
        const got = arrow.tableFromIPC(fs.readFileSync(out)).getChild(col);
        const differ = want.findIndex((w, k) => {
          const g = got.get(k);
          return (w === null) !== (g === null) || (w !== null && Buffer.compare(Buffer.from(w), Buffer.from(g)) !== 0);
        });
        if (got.length !== want.length || differ >= 0) failures.push(`blobs ${col}: row ${differ} differs from LanceDB's fetchBlobs (${got.length} of ${want.length} rows)`);
      }
      // quiver appends LanceDB's rows again (its writer in the table's own format and schema);
      // LanceDB reads both copies.
      if (built.quiverAppends) {
        const stream = path.join(SCRATCH, `${name}-append.arrows`);
        const before = await table.query().toArrow();
        const ex = quiver("table", "export", dsDir, "--to", stream);
        const imp = ex.ok ? quiver("table", "import", dsDir, "--from", stream, "--mode", "append") : ex;
        fs.rmSync(stream, { force: true });
        if (!imp.ok) {
          failures.push(`quiver appends: ${imp.out.slice(0, 400)}`);
        } else {
          await table.checkoutLatest();
          const after = await table.query().toArrow();
          if (after.numRows !== 2 * before.numRows) failures.push(`after quiver's append LanceDB reads ${after.numRows} rows, not ${2 * before.numRows}`);
          else compare(failures, "LanceDB reads quiver's appended copy", before, { table: after.slice(before.numRows) });
        }
      }
    } catch (e) {
      failures.push(`LanceDB: ${String(e.message ?? e).slice(0, 400)}`);
    }
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    console.log(`${failures.length ? "FAIL" : "ok  "} ${name.padEnd(26)} ${secs}s`);
    for (const f of failures) console.log(`       ${f}`);
    if (failures.length) failed++;
  }
  console.log(`${total - failed}/${total} shapes as expected: read equal, or refused clearly where quiver cannot read them yet (LanceDB ${VERSIONS.lancedb})`);
  process.exitCode = failed ? 1 : 0;
}

await main();
