// Live-update benchmark in the browser: the real bridge serves a copy of a repository, the real
// UI in headless Chromium indexes it, then files are edited on disk and an MCP client (through a
// second bridge, a peer) asks `cypher` until the change shows.
//
// Usage: node tests/js/live-bench.mjs --repo DIR [--ui DIST] [--bridge BIN] [--port N]
//        [--edits 50] [--batch 200] [--closed 20]
//   --edits N   N single-file edits (a function appended to files from the smallest to the
//               largest): save → first answer showing it, p50/p95, and the tab's own update time
//               (then the bytes the save after them wrote)
//   --batch N   then N files edited at once: save → all shown
//   --closed N  then close the tab, edit N files, open it again: page open → "Restored" with the
//               changes applied, against a full index of the same folder in a fresh profile
// Prints figures on stdout; the bridge's logs go to stderr.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startHub } from "./harness.mjs";

const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
};
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const port = Number(opt("port", "54392"));
const ui = path.resolve(opt("ui", path.join(root, "target/dist-release")));
const bridge = path.resolve(opt("bridge", path.join(root, "target/release/nexus-bridge")));
const source = opt("repo", "");
const edits = Number(opt("edits", "50"));
const batch = Number(opt("batch", "200"));
const closed = Number(opt("closed", "20"));
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
if (!source) {
  console.error("usage: live-bench.mjs --repo DIR [--edits N] [--batch N] [--closed N]");
  process.exit(2);
}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-live-bench-"));
const repo = path.join(tmp, path.basename(source));
fs.cpSync(source, repo, { recursive: true });

const pct = (values, p) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round((s.length - 1) * p))] ?? 0;
};

/// Python files of the copy, smallest first.
function pythonFiles() {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".py")) out.push([path.relative(repo, p), fs.statSync(p).size]);
    }
  };
  walk(repo);
  return out.sort((a, b) => a[1] - b[1]);
}

const hub = await startHub({ bridge, ui, port, repo, tmp });
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
let client;
const text = (r) => r.content.map((c) => c.text || "").join("\n");
const statusOf = (page) => page.evaluate(() => document.querySelector('[data-testid="load-status"]')?.textContent || "");

async function seen(query, accept, since, bound = 30_000) {
  while (performance.now() - since < bound) {
    const r = await client.callTool({ name: "cypher", arguments: { query } });
    if (!r.isError && accept(text(r))) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`not seen within ${bound} ms: ${query}`);
}

