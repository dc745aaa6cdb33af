// LanceDB reads quiver's deletes: deletion_interop_test (QuiverDeletesAndReadsBack) deletes rows
// of copies of format fixtures with quiver's DeleteRows (new `.arrow` and `.bin` deletion files,
// merged with LanceDB's own, a fragment removed whole) and records the rows that must remain in
// quiver.json. LanceDB then opens each copy: countRows, the ids it reads (it must decode quiver's
// deletion files to leave the rows out), and a delete of its own on top (which merges quiver's
// deletion vector into a new one) must all agree. quiver's `_rowid` and `_rowaddr` of every
// row must be LanceDB's withRowId() / `_rowaddr`.
//
// Stable row ids: LanceDB makes a table with `new_table_enable_stable_row_ids` (appends, deletes,
// an update that moves rows under their ids, a compaction that rewrites the row id sequences, a
// delete after it); deletion_interop_test (StableRowIdsOfALanceDBTable) reads it and writes
// quiver_stable.json next to it; quiver's ids, `_rowid`s and `_rowaddr`s must be LanceDB's.
// Then quiver writes (QuiverWritesToStableRowIdTables: an append to that table, a stable table
// of its own) and LanceDB reads quiver's ids, appends after them, updates and compacts keeping
// every id, and quiver reads the result equal again.
//
//   node check_deletions.mjs <deletion_interop_test binary> <format fixtures dir>
//
// Exits 77 (skipped) when the fixtures were not generated; 1 if any check failed.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { arrow, connectToDataset, lancedb } from "./lib.mjs";
import { createReport } from "./checks.mjs";

const [binary, fixtures] = process.argv.slice(2);
if (!binary || !fixtures) {
  console.error("usage: node check_deletions.mjs <deletion_interop_test binary> <fixtures dir>");
  process.exit(2);
}
if (!fs.existsSync(path.join(fixtures, "expected.json"))) {
  console.log(`skipped: no format fixtures in ${fixtures}`);
  process.exit(77);
}
const { check, finish } = createReport();

// id -> [_rowid, _rowaddr] as LanceDB reads them.
async function lanceRowIds(tbl) {
  const got = await tbl.query().select(["id", "_rowaddr"]).withRowId().toArrow();
  const ids = got.getChild("id").toArray();
  const rowIds = got.getChild("_rowid").toArray();
  const addrs = got.getChild("_rowaddr").toArray();
  const out = new Map();
  for (let i = 0; i < got.numRows; i++) out.set(Number(ids[i]), [BigInt(rowIds[i]), BigInt(addrs[i])]);
  return out;
}

