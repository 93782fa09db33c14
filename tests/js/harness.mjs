// What the browser drivers share: their command-line flags, one line per check, and a hub started
// with `nexus-bridge serve` whose browser secret is read once it answers.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/// `--name value` pairs of the command line.
export const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);

export function fail(message) {
  throw new Error(message);
}

/// Runs one check and prints `ok  NAME (MS ms)`; a failure throws.
export async function check(name, fn) {
  const started = Date.now();
  await fn();
  console.log(`ok  ${name} (${Date.now() - started} ms)`);
}

/// Starts `nexus-bridge serve` on `port` for `repo` with its token files in `tmp`, and waits until
/// `/api/repo` answers with the browser secret. `log()` is what the hub wrote to stderr so far.
export async function startHub({ bridge, ui, port, repo, tmp, env = {} }) {
  const hub = spawn(bridge, ["serve", "--port", String(port), "--repo", repo], {
    env: { ...process.env, NEXUS_UI_DIR: ui, XDG_RUNTIME_DIR: tmp, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  hub.stderr.on("data", (d) => (log += d));
  let secret = "";
  for (let i = 0; i < 100 && !secret; i++) {
    try {
      secret = fs.readFileSync(path.join(tmp, "nexus", "browser-token"), "utf8").trim();
      await fetch(`http://127.0.0.1:${port}/api/repo`, { headers: { "X-Nexus-Token": secret } });
    } catch {
      secret = "";
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { process: hub, secret, log: () => log };
}
