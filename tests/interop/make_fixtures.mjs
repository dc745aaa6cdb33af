#!/usr/bin/env node
// Writes Lance datasets with the real LanceDB (embedded, local directory) and records what
// LanceDB itself reports about them in <out_dir>/expected.json.
//
//   node make_fixtures.mjs <out_dir> [scenario...]
//
// With no scenario names, every scenario runs. Each scenario's datasets are removed first
// (<out_dir>/<dataset>.lance), so a rerun starts from scratch; nothing else in out_dir is
// touched except expected.json, which is rewritten. Exit status: 0 if every requested scenario
// worked, 1 otherwise (the failures are in expected.json and on stderr), 2 on bad usage.

import fs from "node:fs";
import path from "node:path";
import {
  lancedb,
  arrow,
  VERSIONS,
  describeTable,
  describeOnDisk,
  bigintReplacer,
  mulberry32,
  idTextVectorTable,
} from "./lib.mjs";

const DIM = 8;

// ---------------------------------------------------------------------------------------------
// Deterministic data


const VECTOR_TYPE = new arrow.FixedSizeList(DIM, new arrow.Field("item", new arrow.Float32(), true));
const SCHEMA = new arrow.Schema([
  new arrow.Field("id", new arrow.Int64(), false),
  new arrow.Field("name", new arrow.Utf8(), true),
  new arrow.Field("vector", VECTOR_TYPE, true),
]);

// Rows id = start .. start+n-1, name = "name-<id>", vector = 8 pseudo-random floats in [0,1)
// (seeded by `seed` and start, so a given (seed, start, n) always yields the same batch).
function rows(start, n, seed = 1) {
  const rnd = mulberry32(seed * 1000003 + start);
  const ids = new BigInt64Array(n);
  const names = new Array(n);
  const vec = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) {
    ids[i] = BigInt(start + i);
    names[i] = `name-${start + i}`;
    for (let j = 0; j < DIM; j++) vec[i * DIM + j] = rnd();
  }
  return idTextVectorTable(SCHEMA, ids, names, vec);
}

// ---------------------------------------------------------------------------------------------
// Scenario context

class Ctx {
  constructor(db, outDir, scenario) {
    this.db = db;
    this.outDir = outDir;
    this.scenario = scenario;
    this.datasets = []; // { name, tbl, createOptions, steps, notes, extra, perVersion }
  }
  // Removes any previous copy and creates the table; returns a dataset record.
  async create(name, data, createOptions = {}) {
    fs.rmSync(path.join(this.outDir, `${name}.lance`), { recursive: true, force: true });
    const tbl = await this.db.createTable(name, data, { mode: "create", ...createOptions });
    const ds = {
      name,
      tbl,
      createOptions,
      steps: [],
      notes: [],
      extra: {},
      perVersion: true,
    };
    await this.step(ds, "createTable", { rows: data.numRows, options: createOptions });
    this.datasets.push(ds);
    return ds;
  }
  async step(ds, op, details = {}, tbl = ds.tbl) {
    ds.steps.push({ op, ...details, version_after: await tbl.version(), branch: tbl.currentBranch() });
  }
}

// ---------------------------------------------------------------------------------------------
// Scenarios. Each gets a Ctx and creates one or more datasets through ctx.create().