// Compares quiver's {ids, row_ids, row_addrs} with LanceDB's map; "" when equal.
function rowIdDifference(quiver, lance) {
  if (quiver.ids.length !== lance.size) return `quiver ${quiver.ids.length} rows, LanceDB ${lance.size}`;
  // Equal counts with a repeated id would hide a row quiver left out.
  const distinct = new Set(quiver.ids).size;
  if (distinct !== quiver.ids.length) return `quiver repeats ids: ${distinct} distinct of ${quiver.ids.length}`;
  for (let i = 0; i < quiver.ids.length; i++) {
    const want = lance.get(quiver.ids[i]);
    const got = [BigInt(quiver.row_ids[i]), BigInt(quiver.row_addrs[i])];
    if (!want || want[0] !== got[0] || want[1] !== got[1]) {
      return `id ${quiver.ids[i]}: quiver _rowid ${got[0]} _rowaddr ${got[1]}, LanceDB ${want ? want.join(" ") : "no row"}`;
    }
  }
  return "";
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), "qv-deletions-"));
try {
  try {
    execFileSync(binary, ["--gtest_filter=DeletionInterop.QuiverDeletesAndReadsBack"], {
      env: { ...process.env, QUIVER_FORMAT_FIXTURES: fixtures, QUIVER_DELETION_WRITE_DIR: work },
      encoding: "utf8",
      stdio: "pipe",
    });
    check("quiver deletes rows of the fixture copies", true);
  } catch (e) {
    check("quiver deletes rows of the fixture copies", false, `${e.stdout}\n${e.stderr}`);
    finish();
  }
  const tables = JSON.parse(fs.readFileSync(path.join(work, "quiver.json"), "utf8"));
  for (const [name, t] of Object.entries(tables)) {
    const files = fs.readdirSync(path.join(t.path, "_deletions"));
    check(`${name}: quiver wrote a ${t.deletion_file_ext} deletion file`,
      files.some((f) => f.endsWith(t.deletion_file_ext)), files.join(", "));
    const c = await connectToDataset(t.path);
    try {
      const tbl = await c.db.openTable(c.name);
      check(`${name}: LanceDB opens quiver's version ${t.version}`, Number(await tbl.version()) === t.version,
        `LanceDB is at version ${await tbl.version()}`);
      const count = await tbl.countRows();
      check(`${name}: LanceDB countRows = ${t.rows}`, count === t.rows, `got ${count}`);
      const got = await tbl.query().select(["id"]).toArrow();
      const ids = Array.from(got.getChild("id").toArray(), Number).sort((a, b) => a - b);
      const same = ids.length === t.ids.length && ids.every((v, i) => v === t.ids[i]);
      check(`${name}: LanceDB reads exactly the ids quiver kept`, same,
        `${ids.length} ids, first difference at ${ids.findIndex((v, i) => v !== t.ids[i])}`);
      const diff = rowIdDifference(t, await lanceRowIds(tbl));
      check(`${name}: quiver's _rowid and _rowaddr are LanceDB's`, diff === "", diff);
      const fragments = (await tbl.stats()).fragmentStats.numFragments;
      check(`${name}: ${t.fragments} fragments`, fragments === t.fragments, `got ${fragments}`);
      // LanceDB deletes one more row: it reads quiver's deletion vector and writes the union.
      const victim = t.ids[Math.floor(t.ids.length / 2)];
      await tbl.delete(`id = ${victim}`);
      const after = await tbl.countRows();
      const stillThere = await tbl.query().where(`id = ${victim}`).toArray();
      check(`${name}: LanceDB deletes on top of quiver's deletions`,
        after === t.rows - 1 && stillThere.length === 0, `countRows ${after}, victim rows ${stillThere.length}`);
      const left = await tbl.query().select(["id"]).toArrow();
      check(`${name}: LanceDB keeps quiver's deletions after its own delete`,
        left.numRows === t.rows - 1, `got ${left.numRows} rows`);
    } catch (e) {
      check(`${name}: LanceDB reads the table`, false, String(e.stack || e));
    } finally {
      c.cleanup();
    }
  }
  await checkStableRowIds();
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
finish();

// The stable table's rows: id int64, name utf8 (tableFromArrays alone would make `name` a
// dictionary).
function rows(from, n) {
  return new arrow.Table({
    id: arrow.vectorFromArray(BigInt64Array.from({ length: n }, (_, i) => BigInt(from + i))),
    name: arrow.vectorFromArray(Array.from({ length: n }, (_, i) => `name-${from + i}`), new arrow.Utf8()),
  });
}

async function checkStableRowIds() {
  const name = "stable";
  try {
    const db = await lancedb.connect(work);
    const tbl = await db.createTable(name, rows(0, 1000), {
      mode: "create", storageOptions: { new_table_enable_stable_row_ids: "true" },
    });
    await tbl.add(rows(1000, 1000));
    await tbl.add(rows(2000, 500));
    await tbl.delete("id % 3 = 0 AND id < 1500");
    await tbl.update({ values: { name: "'moved'" }, where: "id >= 1990 AND id < 2010" });
    await tbl.optimize();  // compaction: ids keep their values, sequences get holes
    await tbl.delete("id % 10 = 1");
    await tbl.update({ values: { name: "'moved again'" }, where: "id >= 2400" });
    const lance = await lanceRowIds(tbl);
    const table = path.join(work, `${name}.lance`);
    try {
      execFileSync(binary, ["--gtest_filter=DeletionInterop.StableRowIdsOfALanceDBTable"], {
        env: { ...process.env, QUIVER_STABLE_ROW_ID_TABLE: table }, encoding: "utf8", stdio: "pipe",
      });
      check("stable row ids: quiver scans and takes LanceDB's stable-row-id table", true);
    } catch (e) {
      check("stable row ids: quiver scans and takes LanceDB's stable-row-id table", false, `${e.stdout}\n${e.stderr}`);
      return;
    }
    const quiver = JSON.parse(fs.readFileSync(path.join(work, "quiver_stable.json"), "utf8"));
    // Which segment kinds the check exercised depends on what this LanceDB version writes.
    const kinds = Object.entries(quiver.segment_kinds ?? {}).map(([k, n]) => `${n} ${k}`).join(", ");
    console.log(`stable row ids: LanceDB's table holds row id segments: ${kinds || "none"}`);
    const moved = [...lance.values()].filter(([id, addr]) => id !== addr).length;
    check(`stable row ids: some _rowid differ from _rowaddr in LanceDB's table (${moved} do)`, moved > 0);
    const diff = rowIdDifference(quiver, lance);
    check(`stable row ids: quiver's _rowid and _rowaddr are LanceDB's (${lance.size} rows)`, diff === "", diff);
    await checkQuiverStableWrites(db, name, table);
  } catch (e) {
    check("stable row ids: LanceDB makes the table", false, String(e.stack || e));
  }
}

// quiver appends to LanceDB's stable table and makes one of its own
// (DeletionInterop.QuiverWritesToStableRowIdTables); LanceDB must read quiver's ids, give its
// own new rows the ids after them, and keep every id through an update and a compaction; quiver
// then reads LanceDB's result equal again.
async function checkQuiverStableWrites(db, name, table) {
  const what = "stable row ids: quiver writes";
  try {
    execFileSync(binary, ["--gtest_filter=DeletionInterop.QuiverWritesToStableRowIdTables"], {
      env: { ...process.env, QUIVER_STABLE_ROW_ID_TABLE: table }, encoding: "utf8", stdio: "pipe",
    });
    check(`${what}: quiver appends to LanceDB's table and creates one`, true);
  } catch (e) {
    check(`${what}: quiver appends to LanceDB's table and creates one`, false, `${e.stdout}\n${e.stderr}`);
    return;
  }
  const written = JSON.parse(fs.readFileSync(path.join(work, "quiver_stable_writes.json"), "utf8"));
  const cases = [
    { label: "LanceDB's table after quiver's append", tbl: await db.openTable(name), path: table, q: written.theirs },
    { label: "quiver's table", tbl: await (await lancedb.connect(path.dirname(written.mine_path))).openTable(
      path.basename(written.mine_path, ".lance")), path: written.mine_path, q: written.mine },
  ];
  for (const { label, tbl, path: tablePath, q } of cases) {
    const diff = rowIdDifference(q, await lanceRowIds(tbl));
    check(`${what}: ${label}: LanceDB reads quiver's _rowid and _rowaddr`, diff === "", diff);
    // The version sequences quiver wrote: each row created (and last updated) by its commit.
    const versions = await tbl.query().select(["id", "_row_created_at_version", "_row_last_updated_at_version"]).toArrow();
    const created = new Map();
    for (const [first, n, version] of q.created) {
      for (let i = 0; i < n; i++) created.set(first + i, BigInt(version));
    }
    let wrong = 0, seen = 0;
    const vid = versions.getChild("id").toArray();
    const vc = versions.getChild("_row_created_at_version").toArray();
    const vu = versions.getChild("_row_last_updated_at_version").toArray();
    for (let i = 0; i < versions.numRows; i++) {
      const want = created.get(Number(vid[i]));
      if (want === undefined) continue;
      seen++;
      if (vc[i] !== want || vu[i] !== want) wrong++;
    }
    check(`${what}: ${label}: LanceDB reads quiver's created/last-updated versions`, wrong === 0 && seen > 0,
      `${wrong} of ${seen} rows wrong`);
    // LanceDB's own append takes the ids after quiver's next_row_id.
    const n = 50, first = 900000;
    await tbl.add(rows(first, n));
    const after = await lanceRowIds(tbl);
    const fresh = Array.from({ length: n }, (_, i) => after.get(first + i)?.[0]);
    const start = BigInt(q.next_row_id);
    check(`${what}: ${label}: LanceDB's append continues at quiver's next_row_id ${start}`,
      fresh.every((id, i) => id === start + BigInt(i)), `got ${fresh.slice(0, 3).join(", ")}…`);
    // An update moves rows and a compaction rewrites the sequences: no id changes.
    await tbl.update({ values: { name: "'moved by LanceDB'" }, where: `id % 5 = 1` });
    await tbl.optimize();
    const moved = await lanceRowIds(tbl);
    let changed = 0;
    for (const [id, [rowId]] of after) if (moved.get(id)?.[0] !== rowId) changed++;
    check(`${what}: ${label}: ids survive LanceDB's update and compaction`,
      changed === 0 && moved.size === after.size, `${changed} of ${after.size} changed, ${moved.size} rows`);
    try {
      execFileSync(binary, ["--gtest_filter=DeletionInterop.StableRowIdsOfALanceDBTable"], {
        env: { ...process.env, QUIVER_STABLE_ROW_ID_TABLE: tablePath }, encoding: "utf8", stdio: "pipe",
      });
      const again = JSON.parse(fs.readFileSync(path.join(path.dirname(tablePath), "quiver_stable.json"), "utf8"));
      const back = rowIdDifference(again, moved);
      check(`${what}: ${label}: quiver reads LanceDB's result equal`, back === "", back);
    } catch (e) {
      check(`${what}: ${label}: quiver reads LanceDB's result equal`, false, `${e.stdout}\n${e.stderr}`);
    }
  }
}
