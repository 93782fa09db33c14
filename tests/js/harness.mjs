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
/// it answers and its browser secret is written. `log()` is what the hub wrote to stderr so far.
/// (`/api/*` takes the api token a tab gets after the proof, not the secret: a page reads it from
/// `sessionStorage["nexus-api-token"]`.)
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
      await fetch(`http://127.0.0.1:${port}/api/repo`);
    } catch {
      secret = "";
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { process: hub, secret, log: () => log };
}

/// A grep pattern whose scan is slow on long runs of words (its lazy DFA thrashes and the regex
/// engine falls back to a slower one; no literal lets it skip ahead): about 40 ms per 19 KB of
/// `wordsText` natively, so grep over a few hundred KB runs into its 2 s budget.
export const COSTLY_GREP = "(?:[a-z ]*a[a-z ]{300}){2}[0-9]";

/// `lines` lines of `perLine` words in a varied order (a repeating text would let the regex engine
/// cache its few states), the same for the same `seed`.
export function wordsText(lines, perLine, seed = 42) {
  const words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon".split(" ");
  const word = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return words[Math.floor(seed / 65536) % words.length];
  };
  return Array.from({ length: lines }, () => Array.from({ length: perLine }, word).join(" ")).join("\n");
}
