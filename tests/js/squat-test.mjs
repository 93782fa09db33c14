// Port squatting, in real headless Chromium: the hub exits (SIGTERM; its hub file goes with it),
// another program takes the port and speaks the protocol without any secret (`squat-hub`). The
// open tab, a peer bridge and `nexus-bridge status` each meet it: none sends it a secret or a
// proof, and nobody answers its `Call`. The real hub back on the port is trusted again with no
// new link.
//
// Usage: node tests/js/squat-test.mjs --ui DIST --bridge BIN --squat SQUAT_HUB --port N --repo DIR

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { args, check, fail, startHub } from "./harness.mjs";

const port = Number(args.port || 54394);
const hubOrigin = `http://127.0.0.1:${port}`;
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-squat-test-"));
const hubFile = path.join(tmp, "nexus", `hub-${port}.json`);
const squatLog = path.join(tmp, "squat.log");
const at = (testid) => `[data-testid="${testid}"]`;
const env = { ...process.env, XDG_RUNTIME_DIR: tmp };

const exited = (child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
const squatted = () => (fs.existsSync(squatLog) ? fs.readFileSync(squatLog, "utf8") : "");

let hub = await startHub({ bridge: args.bridge, ui: args.ui, port, repo: args.repo, tmp });
const { secret } = hub;
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
let squat;
let peer;
try {
  if (!secret) fail("the hub did not start");
  const page = await browser.newPage();
  let hubToken = "";

  await check("the tab proves the secret to its hub and is welcomed", async () => {
    await page.goto(`${hubOrigin}/?token=${secret}`);
    await page.locator(`${at("link")}[data-state="ok"]`).first().waitFor({ timeout: 60_000 });
    hubToken = JSON.parse(fs.readFileSync(hubFile, "utf8")).token;
    if (!hubToken) fail("no hub token");
  });

  await check("a link with another token does not replace the kept secret", async () => {
    const other = "f".repeat(64);
    await page.goto(`${hubOrigin}/?token=${other}`);
    await page.locator(`${at("link")}[data-state="ok"]`).first().waitFor({ timeout: 60_000 });
    const kept = await page.evaluate(() => [localStorage.getItem("nexus-token"), sessionStorage.getItem("nexus-token-candidate"), location.search]);
    if (kept[0] !== secret) fail(`the kept secret was replaced: ${kept[0]}`);
    if (kept[1] !== null) fail(`a candidate no hub proved is still kept: ${kept[1]}`);
    if (kept[2] !== "") fail(`the address still holds a token: ${kept[2]}`);
  });

  await check("SIGTERM stops the hub and removes its hub file", async () => {
    hub.process.kill("SIGTERM");
    await exited(hub.process);
    if (fs.existsSync(hubFile)) fail(`${hubFile} is still there`);
  });

  await check("the tab meets the squatter, says another program holds the port, and answers nothing", async () => {
    squat = spawn(args.squat, [String(port), squatLog], { stdio: ["ignore", "ignore", "inherit"] });
    await page.locator(`${at("link")}[data-impostor="${port}"]`).first().waitFor({ timeout: 60_000 });
    const words = await page.locator(at("link-text")).first().textContent();
    if (!words.includes(`another program holds port ${port}`)) fail(`indicator: ${words}`);
    // Let the tab and its chat socket retry a few times against the squatter.
    await page.waitForTimeout(3_000);
    const log = squatted();
    if (!/"agent\\":\\"nexus-web\\"/.test(log)) fail(`the tab never reached the squatter: ${log.slice(0, 400)}`);
    if (!/"what":"chat"/.test(log)) fail(`the chat socket never reached the squatter: ${log.slice(0, 400)}`);
  });

  await check("a peer bridge and `status` refuse the squatter: no token, no proof", async () => {
    // A hub file naming a live process (the squatter's), as a reused process id would.
    fs.writeFileSync(hubFile, JSON.stringify({ port, token: hubToken, pid: squat.pid }), { mode: 0o600 });
    const status = spawnSync(args.bridge, ["status", "--port", String(port)], { env, encoding: "utf8", timeout: 30_000 });
    if (status.status === 0) fail(`status trusted the squatter: ${status.stdout}`);
    if (!/did not prove/.test(status.stderr)) fail(`status: ${status.stderr}`);
    const link = spawnSync(args.bridge, ["status", "--link", "--port", String(port)], { env, encoding: "utf8", timeout: 30_000 });
    if (link.status === 0 || `${link.stdout}${link.stderr}`.includes(secret)) fail(`status --link: ${link.stdout} ${link.stderr}`);
    peer = new Client({ name: "squat-test-agent", version: "1.0.0" });
    await peer.connect(new StdioClientTransport({ command: args.bridge, args: ["--port", String(port)], env, stderr: "ignore" }));
    const answer = await peer.callTool({ name: "context", arguments: {} });
    const text = answer.content.map((c) => c.text || "").join("\n");
    if (!answer.isError) fail(`the peer answered through the squatter: ${text}`);
    await peer.close();
    peer = undefined;
    const log = squatted();
    if (!/"role\\":\\"peer\\"/.test(log)) fail("the peer never reached the squatter");
    if (!/"role\\":\\"monitor\\"/.test(log)) fail("status never reached the squatter");
  });

  await check("the squatter received no secret, no token, no proof and no answer", async () => {
    const log = squatted();
    for (const [what, value] of [["the browser secret", secret], ["the hub token", hubToken]]) {
      if (log.includes(value)) fail(`the squatter received ${what}`);
    }
    for (const kind of ["prove", "result", "progress"]) {
      if (log.includes(`\\"type\\":\\"${kind}\\"`)) fail(`the squatter received a ${kind} frame`);
    }
    const lines = log.trim().split("\n").length;
    console.log(`    the squatter logged ${lines} requests and messages, none with a secret`);
  });

  await check("the real hub back on the port is trusted again without a new link", async () => {
    squat.kill("SIGTERM");
    await exited(squat);
    squat = undefined;
    fs.rmSync(hubFile, { force: true });
    hub = await startHub({ bridge: args.bridge, ui: args.ui, port, repo: args.repo, tmp });
    // No navigation: the open tab reconnects by itself (or at once when it comes into view).
    await page.locator(`${at("link")}[data-state="ok"]:not([data-impostor])`).first().waitFor({ timeout: 90_000 });
    const words = await page.locator(at("link-text")).first().textContent();
    if (words.includes("another program")) fail(`indicator: ${words}`);
  });

  await check("a new secret replaces the kept one once its hub proves it", async () => {
    hub.process.kill("SIGTERM");
    await exited(hub.process);
    fs.rmSync(path.join(tmp, "nexus", "browser-token"));
    hub = await startHub({ bridge: args.bridge, ui: args.ui, port, repo: args.repo, tmp });
    if (!hub.secret || hub.secret === secret) fail("the hub did not make a new secret");
    await page.goto(`${hubOrigin}/?token=${hub.secret}`);
    await page.locator(`${at("link")}[data-state="ok"]`).first().waitFor({ timeout: 60_000 });
    const kept = await page.evaluate(() => localStorage.getItem("nexus-token"));
    if (kept !== hub.secret) fail("the proved new secret was not kept");
  });

  console.log("squat test passed");
} finally {
  if (peer) await peer.close().catch(() => {});
  if (squat) squat.kill("SIGKILL");
  hub.process.kill("SIGKILL");
  await browser.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
