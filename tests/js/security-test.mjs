// Attacks on the tab and the hub, in real headless Chromium: a fake hub named in the address,
// framing, cross-site archive requests, secrets in the repository, archive floods, a costly grep.
//
// Usage: node tests/js/security-test.mjs --ui DIST --bridge BIN --port N [--repo IGNORED]
// Builds its own repository (with every secret file name) in a temporary folder; prints one line
// per check and exits non-zero on the first failure.

import fs from "node:fs";
import net from "node:net";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { args, check, COSTLY_GREP, fail, startHub, wordsText } from "./harness.mjs";

const port = Number(args.port || 54393);
const hubOrigin = `http://127.0.0.1:${port}`;
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-security-test-"));
const MARKER = "NEXUS_SECRET_MARKER";
const SECRETS = [
  ".git-credentials", ".pgpass", ".htpasswd", "putty.ppk", "id_ed25519_sk", "id_ecdsa_sk",
  ".kube/config", ".docker/config.json", "terraform.tfstate", "prod.tfvars",
  "application_default_credentials.json", ".vault-token", ".s3cfg", "secrets.toml", ".npmrc",
  ".pypirc", ".netrc", ".aws/credentials", "id_rsa", "id_ed25519", "server.pem", "server.key",
  "cert.p12", "release.keystore", ".env", "upper/SECRETS.TOML", "upper/.GIT-CREDENTIALS", "upper/Server.PEM",
];

// The repository: one module, every secret holding the marker, a file ignored by .gitignore, and
// one long file of words (under the 1 MB cap) that the costly grep crawls.
const repo = path.join(tmp, "repo");
for (const [file, text] of [
  ["app/views.py", "def hello():\n    return 'hi'\n\n\ndef world():\n    return hello()\n"],
  [".gitignore", "ignored/\n"],
  ["ignored/leak.py", `${MARKER} = 1\n`],
  ["notes/long.md", wordsText(1200, 120)],
  ...SECRETS.map((s) => [s, `${MARKER}\n`]),
]) {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), text);
}

// A fake hub: counts every connection made to it.
let fakeConnections = 0;
const fakeHub = net.createServer((socket) => {
  fakeConnections += 1;
  socket.destroy();
});
await new Promise((r) => fakeHub.listen(0, "127.0.0.1", r));
const fakeHost = `127.0.0.1:${fakeHub.address().port}`;

// Another site (localhost is not the same site as 127.0.0.1): frames the UI, fetches the archive.
const attacker = http.createServer((req, res) => {
  res.setHeader("content-type", "text/html");
  res.end(`<!doctype html><iframe id="f" src="${hubOrigin}/"></iframe>
<script>fetch("${hubOrigin}/api/repo.zip", { mode: "no-cors" }).catch(() => {});</script>`);
});
await new Promise((r) => attacker.listen(0, "127.0.0.1", r));
const attackerUrl = `http://localhost:${attacker.address().port}/`;

