// Cleanup parity: on copies of one dataset, LanceDB's own cleanup (optimize with
// cleanupOlderThan = now, on tables with nothing to compact) and `quiver table cleanup
// --older-than 0s` must leave exactly the same files, and LanceDB must open every remaining
// version and tag afterwards. Tagged old versions make both refuse.
//
//   node check_cleanup.mjs <quiver binary> <fixtures dir>
//
// Prints one line per check and a closing "N passed, N failed"; exits 1 if any check failed.
import fs from "node:fs";
import path from "node:path";

import { connectToDataset } from "./lib.mjs";
import { parseArgs, createReport, quiverRunner, scratch } from "./checks.mjs";

const { quiver, dir } = parseArgs("node check_cleanup.mjs <quiver binary> <fixtures dir>");
const { check, finish } = createReport();
const quiverRun = quiverRunner(quiver);

// Every file below `root`, relative, sorted; quiver's own reserved area is not dataset content.
function files(root) {
  const out = [];
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === ".qv-store") continue;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(root, "");
  return out.sort();
}

async function lanceCleanup(ds) {
  const c = await connectToDataset(ds);
  try {
    const tbl = await c.db.openTable(c.name);
    const before = Number(await tbl.version());
    await tbl.optimize({ cleanupOlderThan: new Date(), deleteUnverified: false });
    return { ok: true, before, after: Number(await tbl.version()) };
  } catch (e) {
    return { ok: false, error: String(e.message) };
  } finally {
    c.cleanup();
  }
}

// Opens every version LanceDB lists, and every tag; returns the failures.
async function openEverything(ds) {
  const c = await connectToDataset(ds);
  const failures = [];
  try {
    const tbl = await c.db.openTable(c.name);
    for (const v of await tbl.listVersions()) {
      try {
        await tbl.checkout(v.version);
        await tbl.countRows();
      } catch (e) {
        failures.push(`version ${v.version}: ${e.message}`);
      }
    }
    const tags = await (await tbl.tags()).list();
    for (const name of Object.keys(tags)) {
      try {
        await tbl.checkout(name);
        await tbl.countRows();
      } catch (e) {
        failures.push(`tag ${name}: ${e.message}`);
      }
    }
  } finally {
    c.cleanup();
  }
  return failures;
}

const space = scratch("qv-cleanup-");
const work = space.work;
try {
  // With the files' modification times preserved, old files are deleted; copied without them,
  // every file looks newer than the kept version and only old manifests may go.
  for (const [name, preserveTimestamps] of [["compaction", true], ["schema_evolution", true],
                                             ["restore", true], ["compaction", false]]) {
    const label = preserveTimestamps ? name : `${name} (fresh mtimes)`;
    const lanceCopy = path.join(work, `${label}-lance.lance`);
    const quiverCopy = path.join(work, `${label}-quiver.lance`);
    fs.cpSync(path.join(dir, `${name}.lance`), lanceCopy, { recursive: true, preserveTimestamps });
    fs.cpSync(path.join(dir, `${name}.lance`), quiverCopy, { recursive: true, preserveTimestamps });
    const filesBefore = files(quiverCopy).length;
    const lance = await lanceCleanup(lanceCopy);
    check(`${label}: LanceDB cleaned without committing`, lance.ok && lance.before === lance.after,
          JSON.stringify(lance));
    const r = quiverRun("table", "cleanup", quiverCopy, "--older-than", "0s", "--json");
    check(`${label}: quiver cleaned`, r.ok, r.out.trim());
    const theirs = files(lanceCopy);
    const ours = files(quiverCopy);
    const onlyOurs = ours.filter((f) => !theirs.includes(f));
    const onlyTheirs = theirs.filter((f) => !ours.includes(f));
    check(`${label}: the same ${ours.length} of ${filesBefore} files remain`, onlyOurs.length === 0 && onlyTheirs.length === 0,
          `kept only by quiver ${JSON.stringify(onlyOurs)}; only by LanceDB ${JSON.stringify(onlyTheirs)}`);
    const broken = await openEverything(quiverCopy);
    check(`${label}: LanceDB opens every remaining version`, broken.length === 0, broken.join(" | "));
  }
  for (const name of ["tags", "v1_manifest_naming"]) {
    const lanceCopy = path.join(work, `${name}-lance.lance`);
    const quiverCopy = path.join(work, `${name}-quiver.lance`);
    fs.cpSync(path.join(dir, `${name}.lance`), lanceCopy, { recursive: true, preserveTimestamps: true });
    fs.cpSync(path.join(dir, `${name}.lance`), quiverCopy, { recursive: true, preserveTimestamps: true });
    const lance = await lanceCleanup(lanceCopy);
    const before = files(quiverCopy);
    const refused = quiverRun("table", "cleanup", quiverCopy, "--older-than", "0s");
    check(`${name}: both refuse to clean tagged versions`,
          !lance.ok && /tagged version/.test(lance.error) && !refused.ok &&
            refused.out.includes("InvalidTableState"),
          `lancedb ${JSON.stringify(lance)} quiver ${refused.out.trim()}`);
    check(`${name}: a refused cleanup deletes nothing`,
          JSON.stringify(files(quiverCopy)) === JSON.stringify(before), "");
    const kept = quiverRun("table", "cleanup", quiverCopy, "--older-than", "0s", "--keep-tagged");
    check(`${name}: --keep-tagged cleans around the tags`, kept.ok, kept.out.trim());
    const broken = await openEverything(quiverCopy);
    check(`${name}: LanceDB opens every remaining version and tag`, broken.length === 0,
          broken.join(" | "));
  }
} catch (e) {
  check("interop run", false, e.stack);
} finally {
  space.cleanup();
}
finish();