try {
  const { secret } = hub;
  if (!secret) throw new Error("the hub did not start");
  const context = await browser.newContext();
  let page = await context.newPage();
  const url = `http://127.0.0.1:${port}/?token=${secret}`;
  let t = performance.now();
  await page.goto(url);
  await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 600_000 });
  const fullMs = performance.now() - t;
  console.log(`full index: page open → indexed ${fullMs.toFixed(0)} ms (${await statusOf(page)})`);
  await page.waitForFunction(() => /saved to browser storage/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 600_000 });
  client = new Client({ name: "live-bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: bridge, args: ["--port", String(port)], env: { ...process.env, XDG_RUNTIME_DIR: tmp }, stderr: "ignore" }));

  const files = pythonFiles();
  const latencies = [];
  const tabMs = [];
  // Each edit's phases as the tab reports them ("parse 3, resolve 40, …"), and what no phase covers.
  const phaseMs = new Map();
  const addPhase = (name, ms) => phaseMs.set(name, [...(phaseMs.get(name) ?? []), ms]);
  for (let k = 0; k < edits; k++) {
    const [file] = files[Math.floor((k * (files.length - 1)) / Math.max(1, edits - 1))];
    const name = `nexus_live_edit_${k}`;
    const before = await page.evaluate(() => window.__nexusApplied?.seq ?? 0);
    t = performance.now();
    fs.appendFileSync(path.join(repo, file), `\n\ndef ${name}():\n    return len([])\n`);
    latencies.push(await seen(`MATCH (f:Function {name: '${name}'}) RETURN f.id`, (a) => a.includes(name), t));
    await page.waitForFunction((b) => (window.__nexusApplied?.seq ?? 0) > b, before, { timeout: 30_000 });
    const applied = await page.evaluate(() => ({ ms: window.__nexusApplied.ms, phases: window.__nexusApplied.phases }));
    tabMs.push(applied.ms);
    let covered = 0;
    for (const part of applied.phases.split(", ").filter(Boolean)) {
      const at = part.lastIndexOf(" ");
      const ms = Number(part.slice(at + 1));
      const name = part.slice(0, at);
      // A phase's parts ("resolve/calls") are within it.
      if (!name.includes("/")) covered += ms;
      addPhase(name, ms);
    }
    addPhase("(no phase)", Math.max(0, applied.ms - covered));
    // Let the picture, the vectors and the save settle, as between an agent's edits.
    await new Promise((r) => setTimeout(r, 300));
  }
  console.log(`${edits} single-file edits: save → first answer showing it p50 ${pct(latencies, 0.5).toFixed(0)} ms, p95 ${pct(latencies, 0.95).toFixed(0)} ms; the tab's update p50 ${pct(tabMs, 0.5).toFixed(0)} ms, p95 ${pct(tabMs, 0.95).toFixed(0)} ms`);
  for (const [phase, values] of phaseMs) {
    console.log(`  ${phase.padEnd(20)} p50 ${pct(values, 0.5).toFixed(1).padStart(6)} ms, p95 ${pct(values, 0.95).toFixed(1).padStart(6)} ms`);
  }
  console.log(`  last update's phases: ${await page.evaluate(() => window.__nexusApplied.phases)}`);
  // The save after the last edit (a burst of edits saves once, after a pause).
  const editsEnd = await page.evaluate(() => Date.now());
  await page.waitForFunction((t) => (window.__nexusSaved?.at ?? 0) > t, editsEnd, { timeout: 30_000 }).catch(() => {});
  const save = await page.evaluate(() => window.__nexusSaved ?? null);
  console.log(`  the save after them: ${save ? `${save.saved ? "" : "FAILED, "}${save.bytes} bytes written in ${save.ms.toFixed(0)} ms` : "none seen"}`);

  if (batch > 0) {
    const chosen = files.filter((_, i) => i % Math.max(1, Math.floor(files.length / batch)) === 0).slice(0, batch);
    t = performance.now();
    chosen.forEach(([file], i) => fs.appendFileSync(path.join(repo, file), `\n\ndef nexus_batch_${i}():\n    return 1\n`));
    const ms = await seen("MATCH (f:Function) WHERE f.name STARTS WITH 'nexus_batch_' RETURN count(f) AS n", (a) => new RegExp(`\\b${chosen.length}\\b`).test(a), t, 120_000);
    console.log(`a batch of ${chosen.length} files: save → all shown ${ms.toFixed(0)} ms (tab: ${(await page.evaluate(() => window.__nexusApplied.ms)).toFixed(0)} ms)`);
  }

  if (closed > 0) {
    await page.waitForFunction(() => /saved to browser storage/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 120_000 }).catch(() => {});
    await new Promise((r) => setTimeout(r, 2500));
    await page.close();
    for (let i = 0; i < closed; i++) {
      const [file] = files[files.length - 1 - i * 3];
      fs.appendFileSync(path.join(repo, file), `\n\ndef nexus_closed_${i}():\n    return 1\n`);
    }
    page = await context.newPage();
    t = performance.now();
    await page.goto(url);
    await page.waitForFunction(() => /changed on disk since/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 300_000 });
    const reopenMs = performance.now() - t;
    await seen("MATCH (f:Function) WHERE f.name STARTS WITH 'nexus_closed_' RETURN count(f) AS n", (a) => new RegExp(`\\b${closed}\\b`).test(a), performance.now());
    console.log(`reopened after ${closed} files changed while closed: page open → restored with the changes applied ${reopenMs.toFixed(0)} ms, against a full index ${fullMs.toFixed(0)} ms (${await statusOf(page)})`);
  }
} catch (err) {
  console.error(hub.log().split("\n").slice(-20).join("\n"));
  console.error(`live-bench: ${err.message}`);
  process.exitCode = 1;
} finally {
  if (client) await client.close().catch(() => {});
  await browser.close();
  hub.process.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
