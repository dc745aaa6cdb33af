// Shared plumbing of the check_*.mjs interop scripts: argument parsing, the one-line-per-check
// report with its closing "N passed, N failed", running the quiver binary, scratch copies
// of fixtures, and starting / stopping `quiver serve` child processes.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Parses `<quiver binary> <fixtures dir> [extra...]`; exits 2 with `usage` when they are missing.
export function parseArgs(usage) {
  const [quiver, dir, ...rest] = process.argv.slice(2);
  if (!quiver || !dir) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  return { quiver, dir, rest };
}

export function createReport() {
  let passed = 0;
  let failed = 0;
  return {
    check(label, ok, detail) {
      if (ok) passed++;
      else failed++;
      console.log(`${ok ? "ok  " : "FAIL"}  ${label}${!ok && detail ? ": " + detail : ""}`);
    },
    // Prints the closing line and exits 0 only if every check passed.
    finish() {
      console.log(`${passed} passed, ${failed} failed`);
      process.exit(failed === 0 ? 0 : 1);
    },
  };
}

// Runs quiver synchronously: {ok, out} with stdout on success and stderr on failure.
export function quiverRunner(quiver) {
  return (...args) => {
    try {
      return { ok: true, out: execFileSync(quiver, args, { encoding: "utf8", stdio: "pipe" }) };
    } catch (e) {
      return { ok: false, out: String(e.stderr) };
    }
  };
}

// A scratch directory (removed by cleanup()) and copies of fixtures inside it.
export function scratch(prefix) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return {
    work,
    copy(dir, name, { as = name, preserveTimestamps = false } = {}) {
      const to = path.join(work, `${as}.lance`);
      fs.cpSync(path.join(dir, `${name}.lance`), to, { recursive: true, preserveTimestamps });
      return to;
    },
    cleanup() {
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// `quiver serve` as a child process.

const liveServers = new Set();
let exitHookInstalled = false;

// Starts `<quiver> <args...>` (normally `serve --root R --listen 127.0.0.1:0 ...`) and returns
// its handle at once: {child, args, url, out, err, exited, exitPromise, ready}. `ready` resolves
// to the handle once stdout has a complete line with `listening on http://...` (url is then set),
// and rejects when that line does not come within `startupTimeoutMs`, or the process cannot be
// started or exits first. stdout and stderr accumulate in `out` and `err` (stderr is also written
// to `logFile` when given). A process still running when node exits is killed with SIGKILL.
export function startQuiverServe(quiver, args, { logFile = null, startupTimeoutMs = 20_000 } = {}) {
  const child = spawn(quiver, args, { stdio: ["ignore", "pipe", "pipe"] });
  const s = { child, args, url: null, out: "", err: "", exited: null, exitPromise: null, ready: null };
  liveServers.add(s);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const x of liveServers) if (!x.exited) x.child.kill("SIGKILL");
    });
  }
  const log = logFile ? fs.createWriteStream(logFile) : null;
  child.stderr.on("data", (d) => {
    s.err += d;
    log?.write(d);
  });
  s.exitPromise = new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      s.exited = { code, signal };
      liveServers.delete(s);
      log?.end();
      resolve(s.exited);
    });
  });
  s.ready = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on http://..." line within ${startupTimeoutMs / 1000} s`)),
      startupTimeoutMs,
    );
    child.stdout.on("data", (d) => {
      s.out += d;
      if (s.url) return;
      const complete = s.out.slice(0, s.out.lastIndexOf("\n") + 1);
      const m = /listening on (http:\/\/[^\s/]+)/.exec(complete);
      if (m) {
        s.url = m[1];
        clearTimeout(timer);
        resolve(s);
      }
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot start ${quiver}: ${e.message}`));
    });
    s.exitPromise.then(({ code, signal }) => {
      clearTimeout(timer);
      if (!s.url) reject(new Error(`server exited (code ${code}, signal ${signal}) before listening`));
    });
  });
  s.ready.catch(() => {}); // callers that never await `ready` must not see an unhandled rejection
  return s;
}

// SIGTERM, then waits up to `timeoutMs`; SIGKILL if it has not exited by then.
// Returns {code, signal, timedOut, alreadyExited?}; null for no server.
export async function stopQuiverServe(s, { timeoutMs = 15_000 } = {}) {
  if (!s) return null;
  if (s.exited) return { ...s.exited, timedOut: false, alreadyExited: true };
  s.child.kill("SIGTERM");
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  const r = await Promise.race([s.exitPromise, timeout]);
  clearTimeout(timer);
  if (r) return { ...r, timedOut: false };
  s.child.kill("SIGKILL");
  await s.exitPromise;
  return { ...s.exited, timedOut: true };
}

// True when a stopQuiverServe result is a clean shutdown: exited on our SIGTERM with code 0.
export function stoppedCleanly(r) {
  return !!r && !r.alreadyExited && !r.timedOut && r.code === 0 && r.signal === null;
}

// Removes a scratch area unless QV_KEEP_SCRATCH is set (then says where it is).
export function finishScratch(space) {
  if (process.env.QV_KEEP_SCRATCH) {
    console.error(`scratch kept: ${space.work}`);
    return;
  }
  try {
    space.cleanup();
  } catch (e) {
    console.error(`cannot remove ${space.work}: ${e.message}`);
  }
}
