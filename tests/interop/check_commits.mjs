// Every metadata commit quiver makes (restore, schema and field metadata, rename, drop, and
// publishing a manifest a writer staged) is opened by LanceDB afterwards: it sees the new
// version, reads all rows, and can append on top. Works on a copy of the `basic` fixture.
//
//   node check_commits.mjs <quiver binary> <fixtures dir>
//
// Prints one line per check and a closing "N passed, N failed"; exits 1 if any check failed.

import fs from "node:fs";
import path from "node:path";

import { connectToDataset } from "./lib.mjs";
import { parseArgs, createReport, quiverRunner, scratch } from "./checks.mjs";

const { quiver, dir } = parseArgs("node check_commits.mjs <quiver binary> <fixtures dir>");
const { check, finish } = createReport();
const quiverRun = quiverRunner(quiver);

const space = scratch("qv-commits-");
const ds = space.copy(dir, "basic");

// What LanceDB sees at the latest version.
async function lance() {
  const c = await connectToDataset(ds);
  try {
    const tbl = await c.db.openTable(c.name);
    const schema = await tbl.schema();
    const rows = await tbl.query().toArray();
    return {
      version: Number(await tbl.version()),
      rows: Number(await tbl.countRows()),
      scanned: rows.length,
      columns: schema.fields.map((f) => f.name),
      nullable: Object.fromEntries(schema.fields.map((f) => [f.name, f.nullable])),
      metadata: Object.fromEntries(schema.metadata ?? []),
      fieldMetadata: Object.fromEntries(schema.fields.map((f) => [f.name,
        Object.fromEntries(f.metadata ?? [])])),
    };
  } finally {
    c.cleanup();
  }
}

// LanceDB appends `n` rows shaped like the current schema; returns the version after.
async function lanceAppend(n, start) {
  const c = await connectToDataset(ds);
  try {
    const tbl = await c.db.openTable(c.name);
    const schema = await tbl.schema();
    const data = [];
    for (let i = 0; i < n; i++) {
      const row = {};
      for (const f of schema.fields) {
        if (f.name === "id") row.id = BigInt(start + i);
        else if (f.name === "name" || f.name === "label") row[f.name] = `row-${start + i}`;
        else if (f.name === "vector") row.vector = Array.from({ length: 8 }, (_, k) => k + i);
      }
      data.push(row);
    }
    await tbl.add(data);
    return Number(await tbl.version());
  } finally {
    c.cleanup();
  }
}

async function step(label, args, expect) {
  const r = quiverRun(...args);
  check(`${label}: quiver commits`, r.ok, r.out.trim());
  const seen = await lance();
  check(`${label}: LanceDB sees version ${expect.version}`, seen.version === expect.version,
        JSON.stringify(seen));
  check(`${label}: LanceDB reads ${expect.rows} rows`,
        seen.rows === expect.rows && seen.scanned === expect.rows, JSON.stringify(seen));
  return seen;
}

try {
  let seen = await step("restore v1", ["table", "restore", ds, "1"], { version: 4, rows: 200 });
  let v = await lanceAppend(10, 10000);
  check("LanceDB appends after the restore", v === 5, `version ${v}`);

  seen = await step("schema metadata", ["table", "metadata", ds, "--set", "owner=ml"],
                    { version: 6, rows: 210 });
  check("LanceDB sees the schema metadata", seen.metadata.owner === "ml", JSON.stringify(seen.metadata));

  seen = await step("field metadata", ["table", "metadata", ds, "--column", "name", "--set",
                                       "doc=hello"], { version: 7, rows: 210 });
  check("LanceDB sees the field metadata", seen.fieldMetadata.name?.doc === "hello",
        JSON.stringify(seen.fieldMetadata));

  seen = await step("rename", ["table", "alter-column", ds, "name", "--rename", "label"],
                    { version: 8, rows: 210 });
  check("LanceDB sees the new name", seen.columns.join(",") === "id,label,vector",
        seen.columns.join(","));

  seen = await step("drop", ["table", "drop-columns", ds, "vector"], { version: 9, rows: 210 });
  check("LanceDB no longer has the column", seen.columns.join(",") === "id,label",
        seen.columns.join(","));
  v = await lanceAppend(5, 20000);
  check("LanceDB appends with the new schema", v === 10, `version ${v}`);
  seen = await lance();
  check("every row is still there", seen.rows === 215 && seen.scanned === 215, JSON.stringify(seen));

  // Managed versioning: a writer (LanceDB, on a sibling copy) stages data and a manifest; quiver
  // publishes the manifest as the next version of this dataset.
  const sibling = path.join(space.work, "sibling.lance");
  fs.cpSync(ds, sibling, { recursive: true });
  {
    const c = await connectToDataset(sibling);
    const tbl = await c.db.openTable(c.name);
    await tbl.add([{ id: 777777n, label: "staged" }]);
    c.cleanup();
  }
  const v11 = "_versions/18446744073709551604.manifest";
  const txns = fs.readdirSync(path.join(sibling, "_transactions"));
  for (const f of fs.readdirSync(path.join(sibling, "data"))) {
    if (!fs.existsSync(path.join(ds, "data", f))) {
      fs.copyFileSync(path.join(sibling, "data", f), path.join(ds, "data", f));
    }
  }
  for (const f of txns) {
    if (!fs.existsSync(path.join(ds, "_transactions", f))) {
      fs.copyFileSync(path.join(sibling, "_transactions", f), path.join(ds, "_transactions", f));
    }
  }
  fs.mkdirSync(path.join(ds, "_staging"), { recursive: true });
  fs.copyFileSync(path.join(sibling, v11), path.join(ds, "_staging", "v11.manifest"));
  seen = await step("publish a staged manifest",
                    ["table", "publish", ds, "_staging/v11.manifest", "--version", "11"],
                    { version: 11, rows: 216 });
  check("the staging object is gone", !fs.existsSync(path.join(ds, "_staging", "v11.manifest")), "");
  v = await lanceAppend(4, 30000);
  check("LanceDB appends on top of the published version", v === 12, `version ${v}`);

  const inspected = JSON.parse(quiverRun("table", "inspect", ds, "--json").out);
  check("quiver reads LanceDB's append on top of its commits",
        inspected.version === 12 && inspected.num_rows === 220, JSON.stringify(inspected.version));
} catch (e) {
  check("interop run", false, e.stack);
} finally {
  space.cleanup();
}
finish();
