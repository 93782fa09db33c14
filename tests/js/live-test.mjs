// The graph follows the disk, in real headless Chromium with the real bridge: a function appended
// to a file, a new file, a rename, a deletion, a burst of 100 new files, a file that becomes a
// secret and one that grows past the size cap are each seen by an MCP client's `cypher` within
// the bound; changes made while the tab was closed are applied when it opens again; `diff` with
// `base` compares the working tree with git HEAD.
//
// Usage: node tests/js/live-test.mjs --ui DIST --bridge BIN --port N [--repo IGNORED] [--bound MS]
// Builds its own repository in a temporary folder; prints one line per check (with the time each
// change took to show) and exits non-zero on the first failure.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { args, check, fail, startHub } from "./harness.mjs";

const port = Number(args.port || 54393);
// How long a change may take to show in answers. The target is a second; the bound leaves room
// for a loaded CI machine running a debug build.
const bound = Number(args.bound || 8000);
const hubOrigin = `http://127.0.0.1:${port}`;
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-live-test-"));
const repo = path.join(tmp, "proj");
const write = (file, text) => {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), text);
};
write("app/util.py", "def helper():\n    return 1\n");
write("app/main.py", "from app.util import helper\n\ndef main():\n    return helper()\n");
write("app/old.py", "def doomed():\n    return 0\n");
write("README.md", "# proj\n");
const git = (...a) => execFileSync("git", ["-C", repo, ...a], { stdio: "ignore", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" } });
git("init", "-q");
git("add", "-A");
git("commit", "-qm", "start");

const hub = await startHub({ bridge: args.bridge, ui: args.ui, port, repo, tmp });
const { secret } = hub;
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
let client;
const text = (r) => r.content.map((c) => c.text || "").join("\n");

/// Runs `query` until `accept(answer)` holds; fails after `bound` ms. Returns the milliseconds
/// from `since` (when the file was written) to the first accepted answer.
async function seen(query, accept, since) {
  let last = "";
  while (performance.now() - since < bound) {
    const r = await client.callTool({ name: "cypher", arguments: { query } });
    last = text(r);
    if (!r.isError && accept(last)) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 50));
  }
  fail(`not seen within ${bound} ms: ${query}\nlast answer: ${last}\nhub log: ${hub.log().split("\n").slice(-15).join("\n")}`);
}