const SCENARIOS = {
  async basic(ctx) {
    const ds = await ctx.create("basic", rows(0, 200, 1));
    await ds.tbl.add(rows(200, 100, 1));
    await ctx.step(ds, "add", { rows: 100 });
    await ds.tbl.add(rows(300, 100, 1));
    await ctx.step(ds, "add", { rows: 100 });
  },

  async deletes(ctx) {
    const ds = await ctx.create("deletes", rows(0, 1000, 2));
    // Few rows in fragment 0 -> DeletionVector::Set -> _deletions/*.arrow
    let r = await ds.tbl.delete("id IN (3, 500, 997)");
    await ctx.step(ds, "delete", { predicate: "id IN (3, 500, 997)", deleted: r.numDeletedRows });
    // Lance promotes a fragment's deletion set to a roaring bitmap (_deletions/*.bin) only when
    // it holds more than 5,000 rows (BITMAP_THRESDHOLD in lance deletion.rs), so this needs a
    // fragment bigger than 5,000 rows: append 6,000 rows as one fragment, delete 5,500 of them.
    await ds.tbl.add(rows(1000, 6000, 2));
    await ctx.step(ds, "add", { rows: 6000 });
    r = await ds.tbl.delete("id >= 1000 AND id < 6500");
    await ctx.step(ds, "delete", { predicate: "id >= 1000 AND id < 6500", deleted: r.numDeletedRows });
    // A second small delete in fragment 0: the existing .arrow deletion file is replaced.
    r = await ds.tbl.delete("id = 10");
    await ctx.step(ds, "delete", { predicate: "id = 10", deleted: r.numDeletedRows });
    ds.notes.push(
      "Deletion file types (.arrow set vs .bin bitmap) and which fragment they belong to are not reported by the API; see on_disk.",
    );
  },

  async update_merge(ctx) {
    const ds = await ctx.create("update_merge", rows(0, 300, 3));
    const u = await ds.tbl.update({ values: { name: "updated" }, where: "id < 50" });
    await ctx.step(ds, "update", { where: "id < 50", set: { name: "'updated'" }, rows_updated: u.rowsUpdated });
    const m = await ds.tbl
      .mergeInsert("id")
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute(rows(250, 100, 33));
    await ctx.step(ds, "mergeInsert", {
      on: ["id"],
      source_ids: "250..349",
      when_matched: "updateAll",
      when_not_matched: "insertAll",
      inserted: m.numInsertedRows,
      updated: m.numUpdatedRows,
      deleted: m.numDeletedRows,
    });
    ds.extra.updated_name_count = await ds.tbl.countRows("name = 'updated'");
  },

  async schema_evolution(ctx) {
    const ds = await ctx.create("schema_evolution", rows(0, 200, 4));
    await ds.tbl.addColumns([{ name: "id2", valueSql: "id * 2" }]);
    await ctx.step(ds, "addColumns", { columns: [{ name: "id2", valueSql: "id * 2" }] });
    await ds.tbl.alterColumns([
      { path: "name", rename: "label" },
      { path: "id", nullable: true },
    ]);
    await ctx.step(ds, "alterColumns", {
      alterations: [
        { path: "name", rename: "label" },
        { path: "id", nullable: true },
      ],
    });
    await ds.tbl.dropColumns(["vector"]);
    await ctx.step(ds, "dropColumns", { columns: ["vector"] });
    ds.notes.push(
      "Lance field ids, and which data file holds which field after addColumns, are not reported by the API.",
    );
  },

  async indices(ctx) {
    const ds = await ctx.create("indices", rows(0, 512, 5));
    await ds.tbl.createIndex("id", { config: lancedb.Index.btree() });
    await ctx.step(ds, "createIndex", { column: "id", type: "BTREE" });
    const ivfpq = { distanceType: "l2", numPartitions: 2, numSubVectors: 2, numBits: 8 };
    await ds.tbl.createIndex("vector", { config: lancedb.Index.ivfPq(ivfpq) });
    await ctx.step(ds, "createIndex", { column: "vector", type: "IVF_PQ", params: ivfpq });
  },

  async compaction(ctx) {
    const ds = await ctx.create("compaction", rows(0, 50, 6));
    for (let i = 1; i <= 5; i++) {
      await ds.tbl.add(rows(i * 50, 50, 6));
      await ctx.step(ds, "add", { rows: 50 });
    }
    await ds.tbl.delete("id % 10 = 0");
    await ctx.step(ds, "delete", { predicate: "id % 10 = 0" });
    const before = await ds.tbl.stats();
    // Default cleanupOlderThan is 7 days, so nothing just written is pruned.
    const st = await ds.tbl.optimize();
    await ctx.step(ds, "optimize", {
      compaction: st.compaction,
      prune: st.prune,
      fragments_before: before.fragmentStats.numFragments,
    });
  },

  async tags(ctx) {
    const ds = await ctx.create("tags", rows(0, 100, 7));
    await ds.tbl.add(rows(100, 100, 7));
    await ctx.step(ds, "add", { rows: 100 });
    await ds.tbl.add(rows(200, 100, 7));
    await ctx.step(ds, "add", { rows: 100 });
    const tags = await ds.tbl.tags();
    await tags.create("stable", 1);
    await tags.create("candidate", 2);
    await tags.create("temp", 3);
    await ctx.step(ds, "tags.create", { tags: { stable: 1, candidate: 2, temp: 3 } });
    await tags.update("candidate", 3);
    await ctx.step(ds, "tags.update", { tag: "candidate", version: 3 });
    await tags.delete("temp");
    await ctx.step(ds, "tags.delete", { tag: "temp" });
    ds.extra.get_version = { stable: await tags.getVersion("stable"), candidate: await tags.getVersion("candidate") };
    await ds.tbl.checkout("stable");
    ds.extra.rows_at_tag = { stable: await ds.tbl.countRows() };
    await ds.tbl.checkout("candidate");
    ds.extra.rows_at_tag.candidate = await ds.tbl.countRows();
    await ds.tbl.checkoutLatest();
    ds.notes.push("Tag createdAt/updatedAt/branch/metadata (in _refs/tags/*.json) are not reported by tags.list().");
  },

  async restore(ctx) {
    const ds = await ctx.create("restore", rows(0, 100, 8));
    await ds.tbl.add(rows(100, 100, 8));
    await ctx.step(ds, "add", { rows: 100 });
    await ds.tbl.delete("id < 50");
    await ctx.step(ds, "delete", { predicate: "id < 50" });
    await ds.tbl.checkout(1);
    await ctx.step(ds, "checkout", { version: 1 });
    await ds.tbl.restore();
    await ctx.step(ds, "restore", { restored_version: 1 });
  },

  async many_versions(ctx) {
    const N = Number(process.env.QV_MANY_VERSIONS ?? 1000);
    const ds = await ctx.create("many_versions", rows(0, 1, 9));
    const t0 = performance.now();
    for (let i = 1; i <= N; i++) await ds.tbl.add(rows(i, 1, 9));
    const ms = performance.now() - t0;
    await ctx.step(ds, "add x N", { appends: N, rows_each: 1, seconds: +(ms / 1000).toFixed(2) });
    const latest = await ds.tbl.version();
    ds.perVersion = [...new Set([1, 2, 10, 100, 500, Math.floor(latest / 2), latest - 1, latest])].filter(
      (v) => v >= 1 && v <= latest,
    );
    ds.notes.push("num_rows_by_version is sampled (checking out all versions is slow); num_rows at version v is v.");
  },

  async storage_v2_0(ctx) {
    const opts = { storageOptions: { new_table_data_storage_version: "2.0" } };
    const ds = await ctx.create("storage_v2_0", rows(0, 100, 10), opts);
    await ds.tbl.add(rows(100, 100, 10));
    await ctx.step(ds, "add", { rows: 100 });
    ds.notes.push(
      "The data storage version is not reported by any LanceDB 0.31 node API; requested_data_storage_version is what we asked for, on_disk.data_file_versions is read from the files' footers.",
    );
    ds.extra.requested_data_storage_version = "2.0";
  },

  async stable_row_ids(ctx) {
    const opts = { storageOptions: { new_table_enable_stable_row_ids: "true" } };
    const ds = await ctx.create("stable_row_ids", rows(0, 100, 11), opts);
    await ds.tbl.add(rows(100, 100, 11));
    await ctx.step(ds, "add", { rows: 100 });
    await ds.tbl.delete("id < 10");
    await ctx.step(ds, "delete", { predicate: "id < 10" });
    const u = await ds.tbl.update({ values: { name: "moved" }, where: "id >= 190" });
    await ctx.step(ds, "update", { where: "id >= 190", rows_updated: u.rowsUpdated });
    ds.notes.push("Whether stable row ids are enabled (manifest feature flag) is not reported by the API.");
    ds.extra.requested_stable_row_ids = true;
  },

  async branches(ctx) {
    const ds = await ctx.create("branches", rows(0, 100, 12));
    await ds.tbl.add(rows(100, 100, 12));
    await ctx.step(ds, "add", { rows: 100 }); // main v2
    const br = await ds.tbl.branches();
    const dev = await br.create("dev"); // forks main@latest (v2)
    await ctx.step(ds, "branches.create", { name: "dev", from: "main" }, dev);
    await dev.add(rows(1000, 50, 12));
    await ctx.step(ds, "add", { rows: 50 }, dev); // dev v3
    const exp = await (await dev.branches()).create("exp", "dev");
    await ctx.step(ds, "branches.create", { name: "exp", from: "dev" }, exp);
    await exp.add(rows(2000, 25, 12));
    await ctx.step(ds, "add", { rows: 25 }, exp); // exp v4
    // main moves on too, so main v3 and dev v3 are different manifests.
    await ds.tbl.add(rows(200, 10, 12));
    await ctx.step(ds, "add", { rows: 10 }); // main v3
    // A tag made through a branch handle.
    await (await dev.tags()).create("dev-tip", 3);
    await ctx.step(ds, "tags.create (on dev handle)", { tag: "dev-tip", version: 3 }, dev);
    ds.extra.branch_handles = {};
    for (const name of ["dev", "exp"]) {
      const h = await br.checkout(name);
      ds.extra.branch_handles[name] = await describeTable(h);
    }
    ds.notes.push(
      "BranchContents has parentBranch/parentVersion/manifestSize only; the branch JSON's identifier.version_mapping, createAt and metadata are not reported.",
    );
  },

  async v1_manifest_naming(ctx) {
    const opts = { storageOptions: { new_table_enable_v2_manifest_paths: "false" } };
    const ds = await ctx.create("v1_manifest_naming", rows(0, 100, 13), opts);
    await ds.tbl.add(rows(100, 100, 13));
    await ctx.step(ds, "add", { rows: 100 });
    await ds.tbl.delete("id < 5");
    await ctx.step(ds, "delete", { predicate: "id < 5" });
    await (await ds.tbl.tags()).create("v1-tag", 2);
    await ctx.step(ds, "tags.create", { tag: "v1-tag", version: 2 });
  },
};

