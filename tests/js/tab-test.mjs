// What the tab itself must honour, in real headless Chromium: a Cancel stops the call its engine
// worker is running (and no answer comes for it), and a picked folder's .gitignore, secrets and
// excluded folders keep files from ever being read by the page.
//
// Usage: node tests/js/tab-test.mjs --ui DIST --bridge BIN --port N [--repo IGNORED]
// Builds its own repositories in a temporary folder; prints one line per check and exits
// non-zero on the first failure.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { args, check, COSTLY_GREP, fail, startHub, wordsText } from "./harness.mjs";

const port = Number(args.port || 54394);
const hubOrigin = `http://127.0.0.1:${port}`;
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-tab-test-"));
function write(root, files) {
  for (const [file, text] of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
}

// The served repository: one module and notes of words, which the costly pattern crawls.
const repo = path.join(tmp, "repo");
write(repo, [
  ["app/views.py", "def hello():\n    return 'hi'\n"],
  ...Array.from({ length: 400 }, (_, i) => [`notes/n${i}.md`, wordsText(30, 120, 42 + i)]),
]);

// The picked folder: what .gitignore files (root and nested), the secrets list and the excluded
// folders name must never be read.
const picked = path.join(tmp, "picked");
write(picked, [
  [".gitignore", "ignored/\n*.log\n"],
  ["src/main.py", "def main():\n    return 1\n"],
  ["src/.gitignore", "local.py\n"],
  ["src/local.py", "LEAK = 1\n"],
  ["ignored/leak.py", "LEAK = 2\n"],
  ["ignored/.gitignore", "!keep.py\n"],
  ["debug.log", "LEAK\n"],
  [".env", "LEAK=3\n"],
  ["node_modules/x.js", "LEAK\n"],
]);

// The hub logs, at debug, an answer that comes for a call that already ended.
const hub = await startHub({ bridge: args.bridge, ui: args.ui, port, repo, tmp, env: { NEXUS_LOG: "info,nexus_bridge::hub=debug" } });
const { secret } = hub;
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
let client;
try {
  if (!secret) fail("the hub did not start");
  const page = await (await browser.newContext()).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const status = () => page.locator('[data-testid="load-status"]').textContent();

  await check("the page is cross-origin isolated (COOP/COEP), so it shares memory with its worker", async () => {
    const r = await fetch(`${hubOrigin}/`);
    await r.arrayBuffer();
    if (r.headers.get("cross-origin-opener-policy") !== "same-origin" || r.headers.get("cross-origin-embedder-policy") !== "require-corp") {
      fail(`headers: ${JSON.stringify(Object.fromEntries(r.headers))}`);
    }
    await page.goto(`${hubOrigin}/?token=${secret}`);
    await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 120_000 });
    if (!(await page.evaluate(() => crossOriginIsolated))) fail("crossOriginIsolated is false");
    client = new Client({ name: "tab-test-agent", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: args.bridge, args: ["--port", String(port)], env: { ...process.env, XDG_RUNTIME_DIR: tmp }, stderr: "ignore" }));
  });

  await check("a cancelled grep stops at once: the next call answers long before the scan's budget and no answer comes for it", async () => {
    // Uncancelled, the costly grep runs into its budget: that is the work a Cancel must stop.
    let t = performance.now();
    const full = await client.callTool({ name: "grep", arguments: { pattern: COSTLY_GREP } });
    const fullMs = performance.now() - t;
    const fullText = full.content.map((c) => c.text || "").join("\n");
    if (full.isError || !/Stopped after/.test(fullText)) fail(`the costly grep was not cut at its budget (${fullMs.toFixed(0)} ms): ${fullText.slice(0, 300)}`);
    const logBefore = hub.log().length;
    const controller = new AbortController();
    const cancelled = client.callTool({ name: "grep", arguments: { pattern: COSTLY_GREP } }, undefined, { signal: controller.signal }).then(
      () => "answered",
      () => "aborted",
    );
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    if ((await cancelled) !== "aborted") fail("the cancelled call was answered");
    t = performance.now();
    const next = await client.callTool({ name: "context", arguments: {} });
    const nextMs = performance.now() - t;
    if (next.isError) fail(`the next call failed: ${JSON.stringify(next.content).slice(0, 200)}`);
    // Past the cancelled grep's own budget: a late answer would have reached the hub by now.
    await new Promise((r) => setTimeout(r, 2500));
    const log = hub.log().slice(logBefore);
    if (/result for a call that already ended/.test(log)) fail(`the tab answered the cancelled call:\n${log}`);
    // Uncancelled, the scan would hold the worker ~1.7 s more (its 2 s budget less the 300 ms).
    if (nextMs > 800) fail(`the next call took ${nextMs.toFixed(0)} ms`);
    console.log(`    uncancelled grep ${fullMs.toFixed(0)} ms; next call after a cancel ${nextMs.toFixed(1)} ms`);
  });

  await check("a picked folder's .gitignore, secrets and excluded folders keep files unread", async () => {
    await page.evaluate(() => {
      window.__read = [];
      const read = Blob.prototype.arrayBuffer;
      Blob.prototype.arrayBuffer = function () {
        window.__read.push(this.webkitRelativePath || this.name);
        return read.call(this);
      };
    });
    await page.setInputFiles('[data-testid="pick-folder"]', picked);
    await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || "") && /^picked/.test(document.querySelector('[data-testid="summary"]')?.textContent || ""), null, { timeout: 60_000 });
    const read = (await page.evaluate(() => window.__read)).map((p) => p.replace(/^picked\//, "")).sort();
    const expected = [".gitignore", "src/.gitignore", "src/main.py"];
    if (read.join(",") !== expected.join(",")) fail(`the page read ${read.join(", ")}; expected ${expected.join(", ")}`);
    const grep = await client.callTool({ name: "grep", arguments: { pattern: "LEAK" } });
    const grepText = grep.content.map((c) => c.text || "").join("\n");
    if (!/— 0 matches/.test(grepText)) fail(`grep: ${grepText}`);
    console.log(`    read: ${read.join(", ")} (${await status()})`);
  });

  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("tab test passed");
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