const hub = await startHub({ bridge: args.bridge, ui: args.ui, port, repo, tmp });
const { secret } = hub;
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
let client;
try {
  if (!secret) fail("the hub did not start");
  if (!hub.log().includes(`${hubOrigin}/?token=${secret}`)) fail("serve did not print the link with the token");
  const withSecret = { headers: { "X-Nexus-Token": secret } };
  const withApi = { headers: {} };

  await check("every route sends X-Frame-Options: DENY and a CSP with frame-ancestors 'none'", async () => {
    const assets = fs.readdirSync(args.ui).filter((f) => fs.statSync(path.join(args.ui, f)).isFile());
    const routes = ["/", `/?token=${secret}`, "/no-such-file", "/ws", "/api/repo", "/api/bridge", "/api/repo.zip", "/api/nothing", ...assets.map((a) => `/${a}`)];
    for (const route of routes) {
      for (const init of [{}, withSecret]) {
        const r = await fetch(`${hubOrigin}${route}`, { ...init, redirect: "manual" });
        await r.arrayBuffer();
        const csp = r.headers.get("content-security-policy") || "";
        if (r.headers.get("x-frame-options") !== "DENY" || !csp.includes("frame-ancestors 'none'") || !csp.includes(`connect-src 'self' ws://127.0.0.1:${port}`)) {
          fail(`${route} (${r.status}): x-frame-options ${r.headers.get("x-frame-options")}, csp ${csp}`);
        }
        if (r.headers.get("cross-origin-opener-policy") !== "same-origin" || r.headers.get("cross-origin-embedder-policy") !== "require-corp") {
          fail(`${route} (${r.status}) is not cross-origin isolated`);
        }
      }
    }
    console.log(`    ${routes.length} routes × with and without the secret`);
  });

  await check("/api/* refuses requests without the api token and cross-site ones", async () => {
    for (const route of ["/api/repo", "/api/bridge", "/api/repo.zip"]) {
      const r = await fetch(`${hubOrigin}${route}`);
      if (r.status !== 401) fail(`${route} without the api token: ${r.status}`);
      // The browser secret itself opens nothing: only the api token of this hub run does.
      const bySecret = await fetch(`${hubOrigin}${route}`, withSecret);
      if (bySecret.status !== 401) fail(`${route} with the browser secret: ${bySecret.status}`);
      const cross = await fetch(`${hubOrigin}${route}`, { headers: { ...withSecret.headers, "Sec-Fetch-Site": "cross-site" } });
      if (cross.status !== 403) fail(`${route} cross-site: ${cross.status}`);
    }
  });

  await check("without the link the page explains where to find it", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${hubOrigin}/`);
    await page.waitForSelector('[data-testid="needs-link"]', { timeout: 60_000 });
    const words = await page.locator('[data-testid="needs-link"]').textContent();
    if (!/nexus-bridge status/.test(words) || !/token=/.test(words)) fail(`explanation: ${words}`);
    await context.close();
  });

  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));

  await check("a fake hub named in the address, hash or a message receives nothing", async () => {
    await page.goto(`${hubOrigin}/?token=${secret}&hub=${fakeHost}&ws=ws://${fakeHost}/ws#hub=${fakeHost}`);
    await page.evaluate((h) => window.postMessage({ hub: h, url: `ws://${h}/ws` }, "*"), fakeHost);
    await page.waitForFunction(() => /^Indexed \d+ files/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 120_000 });
    // The api token the page got inside its proven session (this hub run's only).
    withApi.headers["X-Nexus-Token"] = await page.evaluate(() => sessionStorage.getItem("nexus-api-token"));
    client = new Client({ name: "security-test-agent", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: args.bridge, args: ["--port", String(port)], env: { ...process.env, XDG_RUNTIME_DIR: tmp }, stderr: "ignore" }));
    const answer = await client.callTool({ name: "context", arguments: {} });
    if (answer.isError) fail(`the real hub's call failed: ${JSON.stringify(answer.content)}`);
    await page.reload();
    await page.waitForFunction(() => /^Restored|^Indexed|saved/.test(document.querySelector('[data-testid="load-status"]')?.textContent || ""), null, { timeout: 60_000 }).catch(() => {});
    await new Promise((r) => setTimeout(r, 1500));
    if (fakeConnections !== 0) fail(`the fake hub got ${fakeConnections} connections`);
    if (page.url().includes("token=")) fail(`the secret stayed in the address: ${page.url()}`);
  });

  await check("another site can neither frame the UI nor fetch the archive", async () => {
    const other = await context.newPage();
    const archive = other.waitForEvent("request", { predicate: (r) => r.url().endsWith("/api/repo.zip"), timeout: 30_000 });
    await other.goto(attackerUrl);
    const request = await archive;
    // Chromium may also block the answer itself (Cross-Origin-Resource-Policy); either way the
    // hub must have said no.
    const response = await request.response().catch(() => null);
    if (response && response.status() !== 403) fail(`cross-site archive fetch: ${response.status()}`);
    if (!response && !(await request.failure())) fail("the cross-site archive fetch neither failed nor was refused");
    await other.waitForTimeout(1000);
    for (const frame of other.frames().filter((f) => f !== other.mainFrame())) {
      const framed = await frame.evaluate(() => !!document.querySelector(".app")).catch(() => false);
      if (framed) fail(`the UI rendered inside ${attackerUrl}`);
    }
    await other.close();
  });

  await check("no secret is searched, grepped, read or archived", async () => {
    const text = async (tool, args) => {
      const r = await client.callTool({ name: tool, arguments: args });
      return { error: !!r.isError, text: r.content.map((c) => c.text || "").join("\n") };
    };
    const grep = await text("grep", { pattern: MARKER, limit: 500 });
    if (grep.error || !/— 0 matches/.test(grep.text)) fail(`grep: ${grep.text}`);
    const search = await text("search", { query: MARKER });
    const hello = await text("grep", { pattern: "def hello" });
    if (!/1 matches/.test(hello.text)) fail(`grep of plain code failed: ${hello.text}`);
    for (const s of SECRETS) {
      if (search.text.includes(path.basename(s))) fail(`search names ${s}: ${search.text}`);
      const read = await text("read", { path: s });
      if (!read.error || read.text.includes(MARKER)) fail(`read ${s}: ${read.text}`);
    }
    const zip = Buffer.from(await (await fetch(`${hubOrigin}/api/repo.zip`, withApi)).arrayBuffer());
    const names = [];
    for (let i = 0; i + 46 < zip.length; i++) {
      if (zip.readUInt32LE(i) === 0x02014b50) names.push(zip.toString("utf8", i + 46, i + 46 + zip.readUInt16LE(i + 28)));
    }
    if (names.sort().join(",") !== ".gitignore,app/views.py,notes/long.md") fail(`archive holds ${names.join(", ")}`);
    if (zip.includes(MARKER)) fail("the archive holds a secret's text");
  });

  await check("50 concurrent archive requests stay within a memory bound and the hub keeps serving", async () => {
    const rss = () => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${hub.process.pid}/status`, "utf8"))[1]) / 1024;
    const before = rss();
    const controllers = [];
    const statuses = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const controller = new AbortController();
        controllers.push(controller);
        try {
          const r = await fetch(`${hubOrigin}/api/repo.zip`, { ...withApi, signal: controller.signal });
          if (i % 2) controller.abort();
          else await r.arrayBuffer();
          return r.status;
        } catch {
          return "aborted";
        }
      }),
    );
    const after = rss();
    const counts = statuses.reduce((m, s) => ({ ...m, [s]: (m[s] || 0) + 1 }), {});
    if (Object.keys(counts).some((s) => !["200", "429", "aborted"].includes(s)) || !counts[200]) fail(`statuses: ${JSON.stringify(counts)}`);
    if (after - before > 64) fail(`the bridge grew by ${(after - before).toFixed(0)} MB`);
    const r = await fetch(`${hubOrigin}/api/repo`, withApi);
    if (!r.ok) fail(`the hub stopped serving: ${r.status}`);
    console.log(`    ${JSON.stringify(counts)}; bridge RSS ${before.toFixed(0)} → ${after.toFixed(0)} MB`);
  });

  await check("a costly grep is cut at its budget and the next call answers within 100 ms", async () => {
    // One long file: the scan is cut between its segments, not after the whole file.
    let t = performance.now();
    const costly = await client.callTool({ name: "grep", arguments: { pattern: COSTLY_GREP } });
    const costlyMs = performance.now() - t;
    const text = costly.content.map((c) => c.text || "").join("\n");
    if (costly.isError || !/Stopped after/.test(text)) fail(`the costly grep was not cut at its budget (${costlyMs.toFixed(0)} ms): ${text.slice(0, 300)}`);
    if (costlyMs > 6000) fail(`the costly grep took ${costlyMs.toFixed(0)} ms for a 2 s budget`);
    t = performance.now();
    const next = await client.callTool({ name: "context", arguments: {} });
    const ms = performance.now() - t;
    if (next.isError || ms > 100) fail(`the next call took ${ms.toFixed(0)} ms (${JSON.stringify(next.content).slice(0, 200)})`);
    const tooLong = await client.callTool({ name: "grep", arguments: { pattern: "a".repeat(1001) } });
    if (!tooLong.isError) fail("a 1,001-character pattern was accepted");
    const tooBig = await client.callTool({ name: "grep", arguments: { pattern: "(?:\\w+\\s*){1,30}(?:\\w+\\s*){1,30}zzz$" } });
    if (!tooBig.isError || !/INVALID_REGEX/.test(JSON.stringify(tooBig.content))) fail(`a pattern too large to compile was not refused: ${JSON.stringify(tooBig.content).slice(0, 200)}`);
    console.log(`    costly grep ${costlyMs.toFixed(0)} ms; next call ${ms.toFixed(1)} ms`);
  });

  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("security test passed");
} catch (err) {
  console.log(hub.log().split("\n").slice(-20).join("\n"));
  console.error(`FAILED: ${err.message}`);
  process.exitCode = 1;
} finally {
  if (client) await client.close().catch(() => {});
  await browser.close();
  hub.process.kill();
  fakeHub.close();
  attacker.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