// ---------------------------------------------------------------------------------------------

const COMMON_NOT_REPORTED = [
  "data storage version (2.0/2.1) of the table",
  "manifest naming scheme beyond usesV2ManifestPaths() (true = 20-digit inverted V2 names)",
  "fragments, data files, deletion files and their types",
  "transaction files (_transactions/) and their content",
  "manifest feature flags (e.g. stable row ids), writer version, config",
  "latest_version_hint.json",
  "version timestamps below microsecond precision (listVersions gives Date with ms; the native call gives integer microseconds)",
];

async function main() {
  const [outArg, ...names] = process.argv.slice(2);
  if (!outArg || outArg === "-h" || outArg === "--help") {
    console.error(`usage: node make_fixtures.mjs <out_dir> [${Object.keys(SCENARIOS).join("|")} ...]`);
    process.exit(2);
  }
  const unknown = names.filter((n) => !(n in SCENARIOS));
  if (unknown.length) {
    console.error(`unknown scenario(s): ${unknown.join(", ")}; known: ${Object.keys(SCENARIOS).join(", ")}`);
    process.exit(2);
  }
  const selected = names.length ? names : Object.keys(SCENARIOS);
  const outDir = path.resolve(outArg);
  fs.mkdirSync(outDir, { recursive: true });

  const t0 = performance.now();
  const db = await lancedb.connect(outDir);
  const expected = {
    generator: {
      script: "tests/interop/make_fixtures.mjs",
      versions: VERSIONS,
      generated_at: new Date().toISOString(),
      connect: `lancedb.connect(${JSON.stringify(outDir)})`,
    },
    out_dir: outDir,
    root_entries_note:
      "lancedb.connect(dir) itself creates <dir>/__manifest (an empty Lance dataset used by the directory namespace); it is not a fixture.",
    common_not_reported_by_api: COMMON_NOT_REPORTED,
    scenarios: {},
    datasets: {},
  };

  let failed = 0;
  for (const name of selected) {
    const s0 = performance.now();
    const ctx = new Ctx(db, outDir, name);
    const rec = { datasets: [], ok: false };
    try {
      await SCENARIOS[name](ctx);
      for (const ds of ctx.datasets) {
        const dsDir = path.join(outDir, `${ds.name}.lance`);
        const info = {
          scenario: name,
          table_name: ds.name,
          path: dsDir,
          relative_path: `${ds.name}.lance`,
          create_options: ds.createOptions,
          steps: ds.steps,
          ...(await describeTable(ds.tbl, { perVersion: ds.perVersion })),
          ...ds.extra,
          not_reported_by_api: ds.notes,
          on_disk: describeOnDisk(dsDir),
        };
        expected.datasets[ds.name] = info;
        rec.datasets.push(ds.name);
      }
      rec.ok = true;
    } catch (err) {
      failed++;
      rec.error = String(err.stack ?? err);
      console.error(`scenario ${name} FAILED: ${err.stack ?? err}`);
    }
    rec.seconds = +((performance.now() - s0) / 1000).toFixed(2);
    expected.scenarios[name] = rec;
    console.error(`${rec.ok ? "ok  " : "FAIL"} ${name} (${rec.seconds}s)`);
  }
  expected.total_seconds = +((performance.now() - t0) / 1000).toFixed(2);
  fs.writeFileSync(path.join(outDir, "expected.json"), JSON.stringify(expected, bigintReplacer, 2) + "\n");
  console.error(
    `${selected.length - failed} passed, ${failed} failed; ${expected.total_seconds}s; wrote ${path.join(outDir, "expected.json")}`,
  );
  process.exitCode = failed ? 1 : 0;
}

await main();
