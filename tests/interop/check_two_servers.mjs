// Two `quiver serve` processes over ONE storage root, raced by 8 concurrent REST clients.
//
//   node check_two_servers.mjs <quiver binary> <fixtures dir (unused)>
//
// Client i sends its requests to server i % 2 (plain fetch, keep-alive), so every race below is
// also a race between the two processes, which share nothing but the files under the root.
// Each of R rounds (QV_ROUNDS, default 25) races, in order:
//   1. create the same namespace                  → exactly one 200, the rest 409 code 2;
//   2. declare the same table in it               → exactly one 200, the rest 409 code 5;
//   3. rename that table to 8 different names     → exactly one 200, the rest 409 code 14 / 404 code 4;
//   4. declare the old name again                 → exactly one 200 (409 code 5), at a new location;
//   5. drop the renamed table                     → exactly one 200, the rest 404 code 4 / 409 code 14;
//   (+) 4 clients rename one table (to 4 names) while 4 drop it → exactly one 200, the rest
//      404 code 4 / 409 code 14; the winner's outcome (files kept or deleted) is checked;
//   6. 4 clients create child namespaces / declare tables in a fresh namespace while the other 4
//      drop that namespace (Restrict): at most one drop wins; if it did, nothing is left under
//      the namespace (both servers' list endpoints, and the registry files on disk); if it did
//      not, exactly the children whose create got 200 exist.
// After each step, both servers must describe the outcome the same way. After all rounds, the
// registry on disk (<root>/_quiver/{tables,ns}/**.json) must be consistent: locations unique,
// every record active, every parent namespace present, no namespace left marked as dropping,
// <root>/_quiver/intents/ empty, no files left at a location no table owns; and each server's
// table listings (GET /v1/table and GET /v1/namespace/{ns}/table/list) and namespace listings
// must equal the records. Then every surviving (declared-only) table is written by LanceDB's
// REST client through server A (createTable on a declared table) and read back through server B
// (openTable + countRows). Both servers must exit 0 on SIGTERM.
//
// Prints one line per check and "N passed, N failed"; exits 1 if any check failed (the tails of
// both servers' stderr are echoed then). QV_KEEP_SCRATCH=1 keeps the root and the server logs.
import fs from "node:fs";
import path from "node:path";

import { lancedb } from "./lib.mjs";
import {
  parseArgs, createReport, scratch, startQuiverServe, stopQuiverServe, stoppedCleanly, finishScratch } from "./checks.mjs";

const USAGE = "node check_two_servers.mjs <quiver binary> <fixtures dir (unused)>";
const { quiver } = parseArgs(USAGE);

const ROUNDS = Number(process.env.QV_ROUNDS ?? 25);
const CLIENTS = 8;
const REQUEST_TIMEOUT_MS = 20_000;
const STARTUP_TIMEOUT_MS = 20_000;
const SHUTDOWN_TIMEOUT_MS = 15_000;

const report = createReport();
let failures = 0;
let current = "setup";
function check(label, ok, detail) {
  if (!ok) failures++;
  report.check(`${current}: ${label}`, ok, detail);
}

const space = scratch("qv-two-");
const ROOT = path.join(space.work, "root");
const servers = []; // [A, B]: handles of startQuiverServe
const NAMES = ["A", "B"];

// ---------------------------------------------------------------------------------------------
// Requests

const enc = (id) => (id.length === 0 ? "%24" : encodeURIComponent(id.join("$")));
const clip = (s, n = 400) => (s.length > n ? `${s.slice(0, n)}…` : s);

// One request from client `c` (server c % 2); never throws: {c, server, status, text, json}.
async function call(c, method, urlPath, body) {
  const server = c % 2;
  const sep = urlPath.includes("?") ? "&" : "?";
  const url = `${servers[server].url}${urlPath}${sep}delimiter=%24`;
  const init = { method, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) };
  if (body !== undefined) {
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(body);
  }
  try {
    const r = await fetch(url, init);
    const text = await r.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: json stays null
    }
    return { c, server, method, urlPath, status: r.status, text, json };
  } catch (e) {
    return { c, server, method, urlPath, status: 0, text: `fetch failed: ${e.message}`, json: null };
  }
}
const show = (r) => `c${r.c}@${NAMES[r.server]} ${r.method} ${r.urlPath} → ${r.status} ${clip(r.text)}`;
const showAll = (rs) => rs.map(show).join(" | ");

