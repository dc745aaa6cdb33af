// HTTP helpers shared by the benchmarks that drive `quiver serve` over loopback.

import http from "node:http";

// A keep-alive pool with `sockets` connections, as a REST client with a connection pool has.
export function keepAliveAgent(sockets) {
  return new http.Agent({ keepAlive: true, maxSockets: sockets });
}

// One request; resolves with the body text when the status is `expect`, rejects otherwise.
// `key`: an API key sent as x-api-key.
export function request(agent, port, method, urlPath, body, { key, expect = 200 } = {}) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const headers = data === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(data) };
    if (key) headers["x-api-key"] = key;
    const req = http.request({ host: "127.0.0.1", port, method, path: urlPath, agent, headers }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if (res.statusCode !== expect) reject(new Error(`${method} ${urlPath} -> ${res.statusCode} (expected ${expect}) ${text.slice(0, 300)}`));
        else resolve(text);
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

// The id path segment: parts joined by the delimiter, then url-encoded (`bench$t1` -> `bench%24t1`).
export const seg = (id) => encodeURIComponent(id.join("$"));
export const Q = "delimiter=%24";

// Resolves with the port `quiver serve` (a spawned child with stdout piped) prints once it
// listens; rejects if it exits first or does not start within `timeoutMs`.
export function listeningPort(child, timeoutMs, what = "") {
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`quiver did not start in ${timeoutMs / 1000} s: ${out}${what}`)), timeoutMs);
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        child.stdout.resume();
        resolve(Number(m[1]));
      }
    });
    child.on("exit", (code) => reject(new Error(`quiver exited (${code}) before listening: ${out}${what}`)));
  });
}
