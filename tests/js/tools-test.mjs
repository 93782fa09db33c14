// Tools panel test: the real bridge hosts the servers of an mcp.json; headless Chromium opens the UI
// with the browser's secret, finds the hosted server and its tools in the Tools tab, fills the
// forms generated from the tools' schemas (with inline errors for bad input) and reads the results.
// Usage: node tools-test.mjs --bridge BIN --ui DIST --repo DIR --port N --config MCP_JSON
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const port = Number(args.port || 54393);
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "nexus-tools-test-"));

function fail(message) {
  throw new Error(message);
}

async function check(name, fn) {
  const started = Date.now();
  await fn();
  console.log(`ok  ${name} (${Date.now() - started} ms)`);
}

const at = (testid) => `[data-testid="${testid}"]`;

const bridge = spawn(args.bridge, ["serve", "--port", String(port), "--repo", args.repo, "--mcp-config", args.config], {
  env: { ...process.env, NEXUS_UI_DIR: args.ui, XDG_RUNTIME_DIR: tmp },
  stdio: ["ignore", "ignore", "pipe"],
});
let bridgeLog = "";
bridge.stderr.on("data", (d) => (bridgeLog += d));
const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
try {
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/api/bridge`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const secret = fs.readFileSync(path.join(tmp, "nexus", "browser-token"), "utf8").trim();
  await page.goto(`http://127.0.0.1:${port}/?token=${secret}`);

  await check("the Tools tab lists the hosted server online with its tools", async () => {
    await page.click(at("tab-tools"));
    const server = `${at("tools-servers")} ${at("tools-server")}[data-id="everything"]`;
    await page.waitForSelector(`${server}[data-state="online"]`, { timeout: 60_000 });
    const line = await page.locator(server).first().textContent();
    if (!/everything · online · [1-9]\d* tools/.test(line || "")) fail(`server line: ${line}`);
    await page.waitForSelector(`${server} ${at("tools-tool")}[data-name="everything:echo"]`);
    // Each tool says whether the chat and agents must ask first (readOnlyHint decides by default).
    const policy = (name) => page.locator(`${at("tools-tool")}[data-name="${name}"]`).getAttribute("data-policy");
    if ((await policy("everything:echo")) !== "allow") fail("echo (read-only) is not allowed unasked");
    if ((await policy("everything:toggle-simulated-logging")) !== "confirm") fail("a tool that changes state does not ask first");
  });

  await check("the echo tool's form is generated from its schema", async () => {
    await page.click(`${at("tools-tool")}[data-name="everything:echo"]`);
    await page.waitForSelector(`${at("tools-form")}[data-name="everything:echo"]`);
    const schema = await page.locator(at("tools-schema")).textContent();
    if (!/"message"/.test(schema || "")) fail(`schema: ${schema}`);
    const label = await page.locator("label.field", { has: page.locator(at("tools-field-message")) }).textContent();
    if (!/message \*/.test(label || "")) fail(`the required field is not marked: ${label}`);
  });

  await check("a required field left empty is an inline error and nothing is called", async () => {
    await page.click(at("tools-call"));
    await page.waitForSelector(at("tools-field-error"));
    const error = await page.locator(at("tools-field-error")).textContent();
    if (error !== "required") fail(`field error: ${error}`);
    if ((await page.locator(at("tools-result")).getAttribute("data-state")) !== "none") fail("a call was made");
  });

  await check("calling echo shows the echoed text", async () => {
    await page.fill(at("tools-field-message"), "hello from the Tools panel");
    await page.click(at("tools-call"));
    await page.waitForSelector(`${at("tools-result")}[data-state="ok"]`, { timeout: 30_000 });
    const result = await page.locator(at("tools-result")).textContent();
    if (!result.includes("Echo: hello from the Tools panel")) fail(`result: ${result}`);
    if ((await page.locator(at("tools-field-error")).count()) !== 0) fail("the inline error stayed");
  });

  await check("number fields reject words inline and send numbers", async () => {
    await page.click(`${at("tools-tool")}[data-name="everything:get-sum"]`);
    await page.waitForSelector(`${at("tools-form")}[data-name="everything:get-sum"]`);
    await page.fill(at("tools-field-a"), "two");
    await page.fill(at("tools-field-b"), "3");
    await page.click(at("tools-call"));
    await page.waitForSelector(at("tools-field-error"));
    const error = await page.locator(at("tools-field-error")).textContent();
    if (!/not a number/.test(error || "")) fail(`field error: ${error}`);
    await page.fill(at("tools-field-a"), "2.5");
    await page.click(at("tools-call"));
    await page.waitForFunction(() => /The sum of 2\.5 and 3 is 5\.5/.test(document.querySelector('[data-testid="tools-result"]')?.textContent || ""), null, { timeout: 30_000 });
  });

  if (errors.length) fail(`page errors: ${errors.join("; ")}`);
  console.log("tools test passed");
} catch (err) {
  console.log(bridgeLog.split("\n").slice(-20).join("\n"));
  console.error(`FAILED: ${err.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
  bridge.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