const post = (c, urlPath, body) => call(c, "POST", urlPath, body);
const createNs = (c, id, extra = {}) => post(c, `/v1/namespace/${enc(id)}/create`, { id, ...extra });
const dropNs = (c, id, extra = {}) => post(c, `/v1/namespace/${enc(id)}/drop`, { id, ...extra });
const declare = (c, id) => post(c, `/v1/table/${enc(id)}/declare`, { id });
const describe = (c, id) => post(c, `/v1/table/${enc(id)}/describe`, { id });
const rename = (c, id, newName) => post(c, `/v1/table/${enc(id)}/rename`, { id, new_table_name: newName });
const dropTable = (c, id) => post(c, `/v1/table/${enc(id)}/drop`, { id });

// Follows page_token until the listing ends; {ok, items, responses}.
async function listAll(c, urlPath, field) {
  const items = [];
  const responses = [];
  let token = null;
  for (let page = 0; page < 1000; page++) {
    const q = token === null ? urlPath : `${urlPath}?page_token=${encodeURIComponent(token)}`;
    const r = await call(c, "GET", q);
    responses.push(r);
    if (r.status !== 200 || !Array.isArray(r.json?.[field])) return { ok: false, items, responses };
    items.push(...r.json[field]);
    token = r.json.page_token ?? null;
    if (token === null || r.json[field].length === 0) return { ok: true, items, responses };
  }
  return { ok: false, items, responses };
}

// All clients at once: fn(client index) for every client, issued in one tick.
const race = (fn) => Promise.all(Array.from({ length: CLIENTS }, (_, c) => fn(c)));
// One request per server (client 0 → A, client 1 → B).
const both = (fn) => Promise.all([fn(0), fn(1)]);

// The HTTP status that goes with each error code the races may see.
const STATUS_OF = { 1: 404, 2: 409, 3: 409, 4: 404, 5: 409, 14: 409 };
const isError = (r, codes) =>
  typeof r.json?.code === "number" && codes.includes(r.json.code) && r.status === STATUS_OF[r.json.code];
const isOk = (r) => r.status === 200 && r.json !== null && typeof r.json === "object";

// Exactly one 200 and every other response an error with one of `loserCodes` (and its status).
// Returns the winner (or null).
function oneWinner(label, rs, loserCodes) {
  const winners = rs.filter(isOk);
  const bad = rs.filter((r) => !isOk(r) && !isError(r, loserCodes));
  const ok = winners.length === 1 && bad.length === 0;
  let detail = `${winners.length} × 200`;
  if (bad.length) detail += `; unexpected: ${showAll(bad)}`;
  if (winners.length !== 1) detail += `; all: ${showAll(rs)}`;
  check(`${label}: exactly one 200, the rest ${loserCodes.map((k) => `${STATUS_OF[k]} code ${k}`).join(" or ")}`,
        ok, detail);
  return winners.length === 1 ? winners[0] : null;
}

// Describes `id` on both servers; checks both return `location` (or, with location null, both
// answer 404 code 4).
async function describedOnBoth(label, id, location) {
  const rs = await both((c) => describe(c, id));
  if (location === null) {
    check(`${label}: both servers answer 404 code 4`, rs.every((r) => isError(r, [4])), showAll(rs));
  } else {
    check(`${label}: both servers describe it at ${location}`,
          rs.every((r) => r.status === 200 && r.json?.location === location), showAll(rs));
  }
}