try {
  if (!secret) fail("the hub did not start");
  const context = await browser.newContext();
  let page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const status = () => page.locator('[data-testid="load-status"]').textContent();

  await check("the served folder is indexed and an agent connects", async () => {
    await page.goto(`${hubOrigin}/?token=${secret}`);
    await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 120_000 });
    client = new Client({ name: "live-test-agent", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: args.bridge, args: ["--port", String(port)], env: { ...process.env, XDG_RUNTIME_DIR: tmp }, stderr: "ignore" }));
    await seen("MATCH (f:Function {name: 'helper'}) RETURN f.name", (a) => a.includes("helper"), performance.now());
  });

  const times = [];
  await check("a function appended to a file shows with its call edge", async () => {
    const t = performance.now();
    fs.appendFileSync(path.join(repo, "app/util.py"), "\n\ndef added_later():\n    return helper()\n");
    times.push(await seen("MATCH (a:Function {name: 'added_later'})-[:CALLS]->(b {name: 'helper'}) RETURN a.name", (a) => a.includes("added_later"), t));
  });

  await check("a new file shows, its import resolved", async () => {
    const t = performance.now();
    write("app/extra.py", "from app.util import added_later\n\ndef extra():\n    return added_later()\n");
    times.push(await seen("MATCH (a:Function {name: 'extra'})-[:CALLS]->(b {name: 'added_later'}) RETURN a.id", (a) => a.includes("app/extra.py:extra"), t));
  });

  await check("a renamed file moves: the new path answers, the old one is gone", async () => {
    const t = performance.now();
    fs.renameSync(path.join(repo, "app/extra.py"), path.join(repo, "app/moved.py"));
    times.push(await seen("MATCH (f:Function {name: 'extra'}) RETURN f.id", (a) => a.includes("app/moved.py:extra") && !a.includes("app/extra.py"), t));
  });

  await check("a deleted file leaves the graph", async () => {
    const t = performance.now();
    fs.rmSync(path.join(repo, "app/old.py"));
    times.push(await seen("MATCH (f:File) RETURN f.path", (a) => a.includes("app/util.py") && !a.includes("app/old.py"), t));
  });

  await check("a burst of 100 new files arrives whole", async () => {
    const t = performance.now();
    for (let i = 0; i < 100; i++) write(`app/burst/m${i}.py`, `from app.util import helper\n\ndef burst_${i}():\n    return helper()\n`);
    const ms = await seen("MATCH (f:Function) WHERE f.name STARTS WITH 'burst_' RETURN count(f) AS n", (a) => /\b100\b/.test(a), t);
    console.log(`    100 files shown in ${ms.toFixed(0)} ms`);
  });

  await check("a file renamed to a secret and a file grown past the cap leave the graph and grep", async () => {
    write("app/keys.py", "def api_keys():\n    return 'NEXUS_LIVE_SECRET_VALUE'\n");
    await seen("MATCH (f:Function {name: 'api_keys'}) RETURN f.name", (a) => a.includes("api_keys"), performance.now());
    const t = performance.now();
    fs.renameSync(path.join(repo, "app/keys.py"), path.join(repo, ".env"));
    fs.appendFileSync(path.join(repo, "app/moved.py"), "#".repeat(1_100_000) + "\n");
    await seen("MATCH (f:Function) WHERE f.name IN ['api_keys', 'extra'] RETURN f.name", (a) => !a.includes("api_keys") && !a.includes("extra"), t);
    const grep = text(await client.callTool({ name: "grep", arguments: { pattern: "NEXUS_LIVE_SECRET_VALUE" } }));
    if (!/— 0 matches/.test(grep)) fail(`the secret's text is still served: ${grep}`);
  });

  await check("diff with base HEAD names what changed since the commit", async () => {
    const r = await client.callTool({ name: "diff", arguments: { base: "HEAD", limit: 200, max_tokens: 20000 } });
    const answer = text(r);
    if (r.isError || !/added_later/.test(answer) || !/deleted Function `Function:app\/old.py:doomed`/.test(answer) || !/vs HEAD \([0-9a-f]{7}\)/.test(answer)) fail(`diff: ${answer.slice(0, 800)}`);
  });

  await check("changes made while the tab was closed are applied when it opens again", async () => {
    await page.close();
    write("app/util.py", "def helper():\n    return 2\n\ndef while_closed():\n    return helper()\n");
    fs.rmSync(path.join(repo, "app/main.py"));
    write("app/fresh.py", "def fresh():\n    pass\n");
    page = await context.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    const t = performance.now();
    await page.goto(`${hubOrigin}/?token=${secret}`);
    await page.waitForFunction(() => /file\(s\) changed on disk since/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 60_000 });
    const ms = performance.now() - t;
    const line = await status();
    if (!/^Restored/.test(line)) fail(`not restored: ${line}`);
    await seen("MATCH (f:Function) WHERE f.name IN ['while_closed', 'fresh', 'main', 'added_later'] RETURN f.name", (a) => a.includes("while_closed") && a.includes("fresh") && !/\bmain\b/.test(a) && !a.includes("added_later"), performance.now());
    console.log(`    page open → restored with the changes applied: ${ms.toFixed(0)} ms (${line})`);
  });

  times.sort((a, b) => a - b);
  console.log(`    save → first answer showing it: ${times.map((t) => t.toFixed(0)).join(", ")} ms`);
  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("live test passed");
} catch (err) {
  console.log(hub.log().split("\n").slice(-20).join("\n"));
  console.error(`FAILED: ${err.message}`);
  process.exitCode = 1;
} finally {
  if (client) await client.close().catch(() => {});
  await browser.close();
  hub.process.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