// Files (not directories) under an absolute location; 0 when it is gone.
function filesUnder(dir) {
  if (!fs.existsSync(dir)) return 0;
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The registry on disk

function readRecords(dir) {
  const out = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || !e.name.endsWith(".json")) continue;
    const file = path.join(e.parentPath ?? e.path, e.name);
    const text = fs.readFileSync(file, "utf8");
    let body = null;
    try {
      body = JSON.parse(text);
    } catch {
      // reported by the caller
    }
    out.push({ file: path.relative(ROOT, file), text, body });
  }
  return out;
}
// Records hold scoped ids (their project first): this test works in the default project, so
// they are compared without it. The project's own record is not a namespace.
function unscoped(records) {
  return records
    .filter((x) => x.body?.kind !== "project")
    .map((x) => (Array.isArray(x.body?.id) && x.body.id[0] === "default"
                   ? { ...x, body: { ...x.body, id: x.body.id.slice(1) } }
                   : x));
}
function registryOnDisk() {
  const tables = unscoped(readRecords(path.join(ROOT, "_quiver", "tables")));
  const namespaces = unscoped(readRecords(path.join(ROOT, "_quiver", "ns")));
  const intentsDir = path.join(ROOT, "_quiver", "intents");
  const intents = fs.existsSync(intentsDir)
    ? fs.readdirSync(intentsDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
        .map((e) => path.relative(ROOT, path.join(e.parentPath ?? e.path, e.name)))
    : [];
  return { tables, namespaces, intents };
}
const key = (id) => JSON.stringify(id);
const under = (id, prefix) => prefix.length < id.length && prefix.every((p, i) => id[i] === p);

// ---------------------------------------------------------------------------------------------
// The races

const stats = { mixedDropped: 0, mixedKept: 0, mixedCreated: 0 };
const survivors = []; // ids of the tables expected to survive (for information only)

async function preliminary() {
  current = "root-level table";
  const rs = await race((c) => declare(c, ["root_shared"]));
  const w = oneWinner("declare the same root-level table", rs, [5]);
  if (w) await describedOnBoth("the root-level table", ["root_shared"], w.json?.location);
}

async function round(k) {
  const ns = [`race${k}`];
  const t = [...ns, "t"];

  current = `round ${k} create namespace`;
  oneWinner("create the same namespace", await race((c) => createNs(c, ns)), [2]);

  current = `round ${k} declare`;
  const d1 = oneWinner("declare the same table", await race((c) => declare(c, t)), [5]);
  const loc1 = d1?.json?.location ?? null;
  if (!loc1) return;
  await describedOnBoth("the declared table", t, loc1);

  current = `round ${k} rename`;
  const rr = await race((c) => rename(c, t, `renamed_${c}`));
  const rw = oneWinner("rename the table to 8 different names", rr, [14, 4]);
  if (!rw) return;
  const renamed = [...ns, `renamed_${rw.c}`];
  await describedOnBoth("the new name", renamed, loc1);
  await describedOnBoth("the old name", t, null);
  const loserNames = rr.filter((r) => r !== rw).map((r) => [...ns, `renamed_${r.c}`]);
  const ghost = [];
  for (const id of loserNames) {
    for (const r of await both((c) => describe(c, id))) if (!isError(r, [4])) ghost.push(show(r));
  }
  check("the losers' names do not exist (404 code 4 on both servers)", ghost.length === 0, ghost.join(" | "));

  current = `round ${k} re-declare old name`;
  const d2 = oneWinner("declare the old name again", await race((c) => declare(c, t)), [5]);
  const loc2 = d2?.json?.location ?? null;
  if (loc2) {
    check("the new table's location differs from the renamed table's", loc2 !== loc1, `both ${loc1}`);
    await describedOnBoth("the re-declared old name", t, loc2);
    await describedOnBoth("the renamed table (unchanged)", renamed, loc1);
  }

  current = `round ${k} drop renamed`;
  const dw = oneWinner("drop the renamed table", await race((c) => dropTable(c, renamed)), [4, 14]);
  if (dw) {
    await describedOnBoth("the dropped table", renamed, null);
    check("the dropped table's files are deleted", filesUnder(loc1) === 0, `${filesUnder(loc1)} files left in ${loc1}`);
    if (loc2) {
      await describedOnBoth("the re-declared old name (after the drop)", t, loc2);
      check("the re-declared table's files are intact", fs.existsSync(path.join(loc2, ".lance-reserved")),
            `${loc2}: ${fs.existsSync(loc2) ? fs.readdirSync(loc2).join(", ") : "missing"}`);
    }
  }
  if (loc2) survivors.push(t);

  await renameVersusDrop(k);
  await mixed(k);
}

// Not one of the single-operation races above: 4 clients rename a table (each to its own new
// name) while the other 4 drop it. Exactly one of the 8 may win; a rename that wins keeps the
// table's files, a drop that wins deletes them and leaves no renamed copy behind.
async function renameVersusDrop(k) {
  current = `round ${k} rename vs drop`;
  const ns = [`race${k}`];
  const src = [...ns, "rd"];
  const d = await declare(k % 2, src);
  check("declare the table", isOk(d), show(d));
  if (!isOk(d)) return;
  const loc = d.json.location;
  const movedOf = (c) => [...ns, `rd_moved_${c}`];
  const rs = await race((c) => (c < CLIENTS / 2 ? rename(c, src, movedOf(c).at(-1)) : dropTable(c, src)));
  oneWinner("rename and drop the same table at once", rs, [4, 14]);
  // Whatever the count of winners, each one's outcome must hold.
  const renameWins = rs.slice(0, CLIENTS / 2).filter(isOk);
  const dropWins = rs.slice(CLIENTS / 2).filter(isOk);
  if (renameWins.length + dropWins.length === 0) return;
  await describedOnBoth("the source name", src, null);
  const ghosts = [];
  for (let c = 0; c < CLIENTS / 2; c++) {
    if (renameWins.some((r) => r.c === c)) continue;
    for (const r of await both((s) => describe(s, movedOf(c)))) if (!isError(r, [4])) ghosts.push(show(r));
  }
  check("no renamed copy exists but the winner's (404 code 4 on both servers)", ghosts.length === 0, ghosts.join(" | "));
  for (const w of renameWins) {
    await describedOnBoth("the renamed table", movedOf(w.c), loc);
    check("the renamed table's files are intact", fs.existsSync(path.join(loc, ".lance-reserved")),
          `${loc}: ${fs.existsSync(loc) ? JSON.stringify(fs.readdirSync(loc)) : "missing"}; the race: ${showAll(rs)}`);
    survivors.push(movedOf(w.c));
  }
  if (renameWins.length === 0) {
    check("the dropped table's files are deleted", filesUnder(loc) === 0, `${filesUnder(loc)} files left in ${loc}`);
  }
}

// Creators 0..3 (each client one child: 0 and 2 namespaces, 1 and 3 tables; clients 0 and 2 go
// to A, 1 and 3 to B), droppers 4..7 (Restrict). Odd rounds add 0-2 ms of random jitter so that
// the drops sometimes come first.
async function mixed(k) {
  current = `round ${k} mixed`;
  const m = [`mix${k}`];
  const made = await createNs(k % 2, m);
  check("create the namespace", isOk(made), show(made));
  if (!isOk(made)) return;
  const childOf = (c) => [...m, c % 2 === 0 ? `child_ns_${c}` : `child_t_${c}`];
  const isNsChild = (c) => c % 2 === 0;
  const jitter = async () => {
    if (k % 2 === 1) await sleep(Math.floor(Math.random() * 3));
  };
  const rs = await race(async (c) => {
    await jitter();
    if (c < CLIENTS / 2) return isNsChild(c) ? createNs(c, childOf(c)) : declare(c, childOf(c));
    return dropNs(c, m, { behavior: "Restrict" });
  });
  const creates = rs.slice(0, CLIENTS / 2);
  const drops = rs.slice(CLIENTS / 2);
  const badCreates = creates.filter((r) => !isOk(r) && !isError(r, [1, 14]));
  const badDrops = drops.filter((r) => !isOk(r) && !isError(r, [1, 3, 14]));
  check("creates answer 200, 404 code 1 or 409 code 14", badCreates.length === 0, showAll(badCreates));
  check("drops answer 200, 404 code 1, 409 code 3 or 409 code 14", badDrops.length === 0, showAll(badDrops));
  const dropWins = drops.filter(isOk);
  const createWins = creates.filter(isOk);
  check("at most one drop succeeds", dropWins.length <= 1, showAll(rs));

  const nsDescribed = await both((c) => post(c, `/v1/namespace/${enc(m)}/describe`, { id: m }));
  const gone = nsDescribed.every((r) => isError(r, [1]));
  const present = nsDescribed.every(isOk);
  check("both servers agree whether the namespace exists", gone || present, showAll(nsDescribed));
  const disk = registryOnDisk();
  const diskUnder = [...disk.tables, ...disk.namespaces].filter((x) => Array.isArray(x.body?.id) && (under(x.body.id, m)));
  const diskSelf = disk.namespaces.filter((x) => key(x.body?.id) === key(m));

  if (gone) {
    stats.mixedDropped++;
    check("the namespace is gone: a drop reported 200", dropWins.length >= 1, showAll(rs));
    check("the namespace is gone: no create reported 200 (a 200 whose object vanished)",
          createWins.length === 0, showAll(createWins));
    const lists = await both((c) => call(c, "GET", `/v1/namespace/${enc(m)}/list`));
    const tlists = await both((c) => call(c, "GET", `/v1/namespace/${enc(m)}/table/list`));
    check("the namespace is gone: its namespace list is 404 code 1 on both servers",
          lists.every((r) => isError(r, [1])), showAll(lists));
    check("the namespace is gone: its table list is 404 code 1 on both servers",
          tlists.every((r) => isError(r, [1])), showAll(tlists));
    for (const c of [0, 1]) {
      const all = await listAll(c, "/v1/table", "tables");
      const leftovers = all.items.filter((n) => n.startsWith(`${m[0]}$`));
      check(`the namespace is gone: GET /v1/table on ${NAMES[c]} lists nothing under it`,
            all.ok && leftovers.length === 0, all.ok ? leftovers.join(", ") : showAll(all.responses));
      const roots = await listAll(c, `/v1/namespace/%24/list`, "namespaces");
      check(`the namespace is gone: the root list on ${NAMES[c]} does not have it`,
            roots.ok && !roots.items.includes(m[0]), roots.ok ? "" : showAll(roots.responses));
    }
    check("the namespace is gone: no record under it (or of it) on disk",
          diskUnder.length === 0 && diskSelf.length === 0,
          [...diskSelf, ...diskUnder].map((x) => `${x.file}: ${clip(x.text.replace(/\s+/g, " "), 300)}`).join(" | "));
  } else if (present) {
    stats.mixedKept++;
    check("the namespace exists: no drop reported 200", dropWins.length === 0, showAll(dropWins));
    check("the namespace exists: its record is not left marked as dropping",
          diskSelf.length === 1 && diskSelf[0].body?.dropping_since === undefined,
          `${diskSelf.map((x) => `${x.file}: ${clip(x.text.replace(/\s+/g, " "), 300)}`).join(" | ")}; the race: ${showAll(rs)}`);
    // Exactly the children whose create got 200 exist.
    const wrong = [];
    for (let c = 0; c < CLIENTS / 2; c++) {
      const id = childOf(c);
      const shouldExist = isOk(creates[c]);
      const rs2 = await both((s) => isNsChild(c) ? post(s, `/v1/namespace/${enc(id)}/describe`, { id }) : describe(s, id));
      for (const r of rs2) {
        const exists = isOk(r);
        const missing = isError(r, isNsChild(c) ? [1] : [4]);
        if (shouldExist ? !exists : !missing) wrong.push(`create ${show(creates[c])} ; then ${show(r)}`);
      }
      const onDisk = diskUnder.filter((x) => key(x.body.id) === key(id)).length;
      if (onDisk !== (shouldExist ? 1 : 0)) wrong.push(`${id.join("$")}: ${onDisk} records on disk after ${show(creates[c])}`);
      if (shouldExist) {
        stats.mixedCreated++;
        if (!isNsChild(c)) survivors.push(id);
      }
    }
    check("the namespace exists: exactly the children whose create got 200 exist (both servers, disk)",
          wrong.length === 0, wrong.join(" | "));
    check("the namespace exists: nothing else on disk under it",
          diskUnder.length === createWins.length, diskUnder.map((x) => x.file).join(", "));
    // The namespace stays usable: a table declared in it afterwards (through each server).
    const later = await both((c) => declare(c, [...m, `after_${c}`]));
    check("the namespace exists: a table can be declared in it afterwards (both servers)",
          later.every(isOk), showAll(later));
    for (const r of later) if (isOk(r)) survivors.push([...m, `after_${r.c}`]);
  }
}

// ---------------------------------------------------------------------------------------------
// After the races

async function finalScan() {
  current = "registry on disk";
  const disk = registryOnDisk();
  const unreadable = [...disk.tables, ...disk.namespaces].filter((x) => !x.body || !Array.isArray(x.body.id));
  check(`every record parses with an id array (${disk.tables.length} tables, ${disk.namespaces.length} namespaces)`,
        unreadable.length === 0, unreadable.map((x) => `${x.file}: ${clip(x.text, 200)}`).join(" | "));
  const tables = disk.tables.filter((x) => x.body && Array.isArray(x.body.id));
  const namespaces = disk.namespaces.filter((x) => x.body && Array.isArray(x.body.id));

  const byLocation = new Map();
  for (const x of tables) {
    const l = x.body.location;
    if (!byLocation.has(l)) byLocation.set(l, []);
    byLocation.get(l).push(x);
  }
  const shared = [...byLocation.entries()].filter(([, xs]) => xs.length > 1);
  check("no two table records share a location", shared.length === 0,
        shared.map(([l, xs]) => `${l}: ${xs.map((x) => `${x.file} ${clip(x.text, 300)}`).join(" ; ")}`).join(" | "));
  const noLoc = tables.filter((x) => typeof x.body.location !== "string" || !x.body.location);
  check("every table record has a location", noLoc.length === 0, noLoc.map((x) => `${x.file}: ${clip(x.text.replace(/\s+/g, " "), 300)}`).join(" | "));

  const notActive = [...tables, ...namespaces].filter((x) => (x.body.kind === "table" || "state" in x.body) && x.body.state !== "active");
  check("every record's state is active", notActive.length === 0,
        notActive.map((x) => `${x.file}: ${clip(x.text.replace(/\s+/g, " "), 300)}`).join(" | "));
  const dropping = namespaces.filter((x) => "dropping_since" in x.body);
  check("no namespace record is left marked as dropping", dropping.length === 0,
        dropping.map((x) => `${x.file}: ${clip(x.text.replace(/\s+/g, " "), 300)}`).join(" | "));

  const nsKeys = new Set(namespaces.map((x) => key(x.body.id)));
  const orphanTables = tables.filter((x) => x.body.id.length > 1 && !nsKeys.has(key(x.body.id.slice(0, -1))));
  check("every table record's namespace record exists", orphanTables.length === 0,
        orphanTables.map((x) => `${x.file}: ${clip(x.text.replace(/\s+/g, " "), 300)}`).join(" | "));
  const orphanNs = namespaces.filter((x) => x.body.id.length > 1 && !nsKeys.has(key(x.body.id.slice(0, -1))));
  check("every namespace record's parent namespace record exists", orphanNs.length === 0,
        orphanNs.map((x) => `${x.file}: ${clip(x.text.replace(/\s+/g, " "), 300)}`).join(" | "));
  const dupIds = (xs) => xs.map((x) => key(x.body.id)).filter((k, i, a) => a.indexOf(k) !== i);
  check("one record per id", dupIds(tables).length === 0 && dupIds(namespaces).length === 0,
        [...dupIds(tables), ...dupIds(namespaces)].join(", "));
  const clash = tables.filter((x) => nsKeys.has(key(x.body.id)));
  check("no table and namespace share an id", clash.length === 0, clash.map((x) => x.file).join(", "));

  check("_quiver/intents/ is empty", disk.intents.length === 0,
        disk.intents.map((f) => `${f}: ${clip(fs.readFileSync(path.join(ROOT, f), "utf8"), 300)}`).join(" | "));

  // Files at locations that no table owns (what a rejected declare or a drop left behind).
  const owned = new Set(tables.map((x) => x.body.location));
  const strays = [];
  for (const e of fs.readdirSync(ROOT, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name === "_quiver" || e.name.startsWith(".")) continue;
    if (owned.has(e.name)) continue;
    const n = filesUnder(path.join(ROOT, e.name));
    if (n > 0) strays.push(`${e.name} (${n} files: ${fs.readdirSync(path.join(ROOT, e.name)).join(", ")})`);
  }
  check("no files at a location that no table record owns", strays.length === 0, strays.join(" | "));
  const missingLoc = tables.filter((x) => !fs.existsSync(path.join(ROOT, x.body.location, ".lance-reserved")));
  check("every table's location holds its .lance-reserved marker", missingLoc.length === 0,
        missingLoc.map((x) => `${x.file} → ${x.body.location}`).join(" | "));

  current = "listings vs disk";
  const expectedAll = tables.map((x) => x.body.id.join("$")).sort();
  const nsIds = [[], ...namespaces.map((x) => x.body.id)];
  for (const c of [0, 1]) {
    const all = await listAll(c, "/v1/table", "tables");
    const got = [...all.items].sort();
    check(`${NAMES[c]}: GET /v1/table equals the table records (${expectedAll.length})`,
          all.ok && JSON.stringify(got) === JSON.stringify(expectedAll),
          all.ok ? `only listed: ${got.filter((n) => !expectedAll.includes(n)).join(", ")}; only on disk: ${expectedAll.filter((n) => !got.includes(n)).join(", ")}`
                 : showAll(all.responses));
    const wrongT = [];
    const wrongN = [];
    for (const id of nsIds) {
      const wantT = tables.filter((x) => key(x.body.id.slice(0, -1)) === key(id)).map((x) => x.body.id.at(-1)).sort();
      const wantN = namespaces.filter((x) => key(x.body.id.slice(0, -1)) === key(id)).map((x) => x.body.id.at(-1)).sort();
      const lt = await listAll(c, `/v1/namespace/${enc(id)}/table/list`, "tables");
      const ln = await listAll(c, `/v1/namespace/${enc(id)}/list`, "namespaces");
      if (!lt.ok || JSON.stringify([...lt.items].sort()) !== JSON.stringify(wantT)) {
        wrongT.push(`${id.join("$") || "(root)"}: listed ${JSON.stringify(lt.items)}, on disk ${JSON.stringify(wantT)}${lt.ok ? "" : ` ${showAll(lt.responses)}`}`);
      }
      if (!ln.ok || JSON.stringify([...ln.items].sort()) !== JSON.stringify(wantN)) {
        wrongN.push(`${id.join("$") || "(root)"}: listed ${JSON.stringify(ln.items)}, on disk ${JSON.stringify(wantN)}${ln.ok ? "" : ` ${showAll(ln.responses)}`}`);
      }
    }
    check(`${NAMES[c]}: every namespace's table list equals its table records (${nsIds.length} namespaces)`,
          wrongT.length === 0, wrongT.join(" | "));
    check(`${NAMES[c]}: every namespace's namespace list equals its child records`, wrongN.length === 0, wrongN.join(" | "));
  }
  const expectedSet = new Set(expectedAll);
  const missingSurvivors = survivors.map((id) => id.join("$")).filter((n) => !expectedSet.has(n));
  check(`every table the races left standing has a record (${survivors.length})`, missingSurvivors.length === 0,
        missingSurvivors.join(", "));
  return tables.map((x) => x.body.id);
}

// LanceDB writes every surviving (declared-only) table through A and reads it back through B.
async function lancedbRoundTrip(ids) {
  current = "LanceDB";
  const dbA = await lancedb.connectNamespace("rest", { uri: servers[0].url });
  const dbB = await lancedb.connectNamespace("rest", { uri: servers[1].url });
  const bad = [];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const i = next++;
      const id = ids[i];
      const ns = id.slice(0, -1);
      const name = id.at(-1);
      const n = 1 + (i % 7);
      const data = Array.from({ length: n }, (_, r) => ({ id: r, text: `${id.join("$")} row ${r}` }));
      try {
        const written = await dbA.createTable(name, data, ns);
        const wrote = await written.countRows();
        const opened = await dbB.openTable(name, ns);
        const read = await opened.countRows();
        if (wrote !== n || read !== n) bad.push(`${id.join("$")}: wrote ${n}, A counts ${wrote}, B counts ${read}`);
      } catch (e) {
        bad.push(`${id.join("$")}: ${String(e?.message ?? e).split("\n")[0].slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  check(`every surviving table (${ids.length}) is created through A by LanceDB and opens through B with its rows`,
        ids.length > 0 && bad.length === 0, bad.slice(0, 20).join(" | "));
  try {
    dbA.close();
    dbB.close();
  } catch {
    // ignore
  }
}

// ---------------------------------------------------------------------------------------------

const started = Date.now();
try {
  for (const name of NAMES) {
    const s = startQuiverServe(quiver, ["serve", "--root", ROOT, "--listen", "127.0.0.1:0"], {
      logFile: path.join(space.work, `server-${name}.log`),
      startupTimeoutMs: STARTUP_TIMEOUT_MS,
    });
    servers.push(s);
  }
  for (const [i, s] of servers.entries()) {
    try {
      await s.ready;
      check(`server ${NAMES[i]} listens (${s.url})`, true);
    } catch (e) {
      check(`server ${NAMES[i]} starts and prints its URL`, false,
            `${e.message}\n  command: ${quiver} ${s.args.join(" ")}\n  stdout: ${s.out}\n  stderr: ${s.err}`);
      throw e;
    }
  }
  check("the two servers listen on different ports", servers[0].url !== servers[1].url, servers.map((s) => s.url).join(" "));

  await preliminary();
  for (let k = 0; k < ROUNDS; k++) {
    const t0 = Date.now();
    try {
      await round(k);
    } catch (e) {
      check("threw", false, String(e?.stack ?? e).slice(0, 600));
    }
    if (process.env.QV_VERBOSE) console.error(`round ${k}: ${Date.now() - t0} ms`);
    const dead = servers.filter((s) => s.exited);
    if (dead.length) {
      check("both servers still running", false, dead.map((s) => JSON.stringify(s.exited)).join(" "));
      break;
    }
  }
  current = "mixed races";
  console.log(`(mixed races: the drop won ${stats.mixedDropped} times, the creates ${stats.mixedKept} times, ` +
              `${stats.mixedCreated} children created)`);

  const ids = await finalScan();
  await lancedbRoundTrip(ids);
} catch (e) {
  if (!String(e?.message).includes("listening")) check("threw", false, String(e?.stack ?? e).slice(0, 600));
} finally {
  current = "shutdown";
  const rs = await Promise.all(servers.map((s) => stopQuiverServe(s, { timeoutMs: SHUTDOWN_TIMEOUT_MS })));
  rs.forEach((r, i) => {
    if (r && servers[i].url) check(`server ${NAMES[i]}: SIGTERM → exit code 0`, stoppedCleanly(r), JSON.stringify(r));
  });
  if (failures > 0) {
    for (const [i, s] of servers.entries()) {
      const lines = s.err.split("\n");
      console.error(`--- server ${NAMES[i]} stderr (last ${Math.min(lines.length, 80)} of ${lines.length} lines) ---\n` +
                    `${lines.slice(-80).join("\n")}\n--- end ---`);
    }
  }
  console.log(`(${ROUNDS} rounds, ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  finishScratch(space);
  report.finish();
}
